"""The database: engine creation (SQLite pragmas), sessions, migrations at start-up, and
what the parlor does when PostgreSQL goes away for a moment.

Several nodes of a cluster may start at once on an empty PostgreSQL database. Alembic
alone races there (each process sees no ``alembic_version`` and creates the same tables),
and so do the default data files (each process sees a collection missing and makes it).
Both run under a PostgreSQL advisory lock (:func:`advisory_lock`): the first process does
the work, the others wait for it and then find nothing left to do. SQLite needs no lock:
one process owns its file.

A PostgreSQL restart kills every open connection. The engine pings a pooled connection
before handing it out (``pool_pre_ping``), so a command after the restart gets a fresh
one; a command that was using a connection when it died fails with an error that
:func:`connection_lost` recognises, and the command dispatch tries it once more when it
had committed nothing (:class:`Commits`), or tells the player :data:`LOST`.

SQLite is reached through aiosqlite, whose connection runs sqlite3 in a thread of its
own. Its ``close`` waits for that thread to stop, even when the thread was told to stop
already and is gone: the wait never ends. SQLAlchemy does exactly that when a task is
cancelled in a query (it closes the connection in a shielded task and, cancelled again,
stops the thread under it), and a task that can never end hangs whoever waits for every
task to end (a test's event loop closing, a stopping server). So the engine makes its
SQLite connections itself (:class:`SQLiteConnection`), with a ``close`` that does not
wait for a thread already told to stop, and with one trip to that thread a statement
(:class:`SQLiteCursor`) where aiosqlite takes four.

aiosqlite's thread also dies when it answers a call whose event loop has closed meanwhile
(a statement still running when a task was cancelled and the loop ended, a ``stop`` that
nobody awaited): it raises in the thread, and the calls queued behind are never run. The
connection's thread runs :func:`_serve` instead, which drops such an answer.
"""

from __future__ import annotations

import ast
import asyncio
import contextvars
import errno
import logging
import sqlite3
from collections import deque
from contextlib import asynccontextmanager
from functools import partial
from queue import SimpleQueue
from threading import Thread
from pathlib import Path
from typing import Any, AsyncIterator, Awaitable, Callable

import aiosqlite
from aiosqlite.context import contextmanager as aiosqlite_result
from sqlalchemy import event, exc, text
from sqlalchemy.dialects.sqlite.aiosqlite import SQLiteDialect_aiosqlite
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

log = logging.getLogger(__name__)

# The alembic scripts: the ``migrations`` package, beside ``server`` in a checkout and in
# an install built from it alike (a wheel installs both into site-packages; pyproject.toml
# ships the scripts). Alembic reads them by their path, so they are found, not imported.
PROJECT_ROOT = Path(__file__).resolve().parent.parent
MIGRATIONS = PROJECT_ROOT / "migrations"

# Keys of PostgreSQL advisory locks (any 64-bit numbers no other program on the database
# uses; these spell "EstrMigr" and "EstrSeed" in ASCII).
MIGRATION_LOCK = 0x457374724D696772
SEED_LOCK = 0x4573747253656564
LOCK_NAMES = {MIGRATION_LOCK: "migration", SEED_LOCK: "default data"}

# What a player is told when a command met a lost database connection and could not
# simply be run again.
LOST = "The parlor lost its database for a moment; type that again."


def _answer(future: asyncio.Future | None, outcome: Callable[[asyncio.Future], None]) -> None:
    """From the connection's thread: settle ``future`` in its loop, unless nobody waits
    (no future, or its loop has closed: there is no one left to tell)."""
    if future is None:
        return
    loop = future.get_loop()
    if loop.is_closed():
        return

    def settle() -> None:
        if not future.done():
            outcome(future)

    try:
        loop.call_soon_threadsafe(settle)
    except RuntimeError:    # closed between the look and the call
        pass


def _serve(calls: SimpleQueue) -> None:
    """The body of a SQLite connection's thread: run each queued call and answer it, until
    the call that stops the thread (aiosqlite's ``stop`` queues it) has run."""
    while True:
        future, call = calls.get()
        try:
            result = call()
        except BaseException as error:  # noqa: BLE001 - the caller gets it, whatever it is
            _answer(future, lambda f, e=error: f.set_exception(e))
            continue
        _answer(future, lambda f, r=result: f.set_result(r))
        if result is aiosqlite.core._STOP_RUNNING_SENTINEL:  # noqa: SLF001
            return


