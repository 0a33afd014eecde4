"""What a game must provide to be hosted: ``GameKind`` (its docstring is the contract),
and the contexts its database hooks get.

A game is described once, by its ``PlaySpec`` (``games/<game>/spec.py``: what the game is,
how it is played and its engine's functions, as data). Each game subclasses ``GameKind``
once, in ``server/services/<game>.py``, naming that spec and adding what needs the parlor
(its database hooks, its settings, a worker process); the game host
(``server/services/games.py``) calls every kind the same way, and every game's engine
through its spec. What a game's commands are (its subcommands, help, prefix handler) is
``commands/``'s business (``commands/<game>.py``: the game's entry, with its kind), keyed
by the kind's ``key``.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Awaitable, Callable, ClassVar, Coroutine, Protocol

import attrs
from sqlalchemy.ext.asyncio import AsyncSession

from games.errors import RuleError
from games.outcome import Outcome
from games.spec import PlaySpec

if TYPE_CHECKING:
    from server.config import GamesSection
    from server.models import Account
    from server.db import Database
    from server.seeding import Seeder
    from server.services.accounts import Accounts
    from server.services.live import LiveGame


@attrs.frozen
class Seat:
    """Who sits in a seat: an account, and the computer's level when it is the computer."""

    account_id: int
    name: str
    computer: str | None = None  # the computer's level ("easy" ... "expert") for the computer
    # At a table whose players come and go (``GameKind.open_table``): this player has left.
    # The seat stays, so the move list keeps its names; nothing is told to it any more.
    left: bool = False

    def to_json(self) -> dict[str, Any]:
        data = {"id": self.account_id, "name": self.name, "computer": self.computer}
        if self.left:
            data["left"] = True
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Seat":
        return cls(data["id"], data["name"], data.get("computer"), bool(data.get("left")))


@attrs.frozen
class StartContext:
    """What ``on_start`` gets: the new game's number, seats, options and transaction."""

    tx: AsyncSession
    game_id: int
    seats: tuple[Seat, ...]
    options: dict[str, Any]
    rng: random.Random


@attrs.frozen
class ActionContext:
    """What ``on_action`` gets, inside the transaction that stores the action."""

    tx: AsyncSession
    game_id: int
    seats: tuple[Seat, ...]
    options: dict[str, Any]
    seat: int
    action: Any
    old_state: Any
    new_state: Any
    events: list


@attrs.frozen
class FinishContext:
    tx: AsyncSession
    game_id: int
    seats: tuple[Seat, ...]
    options: dict[str, Any]
    state: Any
    outcome: Outcome


@attrs.frozen
class WebPage:
    """A page a game adds to the web door (``GameKind.web_pages``): drawn at ``path``
    with ``template`` from what ``data()`` gives (a JSON-able dict), which is also its
    JSON twin at ``/api`` + ``path``; ``title`` is its link in the site's menu."""

    path: str
    title: str
    template: str
    data: Callable[[], Awaitable[dict[str, Any]]]


class ParlorAccess(Protocol):
    """What a game's service may ask of the rest of the parlor, and all it may ask: the
    one narrow way a kind reaches outside itself (``GameKind.parlor``, set when the kind
    is hosted). A kind never holds the game host; its database hooks need none of this
    (they get their transaction in their context)."""

    db: "Database"
    accounts: "Accounts"
    computer_delay: float  # seconds the computer waits before each move

    def game(self, game_id: int) -> "LiveGame | None":
        """Game ``game_id`` if it is in play."""

    def game_of(self, account_id: int, kind_key: str) -> "LiveGame | None":
        """The game of that kind ``account_id`` plays now."""

    def games(self, kind_key: str) -> "list[LiveGame]":
        """Every game of that kind in play, by number."""

    def is_online(self, account_id: int) -> bool: ...

    async def start_game(self, kind_key: str, seats: tuple["Seat", ...],
                         options: dict[str, Any]) -> "LiveGame":
        """A new game, stored and told, with its first turns scheduled."""

    async def act_for(self, game_id: int, seat: int, action: Any, note: str | None = None,
                      auto: bool = False) -> "LiveGame":
        """Apply ``action`` for ``seat`` on the server's authority (``GameHost.act_for``)."""

    def tell(self, account_id: int, text: str) -> None:
        """A notice to one player, wherever they are connected."""

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> Any:
        """Run ``coro`` in the background; cancelled when the parlor closes."""


