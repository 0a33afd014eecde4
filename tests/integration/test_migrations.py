"""The migrations build the schema the models describe: after ``migrate``, alembic's
autogenerate finds nothing to add, drop or change (on SQLite and on PostgreSQL); the
newest revision read without alembic is alembic's own."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory

import commands.app  # noqa: F401  every game's kind, and so every game's tables
from server.db import MIGRATIONS, newest_revision
from server.models import Base
from tests.support.imports import loaded_by_a_parlor


async def test_the_migrations_build_the_schema_the_models_describe(db):
    def differences(sync_conn):  # noqa: ANN001, ANN202
        context = MigrationContext.configure(sync_conn, opts={"compare_type": False})
        return compare_metadata(context, Base.metadata)

    async with db.engine.connect() as conn:
        diff = await conn.run_sync(differences)
    assert diff == []


def test_the_newest_revision_is_read_as_alembic_reads_it(tmp_path):
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    assert newest_revision(MIGRATIONS / "versions") == \
        ScriptDirectory.from_config(config).get_current_head()
    # a merge (a tuple of down revisions) and two heads
    (tmp_path / "a.py").write_text('revision = "a"\ndown_revision = None\n')
    (tmp_path / "b.py").write_text('revision: str = "b"\ndown_revision = "a"\n')
    (tmp_path / "c.py").write_text('revision = "c"\ndown_revision = "a"\n')
    assert newest_revision(tmp_path) is None
    (tmp_path / "d.py").write_text('revision = "d"\ndown_revision = ("b", "c")\n')
    assert newest_revision(tmp_path) == "d"


def test_a_parlor_at_the_newest_revision_does_not_load_alembic():
    """alembic (about 11 MB, and 22,000 objects every full garbage collection scans) is
    imported only to migrate a schema that is behind."""
    assert loaded_by_a_parlor("alembic", "mako", "pygments") == []
