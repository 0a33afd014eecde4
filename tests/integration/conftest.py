"""Fixtures of the service tests: a migrated database on SQLite and on PostgreSQL."""

from __future__ import annotations

import pytest

from server.db import Database
from tests.support.teardown import cleanup


@pytest.fixture
async def db(db_url):
    database = Database(db_url)
    await database.migrate()
    yield database
    async with cleanup() as steps:
        await steps.run("closing the database", database.close(), 15)
