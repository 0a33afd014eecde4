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
so; reloading it follows the game again), and one address holds at most ``[web]
streams_per_address`` of all kinds (429 past it). Read-only: nothing a page sends reaches
the game.

The seeks, the tournaments and one tournament stream alike (``/seeks/events``,
``/tournaments/events``, ``/tournaments/<n>/events``): each page is drawn once per change,
at most every :data:`REDRAW` seconds, and every stream of it is sent the same bytes
(:class:`LivePage`). A game's board is likewise drawn once per version (``Pages.board_html``).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter
from typing import TYPE_CHECKING, AsyncIterator, Awaitable, Callable, Hashable, Protocol

import attrs

from server.bus import Event
from server.frames import Frame, OtherSchema, heard
from server.text import clean

if TYPE_CHECKING:
    from server.bus import Bus
    from server.config import Config

log = logging.getLogger(__name__)

MAX_LINES = 200      # lines kept for a stream that has not read them yet
KEEPALIVE = 15.0     # seconds between comments on a quiet stream (proxies close idle ones)
REDRAW = 0.25        # seconds between drawings of one live page (changes between: one)
TOO_MANY = "Too many live pages are open from your address; close one and reload."


@attrs.frozen
class Refused:
    """Why a stream may not open, and the status that says so."""

    status: int     # 429: its address holds its share; 503: the page or the parlor is full
    message: str


class Watchers:
    """How many live streams each game (or page), all of them, and each address have
    open, against the caps."""

    def __init__(self, limit: int, most: int, per_address: int = 1 << 30,
                 uncapped: Callable[[str], bool] = lambda address: False) -> None:
        self.limit = limit      # streams of one game
        self.most = most        # streams of all games
        self.per_address = per_address  # streams of one address
        self.uncapped = uncapped  # addresses with no cap of their own (trusted proxies)
        self.open: Counter[Hashable] = Counter()
        self.addresses: Counter[str] = Counter()

    def admit(self, game_id: Hashable, address: str = "", *, bounded: bool = True,
              what: str | None = None) -> Refused | None:
        """Count a new stream of ``game_id`` (or of another page: any key, ``what`` naming
        it) from ``address``; None when it may open, else why not. A stream that is not
        ``bounded`` (a finished game's: one board, then its end) is counted but never
        refused."""
        if bounded and self.addresses[address] >= self.per_address \
                and not self.uncapped(address):
            return Refused(429, TOO_MANY)
        if bounded and self.open[game_id] >= self.limit:
            if what is None:
                return Refused(503, f"Game #{game_id} has as many live watchers as it may; "
                                    "reload the page to see the board now.")
            return Refused(503, f"{what} has as many live watchers as it may; reload the "
                                "page to see it as it stands now.")
        if bounded and self.open.total() >= self.most:
            if what is None:
                return Refused(503, "The parlor has as many live boards open as it may; "
                                    "reload the page to see the board now.")
            return Refused(503, "The parlor has as many live pages open as it may; reload "
                                "the page to see it as it stands now.")
        self.open[game_id] += 1
        self.addresses[address] += 1
        return None

    def leave(self, game_id: Hashable, address: str = "") -> None:
        self.open[game_id] -= 1
        if self.open[game_id] <= 0:
            del self.open[game_id]
        self.addresses[address] -= 1
        if self.addresses[address] <= 0:
            del self.addresses[address]


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


class Broadcast(Protocol):
    """What a live board reads of the parlor: the bus its game's frames come by, and
    the settings (``[web] stream_idle``)."""

    bus: "Bus"
    config: "Config"


