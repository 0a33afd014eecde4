"""The migrations build the schema the models describe: after ``migrate``, alembic's
autogenerate finds nothing to add, drop or change (on SQLite and on PostgreSQL); the
newest revision read without alembic is alembic's own; a revision that fills a table
in from stored rows fills it in rightly."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory

import commands.app  # noqa: F401  every game's kind, and so every game's tables
from server.db import MIGRATIONS, Database, newest_revision
from server.models import Account, Base, GamePlayer, GameRecord
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


async def test_the_players_of_games_stored_before_their_table_are_filled_in(db_url):
    """0014 (``game_players``) fills itself in from every stored game's seats: the
    accounts seated, each once, and no seat naming an account that does not exist."""
    database = Database(db_url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))

    def upgrade(to: str):  # noqa: ANN202
        def run(sync_conn):  # noqa: ANN001, ANN202
            config.attributes["connection"] = sync_conn
            command.upgrade(config, to)
        return run

    def seat(account: int, name: str, computer: str | None = None) -> dict:
        return {"id": account, "name": name, "computer": computer}

    try:
        async with database.engine.begin() as conn:
            await conn.run_sync(upgrade("0013_away_news_without_kind"))
            await conn.execute(sa.insert(Account.__table__), [
                dict(id=i, name=n, name_key=n.lower(), password_hash="-", created_at=0.0,
                     settings={}) for i, n in ((1, "Ada"), (2, "Bo"), (3, "Computer"))])
            games = [
                (1, [seat(1, "Ada"), seat(2, "Bo")]),
                (2, [seat(2, "Bo"), seat(3, "Computer", "hard")]),
                (3, [seat(1, "Ada"), seat(2, "Bo"), seat(1, "Ada")]),   # came back
                (4, [seat(1, "Ada"), seat(99, "Gone")]),
            ]
            await conn.execute(sa.insert(GameRecord.__table__), [
                dict(id=g, kind="dice", status="finished", seats=seats, options={},
                     ranked=False, seed=0, initial_state={}, state={}, version=0,
                     created_at=0.0, updated_at=0.0) for g, seats in games])
        await database.migrate()
        async with database.engine.connect() as conn:
            rows = (await conn.execute(sa.select(GamePlayer.account_id, GamePlayer.game_id)
                                       .order_by(GamePlayer.game_id,
                                                 GamePlayer.account_id))).all()
        assert [tuple(r) for r in rows] == [(1, 1), (2, 1), (2, 2), (3, 2), (1, 3), (2, 3),
                                            (1, 4)]
    finally:
        await database.engine.dispose()