class SQLiteCursor(aiosqlite.Cursor):
    """aiosqlite's cursor in one trip to the connection's thread a statement.

    aiosqlite makes a trip for each step: making the cursor, executing, fetching the
    rows, closing it; SQLAlchemy takes all four for every statement. A trip is a hand-off
    between the threads (a queue, a wake-up, the GIL, a turn of the loop for the answer),
    and the parlor's one SQLite connection is held meanwhile: a move's transaction took
    eight, and now takes three (bench/moves.py: a move's CPU fell by about a seventh).
    Here the sqlite3 cursor is made on the first execute, a query's rows come back with
    it (``fetch*`` take them from memory), and closing is queued behind it, not waited
    for."""

    #: rows a ``fetchmany()`` gives (sqlite3's default)
    arraysize = 1

    def __init__(self, conn: "SQLiteConnection") -> None:
        super().__init__(conn, None)  # type: ignore[arg-type] - made in the thread
        self._rows: deque | None = None

    def _run(self, method: str, *args: Any) -> list | None:
        """In the connection's thread: the statement, and a query's rows."""
        if self._cursor is None:
            self._cursor = self._conn._conn.cursor()  # noqa: SLF001
        getattr(self._cursor, method)(*args)
        return self._cursor.fetchall() if self._cursor.description else None

    async def _trip(self, method: str, *args: Any) -> "SQLiteCursor":
        self._rows = None
        rows = await self._execute(self._run, method, *args)
        self._rows = None if rows is None else deque(rows)
        return self

    async def execute(self, sql: str, parameters: Any = None) -> "SQLiteCursor":
        return await self._trip("execute", sql, [] if parameters is None else parameters)

    async def executemany(self, sql: str, parameters: Any) -> "SQLiteCursor":
        return await self._trip("executemany", sql, parameters)

    async def executescript(self, sql_script: str) -> "SQLiteCursor":
        return await self._trip("executescript", sql_script)

    # what sqlite3 says of a cursor that has executed nothing yet
    @property
    def description(self) -> Any:
        return None if self._cursor is None else self._cursor.description

    @property
    def rowcount(self) -> int:
        return -1 if self._cursor is None else self._cursor.rowcount

    @property
    def lastrowid(self) -> int | None:
        return None if self._cursor is None else self._cursor.lastrowid

    async def fetchone(self) -> Any:
        return self._rows.popleft() if self._rows else None

    async def fetchmany(self, size: int | None = None) -> list:
        rows = self._rows or deque()
        count = self.arraysize if size is None else size
        return [rows.popleft() for _ in range(min(len(rows), count))]

    async def fetchall(self) -> list:
        rows, self._rows = self._rows, None
        return [] if rows is None else list(rows)

    async def close(self) -> None:
        self._rows = None
        cursor, conn = self._cursor, self._conn
        if cursor is None or not conn._running or conn._connection is None:  # noqa: SLF001
            return
        conn._tx.put_nowait((None, cursor.close))  # noqa: SLF001 - behind its statement; no answer


