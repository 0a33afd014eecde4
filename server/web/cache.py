"""Responses made once and sent as the same bytes to every reader.

The web door's public pages are the same for everyone, and 50 readers of ``/`` once
drew it 50 times over in the players' event loop (500 µs of CPU a page), so telnet
answers and live boards waited half a second behind them. Here a page is drawn once per
change and kept as a :class:`Copy`: its bytes, their gzip'd twin (made the first time a
browser asks for it) and an ETag for each, so a reader is sent the copy and a browser
that already holds it is told 304.

:class:`PageCache` decides when a copy is stale: when the cheap ``version`` its page
gives (the games in play, how many are online ...) differs from the copy's, or when the
copy is older than the page allows (:data:`REDRAW` seconds for pages that show what has
no event here, as a game's moves or a player's idle time: the same bound as a live
page's redrawing, ``server/web/live.py``). Readers who find it stale together share one
drawing.

:class:`Statics` serves ``server/web/static``: each file read and gzip'd once at start,
its address carrying a digest of its content (``static('play.js')`` is
``/static/play.js?v=<digest>``) so a browser keeps it for a year without asking again and
a new version has a new address; asked for without it, a file is sent to be revalidated
each time (``no-cache``: 304 while it has not changed). A game's own scripts and styles
(its /play pane) are served from its web folder in the same way, as
``/static/games/<key>/...``.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import mimetypes
import time
from pathlib import Path
from typing import Any, Awaitable, Callable, Hashable, Mapping

import attrs
from starlette.requests import Request
from starlette.responses import Response

from server.web.live import REDRAW
from server.web.negotiation import accepts_gzip, matches

MOST = 1024          # copies kept (past it, all are forgotten and drawn again)
MIN_GZIP = 512       # bytes below which a body is not worth compressing
GZIP_LEVEL = 6
COMPRESSED = ("text/", "application/json", "application/javascript", "image/svg+xml")
FOREVER = "public, max-age=31536000, immutable"   # a static file at its digest's address
REVALIDATE = "no-cache"                             # anything else: ask with the ETag
# what a game's web folder may bring to the browser beside its templates
GAME_ASSETS = (".js", ".css", ".svg", ".png", ".webp")


@attrs.define
class Copy:
    """One response's body as bytes, with its media type and ETag; its gzip'd twin is
    made the first time a reader asks for it, and has an ETag of its own (another
    representation, another tag)."""

    body: bytes
    media_type: str
    tag: str = ""
    _gzipped: bytes | None = None

    def __attrs_post_init__(self) -> None:
        if not self.tag:
            self.tag = '"' + hashlib.blake2b(self.body, digest_size=9).hexdigest() + '"'

    @property
    def compressible(self) -> bool:
        return len(self.body) >= MIN_GZIP and self.media_type.startswith(COMPRESSED)

    def gzipped(self) -> bytes | None:
        """The body gzip'd (once), or None when compressing it does not pay."""
        if not self.compressible:
            return None
        if self._gzipped is None:
            packed = gzip.compress(self.body, GZIP_LEVEL, mtime=0)
            self._gzipped = packed if len(packed) < len(self.body) else b""
        return self._gzipped or None

    def response(self, request: Request, cache_control: str = REVALIDATE,
                 status: int = 200) -> Response:
        """The copy as ``request`` takes it: gzip'd when it asks for gzip (and that
        pays), 304 without a body when it holds this very representation already."""
        headers = {"cache-control": cache_control}
        body, tag = self.body, self.tag
        if self.compressible:
            headers["vary"] = "Accept-Encoding"
            packed = self.gzipped() if accepts_gzip(
                request.headers.get("accept-encoding", "")) else None
            if packed is not None:
                body, tag = packed, self.tag[:-1] + '-gz"'
                headers["content-encoding"] = "gzip"
        headers["etag"] = tag
        if status == 200 and matches(request.headers.get("if-none-match"), tag):
            headers.pop("content-encoding", None)
            return Response(status_code=304, headers=headers)
        return Response(body, status_code=status, media_type=self.media_type,
                        headers=headers)


@attrs.define
class _Kept:
    version: Hashable
    at: float                       # time.monotonic() the drawing began
    drawing: "asyncio.Future[Copy]"


