"""Triptycha rules: hands, the draw, laying tiles, battles and chains, trading.

Everything that changes a game lives here; the file does not know who is playing.
Seat 0 is the challenger (Player 1, 5 tiles, moves first); seat 1 accepted
(Player 2, 6 tiles).  Phases: ``draw`` -> ``play`` -> (``trading``) -> ``over``.
``PHASE_ACTIONS`` is the table of what may be done in each phase.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import attrs

from games.errors import IllegalAction, RuleError
from games.outcome import Outcome

from .board import CELLS, NEIGHBOURS, UP
from .tiles import Held, Tile

HAND_SIZE = (5, 6)
SEATS = (0, 1)
PHASES = ("draw", "play", "trading", "over")


# --------------------------------------------------------------------------- rules


@attrs.frozen
class Rules:
    """The rule variants in force.  Confusion is ``inversion and undercut``."""

    truth: bool = False
    random: bool = False
    inversion: bool = False
    undercut: bool = False
    plunder: bool = False
    take: int = attrs.field(default=0, validator=attrs.validators.in_(range(6)))
    ranked: bool = False
    disc: str | None = None

    @property
    def confusion(self) -> bool:
        return self.inversion and self.undercut

    @property
    def random_hands(self) -> bool:
        """Random or Disc: hands are dealt at random, there is no draw phase."""
        return self.random or self.disc is not None


@attrs.frozen
class Options:
    """What ``new_game`` needs: both decks (in the order the server lists them) and the rules."""

    decks: tuple[tuple[Tile, ...], tuple[Tile, ...]] = attrs.field(
        converter=lambda ds: tuple(tuple(d) for d in ds)
    )
    rules: Rules = Rules()


# --------------------------------------------------------------------------- actions


@attrs.frozen
class Draw:
    """``TT DRAW <tile>``: take the tile at this position of your deck listing (1-based)."""

    tile: int


@attrs.frozen
class Lay:
    """``TT LAY <tile> [IN] <niche>``: lay hand tile ``<tile>`` in niche 1..9."""

    tile: int
    niche: int


@attrs.frozen
class Rotate:
    """``TT ROTATE <tile>``: turn a hand tile 120 degrees clockwise."""

    tile: int


@attrs.frozen
class Flip:
    """``TT FLIP <tile>``: mirror a hand tile top to bottom."""

    tile: int


@attrs.frozen
class Take:
    """``TT TAKE <number>``: the winner takes the loser's hand tile ``<number>``."""

    tile: int


@attrs.frozen
class Done:
    """``TT DONE``: the winner ends the trading phase."""


@attrs.frozen
class Resign:
    """``TT RESIGN``: concede; Plunder and Take apply as if you lost."""


Action = Draw | Lay | Rotate | Flip | Take | Done | Resign

PHASE_ACTIONS = {
    "draw": (Draw, Resign),
    "play": (Lay, Rotate, Flip, Resign),
    "trading": (Take, Done),
    "over": (),
}
# What a player did, in a refusal's words ("You can't take a tile during play.").
_VERB = {Draw: "draw", Lay: "lay a tile", Rotate: "rotate a tile", Flip: "flip a tile",
         Take: "take a tile", Done: "end the trading", Resign: "resign"}
_PHASE_NAME = {"draw": "the draw", "play": "play", "trading": "trading", "over": "a finished game"}


# --------------------------------------------------------------------------- events


def _p(seat: int, names) -> str:
    return names[seat] if names else f"Player {seat + 1}"


@attrs.frozen
class Drew:
    seat: int
    slot: int  # hand number
    deck: int | None = None  # the number in the deck listing it was drawn by (TT DRAW 9)

    private = True  # only the drawer's hand changes (games/__init__.py: event facts)
    tells_action = True

    def text(self, names=None) -> str:
        """Both numbers: the deck's one typed, and the hand's one TT LAY and FLIP take."""
        if self.deck is None:
            return f"{_p(self.seat, names)} draws tile {self.slot}."
        return (f"{_p(self.seat, names)} draws tile {self.deck} from the deck; it is tile "
                f"{self.slot} in hand.")


