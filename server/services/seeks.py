"""Seeks: open offers of a game to anyone (FICS's SEEK), and players' formulas.

``<GAME> SEEK [options] [rating range]`` posts a seek; ``SEEKS`` lists them; ``PLAY <n>``
takes one; a new seek that fits one already posted (the same game and options, each
player in the other's rating range, neither refused by the other's formula) starts the
game at once. A seek goes when its owner starts any game, withdraws it, or leaves.

The seeks are kept in one place, this service, and every change goes out on the bus
(topic ``seeks``: ``seek.add`` with the seek as plain data, ``seek.remove`` with its
number) before it is applied: the table here is built from those events alone, so a
node that hears them keeps the same table. ``listeners`` hear each change too (the
assembly sends them on to MUD clients as GMCP ``Seek.Add``/``Seek.Remove``). Seeks live
in memory: after a restart nobody is seeking.

:class:`Formulas` keeps each player's SET FORMULA (kept on the account, ``settings``
``formula``) and judges an opponent by it; the offers of a challenge ask it too.
"""

from __future__ import annotations

import itertools
import time
from typing import Any, Awaitable, Callable

import attrs

from server.bus import Bus, Event
from server.hosting import GameKind, Seat
from server.services.accounts import Accounts
from server.services.correspondence import check_days, days_a_move
from server.services.formula import Formula, FormulaError, facts
from server.services.live import GameError, LiveGame, LiveGames
from server.services.offers import Offers
from server.services.ratings import Ratings, pool

TOPIC = "seeks"
MAX_RATING = 4000

Start = Callable[[GameKind, tuple[Seat, ...], dict[str, Any]], Awaitable[LiveGame]]


@attrs.frozen
class Seek:
    """One open seek, of the game ``kind_key`` names. ``low``/``high``: the ratings it
    accepts (None: any). Its JSON (the bus, GMCP's ``Seek.List``) names the game
    ``kind``."""

    id: int
    kind_key: str
    account_id: int
    name: str
    options: dict[str, Any]
    ranked: bool
    rating: int
    rd: int
    low: int | None = None
    high: int | None = None
    created: float = 0.0
    describe: str = ""  # the game and its options in words ("Triad Dice (ranked)")

    def to_json(self) -> dict[str, Any]:
        data = attrs.asdict(self)
        data["kind"] = data.pop("kind_key")
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Seek":
        data = {**data, "kind_key": data.get("kind")}
        return cls(**{f.name: data[f.name] for f in attrs.fields(cls) if f.name in data})

    def accepts(self, rating: float) -> bool:
        return ((self.low is None or rating >= self.low)
                and (self.high is None or rating <= self.high))

    @property
    def range_text(self) -> str:
        if self.low is None and self.high is None:
            return "any"
        if self.high is None:
            return f"{self.low}+"
        return f"{self.low or 0}-{self.high}"


def parse_range(word: str) -> tuple[int | None, int | None] | None:
    """``1200-1800``, ``1500+`` or ``-1700``: (low, high); None if ``word`` is no range."""
    word = word.strip()
    if word.endswith("+") and word[:-1].isdecimal():
        return int(word[:-1]), None
    low, sep, high = word.partition("-")
    if sep and (low.isdecimal() or not low) and high.isdecimal():
        lo, hi = (int(low) if low else None), int(high)
        if lo is not None and lo > hi:
            raise GameError(f"The rating range {word} is upside down.")
        if hi > MAX_RATING:
            raise GameError(f"No rating is above {MAX_RATING}.")
        return lo, hi
    return None


