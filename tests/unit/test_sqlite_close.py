"""A SQLite connection's close never waits for a worker thread told to stop already
(``server/db.py``, ``SQLiteConnection``): aiosqlite's own close waits for ever there,
which hung a test's teardown (the event loop closing waits for every task) when
SQLAlchemy stopped the thread of a connection a cancelled query was closing."""

from __future__ import annotations

import asyncio

import sqlalchemy as sa

from server.db import SQLiteConnection, make_engine, sqlite_connector


async def _open(tmp_path) -> SQLiteConnection:  # noqa: ANN001
    connect = sqlite_connector(sa.make_url(f"sqlite+aiosqlite:///{tmp_path}/t.db"))
    return await connect()


async def test_close_after_the_thread_was_told_to_stop_returns(tmp_path):
    conn = await _open(tmp_path)
    conn.stop()
    await asyncio.wait_for(conn.close(), 5)
    await asyncio.wait_for(conn.close(), 5)   # and again: nothing left to do


async def test_a_stop_while_closing_does_not_hold_the_close(tmp_path):
    """SQLAlchemy's way: a close in a shielded task, then stop() from the cancelled one."""
    conn = await _open(tmp_path)
    closing = asyncio.ensure_future(conn.close())
    await asyncio.sleep(0)
    conn.stop()
    await asyncio.wait_for(closing, 5)
    await asyncio.wait_for(asyncio.to_thread(conn._thread.join, 5), 6)  # noqa: SLF001
    assert not conn._thread.is_alive()  # noqa: SLF001


async def test_a_plain_close_stops_the_thread(tmp_path):
    conn = await _open(tmp_path)
    await (await conn.execute("CREATE TABLE t (x)")).close()
    await asyncio.wait_for(conn.close(), 5)
    await asyncio.wait_for(asyncio.to_thread(conn._thread.join, 5), 6)  # noqa: SLF001
    assert not conn._thread.is_alive()  # noqa: SLF001


async def test_the_engine_opens_its_sqlite_connections_so(tmp_path):
    engine = make_engine(f"sqlite+aiosqlite:///{tmp_path}/e.db")
    try:
        async with engine.connect() as conn:
            assert await conn.scalar(sa.text("PRAGMA journal_mode")) == "wal"
            raw = await conn.get_raw_connection()
            assert isinstance(raw.driver_connection, SQLiteConnection)
            assert raw.driver_connection._thread.daemon  # noqa: SLF001
    finally:
        await engine.dispose()


async def test_an_answer_to_a_closed_loop_does_not_kill_the_thread(tmp_path):
    """A call whose event loop closed before it was answered (aiosqlite's own thread
    raises there and dies, and every call queued behind it waits for ever)."""
    conn = await _open(tmp_path)
    try:
        gone = asyncio.new_event_loop()
        unanswered = [gone.create_future(), gone.create_future()]
        gone.close()
        conn._tx.put_nowait((unanswered[0], lambda: 1))  # noqa: SLF001
        conn._tx.put_nowait((unanswered[1], lambda: 1 / 0))  # noqa: SLF001
        cursor = await asyncio.wait_for(conn.execute("SELECT 7"), 5)
        assert await cursor.fetchall() == [(7,)]
        assert conn._thread.is_alive()  # noqa: SLF001
        assert not any(f.done() for f in unanswered)
    finally:
        await asyncio.wait_for(conn.close(), 5)