@attrs.frozen
class PlayBegins:
    hands: tuple[int, int]

    new_phase = True

    def text(self, names=None) -> str:
        return f"The hands are full; {_p(0, names)} lays first."


@attrs.frozen
class Turned:
    """A hand tile was rotated (``how="rotate"``) or flipped (``how="flip"``)."""

    private = True
    tells_action = True

    seat: int
    slot: int
    how: str

    def text(self, names=None) -> str:
        verb = "rotates" if self.how == "rotate" else "flips"
        return f"{_p(self.seat, names)} {verb} tile {self.slot}."


@attrs.frozen
class Laid:
    seat: int
    slot: int
    niche: int
    tile_id: int
    corners: tuple[int, int, int]
    primary: int

    tells_action = True

    def text(self, names=None) -> str:
        return f"{_p(self.seat, names)} lays tile {self.slot} in niche {self.niche}."


@attrs.frozen
class Battle:
    """One battle: attacker niche vs defender niche, the edge scores (attack includes the
    chain modifier), the attacker's chain depth, and whether the attacker won."""

    attacker: int
    defender: int
    depth: int
    attack: int
    defence: int
    won: bool
    seat: int  # the attacking side

    continues = True  # told on the line of the lay it follows (games/__init__.py)

    def text(self, names=None) -> str:
        # short: a lay and all its battles are one announcement (``continues``)
        score = f"({self.attack} to {self.defence})"
        if self.won:
            return f"Niche {self.attacker} takes {self.defender} {score}."
        if self.attack == self.defence:
            return f"Niche {self.attacker} ties with {self.defender} {score}."
        return f"Niche {self.attacker} fails against {self.defender} {score}."


@attrs.frozen
class Resigned:
    seat: int

    def text(self, names=None) -> str:
        return f"{_p(self.seat, names)} resigns."


@attrs.frozen
class PlayEnds:
    winner: int
    scores: tuple[int, int]
    reason: str

    def text(self, names=None) -> str:
        """"Play ends: Bob holds 5 niches to 4.": the score, the winner's first; who wins
        is the game's result, told once (by the parlor, when the game ends). A resignation
        has no score worth telling (the board is not full): it says who resigned and who
        wins, since trading may come before the game's end."""
        if self.reason == "resignation":
            return (f"Play ends: {_p(1 - self.winner, names)} resigned, and "
                    f"{_p(self.winner, names)} wins.")
        won, lost = self.scores[self.winner], self.scores[1 - self.winner]
        return f"Play ends: {_p(self.winner, names)} holds {won} niches to {lost}."


@attrs.frozen
class TradingBegins:
    winner: int
    count: int

    new_phase = True

    def text(self, names=None) -> str:
        tiles = "1 tile" if self.count == 1 else f"{self.count} tiles"
        return (f"Trading: {_p(self.winner, names)} may take {tiles} "
                f"(TT TAKE <number>, TT DONE).")


@attrs.frozen
class Took:
    seat: int
    slot: int
    tile_id: int

    tells_action = True

    def text(self, names=None) -> str:
        return f"{_p(self.seat, names)} takes tile {self.slot}."


@attrs.frozen
class GameOver:
    winner: int
    transfers: tuple[tuple[int, int, int], ...]

    def text(self, names=None) -> str:
        """"The game is over; no tile changes hands." when none does; nothing when tiles
        do, since each one that changes hands is told in its own line after the result
        ("Take: tile #6 ... goes from Bob to Alice."), and the result says the game is
        over."""
        if self.transfers:
            return ""
        return "The game is over; no tile changes hands."


# --------------------------------------------------------------------------- state