class Formulas:
    """Each player's formula (None: none), read from the account once and kept."""

    def __init__(self, accounts: Accounts, ratings: Ratings) -> None:
        self.accounts = accounts
        self.ratings = ratings
        self._known: dict[int, Formula | None] = {}

    async def of(self, account_id: int) -> Formula | None:
        if account_id not in self._known:
            account = await self.accounts.get_by_id(account_id)
            text = ((account.settings or {}).get("formula") if account else None) or None
            try:
                self._known[account_id] = Formula.parse(text) if text else None
            except FormulaError:
                self._known[account_id] = None
        return self._known[account_id]

    async def set(self, account_id: int, text: str | None) -> Formula | None:
        """Keep ``text`` as the player's formula (None: remove it).

        :raises FormulaError: it is no formula."""
        formula = Formula.parse(text) if text else None
        await self.accounts.set_setting(account_id, "formula", formula.text if formula else None)
        self._known[account_id] = formula
        return formula

    def forget(self, account_id: int) -> None:
        """Read the formula afresh next time (it changed on another node)."""
        self._known.pop(account_id, None)

    async def rating(self, account_id: int, kind_key: str) -> tuple[float, float]:
        row = await self.ratings.get(account_id, kind_key)
        return (row.rating, row.rd) if row is not None else (1500.0, 350.0)

    async def refusal(self, judge: Seat, other: Seat, kind: GameKind,
                      options: dict[str, Any]) -> str | None:
        """Why ``judge``'s formula refuses ``other`` in this game, or None."""
        formula = await self.of(judge.account_id)
        if formula is None:
            return None
        rating, rd = await self.rating(other.account_id, kind.key)
        return formula.fails(facts(rating, rd, kind.spec.is_ranked(options), kind.key,
                                   kind.spec.describe_options(options)))


