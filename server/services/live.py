"""Games in play: ``LiveGame`` (one game in memory), ``Told`` (what a change of it tells
whom), and ``LiveGames``, the registry of who plays what. The other parts of the host
(``server/services/play.py``, ``turns.py``, ``presence.py``, ``offers.py``) find games
here; nothing here awaits or publishes."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any, Awaitable, Callable

import attrs

from games.outcome import Outcome
from server.changes import Changes
from server.frames import Clock, Facts, Frame
from server.hosting import GameKind, Seat


class GameError(Exception):
    """A request the host refuses; the message is for the player."""


class GameUnreachable(GameError):
    """A game in play whose node does not answer now (it died or is paused, and the game
    is not taken over yet): asked again in a few seconds, it will."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"Game #{game_id} is being moved to another server; try again in "
                         f"a few seconds.")
        self.game_id = game_id


@attrs.frozen
class Told:
    """What a change of a game tells: its ``lines`` and the ``facts`` the presentation
    decides from (None: no move made it), to the seats in ``seats`` (None: every seat)
    and, if ``watchers``, to the watchers; everyone else gets ``others`` (None: the
    same)."""

    lines: list[str]
    facts: Facts | None
    seats: tuple[int, ...] | None = None
    watchers: bool = True
    others: "Told | None" = None

    def to(self, seat: int | None) -> "Told":
        """What the audience ``seat`` (None: the watchers) is told."""
        full = self.watchers if seat is None else self.seats is None or seat in self.seats
        return self if full or self.others is None else self.others


@attrs.define(eq=False)
class LiveGame:
    """A game in play, in memory. ``version`` counts the actions committed so far."""

    id: int
    kind: GameKind
    seats: tuple[Seat, ...]
    options: dict[str, Any]
    ranked: bool
    seed: int
    state: Any
    version: int
    # the fencing token this node holds the game under (``games.epoch``): raised by every
    # adoption, so a node that lost the game can store nothing more of it (play.py)
    epoch: int = 0
    lock: asyncio.Lock = attrs.field(factory=asyncio.Lock)
    absent: dict[int, float] = attrs.field(factory=dict)  # seat -> since when
    outcome: Outcome | None = None
    thinking: set[int] = attrs.field(factory=set)  # computer seats with a move in flight
    # A game rebuilt by ``GameHost.replay``: the game's state as it stands now, which
    # decides what its views may show (``PlaySpec.replay_view``); None for a live game.
    now: Any = None
    # when the state last changed here (its clock, if it has one, runs from then: the host
    # arms it after every change and again when a game is restored, GameKind.arm_clock)
    since: float = attrs.field(factory=time.time)

    def rng(self, step: int) -> random.Random:
        """The RNG of action number ``step``: replaying the moves replays the dice."""
        return random.Random(f"{self.seed}:{step}")

    def seat_of(self, account_id: int) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat.account_id == account_id and seat.computer is None and not seat.left:
                return index
        return None

    @property
    def days(self) -> int | None:
        """Days a move of a correspondence game (``options["days"]``), None for a game
        played at one sitting (server/services/correspondence.py)."""
        days = self.options.get("days")
        return days if isinstance(days, int) and not isinstance(days, bool) else None

    @property
    def adjourned(self) -> bool:
        """Put aside by both its players until they resume it (server/services/adjourn.py)."""
        return self.options.get("adjourned") is True

    @property
    def at_leisure(self) -> bool:
        """Nobody is away from it, and it keeps nobody from another game: a correspondence
        game, or an adjourned one."""
        return self.days is not None or self.adjourned

    @property
    def names(self) -> tuple[str, ...]:
        """Every seat's name, by seat number (also of players who have left a table)."""
        return tuple(s.name for s in self.seats)

    @property
    def players(self) -> tuple[str, ...]:
        """The names of the players in the game now."""
        return tuple(s.name for s in self.seats if not s.left)

    @property
    def title(self) -> str:
        return f"Game #{self.id}: {self.kind.title}, {' vs '.join(self.players)}"

    def view(self, seat: int | None) -> dict:
        if self.now is None:
            return self.kind.spec.view_for(self.state, seat)
        return self.kind.spec.replay_view(self.state, seat, self.now)

    def describe(self, outcome: Outcome) -> str:
        """How the game ended, in a sentence ("Game #3: Alice wins (...)")."""
        return self.kind.spec.describe_outcome(self.state, self.id, outcome, self.names)

    def frame(self, seat: int | None, *, with_view: bool = True) -> Frame:
        """The game as one audience sees it now (``seat``; None: its watchers): a
        ``Frame`` (server/frames.py), which a consumer draws from alone, on this node or
        another. ``with_view=False``: without the view and the legal moves (a list of
        games draws no board)."""
        finished = self.outcome is not None
        legal = self.legal(seat) if with_view and not finished else None
        return Frame(
            game=self.id, kind_key=self.kind.key, kind_title=self.kind.title, title=self.title,
            version=self.version, epoch=self.epoch, seat=seat, seats=self.seats,
            ranked=self.ranked,
            to_move=() if finished or self.adjourned else tuple(self.kind.spec.to_move(self.state)),
            finished=finished, adjourned=self.adjourned,
            result=self.describe(self.outcome) if finished else None,
            withheld=self.kind.spec.withheld(self.state),
            clock=None if finished or self.now is not None else self.clock(),
            view=self.view(seat) if with_view else None,
            legal=None if legal is None else tuple(legal))

    def legal(self, seat: int | None) -> list[str] | None:
        """The moves ``seat`` may make now, in the game's notation, when the game lists
        them (``PlaySpec.legal_moves``); None for watchers, a past point (REPLAY) and a
        game that does not list them."""
        if seat is None or self.now is not None:
            return None
        return self.kind.spec.legal_moves(self.state, seat)

    def clock(self) -> Clock | None:
        """The game's clock now (``GameKind.clock``): whose it is, the seconds it was
        set to and when it runs out (epoch seconds); None when the game has none or it
        acts at once (a player away)."""
        clock = self.kind.clock(self.state)
        if clock is None or clock[0] <= 0:
            return None
        return Clock(clock[1], clock[0], self.since + clock[0])