def _control(value):
    value = tuple(value)
    if len(value) != CELLS or any(v not in (None, 0, 1) for v in value):
        raise ValueError(f"control must be 9 entries of None/0/1, not {value!r}")
    return value


@attrs.frozen
class State:
    """A whole game.  ``hands[s]`` is seat s's game hand in draw order (hand numbers
    1..k); a laid tile keeps its place in the hand with ``niche`` set.  ``control[i]``
    is who controls niche i+1 (None when empty).  ``taken`` lists the loser's hand
    numbers the winner has taken.  ``last_niche`` is the niche of the last lay and
    ``last_flipped`` the niches it took over (for a board to mark the last move)."""

    rules: Rules
    decks: tuple[tuple[Tile, ...], tuple[Tile, ...]]
    hands: tuple[tuple[Held, ...], tuple[Held, ...]]
    control: tuple = attrs.field(converter=_control, default=(None,) * CELLS)
    phase: str = attrs.field(default="draw", validator=attrs.validators.in_(PHASES))
    turn: int = 0
    resigned: int | None = None
    taken: tuple[int, ...] = ()
    # the last lay, for a board to mark; not part of the position (equality, hashing)
    last_niche: int | None = attrs.field(default=None, eq=False)
    last_flipped: tuple[int, ...] = attrs.field(default=(), converter=tuple, eq=False)

    # ----- derived facts

    def cell(self, i: int) -> tuple[int, int, Held] | None:
        """(owner seat, hand index, held tile) of the tile in cell i, or None."""
        niche = i + 1
        for seat in SEATS:
            for k, held in enumerate(self.hands[seat]):
                if held.niche == niche:
                    return seat, k, held
        return None

    @property
    def laid(self) -> int:
        return sum(v is not None for v in self.control)

    def counts(self) -> tuple[int, int]:
        return (self.control.count(0), self.control.count(1))


def _new_state(rules, decks, hands, phase) -> State:
    return State(rules=rules, decks=decks, hands=hands, phase=phase)


def new_game(options, rng) -> State:
    """Start a game.  ``options`` is an ``Options`` (or a mapping with ``decks`` and
    ``rules``).  With Random or Disc each hand is dealt at random from its deck and
    play starts at once; otherwise the game opens in the draw phase.

    :raises RuleError: a deck too small for its hand, tile ids shared between decks,
        or (Disc) a tile outside the disc's collection.
    """
    if isinstance(options, Mapping):
        options = Options(decks=options["decks"], rules=options.get("rules", Rules()))
    rules, decks = options.rules, options.decks
    if len(decks) != 2:
        raise RuleError("Triptycha needs two decks.")
    for seat in SEATS:
        if len(decks[seat]) < HAND_SIZE[seat]:
            raise RuleError(f"Player {seat + 1}'s deck has {len(decks[seat])} tiles; "
                            f"the hand needs {HAND_SIZE[seat]}.")
    ids = [t.id for d in decks for t in d]
    if len(set(ids)) != len(ids):
        raise RuleError("A tile appears twice in the decks.")
    if rules.disc is not None:
        want = rules.disc.casefold()
        for seat in SEATS:
            if any(t.collection.casefold() != want for t in decks[seat]):
                raise RuleError(f"Player {seat + 1}'s disc tiles are not all {rules.disc}.")
    if rules.random_hands:
        hands = tuple(tuple(Held(t) for t in rng.sample(decks[s], HAND_SIZE[s])) for s in SEATS)
        return _new_state(rules, decks, hands, "play")
    return _new_state(rules, decks, ((), ()), "draw")


# --------------------------------------------------------------------------- battles


