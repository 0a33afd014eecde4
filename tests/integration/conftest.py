"""Fixtures of the service tests: a migrated database on SQLite and on PostgreSQL."""

from __future__ import annotations

import pytest

from server.db import Database


@pytest.fixture
async def db(db_url):
    database = Database(db_url)
    await database.migrate()
    yield database
    await database.close()
