"""The Parlor: the running service, wiring config, database, services, sessions and the
telnet listener together.

The parlor does not choose its games or know what a typed line means: it is handed the
game kinds it hosts and a :class:`Commands` (``commands.registry.Registry``, built by
``commands/app.py``, the one place the application is assembled; ``server/`` never
imports ``commands/``)."""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from collections import Counter
from typing import TYPE_CHECKING, Awaitable, Callable, Iterable, Protocol

import telnetlib3

from server.bus import Bus, Event, LocalBus
from server.collector import Collector
from server.config import Config
from server.db import Database, connection_lost
from server.hosting import GameKind
from server.login import login
from server.online import Online
from server.presentation import Presentation, game_status
from server.services.accounts import Accounts, Member
from server.services.games import GameHost
from server.services.ratings import Ratings
from server.services.resume import ResumeTokens
from server import seeding
from server.services import ledger
from server.line_input import Disconnect
from server.pacing import LoadGovernor
from server.session import Session
from server.tasks import cancel_and_wait
from server.telnet import (ACCEPT_BATCH, AcceptErrors, Compression, TelnetProtocol,
                           connection_cap, listen_backlog)
from server.text import paint
from server.throttle import KeyedLocks, LoginThrottle, Sliding
from server.world import World, describe_room

if TYPE_CHECKING:
    from server.cluster import Cluster
    from server.holder.handover import HandOver
    from server.holder.link import HolderLink
    from server.mudlet import MudletOffer

log = logging.getLogger(__name__)

# Lines past the rate limit that wait their turn rather than being dropped (a pasted
# block, a MUD client's script); past these, a flood's lines are dropped.
PASTE_QUEUE = 50

CROWD = 50  # rooms with more people than this hear no arrivals and departures

GOODBYE = "Esterport is shutting down. Your games are saved."
MOVING = ("This part of Esterport is stopping. Connect again: you will be put through to "
          "another part, and your games are waiting.")


