"""A game's epoch and node: the fencing token and the name of the node that drives it.
Every adoption of a game (a node taking it over from the store) raises the epoch by one
and names the adopter, and every write of the game is made only while it is still the
epoch the writer holds, so a node that lost a game (paused past its lease) can store
nothing more of it.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("epoch", sa.Integer, nullable=False, server_default="0"))
        batch.add_column(sa.Column("node", sa.String(64), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("node")
        batch.drop_column("epoch")
