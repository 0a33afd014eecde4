"""The migrations build the schema the models describe: after ``migrate``, alembic's
autogenerate finds nothing to add, drop or change (on SQLite and on PostgreSQL)."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

import commands.app  # noqa: F401  every game's kind, and so every game's tables
from server.models import Base


async def test_the_migrations_build_the_schema_the_models_describe(db):
    def differences(sync_conn):  # noqa: ANN001, ANN202
        context = MigrationContext.configure(sync_conn, opts={"compare_type": False})
        return compare_metadata(context, Base.metadata)

    async with db.engine.connect() as conn:
        diff = await conn.run_sync(differences)
    assert diff == []
