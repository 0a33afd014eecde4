"""Faults of the database under the parlor, on the throwaway PostgreSQL.

- Three nodes started at once on an empty database: each upgrades the schema and loads
  the default data, one after another (advisory locks, ``server/db.py``), and all three
  come up; nothing is made twice.
- A command whose database connection dies under it runs once more on a fresh one when
  it had committed nothing, and is refused in one line when it had (never run twice).
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import sqlalchemy as sa
from alembic.config import Config as AlembicConfig
from alembic.script import ScriptDirectory

from commands.registry import Command, build
from server.db import LOST, MIGRATIONS, Database, connection_lost

STARTED = "Connect with: telnet"


def _node_config(tmp_path: Path, name: str, database: str, redis: str) -> str:
    path = tmp_path / f"{name}.toml"
    path.write_text(textwrap.dedent(f"""
        [server]
        port = 0
        [web]
        enabled = false
        [database]
        url = "{database}"
        [cluster]
        redis = "{redis}"
        node = "{name}"
        [accounts]
        argon2_time_cost = 1
        argon2_memory_kib = 1024
    """))
    return str(path)


class Starting:
    """``esterport serve`` in a child process, its log read in a thread until it says it
    listens (``up``) or exits."""

    def __init__(self, config: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "commands.app", "serve", "--no-hold", "--config", config],
            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, cwd=os.getcwd())
        self.log: list[str] = []
        self.up = threading.Event()
        self.done = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stderr:
            self.log.append(line)
            if STARTED in line:
                self.up.set()
        self.done.set()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


async def test_three_nodes_started_at_once_on_an_empty_database(tmp_path, postgres,
                                                               redis_server):
    database = await postgres.new_database()
    nodes = [Starting(_node_config(tmp_path, f"n{i}", database, redis_server.url(3)))
             for i in (1, 2, 3)]
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not all(
                n.up.is_set() or n.done.is_set() for n in nodes):
            time.sleep(0.1)
        for n in nodes:
            assert n.up.is_set() and n.proc.poll() is None, \
                "a node did not start:\n" + "".join(n.log[-40:])
            assert not any("Traceback" in line for line in n.log), "".join(n.log)
        head = ScriptDirectory.from_config(_alembic()).get_current_head()
        db = Database(database)
        try:
            async with db.session() as tx:
                assert await tx.scalar(sa.text("SELECT version_num FROM alembic_version")) == head
                # the default data once: one row per design, the computer's deck topped up
                # to one copy of each (three loads at once used to mint it three times)
                designs = await tx.scalar(sa.text("SELECT count(*) FROM tile_designs"))
                names = await tx.scalar(sa.text(
                    "SELECT count(DISTINCT (collection_id, name_key)) FROM tile_designs"))
                copies = list(await tx.execute(sa.text(
                    "SELECT design_id, count(*) FROM tiles GROUP BY design_id "
                    "HAVING count(*) <> 1")))
                collections = await tx.scalar(sa.text("SELECT count(*) FROM tile_collections"))
        finally:
            await db.close()
        assert designs == names and designs > 0 and collections > 0
        assert copies == []
    finally:
        for n in nodes:
            n.stop()


def _alembic() -> AlembicConfig:
    cfg = AlembicConfig()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


# -- a connection lost under a command ------------------------------------------------------
class StandIn:
    """The little of a session and a parlor a test command needs."""

    def __init__(self, db: Database) -> None:
        self.parlor = SimpleNamespace(db=db)
        self.log = logging.getLogger("test")
        self.out: list[str] = []
        self.is_admin = False
        self.screenreader = False

    def write(self, text: str) -> None:
        self.out.append(text)

    def begin_reply(self) -> None:
        pass

    def end_reply(self) -> None:
        pass


async def _kill_backend(db: Database, pid: int) -> None:
    """End the server process behind a connection, as a restart of PostgreSQL would."""
    async with db.engine.connect() as other:
        await other.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})


@pytest.fixture
async def pg_db(postgres):
    db = Database(await postgres.new_database())
    async with db.engine.begin() as conn:
        await conn.execute(sa.text("CREATE TABLE marks (n integer)"))
    yield db
    await db.close()


async def _marks(db: Database) -> int:
    async with db.session() as tx:
        return await tx.scalar(sa.text("SELECT count(*) FROM marks"))


async def test_a_command_whose_connection_dies_before_it_commits_runs_once_more(pg_db):
    runs = []

    async def mark(ctx, rest: str) -> None:
        runs.append(rest)
        async with ctx.db.session() as tx:
            if len(runs) == 1:  # its connection dies mid-transaction, the first time
                await _kill_backend(ctx.db, await tx.scalar(sa.text("SELECT pg_backend_pid()")))
            await tx.execute(sa.text("INSERT INTO marks VALUES (1)"))
            await tx.commit()
        ctx.send("Marked.")

    registry = build([[Command("mark", mark, "MARK", "Mark once.")]])
    session = StandIn(pg_db)
    assert await registry.dispatch(session, "mark it") == "ok"
    assert runs == ["it", "it"]
    assert session.out == ["Marked."]
    assert await _marks(pg_db) == 1


async def test_a_command_that_committed_before_its_connection_died_is_not_run_again(pg_db):
    runs = []

    async def mark(ctx, rest: str) -> None:
        runs.append(rest)
        async with ctx.db.session() as tx:
            await tx.execute(sa.text("INSERT INTO marks VALUES (1)"))
            await tx.commit()
        async with ctx.db.session() as tx:  # then, in a second transaction, it dies
            await _kill_backend(ctx.db, await tx.scalar(sa.text("SELECT pg_backend_pid()")))
            await tx.execute(sa.text("SELECT 1"))
        ctx.send("Marked.")

    registry = build([[Command("mark", mark, "MARK", "Mark once.")]])
    session = StandIn(pg_db)
    assert await registry.dispatch(session, "mark it") == "lost"
    assert runs == ["it"]
    assert session.out == [LOST]
    assert await _marks(pg_db) == 1


async def test_a_command_that_loses_the_database_twice_is_refused_in_one_line(pg_db):
    runs = []

    async def look(ctx, rest: str) -> None:
        runs.append(rest)
        async with ctx.db.session() as tx:
            await _kill_backend(ctx.db, await tx.scalar(sa.text("SELECT pg_backend_pid()")))
            await tx.execute(sa.text("SELECT 1"))

    registry = build([[Command("look", look, "LOOK", "Look.")]])
    session = StandIn(pg_db)
    assert await registry.dispatch(session, "look") == "lost"
    assert len(runs) == 2 and session.out == [LOST]


async def test_a_bug_is_still_a_bug(pg_db):
    """Only a lost connection is tried again: any other error is the apology, once."""
    runs = []

    async def bad(ctx, rest: str) -> None:
        runs.append(rest)
        async with ctx.db.session() as tx:
            await tx.execute(sa.text("SELECT * FROM no_such_table"))

    registry = build([[Command("bad", bad, "BAD", "Fail.")]])
    session = StandIn(pg_db)
    assert await registry.dispatch(session, "bad") == "failed"
    assert len(runs) == 1 and len(session.out) == 1 and "Sorry" in session.out[0]


async def test_what_counts_as_a_lost_connection():
    with socket.socket() as s:  # a port where no PostgreSQL listens
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    nowhere = Database(f"postgresql+asyncpg://postgres@127.0.0.1:{port}/postgres")
    try:
        async with nowhere.session() as tx:
            await tx.execute(sa.text("SELECT 1"))
    except Exception as err:  # noqa: BLE001
        assert connection_lost(err), repr(err)
    else:
        raise AssertionError("a PostgreSQL answered where none should")
    finally:
        await nowhere.close()
    try:  # a player's socket reset is not the database's
        raise ConnectionResetError(104, "Connection reset by peer")
    except ConnectionResetError as err:
        assert not connection_lost(err)
    assert not connection_lost(ValueError("no"))
    assert not connection_lost(sa.exc.IntegrityError("INSERT", {}, Exception("duplicate")))
    wrapped = sa.exc.InterfaceError("SELECT 1", {}, Exception("connection is closed"),
                                    connection_invalidated=True)
    assert connection_lost(wrapped)
