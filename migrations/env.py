"""Alembic environment (async). The server passes its open connection in
``config.attributes["connection"]``; run from the command line, the URL comes from
$ESTERPORT_DATABASE_URL or the ``[database] url`` of ./config.toml. Either way the upgrade
runs under the migration lock (``server/db.py``), so processes started at once on one
PostgreSQL database upgrade it one after the other.

The tables are the shared ones (``server/models.py``) and each game's own, declared on
the same ``Base`` beside the game's service: importing the assembled application (its
games' kinds, ``commands/app.py``) declares them all, so autogenerate sees every one."""

from __future__ import annotations

import asyncio
import os

from alembic import context
from sqlalchemy.engine import Connection

import commands.app  # noqa: F401  every game's kind, and so every game's tables
from server.models import Base

target_metadata = Base.metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


async def _run_standalone() -> None:
    from server.config import Config
    from server.db import MIGRATION_LOCK, advisory_lock, make_engine

    url = os.environ.get("ESTERPORT_DATABASE_URL")
    if url is None:
        url = Config.load("config.toml" if os.path.exists("config.toml") else None).database.url
    engine = make_engine(url)
    try:
        async with advisory_lock(engine, MIGRATION_LOCK), engine.begin() as conn:
            await conn.run_sync(_run)
    finally:
        await engine.dispose()


connection = context.config.attributes.get("connection")
if connection is not None:
    _run(connection)
else:
    asyncio.run(_run_standalone())