class GameStream:
    """One page's subscription to one game, drawn from the watchers' frames the bus
    brings (``Play.publish``, server/services/play.py): the game is read once, when the stream starts
    (``snapshot``: from this node, or the node that drives it), and never again."""

    def __init__(self, parlor: Broadcast, game_id: int,
                 snapshot: Callable[[], Awaitable[Frame | None]],
                 draw: Callable[[Frame], dict], closing: asyncio.Event) -> None:
        self.parlor = parlor
        self.game_id = game_id
        self.snapshot = snapshot
        self.draw = draw          # frame -> {"summary":..., "board": html} (cached by version)
        self.closing = closing
        self.idle = parlor.config.web.stream_idle
        self.changed = asyncio.Event()
        self.frame: Frame | None = None  # the newest the page has not been sent
        self.lines: list[str] = []

    def on_event(self, topic: str, event: Event) -> None:  # noqa: ARG002 - the bus's shape
        if not event.type.startswith("game."):
            return
        try:
            frame = heard(event.data)
        except OtherSchema:
            return  # a node of another release, during a rolling reload
        if self.frame is not None and (frame.epoch, frame.version) < (
                self.frame.epoch, self.frame.version):
            return  # older than what the page has (or from a node that lost the game)
        for line in frame.lines:
            self.lines.append(clean(str(line)))
        del self.lines[:-MAX_LINES]
        self.frame = frame
        self.changed.set()

    def close(self) -> None:
        """The stream ended (or its connection did): hear the game no more."""
        self.parlor.bus.unsubscribe(f"game:{self.game_id}", self.on_event)

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
            if self.frame is None or self.frame.version < first.version:
                self.frame = first
            self.changed.clear()
            yield self._update()
            if self.frame.finished:
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
                if self.frame.finished:
                    yield sse("end", {"reason": "finished"})
                    return
        finally:
            self.parlor.bus.unsubscribe(topic, self.on_event)


