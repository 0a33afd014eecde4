"""The web door's routes: an explicit list, one small handler each.

Pages (HTML, server-rendered, readable without JavaScript) and their JSON twins under
``/api/`` are drawn from the same dicts (``server/web/data.py``). Every response gets
a strict Content-Security-Policy (scripts and styles only from ``/static/``), so even a
template mistake could not run a player's text as script.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any, AsyncIterator, Awaitable, Callable, Iterable, Protocol

import jinja2
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route, WebSocketRoute
from starlette.types import ASGIApp, Receive, Scope, Send

from server.bus import Event
from server.frames import Frame
from server.mudlet import PATH as MUDLET_PATH
from server.services import seeks as seeks_service
from server.services import tournaments as tournaments_service
from server.services.games import GameError
from server.services.live import GameUnreachable
from server.text import clean
from server.web import data
from server.web.cache import Copy, PageCache, Statics, html_copy, json_copy
from server.web.live import (REDRAW, Broadcast, GameStream, LivePages, PageStream, Refused,
                             Watchers)
from server.web.play import SUBPROTOCOL, Entrance, Shell, play

if TYPE_CHECKING:
    from server.changes import Changes
    from server.hosting import GameKind, WebPage
    from server.mudlet import MudletPackage

log = logging.getLogger(__name__)

HEADERS = {
    "content-security-policy": "default-src 'self'; script-src 'self'; style-src 'self'; "
                               "img-src 'self' data:; connect-src 'self'; "
                               "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}
MAX_NAME = 40        # longest name looked up (accounts are at most 20 characters)
MAX_GAME = 2**31 - 1  # game numbers past this are not looked up
BOARD_CACHE = 512    # boards (and game pages) drawn, kept by (game, version)
TOURNAMENT_CACHE = 5.0  # seconds a tournament read is kept (a bus event ends it sooner)
MAX_TOURNAMENT = 2**31 - 1
RETRY_AFTER = 5      # seconds a client waits for a game whose node is being replaced
STATIC = Path(__file__).parent / "static"
TEMPLATES = Path(__file__).parent / "templates"
FAVICON = (STATIC / "favicon.svg").read_bytes()


class Shown(data.Sources, Broadcast, Shell, Protocol):
    """The parlor as the door's app reads it: what its pages' data is read from
    (``data.Sources``), what its live boards read (``live.Broadcast``) and what /play
    reads (``play.Shell``), and the count of changes to what its pages show."""

    changes: Changes


class Door(Entrance, Protocol):
    """The web door as its app reads it (``WebDoor`` in server/web/door.py, which
    builds its app): what /play reads (``play.Entrance``: ``build_app`` hands it the door),
    the parlor as its pages read it, the Mudlet package it serves, and the live streams
    it counts and who watches them."""

    @property
    def parlor(self) -> Shown: ...

    mudlet: "MudletPackage"
    streams: set[GameStream | PageStream]
    watchers: Watchers


def whole_number(text: str, digits: int) -> int | None:
    """``text`` as a whole number when it is 1 to ``digits`` ASCII digits, else None.

    Not ``str.isdigit`` alone: it says yes to '²' and '①', which ``int`` refuses; and
    ``int`` refuses more than 4,300 digits. Both were answered 500."""
    if 0 < len(text) <= digits and text.isascii() and text.isdigit():
        return int(text)
    return None


class LiveResponse(StreamingResponse):
    """A live stream's response (``text/event-stream``, never cached). ``release`` runs
    once it is over however it ends: its events ran out, the client went away (the
    stream is cancelled, perhaps before its first event), or the door stopped; so what
    it was counted against (its page, its address) is always given back."""

    def __init__(self, events: AsyncIterator[Any], release: Callable[[], None]) -> None:
        super().__init__(events, media_type="text/event-stream",
                         headers={"cache-control": "no-store"})
        self.release = release

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.release()


class SecurityHeaders:
    """Adds :data:`HEADERS` to every HTTP response."""

    RAW = [(k.encode(), v.encode()) for k, v in HEADERS.items()]  # encoded once

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message: dict) -> None:
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", ()), *self.RAW]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, sending)


def _printable(value: Any) -> Any:
    """Every value a template prints: a string loses control characters and escape
    sequences (as on a telnet screen); markup the door drew itself stays as it is."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return clean(value)
    return value