class Commands(Protocol):
    """What the parlor needs of its command table: run one typed line for a session."""

    async def dispatch(self, session: Session, line: str) -> str: ...


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
        self.online = Online()  # who is logged in, here and on the other nodes
        acc = config.accounts
        self.accounts = Accounts(self.db, acc.starting_cubits,
                                 argon2_time_cost=acc.argon2_time_cost,
                                 argon2_memory_kib=acc.argon2_memory_kib,
                                 hashing_at_once=acc.hashing_at_once)
        self.ratings = Ratings(self.db)
        self.resume = ResumeTokens(self.db)
        self.host = GameHost(self.db, self.bus, self.accounts, is_online=self.online.is_online,
                             reconnect_grace=config.games.reconnect_grace,
                             computer_delay=config.games.computer_delay)
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
        self.connections: set[Session] = set()       # every open connection
        self.per_address: Counter[str] = Counter()
        self.started_at = time.time()
        self.server: telnetlib3.Server | None = None
        self.stopped = asyncio.Event()
        self.draining = False  # stopping: no login is taken (its games go to other nodes)
        self.farewell = GOODBYE  # what every connection is told when it stops
        self._shell_tasks: set[asyncio.Task] = set()
        self._background: set[asyncio.Task] = set()
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
            from server.cluster import Cluster

            self.cluster = Cluster(self, self.bus, self.node, config.cluster.lease)

    # -- start and stop --------------------------------------------------------------------
    async def start(self) -> None:
        # a held parlor loads while the one before it still serves; it starts on the
        # database only once that one has handed over (server/holder/process.py)
        if self.holder is not None and self.config.server.gc_freeze_every:
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
            shell=self._shell, encoding="utf8", encoding_errors="replace", force_binary=True,
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
            self._background.add(asyncio.create_task(self.governor.run()))
        if cfg.idle_timeout:
            self._background.add(asyncio.create_task(self._sweep_idle(cfg.idle_timeout)))
        if cfg.gc_freeze_every:
            self._background.add(asyncio.create_task(self._collect(cfg.gc_freeze_every)))
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
            tls = [s for s in self.connections if isinstance(s.protocol, protocol)]
            sockets = [t.get_extra_info("socket") for s in tls
                       if (t := getattr(s.protocol, "_transport", None)) is not None]
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
        for task in self._background:
            task.cancel()
        await cancel_and_wait(self._shell_tasks, 10.0, "sessions")
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
            self.cluster.control("shutdown", message=message, only=node)
            return

        async def later() -> None:
            await asyncio.sleep(0.2)
            await self.stop(notice=message, hand_over=hand_over)

        self._shutdown_task = asyncio.create_task(later())

    async def seed(self, paths=None) -> list[str]:  # noqa: ANN001
        return await seeding.load(self, paths)

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
    def connections_from(self, address: str) -> int:
        """Open connections from ``address``, on every node."""
        here = self.per_address.get(address, 0)
        return here + (self.cluster.roster.connections_from(address) if self.cluster else 0)

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
        self._announce(old, f"{name} leaves{' ' + direction if direction else ''}.", session)
        session.unsubscribe(f"room:{old}")
        self.online.place(session, room)
        session.subscribe(f"room:{room}")
        back = next((d for d, r in self.world.rooms[room].exits.items() if r == old), None)
        self._announce(room, f"{name} arrives{' from the ' + back if back else ''}.", session)
        if self.cluster is not None:
            self.cluster.roster.moved(session)
        self.send_room_info(session)

    def _announce(self, room: str, text: str, session: Session) -> None:
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

    # -- connections -----------------------------------------------------------------------
    def _forget_clients(self, gone: Session | None = None) -> None:
        """telnetlib3 keeps every connection in two places the parlor never reads: a
        queue (the last 1000) for ``Server.wait_for_client()``, and a list of protocols it
        prunes only when the next connection arrives. A closed connection in either keeps
        its protocol, buffers and Session alive, so after a disconnect storm a whole
        storm's worth of memory would wait for the next login. Empty the queue, and drop
        closed protocols (and ``gone``'s) from the list."""
        queue = getattr(self.server, "_new_client", None)
        while queue is not None and not queue.empty():
            queue.get_nowait()
        protocols = getattr(self.server, "_protocols", None)
        if protocols:
            mine = getattr(gone.writer, "protocol", None) if gone is not None else None
            protocols[:] = [p for p in protocols
                            if p is not mine and not getattr(p, "_closing", False)]

    async def _shell(self, reader, writer) -> None:  # noqa: ANN001
        """A connection's life: admitted and logged in, then its commands in turn.

        The command loop is here rather than in a coroutine of its own: an idle session
        waits in it, and each coroutine it waits through is 256 bytes."""
        task = asyncio.current_task()
        self._shell_tasks.add(task)
        self._forget_clients()
        session = Session(self, reader, writer)
        try:
            if not await self._admit(session):
                return
            while not session.closed:
                if self.handover is not None and self.handing_over:
                    await self.handover.parked()  # the process ends under it
                session.busy = False
                line = await session.read_line()
                session.busy = True
                if self.handing_over:  # read before the hand-over: it goes with the rest
                    session.unread_line(line)
                    continue
                if not await self._turn(session):
                    continue
                if not line:
                    session.prompt()
                    continue
                session.last_command_at = time.time()
                await self.host.games.check()  # a node paused past its lease (cluster/lease.py)
                router = self.cluster.router if self.cluster is not None else None
                node = router.route(session, line) if router is not None else None
                if node is not None:  # a game another node drives (server/cluster/)
                    await router.relay(node, session, line)
                else:
                    await self.registry.dispatch(session, line)
                session.prompt()
        except (Disconnect, asyncio.CancelledError):
            pass
        except Exception as err:
            if connection_lost(err):  # e.g. logging in while PostgreSQL restarts
                session.log.warning("session ended: the database connection was lost (%s)",
                                    type(err).__name__)
                session.close("The parlor lost its database for a moment; please connect "
                              "again.")
            elif isinstance(err, ConnectionError):  # the player's own connection
                pass
            else:
                session.log.exception("session crashed")
                session.close("Sorry, something went wrong; please reconnect.")
        finally:
            self._shell_tasks.discard(task)
            if self.handover is not None:
                self.handover.gone(session)
            await self._leave(session)
            release = getattr(session.protocol, "release", None)
            if release is not None:  # freed at once, not by a full garbage collection
                release()

    async def _admit(self, session: Session) -> bool:
        """Let a new connection in (the caps), log it in and enter it in the parlor;
        False when it was turned away."""
        cap = self.config.server.max_connections_per_address
        self.connections.add(session)
        self.per_address[session.address] += 1
        if self.cluster is not None:
            self.cluster.roster.connection(session.address, +1)
        if self.connections_from(session.address) > cap:
            session.close(f"Too many connections from your address (at most {cap}).")
            return False
        if self.draining:  # stopping: in a cluster, its games are going to the others
            session.close(MOVING if self.cluster is not None else GOODBYE)
            return False
        carried = getattr(session.protocol, "carried", None)
        if carried is not None and self.handover is not None:  # handed over by the holder
            if await self.handover.carry_on(session, carried):
                return True
        else:
            session.offer_mud_protocols()
        try:  # asyncio.timeout, not wait_for: on Python 3.11 the login's task (with the
            # session in its frames) and its error refer to each other, and a player who
            # left mid-login stayed in memory until a full garbage collection
            async with asyncio.timeout(self.config.server.login_timeout or None):
                account = await login(session)
        except TimeoutError:
            session.close("You took too long to log in. Goodbye.")
            return False
        if self.draining:  # stopping while they logged in
            session.close(MOVING if self.cluster is not None else GOODBYE)
            return False
        await self.enter(session, account)  # the row is not kept: the session has a Member
        session.logged_in()
        if self.handover is not None:
            self.handover.tell(session)
        return True

    async def _turn(self, session: Session) -> bool:
        """Wait until the line just read may run; False when it is dropped.

        Every line counts, empty or not (10 MB of bare CR LF used to skip the limit). A
        line past the rate limit waits its turn (a paste, a client's burst); past
        ``PASTE_QUEUE`` of them in a row it is a flood: what the session sent is
        dropped unread, and nothing more is read until it may send again, so the flood
        backs up in the sender's socket rather than in the server's memory. While the
        server lags, a session that has been sending hard also waits for the governor."""
        limiter = session.limiter
        if limiter.allow():
            session.queued = 0
        elif session.queued < PASTE_QUEUE:
            session.queued += 1
            await asyncio.sleep(limiter.wait())
            if session.closed:
                return False
            limiter.allow()
        else:
            if not session.flooding:  # one warning per flood, not one per line
                session.write("You are sending commands too fast; commands are being "
                              "dropped until you slow down.")
                session.flooding = True
            session.drop_input()
            await asyncio.sleep(limiter.wait())
            return False
        session.flooding = False
        await self.governor.turn(session)
        return not session.closed  # gone while it waited: its command dies with it

    async def enter(self, session: Session, account, *,  # noqa: ANN001
                     carried: bool = False, ignoring: set[int] | None = None) -> None:
        if ignoring is None:
            ignoring = await self.accounts.ignored_by(account.id)
        if session.closed:
            return  # gone while we looked
        # From here to the registration nothing awaits, so two logins to one account at
        # once cannot both register: the second finds the first and takes it over.
        old = self.online.sessions.get(account.id)
        elsewhere = self.online.remote.get(account.id)
        if old is not None and old is not session:
            old.close(f"Your account has been taken over by a new connection from "
                      f"{session.address}.")
            session.room = old.room
            session.watching = old.watching
            self._detach(old)
            self.online.place(old, None)
            taken_over = True
        elif elsewhere is not None and self.cluster is not None:  # on another node: it
            # closes it when told we are here
            session.room = elsewhere.room if elsewhere.room in self.world.rooms else session.room
            self.cluster.roster.left_elsewhere(account.id, elsewhere.node)
            taken_over = True
        else:
            taken_over = False
        session.account = Member.of(account)
        session.logged_in_at = time.time()
        session.name = account.name
        session.log.info("%s logged in from %s (terminal %s%s)", account.name, session.address,
                         session.terminal,
                         f", client {session.client_name}" if session.client_name else "")
        settings = account.settings or {}
        session.color = settings.get("color", True)
        session.width = settings.get("width")
        session.height = settings.get("height")
        session.screenreader = settings.get("screenreader", False)
        session.board = settings.get("board", "full")
        session.ignoring = frozenset(ignoring) if ignoring else session.ignoring
        self.online.add(session)
        if self.cluster is not None:
            self.cluster.roster.joined(session)
        if not carried:  # (a carried session never left)
            await self.accounts.update(account.id, last_seen_at=time.time())
        for topic in ("all", "chat", f"account:{account.id}", f"room:{session.room}",
                      *(f"game:{g}" for g in session.watching)):
            session.subscribe(topic)
        if carried:  # a reload or a crash of the parlor: the player never left
            session.write("The parlor has restarted; carry on.")
        elif taken_over:
            session.write("You take over your earlier connection.")
        else:
            self._announce(session.room, f"{account.name} has arrived.", session)
        session.gmcp("Char.Name", {"name": account.name, "fullname": account.name})
        self.offer_mudlet(session)
        await self._resume_token(session)
        self.send_room_info(session)
        if not carried:
            session.write(describe_room(self, session))
        for game in self.host.player_returned(account.id, account.name, arriving=not carried):
            session.write(f"You have a game in progress: {game.title}.")
            self.presentation.show(session, game)
        session.prompt()

    def offer_mudlet(self, session: Session) -> None:
        """GMCP ``Client.GUI`` at login: the Mudlet package's version and address
        (server/mudlet.py), for a client that agreed to GMCP, while the web door serves
        it. Mudlet installs it, or replaces an older one; a browser's /play, whose
        connection has no socket address, is not offered it."""
        if self.mudlet is None or not session.gmcp_on:
            return
        offer = self.mudlet.gmcp(session.writer.get_extra_info("sockname"))
        if offer is not None:
            session.gmcp("Client.GUI", offer)

    def greet_by_gmcp(self, session: Session) -> None:
        """GMCP agreed only after login (a client slow to answer the options asked at
        connect): what a login sends by GMCP, sent now."""
        session.gmcp("Char.Name", {"name": session.name, "fullname": session.name})
        self.offer_mudlet(session)
        self.send_room_info(session)

    def issue_resume_token(self, session: Session) -> None:
        """A resume token for a client that declared ``Esterport.Resume`` only after its
        login (see :meth:`_resume_token`)."""
        task = asyncio.create_task(self._resume_token(session))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _resume_token(self, session: Session) -> None:
        """A browser client (``Esterport.Resume`` in its GMCP supports) gets the token that
        logs it back in after a drop (``server/services/resume.py``), rotated at every
        login: the password is never kept by the page."""
        if "esterport.resume" not in session.gmcp_supports:
            return
        try:
            token, session.resume_digest = await self.resume.issue(session.account.id)
        except Exception:
            log.warning("no resume token for %s", session.account.name, exc_info=True)
            return
        session.gmcp("Esterport.Resume", {"token": token, "ttl": self.resume.ttl})

    async def _resume_ended(self, session: Session) -> None:
        """The connection is gone: after QUIT its account's tokens end; after a drop its
        token is good for a few more minutes."""
        try:
            if session.quitting:
                await self.resume.revoke(session.account.id)
            elif session.resume_digest:
                await self.resume.dropped(session.resume_digest)
        except Exception:
            log.warning("resume token of %s not updated", session.account.name, exc_info=True)

    def _detach(self, session: Session) -> None:
        """Forget a session's subscriptions (it stays open only to be closed)."""
        for topic in ("all", "chat", f"room:{session.room}",
                      *(f"game:{g}" for g in session.watching)):
            session.unsubscribe(topic)
        if session.account is not None:
            session.unsubscribe(f"account:{session.account.id}")

    async def _leave(self, session: Session) -> None:
        session.closed = True
        self._forget_clients(gone=session)
        if session in self.connections:
            self.connections.discard(session)
            self.per_address[session.address] -= 1
            if self.per_address[session.address] <= 0:
                del self.per_address[session.address]
            if self.cluster is not None:
                self.cluster.roster.connection(session.address, -1)
        account = session.account
        if account is None or self.online.sessions.get(account.id) is not session:
            # never logged in, or taken over by a newer connection: whatever it was given
            # (a place in a room, subscriptions) goes with it, so no ghost stays behind
            self.online.place(session, None)
            self._detach(session)
            return
        self.online.remove(session)
        self._detach(session)
        await self._resume_ended(session)
        if self.online.remote.get(account.id) is None:  # not taken over on another node
            self._announce(session.room, f"{account.name} has left.", session)
            if self.cluster is not None:
                self.cluster.roster.left(session)
            self.host.player_left(account.id, account.name)
        try:
            await self.accounts.update(account.id, last_seen_at=time.time())
        except Exception:
            log.warning("could not record last seen for %s", account.name, exc_info=True)