class PageCache:
    """Copies of pages, by key: drawn again when the page's version has changed or the
    copy is older than the page allows; readers of a page being drawn wait for that
    drawing, so many readers of one change make one."""

    def __init__(self, most: int = MOST) -> None:
        self.most = most
        self.kept: dict[Hashable, _Kept] = {}
        self.drawings = 0           # made since the start (the tests count them)

    def forget(self) -> None:
        self.kept.clear()

    async def get(self, key: Hashable, version: Hashable,
                  draw: Callable[[], Awaitable[Copy]], max_age: float = REDRAW) -> Copy:
        """The copy of page ``key`` at ``version``, drawn by ``draw()`` unless a fresh one
        is kept or being made. An exception of ``draw`` reaches every reader waiting
        for it, and the next reader draws afresh."""
        now = time.monotonic()
        kept = self.kept.get(key)
        if kept is not None and kept.version == version and now - kept.at < max_age:
            if kept.drawing.done() and not kept.drawing.cancelled() \
                    and kept.drawing.exception() is None:
                return kept.drawing.result()
            if not kept.drawing.done():
                return await asyncio.shield(kept.drawing)
        if len(self.kept) >= self.most:
            self.kept.clear()
        self.drawings += 1
        kept = self.kept[key] = _Kept(version, now, asyncio.ensure_future(draw()))
        kept.drawing.add_done_callback(lambda done: self._drawn(key, kept))
        return await asyncio.shield(kept.drawing)

    def _drawn(self, key: Hashable, kept: _Kept) -> None:
        """A drawing ended: one that failed is not kept (its exception is seen here)."""
        if kept.drawing.cancelled() or kept.drawing.exception() is not None:
            if self.kept.get(key) is kept:
                del self.kept[key]


class Statics:
    """The files of ``folder`` (``server/web/static``), read and gzip'd once, served
    with ETags; at ``static(name)``'s address (its digest as ``?v=``) for a year.

    ``games`` adds each game's web folder (key -> folder): its scripts, styles and
    images (:data:`GAME_ASSETS`; not its templates) as ``games/<key>/<name>``, served
    the same way, so a game brings its browser pane from its own folder."""

    def __init__(self, folder: Path, games: Mapping[str, Path] | None = None) -> None:
        self.files: dict[str, Copy] = {}
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.name.startswith("."):
                self._add(path.relative_to(folder).as_posix(), path)
        for key, own in (games or {}).items():
            for path in sorted(own.rglob("*")) if own.is_dir() else ():
                if path.is_file() and path.suffix in GAME_ASSETS \
                        and not path.name.startswith("."):
                    self._add(f"games/{key}/{path.relative_to(own).as_posix()}", path)

    def _add(self, name: str, path: Path) -> None:
        media = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        if media.startswith("text/") or media == "application/javascript":
            media = ("text/javascript" if media.endswith("javascript") else media) \
                + "; charset=utf-8"
        copy = Copy(path.read_bytes(), media)
        copy.gzipped()   # at start, not at the first reader's expense
        self.files[name] = copy

    def digest(self, name: str) -> str:
        return self.files[name].tag.strip('"')[:12]

    def url(self, name: str) -> str:
        """The address of static file ``name`` that a browser may keep for a year.

        :raises KeyError: there is no such file (a template names one that is not
            there: better seen at once than as a 404 in a browser)."""
        return f"/static/{name}?v={self.digest(name)}"

    def find(self, name: str) -> str | None:
        """``url(name)``, or None when there is no such file (a game without a pane of
        its own)."""
        return self.url(name) if name in self.files else None

    def response(self, request: Request, name: str) -> Response | None:
        """File ``name`` as ``request`` takes it; None when there is no such file."""
        copy = self.files.get(name)
        if copy is None:
            return None
        forever = request.query_params.get("v") == self.digest(name)
        return copy.response(request, FOREVER if forever else REVALIDATE)


def json_copy(content: Any) -> Copy:
    """``content`` as JSON bytes, exactly as Starlette's JSONResponse would send them."""
    from starlette.responses import JSONResponse

    return Copy(JSONResponse(content).body, "application/json")


def html_copy(text: str) -> Copy:
    return Copy(text.encode(), "text/html; charset=utf-8")