def _points(value: Any) -> str:
    """A score or tie-break as the telnet table prints it: 2, 2.5, 0."""
    return f"{value:g}" if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else str(value)


def game_folders(kinds: Iterable["GameKind"]) -> dict[str, Path]:
    """Each game's web folder, by key: the folder its kind names
    (``GameKind.web_templates``: a plugin's, beside its module), else the door's
    ``templates/games/<key>/``. It holds the game's templates (``board.html``) and what
    its browser pane is made of (``pane.js``, ``pane.css``), each optional."""
    return {kind.key: Path(kind.web_templates) if kind.web_templates
            else TEMPLATES / "games" / kind.key for kind in kinds}


def _environment(kinds: Iterable["GameKind"] = (), statics: Statics | None = None
                 ) -> jinja2.Environment:
    """The templates: the door's own (``templates/``, a game's under ``games/<key>/``),
    and those in the folder a game names for them instead (``GameKind.web_templates``),
    as ``games/<key>/...`` too. ``static('play.js')`` in a template is the file's address
    that a browser keeps (``Statics.url``); ``game_style(key)`` is the address of a game's
    styles (its ``pane.css``), or "" when it has none."""
    theirs = {kind.key: jinja2.FileSystemLoader(kind.web_templates)
              for kind in kinds if kind.web_templates}
    loader = jinja2.ChoiceLoader([jinja2.PrefixLoader({"games": jinja2.PrefixLoader(theirs)}),
                                  jinja2.PackageLoader("server.web", "templates")])
    # auto_reload off: templates change only with the code, which a reload loads in a new
    # process; on, every page drawn stats again each template it uses (a game's: three)
    env = jinja2.Environment(loader=loader, autoescape=True, trim_blocks=True,
                             lstrip_blocks=True, undefined=jinja2.StrictUndefined,
                             finalize=_printable, auto_reload=False)
    env.filters["points"] = _points
    statics = statics or Statics(STATIC)
    env.globals["static"] = statics.url
    env.globals["game_style"] = lambda key: statics.find(f"games/{key}/pane.css") or ""
    return env


