"""A held parlor's part in a restart nobody notices (docs/design.md, "Restarts"): it
carries on the connections its holder hands it at start, and at a reload hands every
connection back with its session's state and what was typed but not run, then ends the
process. The parlor keeps one (``Parlor.handover``) when it runs under a holder."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import socket
import sys
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Protocol

from server.mud_protocols import shared_supports

if TYPE_CHECKING:
    import telnetlib3

    from server.cluster import Cluster
    from server.config import Config
    from server.connections import Connections
    from server.db import Database
    from server.holder.link import HolderLink
    from server.holder.messages import Carried
    from server.session import Session
    from server.services.accounts import Accounts
    from server.services.games import GameHost
    from server.telnet import TelnetProtocol
    from server.world import World

log = logging.getLogger(__name__)

# what a browser not held (the HTTPS port's /play) is told at a reload: its page reconnects
RESTARTING = "Esterport is restarting; this page connects again in a moment."


class Restarting(Protocol):
    """What a restart reads and sets of the parlor: its connections and what they are
    told, its listener and the telnet options it made connections with, the rooms, the
    accounts, the games, the cluster and the database it closes, the hooks run before
    it stops, whether it is stopping or handing over, and its stop; and what /play reads
    to carry a browser's session on (``server.web.play.Shell``: the settings, the
    holder, a telnet connection)."""

    connections: "Connections"
    farewell: str
    server: "telnetlib3.Server | None"
    telnet_options: dict[str, Any]
    world: "World"
    accounts: "Accounts"
    host: "GameHost"
    cluster: "Cluster | None"
    db: "Database"
    before_stop: list[Callable[[], Awaitable[None]]]
    draining: bool
    handing_over: bool
    config: "Config"
    holder: "HolderLink | None"

    def telnet_connection(self) -> "TelnetProtocol": ...

    async def stop(self, message: str | None = None, *, notice: str | None = None,
                   hand_over: bool = True) -> None: ...


class HandOver:
    """Taking connections over from the parlor before, and handing them to the next."""

    def __init__(self, parlor: Restarting, link: "HolderLink") -> None:
        self.parlor = parlor
        self.link = link
        # connections handed over not yet carried on: what they typed in the gap runs
        # once every one of them is back (in its room, hearing what is said)
        self._carrying: set[int] = set()
        self._carried = asyncio.Event()
        self._accounts: dict[int, tuple] = {}  # their accounts, read at once
        self._bound = 3.0   # seconds the first back waits for the others, at most
        self._bounding: asyncio.TimerHandle | None = None  # gives up on the rest then
        self._since = 0.0   # loop time this parlor began to carry sessions on
        self._parked = asyncio.Event()  # (never set: a handed-over session waits for exit)

    # -- at start ----------------------------------------------------------------------------
    async def take_over(self, protocol: type["TelnetProtocol"],
                        handed: list[tuple["Carried", int]]) -> asyncio.AbstractServer:
        """Carry on every connection the holder hands over, then accept on the holder's
        listening socket (the server returned)."""
        parlor, link = self.parlor, self.link
        # (kept apart from the parlor's background tasks, which stopping cancels)
        link.on_reload = lambda: setattr(parlor, "_shutdown_task",
                                         asyncio.create_task(self.hand_over()))
        link.on_stop = lambda: setattr(parlor, "_shutdown_task",
                                       asyncio.create_task(parlor.stop()))
        loop = asyncio.get_running_loop()
        if handed:
            # thousands of sessions made at once: no collection of the heap until every
            # one is back (``settled``), when what lives is frozen (server/collector.py)
            gc.disable()
        self._carrying = {carried.conn for carried, _ in handed}
        self._since = loop.time() if handed else 0.0
        self._bound = max(3.0, 0.01 * len(handed))
        self._accounts = await parlor.accounts.with_ignores(sorted(
            {carried.account for carried, _ in handed if carried.account is not None}))
        if not self._carrying:
            self._back()
        else:  # one timer for them all, not one a session
            self._bounding = loop.call_later(self._bound, self._give_up)
        gone = 0
        for carried, fd in handed:
            if carried.compressing:
                # the parlor before ended (a crash) with an MCCP2 stream open: the client's
                # decompressor is mid-stream and can read nothing this parlor could send
                log.warning("closing a connection from %s:%s carried on after a crash: its "
                            "client was inside the MCCP2 stream the parlor before had open",
                            carried.address, carried.port)
                os.close(fd)
                gone += 1
                link.release(carried.conn)
                self._carried_on(carried.conn)
                continue
            try:
                if carried.websocket:  # a browser's /play socket (server/web/held.py)
                    from server.web.play import resume  # (the web door's modules are
                    await resume(parlor, carried, fd)    # loaded only with the door)
                else:
                    resumed = protocol(**parlor.telnet_options)
                    resumed.carried = carried
                    await loop.connect_accepted_socket(lambda p=resumed: p,
                                                       socket.socket(fileno=fd))
            except OSError as err:  # gone in the gap
                gone += 1
                log.info("a held connection was gone: %s", err)
                link.release(carried.conn)
                self._carried_on(carried.conn)
        if resumed_count := len(handed) - gone:
            log.info("carried on %d connection(s) from the parlor before", resumed_count)
        return await loop.create_server(lambda: protocol(**parlor.telnet_options),
                                        sock=link.listeners["telnet"])

    async def settled(self) -> bool:
        """Return once every connection taken over is back in the parlor (a bounded
        wait: see ``_all_carried_on``); False when none was taken over."""
        if not self._since:
            return False
        try:
            async with asyncio.timeout(self._bound + 1.0):
                await self._carried.wait()
        except TimeoutError:
            pass
        log.info("carried on every connection in %.2f s",
                 asyncio.get_running_loop().time() - self._since)
        self._since = 0.0
        return True

    async def carry_on(self, session: "Session", carried: "Carried") -> bool:
        """A connection the parlor before this one had: its session goes on where it was
        (True), or, if it had not logged in, its login starts again (False)."""
        session.gmcp_supports = shared_supports(frozenset(carried.supports))
        # (strings every session has alike, one copy each: they came apart from JSON)
        session.client_name = sys.intern(carried.client) if carried.client else None
        session.resume_digest = carried.resume_digest or None
        if not carried.pending:  # idle: the last thing on the screen is the prompt
            session.on_a_prompt()
        account, ignoring = self._accounts.pop(carried.account, (None, set()))
        if account is None or account.banned:
            session.echo(True)  # it may have been asked for a password
            session.write("The parlor has restarted.")
            await self._all_carried_on(carried.conn)
            session.carry_in(carried.pending)
            session.flush()
            session.terminal.carried_on()
            return False
        rooms = self.parlor.world.rooms
        if carried.room in rooms:
            session.room = next(r for r in rooms if r == carried.room)  # the world's own
        if carried.watching:
            session.watching = frozenset(carried.watching)
        await self.parlor.connections.enter(session, account, carried=True, ignoring=ignoring)
        session.logged_in()   # (the holder knows it as it was: nothing to tell it,
        if session.resume_digest and not carried.resume_digest:  # unless a token was issued)
            self.tell(session)
        await self._all_carried_on(carried.conn)
        session.carry_in(carried.pending)
        session.flush()   # (one segment: see TelnetProtocol.carried_on)
        session.terminal.carried_on()
        return True

    def gone(self, session: "Session") -> None:
        """A session ended: if it was one handed over, it is not awaited any more."""
        carried = getattr(session.terminal, "carried", None)
        if carried is not None and carried.conn in self._carrying:  # gone in the gap
            self._carried_on(carried.conn)

    @property
    def all_back(self) -> asyncio.Event:
        """Set once every connection taken over is back (or given up on)."""
        return self._carried

    def _carried_on(self, conn: int) -> None:
        self._carrying.discard(conn)
        if not self._carrying:
            self._back()

    def _back(self) -> None:
        self._carried.set()
        if self._bounding is not None:
            self._bounding.cancel()
            self._bounding = None
        gc.enable()

    def _give_up(self) -> None:
        """The bound passed with connections handed over not back (gone in the gap, or
        stuck): those back go on without them."""
        self._bounding = None
        if self._carrying:
            log.warning("%d connection(s) handed over did not come back", len(self._carrying))
            self._carrying.clear()
            self._back()

    async def _all_carried_on(self, conn: int) -> None:
        """This connection is back; wait (a bounded while, ``_give_up``: one may have
        gone in the gap) until every other one handed over is, before what was typed in
        the gap runs."""
        self._carried_on(conn)
        await self._carried.wait()

    # -- while serving -------------------------------------------------------------------------
    def tell(self, session: "Session") -> None:
        """What the next parlor would need of ``session`` changed (a login): the holder
        keeps it."""
        held = getattr(session.terminal, "held", None)
        if held is not None:
            self.link.update(held, session)

    async def parked(self) -> None:
        """Where a session waits once the hand-over has begun: the process ends under it."""
        await self._parked.wait()

    # -- at a reload ---------------------------------------------------------------------------
    async def hand_over(self, settle: float = 10.0) -> None:
        """A reload (the holder asked): take no more input, let every command under way
        finish and its output leave, send the holder each session's state and what was
        typed but not run yet, and end the process. The next parlor carries on from
        there: no player is logged out, no command is lost or run twice."""
        parlor, link = self.parlor, self.link
        if parlor.handing_over:
            return
        parlor.handing_over = parlor.draining = True
        gc.disable()   # (the process ends in a moment: no pause to collect its heap first)
        parlor.farewell = RESTARTING
        log.info("handing %d connection(s) over to a new parlor", len(parlor.connections))
        if parlor.server is not None:
            parlor.server.close()  # the holder's socket stays open: new players queue there
        held = [s for s in parlor.connections
                if getattr(s.terminal, "held", None) is not None]
        transports = [t for s in held
                      if (t := s.terminal.transport) is not None]
        stilled = []   # /play sockets: stop reading, and let each session take what was read
        for transport in transports:
            if transport.is_closing():
                continue
            if hasattr(transport, "hold_still"):
                stilled.append(transport.hold_still())
            else:
                transport.pause_reading()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + settle
        try:
            async with asyncio.timeout(settle):
                await asyncio.gather(*stilled)
        except TimeoutError:
            log.error("a /play session did not take its input within %g s", settle)
        while any(s.busy for s in held) and loop.time() < deadline:
            await asyncio.sleep(0.01)
        for session in held:
            session.flush()
        while loop.time() < deadline and any(t.get_write_buffer_size() for t in transports):
            await asyncio.sleep(0.01)
        link.handing_over = True  # from here, a closed connection stays held
        for session in held:
            if not session.closed:
                link.update(session.terminal.held, session, session.unread())
        if not await link.handed_over():
            log.error("the holder did not take the hand-over in time")
        for transport in transports:   # the /play sockets: no close frame, no session end
            if hasattr(transport, "let_go"):
                transport.let_go()
        for hook in list(parlor.before_stop):  # the web door (pages, streams, HTTPS /play)
            try:
                await hook()
            except Exception:
                log.exception("stopping %r failed", hook)
        parlor.before_stop.clear()
        await parlor.host.close()
        if parlor.cluster is not None:
            await parlor.cluster.close(leaving=False)
        await parlor.db.close()
        log.info("handed over; exiting")
        logging.shutdown()
        os._exit(0)
