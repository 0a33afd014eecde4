"""The web door as the parlor starts it: pages, live boards and /play on one port.

Starlette routes requests (``server/web/app.py``), Jinja2 draws the pages (autoescaped:
every name and sentence a player chose is text, never markup), uvicorn serves them.
Starlette + uvicorn because both are small, well kept and asyncio-native: uvicorn's
``Server`` runs inside the loop the telnet listener already uses (``startup`` /
``main_loop`` / ``shutdown``, not ``serve``, which would take over the process's
signals), so a page reads the same in-memory games, sessions and bus as a telnet
command, with no copy of the state.

What speaks HTTP to page readers is another matter: that CPU would be the players'. With
``[web] front`` (the default) the plain port is served by the door's *front*, a process of
its own (``server/web/front.py``, started and restarted by
``server/web/front_link.py``): it reads each request, asks the parlor for the page as
one message and writes the answer, and hands the connections that last (live streams,
/play's WebSocket) to this process's uvicorn whole. The HTTPS port (``[web] tls_port``)
is served by the front too when the holder ends its TLS (a held parlor: the front reads
the holder's relay); a parlor not held makes its TLS handshakes here and serves that port
itself, as it does the plain port with ``front = false``.

``esterport serve`` starts the door after the parlor (``[web] enabled``, ``host``,
``port``, ``--web-port``); the parlor stops it first when it stops. Its connections in
this process count in the one budget of descriptors it shares with telnet
(``server/web/budget.py``), and each is timed from its opening
(``server/web/protocol.py``). Each public page is drawn once per change and every reader
is sent that copy, static files are gzip'd once at start (``server/web/cache.py``), and
page requests take turns with the players (``[web] pages_at_once``, ``DoorApp`` in
``server/web/app.py``).
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
import ssl
from typing import TYPE_CHECKING, Awaitable, Callable, Protocol

import uvicorn

from server.mudlet import MudletOffer, MudletPackage
from server.telnet import ACCEPT_BATCH, listen_backlog
from server.tls import server_context
from server.web.budget import Budget, proxy_test, web_share
from server.web.front_link import FrontError, FrontLink
from server.web.live import Watchers
from server.web.play import host_names
from server.web.protocol import protocols

if TYPE_CHECKING:
    from server.bus import Bus
    from server.changes import Changes
    from server.config import Config
    from server.connections import Connections
    from server.db import Database
    from server.holder.link import HolderLink
    from server.online import Online
    from server.services.accounts import Accounts
    from server.services.games import GameHost
    from server.services.ratings import Ratings
    from server.telnet import TelnetProtocol
    from server.world import World
    from server.web.live import GameStream, PageStream
    from server.web.play import PlaySocket

log = logging.getLogger(__name__)

# asyncio accepts up to ``backlog`` connections at a time, each a descriptor, before any of
# them reaches the budget (in ``connection_made``, a loop turn later): uvicorn's 2,048 let
# one burst take every descriptor there was. So uvicorn is given the telnet listener's
# batch, and the kernel's queue is deepened to ``[server] backlog`` afterwards.
BACKLOG = ACCEPT_BATCH


def trusted_proxies(config: "Config") -> tuple[str, ...]:
    """The proxies whose X-Forwarded-For the door believes: ``[web] trusted_proxies``
    and ``[server] trusted_proxies`` (the proxy in front of both doors, listed once);
    networks written as uvicorn reads them (``10.0.0.1/8`` is ``10.0.0.0/8``)."""
    server = tuple(str(ipaddress.ip_network(p, strict=False)) if "/" in p else p
                   for p in config.server.trusted_proxies)
    return tuple(dict.fromkeys(config.web.trusted_proxies + server))


class WebDoorError(OSError):
    """The door could not listen (the port is taken, the address is not ours)."""


class Interior(Protocol):
    """What the web door reads of the parlor it opens onto: what its pages' data, live
    boards and /play read (``data.Sources``, ``live.Broadcast``, ``play.Shell``: the
    games, who is online and where, the accounts, ratings and records, the bus, the
    settings, the holder and a telnet connection), and the telnet listener's protocol
    and count of connections (one budget for both doors), the connections and the
    farewell they are told when the door stops, whether the parlor hands over, the hooks
    run before it stops, the Mudlet offer, which the door sets while it serves the
    package, and the count of changes to what the pages show (read by the front)."""

    host: "GameHost"
    online: "Online"
    world: "World"
    accounts: "Accounts"
    ratings: "Ratings"
    db: "Database"
    bus: "Bus"
    config: "Config"
    holder: "HolderLink | None"
    telnet_protocol: "type[TelnetProtocol] | None"
    counter: dict[str, int]
    connections: "Connections"
    farewell: str
    handing_over: bool
    before_stop: list[Callable[[], Awaitable[None]]]
    mudlet: MudletOffer | None
    changes: "Changes"

    def telnet_connection(self) -> "TelnetProtocol": ...


class WebDoor:
    def __init__(self, parlor: Interior, *, host: str | None = None,
                 port: int | None = None) -> None:
        from server.web.app import build_app  # templates load once, with the door

        cfg = parlor.config.web
        assert parlor.telnet_protocol is not None, "start() the parlor before its web door"
        total = parlor.telnet_protocol.max_connections   # both doors' connections at most
        self.parlor = parlor
        self.host = cfg.host if host is None else host
        self.requested_port = cfg.port if port is None else port
        self.closing = asyncio.Event()
        self.proxies = trusted_proxies(parlor.config)
        self.budget = Budget(parlor.counter, total, web_share(total, cfg.max_requests),
                             cfg.max_connections_per_address, proxy_test(self.proxies))
        self.watchers = Watchers(cfg.watchers_per_game,
                                 max(1, min(cfg.max_streams, self.budget.share // 2)),
                                 cfg.streams_per_address, self.budget.uncapped)
        self.host_names = host_names(self)   # what /play's Host may name (DNS rebinding)
        self.streams: set["GameStream | PageStream"] = set()
        self.plays: set["PlaySocket"] = set()
        # a held parlor whose holder keeps /play sockets too (server/web/held.py): the
        # plain port's /play is then not compressed, so that no state outlives a message
        holder = parlor.holder
        self.holds_plays = (holder is not None and holder.holds_websockets
                            and "web" in holder.listeners)
        # the Mudlet package the door serves (server/mudlet.py), built once for its games
        self.mudlet = MudletPackage.build(kind.gmcp_package for kind in
                                          parlor.host.kinds.values() if kind.gmcp_package)
        self.app = build_app(self)
        self._server: uvicorn.Server | None = None
        self._loop_task: asyncio.Task | None = None
        self._https: uvicorn.Server | None = None  # [web] tls_port
        self._https_task: asyncio.Task | None = None
        self._https_port = 0
        self._front: FrontLink | None = None   # [web] front: the plain port's process
        self._listener: socket.socket | None = None   # ... and the socket it listens on
        self._front_port = 0

    async def start(self) -> None:
        cfg = self.parlor.config.web
        listeners = self.parlor.holder.listeners if self.parlor.holder else {}
        held = listeners.get("web")
        server = self._uvicorn(self.requested_port)
        if cfg.front:
            # the holder's relay of the HTTPS port is plain bytes: the front serves it too
            relay = listeners.get("https") if cfg.tls_port else None
            await self._start_front(server, held, relay)
        else:
            try:
                await server.startup(sockets=[held] if held is not None else None)
            except SystemExit:  # uvicorn's way of saying it could not bind
                self.app.state.pages.close()
                raise WebDoorError(
                    f"cannot listen on {self.host}:{self.requested_port}") from None
            for listener in server.servers:
                listen_backlog(listener.sockets, self.parlor.config.server.backlog)
        self._server = server
        self._loop_task = asyncio.create_task(server.main_loop())
        self.parlor.before_stop.append(self.stop)
        log.info("web door on http://%s:%d/", self.host, self.port)
        if cfg.tls_port and self._https is None:
            await self._start_https(cfg.tls_port)
        self.parlor.mudlet = self.mudlet_offer()

    async def _start_front(self, server: uvicorn.Server, held: socket.socket | None,
                           relay: socket.socket | None) -> None:
        """The plain port served by the front (``server/web/front.py``), on the holder's
        listening socket or one of the door's own, and the holder's relay of the HTTPS
        port (``relay``, a held parlor's) too; ``server`` (and the HTTPS port's) listen
        on nothing and take the connections the front hands over."""
        cfg = self.parlor.config.web
        https = None
        if relay is not None:
            https = self._uvicorn(cfg.tls_port, relayed=True)
            await https.startup(sockets=[])
            self._https, self._https_port = https, cfg.tls_port
            self._https_task = asyncio.create_task(https.main_loop())
        listener = held
        if listener is None:
            try:
                listener = socket.create_server(
                    (self.host, self.requested_port), backlog=BACKLOG,
                    family=socket.AF_INET6 if ":" in self.host else socket.AF_INET)
            except OSError as err:
                self.app.state.pages.close()
                raise WebDoorError(
                    f"cannot listen on {self.host}:{self.requested_port}") from err
        self._listener = listener
        self._front_port = listener.getsockname()[1]
        await server.startup(sockets=[])
        settings = {
            "total": self.budget.total, "share": self.budget.share,
            "per_address": cfg.max_connections_per_address, "proxies": list(self.proxies),
            "head_timeout": cfg.request_timeout, "backlog": BACKLOG,
            "deep_backlog": self.parlor.config.server.backlog,
        }
        port = self._front_port

        def adopt(sock: socket.socket, data: bytes, relayed: bool) -> Awaitable[None]:
            return self._adopt(https if relayed and https is not None else server, sock, data)

        self._front = FrontLink(listener, settings, server.config.loaded_app,
                                (self.host, port), adopt, self.parlor.changes, relay)
        try:
            await self._front.start()
        except FrontError as err:
            if held is None:
                listener.close()
            self.app.state.pages.close()
            raise WebDoorError(str(err)) from None
        if https is not None:
            log.info("web door on https://%s:%d/ (through the holder, served by the front)",
                     self.host, cfg.tls_port)

    @staticmethod
    async def _adopt(server: uvicorn.Server, sock: socket.socket, data: bytes) -> None:
        """A connection the front handed over (a live stream, /play's WebSocket), taken
        by ``server`` as if it had accepted it, with the bytes the front read of it."""
        config = server.config

        def protocol() -> asyncio.Protocol:
            made = config.http_protocol_class(  # type: ignore[call-arg]
                config=config, server_state=server.server_state,
                app_state=server.lifespan.state)
            made.first = data
            return made

        await asyncio.get_running_loop().connect_accepted_socket(protocol, sock)

    def mudlet_offer(self) -> MudletOffer:
        """What Mudlet players are offered while the door serves (``Parlor.mudlet``):
        the package at the name ``[web] hosts`` gives first (over HTTPS when the door
        has a TLS port), else at the address each player reached."""
        cfg = self.parlor.config.web
        public = ""
        if cfg.hosts:
            https = self.https_port
            public = (f"https://{cfg.hosts[0]}:{https}" if https is not None
                      else f"http://{cfg.hosts[0]}:{self.port}")
        return MudletOffer(self.mudlet.version, self.host, self.port, public)

    def _uvicorn(self, port: int, tls: ssl.SSLContext | None = None, *,
                 relayed: bool = False) -> uvicorn.Server:
        """A uvicorn server of the door's app on ``port`` (over TLS with ``tls``; the
        holder's relay of the HTTPS port with ``relayed``), not started."""
        cfg = self.parlor.config.web
        http, ws = protocols(self.budget, cfg.request_timeout, relayed=relayed)
        config = uvicorn.Config(
            self.app, host=self.host, port=port, lifespan="off", log_config=None,
            log_level="warning", access_log=False, ws=ws,
            ws_max_size=cfg.max_message, ws_ping_interval=30.0, ws_ping_timeout=30.0,
            # a held /play socket is not compressed: no state may outlive a message
            ws_per_message_deflate=not (self.holds_plays and tls is None),
            # uvicorn's own bound (503 and a log line per request past it), never above
            # the budget and well above the web door's share of it: connections evicted
            # from the share stay in uvicorn's count for a loop turn, requests' tasks a
            # little longer, and the budget alone should decide
            limit_concurrency=self.budget.total,
            timeout_keep_alive=5, timeout_graceful_shutdown=3, backlog=BACKLOG,
            http=http,
            proxy_headers=bool(self.proxies),
            forwarded_allow_ips=list(self.proxies) or None,
            server_header=False,
            # uvicorn's own context would allow its "TLSv1" ciphers: the telnet port's is used
            **({"ssl_context_factory": lambda _config, _default: tls} if tls else {}),
        )
        config.load()
        server = uvicorn.Server(config)
        server.lifespan = config.lifespan_class(config)
        return server

    async def _start_https(self, port: int) -> None:
        """``[web] tls_port``: the same app over HTTPS, with ``[server] tls_certificate``
        and ``tls_key`` (checked when the configuration loads: ``Config.check``).

        In a held parlor the holder makes the handshakes and relays the plain bytes to
        its relay listener (``listeners["https"]``, server/holder/tls_relay.py), the
        browser's address first in a PROXY line: the app is served there, and its /play
        sockets are held through a reload as the plain port's are. A parlor not held
        makes the handshakes itself; its pages reconnect after a restart by their token."""
        held = self.parlor.holder.listeners.get("https") if self.parlor.holder else None
        if held is not None:
            server = self._uvicorn(port, relayed=True)
            sockets = [held]
        else:
            cfg = self.parlor.config.server
            server = self._uvicorn(port, server_context(cfg.tls_certificate, cfg.tls_key))
            sockets = None
        try:
            await server.startup(sockets=sockets)
        except SystemExit:
            await self.stop()
            raise WebDoorError(f"cannot listen on {self.host}:{port} (HTTPS)") from None
        for listener in server.servers:
            listen_backlog(listener.sockets, self.parlor.config.server.backlog)
        self._https = server
        self._https_port = port if held is not None else (
            server.servers[0].sockets[0].getsockname()[1])
        self._https_task = asyncio.create_task(server.main_loop())
        log.info("web door on https://%s:%d/%s", self.host, self.https_port,
                 " (through the holder)" if held is not None else "")

    @property
    def port(self) -> int:
        assert self._server is not None
        if self._front_port:
            return self._front_port
        return self._server.servers[0].sockets[0].getsockname()[1]

    @property
    def https_port(self) -> int | None:
        return None if self._https is None else self._https_port

    @property
    def url(self) -> str:
        host = self.host if self.host not in ("0.0.0.0", "::", "") else "127.0.0.1"
        return f"http://{host}:{self.port}/"

    async def stop(self) -> None:
        """Refuse new requests, end live streams and browser sessions, then stop."""
        if self._server is None:
            return
        self.closing.set()
        self.parlor.mudlet = None  # nothing is offered that is not served
        restarting = self.parlor.handing_over  # a reload: the pages come back at once
        # the door's own listening socket first: the front closes its copy as soon as it
        # hears the parlor go, and a browser connecting meanwhile is refused, not queued
        # on a socket nobody accepts from and then reset (the holder's stays open: the
        # next parlor's front accepts what waits in it)
        if self._listener is not None and not (
                self.parlor.holder and self._listener is self.parlor.holder.listeners.get("web")):
            self._listener.close()
        if self._front is not None:   # no more questions, nor connections handed over
            await self._front.stop(wait=not restarting)
            self._front = None
        for stream in list(self.streams):
            stream.changed.set()
        for session in list(self.parlor.connections):  # browsers' sessions, told as telnet's
            transport = getattr(session.terminal, "transport", None)
            if transport in self.plays and not transport.handed_over:
                if restarting:  # WebSocket's "Service Restart": the page reconnects soon,
                    transport.close_code = 1012  # keeping what its player types meanwhile
                session.close(self.parlor.farewell)
        for transport in list(self.plays):  # and any still at the telnet negotiation
            if not transport.handed_over:
                transport.close()
        self.app.state.pages.close()
        running = [(self._server, self._loop_task), (self._https, self._https_task)]
        self._server = self._https = None
        if restarting:
            # the process ends in a moment: uvicorn's graceful stop (a tick of its loop and
            # a sleep, 0.1-0.2 s) would be added to every player's gap. As that stop does,
            # take no more connections and end each (it closes once its reply is out); what
            # is in flight when the process ends, its kernel sends out
            for server, task in running:
                if server is None:
                    continue
                for listening in server.servers:
                    listening.close()
                for connection in list(server.server_state.connections):
                    connection.shutdown()
                if task is not None:
                    task.cancel()
            await asyncio.sleep(0)
            if self.stop in self.parlor.before_stop:
                self.parlor.before_stop.remove(self.stop)
            return
        for server, task in running:
            if server is not None:
                server.should_exit = True
        for server, task in running:
            if server is None:
                continue
            if task is not None:
                await task
            await server.shutdown()
        if self.stop in self.parlor.before_stop:
            self.parlor.before_stop.remove(self.stop)


__all__ = ["WebDoor", "WebDoorError"]
