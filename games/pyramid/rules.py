"""Pyramid: the rules engine (docs/rules/pyramid.md).

One ``State`` is a *match*: a standard game is a match of one game, a tournament a
match of six ("A tournament is six games; par is a net zero; the best net score
wins").  Each game of the match is dealt from its own seed held in the state, so
"Use Same Deck" is simply two tournaments built with the same seeds
(``new_game({"mode": "tournament", "seeds": other.seeds}, rng)``).  A two-player
tournament is two independent States; the seat is always 0.

Inside a game (``Game``):

- 28 cards form the pyramid (rows 1..7), 24 the face-down Pack whose top card is
  turned face up.  ``pack[0]`` is the Pack's top, ``waste[-1]`` the Waste top.
- A pyramid card is available when both cards covering it are gone; the Pack top and
  the Waste top are always available.
- A move removes two available cards totalling 13, or one available King.
- ``D`` moves the Pack top to the Waste; on an empty Pack it redeals (the Waste
  turned over becomes the Pack).  Two redeals: three deals ("passes") in all.
- The game ends when every card is gone, when no move is left (no redeal, empty
  Pack, no pair), or when the player ends it (``END``).
- Par scoring is ``par_score``.
"""

from __future__ import annotations

import random
from typing import Final, Iterator

import attrs

from games.errors import IllegalAction
from games.outcome import Outcome
from games.pyramid.cards import (
    COVERED_BY,
    KING,
    PYRAMID_SIZE,
    ROWS,
    card_text,
    index_of,
    new_deck_order,
    rank,
    rank_text,
    spot_name,
)

PACK = "P"
WASTE = "W"
DEALS: Final = 3  # two redeals: three passes through the Pack
TOURNAMENT_GAMES = 6
_NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                 "ten", "eleven", "twelve")
#: Par Pyramid: the base score by the deal in which the pyramid was cleared.
PAR_BASE = {1: 50, 2: 35, 3: 20}


def number_word(n: int) -> str:
    """A count as a word, as a sentence says it ("six", "twelve"); past twelve, digits."""
    return _NUMBER_WORDS[n] if 0 <= n < len(_NUMBER_WORDS) else str(n)


def games_word(n: int) -> str:
    """How many games, in words: "one game", "six games"."""
    return f"{number_word(n)} game{'' if n == 1 else 's'}"


# --------------------------------------------------------------------------- spots

def _spot_key(spot: str) -> int:
    if spot == PACK:
        return PYRAMID_SIZE
    if spot == WASTE:
        return PYRAMID_SIZE + 1
    row, col = spot.split(",")
    return index_of(int(row), int(col))


def _is_spot(spot: str) -> bool:
    if spot in (PACK, WASTE):
        return True
    try:
        row, col = (int(x) for x in spot.split(","))
    except ValueError:
        return False
    return 1 <= row <= 7 and 1 <= col <= row and spot == f"{row},{col}"


def _canonical_spots(spots) -> tuple[str, ...]:
    """Pairs are unordered: keep pyramid spots first (row-major), then P, then W."""
    spots = tuple(spots)
    for spot in spots:
        if not isinstance(spot, str) or not _is_spot(spot):
            raise ValueError(f"not a Pyramid spot: {spot!r}")
    return tuple(sorted(spots, key=_spot_key))


@attrs.frozen(repr=False)
class Action:
    """``remove`` (one King or two cards totalling 13), ``deal`` (D) or ``end``.

    Spots are "r,c" (row, column), "P" (Pack top) or "W" (Waste top).
    """

    kind: str = attrs.field(validator=attrs.validators.in_(("remove", "deal", "end")))
    spots: tuple[str, ...] = attrs.field(default=(), converter=_canonical_spots)

    def __attrs_post_init__(self):
        if self.kind == "remove" and len(self.spots) not in (1, 2):
            raise ValueError("remove takes one or two spots")
        if self.kind != "remove" and self.spots:
            raise ValueError(f"{self.kind} takes no spots")

    @classmethod
    def remove(cls, *spots: str) -> "Action":
        return cls("remove", spots)

    def __repr__(self) -> str:
        if self.kind == "remove":
            return f"Action.remove({', '.join(repr(s) for s in self.spots)})"
        return f"Action({self.kind!r})"


DEAL = Action("deal")
END = Action("end")


# --------------------------------------------------------------------------- events

@attrs.frozen
class Removed:
    game_no: int
    spots: tuple[str, ...]
    cards: tuple[str, ...]

    def __str__(self) -> str:
        what = " + ".join(f"{c} at {s}" for c, s in zip(self.cards, self.spots))
        return f"removed {what}"


@attrs.frozen
class Discarded:
    game_no: int
    card: str
    next_top: str | None

    def __str__(self) -> str:
        nxt = f"; {self.next_top} turned up" if self.next_top else "; the Pack is empty"
        return f"{self.card} to the Waste Pile{nxt}"


