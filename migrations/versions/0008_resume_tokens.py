"""Resume tokens: the browser client's way back in after a drop, without the password.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "resume_tokens",
        sa.Column("digest", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
    )
    op.create_index("ix_resume_tokens_account_id", "resume_tokens", ["account_id"])


def downgrade() -> None:
    op.drop_index("ix_resume_tokens_account_id", "resume_tokens")
    op.drop_table("resume_tokens")
