"""Fixtures for the web door: a running parlor with its door on an ephemeral port."""

from __future__ import annotations

import httpx
import pytest

from server.web import WebDoor


@pytest.fixture
async def door(parlor):
    """The parlor's web door, listening on 127.0.0.1 and a free port."""
    d = WebDoor(parlor, host="127.0.0.1", port=0)
    await d.start()
    yield d
    await d.stop()


@pytest.fixture
async def http(door):
    """An HTTP client for the door (a real socket, through uvicorn)."""
    async with httpx.AsyncClient(base_url=door.url.rstrip("/"), timeout=10) as client:
        yield client