class SQLiteConnection(aiosqlite.Connection):
    """aiosqlite's connection, whose :meth:`close` never waits for a thread that was
    told to stop already (see the module's docstring), whose cursors take one trip to
    its thread a statement (:class:`SQLiteCursor`), and whose ``rollback`` takes none
    when no transaction is open (the pool rolls back every connection it is given back,
    after every commit too). Its thread runs :func:`_serve`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # a daemon: a connection never closed cannot keep the process from ending
        self._thread = Thread(target=_serve, args=(self._tx,), daemon=True,
                              name="sqlite-connection")

    @aiosqlite_result  # awaited, or entered as ``async with`` (SQLAlchemy does that)
    async def cursor(self) -> SQLiteCursor:
        return SQLiteCursor(self)

    async def rollback(self) -> None:
        # read in this thread: nothing else is queued on a connection the pool holds
        if self._connection is not None and not self._conn.in_transaction:
            return
        await super().rollback()

    async def close(self) -> None:
        if self._connection is None:
            return
        try:
            if self._running:
                await self._execute(self._conn.close)
        finally:
            self._connection = None
            if self._running:   # nobody has told the thread to stop: it is there to answer
                stopped = self.stop()
                if stopped is not None:
                    await stopped


def sqlite_connector(url: URL) -> Callable[[], Awaitable[aiosqlite.Connection]]:
    """The engine's ``async_creator`` for the SQLite ``url``: a :class:`SQLiteConnection`
    opened as SQLAlchemy's aiosqlite dialect would open it (the same arguments; a daemon
    thread, so a connection never closed cannot keep the process from ending)."""
    args, kwargs = SQLiteDialect_aiosqlite().create_connect_args(url)

    async def connect() -> aiosqlite.Connection:
        return await SQLiteConnection(partial(sqlite3.connect, *args, **kwargs),
                                      iter_chunk_size=64)

    return connect


def make_engine(url: str) -> AsyncEngine:
    """An async engine for ``url``; SQLite gets WAL and a busy timeout, and its folder is
    made; any other database gets connections checked before use (``pool_pre_ping``), so
    one restarted under the parlor costs no command."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        # One connection: SQLite has one writer at a time anyway, and queueing in the pool
        # (in asyncio) avoids "database is locked" when a read transaction would upgrade to a
        # write while another writer holds the lock.
        engine = create_async_engine(url, pool_size=1, max_overflow=0, pool_timeout=120,
                                     async_creator=sqlite_connector(parsed))

        @event.listens_for(engine.sync_engine, "connect")
        def _pragmas(dbapi_conn, _record):  # noqa: ANN001
            cur = dbapi_conn.cursor()
            for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON",
                           "busy_timeout=5000"):
                cur.execute(f"PRAGMA {pragma}")
            cur.close()

    else:
        engine = create_async_engine(url, pool_size=10, max_overflow=20, pool_pre_ping=True)
    event.listen(engine.sync_engine, "commit", _committing)
    return engine


@asynccontextmanager
async def advisory_lock(engine: AsyncEngine, key: int) -> AsyncIterator[None]:
    """Hold the PostgreSQL advisory lock ``key`` for the block (other processes asking for
    it wait), on a connection of its own; on SQLite, nothing.

    The lock is a session lock, taken and given back outside any transaction, so the
    block's own transactions (on other connections) commit while it is held. If the
    process dies, PostgreSQL ends its connection and with it the lock."""
    if engine.dialect.name != "postgresql":
        yield
        return
    async with engine.connect() as conn:
        if not await conn.scalar(text("SELECT pg_try_advisory_lock(:key)"), {"key": key}):
            log.info("another process holds the database's %s lock; waiting for it",
                     LOCK_NAMES.get(key, hex(key)))
            await conn.execute(text("SELECT pg_advisory_lock(:key)"), {"key": key})
        await conn.commit()
        try:
            yield
        finally:
            await conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": key})
            await conn.commit()


# -- a lost connection ----------------------------------------------------------------------
def connection_lost(err: BaseException) -> bool:
    """Whether ``err`` (or what caused it) is the database connection lost or refused (a
    restart, a cut network) rather than a fault of the work itself.

    SQLAlchemy marks the errors its dialect knows as disconnects (``connection_invalidated``);
    asyncpg also reports a closed connection as ``ConnectionDoesNotExistError``, the
    server going down as ``AdminShutdownError`` (SQLSTATE 57P01) or ``CannotConnectNowError``
    (57P03, still starting), a connection class error (08xxx) as ``ConnectionFailureError``;
    reaching no server at all is an ``OSError`` raised through the driver (one from a
    player's socket is not the database's)."""
    seen: set[int] = set()
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        if isinstance(err, exc.DBAPIError) and err.connection_invalidated:
            return True
        if _asyncpg_lost(err):
            return True
        if isinstance(err, OSError) and _from_driver(err) and (
                isinstance(err, ConnectionError) or err.errno in (
                    errno.ECONNREFUSED, errno.ECONNRESET, errno.EPIPE, errno.ETIMEDOUT,
                    errno.EHOSTUNREACH, errno.ENETUNREACH)):
            return True
        err = err.__cause__ or err.__context__ or getattr(err, "orig", None)
    return False


def _from_driver(err: BaseException) -> bool:
    """Whether ``err`` was raised through the database driver or SQLAlchemy (a socket
    error of the database's, not of a player's connection)."""
    tb = err.__traceback__
    while tb is not None:
        if tb.tb_frame.f_globals.get("__name__", "").startswith(
                ("asyncpg", "sqlalchemy", "aiosqlite")):
            return True
        tb = tb.tb_next
    return False


