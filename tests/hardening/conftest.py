"""Fixtures of the hardening tests: an in-process parlor (tests/hardening/harness.py) on
SQLite and on PostgreSQL."""

from __future__ import annotations

import attrs
import pytest

from tests.conftest import make_config
from tests.hardening.harness import Harness
from tests.support.teardown import cleanup


def quiet_config(url: str, **games):  # noqa: ANN201
    """The test config, with computers that wait (the state changes only by what is typed)."""
    config = make_config(url)
    games.setdefault("computer_delay", 3600.0)
    return attrs.evolve(config, games=attrs.evolve(config.games, **games))


@pytest.fixture
async def harness(db_url):
    h = await Harness.start(quiet_config(db_url))
    yield h
    async with cleanup() as steps:
        await steps.run("stopping the harness's parlor", h.stop(), 60)
