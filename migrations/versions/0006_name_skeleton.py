"""Accounts: the confusable skeleton of each name (look-alike names are refused).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def _skeleton(name: str) -> str:
    # the same fold as server.services.accounts.skeleton, frozen here as it was when
    # this revision was written (a migration must not change when the code does)
    key = name.lower().replace("rn", "m").replace("vv", "w")
    return key.translate(str.maketrans({"1": "l", "i": "l", "0": "o"}))


def upgrade() -> None:
    with op.batch_alter_table("accounts") as batch:
        batch.add_column(sa.Column("skeleton", sa.String(20), nullable=False, server_default=""))
    bind = op.get_bind()
    accounts = sa.table("accounts", sa.column("id", sa.Integer), sa.column("name", sa.String),
                        sa.column("skeleton", sa.String))
    for account_id, name in bind.execute(sa.select(accounts.c.id, accounts.c.name)).all():
        bind.execute(sa.update(accounts).where(accounts.c.id == account_id)
                     .values(skeleton=_skeleton(name)))
    op.create_index("ix_accounts_skeleton", "accounts", ["skeleton"])


def downgrade() -> None:
    op.drop_index("ix_accounts_skeleton", table_name="accounts")
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("skeleton")