class Pages:
    """The handlers, bound to one door."""

    def __init__(self, door: Door) -> None:
        self.door = door
        self.parlor = door.parlor
        kinds = list(self.parlor.host.kinds.values())
        # /static/... and each game's pane (/static/games/<key>/...), read and gzip'd once
        self.statics = Statics(STATIC, game_folders(kinds))
        self.env = _environment(kinds, self.statics)
        self.added: list["WebPage"] = [page for kind in kinds for page in kind.web_pages()]
        self.boards: dict[tuple[int, int, bool], str] = {}
        # the public pages as drawn, sent to every reader until what they show changes
        self.cache = PageCache()
        self.seeks_changes = 0               # the bus's seek events heard, a version
        self.parlor.bus.subscribe(seeks_service.TOPIC, self._seeks_changed)
        # tournaments as read, by number ("list": /tournaments): (generation, when, data);
        # a generation is bumped by each of the bus's "tournament.changed", so many
        # readers of one change read the database once
        self.generations: Counter = Counter()
        self.tournament_reads: dict[Any, tuple[int, float, asyncio.Future]] = {}
        self.parlor.bus.subscribe(tournaments_service.TOPIC, self._tournament_changed)
        self.live_pages = LivePages(self.parlor.bus)  # /seeks, /tournaments[/<n>] followed

    def close(self) -> None:
        """The door stops: hear the bus no more."""
        self.parlor.bus.unsubscribe(tournaments_service.TOPIC, self._tournament_changed)
        self.parlor.bus.unsubscribe(seeks_service.TOPIC, self._seeks_changed)
        self.cache.forget()

    def _seeks_changed(self, topic: str, event: Event) -> None:  # noqa: ARG002
        self.seeks_changes += 1
        self.parlor.changes()

    async def cached(self, request: Request, key: Any, version: Any,
                     draw: Callable[[], Awaitable[Copy]], max_age: float = math.inf
                     ) -> Response:
        """The copy of page ``key`` (``PageCache``: drawn again when ``version`` changes
        or it is ``max_age`` seconds old), as ``request`` takes it (gzip, 304).

        The web door's front may keep the answer for ``max_age`` seconds too, while the
        parlor's count of changes (server/changes.py) stays as it was: the request's
        state says so (``keep``, read by ``server/web/front_link.py``)."""
        copy = await self.cache.get(key, version, draw, max_age)
        request.state.keep = max_age
        return copy.response(request)

    def _in_play(self) -> tuple:
        """What lists of the games in play change with at once: the games this node
        drives (the rest, their moves and the other nodes' games, within REDRAW)."""
        return tuple(self.parlor.host.live)

    # -- helpers ---------------------------------------------------------------------------
    def render(self, template: str, **context: Any) -> str:
        return self.env.get_template(template).render(
            server_name=self.parlor.config.server.name, kinds=data.kinds(self.parlor),
            pages=[{"path": p.path, "title": p.title} for p in self.added], **context)

    def page(self, template: str, status: int = 200, **context: Any) -> HTMLResponse:
        return HTMLResponse(self.render(template, **context), status_code=status)

    async def bounded(self, work: Awaitable[Any]) -> Any:
        """``work`` within ``[web] request_timeout`` seconds, else 503."""
        try:
            return await asyncio.wait_for(work, self.parlor.config.web.request_timeout)
        except asyncio.TimeoutError:
            raise HTTPException(503, "The parlor is busy; try again in a moment.") from None

    def board_html(self, frame: Frame) -> str:
        """The board of a watchers' frame, drawn once per game, version and ending."""
        key = (frame.game, frame.version, frame.finished)
        html = self.boards.get(key)
        if html is None:
            if len(self.boards) >= BOARD_CACHE:
                self.boards.clear()
            html = self.env.get_template("_board.html").render(
                game=data.board(frame, 0))
            self.boards[key] = html
        return html

    def draw(self, frame: Frame) -> dict:
        """A live page's update from a watchers' frame: the summary and the board."""
        watchers = self.parlor.host.watchers(frame.game)
        return {"summary": data.summary(frame, watchers), "board": self.board_html(frame)}

    def _kind(self, request: Request):  # noqa: ANN202
        kind = self.parlor.host.kind_named(request.path_params["game"][:MAX_NAME])
        if kind is None:
            known = ", ".join(k.prefix for k in self.parlor.host.kinds.values())
            raise HTTPException(404, f"There is no game called that. Games: {known}.")
        return kind

    @staticmethod
    def _number(request: Request) -> int:
        """The game number in the path (any text: routes take it as a string)."""
        text = request.path_params["number"]
        number = whole_number(text, len(str(MAX_GAME)))
        if number is None or number > MAX_GAME:
            raise HTTPException(404, f"There is no game #{text[:20]}.")
        return number

    async def _frame(self, request: Request) -> Frame:
        """The game in play the path names, as its watchers see it (driven by this node or,
        in a cluster, another)."""
        number = self._number(request)
        frame = await self._watchers_frame(number)
        if frame is None:
            raise HTTPException(404, f"Game #{number} is not in play (its replay may be: "
                                     f"/games/{number}/replay).")
        self._shown(frame.game, frame.withheld)
        return frame

    @staticmethod
    def _shown(number: int, withheld: str | None) -> None:
        """A game its kind withholds from all but its players (``PlaySpec.withheld``,
        carried by its frame: ``withheld``) is refused at every door: its page, its JSON
        and its live stream, whichever node drives it."""
        if withheld is not None:
            raise HTTPException(403, f"Game #{number} may not be shown: {withheld}")

    @staticmethod
    def _move(request: Request) -> int | None:
        text = request.query_params.get("move")
        if text is None or text == "":
            return None
        move = whole_number(text, 6)
        if move is None:
            raise HTTPException(400, "move should be a whole number (0 is the start).")
        return move

    # -- pages -----------------------------------------------------------------------------
    async def index(self, request: Request) -> Response:
        async def draw() -> Copy:
            return html_copy(self.render(
                "index.html", who=data.who(self.parlor),
                games=await data.games_in_play(self.parlor),
                seeks_status=data.seeks_status(data.seeks(self.parlor))))

        version = (self.parlor.online.count, self._in_play(), self.seeks_changes)
        return await self.cached(request, "/", version, draw, REDRAW)

    async def static(self, request: Request) -> Response:
        """A file of ``static/``, gzip'd when the browser takes it, 304 when it has it."""
        found = self.statics.response(request, request.path_params["name"])
        if found is None:
            raise HTTPException(404, "There is no such file.")
        return found

    async def favicon(self, request: Request) -> Response:
        """/favicon.ico, which browsers ask for whatever the page says: the SVG icon."""
        return Response(FAVICON, media_type="image/svg+xml",
                        headers={"cache-control": "public, max-age=86400"})

    async def mudlet(self, request: Request) -> Response:
        """The Mudlet package (server/mudlet.py), offered to Mudlet players at login."""
        package = self.door.mudlet
        return Response(package.data, media_type="application/zip",
                        headers={"cache-control": "no-cache",
                                 "etag": f'"{package.version}"'})

    def pane_games(self) -> list[dict[str, Any]]:
        """What /play's pane knows of each game before any of its frames arrives: which
        GMCP package is its frames, its prefix and title (the lobby's buttons), whether
        it takes rematches (two fixed players), what a challenge to a name types
        (``GameKind.challenge_line``; None: it takes none), and its pane's script and
        styles, loaded when a frame of the game first arrives (None: it has none, and
        gets the generic pane)."""
        return [{"key": kind.key, "prefix": kind.prefix, "title": kind.title,
                 "gmcp": kind.gmcp_package, "pairs": self.parlor.host.takes_rematches(kind),
                 "challenge": kind.challenge_line(),
                 "js": self.statics.find(f"games/{kind.key}/pane.js"),
                 "css": self.statics.find(f"games/{kind.key}/pane.css")}
                for kind in self.parlor.host.kinds.values()]

    async def play_page(self, request: Request) -> Response:
        async def draw() -> Copy:
            return html_copy(self.render("play.html", subprotocol=SUBPROTOCOL,
                                         games=self.pane_games()))

        return await self.cached(request, "/play", (), draw)

    async def games(self, request: Request) -> Response:
        async def draw() -> Copy:
            return html_copy(self.render("games.html",
                                         games=await data.games_in_play(self.parlor)))

        return await self.cached(request, "/games", self._in_play(), draw, REDRAW)

    async def game(self, request: Request) -> Response:
        number = self._number(request)
        game = self.parlor.host.live.get(number)
        if game is None:
            frame = await self._watchers_frame(number)  # another node's?
            if frame is not None:
                self._shown(frame.game, frame.withheld)
                return self.page("game.html", game=data.summary(frame, frame.watchers),
                                 board=self.board_html(frame))
            try:
                replay = await self.bounded(data.replay(self.parlor, number, None))
            except GameError as err:
                raise HTTPException(404, str(err)) from None
            return self.page("replay.html", game=replay)
        self._shown(game.id, game.kind.spec.withheld(game.state))
        # Many readers of one game get one drawing per change of the game.
        watchers = self.parlor.host.watchers(game.id)

        async def draw() -> Copy:
            frame = game.frame(None)
            return html_copy(self.render("game.html", game=data.summary(frame, watchers),
                                         board=self.board_html(frame)))

        return await self.cached(request, ("game", game.id),
                                 (game.version, game.outcome is not None, watchers), draw)

    async def game_events(self, request: Request) -> Response:
        first = await self._frame(request)
        number = first.game
        address = self._address(request)
        refused = self.door.watchers.admit(number, address, bounded=not first.finished)
        if refused is not None:
            return self._refused(refused)
        host = self.parlor.host

        async def snapshot() -> Frame | None:  # the game as it stands, at the start
            try:
                return await host.watchers_frame(number)
            except GameUnreachable:
                return None

        stream = GameStream(self.parlor, number, snapshot, self.draw, self.door.closing)
        return self._streamed(stream, number, address)

    async def _watchers_frame(self, number: int) -> Frame | None:
        """``GameHost.watchers_frame``; a game whose node does not answer now (dead or
        paused, its game not yet taken over) is 503 with Retry-After, not 404."""
        try:
            return await self.parlor.host.watchers_frame(number)
        except GameUnreachable as err:
            raise HTTPException(503, str(err), headers={"Retry-After": str(RETRY_AFTER)}) \
                from None

    @staticmethod
    def _address(request: Request) -> str:
        """The address a stream is counted against: the client's (through a trusted
        proxy, the one it forwards; without one, the proxy's, which is not capped)."""
        return request.client.host if request.client is not None else ""

    @staticmethod
    def _refused(refused: Refused) -> Response:
        """A stream that may not open: 429 (its address holds its share) as one line of
        JSON, as ``/api/`` errors are; 503 (the page or the parlor is full) as a page."""
        if refused.status == 429:
            return JSONResponse({"error": refused.message}, status_code=429)
        raise HTTPException(refused.status, refused.message)

    def _streamed(self, stream: Any, key: Any, address: str) -> Response:
        """A live stream as the response, counted among the door's streams until it ends
        (it was admitted under ``key``, from ``address``)."""
        self.door.streams.add(stream)

        def release() -> None:
            self.door.streams.discard(stream)
            self.door.watchers.leave(key, address)
            stream.close()

        return LiveResponse(stream.events(), release)

    async def replay(self, request: Request) -> Response:
        number, move = self._number(request), self._move(request)
        try:
            replay = await self.bounded(data.replay(self.parlor, number, move))
        except GameError as err:
            raise HTTPException(404, str(err)) from None
        return self.page("replay.html", game=replay)

    async def rankings_index(self, request: Request) -> Response:
        async def draw() -> Copy:
            return html_copy(self.render("rankings_index.html"))

        return await self.cached(request, "/rankings", (), draw)

    async def rankings(self, request: Request) -> Response:
        kind = self._kind(request)
        table = await self.bounded(data.rankings(self.parlor, kind))
        return self.page("rankings.html", table=table)

    async def rankings_by_letter(self, request: Request) -> Response:
        """A game's rankings by correspondence (its own rating pool)."""
        table = await self.bounded(data.rankings(self.parlor, self._by_letter(request),
                                                 correspondence=True))
        return self.page("rankings.html", table=table)

    def _by_letter(self, request: Request):  # noqa: ANN202
        kind = self._kind(request)
        if not kind.correspondence:
            raise HTTPException(404, f"{kind.title} is not played by correspondence.")
        return kind

    @staticmethod
    def _name(request: Request) -> str:
        """The player name in the path; one no account can have (a control character:
        PostgreSQL refuses a NUL in a query) is not looked up."""
        name = request.path_params["name"][:MAX_NAME]
        if not name.isprintable():
            raise HTTPException(404, "There is no player by that name.")
        return name

    async def player(self, request: Request) -> Response:
        found = await self.bounded(data.player(self.parlor, self._name(request)))
        if found is None:
            raise HTTPException(404, "There is no player by that name.")
        return self.page("player.html", player=found)

    # -- seeks and tournaments ---------------------------------------------------------
    def _live(self, request: Request, key: Any, what: str, topic: str, wants: Any, draw: Any,
              bounded: bool = True) -> Response:
        """A page's live stream (``LivePages``: one drawing per change, shared by all its
        streams), counted among the door's streams."""
        address = self._address(request)
        refused = self.door.watchers.admit(key, address, bounded=bounded, what=what)
        if refused is not None:
            return self._refused(refused)
        stream = PageStream(self.live_pages, key, topic, wants, draw,
                            self.parlor.config.web.stream_idle, self.door.closing)
        return self._streamed(stream, key, address)

    def _seeks_update(self) -> dict[str, str]:
        listing = data.seeks(self.parlor)
        return {"html": self.env.get_template("_seeks.html").render(seeks=listing["seeks"]),
                "status": data.seeks_status(listing)}

    async def seeks(self, request: Request) -> Response:
        listing = data.seeks(self.parlor)
        return self.page("seeks.html", seeks=listing["seeks"],
                         follow_status=data.seeks_status(listing))

    async def seeks_events(self, request: Request) -> Response:
        async def draw() -> tuple[dict, bool]:
            return self._seeks_update(), False

        return self._live(request, "seeks", "The seeks page", seeks_service.TOPIC,
                          lambda e: e.type in ("seek.add", "seek.remove"), draw)

    async def api_seeks(self, request: Request) -> Response:
        return JSONResponse(data.seeks(self.parlor))

    def _tournament_changed(self, topic: str, event: Event) -> None:  # noqa: ARG002
        if event.type == "tournament.changed":
            self.generations[event.data.get("id")] += 1
            self.generations["list"] += 1
            self.parlor.changes()

    async def _read(self, key: Any, read: Any) -> Any:
        """``read()`` (bounded), or what it gave when no tournament has changed since (and
        it is under :data:`TOURNAMENT_CACHE` seconds old): readers woken by one change
        share one read, the first one's, even while it is under way."""
        generation, now = self.generations[key], time.monotonic()
        kept = self.tournament_reads.get(key)
        if kept is None or kept[0] != generation or now - kept[1] >= TOURNAMENT_CACHE:
            task = asyncio.ensure_future(read())
            task.add_done_callback(lambda t: t.cancelled() or t.exception())  # seen here
            if len(self.tournament_reads) >= BOARD_CACHE:
                self.tournament_reads.clear()
            kept = self.tournament_reads[key] = (generation, now, task)
        try:
            return await self.bounded(asyncio.shield(kept[2]))
        except HTTPException:   # too slow: the next reader starts afresh
            if self.tournament_reads.get(key) is kept:
                del self.tournament_reads[key]
            raise

    async def _tournaments(self) -> dict[str, Any]:
        return await self._read("list", lambda: data.tournaments(self.parlor))

    @staticmethod
    def _tournament_number(request: Request) -> int:
        text = request.path_params["number"]
        number = whole_number(text.lstrip("#"), len(str(MAX_TOURNAMENT)))
        if number is None or number > MAX_TOURNAMENT:
            raise HTTPException(404, f"There is no tournament {text[:20]}. "
                                     "(/tournaments lists them.)")
        return number

    async def _tournament(self, number: int) -> dict[str, Any]:
        try:
            return await self._read(number, lambda: data.tournament(self.parlor, number))
        except GameError:
            raise HTTPException(404, f"There is no tournament {number}. "
                                     "(/tournaments lists them.)") from None

    def _tournaments_update(self, listing: dict[str, Any]) -> dict[str, str]:
        return {"html": self.env.get_template("_tournaments.html").render(listing=listing),
                "status": data.tournaments_status(listing)}

    def _tournament_update(self, t: dict[str, Any]) -> dict[str, str]:
        return {"html": self.env.get_template("_tournament.html").render(t=t),
                "status": t["progress"]}

    async def tournaments(self, request: Request) -> Response:
        listing = await self._tournaments()
        return self.page("tournaments.html", listing=listing,
                         follow_status=data.tournaments_status(listing))

    async def tournaments_events(self, request: Request) -> Response:
        async def draw() -> tuple[dict, bool]:
            return self._tournaments_update(await self._tournaments()), False

        return self._live(request, "tournaments", "The tournaments page",
                          tournaments_service.TOPIC,
                          lambda e: e.type == "tournament.changed", draw)

    async def tournament(self, request: Request) -> Response:
        t = await self._tournament(self._tournament_number(request))
        return self.page("tournament.html", t=t)

    async def tournament_events(self, request: Request) -> Response:
        number = self._tournament_number(request)
        first = await self._tournament(number)   # 404 before any stream

        async def draw() -> tuple[dict, bool] | None:
            try:
                t = await self._tournament(number)
            except HTTPException:
                return None
            return self._tournament_update(t), t["status"] == "finished"

        return self._live(request, ("tournament", number), f"Tournament {number}",
                          tournaments_service.TOPIC,
                          lambda e: e.type == "tournament.changed"
                          and e.data.get("id") == number, draw,
                          bounded=first["status"] != "finished")

    async def api_tournaments(self, request: Request) -> Response:
        return JSONResponse(await self._tournaments())

    async def api_tournament(self, request: Request) -> Response:
        return JSONResponse(await self._tournament(self._tournament_number(request)))

    def added_routes(self) -> list[Route]:
        """The pages games add (``GameKind.web_pages``), each with its JSON twin under
        ``/api``, both drawn from the same dict."""
        routes = []
        for added in self.added:
            async def html(request: Request, added: "WebPage" = added) -> Response:
                return self.page(added.template, **await self.bounded(added.data()))

            async def api(request: Request, added: "WebPage" = added) -> Response:
                return JSONResponse(await self.bounded(added.data()))

            routes += [Route(added.path, html), Route("/api" + added.path, api)]
        return routes

    # -- JSON ------------------------------------------------------------------------------
    async def api_who(self, request: Request) -> Response:
        async def draw() -> Copy:
            return json_copy(data.who(self.parlor))

        return await self.cached(request, "/api/who", self.parlor.online.count, draw, REDRAW)

    async def api_games(self, request: Request) -> Response:
        async def draw() -> Copy:
            return json_copy({"games": await data.games_in_play(self.parlor)})

        return await self.cached(request, "/api/games", self._in_play(), draw, REDRAW)

    async def api_game(self, request: Request) -> Response:
        number = self._number(request)
        host = self.parlor.host
        await host.games.check()   # this node still drives what it holds
        game = host.live.get(number)
        if game is None:           # another node's, or none
            frame = await self._frame(request)
            return JSONResponse(data.board(frame, frame.watchers))
        self._shown(game.id, game.kind.spec.withheld(game.state))
        watchers = host.watchers(game.id)

        async def draw() -> Copy:
            return json_copy(data.board(game.frame(None), watchers))

        return await self.cached(request, ("api/game", game.id),
                                 (game.version, game.outcome is not None, watchers), draw)

    async def api_replay(self, request: Request) -> Response:
        number, move = self._number(request), self._move(request)
        try:
            return JSONResponse(await self.bounded(data.replay(self.parlor, number, move)))
        except GameError as err:
            raise HTTPException(404, str(err)) from None

    async def api_rankings(self, request: Request) -> Response:
        return JSONResponse(await self.bounded(data.rankings(self.parlor, self._kind(request))))

    async def api_rankings_by_letter(self, request: Request) -> Response:
        return JSONResponse(await self.bounded(data.rankings(
            self.parlor, self._by_letter(request), correspondence=True)))

    async def api_player(self, request: Request) -> Response:
        found = await self.bounded(data.player(self.parlor, self._name(request)))
        if found is None:
            raise HTTPException(404, "There is no player by that name.")
        return JSONResponse(found)

    # -- errors ----------------------------------------------------------------------------
    async def error(self, request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 500)
        detail = getattr(exc, "detail", None) or "Something went wrong."
        headers = getattr(exc, "headers", None)
        if status == 404 and detail == "Not Found":
            detail = "There is no page here."
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": detail}, status_code=status, headers=headers)
        response = self.page("error.html", status=status, status_code=status, message=detail)
        response.headers.update(headers or {})
        return response


