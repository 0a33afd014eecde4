"""Fixtures for the web door: a running parlor with its door on an ephemeral port."""

from __future__ import annotations

import httpx
import pytest

from server.web import WebDoor
from tests.support.teardown import cleanup


@pytest.fixture
async def door(parlor):
    """The parlor's web door, listening on 127.0.0.1 and a free port."""
    d = WebDoor(parlor, host="127.0.0.1", port=0)
    await d.start()
    yield d
    async with cleanup() as steps:
        await steps.run("stopping the web door", d.stop(), 30)


@pytest.fixture
async def http(door):
    """An HTTP client for the door (a real socket, through uvicorn)."""
    client = httpx.AsyncClient(base_url=door.url.rstrip("/"), timeout=10)
    yield client
    async with cleanup() as steps:
        await steps.run("closing the HTTP client", client.aclose(), 10)
