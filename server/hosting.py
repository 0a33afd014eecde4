"""What a game must provide to be hosted: the ``GameKind`` adapter (its docstring is the
contract), and the contexts its database hooks get.

Each game subclasses ``GameKind`` once, in ``server/services/<game>.py``: through
``HostedGame``, which hosts the game's ``PlaySpec`` (``games/<game>/spec.py``: what the game
is, how it is played and its engine's functions, as data), adding what needs the parlor;
the game host (``server/services/games.py``) calls every kind the same way. What a game's commands are
(its subcommands, help, prefix handler) is ``commands/``'s business
(``commands/<game>.py``: the game's entry, with its kind), keyed by the kind's ``key``.
"""

from __future__ import annotations

import abc
import random
from typing import TYPE_CHECKING, Any, Awaitable, Callable, ClassVar, Coroutine, Protocol

import attrs
from sqlalchemy.ext.asyncio import AsyncSession

from games.errors import BadNotation, RuleError
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


class GameKind(abc.ABC):
    """One hostable game: the adapter between a pure engine in ``games/`` and the game
    host (``server/services/games.py``). Each game subclasses it once
    (``server/services/<game>.py``) and overrides what varies; the host calls every
    method the same way for every game, and a method a game does not override does what
    the host needs of a game with nothing special there.

    **What the game is** (class attributes): ``key`` (stored with every game, "dice"),
    ``title`` ("Triad Dice"), ``prefix`` (of its commands, "DICE"), ``gmcp_package``
    ("Dice.Game"), ``seats`` and ``min_seats`` (how many play), ``resign_action`` (the
    action RESIGN and CLAIM apply), and two facts about how it is played:

    - ``simultaneous``: the seats act at once, each on its own part of the state (a
      Pyramid tournament). The host keeps one computer move in flight per computer seat,
      and a move a computer chose still applies after other seats have moved (``apply``
      checks it again).
    - ``open_table``: a table whose players come and go (Triad). Its seats come from the
      state (``seats_of``); an absence is dealt with by ``presence``, so the host offers
      no CLAIM; resigning is leaving one's seat; there are no rematches.

    And ``correspondence``: the game may be played over days, a move at a time
    (``CHALLENGE <person> DAYS <n>``); the host keeps its clock.

    **The engine** (abstract: every game gives them, usually its engine's functions as
    ``staticmethod``): ``apply(state, seat, action, rng) -> (state, events)``,
    ``outcome(state)``, ``to_move(state)``, ``parse_action(text)``,
    ``format_action(action)``, ``state_to_json``/``state_from_json``,
    ``view_for(state, seat | None)`` (what that seat, or a watcher, may see now),
    ``render(view, width, color, names, height)``,
    ``speak(view, names) -> lines`` (the view read out for a screen reader, one fact a
    line, no drawing), ``choose_action(state, seat, level, rng, budget_s)`` (the
    computer player) and ``describe_event(event, names) -> sentence | None`` (``names``:
    the seats' names, in seat order).

    **What a game may override**, with what the host assumes otherwise:

    - options: ``parse_options(words)`` (none taken), ``describe_options(options)``
      (""), ``is_ranked(options)`` (the option ``ranked``);
    - words: ``describe_move`` (None: REPLAY shows "<name>: <notation>"),
      ``describe_outcome`` (the host's "X wins (...)" / "ends in a draw (...)");
    - REPLAY: ``replay_view(state, seat, now)`` (``view_for(state, seat)``);
    - the moves a seat may make, listed: ``legal_moves(state, seat)`` (None: not listed);
    - the database, inside the transaction that stores the game: ``on_start(ctx)``
      (abstract: the first state), ``on_action(ctx)`` (nothing), ``on_finish(ctx)``
      (no lines), and ``check_offer`` before a challenge is offered (no refusal);
    - the clock and the players: ``timeout(state)`` (no clock), ``seats_of(state,
      seats)`` (the seats do not change), ``presence(state, seat, here)`` (nothing
      happens when a player leaves or comes back), ``pace(game, seat)`` (the host's
      ``computer_delay``), ``audience(state, seat, events)`` (everyone is told),
      ``counts(outcome)`` (every finished game counts in the records).

    **What the game adds to the parlor** (all optional, so a game from ``[games] extra``
    needs none): ``Settings`` (its ``[games.<key>]`` table, read by ``from_config``),
    ``seeders`` (tables of data files), ``on_new_account`` (a starter set),
    ``web_templates`` (a folder for its web board, ``board.html``, when it is not the web
    door's ``templates/games/<key>/``), ``web_pages()`` (a Top 10) and ``notes()`` (lines
    for the log at start). ``commands/app.py`` hands them over where the application is
    assembled; no module that serves every game names a game.

    **The service.** ``GameHost.register`` sets ``parlor`` (a :class:`ParlorAccess`: what the
    kind may ask of the rest of the server, and nothing more; a kind is hosted once).
    What a game offers beyond hosting (Triad's tables, Pyramid's TOP 10, Triptycha's
    tiles) is methods of its subclass, and everyone reaches it one way:
    ``host.kind(key)``.
    """

    key: str = ""
    title: str = ""
    prefix: str = ""
    gmcp_package: str = ""
    seats: int = 2
    min_seats: int = 2
    resign_action: Any = None  # the engine's action for RESIGN and CLAIM
    simultaneous: bool = False
    open_table: bool = False
    # whether the game may be played by correspondence (``CHALLENGE <person> DAYS <n>``:
    # days a move, the players need not be online together; server/services/correspondence.py)
    correspondence: bool = False
    levels: tuple[str, ...] = ("easy", "normal", "hard")  # the computer's, weakest first
    level_ratings: tuple[tuple[str, int], ...] = ()  # the computer's levels, rated
    parlor: "ParlorAccess | None" = None  # set by GameHost.register

    @property
    def hosted(self) -> ParlorAccess:
        """The parlor this kind is hosted in (a RuntimeError before it is)."""
        if self.parlor is None:
            raise RuntimeError(f"game kind {self.key or type(self).__name__} is not hosted")
        return self.parlor

    # -- the engine --------------------------------------------------------------------
    @abc.abstractmethod
    def apply(self, state: Any, seat: int, action: Any, rng: random.Random) -> tuple[Any, list]:
        """The new state and its events; raises ``RuleError`` (nothing changes)."""

    @abc.abstractmethod
    def outcome(self, state: Any) -> Outcome | None: ...

    @abc.abstractmethod
    def to_move(self, state: Any) -> tuple[int, ...]: ...

    @abc.abstractmethod
    def parse_action(self, text: str) -> Any:
        """The action ``text`` names; raises ``BadNotation``."""

    @abc.abstractmethod
    def format_action(self, action: Any) -> str: ...

    @abc.abstractmethod
    def state_to_json(self, state: Any) -> dict: ...

    @abc.abstractmethod
    def state_from_json(self, data: dict) -> Any: ...

    @abc.abstractmethod
    def view_for(self, state: Any, seat: int | None) -> dict: ...

    @abc.abstractmethod
    def render(self, view: dict, width: int = 80, color: bool = True, names: Any = None,
               height: int = 24) -> str: ...

    @abc.abstractmethod
    def speak(self, view: dict, names: Any = None) -> list[str]: ...

    def render_changes(self, old: dict, new: dict, width: int = 80, color: bool = True,
                       names: Any = None) -> str | None:
        """SET BOARD COMPACT: what changed from the view ``old`` (the last one drawn for
        this viewer) to ``new``, in a few lines ("" for nothing to draw); None: draw the
        whole board."""
        return None

    @abc.abstractmethod
    def choose_action(self, state: Any, seat: int, level: str, rng: random.Random,
                      budget_s: float = 1.0) -> Any: ...

    @abc.abstractmethod
    def describe_event(self, event: Any) -> str | None: ...

    def replay_view(self, state: Any, seat: int | None, now: Any) -> dict:
        """``view_for`` of ``state``, a past point of a game that stands at ``now`` (in
        play, or finished): REPLAY shows no more than may be seen ``now``, and may show
        more of a finished game than was seen while it was played."""
        return self.view_for(state, seat)

    def legal_moves(self, state: Any, seat: int) -> list[str] | None:
        """The moves ``seat`` may make now, each in the game's notation (what follows its
        prefix: ``PLAY 5``), or None when the game does not list them. Each player's
        frame carries them (``LiveGame.frame``): GMCP's ``legal``, the buttons of /play's
        generic pane for a game without a pane of its own."""
        return None

    # -- options -----------------------------------------------------------------------
    def parse_options(self, words: list[str]) -> dict[str, Any]:
        """The words after CHALLENGE <person> as a JSON-able dict; raises ``BadOption``."""
        if words:
            raise BadNotation(f"This game takes no options (got {' '.join(words)!r}).")
        return {}

    def describe_options(self, options: dict[str, Any]) -> str:
        return ""

    def is_ranked(self, options: dict[str, Any]) -> bool:
        return bool(options.get("ranked"))

    # -- words -------------------------------------------------------------------------
    def describe_move(self, state: Any, seat: int, notation: str, name: str) -> str | None:
        """A stored move in a player's words, for REPLAY ("Bob raises 20."), ``state`` the
        state before it; None: "<name>: <notation>"."""
        return None

    def describe_outcome(self, state: Any, number: int, outcome: Outcome,
                         names: tuple[str, ...]) -> str:
        """How game ``number`` ended, ``names`` its seats' names."""
        if outcome.winner is None and (len(names) == 1 or not self.counts(outcome)):
            return f"Game #{number} is over ({outcome.reason})."  # a solitaire not won, or
            # a game put away rather than played out: not a draw
        if outcome.winner is None:
            return f"Game #{number} ends in a draw ({outcome.reason})."
        return f"Game #{number}: {names[outcome.winner]} wins ({outcome.reason})."

    # -- the database, inside the game's transaction -----------------------------------
    @abc.abstractmethod
    async def on_start(self, ctx: StartContext) -> Any:
        """The first state of a new game."""

    async def on_action(self, ctx: ActionContext) -> None:
        """After ``apply``, before the commit (tiles, cubits that move with the action)."""

    async def on_finish(self, ctx: FinishContext) -> list[str]:
        """When the game ends, before the commit: lines told after the result."""
        return []

    async def check_offer(self, challenger: Seat, target: Seat,
                          options: dict[str, Any]) -> str | None:
        """Why a challenge cannot be played (told to the challenger), or None."""
        return None

    # -- the clock and the players -----------------------------------------------------
    def timeout(self, state: Any) -> tuple | None:
        """``(seconds, seat, action[, note])``: when the state has not changed for
        that long, the host applies that action for that seat (a trade timeout, a
        betting clock). Checked after every action and at restore. ``note`` is the line
        told before it (default "Time is up for <name>."; "" for none). None: no clock."""
        return None

    def clock(self, state: Any) -> tuple | None:
        """The clock as a board shows it: ``timeout``'s seconds and seat, read without
        arming anything (a kind whose ``timeout`` does more says so here)."""
        return self.timeout(state)

    def seats_of(self, state: Any, seats: tuple[Seat, ...]) -> tuple[Seat, ...]:
        """The seats as ``state`` has them (``seats``: as they were). At an open table
        seats are only ever added at the end (a player who leaves stays, ``left=True``),
        so seat numbers in the move list keep their names; the host stores the seats
        with every action that changes them."""
        return seats

    def presence(self, state: Any, seat: int, here: bool) -> Any:
        """The action the host applies for a seat whose player disconnects
        (``here`` False, once gone for ``GameHost.presence_delay`` seconds; after a
        restart, once not back within the reconnect grace) or comes back (True); None
        for nothing."""
        return None

    def pace(self, game: Any, seat: int) -> float:
        """Seconds the computer in ``seat`` of the live ``game`` waits before each move."""
        return self.hosted.computer_delay

    def audience(self, state: Any, seat: int, events: list) -> Any:
        """Who is told of the action by ``seat`` whose ``events`` led to ``state``; None:
        everyone (every player and every watcher), as everyone always is when the game
        ends. Otherwise a value (the game's own: ``games/`` imports nothing from here) with
        three attributes:

        - ``seats``: the seats whose players are told it in full (None: every player);
        - ``watchers``: whether the watchers are too (a web page or a telnet watcher);
        - ``public``: the events that everyone else is told of (their sentences, with the
          actor's name, and not the action itself); with none, the players left out hear
          nothing, and the watchers get the event's facts without a line, so that they
          keep up with the game's version and redraw what they may see.

        ``state`` may also be a later state of the game (REPLAY asks who may be told of a
        past action now): a game in play replays only as far as its watchers are told."""
        return None

    def counts(self, outcome: Outcome) -> bool:
        """Whether a finished game counts in the players' records (not one put away to be
        taken up again later)."""
        return True

    def withheld(self, state: Any) -> str | None:
        """Why nobody but the game's players may see it at all now (a sentence), or None:
        OBSERVE, REPLAY, EXAMINE and every web door (pages, JSON, live streams) ask
        this first and refuse with it (a Par tournament's sealed deals)."""
        return None

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