def _asyncpg_lost(err: BaseException) -> bool:
    try:
        from asyncpg import exceptions as pg
    except ImportError:  # SQLite only
        return False
    if isinstance(err, (pg.ConnectionDoesNotExistError, pg.ConnectionFailureError,
                        pg.AdminShutdownError, pg.CannotConnectNowError,
                        pg.CrashShutdownError)):
        return True
    # asyncpg's own InterfaceError says "connection is closed" for a socket found dead
    return isinstance(err, pg.InterfaceError) and "connection is closed" in str(err)


# -- what a piece of work committed ---------------------------------------------------------
_commits: contextvars.ContextVar["Commits | None"] = contextvars.ContextVar(
    "esterport_commits", default=None)


class Commits:
    """Counts the commits begun in a block of work (this task and the tasks it starts),
    on any connection of any engine of the process: a command that met a lost connection
    may be run again only if it had begun none (a commit begun may have landed).

        with Commits() as commits:
            await run()
        if commits.count == 0: ...
    """

    def __init__(self) -> None:
        self.count = 0
        self._token: contextvars.Token | None = None

    def __enter__(self) -> "Commits":
        self._token = _commits.set(self)
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._token is not None:
            _commits.reset(self._token)
            self._token = None


def _committing(_conn) -> None:  # noqa: ANN001
    """The engines' ``commit`` event (before the COMMIT is sent)."""
    watch = _commits.get()
    if watch is not None:
        watch.count += 1


def newest_revision(versions: Path) -> str | None:
    """The head of the alembic scripts in ``versions``: the one revision no other script
    names as its ``down_revision`` (None if there is not exactly one). Read from the
    scripts' own assignments, as alembic reads them, without importing alembic."""
    revisions: set[str] = set()
    revised: set[str] = set()
    for script in versions.glob("*.py"):
        names = _constants(script)
        if "revision" in names:
            revisions.add(names["revision"])
            down = names.get("down_revision")  # None, one revision, or a merge's tuple
            revised.update(down if isinstance(down, (tuple, list)) else [down] if down else [])
    heads = revisions - revised
    return heads.pop() if len(heads) == 1 else None


def _constants(script: Path) -> dict[str, Any]:
    """The literal values a script assigns at its top level (``revision = "0013"``)."""
    found: dict[str, Any] = {}
    for node in ast.parse(script.read_text()).body:
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Name):
                try:
                    found[target.id] = ast.literal_eval(node.value)
                except ValueError:  # not a literal (an expression, a call)
                    pass
    return found


class Database:
    """Owns the engine and the session factory."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = make_engine(url)
        self._head: str | None = None   # the newest revision (newest_revision)
        self.session = async_sessionmaker(self.engine, expire_on_commit=False, class_=AsyncSession)

    def exclusive(self, key: int):  # noqa: ANN201
        """:func:`advisory_lock` on this database (an async context manager)."""
        return advisory_lock(self.engine, key)

    def newest_revision(self) -> str | None:
        """The newest alembic revision of this release's migrations (read from their
        files once: a held parlor reads them while loading, not in a restart's gap)."""
        if self._head is None:
            self._head = newest_revision(MIGRATIONS / "versions") or ""
        return self._head or None

    async def _revision(self) -> str | None:
        """The schema's alembic revision, None when it has none (or cannot be read)."""
        try:
            async with self.engine.connect() as conn:
                return (await conn.execute(text(
                    "SELECT version_num FROM alembic_version"))).scalar_one_or_none()
        except exc.SQLAlchemyError:
            return None

    async def migrate(self) -> None:
        """Upgrade the schema to the newest alembic revision, one process at a time (the
        others wait for the lock, then find the schema at the newest revision). A schema
        at the newest revision already is left alone, with no lock taken."""
        newest = self.newest_revision()
        if newest is not None and await self._revision() == newest:
            return
        # alembic (11 MB and 22,000 objects every full garbage collection scans) is
        # imported only when a schema is behind, not by every parlor that starts
        from alembic import command
        from alembic.config import Config as AlembicConfig

        cfg = AlembicConfig()
        cfg.set_main_option("script_location", str(MIGRATIONS))
        async with self.exclusive(MIGRATION_LOCK):
            async with self.engine.begin() as conn:
                cfg.attributes["connection"] = None

                def upgrade(sync_conn):  # noqa: ANN001
                    cfg.attributes["connection"] = sync_conn
                    command.upgrade(cfg, "head")

                await conn.run_sync(upgrade)

    async def close(self) -> None:
        await self.engine.dispose()
