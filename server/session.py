"""One connected player, on a terminal (``server/terminal.py``: telnet's, for every client).

Read a bounded line, clean it, rate-limit it, dispatch it, write the answer. Events
from the bus arrive through :meth:`Session.on_event` and are written at once.

A session is one object in parts, each in its own module: what it sends and the pager
(``server/output.py``), what it reads (``server/line_input.py``) and GMCP and MSSP
(``server/mud_protocols.py``); this module holds who it is, what it follows on the bus,
and its end. The parts are mixins, not objects of their own: idle sessions are most of
a server's memory, and every attribute is a slot of the one object.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from server.bus import Bus, Event
from server.line_input import LineInput, Limits
from server.mud_protocols import Listed, MudProtocols
from server.output import Output
from server.pacing import RateLimiter
from server.text import clean

if TYPE_CHECKING:
    from server.services.accounts import Member
    from server.terminal import Terminal

log = logging.getLogger(__name__)
_ids = itertools.count(1)

NOTHING: frozenset = frozenset()  # an empty set every session may share


class _SessionLog(logging.LoggerAdapter):
    """Prefixes every log line with the session id ("useful in logs")."""

    def process(self, msg, kwargs):  # noqa: ANN001, ANN201
        return f"[session {self.extra['session']}] {msg}", kwargs


class Drawing(Protocol):
    """The presentation (``server/presentation.py``), as a session hands it a game's
    event to draw for its player."""

    def on_event(self, session: "Session", event: Event) -> None: ...


class Start(Protocol):
    """The world (``server/world.py``), as a new session reads it: the room it starts in."""

    start: str


class Venue(Limits, Listed, Protocol):
    """What a session reads of the parlor it is connected to: the bus it follows, the
    presentation that draws its games, the world whose start it first stands in, and
    what its parts read (:class:`Limits`, :class:`Listed`; whether the parlor is handing
    over, when it says). It is the parlor: the commands reach the rest of it as
    ``session.parlor`` (``commands/registry.py``)."""

    bus: Bus
    presentation: Drawing
    world: Start


class Commands(Protocol):
    """What runs one line a session typed (``commands.registry.Registry``): the parlor
    is handed one, and runs every command through it."""

    async def dispatch(self, session: "Session", line: str) -> str: ...


class Session(Output, LineInput, MudProtocols):
    """One connection, logged in or not.

    Idle sessions are most of a server's memory, so a session is kept small: its
    attributes are slots, its logger is made when it logs, its line queue exists only
    while lines wait, and its account is a few plain fields (:class:`Member`)."""

    __slots__ = (
        "id", "parlor", "terminal", "address", "account", "name", "room", "color",
        "_width", "_height", "screenreader", "board", "ignoring", "watching",
        "_seen", "quit_warned_at", "quitting", "resume_digest", "client_name",
        "gmcp_supports", "closed", "flooding", "queued", "login_limiter", "limiter",
        "_buffer", "_lines", "_skip_partial", "_out", "_ga", "_prompted",
        "_flush_scheduled", "_closing", "_replying", "_rows", "_held", "_dropped",
        "_after_cr", "connected_at", "last_command_at", "reply_to",
        "logged_in_at", "examining", "busy", "__weakref__")

    parlor: Venue

    def __init__(self, parlor: Venue, terminal: "Terminal") -> None:
        self.id = next(_ids)
        self.parlor = parlor
        self.terminal = terminal
        terminal.session = self  # it tells of a lost connection, GMCP, options agreed
        peer = terminal.get_extra_info("peername") or ("?", 0)
        self.address: str = peer[0]
        self.account: "Member | None" = None
        self.name = f"<{self.address}>"  # the account's name once logged in
        self.room: str = parlor.world.start
        self.color = True
        self._width: int | None = None  # set by SET WIDTH; else NAWS
        self._height: int | None = None  # set by SET HEIGHT; else NAWS
        self.screenreader = False  # SET SCREENREADER: boards read out, no ASCII art
        self.board = "full"  # SET BOARD FULL|COMPACT|OFF (server/presentation.py)
        # sets replaced, never changed in place: the empty one is shared (an empty set is 216 B)
        self.ignoring: frozenset[int] = NOTHING
        self.watching: frozenset[int] = NOTHING
        self._seen: dict[int, int] | None = None  # seen_versions, made when first asked
        self.quit_warned_at = 0.0  # when QUIT last warned of games in progress
        self.quitting = False      # QUIT: leaving on purpose (its resume tokens end)
        self.resume_digest: str | None = None   # the resume token issued to this connection
        self.client_name: str | None = None
        self.gmcp_supports: frozenset[str] = NOTHING  # Core.Supports' packages, lower case
        self.closed = False
        self.flooding = False
        self.queued = 0  # lines of a paste waiting for the rate limit, in a row
        self.login_limiter: RateLimiter | None = RateLimiter(
            parlor.config.login.lines_per_second, 6)
        self.limiter = RateLimiter(parlor.config.server.commands_per_second,
                                   parlor.config.server.command_burst)
        self._buffer = ""
        # complete lines read, not yet cleaned or taken (None: none; a deque costs 760 bytes)
        self._lines: deque[str] | None = None
        self._skip_partial = False  # input was dropped mid-line: drop up to the next line end
        self._out: list[str] | None = None  # what waits for flush (None: nothing)
        self._ga = False
        self._prompted = False  # the last output is the "> " prompt (queued or sent)
        self._flush_scheduled = False
        self._closing = False
        # the pager: a command's reply taller than the screen waits here for MORE
        self._replying = False
        self._rows = 0  # rows of the reply shown on this page
        self._held: Sequence[str] = ()  # a list while lines are held
        self._dropped = 0  # lines of the reply past MAX_HELD_LINES
        self._after_cr = False  # the last read ended with CR (its LF may come next)
        self.connected_at = time.time()
        self.last_command_at = time.time()
        self.reply_to: str | None = None  # whom REPLY answers
        self.logged_in_at = 0.0  # when this connection logged in (the newer login wins)
        self.examining: tuple[int, int] | None = None  # EXAMINE's game and move
        self.busy = False  # running a command (a hand-over waits for it to finish)

    @property
    def seen_versions(self) -> dict[int, int]:
        """Game -> the last version drawn or told here (made when first asked: most
        sessions never watch a game)."""
        if self._seen is None:
            self._seen = {}
        return self._seen

    @property
    def log(self) -> logging.LoggerAdapter:
        """This session's logger: every line says which session ("useful in logs")."""
        return _SessionLog(log, {"session": self.id})

    # -- identity and terminal -----------------------------------------------------------
    @property
    def terminal_type(self) -> str:
        """The terminal type the client announced (TTYPE), cleaned and bounded: the client
        chose it, and it goes into the log (escapes, NULs or a CR LF there would drive the
        admin's terminal or forge log lines)."""
        term = self.terminal.get_extra_info("TERM") or self.terminal.get_extra_info("term")
        return clean(str(term or ""), max_len=40).strip() or "unknown"

    def idle(self) -> float:
        """Seconds since the player's last command."""
        return time.time() - self.last_command_at

    @property
    def account_id(self) -> int:
        assert self.account is not None, "not logged in"
        return self.account.id

    @property
    def is_admin(self) -> bool:
        return bool(self.account and self.account.is_admin)

    # -- logged in -----------------------------------------------------------------------
    def logged_in(self) -> None:
        """The player is in: no pre-login byte budget any more, the idle clock starts."""
        self.terminal.logged_in = True
        self.login_limiter = None  # (only the login reads it)
        self.last_command_at = time.time()

    # -- bus -----------------------------------------------------------------------------
    # A session is its own subscriber (calling it is on_event): no bound method is kept.
    def subscribe(self, topic: str) -> None:
        self.parlor.bus.subscribe(topic, self)

    def unsubscribe(self, topic: str) -> None:
        self.parlor.bus.unsubscribe(topic, self)

    def on_event(self, topic: str, event: Event) -> None:
        """Render one bus event for this player; never blocks."""
        if self.closed:
            return
        data = event.data
        if data.get("from") in self.ignoring and event.type in ("say", "tell", "chat", "emote"):
            return
        if self.account is not None and data.get("exclude") == self.account.id:
            return  # one's own say or arrival (by account: session numbers are per node)
        if event.type.startswith("game."):
            self.parlor.presentation.on_event(self, event)
            return
        if event.type == "room.changed":
            return
        if event.type == "status":  # for the client's status bar (docs/gmcp.md)
            if self.gmcp_on:
                self.gmcp("Char.Status", data)
            return
        text = data.get("text")
        if text:
            if event.type == "tell" and self.account is not None:
                self.reply_to = data.get("from_name")
            self.notify(text)

    __call__ = on_event

    # -- lifecycle -----------------------------------------------------------------------
    def close(self, message: str | None = None) -> None:
        """Say ``message``, send what is queued, and close the connection."""
        if self.closed:
            return
        if message:
            self._emit(message)
        self._closing = True
        self.closed = True
        self.flush()
        try:
            self.terminal.close()
        except Exception:
            pass

