"""What a session sends: text laid out for the player's screen, one prompt after a burst,
one write a turn, and the pager that holds a reply taller than the screen for MORE."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from server.text import lay_out, strip_sgr, visible_len

if TYPE_CHECKING:
    from server.services.accounts import Member
    from server.terminal import Terminal

PROMPT = "> "
LEAST_WIDTH, LEAST_HEIGHT = 40, 10  # a client's window (NAWS) is taken as at least this
MAX_PENDING_OUTPUT = 1 << 20  # bytes queued for a client that does not read: then we give up
MAX_HELD_LINES = 2000  # lines of one reply the pager keeps for MORE; the rest is dropped
MORE_LINE = "-- More: {left} lines left. Enter or MORE: next page; anything else: stop --"


class _Flushes:
    """The sessions that have output queued in this turn of the loop, flushed in the
    next turn by one callback, in the order they queued it: one wake-up of the loop for
    every reply of the turn, not one each."""

    __slots__ = ("loop", "sessions")
    current: "_Flushes | None" = None  # the running loop's (one loop at a time)

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.sessions: list[Output] = []

    @classmethod
    def of(cls, loop: asyncio.AbstractEventLoop) -> "_Flushes":
        flushes = cls.current
        if flushes is None or flushes.loop is not loop:
            flushes = cls.current = cls(loop)
        return flushes

    def add(self, session: "Output") -> None:
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


class Output:
    """A session's output (a part of :class:`~server.session.Session`, whose slots hold
    its state). Output is queued and flushed once per event-loop turn: an answer, its
    prompt and the go-ahead leave in one transport write (each write is a system call)."""

    __slots__ = ()
    parlor: object  # read for ``handing_over`` alone, when it has one
    terminal: "Terminal"
    account: "Member | None"
    closed: bool
    color: bool
    log: logging.LoggerAdapter
    _width: int | None
    _height: int | None
    _out: list[str] | None
    _ga: bool
    _prompted: bool
    _flush_scheduled: bool
    _closing: bool
    _replying: bool
    _rows: int
    _held: Sequence[str]
    _dropped: int

    # -- the player's screen ---------------------------------------------------------------
    @property
    def width(self) -> int:
        if self._width:
            return self._width
        cols = self.terminal.cols or 80
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
        rows = self.terminal.rows or 24
        return max(LEAST_HEIGHT, min(int(rows), 200))

    @height.setter
    def height(self, value: int | None) -> None:
        self._height = value

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
        hands over to a new one (a reload), the terminal is told first
        (``Terminal.hand_over``: a compressed stream ends, and the next parlor begins
        plain)."""
        self._flush_scheduled = False
        if getattr(self.parlor, "handing_over", False):
            self.terminal.hand_over()
        if not self._out and not self._ga:
            return
        text, self._out = "".join(self._out or ()), None
        ga, self._ga = self._ga, False
        if self.closed and not self._closing:
            return
        try:
            self.terminal.send(text, go_ahead=ga)
        except Exception:  # a dying transport must not take the caller down
            self.closed = True
            return
        self._check_backlog()

    def _check_backlog(self) -> None:
        """Close a connection whose client stopped reading (its queue would grow forever)."""
        if self.terminal.backlog > MAX_PENDING_OUTPUT:
            self.log.warning("client is not reading; closing")
            self.closed = True
            self.terminal.abort()

    def notify(self, text: str) -> None:
        """An unprompted message (a tell, a move): on its own line, then the prompt again.
        Never held by the pager, even when it arrives during the player's own command."""
        self._emit(text)
        if self.account is not None:
            self.prompt()

    def echo(self, on: bool) -> None:
        """Turn the client's local echo back on (``on``) or off for a password."""
        self.flush()
        self.terminal.echo(on)

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