@attrs.frozen
class Redealt:
    game_no: int
    deal: int
    redeals_left: int

    new_phase = True  # a new pass through the Pack (games/__init__.py: event facts)

    def __str__(self) -> str:
        return f"redeal: deal {self.deal} begins, {self.redeals_left} redeal(s) left"


@attrs.frozen
class PyramidCleared:
    game_no: int
    deal: int

    def __str__(self) -> str:
        return f"pyramid cleared in deal {self.deal}"


@attrs.frozen
class GameOver:
    game_no: int
    how: str  # "won" | "stuck" | "ended"
    score: int
    total: int

    def __str__(self) -> str:
        why = {"won": "all cards removed", "stuck": "no move left",
               "ended": "ended by the player"}[self.how]
        return f"game {self.game_no} over ({why}): Par score {self.score:+d}, total {self.total:+d}"


@attrs.frozen
class NewDeal:
    game_no: int

    new_phase = True

    def __str__(self) -> str:
        return f"game {self.game_no} dealt"


# --------------------------------------------------------------------------- game

@attrs.frozen
class Game:
    """One deal of Pyramid.  ``pyramid[i]`` is a card or None once removed."""

    pyramid: tuple[int | None, ...] = attrs.field(converter=tuple)
    pack: tuple[int, ...] = attrs.field(converter=tuple)
    waste: tuple[int, ...] = attrs.field(converter=tuple, default=())
    deal: int = 1
    cleared_in: int = 0  # the deal in which the pyramid was cleared, 0 = not yet
    over: bool = False
    how: str = ""  # "", "won", "stuck", "ended"
    score: int | None = None

    @classmethod
    def from_deck(cls, deck) -> "Game":
        deck = tuple(deck)
        return cls(pyramid=deck[:PYRAMID_SIZE], pack=deck[PYRAMID_SIZE:])

    @classmethod
    def dealt(cls, seed: int) -> "Game":
        return cls.from_deck(new_deck_order(random.Random(seed)))

    @classmethod
    def from_rows(cls, pyramid, pack) -> "Game":
        """A smaller board, for tests and puzzles: ``pyramid`` holds the cards of rows
        1..r (r = 1..7, row-major) and ``pack`` any number of further cards (top first).

        The missing rows are simply gone, so row r is fully available at the start and
        every rule (and the Par score) applies unchanged.
        """
        pyramid, pack = tuple(pyramid), tuple(pack)
        rows = next((r for r in range(1, ROWS + 1) if r * (r + 1) // 2 == len(pyramid)), 0)
        if not rows:
            raise ValueError(f"{len(pyramid)} cards do not fill 1 to {ROWS} pyramid rows")
        cards = pyramid + pack
        if len(set(cards)) != len(cards) or not all(0 <= c < 52 for c in cards):
            raise ValueError("the cards must be distinct, each 0..51")
        return cls(pyramid=pyramid + (None,) * (PYRAMID_SIZE - len(pyramid)), pack=pack)

    @property
    def redeals_left(self) -> int:
        return DEALS - self.deal

    @property
    def pyramid_left(self) -> int:
        return sum(1 for c in self.pyramid if c is not None)

    @property
    def cards_left(self) -> int:
        return self.pyramid_left + len(self.pack) + len(self.waste)

    def is_available(self, index: int) -> bool:
        pyr = self.pyramid
        return pyr[index] is not None and all(pyr[j] is None for j in COVERED_BY[index])

    def available(self) -> list[str]:
        """Available spots: uncovered pyramid cards, then P and W when not empty."""
        out = [spot_name(i) for i in range(PYRAMID_SIZE) if self.is_available(i)]
        if self.pack:
            out.append(PACK)
        if self.waste:
            out.append(WASTE)
        return out

    def card_at(self, spot: str) -> int | None:
        if spot == PACK:
            return self.pack[0] if self.pack else None
        if spot == WASTE:
            return self.waste[-1] if self.waste else None
        return self.pyramid[_spot_key(spot)]

    def can_deal(self) -> bool:
        return bool(self.pack) or (self.redeals_left > 0 and bool(self.waste))


def par_score(game: Game) -> int:
    """Par Pyramid (docs/rules/pyramid.md): 50/35/20 less the Waste Pile if the pyramid
    was cleared in deal 1/2/3 (so a win in deal 1 is 50), else minus every card left.

    A game ended by the player before the Pack was depleted counts the cards still in
    the Pack with the Waste Pile.
    """
    if game.cleared_in:
        return PAR_BASE[game.cleared_in] - len(game.waste) - len(game.pack)
    return -game.cards_left


def game_actions(game: Game) -> Iterator[Action]:
    """The legal removes (Kings, then pairs), then D, then END."""
    if game.over:
        return
    spots = game.available()
    values = [rank(game.card_at(s)) for s in spots]
    for s, v in zip(spots, values):
        if v == KING:
            yield Action("remove", (s,))
    for i in range(len(spots)):
        for j in range(i + 1, len(spots)):
            if values[i] + values[j] == 13:
                yield Action("remove", (spots[i], spots[j]))
    if game.can_deal():
        yield DEAL
    yield END


def _has_move(game: Game) -> bool:
    return any(a is not END for a in game_actions(game))


def _describe(card: int) -> str:
    return rank_text(rank(card))


def _check_available(game: Game, spot: str, other: str | None) -> int:
    """The card at ``spot`` if it may be taken, else IllegalAction with the reason."""
    if spot == PACK:
        if not game.pack:
            raise IllegalAction("the Pack is empty")
        return game.pack[0]
    if spot == WASTE:
        if not game.waste:
            raise IllegalAction("the Waste Pile is empty")
        return game.waste[-1]
    index = _spot_key(spot)
    card = game.pyramid[index]
    if card is None:
        raise IllegalAction(f"{spot} has already been removed")
    covering = [spot_name(j) for j in COVERED_BY[index] if game.pyramid[j] is not None]
    if covering:
        msg = f"{spot} is covered by {' and '.join(covering)}"
        if other in covering:
            msg += f"; a card cannot pair with a card that covers it"
        raise IllegalAction(msg)
    return card


def _a(rank_name: str) -> str:
    """A rank with its article, as said aloud: "an A", "an 8", "a 5", "a J"."""
    return f"{'an' if rank_name in ('A', '8') else 'a'} {rank_name}"


def _remove(game: Game, spots: tuple[str, ...], game_no: int) -> tuple[Game, list]:
    if len(spots) == 2 and spots[0] == spots[1]:
        raise IllegalAction(f"pick two different cards, not {spots[0]} twice")
    cards = [_check_available(game, s, (set(spots) - {s} or {None}).pop()) for s in spots]
    if len(cards) == 1:
        if rank(cards[0]) != KING:
            raise IllegalAction(
                f"only a King is removed alone; {spots[0]} is {card_text(cards[0])} "
                f"(pair it with {_a(rank_text(13 - rank(cards[0])))})")
    else:
        for s, c in zip(spots, cards):
            if rank(c) == KING:
                raise IllegalAction(f"a King is removed alone: type just {s}")
        total = rank(cards[0]) + rank(cards[1])
        if total != 13:
            raise IllegalAction(
                f"{_describe(cards[0])} + {_describe(cards[1])} is {total}, not 13")
    pyramid, pack, waste = list(game.pyramid), game.pack, game.waste
    for s in spots:
        if s == PACK:
            pack = pack[1:]
        elif s == WASTE:
            waste = waste[:-1]
        else:
            pyramid[_spot_key(s)] = None
    new = attrs.evolve(game, pyramid=tuple(pyramid), pack=pack, waste=waste)
    events: list = [Removed(game_no, spots, tuple(card_text(c) for c in cards))]
    if not new.cleared_in and all(c is None for c in new.pyramid):
        new = attrs.evolve(new, cleared_in=new.deal)
        events.append(PyramidCleared(game_no, new.deal))
    return new, events


def _deal(game: Game, game_no: int) -> tuple[Game, list]:
    if game.pack:
        card, pack = game.pack[0], game.pack[1:]
        new = attrs.evolve(game, pack=pack, waste=game.waste + (card,))
        return new, [Discarded(game_no, card_text(card), card_text(pack[0]) if pack else None)]
    if game.redeals_left <= 0:
        raise IllegalAction("the Pack is empty and no redeal is left")
    if not game.waste:
        raise IllegalAction("nothing to redeal: the Pack and the Waste Pile are empty")
    new = attrs.evolve(game, pack=game.waste, waste=(), deal=game.deal + 1)
    return new, [Redealt(game_no, new.deal, new.redeals_left)]


def _finish(game: Game, how: str) -> Game:
    ended = attrs.evolve(game, over=True, how=how)
    return attrs.evolve(ended, score=par_score(ended))


def play(game: Game, action: Action, game_no: int = 1) -> tuple[Game, list]:
    """Apply an action to one game; ends the game when no move is left."""
    if game.over:
        raise IllegalAction("this game is over")
    if action.kind == "end":
        return _finish(game, "ended"), []
    if action.kind == "deal":
        new, events = _deal(game, game_no)
    else:
        new, events = _remove(game, action.spots, game_no)
    if new.cards_left == 0:
        new = _finish(new, "won")
    elif not _has_move(new):
        new = _finish(new, "stuck")
    return new, events


# --------------------------------------------------------------------------- match

@attrs.frozen
class LastMove:
    """The match's last action, for a board to mark: ``kind`` "remove", "deal",
    "redeal" or "end"; ``game_no`` the game it was made in; ``spots`` and ``cards`` the
    cards it took away (a removal) or the card it turned to the Waste Pile (a deal)."""

    kind: str = attrs.field(validator=attrs.validators.in_(("remove", "deal", "redeal", "end")))
    game_no: int
    spots: tuple[str, ...] = attrs.field(default=(), converter=tuple)
    cards: tuple[str, ...] = attrs.field(default=(), converter=tuple)

    def to_json(self) -> dict:
        return {"kind": self.kind, "game_no": self.game_no, "spots": list(self.spots),
                "cards": list(self.cards)}

    @classmethod
    def from_json(cls, d: dict) -> "LastMove":
        return cls(str(d["kind"]), int(d["game_no"]), tuple(map(str, d.get("spots", ()))),
                   tuple(map(str, d.get("cards", ()))))


def _last_move(game_no: int, action: "Action", events: list) -> LastMove:
    for e in events:
        if isinstance(e, Removed):
            return LastMove("remove", game_no, e.spots, e.cards)
        if isinstance(e, Discarded):
            return LastMove("deal", game_no, (), (e.card,))
        if isinstance(e, Redealt):
            return LastMove("redeal", game_no)
    return LastMove("end", game_no)


@attrs.frozen
class State:
    """A match: ``mode`` "standard" (one game) or "tournament" (six games, or a Par
    tournament's number of deals).

    ``seeds[i]`` deals game i+1; ``games`` holds the games dealt so far, the last
    one being the current game; ``last`` is the last action (None before the first).
    """

    mode: str = attrs.field(validator=attrs.validators.in_(("standard", "tournament")))
    seeds: tuple[int, ...] = attrs.field(converter=tuple)
    games: tuple[Game, ...] = attrs.field(converter=tuple)
    last: LastMove | None = attrs.field(default=None, eq=False)  # not part of the position

    @property
    def game(self) -> Game:
        return self.games[-1]

    @property
    def game_no(self) -> int:
        return len(self.games)

    @property
    def n_games(self) -> int:
        return len(self.seeds)

    @property
    def scores(self) -> tuple[int, ...]:
        """Par scores of the finished games."""
        return tuple(g.score for g in self.games if g.over)

    @property
    def total(self) -> int:
        return sum(self.scores)

    @property
    def over(self) -> bool:
        return self.game.over and len(self.games) == self.n_games


def new_game(options: dict | None, rng: random.Random) -> State:
    """options: {"mode": "standard"|"tournament", "seeds": [...] (optional)}. A
    tournament is six deals, or as many as the seeds given (a Par tournament's set)."""
    options = dict(options or {})
    mode = options.get("mode", "standard")
    n = TOURNAMENT_GAMES if mode == "tournament" else 1
    seeds = tuple(int(s) for s in options.get("seeds") or ())
    if seeds and mode == "tournament":
        n = len(seeds)
    if not seeds:
        seeds = tuple(rng.getrandbits(32) for _ in range(n))
    if len(seeds) != n:
        raise ValueError(f"a {mode} match needs {n} seed(s)")
    return State(mode=mode, seeds=seeds, games=(Game.dealt(seeds[0]),))


def legal_actions(state: State, seat: int = 0) -> Iterator[Action]:
    if seat != 0:
        return
    yield from game_actions(state.game)


def to_move(state: State) -> tuple[int, ...]:
    return () if state.over else (0,)


def apply(state: State, seat: int, action: Action, rng: random.Random | None = None):
    """Play ``action`` for seat 0; returns (new State, events).  A finished game of a
    tournament is followed at once by the next deal (from the match's seeds)."""
    if seat != 0:
        raise IllegalAction("Pyramid is played by seat 0 only")
    if state.over:
        raise IllegalAction("the match is over")
    game, events = play(state.game, action, state.game_no)
    last = _last_move(state.game_no, action, events)
    games = state.games[:-1] + (game,)
    if game.over:
        total = sum(g.score for g in games)
        events.append(GameOver(state.game_no, game.how, game.score, total))
        if len(games) < state.n_games:
            games = games + (Game.dealt(state.seeds[len(games)]),)
            events.append(NewDeal(len(games)))
    return attrs.evolve(state, games=games, last=last), events


def outcome(state: State) -> Outcome | None:
    """Standard: won when all 52 cards are gone.  Tournament: won with a net plus."""
    if not state.over:
        return None
    if state.mode == "standard":
        game = state.game
        reason = {"won": "all cards removed", "stuck": "no move left",
                  "ended": "ended by the player"}[game.how]
        return Outcome(0 if game.how == "won" else None,
                       f"{reason}, Par score {game.score:+d}", (game.score,))
    total = state.total
    return Outcome(0 if total > 0 else None,
                   f"{games_word(state.n_games)}, net Par score {total:+d}", (total,))