def build_app(door: Door) -> Starlette:
    p = Pages(door)
    routes = [
        Route("/", p.index),
        Route("/favicon.ico", p.favicon),
        Route(MUDLET_PATH, p.mudlet),
        Route("/play", p.play_page),
        WebSocketRoute("/play/ws", play),
        Route("/games", p.games),
        Route("/games/{number}", p.game),
        Route("/games/{number}/events", p.game_events),
        Route("/games/{number}/replay", p.replay),
        Route("/rankings", p.rankings_index),
        Route("/rankings/{game}", p.rankings),
        Route("/rankings/{game}/corr", p.rankings_by_letter),
        Route("/players/{name}", p.player),
        Route("/seeks", p.seeks),
        Route("/seeks/events", p.seeks_events),
        Route("/tournaments", p.tournaments),
        Route("/tournaments/events", p.tournaments_events),
        Route("/tournaments/{number}", p.tournament),
        Route("/tournaments/{number}/events", p.tournament_events),
        Route("/api/who", p.api_who),
        Route("/api/games", p.api_games),
        Route("/api/games/{number}", p.api_game),
        Route("/api/games/{number}/replay", p.api_replay),
        Route("/api/rankings/{game}", p.api_rankings),
        Route("/api/rankings/{game}/corr", p.api_rankings_by_letter),
        Route("/api/players/{name}", p.api_player),
        Route("/api/seeks", p.api_seeks),
        Route("/api/tournaments", p.api_tournaments),
        Route("/api/tournaments/{number}", p.api_tournament),
        *p.added_routes(),
        Route("/static/{name:path}", p.static),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: p.error,
                                                       Exception: p.error})
    app.state.door = door
    app.state.pages = p
    return DoorApp(app, door.parlor.config.web.pages_at_once)


class DoorApp(SecurityHeaders):
    """The Starlette app as uvicorn runs it: :data:`HEADERS` on every response, and the
    requests for a page taking turns with the players, keeping ``.state``.

    The door shares the players' event loop. Readers in a closed loop (50 fetching ``/``
    as fast as it comes) filled each turn of the loop with their pages, and a telnet
    command or a live board's update waited behind all of them (half a second). So at
    most ``at_once`` page requests are answered at a time, and a request keeps its turn
    for one pass of the loop after its answer is sent (a cached page is sent without
    waiting for anything, so without that pass the next reader would go on at once):
    in that pass the loop runs everything else that is ready, and the players' work is
    never queued behind more than ``at_once`` pages. Live streams (``.../events``) and
    WebSockets hold their connection long and do not take a turn."""

    def __init__(self, app: ASGIApp, at_once: int) -> None:
        super().__init__(app)
        self.turns = asyncio.Semaphore(at_once)   # first come, first served

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].endswith("/events"):
            await super().__call__(scope, receive, send)
            return
        async with self.turns:
            await super().__call__(scope, receive, send)
            await asyncio.sleep(0)   # the pass of the loop that is the players'

    @property
    def state(self):  # noqa: ANN201
        return self.app.state
