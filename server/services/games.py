"""Game hosting, shared by every game: challenges, live games, durability, watching,
replay, disconnects and claims, computer players.

The rule of this module: a game's new state, its move row and any ownership, cubit or
rating change are committed in one transaction *before* anyone is told. Live games are
kept in memory for speed; the database is the truth, and ``restore`` rebuilds the
memory from it at start-up.

Everything here raises ``GameError`` (a message for the player) or ``RuleError`` from
the engine on purpose; anything else is a bug.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import random
import time
from typing import Any, Callable

import attrs
import sqlalchemy as sa

from games.errors import RuleError
from games.outcome import Outcome
from server.bus import Bus, Event
from server.db import Database
from server.hosting import ActionContext, FinishContext, GameKind, Seat, StartContext
from server.models import GameMove, GameRecord
from server.services.accounts import Accounts
from server.services.ratings import record_result

log = logging.getLogger(__name__)


def _fact(event: Any, name: str) -> bool:
    """An event's fact (``private``, ``new_phase``, ``tells_action``, ``continues``:
    games/__init__.py), or the fact of
    the engine event it wraps."""
    return bool(getattr(event, name, False) or getattr(getattr(event, "event", None), name, False))


class GameError(Exception):
    """A request the host refuses; the message is for the player."""


@attrs.define(eq=False)
class Offer:
    id: int
    kind: GameKind
    challenger: Seat
    target: Seat
    options: dict[str, Any]
    created: float = attrs.field(factory=time.time)
    # A rematch: the game it replays, and whether the target takes seat 0 (the sides
    # swapped: the challenger had it last time).
    rematch_of: int | None = None
    swapped: bool = False

    def describe(self) -> str:
        opts = self.kind.describe_options(self.options)
        return f"{self.kind.title}{' (' + opts + ')' if opts else ''}"


@attrs.frozen
class Told:
    """What a change of a game tells: its ``lines`` and the ``facts`` the presentation
    decides from, to the seats in ``seats`` (None: every seat) and, if ``watchers``, to
    the watchers; everyone else gets ``others`` (None: the same)."""

    lines: list[str]
    facts: dict[str, Any]
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
    lock: asyncio.Lock = attrs.field(factory=asyncio.Lock)
    absent: dict[int, float] = attrs.field(factory=dict)  # seat -> since when
    outcome: Outcome | None = None
    thinking: set[int] = attrs.field(factory=set)  # computer seats with a move in flight
    # A game rebuilt by ``GameHost.replay``: the game's state as it stands now, which
    # decides what its views may show (``GameKind.replay_view``); None for a live game.
    now: Any = None

    def rng(self, step: int) -> random.Random:
        """The RNG of action number ``step``: replaying the moves replays the dice."""
        return random.Random(f"{self.seed}:{step}")

    def seat_of(self, account_id: int) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat.account_id == account_id and seat.computer is None and not seat.left:
                return index
        return None

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
            return self.kind.view_for(self.state, seat)
        return self.kind.replay_view(self.state, seat, self.now)

    def frame(self, seat: int | None, *, with_view: bool = True) -> dict[str, Any]:
        """The game as one audience sees it now (``seat``; None: its watchers), as plain
        data a consumer draws from alone, on this node or another: which game and kind,
        its version, the seats, whose move it is, how it ended, and the view the game's
        own visibility rules give that audience. Every game event is a frame with the
        lines that audience is told (``GameHost._publish``)."""
        finished = self.outcome is not None
        return {"game": self.id, "kind": self.kind.key, "kind_title": self.kind.title,
                "title": self.title, "version": self.version, "seat": seat,
                "seats": [s.to_json() for s in self.seats], "ranked": self.ranked,
                "to_move": [] if finished else list(self.kind.to_move(self.state)),
                "finished": finished,
                "result": GameHost.describe_outcome(self, self.outcome) if finished else None,
                "view": self.view(seat) if with_view else None}


class GameHost:
    # Seconds a player must stay disconnected before the kind's ``presence`` action is
    # applied: a connection that comes straight back, or that a clean shutdown closes
    # (the host is closed before this passes), does not count as leaving.
    presence_delay = 2.0

    def __init__(self, db: Database, bus: Bus, accounts: Accounts, *,
                 is_online: Callable[[int], bool], reconnect_grace: float,
                 computer_delay: float = 0.3, computer_budget: float = 1.0) -> None:
        self.db = db
        self.bus = bus
        self.accounts = accounts
        self.is_online = is_online
        self.reconnect_grace = reconnect_grace
        self.computer_delay = computer_delay
        self.computer_budget = computer_budget
        self.kinds: dict[str, GameKind] = {}
        self._names: dict[str, GameKind] = {}  # key, prefix and title, lower case
        self.live: dict[int, LiveGame] = {}
        # games that ended lately, for the sessions that look up a game an event names
        # after it has left ``live`` (its last board, the end of a watched game)
        self._by_player: dict[tuple[int, str], int] = {}
        self.offers: dict[int, Offer] = {}
        self._offer_ids = itertools.count(1)
        self._starting: set[tuple[int, str]] = set()  # (account, kind) of games being started
        self._tasks: set[asyncio.Task] = set()

    # -- registration and start-up -----------------------------------------------------
    def register(self, kind: GameKind) -> None:
        """Host ``kind`` (a fresh instance: a kind is hosted once, and is then its game's
        service, ``host.kind(key)``)."""
        if not (kind.key and kind.title and kind.prefix):
            raise TypeError(f"game kind {type(kind).__name__}: key, title and prefix are needed")
        if kind.key in self.kinds:
            raise ValueError(f"game kind {kind.key} registered twice")
        if kind.host is not None and kind.host is not self:
            raise ValueError(f"game kind {kind.key} is hosted already (make a new one)")
        kind.host = self
        self.kinds[kind.key] = kind
        for name in (kind.key, kind.prefix, kind.title):
            self._names.setdefault(name.lower(), kind)

    def kind(self, key: str) -> GameKind:
        return self.kinds[key]

    def kind_named(self, name: str) -> GameKind | None:
        """The game ``name`` names exactly, whatever its case: its key, command prefix or
        title ("dice", "PYR", "Triad Dice"); None for no game."""
        return self._names.get(name.lower())

    async def restore(self) -> int:
        """Load every unfinished game from the database; return how many."""
        async with self.db.session() as tx:
            records = list(await tx.scalars(
                sa.select(GameRecord).where(GameRecord.status == "active").order_by(GameRecord.id)))
        now = time.time()
        for record in records:
            kind = self.kinds.get(record.kind)
            if kind is None:
                log.warning("game #%d: kind %r is not loaded; left as it is", record.id, record.kind)
                continue
            game = LiveGame(
                id=record.id, kind=kind, seats=tuple(Seat.from_json(s) for s in record.seats),
                options=record.options, ranked=record.ranked, seed=record.seed,
                state=kind.state_from_json(record.state), version=record.version,
            )
            for index, seat in enumerate(game.seats):
                if seat.computer is None and not seat.left:
                    game.absent[index] = now  # gone for good if not back in time:
                    self._spawn(self._presence(game, index, False, self.reconnect_grace))
            self._add_live(game)
            self._schedule(game)
        return len(records)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    # -- lookups -----------------------------------------------------------------------
    def _add_live(self, game: LiveGame) -> None:
        self.live[game.id] = game
        for seat in game.seats:
            if seat.computer is None and not seat.left:
                self._by_player[(seat.account_id, game.kind.key)] = game.id

    def _reseat(self, game: LiveGame, seats: tuple[Seat, ...]) -> None:
        """A table's new seats (``GameKind.seats_of``): keep who-plays-where in step."""
        for seat in game.seats:
            if self._by_player.get((seat.account_id, game.kind.key)) == game.id:
                del self._by_player[(seat.account_id, game.kind.key)]
        game.seats = seats
        game.absent = {i: t for i, t in game.absent.items()
                       if i < len(seats) and not seats[i].left}
        for seat in seats:
            if seat.computer is None and not seat.left:
                self._by_player[(seat.account_id, game.kind.key)] = game.id

    def _drop_live(self, game: LiveGame) -> None:
        self.live.pop(game.id, None)
        for seat in game.seats:
            if self._by_player.get((seat.account_id, game.kind.key)) == game.id:
                del self._by_player[(seat.account_id, game.kind.key)]

    def game_of(self, account_id: int, kind_key: str) -> LiveGame | None:
        game_id = self._by_player.get((account_id, kind_key))
        return self.live.get(game_id) if game_id is not None else None

    def games_of(self, account_id: int) -> list[LiveGame]:
        """The games ``account_id`` plays now (at most one per kind)."""
        found = (self._by_player.get((account_id, key)) for key in self.kinds)
        return [self.live[g] for g in found if g is not None and g in self.live]

    def get_live(self, game_id: int) -> LiveGame:
        game = self.live.get(game_id)
        if game is None:
            raise GameError(f"There is no game #{game_id} in play.")
        return game

    def playing(self, account_id: int, kind_key: str) -> LiveGame:
        game = self.game_of(account_id, kind_key)
        if game is None:
            raise GameError(f"You are not playing {self.kinds[kind_key].title}.")
        return game

    # -- challenges --------------------------------------------------------------------
    async def offer(self, kind_key: str, challenger: Seat, target_name: str,
                    options: dict[str, Any], *, rematch_of: int | None = None,
                    swapped: bool = False) -> Offer:
        """Offer a game; ``swapped``: the target would take seat 0 (a rematch)."""
        kind = self.kinds[kind_key]
        target = await self.accounts.get(target_name)
        if target is None or target.is_computer:
            raise GameError(f"There is no player named {target_name}.")
        if target.id == challenger.account_id:
            raise GameError("You cannot challenge yourself.")
        if not self.is_online(target.id):
            raise GameError(f"{target.name} is not connected; challenges are offered to "
                            "players who are online.")
        if await self.accounts.is_ignoring(target.id, challenger.account_id):
            raise GameError(f"{target.name} is not accepting challenges from you.")
        if self.game_of(challenger.account_id, kind_key):
            raise GameError(f"You are already playing {kind.title}.")
        if self.game_of(target.id, kind_key):
            raise GameError(f"{target.name} is already playing {kind.title}.")
        target_seat = Seat(target.id, target.name)
        if not swapped:  # swapped: checked on ACCEPT
            problem = await kind.check_offer(challenger, target_seat, options)
            if problem:
                raise GameError(problem)
        for old in list(self.offers.values()):
            if (old.kind is kind and old.challenger.account_id == challenger.account_id
                    and old.target.account_id == target.id):
                del self.offers[old.id]
        offer = Offer(next(self._offer_ids), kind, challenger, target_seat, options,
                      rematch_of=rematch_of, swapped=swapped)
        self.offers[offer.id] = offer
        again = f", a rematch of game #{rematch_of}" if rematch_of is not None else ""
        self._notify(target.id, f"{challenger.name} challenges you to {offer.describe()}{again}. "
                                f"Type {kind.prefix} ACCEPT {challenger.name} or "
                                f"{kind.prefix} DECLINE {challenger.name}.", kind="challenge")
        return offer

    def _find_offer(self, kind_key: str | None, challenger: str, target: str) -> Offer | None:
        for offer in self.offers.values():
            if ((kind_key is None or offer.kind.key == kind_key)
                    and offer.challenger.name.lower() == challenger.lower()
                    and offer.target.name.lower() == target.lower()):
                return offer
        return None

    async def accept(self, kind_key: str | None, acceptor: Seat, challenger_name: str) -> LiveGame:
        offer = self._find_offer(kind_key, challenger_name, acceptor.name)
        if offer is None:
            raise GameError(f"There is no offer from {challenger_name} to you.")
        del self.offers[offer.id]  # before any await: two ACCEPTs cannot both find it
        if not self.is_online(offer.challenger.account_id):
            raise GameError(f"{offer.challenger.name} is no longer connected.")
        if self.game_of(acceptor.account_id, offer.kind.key):
            raise GameError(f"You are already playing {offer.kind.title}.")
        if self.game_of(offer.challenger.account_id, offer.kind.key):
            raise GameError(f"{offer.challenger.name} is already playing {offer.kind.title}.")
        seats = (offer.challenger, acceptor)
        if offer.swapped:
            seats = (acceptor, offer.challenger)
            # seat 0 first, as it always gets it
            problem = await offer.kind.check_offer(acceptor, offer.challenger, offer.options)
            if problem:
                raise GameError(problem)
        return await self.start_game(offer.kind.key, seats, offer.options)

    def decline(self, kind_key: str | None, target: Seat, challenger_name: str) -> Offer:
        offer = self._find_offer(kind_key, challenger_name, target.name)
        if offer is None:
            raise GameError(f"There is no offer from {challenger_name} to you.")
        del self.offers[offer.id]
        self._notify(offer.challenger.account_id,
                     f"{target.name} declines your offer of {offer.describe()}.")
        return offer

    def withdraw(self, kind_key: str | None, challenger: Seat, target_name: str | None) -> list[Offer]:
        gone = [o for o in self.offers.values()
                if o.challenger.account_id == challenger.account_id
                and (kind_key is None or o.kind.key == kind_key)
                and (target_name is None or o.target.name.lower() == target_name.lower())]
        if not gone:
            who = f" to {target_name}" if target_name else ""
            raise GameError(f"You have no offer{who} to withdraw.")
        for offer in gone:
            del self.offers[offer.id]
            self._notify(offer.target.account_id,
                         f"{challenger.name} withdraws the offer of {offer.describe()}.")
        return gone

    def pending(self, account_id: int) -> tuple[list[Offer], list[Offer]]:
        """(offers to this account, offers from it), oldest first."""
        to_me = [o for o in self.offers.values() if o.target.account_id == account_id]
        from_me = [o for o in self.offers.values() if o.challenger.account_id == account_id]
        return to_me, from_me

    # -- rematches ---------------------------------------------------------------------
    @staticmethod
    def takes_rematches(kind: GameKind) -> bool:
        """A game of two fixed seats, offered by CHALLENGE: not a table whose players come
        and go (``open_table``), not a solitaire."""
        return kind.seats == 2 and kind.min_seats == 2 and not kind.open_table

    async def last_finished(self, account_id: int, kind_key: str, opponent: str | None = None,
                            batch: int = 200) -> GameRecord | None:
        """The latest finished ``kind_key`` game that ``account_id`` played, against
        ``opponent`` (a name, or "computer" for the computer at any level) if given."""
        def matches(seats: list[dict]) -> bool:
            mine = [i for i, s in enumerate(seats)
                    if s["id"] == account_id and not s.get("computer")]
            if len(seats) != 2 or len(mine) != 1:
                return False
            other = seats[1 - mine[0]]
            if opponent is None:
                return True
            if opponent.lower() == "computer":
                return bool(other.get("computer"))
            return not other.get("computer") and other["name"].lower() == opponent.lower()

        before = None
        async with self.db.session() as tx:
            while True:
                query = sa.select(GameRecord.id, GameRecord.seats).where(
                    GameRecord.kind == kind_key, GameRecord.status == "finished")
                if before is not None:
                    query = query.where(GameRecord.id < before)
                rows = (await tx.execute(query.order_by(GameRecord.id.desc()).limit(batch))).all()
                found = next((game_id for game_id, seats in rows if matches(seats)), None)
                if found is not None:
                    return await tx.get(GameRecord, found)
                if len(rows) < batch:
                    return None
                before = rows[-1][0]

    async def rematch(self, kind_key: str, me: Seat, opponent: str | None = None
                      ) -> tuple[GameRecord, Offer | LiveGame]:
        """Play ``me``'s last finished game of ``kind_key`` (with ``opponent``) again:
        the same options, the seats swapped (who had seat 0, the first player where the
        game has one, has seat 1). A person gets the usual offer (and every CHALLENGE
        check); the computer, at the same level, starts at once.

        A first player the game drew at random (a ``starter`` seat in its initial state,
        as Triad Dice draws one) is fixed by the option ``starter`` so that it alternates.
        """
        kind = self.kinds[kind_key]
        if not self.takes_rematches(kind):
            raise GameError(f"{kind.title} has no rematches.")
        record = await self.last_finished(me.account_id, kind_key, opponent)
        if record is None:
            who = f" with {opponent}" if opponent else ""
            raise GameError(f"You have no finished game of {kind.title}{who} to play again.")
        mine = next(i for i, s in enumerate(record.seats)
                    if s["id"] == me.account_id and not s.get("computer"))
        other = Seat.from_json(record.seats[1 - mine])
        options = dict(record.options)
        starter = (record.initial_state or {}).get("starter")
        if starter in (0, 1) and not isinstance(starter, bool):
            options["starter"] = starter  # the same seat number: the other player, swapped
        if other.computer is None:
            offer = await self.offer(kind_key, me, other.name, options,
                                     rematch_of=record.id, swapped=mine == 0)
            return record, offer
        return record, await self.play_computer(kind_key, me, other.computer, options,
                                                computer_first=mine == 0)

    async def play_computer(self, kind_key: str, me: Seat, level: str, options: dict[str, Any],
                            *, computer_first: bool = False) -> LiveGame:
        """Start ``me``'s game against the computer at ``level`` at once (unranked)."""
        kind = self.kinds[kind_key]
        if self.game_of(me.account_id, kind_key):
            raise GameError(f"You are already playing {kind.title}.")
        options = {k: v for k, v in options.items() if k != "ranked"}
        computer = await self.accounts.computer()
        bot = Seat(computer.id, f"Computer({level})", level)
        return await self.start_game(kind_key, (bot, me) if computer_first else (me, bot),
                                     options)

    # -- starting and playing ----------------------------------------------------------
    async def start_game(self, kind_key: str, seats: tuple[Seat, ...],
                         options: dict[str, Any]) -> LiveGame:
        kind = self.kinds[kind_key]
        # Reserve every player's place before the first await: two acceptances racing to
        # start games for the same player cannot both get one.
        humans = [(s.account_id, kind.key) for s in seats if s.computer is None]
        for key in humans:
            if key in self._by_player or key in self._starting:
                name = next(s.name for s in seats if s.account_id == key[0])
                raise GameError(f"{name} is already playing {kind.title}.")
        self._starting.update(humans)
        try:
            return await self._start_game(kind, seats, options)
        finally:
            self._starting.difference_update(humans)

    async def _start_game(self, kind: GameKind, seats: tuple[Seat, ...],
                          options: dict[str, Any]) -> LiveGame:
        seed = random.SystemRandom().getrandbits(48)
        now = time.time()
        async with self.db.session() as tx:
            record = GameRecord(
                kind=kind.key, status="active", seats=[s.to_json() for s in seats],
                options=options, ranked=kind.is_ranked(options), seed=seed,
                initial_state={}, state={}, version=0, created_at=now, updated_at=now,
            )
            tx.add(record)
            await tx.flush()
            rng = random.Random(f"{seed}:0")
            state = await kind.on_start(StartContext(tx, record.id, seats, options, rng))
            record.initial_state = record.state = kind.state_to_json(state)
            await tx.commit()
        game = LiveGame(id=record.id, kind=kind, seats=seats, options=options,
                        ranked=record.ranked, seed=seed, state=state, version=0)
        self._add_live(game)
        opts = kind.describe_options(options)
        self._publish(game, "game.start", Told(
            [f"{game.title} begins{' (' + opts + ')' if opts else ''}."], {}))
        self._schedule(game)
        return game

    async def act(self, account_id: int, kind_key: str, action: Any, *,
                  seat_change: bool = False) -> LiveGame:
        """Apply a player's action (one of the kind's typed actions) to their game.
        ``seat_change``: the action changes the player's place at a table (a LEAVE, a
        BACK), not the game: its events word it, as for ``_apply``.

        :raises RuleError: the kind's ``apply`` refuses it (nothing changes).
        :raises GameError: the player has no such game (or it has just ended)."""
        game = self.playing(account_id, kind_key)
        async with game.lock:
            if game.id not in self.live:
                raise GameError("That game has just ended.")
            await self._apply(game, game.seat_of(account_id), action, seat_change=seat_change)
        self._schedule(game)
        return game

    async def act_text(self, account_id: int, kind_key: str, text: str, *,
                       seat_change: bool = False) -> LiveGame:
        """``act`` with ``text`` in the game's notation, read by the kind's notation (the
        one place text becomes an action), for callers holding text: scripts and tests.

        :raises BadNotation: ``text`` is no action of that game."""
        action = self.kind(kind_key).parse_action(text)
        return await self.act(account_id, kind_key, action, seat_change=seat_change)

    async def act_for(self, game_id: int, seat: int, action: Any,
                      note: str | None = None, auto: bool = False) -> LiveGame:
        """Apply ``action`` for ``seat`` of game ``game_id`` on the server's authority
        rather than a connected player's: a service seating a newcomer at a table
        (``seat`` is then the new seat's number, ``len(game.seats)``, or a returning
        player's old seat), or playing for the player (``auto``: Pyramid's AUTO, whose
        moves are told as lines, not boards). The kind's ``apply`` decides what it
        allows."""
        game = self.get_live(game_id)
        async with game.lock:
            if game.id not in self.live:
                raise GameError("That game has just ended.")
            await self._apply(game, seat, action, note=note, auto=auto)
        self._schedule(game)
        return game

    async def resign(self, account_id: int, kind_key: str) -> LiveGame:
        game = self.playing(account_id, kind_key)
        async with game.lock:
            seat = game.seat_of(account_id)
            # at a table whose players come and go, resigning is leaving one's seat
            await self._apply(game, seat, game.kind.resign_action,
                              seat_change=game.kind.open_table)
        self._schedule(game)
        return game

    async def claim(self, account_id: int, kind_key: str) -> LiveGame:
        """Win a game whose opponent has been away longer than the reconnect grace."""
        game = self.playing(account_id, kind_key)
        async with game.lock:
            me = game.seat_of(account_id)
            others = [s for s in game.absent if s != me]
            if not others:
                raise GameError("Your opponent is connected; there is nothing to claim.")
            seat = min(others, key=lambda s: game.absent[s])
            waited = time.time() - game.absent[seat]
            if waited < self.reconnect_grace:
                left = int(self.reconnect_grace - waited + 0.999)
                raise GameError(f"{game.seats[seat].name} may still come back; you can CLAIM "
                                f"in {left} second{'s' if left != 1 else ''}.")
            absent = game.seats[seat].name
            clock = game.kind.timeout(game.state)
            if clock is not None and clock[1] == seat:
                # the game waits only for what the absent player's clock would do for
                # them (a Triptycha winner's DONE in trading): do it now
                await self._apply(game, seat, clock[2],
                                  note=f"{absent} did not come back; {game.seats[me].name} "
                                       f"claims their turn.")
                return game
            try:
                await self._apply(game, seat, game.kind.resign_action,
                                  note=f"{game.seats[me].name} claims the game: "
                                       f"{absent} did not come back.")
            except RuleError:
                raise GameError(f"The game is decided; it waits for you, not for {absent}: "
                                f"there is nothing to claim.") from None
        return game

    async def _apply(self, game: LiveGame, seat: int | None, action: Any, note: str | None = None,
                     seat_change: bool = False, auto: bool = False) -> None:
        """Apply, commit, then tell: ``note``, then ``<name>: <notation>`` (the move as
        typed, which players and scripts read back), then the events' words.

        A seat change (``seat_change``; the kind's presence actions; seating a newcomer,
        or a player back in their old seat, at a table) is told by its events alone
        ("Bob sits down in seat 2 with 200 cubits."), not by the table's own notation
        for it, unless no event words it.
        """
        if seat is None:
            raise GameError("You are watching that game, not playing it.")
        seat_change = seat_change or seat >= len(game.seats) or game.seats[seat].left
        step = game.version + 1
        new_state, events = game.kind.apply(game.state, seat, action, game.rng(step))
        notation = game.kind.format_action(action)
        outcome = game.kind.outcome(new_state)
        seats = game.kind.seats_of(new_state, game.seats)
        finish_lines: list[str] = []
        now = time.time()
        async with self.db.session() as tx:
            values: dict[str, Any] = dict(state=game.kind.state_to_json(new_state),
                                          version=step, updated_at=now)
            if seats != game.seats:
                values.update(seats=[s.to_json() for s in seats])
            if outcome is not None:
                values.update(status="finished", result=outcome.to_json())
            result = await tx.execute(
                sa.update(GameRecord)
                .where(GameRecord.id == game.id, GameRecord.version == game.version)
                .values(**values))
            if result.rowcount != 1:
                raise GameError("That game changed under you; look again and retry.")
            tx.add(GameMove(game_id=game.id, seq=step, seat=seat, notation=notation, created_at=now))
            await game.kind.on_action(ActionContext(
                tx, game.id, game.seats, game.options, seat, action, game.state, new_state,
                events))
            if outcome is not None:
                finish_lines = await self._finish(tx, game, new_state, outcome, seats)
            await tx.commit()
        facts = {"actor": seat, "was_to_move": list(game.kind.to_move(game.state)),
                 "to_move": [] if outcome else list(game.kind.to_move(new_state)),
                 "board": not events or not all(_fact(e, "private") for e in events),
                 "new_phase": any(_fact(e, "new_phase") for e in events), "auto": auto}
        players = self._told(game)  # a player who leaves with this action hears of it too
        audience = None if outcome is not None else game.kind.audience(new_state, seat, events)
        if seats != game.seats:
            self._reseat(game, seats)
        game.state = new_state
        game.version = step
        hidden = any(_fact(e, "private") for e in events)
        lines = [note] if note else []
        worded = self._worded(game.kind, events)
        # one announcement per action (docs/design.md, Screens, 3): the move as typed, unless an
        # event's sentence tells it, attributed ("Bob lays tile <3> in niche 6.")
        said = any(_fact(e, "tells_action") for e in events)
        if not (seat_change and worded) and not said:
            lines.append(f"{game.seats[seat].name}: {notation}")
        # what the others are told of an action with a hidden part (a tile drawn into a
        # hand): the note and the sentences of its public events, never the move as typed
        public = ([note] if note else []) + self._worded(game.kind, events, public_only=True)
        lines.extend(worded)
        if outcome is not None:
            game.outcome = outcome
            ending = [self.describe_outcome(game, outcome), *finish_lines]
            lines.extend(ending)
            public.extend(ending)
            self._drop_live(game)
        full = Told(lines, facts)
        if audience is not None:  # the kind tells it in full to some only
            full = Told(lines, facts, seats=audience.seats, watchers=audience.watchers,
                        others=self._outline(game, seat, note, audience, facts))
        elif hidden and not facts["new_phase"]:
            # its player is told all; everyone else what is public of it (the action that
            # starts a new phase, which everyone must look at, is told to all)
            full = Told(lines, facts, seats=(seat,), watchers=False, others=Told(public, facts))
        self._publish(game, "game.end" if outcome else "game.update", full, also=players)

    @staticmethod
    def _worded(kind: GameKind, events: list, public_only: bool = False) -> list[str]:
        """The sentences of ``events`` (of the public ones only, if ``public_only``); an
        event that ``continues`` the one before joins its sentence."""
        worded: list[str] = []
        for e in events:
            text = kind.describe_event(e)
            if not text or (public_only and _fact(e, "private")):
                continue
            if worded and _fact(e, "continues"):
                worded[-1] += " " + text
            else:
                worded.append(text)
        return worded

    def _outline(self, game: LiveGame, seat: int, note: str | None, audience: Any,
                 facts: dict[str, Any]) -> "Told":
        """The action as told to those the kind's ``audience`` does not tell in full: the
        note and its public events' sentences, with the actor's name; and its facts, with
        the board changed only if a public event tells of it."""
        public = audience.public
        said = " ".join(t for t in map(game.kind.describe_event, public) if t)
        lines = ([note] if note else []) + ([f"{game.seats[seat].name}: {said}"] if said else [])
        return Told(lines, {**facts, "board": bool(said),
                            "new_phase": any(_fact(e, "new_phase") for e in public)})

    async def _finish(self, tx, game: LiveGame, state: Any, outcome: Outcome,
                      seats: tuple[Seat, ...]) -> list[str]:
        lines = list(await game.kind.on_finish(FinishContext(
            tx, game.id, seats, game.options, state, outcome)))
        # one record per account in the game at its end (computer seats share one account)
        counted: dict[int, int] = {}
        for index, seat in enumerate(seats):
            if not seat.left:
                counted.setdefault(seat.account_id, index)
        humans = list(counted)
        winner = outcome.winner
        if winner is not None:
            won = seats[winner].account_id
            winner = humans.index(won) if counted.get(won) == winner else None
        changes = {}
        if game.kind.counts(outcome):
            changes = await record_result(tx, game.kind.key, humans, winner,
                                          game.ranked and len(seats) == 2)
        for seat in seats:
            if seat.account_id in changes:
                old, new = changes[seat.account_id]
                lines.append(f"{seat.name}'s {game.kind.title} rating: {old:.0f} -> {new:.0f}")
        return lines

    @staticmethod
    def describe_outcome(game: LiveGame, outcome: Outcome) -> str:
        return game.kind.describe_outcome(game.state, game.id, outcome, game.names)

    # -- computer players --------------------------------------------------------------
    def _schedule(self, game: LiveGame) -> None:
        """After a change: let a computer seat move, and arm the game's clock if any."""
        self._schedule_computer(game)
        self._schedule_timeout(game)

    def _spawn(self, coro) -> asyncio.Task:  # noqa: ANN001
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def spawn(self, coro) -> asyncio.Task:  # noqa: ANN001
        """Run ``coro`` as a background task of the host (a game's helper, e.g. one that
        plays for a player); it is cancelled when the host closes."""
        return self._spawn(coro)

    def _schedule_timeout(self, game: LiveGame) -> None:
        if game.id not in self.live:
            return
        clock = game.kind.timeout(game.state)
        if clock is not None:
            self._spawn(self._timeout(game, game.version, *clock))

    async def _timeout(self, game: LiveGame, version: int, seconds: float, seat: int,
                       action: Any, note: str | None = None) -> None:
        await asyncio.sleep(seconds)
        try:
            async with game.lock:
                if game.version != version or game.id not in self.live:
                    return  # something happened meanwhile: that change armed its own clock
                await self._apply(game, seat, action,
                                  note=f"Time is up for {game.seats[seat].name}."
                                  if note is None else note)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("game #%d: the timeout action %r failed", game.id, action)
            return
        self._schedule(game)

    def _schedule_computer(self, game: LiveGame) -> None:
        if game.id not in self.live:
            return
        movers = [s for s in game.kind.to_move(game.state) if game.seats[s].computer]
        if not game.kind.simultaneous:
            if movers:
                self._spawn(self._computer_turn(game, movers[0], game.version))
            return
        for seat in movers:  # seats acting at once: one move in flight per computer seat
            if seat not in game.thinking:
                game.thinking.add(seat)
                self._spawn(self._computer_turn(game, seat, game.version))

    async def _computer_turn(self, game: LiveGame, seat: int, version: int) -> None:
        kind = game.kind
        try:
            await asyncio.sleep(kind.pace(game, seat))
            level = game.seats[seat].computer
            rng = random.Random(f"{game.seed}:ai:{version}:{seat}" if kind.simultaneous
                                else f"{game.seed}:ai:{version}")
            action = await asyncio.to_thread(kind.choose_action, game.state, seat, level,
                                             rng, self.computer_budget)
            async with game.lock:
                if game.id not in self.live:
                    return
                if game.version != version and not (
                        kind.simultaneous and seat in kind.to_move(game.state)):
                    return
                try:
                    await self._apply(game, seat, action)
                except RuleError:
                    if not kind.simultaneous:
                        raise
                    # the others' moves made this one stale: choose again (below)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("game #%d: the computer failed to move", game.id)
            return
        finally:
            game.thinking.discard(seat)
        self._schedule(game)

    # -- presence ----------------------------------------------------------------------
    def player_left(self, account_id: int, name: str) -> None:
        """A player's connection is gone: their games wait, their offers lapse."""
        for offer in list(self.offers.values()):
            if account_id in (offer.challenger.account_id, offer.target.account_id):
                del self.offers[offer.id]
                other = (offer.target if offer.challenger.account_id == account_id
                         else offer.challenger)
                self._notify(other.account_id, f"The offer of {offer.describe()} between "
                             f"{offer.challenger.name} and {offer.target.name} lapses: "
                             f"{name} has left.")
        for game in self.games_of(account_id):
            seat = game.seat_of(account_id)
            game.absent[seat] = time.time()
            self._spawn(self._presence(game, seat, False, self.presence_delay))
            if game.kind.open_table:  # its ``presence`` says what an absence means
                continue
            for other in game.seats:
                if other.account_id != account_id and other.computer is None and not other.left:
                    self._notify(other.account_id,
                                 f"{name} has disconnected from game #{game.id}. If they are "
                                 f"not back within {int(self.reconnect_grace)} seconds you may "
                                 f"{game.kind.prefix} CLAIM the game.")

    def player_returned(self, account_id: int, name: str) -> list[LiveGame]:
        games = self.games_of(account_id)
        for game in games:
            seat = game.seat_of(account_id)
            game.absent.pop(seat, None)
            self._spawn(self._presence(game, seat, True))
            for other in game.seats:
                if other.account_id != account_id and other.computer is None and not other.left:
                    self._notify(other.account_id, f"{name} is back in game #{game.id}.")
        return games

    async def _presence(self, game: LiveGame, seat: int, here: bool, delay: float = 0.0) -> None:
        """Apply the kind's action for a player who left (``here`` False) or came back,
        after ``delay`` seconds if they are still away (or still back) by then."""
        if delay:
            await asyncio.sleep(delay)
        account_id = game.seats[seat].account_id
        try:
            async with game.lock:
                if (game.id not in self.live or game.seat_of(account_id) != seat
                        or (seat in game.absent) == here):
                    return
                action = game.kind.presence(game.state, seat, here)
                if action is None:
                    return
                await self._apply(game, seat, action, seat_change=True)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("game #%d: the presence action for seat %d failed", game.id, seat)
            return
        self._schedule(game)

    # -- finished games ----------------------------------------------------------------
    async def record(self, game_id: int) -> tuple[GameRecord, list[GameMove]]:
        async with self.db.session() as tx:
            record = await tx.get(GameRecord, game_id)
            if record is None:
                raise GameError(f"There is no game #{game_id}.")
            moves = list(await tx.scalars(
                sa.select(GameMove).where(GameMove.game_id == game_id).order_by(GameMove.seq)))
            return record, moves

    async def replay(self, game_id: int, upto: int | None = None) -> tuple[LiveGame, list[GameMove]]:
        """The game as it stood after ``upto`` moves (all of them when None), rebuilt from
        its initial state and stored move list, as a detached LiveGame shown as the game
        stands now (``LiveGame.now``). A game in play is replayed only as far as its
        watchers have been told (``_told_to_watchers``): REPLAY never shows more of it than
        a watcher may see now."""
        record, moves = await self.record(game_id)
        kind = self.kinds.get(record.kind)
        if kind is None:
            raise GameError(f"Game #{game_id} is a game this server does not host now.")
        game = LiveGame(id=record.id, kind=kind, seats=tuple(Seat.from_json(s) for s in record.seats),
                        options=record.options, ranked=record.ranked, seed=record.seed,
                        state=kind.state_from_json(record.initial_state), version=0,
                        now=kind.state_from_json(record.state))
        shown = self._told_to_watchers(game, moves) if record.status == "active" else moves
        if upto is not None and not 0 <= upto <= len(shown):
            yet = " that may be shown yet" if len(shown) < len(moves) else ""
            raise GameError(f"Game #{game_id} has moves 0 to {len(shown)}{yet}.")
        game.seats = kind.seats_of(game.state, game.seats)
        for move in shown[:upto]:
            game.state, _ = kind.apply(game.state, move.seat, kind.parse_action(move.notation),
                                       game.rng(move.seq))
            game.version = move.seq
            game.seats = kind.seats_of(game.state, game.seats)
        if record.result:
            game.outcome = Outcome.from_json(record.result)
        return game, shown

    @staticmethod
    def _told_to_watchers(game: LiveGame, moves: list[GameMove]) -> list[GameMove]:
        """The first of ``moves`` (replayed from ``game``'s state) up to the first that
        the kind's ``audience`` does not tell the watchers of now (``game.now``)."""
        kind, state = game.kind, game.state
        for count, move in enumerate(moves):
            state, events = kind.apply(state, move.seat, kind.parse_action(move.notation),
                                       game.rng(move.seq))
            audience = kind.audience(game.now, move.seat, events)
            if audience is not None and not audience.watchers:
                return moves[:count]
        return moves

    async def history(self, account_id: int, limit: int = 10) -> list[GameRecord]:
        """Recent finished games with ``account_id`` in a seat, newest first."""
        async with self.db.session() as tx:
            records = await tx.scalars(
                sa.select(GameRecord).where(GameRecord.status == "finished")
                .order_by(GameRecord.id.desc()).limit(500))
            return [r for r in records if any(s["id"] == account_id for s in r.seats)][:limit]

    # -- announcements -----------------------------------------------------------------
    def tell(self, account_id: int, text: str) -> None:
        """A notice to one player (a game's service telling a player something)."""
        self._notify(account_id, text)

    def _notify(self, account_id: int, text: str, kind: str = "notice") -> None:
        self.bus.publish(f"account:{account_id}", Event(kind, {"text": text}))

    @staticmethod
    def _told(game: LiveGame) -> set[int]:
        """The accounts told of the game's changes: its players, not the computer."""
        return {s.account_id for s in game.seats if s.computer is None and not s.left}

    def _publish(self, game: LiveGame, kind: str, told: "Told",
                 also: set[int] = frozenset()) -> None:
        """Tell every audience of ``game`` what it is told of this change, each as one
        self-contained event (a :meth:`LiveGame.frame` with its ``lines`` and the
        action's ``facts``): every player on their account topic (``also`` these
        accounts, players who left with this action) and the watchers on the game topic.
        ``told`` says who hears it in full; the others get ``told.others`` (lines that
        name only what they may know, or none). Each audience gets every version, so a
        consumer that sees a gap has missed an event, and each carries its audience's
        whole view, so the next one draws the board as it stands."""
        seats = {s.account_id: i for i, s in enumerate(game.seats)
                 if s.computer is None and (not s.left or s.account_id in also)}
        for account_id in sorted(self._told(game) | also):
            seat = seats.get(account_id)
            if seat is None:
                continue
            part = told.to(seat)
            self.bus.publish(f"account:{account_id}", Event(kind, {
                **game.frame(seat), "lines": part.lines, **part.facts}))
        topic = f"game:{game.id}"
        if self.bus.subscribers(topic):
            part = told.to(None)
            self.bus.publish(topic, Event(kind, {**game.frame(None), "lines": part.lines,
                                                 **part.facts}))

    def watchers(self, game_id: int) -> int:
        return self.bus.subscribers(f"game:{game_id}")


__all__ = ["GameHost", "GameError", "LiveGame", "Offer", "RuleError"]
