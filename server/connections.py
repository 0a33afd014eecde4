"""A connection's life in the parlor: let in (the caps), logged in and entered, its
commands in turn (the rate limit, the governor, another node's game), and its leaving.

:class:`Connections` holds every open connection, logged in or not, and how many come
from each address; who is logged in is ``server/online.py``."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from typing import TYPE_CHECKING, Any, Iterator, Protocol

from server.db import connection_lost
from server.line_input import Disconnect
from server.login import Gate, login
from server.services.accounts import Member
from server.session import Commands, Session
from server.tasks import cancel_and_wait
from server.world import describe_room

if TYPE_CHECKING:
    from server.cluster import Cluster
    from server.mudlet import MudletOffer
    from server.pacing import LoadGovernor
    from server.presentation import Presentation
    from server.world import World

log = logging.getLogger(__name__)

# Lines past the rate limit that wait their turn rather than being dropped (a pasted
# block, a MUD client's script); past these, a flood's lines are dropped.
PASTE_QUEUE = 50

GOODBYE = "Esterport is shutting down. Your games are saved."
MOVING = ("This part of Esterport is stopping. Connect again: you will be put through to "
          "another part, and your games are waiting.")


class Restarts(Protocol):
    """The parlor's part in restarts (``server/holder/handover.py``), as a connection's
    life meets it: carried on, told of, gone, or parked while the parlor hands over."""

    async def carry_on(self, session: Session, carried: Any) -> bool: ...

    def tell(self, session: Session) -> None: ...

    def gone(self, session: Session) -> None: ...

    async def parked(self) -> None: ...


class Lobby(Gate, Protocol):
    """What a connection's life reads of the parlor: what logging in reads
    (:class:`~server.login.Gate`), the rooms, the command table and the governor, the
    cluster and the restarts it may be part of, whether it is stopping or handing
    over, the listener, and the Mudlet package offered while the web door serves it."""

    world: "World"
    presentation: "Presentation"
    registry: Commands
    governor: "LoadGovernor"
    background: set[asyncio.Task]
    cluster: "Cluster | None"
    handover: Restarts | None
    draining: bool
    handing_over: bool
    server: Any  # the listener (telnetlib3's): only its lists of clients are read
    mudlet: "MudletOffer | None"

    def announce(self, room: str, text: str, session: Session) -> None: ...

    def send_room_info(self, session: Session) -> None: ...


class Connections:
    """Every open connection of this node (``len``, ``in``, iteration), the count from
    each address, and the task that runs each (:meth:`shell`)."""

    def __init__(self, parlor: Lobby) -> None:
        self.parlor = parlor
        self.open: set[Session] = set()
        self.per_address: Counter[str] = Counter()
        self.shell_tasks: set[asyncio.Task] = set()  # sessions' commands (and logins)
        self.ending: set[asyncio.Task] = set()  # sessions' ends begun by :meth:`wake`
        self._wake = self.wake  # one bound method for every waiting session, not one each

    def __len__(self) -> int:
        return len(self.open)

    def __iter__(self) -> Iterator[Session]:
        return iter(self.open)

    def __contains__(self, session: object) -> bool:
        return session in self.open

    def from_address(self, address: str) -> int:
        """Open connections from ``address``, on every node."""
        cluster = self.parlor.cluster
        here = self.per_address.get(address, 0)
        return here + (cluster.roster.connections_from(address) if cluster else 0)

    def forget_clients(self, gone: Session | None = None) -> None:
        """telnetlib3 keeps every connection in two places the parlor never reads: a
        queue (the last 1000) for ``Server.wait_for_client()``, and a list of protocols it
        prunes only when the next connection arrives. A closed connection in either keeps
        its protocol, buffers and Session alive, so after a disconnect storm a whole
        storm's worth of memory would wait for the next login. Empty the queue, and drop
        closed protocols (and ``gone``'s) from the list."""
        queue = getattr(self.parlor.server, "_new_client", None)
        while queue is not None and not queue.empty():
            queue.get_nowait()
        protocols = getattr(self.parlor.server, "_protocols", None)
        if protocols:
            mine = gone.terminal if gone is not None else None
            protocols[:] = [p for p in protocols
                            if p is not mine and not getattr(p, "_closing", False)]

    async def shell(self, reader, writer) -> None:  # noqa: ANN001
        """A connection's first task (telnetlib3 starts it): admitted and logged in, then
        its commands (:meth:`serve`)."""
        self.forget_clients()
        await self.serve(Session(self.parlor, writer.protocol), admit=True)

    async def serve(self, session: Session, admit: bool = False) -> None:
        """A session's commands in turn, while it sends them; then it waits for the next
        with no task at all (:meth:`wake` starts one when input arrives). Idle sessions
        are most of a server's memory, and a task waiting in ``read_line`` kept about
        1.5 KB of coroutines alive (each command loop and read it waits through)."""
        task = asyncio.current_task()
        self.shell_tasks.add(task)
        over = True  # the session ends here (not when it only waits for input)
        try:
            if admit and not await self.admit(session):
                return
            while not session.closed:
                if self.parlor.handover is not None and self.parlor.handing_over:
                    await self.parlor.handover.parked()  # the process ends under it
                session.busy = False
                if session.wait_for_input(self._wake):
                    over = False
                    return
                line = await session.read_line()
                session.busy = True
                if self.parlor.handing_over:  # read before the hand-over: it goes with the rest
                    session.unread_line(line)
                    continue
                if not await self.turn(session):
                    continue
                if not line:
                    session.prompt()
                    continue
                session.last_command_at = time.time()
                # a node paused past its lease lets its lost games go first (cluster/lease.py)
                await self.parlor.host.games.check()
                router = self.parlor.cluster.router if self.parlor.cluster is not None else None
                node = router.route(session, line) if router is not None else None
                if node is not None:  # a game another node drives (server/cluster/)
                    await router.relay(node, session, line)
                else:
                    await self.parlor.registry.dispatch(session, line)
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
            self.shell_tasks.discard(task)
            if over:
                await self.end(session)

    def wake(self, session: Session) -> None:
        """Input, or the end of the connection, arrived for a session waiting with no
        task: serve it, or (closed) end it. An end is not a command: stopping the parlor
        cancels the commands under way (``shell_tasks``) and waits for the ends."""
        if session.closed:
            task = asyncio.create_task(self.end(session))
            self.ending.add(task)
            task.add_done_callback(self.ending.discard)
        else:
            task = asyncio.create_task(self.serve(session))
            self.shell_tasks.add(task)
            task.add_done_callback(self.shell_tasks.discard)  # (cancelled before it began)

    async def end(self, session: Session) -> None:
        """The session is over: it leaves, and its terminal lets go of it."""
        if self.parlor.handover is not None:
            self.parlor.handover.gone(session)
        await self.leave(session)
        session.terminal.release()  # freed at once, not by a full garbage collection

    async def stop(self, within: float) -> None:
        """The parlor stops (every session was closed): the commands under way are
        cancelled, and every session ends, within ``within`` seconds. A session waiting
        for input whose connection has not closed yet ends now."""
        for session in list(self.open):
            session.terminal.wake()
        await cancel_and_wait(self.shell_tasks, within, "sessions")
        if self.ending:
            await asyncio.wait(set(self.ending), timeout=within)

    async def admit(self, session: Session) -> bool:
        """Let a new connection in (the caps), log it in and enter it in the parlor;
        False when it was turned away."""
        cap = self.parlor.config.server.max_connections_per_address
        self.open.add(session)
        self.per_address[session.address] += 1
        if self.parlor.cluster is not None:
            self.parlor.cluster.roster.connection(session.address, +1)
        if self.from_address(session.address) > cap:
            session.close(f"Too many connections from your address (at most {cap}).")
            return False
        if self.parlor.draining:  # stopping: in a cluster, its games are going to the others
            session.close(MOVING if self.parlor.cluster is not None else GOODBYE)
            return False
        carried = getattr(session.terminal, "carried", None)
        if carried is not None and self.parlor.handover is not None:  # handed over by the holder
            if await self.parlor.handover.carry_on(session, carried):
                return True
        else:
            session.offer_mud_protocols()
        try:  # asyncio.timeout, not wait_for: on Python 3.11 the login's task (with the
            # session in its frames) and its error refer to each other, and a player who
            # left mid-login stayed in memory until a full garbage collection
            async with asyncio.timeout(self.parlor.config.server.login_timeout or None):
                account = await login(session, self.parlor)
        except TimeoutError:
            session.close("You took too long to log in. Goodbye.")
            return False
        if self.parlor.draining:  # stopping while they logged in
            session.close(MOVING if self.parlor.cluster is not None else GOODBYE)
            return False
        await self.enter(session, account)  # the row is not kept: the session has a Member
        session.logged_in()
        if self.parlor.handover is not None:
            self.parlor.handover.tell(session)
        return True

    async def turn(self, session: Session) -> bool:
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
        await self.parlor.governor.turn(session)
        return not session.closed  # gone while it waited: its command dies with it

    async def enter(self, session: Session, account, *,  # noqa: ANN001
                     carried: bool = False, ignoring: set[int] | None = None) -> None:
        if ignoring is None:
            ignoring = await self.parlor.accounts.ignored_by(account.id)
        if session.closed:
            return  # gone while we looked
        # From here to the registration nothing awaits, so two logins to one account at
        # once cannot both register: the second finds the first and takes it over.
        old = self.parlor.online.sessions.get(account.id)
        elsewhere = self.parlor.online.remote.get(account.id)
        if old is not None and old is not session:
            old.close(f"Your account has been taken over by a new connection from "
                      f"{session.address}.")
            session.room = old.room
            session.watching = old.watching
            self.detach(old)
            self.parlor.online.place(old, None)
            taken_over = True
        elif elsewhere is not None and self.parlor.cluster is not None:  # on another node: it
            # closes it when told we are here
            if elsewhere.room in self.parlor.world.rooms:
                session.room = elsewhere.room
            self.parlor.cluster.roster.left_elsewhere(account.id, elsewhere.node)
            taken_over = True
        else:
            taken_over = False
        session.account = Member.of(account)
        session.logged_in_at = time.time()
        session.name = account.name
        if not carried:  # (a carried session logged in before: the new parlor counts them)
            session.log.info("%s logged in from %s (terminal %s%s)", account.name,
                             session.address, session.terminal_type,
                             f", client {session.client_name}" if session.client_name else "")
        settings = account.settings or {}
        session.color = settings.get("color", True)
        session.width = settings.get("width")
        session.height = settings.get("height")
        session.screenreader = settings.get("screenreader", False)
        session.board = settings.get("board", "full")
        session.ignoring = frozenset(ignoring) if ignoring else session.ignoring
        self.parlor.online.add(session)
        if self.parlor.cluster is not None:
            self.parlor.cluster.roster.joined(session)
        if not carried:  # (a carried session never left)
            await self.parlor.accounts.update(account.id, last_seen_at=time.time())
        for topic in ("all", "chat", f"account:{account.id}", f"room:{session.room}",
                      *(f"game:{g}" for g in session.watching)):
            session.subscribe(topic)
        if carried:  # a reload or a crash of the parlor: the player never left
            session.write("The parlor has restarted; carry on.")
        elif taken_over:
            session.write("You take over your earlier connection.")
        else:
            self.parlor.announce(session.room, f"{account.name} has arrived.", session)
        if not carried:
            self.greet_by_gmcp(session)
            await self.resume_token(session)
            session.write(describe_room(self.parlor.world, self.parlor.online, session))
        elif not session.resume_digest:  # (a client carried on keeps what GMCP told it,
            await self.resume_token(session)  # and a page its resume token, if it had one)
        host = self.parlor.host
        for game in host.player_returned(account.id, account.name, arriving=not carried):
            session.write(f"You have a game in progress: {game.title}.")
            self.parlor.presentation.show(session, game)
        session.prompt()

    def offer_mudlet(self, session: Session) -> None:
        """GMCP ``Client.GUI`` at login: the Mudlet package's version and address
        (server/mudlet.py), for a client that agreed to GMCP, while the web door serves
        it. Mudlet installs it, or replaces an older one; a browser's /play, whose
        connection has no socket address, is not offered it."""
        if self.parlor.mudlet is None or not session.gmcp_on:
            return
        offer = self.parlor.mudlet.gmcp(session.terminal.get_extra_info("sockname"))
        if offer is not None:
            session.gmcp("Client.GUI", offer)

    def greet_by_gmcp(self, session: Session) -> None:
        """What a login sends by GMCP (the name, the Mudlet offer, the room): at login, or
        once GMCP is agreed, for a client slow to answer the options asked at connect."""
        session.gmcp("Char.Name", {"name": session.name, "fullname": session.name})
        self.offer_mudlet(session)
        self.parlor.send_room_info(session)

    def issue_resume_token(self, session: Session) -> None:
        """A resume token for a client that declared ``Esterport.Resume`` only after its
        login (see :meth:`resume_token`)."""
        task = asyncio.create_task(self.resume_token(session))
        self.parlor.background.add(task)
        task.add_done_callback(self.parlor.background.discard)

    async def resume_token(self, session: Session) -> None:
        """A browser client (``Esterport.Resume`` in its GMCP supports) gets the token that
        logs it back in after a drop (``server/services/resume.py``), rotated at every
        login: the password is never kept by the page."""
        if "esterport.resume" not in session.gmcp_supports:
            return
        try:
            token, session.resume_digest = await self.parlor.resume.issue(session.account.id)
        except Exception:
            log.warning("no resume token for %s", session.account.name, exc_info=True)
            return
        session.gmcp("Esterport.Resume", {"token": token, "ttl": self.parlor.resume.ttl})
        if session.terminal.logged_in and self.parlor.handover is not None:
            self.parlor.handover.tell(session)   # (declared after the login: the holder
            # keeps the token's digest, so that a restart goes on with it)

    async def resume_ended(self, session: Session) -> None:
        """The connection is gone: after QUIT its account's tokens end; after a drop its
        token is good for a few more minutes."""
        try:
            if session.quitting:
                await self.parlor.resume.revoke(session.account.id)
            elif session.resume_digest:
                await self.parlor.resume.dropped(session.resume_digest)
        except Exception:
            log.warning("resume token of %s not updated", session.account.name, exc_info=True)

    def detach(self, session: Session) -> None:
        """Forget a session's subscriptions (it stays open only to be closed)."""
        for topic in ("all", "chat", f"room:{session.room}",
                      *(f"game:{g}" for g in session.watching)):
            session.unsubscribe(topic)
        if session.account is not None:
            session.unsubscribe(f"account:{session.account.id}")

    async def leave(self, session: Session) -> None:
        session.closed = True
        self.forget_clients(gone=session)
        if session in self.open:
            self.open.discard(session)
            self.per_address[session.address] -= 1
            if self.per_address[session.address] <= 0:
                del self.per_address[session.address]
            if self.parlor.cluster is not None:
                self.parlor.cluster.roster.connection(session.address, -1)
        account = session.account
        if account is None or self.parlor.online.sessions.get(account.id) is not session:
            # never logged in, or taken over by a newer connection: whatever it was given
            # (a place in a room, subscriptions) goes with it, so no ghost stays behind
            self.parlor.online.place(session, None)
            self.detach(session)
            return
        self.parlor.online.remove(session)
        self.detach(session)
        await self.resume_ended(session)
        if self.parlor.online.remote.get(account.id) is None:  # not taken over on another node
            self.parlor.announce(session.room, f"{account.name} has left.", session)
            if self.parlor.cluster is not None:
                self.parlor.cluster.roster.left(session)
            self.parlor.host.player_left(account.id, account.name)
        try:
            await self.parlor.accounts.update(account.id, last_seen_at=time.time())
        except Exception:
            log.warning("could not record last seen for %s", account.name, exc_info=True)
