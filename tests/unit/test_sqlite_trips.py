"""A statement on SQLite is one trip to the connection's thread (``server/db.py``,
``SQLiteCursor``), and giving a connection back after a commit is none: aiosqlite took
four a statement and the pool's rollback one more, each waiting for a turn of the loop
while the parlor's one SQLite connection was held. What the cursors give is unchanged."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from server.db import SQLiteConnection, make_engine, sqlite_connector

T = sa.table("t", sa.column("x", sa.Integer))


def _count_trips(monkeypatch) -> list[str]:  # noqa: ANN001
    """Every function sent to a connection's thread and waited for, by name."""
    trips: list[str] = []
    waited = SQLiteConnection._execute  # noqa: SLF001

    async def counted(self, fn, *args, **kwargs):  # noqa: ANN001, ANN202
        trips.append(getattr(fn, "__name__", repr(fn)))
        return await waited(self, fn, *args, **kwargs)

    monkeypatch.setattr(SQLiteConnection, "_execute", counted)
    return trips


@pytest.fixture
async def engine(tmp_path):
    """An engine on a new SQLite file with the table ``t``."""
    made = make_engine(f"sqlite+aiosqlite:///{tmp_path}/t.db")
    async with made.begin() as conn:
        await conn.execute(sa.text("CREATE TABLE t (x INTEGER)"))
    yield made
    await made.dispose()


async def test_a_transaction_of_two_statements_takes_three_trips(engine, monkeypatch):
    trips = _count_trips(monkeypatch)
    async with engine.begin() as conn:
        await conn.execute(T.insert(), {"x": 1})
        await conn.execute(T.update().values(x=2))
    assert len(trips) == 3, trips   # two statements and the commit; no rollback after
    async with engine.connect() as conn:
        assert (await conn.execute(sa.select(T.c.x))).scalars().all() == [2]


async def test_what_a_query_gives_is_unchanged(engine):
    async with engine.begin() as conn:
        await conn.execute(T.insert(), [{"x": n} for n in range(5)])   # executemany
        result = await conn.execute(sa.select(T.c.x).order_by(T.c.x))
        assert result.fetchone() == (0,)
        assert result.fetchmany(2) == [(1,), (2,)]
        assert result.fetchall() == [(3,), (4,)]
        assert (await conn.execute(sa.select(T.c.x).where(T.c.x > 9))).all() == []
        updated = await conn.execute(T.update().where(T.c.x < 2).values(x=9))
        assert updated.rowcount == 2


async def test_a_cursor_before_and_after_its_statement(tmp_path):
    conn = await sqlite_connector(sa.make_url(f"sqlite+aiosqlite:///{tmp_path}/t.db"))()
    try:
        cursor = await conn.cursor()
        assert cursor.description is None and cursor.rowcount == -1
        assert await cursor.fetchone() is None and await cursor.fetchall() == []
        await cursor.execute("CREATE TABLE t (x INTEGER)")
        await cursor.executemany("INSERT INTO t VALUES (?)", [(1,), (2,), (3,)])
        assert cursor.rowcount == 3
        await cursor.execute("SELECT x FROM t ORDER BY x")
        assert cursor.description[0][0] == "x"
        assert await cursor.fetchmany() == [(1,)]   # arraysize: one row
        assert await cursor.fetchall() == [(2,), (3,)]
        await cursor.close()
        async with conn.cursor() as again:   # as SQLAlchemy opens them
            await again.execute("SELECT count(*) FROM t")
            assert await again.fetchone() == (3,)
    finally:
        await conn.close()


async def test_a_rollback_still_rolls_back_an_open_transaction(engine, monkeypatch):
    trips = _count_trips(monkeypatch)
    async with engine.connect() as conn:
        await conn.execute(T.insert(), {"x": 1})
        await conn.rollback()
    assert "rollback" in trips
    async with engine.connect() as conn:
        assert (await conn.execute(sa.select(sa.func.count()).select_from(T))).scalar() == 0