def resolve(edges, control, laid: int, undercut: bool) -> list[tuple]:
    """Fight every battle a lay in cell ``laid`` starts, changing ``control`` in place.

    ``edges[i]`` holds the three edge scores of the tile in cell i (None if empty).
    The laid tile (depth 0) attacks each adjacent tile the opponent controls, in
    ascending niche order; it wins when its edge score on the shared edge is strictly
    greater (Undercut/Confusion: strictly lower) than the defender's.  A flipped tile
    attacks in turn at depth d with -2*d (Undercut/Confusion: +2*d) added.  Chains
    resolve breadth first, ascending niche order within a depth; defenders never
    counter-attack; a tie changes nothing.

    Returns ``(attacker cell, defender cell, depth, attack, defence, won)`` tuples.
    """
    mover = control[laid]
    out = []
    frontier = [laid]
    depth = 0
    mod = 0
    while frontier:
        flipped = []
        for a in frontier:
            ea = edges[a]
            for d, my_edge, their_edge in NEIGHBOURS[a]:
                owner = control[d]
                if owner is None or owner == mover:
                    continue
                attack = ea[my_edge] + mod
                defence = edges[d][their_edge]
                won = attack < defence if undercut else attack > defence
                out.append((a, d, depth, attack, defence, won))
                if won:
                    control[d] = mover
                    flipped.append(d)
        frontier = sorted(flipped)
        depth += 1
        mod = 2 * depth if undercut else -2 * depth
    return out


def board_edges(state: State) -> list:
    """Edge scores of every laid tile by cell, under the rules in force."""
    edges = [None] * CELLS
    for seat in SEATS:
        for held in state.hands[seat]:
            if held.niche is not None:
                edges[held.niche - 1] = held.edge_scores(state.rules.inversion)
    return edges


# --------------------------------------------------------------------------- results


def result(state: State) -> Outcome | None:
    """The result as soon as play has ended (also during trading), else None."""
    if state.resigned is not None:
        winner = 1 - state.resigned
        return Outcome(winner, "resignation", state.counts())
    if state.laid == CELLS:
        c = state.counts()
        return Outcome(0 if c[0] > c[1] else 1, "more niches", c)
    return None


def outcome(state: State) -> Outcome | None:
    """The Outcome once the game is wholly over (after any trading phase)."""
    return result(state) if state.phase == "over" else None


def to_move(state: State) -> tuple[int, ...]:
    """Seats that may act now.  (In play the other seat may still ROTATE/FLIP/RESIGN.)"""
    if state.phase == "draw":
        return tuple(s for s in SEATS if len(state.hands[s]) < HAND_SIZE[s])
    if state.phase == "play":
        return (state.turn,)
    if state.phase == "trading":
        return (result(state).winner,)
    return ()


def plundered(state: State) -> list[tuple[int, int, int]]:
    """Plunder: (tile id, owner, controller) for each laid tile its owner does not control."""
    if not state.rules.plunder:
        return []
    out = []
    for i in range(CELLS):
        c = state.cell(i)
        if c is not None and state.control[i] != c[0]:
            out.append((c[2].tile.id, c[0], state.control[i]))
    return out


def takeable(state: State) -> tuple[int, ...]:
    """Hand numbers (1-based) of the loser's game hand the winner may still TAKE: not yet
    taken and not already the winner's by Plunder."""
    res = result(state)
    if res is None or not state.rules.take:
        return ()
    loser = 1 - res.winner
    won_by_plunder = {tid for tid, _, to in plundered(state) if to == res.winner}
    return tuple(k + 1 for k, h in enumerate(state.hands[loser])
                 if k + 1 not in state.taken and h.tile.id not in won_by_plunder)


def transfers(state: State) -> list[tuple[int, int, int]]:
    """Every tile instance that changes owner, as (tile id, from seat, to seat):
    Plunder first (by niche), then the tiles taken, in order.  Final once the phase
    is ``over``; empty while play goes on."""
    res = result(state)
    if res is None:
        return []
    out = plundered(state)
    loser = 1 - res.winner
    for slot in state.taken:
        out.append((state.hands[loser][slot - 1].tile.id, loser, res.winner))
    return out


# --------------------------------------------------------------------------- legality


