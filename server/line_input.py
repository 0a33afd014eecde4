"""What a session reads: bounded lines, cleaned when taken, read from the socket no
faster than they are served; a reply's pager turned by Enter or MORE."""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from typing import TYPE_CHECKING, Any, Callable, Protocol

from server.text import clean

if TYPE_CHECKING:
    from server.config import Config
    from server.terminal import Terminal


class Limits(Protocol):
    """What a session's input reads of its parlor: the settings (``[server] max_line``)."""

    config: "Config"


class Disconnect(Exception):
    """The connection is gone (EOF, reset, kicked, taken over)."""


class LineInput:
    """A session's input (a part of :class:`~server.session.Session`, whose slots hold
    its state)."""

    __slots__ = ()
    parlor: Limits
    terminal: "Terminal"
    closed: bool
    log: logging.LoggerAdapter
    _buffer: str
    _lines: "deque[str] | None"
    _skip_partial: bool
    _after_cr: bool
    _prompted: bool

    def connection_lost(self) -> None:
        """The socket is gone: what the player typed but was not yet read dies with it
        (no command runs after its sender has left)."""
        self.closed = True
        self._lines = None
        self._buffer = ""

    def drop_input(self) -> None:
        """Forget what the player sent and was not yet served (a flood): the lines read,
        and what the terminal holds unread, without splitting or cleaning any of it. The
        rest of a line cut in two here is dropped with it."""
        partial = bool(self._buffer)
        self._lines = None
        self._buffer = ""
        dropped = self.terminal.discard()
        self._skip_partial = partial if dropped is None else dropped

    def wait_for_input(self, wake: Callable[[Any], None]) -> bool:
        """Whether the session can wait for its next line with no task: no line read waits
        to be taken and nothing received waits to be read, and the terminal calls
        ``wake(session)`` once input (or its end) arrives. An idle session then keeps
        neither a task nor a chain of suspended coroutines (about 1.5 KB)."""
        return not self._lines and self.terminal.when_input(wake)

    async def read_line(self) -> str:
        """The next line, without its ending, cleaned of control characters.

        The socket is read only when every line read before has been taken, so a
        session is read no faster than it is served (the terminal pauses the socket while
        it holds too much). Lines longer than ``max_line`` are refused with one
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
                chunk = await self.terminal.read()
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
        return lines + self._buffer + self.terminal.unread().decode("utf-8", errors="replace")

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
