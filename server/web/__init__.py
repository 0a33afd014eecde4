"""The web door: the parlor over HTTP and WebSocket, in the parlor's own process and
event loop.

Starlette routes requests (``server/web/app.py``), Jinja2 draws the pages (autoescaped:
every name and sentence a player chose is text, never markup), uvicorn serves them.
Starlette + uvicorn because both are small, well kept and asyncio-native: uvicorn's
``Server`` runs inside the loop the telnet listener already uses (``startup`` /
``main_loop`` / ``shutdown``, not ``serve``, which would take over the process's
signals), so a page reads the same in-memory games, sessions and bus as a telnet
command, with no second process or copy of the state.

``esterport serve`` starts the door after the parlor (``[web] enabled``, ``host``,
``port``, ``--web-port``); the parlor stops it first when it stops.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

import uvicorn

from server.web.live import Watchers

if TYPE_CHECKING:
    from server.app import Parlor
    from server.web.live import GameStream
    from server.web.play import WebSocketTransport

log = logging.getLogger(__name__)

MAX_HEAD = 16 * 1024  # bytes of a request line and headers


def _http_protocol(head_timeout: float) -> "type | str":
    """uvicorn's httptools protocol (its C parser) with two bounds on a request's head
    (its line and headers): at most :data:`MAX_HEAD` bytes (h11's bound; httptools takes
    headers of any size), and complete within ``head_timeout`` seconds of its first byte
    (a client trickling a head byte by byte would hold its connection for ever). h11 (the
    size bound only) when httptools is missing."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:
        return "h11"

    class BoundedHttpTools(HttpToolsProtocol):
        _head: int | None = 0   # bytes of the current request's head so far (None: body)
        _timer: asyncio.TimerHandle | None = None

        def on_headers_complete(self) -> None:
            self._head = None
            self._stop_timer()
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            super().on_message_complete()
            self._head = 0

        def data_received(self, data: bytes) -> None:
            if self._head is not None:
                if self._head == 0 and self._timer is None:
                    self._timer = asyncio.get_running_loop().call_later(
                        head_timeout, self._too_slow)
                self._head += len(data)
                if self._head > MAX_HEAD:
                    self._stop_timer()
                    self.send_400_response("Request line and headers too large.")
                    return
            super().data_received(data)

        def _too_slow(self) -> None:
            self._timer = None
            if self._head is not None and not self.transport.is_closing():
                self.send_400_response("Request line and headers too slow.")

        def _stop_timer(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_timer()
            super().connection_lost(exc)

    return BoundedHttpTools


class WebDoorError(OSError):
    """The door could not listen (the port is taken, the address is not ours)."""


class WebDoor:
    def __init__(self, parlor: "Parlor", *, host: str | None = None,
                 port: int | None = None) -> None:
        from server.web.app import build_app  # templates load once, with the door

        cfg = parlor.config.web
        self.parlor = parlor
        self.host = cfg.host if host is None else host
        self.requested_port = cfg.port if port is None else port
        self.closing = asyncio.Event()
        self.watchers = Watchers(cfg.watchers_per_game)
        self.streams: set["GameStream"] = set()
        self.plays: set["WebSocketTransport"] = set()
        self.app = build_app(self)
        self._server: uvicorn.Server | None = None
        self._loop_task: asyncio.Task | None = None

    async def start(self) -> None:
        cfg = self.parlor.config.web
        config = uvicorn.Config(
            self.app, host=self.host, port=self.requested_port, lifespan="off", log_config=None,
            log_level="warning", access_log=False, ws="websockets-sansio",
            ws_max_size=cfg.max_message, ws_ping_interval=30.0, ws_ping_timeout=30.0,
            limit_concurrency=cfg.max_requests, timeout_keep_alive=5,
            timeout_graceful_shutdown=3,
            http=_http_protocol(cfg.request_timeout), h11_max_incomplete_event_size=MAX_HEAD,
            proxy_headers=bool(cfg.trusted_proxies),
            forwarded_allow_ips=list(cfg.trusted_proxies) or None,
            server_header=False,
        )
        config.load()
        server = uvicorn.Server(config)
        server.lifespan = config.lifespan_class(config)
        try:
            await server.startup()
        except SystemExit:  # uvicorn's way of saying it could not bind
            raise WebDoorError(f"cannot listen on {self.host}:{self.requested_port}") from None
        self._server = server
        self._loop_task = asyncio.create_task(server.main_loop())
        self.parlor.before_stop.append(self.stop)
        log.info("web door on http://%s:%d/", self.host, self.port)

    @property
    def port(self) -> int:
        assert self._server is not None
        return self._server.servers[0].sockets[0].getsockname()[1]

    @property
    def url(self) -> str:
        host = self.host if self.host not in ("0.0.0.0", "::", "") else "127.0.0.1"
        return f"http://{host}:{self.port}/"

    async def stop(self) -> None:
        """Refuse new requests, end live streams and browser sessions, then stop."""
        if self._server is None:
            return
        self.closing.set()
        for stream in list(self.streams):
            stream.changed.set()
        for session in list(self.parlor.connections):  # browsers' sessions, told as telnet's
            if getattr(session.writer, "_transport", None) in self.plays:
                session.close("Esterport is shutting down. Your games are saved.")
        for transport in list(self.plays):  # and any still at the telnet negotiation
            transport.close()
        server, self._server = self._server, None
        server.should_exit = True
        if self._loop_task is not None:
            await self._loop_task
        await server.shutdown()
        if self.stop in self.parlor.before_stop:
            self.parlor.before_stop.remove(self.stop)


__all__ = ["WebDoor", "WebDoorError"]
