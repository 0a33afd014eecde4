"""The Parlor: the running service, wiring config, database, services, sessions and the
telnet listener together.

The parlor does not choose its games or know what a typed line means: it is handed the
game kinds it hosts and a :class:`~server.session.Commands` (``commands.registry.Registry``, built by
``commands/app.py``, the one place the application is assembled; ``server/`` never
imports ``commands/``)."""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from typing import TYPE_CHECKING, Awaitable, Callable, Iterable

import telnetlib3

from server.bus import Bus, Event, LocalBus
from server.changes import Changes
from server.collector import Collector
from server.config import Config
from server.db import Database
from server.hosting import GameKind
from server.connections import GOODBYE, MOVING, Connections
from server.online import Online
from server.presentation import Presentation, game_status
from server.services.accounts import Accounts
from server.services.games import GameHost
from server.services.ratings import Ratings
from server.services.resume import ResumeTokens
from server import seeding
from server.services import ledger
from server.pacing import LoadGovernor
from server.session import Commands, Session
from server.telnet import (ACCEPT_BATCH, AcceptErrors, Compression, TelnetProtocol,
                           connection_cap, listen_backlog)
from server.text import paint
from server.throttle import KeyedLocks, LoginThrottle, Sliding
from server.world import World

if TYPE_CHECKING:
    from server.cluster import Cluster
    from server.holder.handover import HandOver
    from server.holder.link import HolderLink
    from server.mudlet import MudletOffer

log = logging.getLogger(__name__)

CROWD = 50  # rooms with more people than this hear no arrivals and departures



