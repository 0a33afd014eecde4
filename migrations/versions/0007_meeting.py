"""Meeting and competing: notify lists, news kept while away, tournaments.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "notify_list",
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("target_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
    )
    op.create_index("ix_notify_list_target_id", "notify_list", ["target_id"])
    op.create_table(
        "away_news",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("text", sa.String(500), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_index("ix_away_news_account_id", "away_news", ["account_id"])
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("system", sa.String(10), nullable=False),
        sa.Column("title", sa.String(80), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("created_by", sa.Integer, sa.ForeignKey("accounts.id"), nullable=True),
        sa.Column("state", sa.JSON, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("starts_at", sa.Float, nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_index("ix_tournaments_status", "tournaments", ["status"])


def downgrade() -> None:
    op.drop_index("ix_tournaments_status", table_name="tournaments")
    op.drop_table("tournaments")
    op.drop_index("ix_away_news_account_id", table_name="away_news")
    op.drop_table("away_news")
    op.drop_index("ix_notify_list_target_id", table_name="notify_list")
    op.drop_table("notify_list")
