"""Correspondence play: the challenges that wait for a player who is away.

A correspondence game itself needs no new column: its days a move are in its options,
and its clock runs from the game's ``updated_at`` (stored with every move).

Revision ID: 0012_correspondence
Revises: 0011
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0012_correspondence"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "correspondence_offers",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("challenger_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("challenger_name", sa.String(20), nullable=False),
        sa.Column("target_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("target_name", sa.String(20), nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_index("ix_correspondence_offers_challenger_id", "correspondence_offers",
                    ["challenger_id"])
    op.create_index("ix_correspondence_offers_target_id", "correspondence_offers",
                    ["target_id"])


def downgrade() -> None:
    op.drop_index("ix_correspondence_offers_target_id", "correspondence_offers")
    op.drop_index("ix_correspondence_offers_challenger_id", "correspondence_offers")
    op.drop_table("correspondence_offers")
