"""The database: engine creation (SQLite pragmas), sessions, migrations at start-up."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config as AlembicConfig
from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

PROJECT_ROOT = Path(__file__).resolve().parent.parent
MIGRATIONS = PROJECT_ROOT / "migrations"


def make_engine(url: str) -> AsyncEngine:
    """An async engine for ``url``; SQLite gets WAL and a busy timeout, and its folder is made."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        # One connection: SQLite has one writer at a time anyway, and queueing in the pool
        # (in asyncio) avoids "database is locked" when a read transaction would upgrade to a
        # write while another writer holds the lock.
        engine = create_async_engine(url, pool_size=1, max_overflow=0, pool_timeout=120)

        @event.listens_for(engine.sync_engine, "connect")
        def _pragmas(dbapi_conn, _record):  # noqa: ANN001
            cur = dbapi_conn.cursor()
            for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON",
                           "busy_timeout=5000"):
                cur.execute(f"PRAGMA {pragma}")
            cur.close()

        return engine
    return create_async_engine(url, pool_size=10, max_overflow=20)


class Database:
    """Owns the engine and the session factory."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = make_engine(url)
        self.session = async_sessionmaker(self.engine, expire_on_commit=False, class_=AsyncSession)

    async def migrate(self) -> None:
        """Upgrade the schema to the newest alembic revision."""
        cfg = AlembicConfig()
        cfg.set_main_option("script_location", str(MIGRATIONS))
        async with self.engine.begin() as conn:
            cfg.attributes["connection"] = None

            def upgrade(sync_conn):  # noqa: ANN001
                cfg.attributes["connection"] = sync_conn
                command.upgrade(cfg, "head")

            await conn.run_sync(upgrade)

    async def close(self) -> None:
        await self.engine.dispose()