class Seeks:
    def __init__(self, bus: Bus, kinds: dict[str, GameKind], games: LiveGames,
                 formulas: Formulas, start: Start, tell: Callable[..., None],
                 offers: Offers | None = None) -> None:
        self.bus = bus
        self.offers = offers
        if offers is not None:
            offers.screens.append(self._screen)
        self.kinds = kinds
        self.games = games
        self.formulas = formulas
        self.start = start
        self.tell = tell
        self.by_id: dict[int, Seek] = {}
        self._ids = itertools.count(1)
        # a new seek's number, and whether this server may take a seek (in a cluster, the
        # numbers and the taking are shared by every node: server/cluster/)
        self.new_id: Callable[[], Awaitable[int]] = self._next_id
        self.claim: Callable[[int], Awaitable[bool]] = self._claim
        # told of every change: (kind "add"|"remove", data), after it is applied here
        self.listeners: list[Callable[[str, dict[str, Any]], None]] = []
        bus.subscribe(TOPIC, self._on_event)
        games.listeners.append(self._game_changed)

    # -- the table: changed only by the bus's events -------------------------------------
    def _on_event(self, _topic: str, event: Event) -> None:
        if event.type == "seek.add":
            seek = Seek.from_json(event.data)
            self.by_id[seek.id] = seek
            self._ids = itertools.count(max(self.by_id) + 1)
            self._told("add", seek.to_json())
        elif event.type == "seek.remove":
            if self.by_id.pop(event.data["id"], None) is not None:
                self._told("remove", {"id": event.data["id"]})
        elif event.type == "formula.changed":
            self.formulas.forget(event.data["account"])

    async def _next_id(self) -> int:
        return next(self._ids)

    async def _claim(self, seek_id: int) -> bool:
        return seek_id in self.by_id

    def _told(self, change: str, data: dict[str, Any]) -> None:
        for listener in self.listeners:
            listener(change, data)

    def _add(self, seek: Seek) -> None:
        self.bus.publish(TOPIC, Event("seek.add", seek.to_json()))

    def _remove(self, seek_id: int) -> None:
        self.bus.publish(TOPIC, Event("seek.remove", {"id": seek_id}))

    # -- what players do -------------------------------------------------------------------
    def of(self, account_id: int) -> list[Seek]:
        return [s for s in self.by_id.values() if s.account_id == account_id]

    async def post(self, kind_key: str, me: Seat, options: dict[str, Any],
                   low: int | None = None, high: int | None = None) -> Seek | LiveGame:
        """Post a seek, or start the game at once with the first seek it fits (oldest
        first). A seek of the same game by the same player is replaced."""
        kind = self.kinds[kind_key]
        if kind.seats != 2 or kind.min_seats != 2 or kind.open_table:
            raise GameError(f"{kind.title} is not sought: it is not a game of two players.")
        if options.get("days") is not None:   # a correspondence game: one of several
            check_days(kind, options)
        elif self.games.taken(me.account_id, kind_key):
            raise GameError(f"You are already playing {kind.title}.")
        rating, rd = await self.formulas.rating(me.account_id,
                                                pool(kind_key, options.get("days")))
        opts = ", ".join(filter(None, [kind.spec.describe_options(
            {k: v for k, v in options.items() if k != "days"}),
            days_a_move(options["days"]) if options.get("days") else ""]))
        seek = Seek(0, kind_key, me.account_id, me.name, options, kind.spec.is_ranked(options),
                    round(rating), round(rd), low, high, time.time(),
                    f"{kind.title}{' (' + opts + ')' if opts else ''}")
        for old in self.of(me.account_id):
            if old.kind_key == kind_key:
                self._remove(old.id)
        for other in sorted(self.by_id.values(), key=lambda s: s.id):
            if await self._fits(seek, other) and await self.claim(other.id):
                self._remove(other.id)
                return await self._start_match(other, seek)
        seek = attrs.evolve(seek, id=await self.new_id())
        self._add(seek)
        return seek

    async def _fits(self, new: Seek, old: Seek) -> bool:
        """Whether two seeks make a game: one game, the same options, each player in the
        other's range, neither refused by the other's formula."""
        if (old.kind_key != new.kind_key or old.account_id == new.account_id
                or old.options != new.options or not old.accepts(new.rating)
                or not new.accepts(old.rating)):
            return False
        kind = self.kinds[new.kind_key]
        a, b = Seat(old.account_id, old.name), Seat(new.account_id, new.name)
        return not (await self.formulas.refusal(a, b, kind, old.options)
                    or await self.formulas.refusal(b, a, kind, old.options))

    async def _start_match(self, older: Seek, newer: Seek) -> LiveGame:
        kind = self.kinds[older.kind_key]
        for seek, other in ((older, newer), (newer, older)):
            self.tell(seek.account_id, f"Your seek of {seek.describe} is met by {other.name}.")
        return await self.start(kind, (Seat(older.account_id, older.name),
                                       Seat(newer.account_id, newer.name)), older.options)

    async def take(self, number: int, me: Seat) -> LiveGame:
        """PLAY <n>: start the game seek ``number`` offers, against its owner."""
        seek = self.by_id.get(number)
        if seek is None:
            raise GameError(f"There is no seek {number}. (SEEKS lists them.)")
        if seek.account_id == me.account_id:
            raise GameError("That is your own seek; UNSEEK takes it back.")
        kind = self.kinds[seek.kind_key]
        if self.games.taken(me.account_id, seek.kind_key) and seek.options.get("days") is None:
            raise GameError(f"You are already playing {kind.title}.")
        rating, _ = await self.formulas.rating(me.account_id,
                                               pool(seek.kind_key, seek.options.get("days")))
        if not seek.accepts(rating):
            raise GameError(f"{seek.name}'s seek is for ratings {seek.range_text}; "
                            f"yours is {round(rating)}.")
        owner = Seat(seek.account_id, seek.name)
        why = await self.formulas.refusal(owner, me, kind, seek.options)
        if why:
            self.tell(seek.account_id, f"Your formula declined {me.name}'s taking your seek "
                                       f"{number} ({why}).")
            raise GameError(f"{seek.name}'s formula declines you ({why}).")
        why = await self.formulas.refusal(me, owner, kind, seek.options)
        if why:
            raise GameError(f"Your formula declines {seek.name} ({why}); SET FORMULA "
                            "changes it.")
        if number not in self.by_id or not await self.claim(number):  # taken while we looked
            raise GameError(f"Seek {number} has just gone.")
        self._remove(number)
        return await self.start(kind, (owner, me), seek.options)

    def withdraw(self, account_id: int, kind_key: str | None = None) -> list[Seek]:
        gone = [s for s in self.of(account_id) if kind_key is None or s.kind_key == kind_key]
        for seek in gone:
            self._remove(seek.id)
        return gone

    async def visible_to(self, me: Seat) -> tuple[list[Seek], int]:
        """The seeks ``me`` may take, by number, and how many formulas hide from them
        (theirs refusing the owner, or the owner's refusing them)."""
        shown, hidden = [], 0
        for seek in sorted(self.by_id.values(), key=lambda s: s.id):
            if seek.account_id != me.account_id:
                kind = self.kinds[seek.kind_key]
                owner = Seat(seek.account_id, seek.name)
                if (await self.formulas.refusal(me, owner, kind, seek.options)
                        or await self.formulas.refusal(owner, me, kind, seek.options)):
                    hidden += 1
                    continue
            shown.append(seek)
        return shown, hidden

    async def set_formula(self, me: Seat, text: str | None) -> tuple[Formula | None, list[LiveGame]]:
        """SET FORMULA: keep it, tell every node, then check again what it judges: the
        pending seeks that may now meet one of ``me``'s (started at once)."""
        formula = await self.formulas.set(me.account_id, text)
        self.bus.publish(TOPIC, Event("formula.changed", {"account": me.account_id}))
        started = []
        for mine in sorted(self.of(me.account_id), key=lambda s: s.id):
            for other in sorted(self.by_id.values(), key=lambda s: s.id):
                if (mine.id in self.by_id and other.id in self.by_id
                        and await self._fits(mine, other) and await self.claim(other.id)):
                    self._remove(mine.id)
                    self._remove(other.id)
                    older, newer = sorted((mine, other), key=lambda s: s.id)
                    started.append(await self._start_match(older, newer))
                    break
        return formula, started

    async def _screen(self, kind: GameKind, challenger: Seat, target: Seat,
                      options: dict[str, Any]) -> str | None:
        """A challenge the target's formula refuses: both are told why."""
        why = await self.formulas.refusal(target, challenger, kind, options)
        if not why:
            return None
        self.tell(target.account_id, f"Your formula declined {challenger.name}'s challenge "
                                     f"to {kind.title} ({why}).")
        return f"{target.name}'s formula declines your challenge ({why})."

    async def recheck_offers(self, me: Seat) -> list[str]:
        """The challenges pending to ``me`` that ``me``'s formula now refuses are
        declined, both sides told why; returns the lines for ``me``."""
        lines = []
        if self.offers is None:
            return lines
        for offer in list(self.offers.by_id.values()):
            if offer.target.account_id != me.account_id:
                continue
            why = await self.formulas.refusal(me, offer.challenger, offer.kind, offer.options)
            if why and self.offers.by_id.pop(offer.id, None) is not None:
                self.tell(offer.challenger.account_id, f"{me.name}'s formula declines your "
                          f"offer of {offer.describe()} ({why}).")
                lines.append(f"Your formula declines {offer.challenger.name}'s offer of "
                             f"{offer.describe()} ({why}).")
        return lines

    # -- what happens to players -----------------------------------------------------------
    def left(self, account_id: int) -> None:
        """A player has left: their seeks go."""
        self.withdraw(account_id)

    def _game_changed(self, game: LiveGame, here: bool) -> None:
        """A game came into play: its players' seeks go (they play now)."""
        if not here:
            return
        players = {s.account_id for s in game.seats if s.computer is None and not s.left}
        for seek in list(self.by_id.values()):
            if seek.account_id in players:
                self._remove(seek.id)