class LiveGames:
    """The games in play by number, and who plays which: one game of a kind at a sitting
    per player, and any number of correspondence games (``LiveGame.days``), which take
    no such place. ``starting``: the (account, kind) places reserved by games being
    started."""

    def __init__(self, kinds: dict[str, GameKind], changes: Changes | None = None) -> None:
        self.kinds = kinds
        # counts each game's coming, going, seats and moves, for the web door's copies of
        # pages (server/changes.py)
        self.changes = changes or Changes()
        self.live: dict[int, LiveGame] = {}
        self._by_player: dict[tuple[int, str], int] = {}
        # correspondence games by player, and the one of a kind a player went to last
        # (MYGAMES <game>): the game their commands of that kind act on
        self._by_letter: dict[int, set[int]] = {}
        self._focus: dict[tuple[int, str], int] = {}
        self.starting: set[tuple[int, str]] = set()
        # told when a game comes into play here, changes seats, or leaves (True, False):
        # a cluster tells the other nodes which node plays it (server/cluster/). A game
        # leaves finished (its ``outcome`` set) or let go (another node drives it now).
        self.listeners: list[Callable[[LiveGame, bool], None]] = []
        # awaited before this node acts on any game it holds: a cluster's node whose lease
        # lapsed (it was paused) first lets go of the games adopted elsewhere meanwhile
        # (``Lease.fence``, server/cluster/lease.py); a lone server has nothing to check
        self.fence: Callable[[], Awaitable[None]] | None = None
        self.node = ""  # the name of this node, stored with each game it drives (a cluster's)

    async def check(self) -> None:
        """Make sure this node still drives what it holds (see ``fence``)."""
        if self.fence is not None:
            await self.fence()

    def holds(self, game: LiveGame) -> bool:
        """Whether ``game`` (this very object) is still in play here."""
        return self.live.get(game.id) is game

    def add(self, game: LiveGame) -> None:
        self.live[game.id] = game
        self._place(game)
        self._tell(game, True)
        self.changes()

    def moved(self, game: LiveGame) -> None:  # noqa: ARG002
        """``game`` took a move (its state and version are the new ones)."""
        self.changes()

    def _place(self, game: LiveGame) -> None:
        if game.adjourned:  # it takes no place until it is resumed
            return
        for seat in game.seats:
            if seat.computer is None and not seat.left:
                if game.days is None:  # a game at a sitting comes first
                    self._by_player[(seat.account_id, game.kind.key)] = game.id
                    self._focus.pop((seat.account_id, game.kind.key), None)
                else:
                    self._by_letter.setdefault(seat.account_id, set()).add(game.id)

    def _unplace(self, game: LiveGame) -> None:
        for seat in game.seats:
            if self._by_player.get((seat.account_id, game.kind.key)) == game.id:
                del self._by_player[(seat.account_id, game.kind.key)]
            letters = self._by_letter.get(seat.account_id)
            if letters is not None:
                letters.discard(game.id)
                if not letters:
                    del self._by_letter[seat.account_id]
            if self._focus.get((seat.account_id, game.kind.key)) == game.id:
                del self._focus[(seat.account_id, game.kind.key)]

    def _tell(self, game: LiveGame, here: bool) -> None:
        for listener in self.listeners:
            listener(game, here)

    def reseat(self, game: LiveGame, seats: tuple[Seat, ...]) -> None:
        """A table's new seats (``GameKind.seats_of``): keep who-plays-where in step."""
        self._unplace(game)
        game.seats = seats
        game.absent = {i: t for i, t in game.absent.items()
                       if i < len(seats) and not seats[i].left}
        self._place(game)
        self._tell(game, True)
        self.changes()

    def reoption(self, game: LiveGame, options: dict[str, Any]) -> None:
        """The game's options changed (adjourned, or resumed): its places with them."""
        self._unplace(game)
        game.options = options
        self._place(game)

    def drop(self, game: LiveGame) -> None:
        if self.live.pop(game.id, None) is not None:
            self._tell(game, False)
            self.changes()
        self._unplace(game)

    def realtime_of(self, account_id: int, kind_key: str) -> LiveGame | None:
        """The game of that kind ``account_id`` plays at a sitting (not by
        correspondence): the one place a player has in each kind."""
        game_id = self._by_player.get((account_id, kind_key))
        return self.live.get(game_id) if game_id is not None else None

    def game_of(self, account_id: int, kind_key: str) -> LiveGame | None:
        """The game of that kind ``account_id``'s commands act on: the correspondence
        game they went to last (:meth:`go_to`), else the game they play at a sitting,
        else, of their correspondence games of that kind held here, the one that has
        waited longest for their move, else the first."""
        focus = self.live.get(self._focus.get((account_id, kind_key), 0))
        if focus is not None:
            return focus
        game = self.realtime_of(account_id, kind_key)
        if game is not None:
            return game
        letters = [g for g in self.correspondence_of(account_id) if g.kind.key == kind_key]
        waiting = [g for g in letters if g.seat_of(account_id) in g.kind.spec.to_move(g.state)]
        if waiting:
            return min(waiting, key=lambda g: (g.since, g.id))
        return letters[0] if letters else None

    def correspondence_of(self, account_id: int) -> list[LiveGame]:
        """``account_id``'s correspondence games held here, by number."""
        numbers = sorted(self._by_letter.get(account_id, ()))
        return [self.live[n] for n in numbers if n in self.live]

    def go_to(self, account_id: int, game: LiveGame) -> None:
        """Make ``game`` (one of ``account_id``'s) the one their commands of its kind act
        on, until it ends or they go to another (their game at a sitting: back to it)."""
        if game.days is None:
            self._focus.pop((account_id, game.kind.key), None)
        else:
            self._focus[(account_id, game.kind.key)] = game.id

    def games_of(self, account_id: int) -> list[LiveGame]:
        """The games ``account_id`` plays now: at most one per kind at a sitting, then
        their correspondence games."""
        found = (self._by_player.get((account_id, key)) for key in self.kinds)
        return [*(self.live[g] for g in found if g is not None and g in self.live),
                *self.correspondence_of(account_id)]

    def get(self, game_id: int) -> LiveGame:
        game = self.live.get(game_id)
        if game is None:
            raise GameError(f"There is no game #{game_id} in play.")
        return game

    def playing(self, account_id: int, kind_key: str) -> LiveGame:
        game = self.game_of(account_id, kind_key)
        if game is None:
            raise GameError(f"You are not playing {self.kinds[kind_key].title}.")
        return game

    def taken(self, account_id: int, key: str) -> bool:
        """Whether the player has (or is being given) a game of kind ``key``."""
        return (account_id, key) in self._by_player or (account_id, key) in self.starting
