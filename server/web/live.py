"""Live boards: a game's changes streamed to a page as server-sent events.

A page showing ``/games/<n>`` opens ``/games/<n>/events`` (``text/event-stream``). The
stream subscribes to the bus topic ``game:<n>`` exactly as a telnet watcher's session
does, and for each change sends one ``update`` event drawn from the event alone (its
watchers' frame: the summary, the board as HTML from the view every watcher may see, and
the lines the watchers are told, the same a telnet watcher reads).
Changes that arrive faster than a browser reads are merged (the newest board, every
line up to a bound), so a slow reader costs memory bounded per stream. Streams are
bounded too, since each holds a connection of the door's budget: a game has at most
``[web] watchers_per_game`` open at once, all games together at most ``[web]
max_streams`` (about 2,000 idle ones once left no connection for any other page), and a
stream whose game has not changed for ``[web] stream_idle`` seconds ends (the page says
so; reloading it follows the game again). Read-only: nothing a page sends reaches the
game.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from typing import TYPE_CHECKING, Any, AsyncIterator, Awaitable, Callable, Hashable

from server.bus import Event
from server.text import clean

if TYPE_CHECKING:
    from server.app import Parlor

MAX_LINES = 200      # lines kept for a stream that has not read them yet
KEEPALIVE = 15.0     # seconds between comments on a quiet stream (proxies close idle ones)


class Watchers:
    """How many live streams each game, and all games, have open, against the caps."""

    def __init__(self, limit: int, most: int) -> None:
        self.limit = limit      # streams of one game
        self.most = most        # streams of all games
        self.open: Counter[Hashable] = Counter()

    def admit(self, game_id: Hashable, *, bounded: bool = True, what: str | None = None
              ) -> str | None:
        """Count a new stream of ``game_id`` (or of another page: any key, ``what`` naming
        it); None when it may open, else why not. A stream that is not ``bounded`` (a
        finished game's: one board, then its end) is counted but never refused."""
        if bounded and self.open[game_id] >= self.limit:
            if what is None:
                return (f"Game #{game_id} has as many live watchers as it may; reload the "
                        "page to see the board now.")
            return (f"{what} has as many live watchers as it may; reload the page to see "
                    "it as it stands now.")
        if bounded and self.open.total() >= self.most:
            if what is None:
                return ("The parlor has as many live boards open as it may; reload the page "
                        "to see the board now.")
            return ("The parlor has as many live pages open as it may; reload the page to "
                    "see it as it stands now.")
        self.open[game_id] += 1
        return None

    def leave(self, game_id: Hashable) -> None:
        self.open[game_id] -= 1
        if self.open[game_id] <= 0:
            del self.open[game_id]


def sse(kind: str, data: dict) -> str:
    """One server-sent event (JSON has no raw newlines, so one ``data:`` line)."""
    return f"event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


async def next_change(changed: asyncio.Event, quiet_until: float) -> str:
    """Wait for ``changed``: "change"; or "keepalive" when :data:`KEEPALIVE` seconds pass
    first; or "idle" once nothing has changed until ``quiet_until`` (loop time)."""
    left = quiet_until - asyncio.get_running_loop().time()
    if left <= 0:
        return "idle"
    try:
        await asyncio.wait_for(changed.wait(), min(KEEPALIVE, left))
    except asyncio.TimeoutError:
        return "keepalive" if left > KEEPALIVE else "idle"
    return "change"


class GameStream:
    """One page's subscription to one game, drawn from the watchers' frames the bus
    brings (``GameHost._publish``): the game is read once, when the stream starts
    (``snapshot``: from this node, or the node that drives it), and never again."""

    def __init__(self, parlor: "Parlor", game_id: int,
                 snapshot: Callable[[], Awaitable[dict[str, Any] | None]],
                 draw: Callable[[dict[str, Any]], dict], closing: asyncio.Event) -> None:
        self.parlor = parlor
        self.game_id = game_id
        self.snapshot = snapshot
        self.draw = draw          # frame -> {"summary":..., "board": html} (cached by version)
        self.closing = closing
        self.idle = parlor.config.web.stream_idle
        self.changed = asyncio.Event()
        self.frame: dict[str, Any] | None = None  # the newest the page has not been sent
        self.lines: list[str] = []

    def on_event(self, topic: str, event: Event) -> None:  # noqa: ARG002 - the bus's shape
        if not event.kind.startswith("game."):
            return
        frame = event.data
        if self.frame is not None and (frame.get("epoch", 0), frame["version"]) < (
                self.frame.get("epoch", 0), self.frame["version"]):
            return  # older than what the page has (or from a node that lost the game)
        for line in frame.get("lines", ()):
            self.lines.append(clean(str(line)))
        del self.lines[:-MAX_LINES]
        self.frame = frame
        self.changed.set()

    def _update(self) -> str:
        lines, self.lines = self.lines, []
        return sse("update", {**self.draw(self.frame), "lines": lines})

    async def _next(self, quiet_until: float) -> str:
        return await next_change(self.changed, quiet_until)

    async def events(self) -> AsyncIterator[str]:
        topic = f"game:{self.game_id}"
        self.parlor.bus.subscribe(topic, self.on_event)
        try:
            first = await self.snapshot()
            if first is None:
                yield sse("end", {"reason": "gone"})
                return
            if self.frame is None or self.frame["version"] < first["version"]:
                self.frame = first
            self.changed.clear()
            yield self._update()
            if self.frame["finished"]:
                yield sse("end", {"reason": "finished"})
                return
            loop = asyncio.get_running_loop()
            quiet_until = loop.time() + self.idle
            while not self.closing.is_set():
                step = await self._next(quiet_until)
                if step == "idle":
                    yield sse("end", {"reason": "idle"})
                    return
                if step == "keepalive":
                    yield ": still here\n\n"
                    continue
                self.changed.clear()
                quiet_until = loop.time() + self.idle
                if self.closing.is_set():
                    break
                yield self._update()
                if self.frame["finished"]:
                    yield sse("end", {"reason": "finished"})
                    return
        finally:
            self.parlor.bus.unsubscribe(topic, self.on_event)


class PageStream:
    """One page's subscription to a bus topic whose events say only that something
    changed (``seeks``: a seek added or removed; ``tournaments``: a tournament changed).
    On each change (changes that come faster than it is drawn are merged) the page is
    drawn afresh by ``draw``: ``(update, final)``, the ``update`` event's data (the page's
    changing part as HTML the server escaped, and a one-line status), and whether
    nothing will change after it (a finished tournament); None when the page's subject
    is gone. Ends as a game's stream does: when idle for ``[web] stream_idle`` seconds,
    or when the door stops."""

    def __init__(self, parlor: "Parlor", topic: str, wants: Callable[[Event], bool],
                 draw: Callable[[], Awaitable[tuple[dict, bool] | None]],
                 closing: asyncio.Event) -> None:
        self.parlor = parlor
        self.topic = topic
        self.wants = wants
        self.draw = draw
        self.closing = closing
        self.idle = parlor.config.web.stream_idle
        self.changed = asyncio.Event()

    def on_event(self, topic: str, event: Event) -> None:  # noqa: ARG002 - the bus's shape
        if self.wants(event):
            self.changed.set()

    async def events(self) -> AsyncIterator[str]:
        self.parlor.bus.subscribe(self.topic, self.on_event)
        try:
            loop = asyncio.get_running_loop()
            quiet_until = loop.time() + self.idle
            while True:  # drawn once at the start (what changed since the page was
                self.changed.clear()  # served), then once per change
                drawn = await self.draw()
                if drawn is None:
                    yield sse("end", {"reason": "gone"})
                    return
                update, final = drawn
                yield sse("update", update)
                if final:
                    yield sse("end", {"reason": "finished"})
                    return
                while True:
                    if self.closing.is_set():
                        return
                    step = await next_change(self.changed, quiet_until)
                    if step == "idle":
                        yield sse("end", {"reason": "idle"})
                        return
                    if step == "keepalive":
                        yield ": still here\n\n"
                        continue
                    break
                if self.closing.is_set():
                    return
                quiet_until = loop.time() + self.idle
        finally:
            self.parlor.bus.unsubscribe(self.topic, self.on_event)