class LivePage:
    """A page whose changes are streamed (the seeks, the tournaments, one tournament) as
    every stream of it is sent them: drawn once per change however many follow it, the
    drawing shared as the very bytes of its ``update`` event.

    It listens to its bus topic while it has streams. A change marks it stale and a
    drawing follows, at most one every :data:`REDRAW` seconds: changes that come faster
    (a burst of seeks posted and withdrawn) are drawn together, and the drawing after
    the last change always comes. ``draw`` gives ``(update, final)``, the ``update``
    event's data (the page's changing part as HTML the server escaped, and a one-line
    status) and whether nothing will change after it (a finished tournament); None when
    the page's subject is gone. 300 streams of /seeks once drew it 300 times a change
    and a player's LOOK waited 2.7 s at the median."""

    def __init__(self, bus: "Bus", topic: str, wants: Callable[[Event], bool],
                 draw: Callable[[], Awaitable[tuple[dict, bool] | None]],
                 forget: Callable[["LivePage"], None]) -> None:
        self.bus = bus
        self.topic = topic
        self.wants = wants
        self.draw = draw
        self.forget = forget            # the registry's: this page is not followed any more
        self.streams: set["PageStream"] = set()
        self.version = 0                # drawings made
        self.update: bytes | None = None  # the newest drawing, as its update event
        self.ending: bytes | None = None  # the end event, once nothing will change
        self.broken = False             # a drawing failed: its streams end (and reconnect)
        self.stale = True               # changed since the last drawing
        self.drawn_at = float("-inf")   # loop time the last drawing began
        self._drawing: asyncio.Task | None = None

    def join(self, stream: "PageStream") -> None:
        if not self.streams:
            self.bus.subscribe(self.topic, self.on_event)
        self.streams.add(stream)
        self._soon()

    def leave(self, stream: "PageStream") -> None:
        if stream not in self.streams:
            return
        self.streams.discard(stream)
        if not self.streams:
            self._close()

    def _close(self) -> None:
        self.bus.unsubscribe(self.topic, self.on_event)
        if self._drawing is not None:
            self._drawing.cancel()
        self.forget(self)

    def on_event(self, topic: str, event: Event) -> None:  # noqa: ARG002 - the bus's shape
        if self.wants(event):
            self.stale = True
            self._soon()

    def _soon(self) -> None:
        """Draw the page when it is stale: at once, or when :data:`REDRAW` seconds have
        passed since the last drawing began."""
        if self.stale and self._drawing is None and self.ending is None and not self.broken:
            self._drawing = asyncio.ensure_future(self._redraw())

    async def _redraw(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self.stale and self.ending is None:
                wait = self.drawn_at + REDRAW - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                self.stale = False          # a change from here on is drawn again
                self.drawn_at = loop.time()
                drawn = await self.draw()
                if drawn is None:
                    self.ending = sse("end", {"reason": "gone"}).encode()
                else:
                    update, final = drawn
                    self.update = sse("update", update).encode()
                    if final:
                        self.ending = sse("end", {"reason": "finished"}).encode()
                self.version += 1
                self._tell()
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - its streams end; their pages reconnect
            log.exception("drawing a live page of %r failed", self.topic)
            self.broken = True
            self._drawing = None
            self._tell()
            if self.streams:
                self.streams.clear()
                self._close()
        finally:
            self._drawing = None

    def _tell(self) -> None:
        for stream in self.streams:
            stream.changed.set()


class LivePages:
    """The live pages followed now, by key: one :class:`LivePage` while it has streams."""

    def __init__(self, bus: "Bus") -> None:
        self.bus = bus
        self.pages: dict[Hashable, LivePage] = {}

    def join(self, key: Hashable, topic: str, wants: Callable[[Event], bool],
             draw: Callable[[], Awaitable[tuple[dict, bool] | None]],
             stream: "PageStream") -> LivePage:
        """``stream`` follows the page ``key`` from now on (its topic, what matters of it,
        its drawing: the first stream's are the page's while it is followed)."""
        page = self.pages.get(key)
        if page is None:
            page = self.pages[key] = LivePage(self.bus, topic, wants, draw,
                                              lambda gone: self._forget(key, gone))
        page.join(stream)
        return page

    def _forget(self, key: Hashable, page: LivePage) -> None:
        if self.pages.get(key) is page:
            del self.pages[key]


class PageStream:
    """One page's stream of a :class:`LivePage`: its newest drawing at once (the first
    one when there is none yet), then each new one. A reader slower than the drawings
    skips to the newest, so it holds at most one. Ends as a game's stream does: when no
    drawing came for ``[web] stream_idle`` seconds, or when the door stops."""

    def __init__(self, pages: LivePages, key: Hashable, topic: str,
                 wants: Callable[[Event], bool],
                 draw: Callable[[], Awaitable[tuple[dict, bool] | None]], idle: float,
                 closing: asyncio.Event) -> None:
        self.pages = pages
        self.key = key
        self.topic = topic
        self.wants = wants
        self.draw = draw
        self.idle = idle
        self.closing = closing
        self.changed = asyncio.Event()
        self.page: LivePage | None = None   # the page followed, once the stream has begun

    def close(self) -> None:
        """The stream ended (or its connection did): the page has one stream fewer."""
        if self.page is not None:
            self.page.leave(self)

    async def events(self) -> AsyncIterator[bytes]:
        page = self.page = self.pages.join(self.key, self.topic, self.wants, self.draw, self)
        try:
            loop = asyncio.get_running_loop()
            quiet_until = loop.time() + self.idle
            sent = 0  # the page's drawings this stream has been sent
            while not self.closing.is_set():
                self.changed.clear()
                if page.broken:
                    return
                if page.version > sent:
                    sent = page.version
                    if page.update is not None:
                        yield page.update
                    if page.ending is not None:
                        yield page.ending
                        return
                    quiet_until = loop.time() + self.idle
                    continue
                step = await next_change(self.changed, quiet_until)
                if step == "idle":
                    yield sse("end", {"reason": "idle"}).encode()
                    return
                if step == "keepalive":
                    yield b": still here\n\n"
        finally:
            self.close()