def legal_actions(state: State, seat: int) -> Iterator[Action]:
    """Every action ``seat`` may take now (LAYs only for tiles already facing the niche)."""
    if state.phase == "draw":
        hand = state.hands[seat]
        if len(hand) < HAND_SIZE[seat]:
            drawn = {h.tile.id for h in hand}
            for pos, tile in enumerate(state.decks[seat], 1):
                if tile.id not in drawn:
                    yield Draw(pos)
        yield Resign()
    elif state.phase == "play":
        hand = state.hands[seat]
        if seat == state.turn:
            for k, held in enumerate(hand, 1):
                if held.niche is None:
                    for i in range(CELLS):
                        if state.control[i] is None and UP[i] == held.up:
                            yield Lay(k, i + 1)
        for k, held in enumerate(hand, 1):
            if held.niche is None:
                yield Rotate(k)
                yield Flip(k)
        yield Resign()
    elif state.phase == "trading" and seat == result(state).winner:
        for k in takeable(state):
            yield Take(k)
        yield Done()


def _hand_tile(state: State, seat: int, k: int) -> Held:
    hand = state.hands[seat]
    if not 1 <= k <= len(hand):
        raise IllegalAction(f"You have no tile <{k}>; your tiles are <1> to <{len(hand)}>.")
    held = hand[k - 1]
    if held.niche is not None:
        raise IllegalAction(f"Tile <{k}> is already in niche {held.niche}.")
    return held


def _with_held(state: State, seat: int, k: int, held: Held) -> State:
    hand = list(state.hands[seat])
    hand[k - 1] = held
    hands = list(state.hands)
    hands[seat] = tuple(hand)
    return attrs.evolve(state, hands=tuple(hands))


def apply(state: State, seat: int, action: Action, rng=None) -> tuple[State, list]:
    """Apply ``action`` by ``seat``; return the new state and the events.

    :raises RuleError: (IllegalAction) with a one-line reason; the old state is untouched.
    """
    if seat not in SEATS:
        raise IllegalAction(f"There is no seat {seat}.")
    kind = type(action)
    if kind not in _VERB:
        raise IllegalAction(f"{action!r} is not a Triptycha action.")
    if kind not in PHASE_ACTIONS[state.phase]:
        raise IllegalAction(f"You can't {_VERB[kind]} during {_PHASE_NAME[state.phase]}.")
    return _HANDLERS[kind](state, seat, action)


def _draw(state, seat, action):
    hand = state.hands[seat]
    deck = state.decks[seat]
    if len(hand) >= HAND_SIZE[seat]:
        raise IllegalAction(f"Your hand is full ({HAND_SIZE[seat]} tiles); "
                            "wait for your opponent.")
    if not 1 <= action.tile <= len(deck):
        raise IllegalAction(f"Your deck has no tile {action.tile} (1 to {len(deck)}).")
    tile = deck[action.tile - 1]
    if any(h.tile.id == tile.id for h in hand):
        raise IllegalAction(f"Tile {action.tile} of your deck is already in your hand.")
    hands = list(state.hands)
    hands[seat] = hand + (Held(tile),)
    new = attrs.evolve(state, hands=tuple(hands))
    events = [Drew(seat, len(hands[seat]), action.tile)]
    if all(len(new.hands[s]) == HAND_SIZE[s] for s in SEATS):
        new = attrs.evolve(new, phase="play", turn=0)
        events.append(PlayBegins(HAND_SIZE))
    return new, events


