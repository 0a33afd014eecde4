"""Login trust: the addresses an account logged in from, in the store (it was in each
node's memory, lost at a restart).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "login_trust",
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("address", sa.String(64), primary_key=True),
        sa.Column("until", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("login_trust")