class Parlor:
    """Assembled by ``commands.app.assemble(config)``: ``kinds`` are the games it hosts,
    ``registry`` runs what connected players type, ``seeders`` load data files' tables
    beyond the accounts."""

    def __init__(self, config: Config, kinds: Iterable[GameKind], registry: Commands, *,
                 seeders: dict[str, seeding.Seeder] | None = None) -> None:
        self.config = config
        self.db = Database(config.database.url)
        self.node = config.cluster.node or socket.gethostname()
        self.bus: Bus = LocalBus()
        self.cluster: "Cluster | None" = None
        if config.cluster.enabled:  # one node of several (server/cluster/)
            from server.redis_bus import RedisBus

            self.bus = RedisBus(config.cluster.redis, self.node)
        self.world = World.load()
        # what the public pages show changed (counted for the web door's front)
        self.changes = Changes()
        self.online = Online(self.changes)  # who is logged in, here and on the other nodes
        acc = config.accounts
        self.accounts = Accounts(self.db, acc.starting_cubits,
                                 argon2_time_cost=acc.argon2_time_cost,
                                 argon2_memory_kib=acc.argon2_memory_kib,
                                 hashing_at_once=acc.hashing_at_once)
        self.ratings = Ratings(self.db)
        self.resume = ResumeTokens(self.db)
        self.host = GameHost(self.db, self.bus, self.accounts, is_online=self.online.is_online,
                             reconnect_grace=config.games.reconnect_grace,
                             computer_delay=config.games.computer_delay,
                             changes=self.changes)
        for kind in kinds:
            self.host.register(kind)
        self.host.tournaments.configure(config.tournaments)  # after the games: it checks them
        self.presentation = Presentation(self.host.kinds)  # what each viewer sees of a game
        self.registry = registry
        # the data-file tables ``seed`` loads (server/seeding.py): accounts, and more
        self.seeders: dict[str, seeding.Seeder] = {**seeding.BUILTIN, **(seeders or {})}
        lc = config.login
        # failed logins per (name, address) and per address; per name only when guessed at
        # from many addresses (four times the failures), never from a trusted address
        self.throttle = LoginThrottle(lc.max_failures, lc.failure_window, lc.lockout,
                                      first_delay=lc.first_delay)
        self.name_throttle = LoginThrottle(4 * lc.max_failures, lc.failure_window, lc.lockout,
                                           first_delay=lc.first_delay)
        self.logins = Sliding(lc.logins_per_minute, 60)  # successful logins per account
        self.checking = KeyedLocks()  # one password check per account at a time
        self.creations = Sliding(lc.new_accounts_per_address, 3600)
        self.creations_everywhere = Sliding(lc.new_accounts_per_minute, 60)
        self.connections = Connections(self)  # every open connection, and its life
        self.started_at = time.time()
        self.server: telnetlib3.Server | None = None
        self.stopped = asyncio.Event()
        self.draining = False  # stopping: no login is taken (its games go to other nodes)
        self.farewell = GOODBYE  # what every connection is told when it stops
        self.background: set[asyncio.Task] = set()
        self.counter = {"open": 0, "refused": 0}  # telnet connections (server/telnet.py)
        self.governor = LoadGovernor()
        self.telnet_protocol: type[TelnetProtocol] | None = None  # set by start()
        self.telnet_options: dict = {}
        self.before_stop: list[Callable[[], Awaitable[None]]] = []  # e.g. the web door
        self.mudlet: "MudletOffer | None" = None  # set while the web door serves the package
        # a held parlor's link to its holder (server/holder): set before start()
        self.holder: "HolderLink | None" = None
        self.handover: "HandOver | None" = None  # its part in restarts: set by start()
        self.handing_over = False  # a reload: sessions finish their command and wait
        if config.cluster.enabled:
            from server import cluster

            self.cluster = cluster.Cluster(self, self.bus, self.node, config.cluster.lease)

    # -- start and stop --------------------------------------------------------------------
    async def start(self) -> None:
        # a held parlor loads while the one before it still serves; it starts on the
        # database only once that one has handed over (server/holder/process.py)
        if self.holder is not None:
            self.db.newest_revision()  # (its migrations' files read now, not in the gap)
            if self.config.server.gc_freeze_every:
                Collector.before_connections()
        handed = await self.holder.connect() if self.holder is not None else []
        await self.db.migrate()
        if self.cluster is not None:
            await self.cluster.start()
        if not handed:  # a restart with players waiting audits once they are back
            await self.audit_ledger()
        restored = await self.host.restore(
            self.cluster.games.take if self.cluster is not None else None)
        if restored:
            log.info("restored %d game(s) in progress", restored)
        cfg = self.config.server
        protocol = type("Protocol", (TelnetProtocol,), {
            "keepalive": max(1, cfg.keepalive),
            "max_subnegotiation": cfg.max_subnegotiation,
            "prelogin_bytes": cfg.prelogin_bytes,
            "max_connections": connection_cap(cfg.max_connections),
            "counter": self.counter,
            "prelogin": {},
            "proxies": cfg.trusted_proxies,  # PROXY protocol from these only
            "holder": self.holder,
            "compression": Compression.from_config(cfg),  # MCCP2 ([server] mccp)
        })
        asyncio.get_running_loop().set_exception_handler(AcceptErrors())
        # telnetlib3's own compression off (MCCP2 is the protocol's, above; MCCP3 would
        # inflate what clients send), no telnetlib3 idle timer (it counts any byte as activity; the parlor's own sweep counts commands).
        self.telnet_protocol = protocol
        self.telnet_options = dict(
            shell=self.connections.shell, encoding="utf8", encoding_errors="replace", force_binary=True,
            line_mode=True, connect_maxwait=0.5, timeout=False, compression=False,
            cols=80, rows=24)  # no NAWS: 80x24 (docs/design.md, Screens, principle 1)
        if self.holder is not None:  # the holder listens; the connections it holds go on
            from server.holder.handover import HandOver

            self.handover = HandOver(self, self.holder)
            self.server = await self.handover.take_over(protocol, handed)
        else:
            self.server = await telnetlib3.create_server(
                host=cfg.host, port=cfg.port, protocol_factory=protocol, **self.telnet_options)
        listen_backlog(self.server.sockets, cfg.backlog)  # accepted ACCEPT_BATCH a turn
        await self._listen_tls()
        if cfg.fairness:
            self.background.add(asyncio.create_task(self.governor.run()))
        if cfg.idle_timeout:
            self.background.add(asyncio.create_task(self._sweep_idle(cfg.idle_timeout)))
        if cfg.gc_freeze_every:
            self.background.add(asyncio.create_task(self._collect(cfg.gc_freeze_every)))
        log.info("%s listening on %s:%d (database %s)", cfg.name, cfg.host, self.port,
                 self.db.engine.url.render_as_string(hide_password=True))

    async def _listen_tls(self) -> None:
        """``[server] tls_port``: telnet over TLS, served by this process with the plain
        port's shell, caps, pre-login bounds and protocol (one count of connections).

        In a held parlor the holder makes the handshake and relays the plain bytes to
        its relay listener (``server/holder/tls_relay.py``), the player's address first in
        a PROXY line: those are plain connections here, held through a reload like the
        rest. A parlor not held makes the handshake itself; its TLS connections end when
        it stops, told why as the others are; the listener closes with the rest
        (``before_stop``). No PROXY header on the port itself: it would come
        before the handshake, where TLS is read."""
        cfg = self.config.server
        self.tls_server: asyncio.Server | None = None
        if not cfg.tls_port:
            return
        relay = self.holder.listeners.get("tls") if self.holder is not None else None
        if relay is not None:  # the holder's relay: every connection begins with PROXY
            relayed = type("RelayedTLSProtocol", (self.telnet_protocol,),
                           {"_from_proxy": lambda _self, _transport: True})
            self.tls_server = await asyncio.get_running_loop().create_server(
                lambda: relayed(**self.telnet_options), sock=relay)
            listen_backlog(self.tls_server.sockets, cfg.backlog)
            relay_server = self.tls_server

            async def stop_relaying() -> None:  # (the holder's socket stays: they queue)
                relay_server.close()

            self.before_stop.append(stop_relaying)
            log.info("telnet over TLS on port %d, through the holder", cfg.tls_port)
            return
        from server.tls import HANDSHAKE_TIMEOUT, server_context

        context = server_context(cfg.tls_certificate, cfg.tls_key)  # TLSError, one line
        protocol = type("TLSProtocol", (self.telnet_protocol,), {"holder": None, "proxies": ()})
        try:
            self.tls_server = server = await asyncio.get_running_loop().create_server(
                lambda: protocol(**self.telnet_options), cfg.host, cfg.tls_port, ssl=context,
                ssl_handshake_timeout=HANDSHAKE_TIMEOUT, backlog=ACCEPT_BATCH)
        except OSError as err:
            raise OSError(err.errno, f"the TLS port {cfg.tls_port}: {err.strerror}") from None
        listen_backlog(server.sockets, cfg.backlog)

        async def close() -> None:
            server.close()
            farewell = self.farewell
            tls = [s for s in self.connections if isinstance(s.terminal, protocol)]
            sockets = [t.get_extra_info("socket") for s in tls
                       if (t := s.terminal.transport) is not None]
            for session in tls:
                session.close(farewell)
            loop = asyncio.get_running_loop()  # the farewell and TLS's close_notify go out
            deadline = loop.time() + 2.0       # before a reload ends the process
            while any(s is not None and s.fileno() != -1 for s in sockets) \
                    and loop.time() < deadline:
                await asyncio.sleep(0.02)

        self.before_stop.append(close)
        log.info("telnet over TLS on %s:%d", cfg.host, server.sockets[0].getsockname()[1])

    async def audit_ledger(self) -> None:
        """Log every account whose cubits disagree with its ledger (``ledger.audit``)."""
        async with self.db.session() as tx:
            for name, cached, total in await ledger.audit(tx):
                log.error("ledger: %s has %d cubits but the ledger sums to %d", name, cached, total)

    async def _collect(self, every: float) -> None:
        """The collector (server/collector.py). A held parlor collected what it loaded
        before it took its connections over (``Collector.before_connections``), and starts
        collecting once they are back, freezing them rather than pausing to scan them."""
        if self.handover is None:
            await Collector(every).run()
            return
        await self.handover.all_back.wait()
        await Collector(every).run(full_first=False)

    async def settled(self) -> None:
        """Return once every connection a held parlor took over is back (a bounded
        wait), and then audit the ledger, which a restart leaves until then. What a new
        parlor does besides serving its players (seeding, the web door) waits for this,
        so the players come first."""
        if self.handover is not None and await self.handover.settled():
            await self.audit_ledger()

    def request_reload(self) -> None:
        """A cluster's rolling reload reached this node: a held parlor has its holder
        reload it; one that is not held cannot, and says so."""
        if self.holder is None:
            log.warning("a rolling reload reached this node, but it is not held "
                        "(esterport serve --hold): not reloaded")
            return
        self.holder.ask_reload()

    def telnet_connection(self) -> TelnetProtocol:
        """A telnet protocol configured as the listener's, for a connection that arrives
        another way (the web door's WebSocket carries the telnet stream): the caller
        gives it a transport, and the same shell (login, commands, games) runs."""
        assert self.telnet_protocol is not None, "start() the parlor first"
        return self.telnet_protocol(**self.telnet_options)

    @property
    def port(self) -> int:
        assert self.server is not None and self.server.sockets
        return self.server.sockets[0].getsockname()[1]

    async def stop(self, message: str | None = None, *, notice: str | None = None,
                   hand_over: bool = True) -> None:
        """Take no more logins; in a cluster, hand this node's games to the other nodes
        (``hand_over``; not when every node stops) and wait until they have them; then
        tell everyone (``notice``, then ``message``: by default, to connect again when
        other nodes took the games), close every connection, stop the computer players,
        close the database. Every action was committed when it was acknowledged, so
        nothing else needs saving."""
        self.draining = True
        handed = hand_over and self.cluster is not None and await self.cluster.games.drain()
        self.farewell = message or (MOVING if handed else GOODBYE)
        for session in list(self.online.sessions.values()) if notice else ():
            session.notify(paint(notice, "red", bold=True))
        for hook in list(self.before_stop):  # the web door stops taking requests first
            try:
                await hook()
            except Exception:
                log.exception("stopping %r failed", hook)
        self.before_stop.clear()
        for session in list(self.connections):
            session.close(self.farewell)
        if self.server is not None:
            self.server.close()
            try:
                await asyncio.wait_for(self.server.wait_closed(), timeout=5)
            except asyncio.TimeoutError:
                log.warning("some connections did not close in time")
        for task in self.background:
            task.cancel()
        await self.connections.stop(10.0)
        await self.host.close()
        if self.cluster is not None:
            await self.cluster.close()
        await self.db.close()
        self.stopped.set()

    def request_shutdown(self, message: str, *, everywhere: bool = True,
                         node: str | None = None, hand_over: bool = False) -> None:
        """@SHUTDOWN: stop soon (after the command's answer is written), announcing
        ``message``. In a cluster every node stops (``everywhere``), or only the node
        named ``node``, which hands its games over first (``hand_over``)."""
        if self.cluster is not None and (everywhere or node is not None):
            self.cluster.link.control("shutdown", message=message, only=node)
            return

        async def later() -> None:
            await asyncio.sleep(0.2)
            await self.stop(notice=message, hand_over=hand_over)

        self._shutdown_task = asyncio.create_task(later())

    async def seed(self, paths=None) -> list[str]:  # noqa: ANN001
        return await seeding.load(self.db, self.accounts, self.seeders, paths)

    async def load_default_data(self) -> None:
        for line in await self.seed():
            log.info("seed: %s", line)

    async def _sweep_idle(self, limit: float) -> None:
        """Close logged-in sessions whose last complete, non-empty command is older than
        ``limit`` seconds (a trickle of bytes, NOPs or empty lines is not activity)."""
        while True:
            await asyncio.sleep(max(0.2, min(30.0, limit / 4)))
            self._close_idle(limit)

    def _close_idle(self, limit: float) -> None:
        """One sweep (a function of its own: a loop variable left in the sweeping task's
        frame would keep the last session it saw alive until the next sweep)."""
        now = time.time()
        for session in list(self.online.sessions.values()):
            if now - session.last_command_at > limit:
                session.log.info("%s idle for %d s; closing", session.name, int(limit))
                session.close(f"Timeout: no command for {int(limit)} seconds. Goodbye.")

    # -- presence --------------------------------------------------------------------------
    def tell(self, account_id: int, text: str) -> None:
        """A notice to one player, on whichever node they are."""
        self.bus.publish(f"account:{account_id}", Event("notice", {"text": text}))

    def log_admin(self, session: Session, what: str) -> None:
        log.warning("admin %s: %s", session.name, what)

    def mssp(self) -> dict[str, str]:
        """What MUD listings read (MSSP): the parlor's name, players, start time (UPTIME,
        Unix time), codebase, what clients get, and the web client's address when the
        web door names its host (``[web] hosts``)."""
        web = self.config.web
        found = {
            "NAME": self.config.server.name,
            "PLAYERS": str(self.online.count),
            "UPTIME": str(int(self.started_at)),
            "CODEBASE": "Esterport",
            "GENRE": "Game Parlor",
            "SUBGENRE": "Board and card games",
            "GAMEPLAY": "Board Games, Card Games, Puzzle",
            "GAMESYSTEM": "None",
            "STATUS": "Live",
            "LANGUAGE": "English",
            "FAMILY": "Custom",
            "ROOMS": str(len(self.world.rooms)),
            "ANSI": "1", "UTF-8": "1", "VT100": "1", "GMCP": "1", "MSSP": "1",
            "MCCP": "1" if self.config.server.mccp else "0", "MSDP": "0", "MSP": "0", "MXP": "0", "PUEBLO": "0",
            "XTERM 256 COLORS": "0", "XTERM TRUE COLORS": "0",
            "PAY TO PLAY": "0", "PAY FOR PERKS": "0",
            "PORT": str(self.config.server.port),
        }
        if web.enabled and web.hosts:
            found["WEBSITE"] = f"http://{web.hosts[0]}:{web.port}/"
        return found

    # -- the world -------------------------------------------------------------------------
    def move(self, session: Session, room: str, direction: str | None = None) -> None:
        old = session.room
        if old == room:
            return
        name = session.name
        self.announce(old, f"{name} leaves{' ' + direction if direction else ''}.", session)
        session.unsubscribe(f"room:{old}")
        self.online.place(session, room)
        session.subscribe(f"room:{room}")
        back = next((d for d, r in self.world.rooms[room].exits.items() if r == old), None)
        self.announce(room, f"{name} arrives{' from the ' + back if back else ''}.", session)
        if self.cluster is not None:
            self.cluster.roster.moved(session)
        self.send_room_info(session)

    def announce(self, room: str, text: str, session: Session) -> None:
        """Tell a room that someone came or went; a crowded room is not told (every
        arrival would reach everyone: noise for them, and O(N²) work for the server)."""
        if len(self.online.in_room(room)) <= CROWD:
            self.bus.publish(f"room:{room}", Event("notice", {
                "text": text, "exclude": session.account_id}))

    def send_room_info(self, session: Session) -> None:
        """GMCP for where the player is: ``Room.Info`` (a mapper's room and exits) and
        ``Char.Status`` (the room, and a game of theirs in play here, if any; the
        presentation sends its changes as its frames come: server/presentation.py)."""
        if not session.gmcp_on:
            return
        room = self.world.rooms[session.room]
        session.gmcp("Room.Info", {"num": room.key, "name": room.name, "area": "Esterport",
                                   "exits": room.exits, "game": room.game})
        games = self.host.games_of(session.account_id) if session.account_id else []
        game = (game_status(games[0].frame(games[0].seat_of(session.account_id)))
                if games else None)
        session.gmcp("Char.Status", {"room": room.key, "area": "Esterport", "game": game})
