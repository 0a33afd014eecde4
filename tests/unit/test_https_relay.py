"""The web door's side of the holder's HTTPS relay (``server/web/protocol.py``,
``relayed``): each connection begins with the holder's PROXY line, read before uvicorn
sees a byte; the page then sees the browser's address and https, and the connection is
counted by that address. Anything else first is closed without a word."""

from __future__ import annotations

import asyncio
import socket

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from server.web.budget import Budget
from server.web.protocol import protocols

REQUEST = b"GET / HTTP/1.1\r\nHost: play.example.org\r\nConnection: close\r\n\r\n"


async def _relayed(tmp_path, budget: Budget) -> tuple[uvicorn.Server, str]:  # noqa: ANN001
    path = str(tmp_path / "relay")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(8)
    http, ws = protocols(budget, 5.0, relayed=True)

    async def who(request: Request) -> PlainTextResponse:   # and whom the budget counts
        counted = ",".join(budget.open.values())
        return PlainTextResponse(f"{request.client.host} {request.url.scheme} {counted}")

    config = uvicorn.Config(Starlette(routes=[Route("/", who)]), http=http, ws=ws,
                            lifespan="off", log_config=None, log_level="warning")
    config.load()
    server = uvicorn.Server(config)
    server.lifespan = config.lifespan_class(config)
    await server.startup(sockets=[listener])
    return server, path


async def _exchange(path: str, *parts: bytes) -> bytes:
    reader, writer = await asyncio.open_unix_connection(path)
    try:
        for part in parts:
            writer.write(part)
            await writer.drain()
            await asyncio.sleep(0.05)   # each part its own read on the door's side
        return await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()


async def test_a_page_sees_the_browser_named_by_the_proxy_line(tmp_path):
    budget = Budget({"open": 0, "refused": 0}, 100, 75, 10, lambda _address: False)
    server, path = await _relayed(tmp_path, budget)
    try:
        answer = await _exchange(path, b"PROXY TCP4 203.0.113.7 ",
                                 b"127.0.0.1 50123 8443\r\n" + REQUEST[:20], REQUEST[20:])
        assert answer.startswith(b"HTTP/1.1 200"), answer
        assert answer.endswith(b"\r\n\r\n203.0.113.7 https 203.0.113.7"), answer
        assert not budget.open and not budget.addresses   # and no more once closed
    finally:
        server.should_exit = True
        await server.shutdown()


async def test_a_connection_that_does_not_begin_with_the_line_is_closed(tmp_path):
    budget = Budget({"open": 0, "refused": 0}, 100, 75, 10, lambda _address: False)
    server, path = await _relayed(tmp_path, budget)
    try:
        assert await _exchange(path, REQUEST) == b""
        assert not budget.open
    finally:
        server.should_exit = True
        await server.shutdown()
