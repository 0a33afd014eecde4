"""Tournaments: players barred for a while after a no-show.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournament_bars",
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("until", sa.Float, nullable=False),
        sa.Column("reason", sa.String(200), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("tournament_bars")
