"""The news kept for a player who is away is its text alone: ``away_news.kind`` (always
"notice", never read) is dropped, so ``kind`` names a game's kind and nothing else.

Revision ID: 0013_away_news_without_kind
Revises: 0012_correspondence
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0013_away_news_without_kind"
down_revision = "0012_correspondence"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("away_news") as batch:
        batch.drop_column("kind")


def downgrade() -> None:
    with op.batch_alter_table("away_news") as batch:
        batch.add_column(sa.Column("kind", sa.String(20), nullable=False,
                                   server_default="notice"))