class GameKind:
    """One hostable game: its description (``spec``, a ``PlaySpec`` from
    ``games/<game>/spec.py``: what the game is, how it is played, and every function of
    its engine, notation, views and words) and what needs the parlor. Each game
    subclasses it once (``server/services/<game>.py``, or a plugin's module), naming its
    spec (``spec = SPEC``) and adding only what needs the parlor; the game host
    (``server/services/games.py``) calls every kind the same way. The engine is called
    from the spec itself (``kind.spec.apply(...)``): nothing here repeats it.

    **What the game is** (read from the spec, as class attributes, for the host and the
    commands): ``key``, ``title``, ``prefix``, ``gmcp_package``, ``seats``,
    ``min_seats``, ``resign_action``, ``simultaneous``, ``open_table``,
    ``correspondence``, ``levels`` and ``level_ratings`` (``PlaySpec`` says what each is).

    **What a game may override**, with what the host assumes otherwise:

    - the database, inside the transaction that stores the game: ``on_start(ctx)`` (the
      spec's ``new_game``), ``on_action(ctx)`` (nothing), ``on_finish(ctx)`` (no lines),
      and ``check_offer`` before a challenge is offered (no refusal);
    - the parlor's clock and players: ``arm_clock(state)`` (the spec's ``timeout``: a
      kind whose clock is a setting gives its own), ``clock(state)`` (``arm_clock`` read
      without arming anything), ``seats_of(state, seats)`` (the seats do not change),
      ``pace(game, seat)`` (the host's ``computer_delay``);
    - where the computer thinks: ``computer_move`` (the spec's ``choose_action``, in the
      host's worker thread; a kind may send a long search to a worker process).

    **What the game adds to the parlor** (all optional, so a game from ``[games] extra``
    needs none): ``Settings`` (its ``[games.<key>]`` table, read by ``from_config``),
    ``seeders`` (tables of data files), ``on_new_account`` (a starter set),
    ``web_templates`` (a folder for its web board, ``board.html``, when it is not the web
    door's ``templates/games/<key>/``), ``web_pages()`` (a Top 10), ``notes()`` (lines
    for the log at start) and ``tournament_systems()``. ``commands/app.py`` hands them
    over where the application is assembled; no module that serves every game names a
    game.

    **The service.** ``GameHost.register`` sets ``parlor`` (a :class:`ParlorAccess`: what the
    kind may ask of the rest of the server, and nothing more; a kind is hosted once).
    What a game offers beyond hosting (Triad's tables, Pyramid's TOP 10, Triptycha's
    tiles) is methods of its subclass, and everyone reaches it one way:
    ``host.kind(key)``.
    """

    spec: ClassVar[PlaySpec]
    FACTS: ClassVar[tuple[str, ...]] = ("key", "title", "prefix", "gmcp_package", "seats",
                                        "min_seats", "resign_action", "simultaneous",
                                        "open_table", "correspondence", "levels",
                                        "level_ratings")
    key: ClassVar[str]
    title: ClassVar[str]
    prefix: ClassVar[str]
    gmcp_package: ClassVar[str]
    seats: ClassVar[int]
    min_seats: ClassVar[int]
    resign_action: ClassVar[Any]
    simultaneous: ClassVar[bool]
    open_table: ClassVar[bool]
    correspondence: ClassVar[bool]
    levels: ClassVar[tuple[str, ...]]
    level_ratings: ClassVar[tuple[tuple[str, int], ...]]
    parlor: "ParlorAccess | None" = None  # set by GameHost.register

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """The spec's facts are the class's (the host and the commands read them from
        the class as well as from a kind)."""
        super().__init_subclass__(**kwargs)
        spec = cls.__dict__.get("spec")
        if spec is not None:
            for name in cls.FACTS:
                setattr(cls, name, getattr(spec, name))

    def fixed_pair(self) -> bool:
        """A game of two fixed seats, offered by CHALLENGE and played again by REMATCH:
        not a table whose players come and go (``open_table``), not a solitaire."""
        return self.seats == 2 and self.min_seats == 2 and not self.open_table

    def challenge_line(self) -> str | None:
        """What a player types before a name to offer that player a game of this kind
        (the /play lobby's Challenge form): ``<PREFIX> CHALLENGE`` for a game of two fixed
        seats; None when no game of it is offered to a named player."""
        return f"{self.prefix} CHALLENGE" if self.fixed_pair() else None

    @property
    def hosted(self) -> ParlorAccess:
        """The parlor this kind is hosted in (a RuntimeError before it is)."""
        if self.parlor is None:
            raise RuntimeError(f"game kind {type(self).__name__} is not hosted")
        return self.parlor

    # -- the database, inside the game's transaction -----------------------------------
    async def on_start(self, ctx: StartContext) -> Any:
        """The first state of a new game: the spec's ``new_game`` of the options; a game
        whose first state needs the parlor (decks of tiles, stacks of cubits) makes it in
        its own ``on_start``."""
        if self.spec.new_game is None:
            raise TypeError(f"game kind {self.key}: its spec has no new_game, and the kind "
                            "no on_start")
        return self.spec.new_game(ctx.options, ctx.rng)

    async def on_action(self, ctx: ActionContext) -> None:
        """After ``apply``, before the commit (tiles, cubits that move with the action)."""

    async def on_finish(self, ctx: FinishContext) -> list[str]:
        """When the game ends, before the commit: lines told after the result."""
        return []

    async def check_offer(self, challenger: Seat, target: Seat,
                          options: dict[str, Any]) -> str | None:
        """Why a challenge cannot be played (told to the challenger), or None."""
        return None

    # -- the clock, the players and the computer ---------------------------------------
    def arm_clock(self, state: Any) -> tuple | None:
        """The clock the host arms after every action and at restore: the spec's
        ``timeout`` (a kind whose clock is a setting, or that warns before time is up,
        gives its own)."""
        return self.spec.timeout(state)

    def clock(self, state: Any) -> tuple | None:
        """The clock as a board shows it: ``arm_clock``'s seconds and seat, read without
        arming anything (a kind whose ``arm_clock`` does more says so here)."""
        return self.arm_clock(state)

    def seats_of(self, state: Any, seats: tuple[Seat, ...]) -> tuple[Seat, ...]:
        """The seats as ``state`` has them (``seats``: as they were). At an open table
        seats are only ever added at the end (a player who leaves stays, ``left=True``),
        so seat numbers in the move list keep their names; the host stores the seats
        with every action that changes them."""
        return seats

    def pace(self, game: Any, seat: int) -> float:
        """Seconds the computer in ``seat`` of the live ``game`` waits before each move."""
        return self.hosted.computer_delay

    def computer_move(self, state: Any, seat: int, level: str, rng: random.Random,
                      budget_s: float = 1.0) -> Any:
        """The computer's move, called in a worker thread: the spec's ``choose_action``
        (a kind may send a long search to a worker process)."""
        return self.spec.choose_action(state, seat, level, rng, budget_s)

    # -- what the game adds to the parlor (all optional) -------------------------------
    # Its settings: ``Settings``, an attrs class (defaults for every field), read from
    # ``[games.<key>]`` and given to the constructor as keywords; ``old_settings``: keys
    # of ``[games]`` it reads too (old key -> field), from before games had tables.
    Settings: Any = None
    old_settings: dict[str, str] = {}
    # Tables of data files it loads (``server/seeding.py``), by name.
    seeders: "dict[str, Seeder]" = {}
    # The folder of its web templates (``board.html``, its pages'), when they are not
    # in the web door's own ``templates/games/<key>/``.
    web_templates: str | None = None

    @classmethod
    def from_config(cls, games: "GamesSection") -> "GameKind":
        """A fresh kind, with its settings from the config's ``[games]``."""
        if cls.Settings is None:
            return cls()
        return cls(**attrs.asdict(games.settings(cls.key, cls.Settings, cls.old_settings)))

    async def on_new_account(self, tx: AsyncSession, account: "Account") -> None:
        """Inside the transaction that creates ``account`` (a starter set)."""

    def web_pages(self) -> list[WebPage]:
        """The pages the game adds to the web door (a Top 10)."""
        return []

    def notes(self) -> list[tuple[int, str]]:
        """Lines for the server's log when it starts, with their logging levels."""
        return []

    def tournament_systems(self) -> dict[str, Any]:
        """The tournament systems the game brings beyond Swiss, by name (``TOURNEY CREATE
        <game> <system> ...``): Pyramid's ``par``, Triad's ``sitgo``. Each has ``name``,
        ``number`` (what the number after the system counts), ``parse_options(words)``,
        ``new(number, options) -> (title, state)``, ``begin(director, row) -> state``,
        ``restore(director, row)``, ``standings(row)`` and ``report(row)`` (plain data for
        the web pages), ``columns`` and ``summary_lines(row)`` (for TOURNEY <n>)."""
        return {}


__all__ = ["ActionContext", "FinishContext", "GameKind", "ParlorAccess", "RuleError",
           "Seat", "StartContext", "WebPage"]