def _lay(state, seat, action):
    if seat != state.turn:
        raise IllegalAction("It is not your turn.")
    held = _hand_tile(state, seat, action.tile)
    n = action.niche
    if not 1 <= n <= CELLS:
        raise IllegalAction(f"There is no niche {n}; niches are 1 to 9.")
    if state.control[n - 1] is not None:
        raise IllegalAction(f"Niche {n} is taken.")
    if UP[n - 1] != held.up:
        want, have = ("up", "down") if UP[n - 1] else ("down", "up")
        raise IllegalAction(f"Tile <{action.tile}> points {have} and niche {n} points {want}: "
                            f"TT FLIP {action.tile} first.")
    laid = attrs.evolve(held, niche=n)
    new = _with_held(state, seat, action.tile, laid)
    control = list(new.control)
    control[n - 1] = seat
    battles = resolve(board_edges(new), control, n - 1, state.rules.undercut)
    flipped = tuple(i + 1 for i in range(CELLS)
                    if i != n - 1 and state.control[i] is not None and control[i] != state.control[i])
    new = attrs.evolve(new, control=tuple(control), turn=1 - seat, last_niche=n,
                       last_flipped=flipped)
    events = [Laid(seat, action.tile, n, held.tile.id, laid.corners, held.tile.primary)]
    events += [Battle(a + 1, d + 1, depth, att, dfn, won, seat)
               for a, d, depth, att, dfn, won in battles]
    if new.laid == CELLS:
        return _finish(new, events)
    return new, events


def _rotate(state, seat, action):
    held = _hand_tile(state, seat, action.tile)
    return (_with_held(state, seat, action.tile, held.rotated()),
            [Turned(seat, action.tile, "rotate")])


def _flip(state, seat, action):
    held = _hand_tile(state, seat, action.tile)
    return (_with_held(state, seat, action.tile, held.flipped()),
            [Turned(seat, action.tile, "flip")])


def _resign(state, seat, action):
    new = attrs.evolve(state, resigned=seat)
    return _finish(new, [Resigned(seat)])


def _finish(state: State, events: list) -> tuple[State, list]:
    """Play is over: open the trading phase if Take applies and there is something to take."""
    res = result(state)
    events.append(PlayEnds(res.winner, res.scores, res.reason))
    if state.rules.take and takeable(state):
        state = attrs.evolve(state, phase="trading")
        events.append(TradingBegins(res.winner, state.rules.take))
        return state, events
    return _close(state, events)


def _close(state: State, events: list) -> tuple[State, list]:
    state = attrs.evolve(state, phase="over")
    events.append(GameOver(result(state).winner, tuple(transfers(state))))
    return state, events


def _take(state, seat, action):
    winner = result(state).winner
    if seat != winner:
        raise IllegalAction("Only the winner takes tiles.")
    loser_hand = state.hands[1 - winner]
    k = action.tile
    if not 1 <= k <= len(loser_hand):
        raise IllegalAction(f"Your opponent has no tile <{k}> (1 to {len(loser_hand)}).")
    if k in state.taken:
        raise IllegalAction(f"You already took tile <{k}>.")
    if k not in takeable(state):
        raise IllegalAction(f"Tile <{k}> is already yours by Plunder.")
    new = attrs.evolve(state, taken=state.taken + (k,))
    events = [Took(seat, k, loser_hand[k - 1].tile.id)]
    if len(new.taken) >= state.rules.take or not takeable(new):
        return _close(new, events)
    return new, events


def _done(state, seat, action):
    if seat != result(state).winner:
        raise IllegalAction("Only the winner ends the trading.")
    return _close(state, [])


def close_trading(state: State) -> tuple[State, list]:
    """End the trading phase (the server calls this when ``trade_timeout`` passes)."""
    if state.phase != "trading":
        raise IllegalAction("There is no trading to end.")
    return _close(state, [])


_HANDLERS = {Draw: _draw, Lay: _lay, Rotate: _rotate, Flip: _flip, Resign: _resign,
             Take: _take, Done: _done}


def may_view_opponent(state: State, seat: int | None) -> bool:
    """``TT VIEW OPPONENT``: with Truth during the game, or for the winner while trading."""
    if state.phase == "trading" and seat is not None:
        return seat == result(state).winner
    return state.rules.truth and state.phase in ("draw", "play")