class HostedGame(GameKind):
    """A ``GameKind`` made from a game's ``PlaySpec`` (``games/spec.py``): what the game is
    and every function of its engine are the spec's, so a game's service is a subclass
    naming it (``spec = SPEC``) and adding only what needs the parlor (its database
    hooks, its settings, a worker process). A function the spec leaves None is
    ``GameKind``'s default."""

    spec: ClassVar[PlaySpec]
    FACTS: ClassVar[tuple[str, ...]] = ("key", "title", "prefix", "gmcp_package", "seats",
                                        "min_seats", "resign_action", "simultaneous",
                                        "open_table", "levels", "level_ratings")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """The spec's facts are the class's (the host and the commands read them from
        the class as well as from a kind)."""
        super().__init_subclass__(**kwargs)
        spec = cls.__dict__.get("spec")
        if spec is not None:
            for name in cls.FACTS:
                setattr(cls, name, getattr(spec, name))

    # -- the engine --------------------------------------------------------------------
    def apply(self, state: Any, seat: int, action: Any, rng: random.Random) -> tuple[Any, list]:
        return self.spec.apply(state, seat, action, rng)

    def outcome(self, state: Any) -> Outcome | None:
        return self.spec.outcome(state)

    def to_move(self, state: Any) -> tuple[int, ...]:
        return self.spec.to_move(state)

    def parse_action(self, text: str) -> Any:
        return self.spec.parse_action(text)

    def format_action(self, action: Any) -> str:
        return self.spec.format_action(action)

    def state_to_json(self, state: Any) -> dict:
        return self.spec.state_to_json(state)

    def state_from_json(self, data: dict) -> Any:
        return self.spec.state_from_json(data)

    def view_for(self, state: Any, seat: int | None) -> dict:
        return self.spec.view_for(state, seat)

    def render(self, view: dict, *args: Any, **kwargs: Any) -> str:
        return self.spec.render(view, *args, **kwargs)

    def speak(self, view: dict, *args: Any, **kwargs: Any) -> list[str]:
        return self.spec.speak(view, *args, **kwargs)

    def render_changes(self, old: dict, new: dict, *args: Any, **kwargs: Any) -> str | None:
        if self.spec.render_changes is None:
            return None
        return self.spec.render_changes(old, new, *args, **kwargs)

    def choose_action(self, state: Any, seat: int, level: str, rng: random.Random,
                      budget_s: float = 1.0) -> Any:
        return self.spec.choose_action(state, seat, level, rng, budget_s)

    def describe_event(self, event: Any, names: tuple[str, ...] = ()) -> str | None:
        return self.spec.describe_event(event, names)

    async def on_start(self, ctx: StartContext) -> Any:
        """The spec's first state of the options; a game whose first state needs the
        parlor (decks of tiles, stacks of cubits) makes it in its own ``on_start``."""
        if self.spec.new_game is None:
            raise TypeError(f"game kind {self.key}: its spec has no new_game, and the kind "
                            "no on_start")
        return self.spec.new_game(ctx.options, ctx.rng)

    # -- what may vary -----------------------------------------------------------------
    def parse_options(self, words: list[str]) -> dict[str, Any]:
        if self.spec.parse_options is None:
            return super().parse_options(words)
        return self.spec.parse_options(words)

    def describe_options(self, options: dict[str, Any]) -> str:
        if self.spec.describe_options is None:
            return super().describe_options(options)
        return self.spec.describe_options(options)

    def is_ranked(self, options: dict[str, Any]) -> bool:
        return self.spec.ranked is not False and super().is_ranked(options)

    def describe_move(self, state: Any, seat: int, notation: str, name: str) -> str | None:
        if self.spec.describe_move is None:
            return super().describe_move(state, seat, notation, name)
        return self.spec.describe_move(state, seat, notation, name)

    def describe_outcome(self, state: Any, number: int, outcome: Outcome,
                         names: tuple[str, ...]) -> str:
        if self.spec.describe_outcome is None:
            return super().describe_outcome(state, number, outcome, names)
        return self.spec.describe_outcome(state, number, outcome)

    def replay_view(self, state: Any, seat: int | None, now: Any) -> dict:
        if self.spec.replay_view is None:
            return super().replay_view(state, seat, now)
        return self.spec.replay_view(state, seat, now)

    def timeout(self, state: Any) -> tuple | None:
        return None if self.spec.timeout is None else self.spec.timeout(state)

    def presence(self, state: Any, seat: int, here: bool) -> Any:
        return None if self.spec.presence is None else self.spec.presence(state, seat, here)

    def audience(self, state: Any, seat: int, events: list) -> Any:
        return None if self.spec.audience is None else self.spec.audience(state, seat, events)

    def counts(self, outcome: Outcome) -> bool:
        return True if self.spec.counts is None else self.spec.counts(outcome)

    def withheld(self, state: Any) -> str | None:
        return None if self.spec.withheld is None else self.spec.withheld(state)

    def legal_moves(self, state: Any, seat: int) -> list[str] | None:
        if self.spec.legal_actions is None:
            return None
        return [self.spec.format_action(a) for a in self.spec.legal_actions(state, seat)]


__all__ = ["ActionContext", "FinishContext", "GameKind", "HostedGame", "ParlorAccess", "RuleError",
           "Seat", "StartContext", "WebPage"]
