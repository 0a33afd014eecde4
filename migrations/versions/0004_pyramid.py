"""Pyramid: the server-wide TOP 10 and saved tournaments.

Revision ID: 0004
Revises: 0002
Create Date: 2026-11-23
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "pyramid_top10",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("name", sa.String(20), nullable=False),
        sa.Column("score", sa.Integer, nullable=False),
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), nullable=False),
        sa.Column("opponent", sa.String(40), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_index("ix_pyramid_top10_account_id", "pyramid_top10", ["account_id"])
    op.create_index("ix_pyramid_top10_score", "pyramid_top10", ["score"])
    op.create_table(
        "pyramid_saves",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id"), nullable=False),
        sa.Column("seats", sa.JSON, nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("state", sa.JSON, nullable=False),
        sa.Column("summary", sa.String(120), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_index("ix_pyramid_saves_account_id", "pyramid_saves", ["account_id"])


def downgrade() -> None:
    op.drop_index("ix_pyramid_saves_account_id", "pyramid_saves")
    op.drop_table("pyramid_saves")
    op.drop_index("ix_pyramid_top10_score", "pyramid_top10")
    op.drop_index("ix_pyramid_top10_account_id", "pyramid_top10")
    op.drop_table("pyramid_top10")
