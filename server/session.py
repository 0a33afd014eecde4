"""One connected player: a thin shell around a telnetlib3 reader/writer.

Read a bounded line, clean it, rate-limit it, dispatch it, write the answer. Events
from the bus arrive through :meth:`Session.on_event` and are written at once.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import sys
import time
from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from telnetlib3.telopt import DO, ECHO, GA, GMCP, IAC, MSSP, SGA, TTYPE, WILL, WONT

from server.bus import Event
from server.text import clean, lay_out, strip_sgr, visible_len

if TYPE_CHECKING:
    from server.app import Parlor
    from server.services.accounts import Member

log = logging.getLogger(__name__)
_ids = itertools.count(1)

PROMPT = "> "
NOTHING: frozenset = frozenset()  # an empty set every session may share
LEAST_WIDTH, LEAST_HEIGHT = 40, 10  # a client's window (NAWS) is taken as at least this
MAX_PENDING_OUTPUT = 1 << 20  # bytes queued for a client that does not read: then we give up
MAX_HELD_LINES = 2000  # lines of one reply the pager keeps for MORE; the rest is dropped
# GMCP Core.Supports messages heard, and the packages a client may name (a bound on
# what one connection keeps)
SUPPORTS = ("core.supports.set", "core.supports.add", "core.supports.remove")
MAX_SUPPORTS = 20
# The GMCP packages clients support, one set for every session that names the same ones
# (a kind of client always sends the same list): a session's own copy cost 1.2 KB
_SHARED_SUPPORTS: dict[frozenset[str], frozenset[str]] = {}


def shared_supports(names: frozenset[str]) -> frozenset[str]:
    found = _SHARED_SUPPORTS.get(names)
    if found is None:
        if len(_SHARED_SUPPORTS) >= 256:  # many kinds of lists: start afresh
            _SHARED_SUPPORTS.clear()
        found = _SHARED_SUPPORTS[names] = frozenset(sys.intern(name) for name in names)
    return found
MORE_LINE = "-- More: {left} lines left. Enter or MORE: next page; anything else: stop --"


class _SessionLog(logging.LoggerAdapter):
    """Prefixes every log line with the session id ("useful in logs")."""

    def process(self, msg, kwargs):  # noqa: ANN001, ANN201
        return f"[session {self.extra['session']}] {msg}", kwargs


class Disconnect(Exception):
    """The connection is gone (EOF, reset, kicked, taken over)."""


class RateLimiter:
    """A token bucket: ``rate`` commands a second, bursts up to ``burst``."""

    __slots__ = ("rate", "burst", "tokens", "stamp")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def wait(self) -> float:
        """Seconds until the next command is allowed (0: now)."""
        return max(0.0, (1.0 - self.level()) / self.rate) if self.rate > 0 else 0.0

    def level(self) -> float:
        """The tokens in the bucket now (``burst``: the session has been quiet)."""
        now = time.monotonic()
        return min(self.burst, self.tokens + (now - self.stamp) * self.rate)


class LoadGovernor:
    """Fairness between sessions when the server is behind.

    Every session has its own rate limit, but many sessions each under theirs can still
    keep the event loop busy for everyone. The governor measures the loop's lag (how
    late a short sleep wakes up); while the loop is behind, a session that has been
    sending hard (less than half its burst left) waits its turn before its next command
    runs, up to ``max_wait`` seconds a command. A player who has been quiet (a person
    typing LOOK) never waits."""

    def __init__(self, interval: float = 0.05, threshold: float = 0.1,
                 max_wait: float = 2.0) -> None:
        self.interval, self.threshold, self.max_wait = interval, threshold, max_wait
        self.lag = 0.0
        self.behind = False

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            started = loop.time()
            await asyncio.sleep(self.interval)
            self.lag = loop.time() - started - self.interval
            self.behind = self.lag > self.threshold

    async def turn(self, session: "Session") -> None:
        """Wait (if ``session`` must) until the loop has caught up, or it is gone."""
        limiter, waited = session.limiter, 0.0
        while (self.behind and waited < self.max_wait and not session.closed
               and limiter.level() < limiter.burst / 2):
            await asyncio.sleep(self.interval)
            waited += self.interval


class _Flushes:
    """The sessions that have output queued in this turn of the loop, flushed in the
    next turn by one callback, in the order they queued it: one wake-up of the loop for
    every reply of the turn, not one each."""

    __slots__ = ("loop", "sessions")
    current: "_Flushes | None" = None  # the running loop's (one loop at a time)

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.sessions: list[Session] = []

    @classmethod
    def of(cls, loop: asyncio.AbstractEventLoop) -> "_Flushes":
        flushes = cls.current
        if flushes is None or flushes.loop is not loop:
            flushes = cls.current = cls(loop)
        return flushes

    def add(self, session: "Session") -> None:
        if not self.sessions:
            self.loop.call_soon(self.run)
        self.sessions.append(session)

    def run(self) -> None:
        sessions, self.sessions = self.sessions, []
        for session in sessions:
            try:
                session.flush()
            except Exception:  # one session's failure is not the others'
                session.log.exception("flush failed")


class Session:
    """One connection, logged in or not.

    Idle sessions are most of a server's memory, so a session is kept small: its
    attributes are slots, its logger is made when it logs, its line queue exists only
    while lines wait, and its account is a few plain fields (:class:`Member`)."""

    __slots__ = (
        "id", "parlor", "reader", "writer", "address", "account", "name", "room", "color",
        "_width", "_height", "screenreader", "board", "ignoring", "watching",
        "_seen", "quit_warned_at", "quitting", "resume_digest", "client_name",
        "gmcp_supports", "closed", "flooding", "queued", "login_limiter", "limiter",
        "_buffer", "_lines", "_skip_partial", "_out", "_ga", "_prompted",
        "_flush_scheduled", "_closing", "_replying", "_rows", "_held", "_dropped",
        "_after_cr", "connected_at", "last_command_at", "protocol", "_window", "reply_to",
        "logged_in_at", "examining", "busy", "__weakref__")

    def __init__(self, parlor: "Parlor", reader: Any, writer: Any) -> None:
        self.id = next(_ids)
        self.parlor = parlor
        self.reader = reader
        self.writer = writer
        peer = writer.get_extra_info("peername") or ("?", 0)
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
        self.protocol = getattr(writer, "protocol", None)
        # our telnet protocol keeps the client's window (``TelnetProtocol.cols``, ``rows``);
        # width and height read it there (every long reply asks). Other writers: asked.
        self._window = self.protocol if hasattr(self.protocol, "rows") else None
        if self.protocol is not None and hasattr(self.protocol, "session"):
            self.protocol.session = self  # it tells of a lost connection, GMCP, options
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
    def width(self) -> int:
        if self._width:
            return self._width
        window = self._window
        cols = (window.cols if window is not None
                else self.writer.get_extra_info("cols")) or 80
        return max(LEAST_WIDTH, min(int(cols), 250))

    @width.setter
    def width(self, value: int | None) -> None:
        self._width = value

    @property
    def height(self) -> int:
        """The rows the player's screen shows: SET HEIGHT, else the client's (NAWS), else
        24 (docs/design.md, Screens, principle 1: the acting view fits this)."""
        if self._height:
            return self._height
        window = self._window
        rows = (window.rows if window is not None
                else self.writer.get_extra_info("rows")) or 24
        return max(LEAST_HEIGHT, min(int(rows), 200))

    @height.setter
    def height(self, value: int | None) -> None:
        self._height = value

    @property
    def terminal(self) -> str:
        """The terminal type the client announced (TTYPE), cleaned and bounded: the client
        chose it, and it goes into the log (escapes, NULs or a CR LF there would drive the
        admin's terminal or forge log lines)."""
        term = self.writer.get_extra_info("TERM") or self.writer.get_extra_info("term")
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

    # -- output --------------------------------------------------------------------------
    # Output is queued and flushed once per event-loop turn: an answer, its prompt and the
    # go-ahead leave in one transport write (each write is a system call).

    def write(self, text: str) -> None:
        """Write ``text`` (lines separated by \\n) followed by a line break. Inside a
        command's reply (:meth:`begin_reply`) it goes through the pager."""
        if self._replying:
            self._page(text)
        else:
            self._emit(text)

    def _emit(self, text: str) -> None:
        if self.closed:
            return
        if not self.color:
            text = strip_sgr(text)
        self._send(lay_out(text, self.width).wire)

    def _send(self, wire: str) -> None:
        """Queue ``wire``: text in its telnet form, laid out for this screen, CR LF after
        every line (:class:`server.text.Laid`)."""
        if self._prompted:  # unprompted text after the prompt, before the player typed
            self._prompted = False
            out = self._out
            if out and out[-1] == PROMPT:
                out.pop()  # the prompt is not sent yet: this text first, one prompt after
            else:
                wire = "\r\n" + wire  # the prompt is on the screen: start below it
        self._queue(wire)

    def prompt(self, text: str = PROMPT) -> None:
        """Show a prompt, followed by IAC GA so MUD clients know it is one.

        One prompt after a burst (docs/design.md, Screens, principle 7: never "> >"): the plain prompt is not sent
        again while it is the last thing the player was sent and they have typed nothing
        since. Text written after it (a tell, an opponent's move) takes its place when it
        is still queued, or else starts on a fresh line below it (as Diku MUDs do)."""
        if self.closed:
            return
        if text == PROMPT:
            if self._prompted:
                return
            self._prompted = True
        else:
            self._prompted = False
        self._queue(text)
        self._ga = True

    def _queue(self, text: str) -> None:
        if self._out is None:
            self._out = [text]
        else:
            self._out.append(text)
        if not self._flush_scheduled:
            self._flush_scheduled = True
            _Flushes.of(asyncio.get_running_loop()).add(self)

    def flush(self) -> None:
        """Send what is queued now (the loop calls this once a turn). Once the parlor
        hands over to a new one (a reload), the connection's compression ends first
        (``TelnetProtocol.hand_over``): the next parlor begins plain."""
        self._flush_scheduled = False
        if getattr(self.parlor, "handing_over", False):
            hand_over = getattr(self.protocol, "hand_over", None)
            if hand_over is not None:
                hand_over()
        if not self._out and not self._ga:
            return
        text, self._out = "".join(self._out or ()), None
        ga, self._ga = self._ga, False
        if self.closed and not self._closing:
            return
        writer = self.writer
        try:
            data = writer._escape_iac(writer.encode(text))  # telnetlib3's own encoder/escaper
            if ga and not writer.local_option.enabled(SGA):
                data += IAC + GA
            writer._write(data, escape_iac=False)
        except Exception:  # a dying transport must not take the caller down
            self.closed = True
            return
        self._check_backlog()

    def _check_backlog(self) -> None:
        """Close a connection whose client stopped reading (its queue would grow forever)."""
        transport = getattr(self.writer, "_transport", None)
        if transport is not None and transport.get_write_buffer_size() > MAX_PENDING_OUTPUT:
            self.log.warning("client is not reading; closing")
            self.closed = True
            transport.abort()

    def notify(self, text: str) -> None:
        """An unprompted message (a tell, a move): on its own line, then the prompt again.
        Never held by the pager, even when it arrives during the player's own command."""
        self._emit(text)
        if self.account is not None:
            self.prompt()

    @property
    def gmcp_on(self) -> bool:
        """Whether the client agreed to GMCP: for one that did not, nothing is built or
        sent (and queued text is not flushed early)."""
        writer = self.writer
        local = getattr(writer, "local_option", None)
        if local is None:  # a writer of another kind: its send_gmcp decides
            return True
        remote = getattr(writer, "remote_option", None)
        return bool(local.enabled(GMCP) or (remote is not None and remote.enabled(GMCP)))

    def gmcp(self, package: str, data: Any) -> None:
        if self.closed or not self.gmcp_on:
            return
        self.flush()  # keep the order: text queued before this goes first
        try:
            self.writer.send_gmcp(package, data)
        except Exception:
            self.log.debug("GMCP %s not sent", package, exc_info=True)

    def echo(self, on: bool) -> None:
        """Turn the client's local echo back on (``on``) or off for a password."""
        self.flush()
        self.writer.iac(WONT if on else WILL, ECHO)

    # -- the pager -----------------------------------------------------------------------
    # A command's own reply (what it writes between begin_reply and end_reply: the
    # registry's dispatch) that is taller than the screen stops after a page with
    # MORE_LINE; Enter or MORE shows the next page (read_line), any other command drops
    # the rest. Notices (notify) are never held.

    def begin_reply(self) -> None:
        """A command starts: what it writes is paged; what an earlier one held is dropped."""
        self._held = ()
        self._dropped = 0
        self._rows = 0
        self._replying = True

    def end_reply(self) -> None:
        """The command is done: the rest of its reply if it fits, else the pager line."""
        self._replying = False
        if not self._held:
            return
        room = self.height - 1  # the prompt's row left; a held line takes a row or more
        if not self._dropped and self._rows + len(self._held) <= room and \
                self._rows + sum(self._rows_of(line) for line in self._held) <= room:
            held, self._held = self._held, ()  # it fits after all (the prompt's row left)
            self._emit("\n".join(held))
            return
        self._emit(MORE_LINE.format(left=len(self._held) + self._dropped))

    @property
    def paging(self) -> bool:
        """Whether lines wait for MORE."""
        return bool(self._held)

    def more(self) -> bool:
        """Show the next page of what the pager holds; False when it holds nothing."""
        if not self._held:
            return False
        held, dropped = self._held, self._dropped
        self.begin_reply()
        self._page("\n".join(held))
        self._dropped = dropped
        self.end_reply()
        if not self._held and self._dropped:
            self._emit(f"({self._dropped} more lines were too many to keep.)")
            self._dropped = 0
        return True

    def _rows_of(self, line: str) -> int:
        return max(1, -(-visible_len(line) // self.width))

    def _page(self, text: str) -> None:
        # Laid out for the width, every line takes one row: the reply's rows are its
        # lines. A reply that fits in what is left of the page (most replies) goes out
        # whole, in the telnet form it was laid out in; only a taller one is cut into the
        # page shown and the lines held. The client's height is asked for only when the
        # least it can be (SET HEIGHT, else LEAST_HEIGHT) does not settle it. Colour is
        # stripped after the layout (a line that fits still fits without it).
        laid = lay_out(text, self.width)
        if self._held:
            shown, rest = 0, laid.lines
        else:
            count = laid.rows
            # a row for the pager line and one for the prompt
            if count <= (self._height or LEAST_HEIGHT) - 2 - self._rows or \
                    count <= self.height - 2 - self._rows:
                self._rows += count
                self._emit_fitted(laid.wire)
                return
            shown = max(0, self.height - 2 - self._rows)
            self._rows += shown
            rest = laid.lines[shown:]
        keep = MAX_HELD_LINES - len(self._held)
        self._held = [*self._held, *rest[:keep]]
        self._dropped += max(0, len(rest) - keep)
        if shown:
            self._emit_fitted(laid.head(shown))

    def _emit_fitted(self, wire: str) -> None:
        """Send ``wire``, text laid out for this width already (its telnet form): every
        line fits, and stays so once colour codes are removed."""
        if self.closed:
            return
        self._send(wire if self.color else strip_sgr(wire))

    # -- input ---------------------------------------------------------------------------
    def logged_in(self) -> None:
        """The player is in: no pre-login byte budget any more, the idle clock starts."""
        if self.protocol is not None:
            self.protocol.logged_in = True
        self.login_limiter = None  # (only the login reads it)
        self.last_command_at = time.time()

    def connection_lost(self) -> None:
        """The socket is gone: what the player typed but was not yet read dies with it
        (no command runs after its sender has left)."""
        self.closed = True
        self._lines = None
        self._buffer = ""

    def drop_input(self) -> None:
        """Forget what the player sent and was not yet served (a flood): the lines read,
        and what the telnet reader holds, without splitting or cleaning any of it. The
        rest of a line cut in two here is dropped with it."""
        partial = bool(self._buffer)
        self._lines = None
        self._buffer = ""
        discard = getattr(self.reader, "discard", None)
        dropped = discard() if discard is not None else None
        self._skip_partial = partial if dropped is None else dropped

    async def read_line(self) -> str:
        """The next line, without its ending, cleaned of control characters.

        The socket is read only when every line read before has been taken, so a
        session is read no faster than it is served (the telnet reader pauses the socket
        while it holds too much). Lines longer than ``max_line`` are refused with one
        message and dropped whole.
        :raises Disconnect: at end of input.
        """
        limit = self.parlor.config.server.max_line
        if self.closed:
            raise Disconnect("closed")
        waited = False
        while not self._lines:
            waited = True
            try:
                chunk = await self.reader.read(4096)
            except (OSError, asyncio.IncompleteReadError) as err:
                # a reset, or a dead peer found by keepalive (ETIMEDOUT is a TimeoutError)
                raise Disconnect(str(err)) from None
            if not chunk or self.closed:
                raise Disconnect("end of input")
            self._feed(chunk, limit)
        if waited:  # the player's Enter moved them past the last prompt; a line typed
            # ahead (or during a restart's gap) was typed before it: its answer goes below
            self._prompted = False
        line = self.next_line()
        if self._held:  # the pager waits: Enter or MORE turns the page, anything else stops
            if not line or line.lower() == "more":
                self.more()
                return ""
            self._held = ()
            self._dropped = 0
        return line

    def next_line(self) -> str:
        """Take the oldest line read, cleaned (lines are cleaned only when taken: a
        flood's lines are dropped unread)."""
        lines = self._lines
        assert lines, "no line waits"
        line = lines.popleft()
        if not lines:
            self._lines = None
        return clean(line).strip()

    def carry_in(self, text: str) -> None:
        """What the player typed that the parlor before this one had not run yet: it
        runs first, as if just read (a reload's hand-over, server/holder)."""
        if text:
            self._feed(text, self.parlor.config.server.max_line)

    def on_a_prompt(self) -> None:
        """The player's screen ends with a prompt this session did not send (the parlor
        before this one did): what comes next starts on a line of its own."""
        self._prompted = True

    def unread_line(self, line: str) -> None:
        """Put back a line taken but not run (a hand-over began while it was read)."""
        if self._lines is None:
            self._lines = deque()
        self._lines.appendleft(line)

    def unread(self) -> str:
        """Everything typed and not run yet, as typed (for the next parlor)."""
        lines = "".join(f"{line}\n" for line in self._lines or ())
        buffered = getattr(self.reader, "_buffer", b"")
        return lines + self._buffer + bytes(buffered).decode("utf-8", errors="replace")

    def _feed(self, chunk: str, limit: int) -> None:
        if self._after_cr and chunk.startswith("\n"):
            chunk = chunk[1:]  # a CR LF split over two reads is one line end, not two
        self._after_cr = chunk.endswith("\r")
        data = self._buffer + chunk.replace("\r\n", "\n").replace("\r\x00", "\n").replace("\r", "\n")
        *complete, self._buffer = data.split("\n")
        if self._skip_partial and complete:
            self._skip_partial = False
            del complete[0]
        for line in complete:
            if len(line) > limit:
                self.write(f"That line is too long (over {limit} characters); it was ignored.")
                continue
            if self._lines is None:
                self._lines = deque()
            self._lines.append(line)
        if len(self._buffer) > limit:
            # an unterminated line past the limit: not a player typing; stop reading
            self._buffer = ""
            self.log.warning("unterminated line over %d characters; closing", limit)
            self.close(f"That line is too long (over {limit} characters); goodbye.")

    async def ask(self, question: str, *, secret: bool = False) -> str:
        """Prompt and read one non-empty line (or an empty one if the player just hits enter)."""
        if secret:
            self.echo(False)
        self.prompt(question)
        try:
            line = await self.read_line()
        finally:
            if secret:
                self.echo(True)
                self.write("")
        return line

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
        if data.get("from") in self.ignoring and event.kind in ("say", "tell", "chat", "emote"):
            return
        if self.account is not None and data.get("exclude") == self.account.id:
            return  # one's own say or arrival (by account: session numbers are per node)
        if event.kind.startswith("game."):
            self.parlor.presentation.on_event(self, event)
            return
        if event.kind == "room.changed":
            return
        if event.kind == "status":  # for the client's status bar (docs/gmcp.md)
            if self.gmcp_on:
                self.gmcp("Char.Status", data)
            return
        text = data.get("text")
        if text:
            if event.kind == "tell" and self.account is not None:
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
            self.writer.close()
        except Exception:
            pass

    def offer_mud_protocols(self, late: bool = False) -> None:
        """Offer GMCP and MSSP; MSSP data goes out once the client agrees. A client that
        has not answered the telnet options asked at connect is offered nothing yet: nc
        never answers, and would print the option bytes (MSSP's is "F"); one that answers
        later is offered them then (``late``: its answer came, and nothing was offered)."""
        writer = self.writer
        if self.closed or not late and getattr(writer, "pending_option", {}).get(DO + TTYPE):
            return
        if late and (writer.pending_option.get(WILL + GMCP)
                     or writer.local_option.get(GMCP) is not None):
            return  # offered already (or carried on with it agreed)
        try:
            writer.iac(WILL, GMCP)
            writer.iac(WILL, MSSP)
            if not hasattr(self.protocol, "on_gmcp"):  # telnet's protocol wires its own
                writer.set_ext_callback(GMCP, self.on_gmcp)
        except Exception:
            self.log.debug("could not offer MUD protocols", exc_info=True)
            return
        local = getattr(writer, "local_option", None)
        if local is not None and local.enabled(MSSP):  # the client agreed before it was
            self.agreed(MSSP)                            # offered (MUD clients ask first)

    def agreed(self, option: bytes) -> None:
        """The client agreed to an option offered: MSSP's data goes out then; GMCP agreed
        only after login (the client answered late) gets what a login sends."""
        if self.closed:
            return
        if option == MSSP:
            try:
                self.writer.send_mssp(self.parlor.mssp())
            except Exception:
                self.log.debug("MSSP not sent", exc_info=True)
        elif option == GMCP and self.account is not None and self.logged_in_at:
            self.parlor.greet_by_gmcp(self)

    def on_gmcp(self, package: str, data: Any) -> None:
        verb = str(package).lower()
        if verb in SUPPORTS and isinstance(data, list):
            # "Esterport.Spoken 1": game views carry their screen-reader lines too;
            # Set replaces the list, Add (a Mudlet package's own) and Remove change it
            named = frozenset(str(item).split()[0].lower() for item in data[:MAX_SUPPORTS]
                              if str(item).strip())
            if verb == "core.supports.set":
                self.gmcp_supports = shared_supports(named)
            elif verb == "core.supports.add":
                if len(self.gmcp_supports | named) <= MAX_SUPPORTS:  # past it: ignored
                    self.gmcp_supports = shared_supports(self.gmcp_supports | named)
            else:
                self.gmcp_supports = shared_supports(self.gmcp_supports - named)
            if "esterport.resume" in self.gmcp_supports and self.logged_in_at \
                    and self.account is not None and not self.resume_digest:
                self.parlor.issue_resume_token(self)  # declared only after login
        elif str(package).lower() == "core.hello" and isinstance(data, dict):
            self.client_name = clean(f"{data.get('client', '')} {data.get('version', '')}",
                                     max_len=60).strip() or None

