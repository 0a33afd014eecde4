"""Triptycha computer players.

* ``easy``: a random legal LAY (flipping first when no tile fits an empty niche).
* ``normal``: one reply ahead: the placement (tile, niche, rotation) whose niche margin
  is best after the opponent's most damaging reply, the opponent taken to hold every
  tile it may (no search beyond, no sampling, no budget); ties go to the placement that
  flips the most tiles now.  It beats the plain greedy player (the most tiles flipped
  now, what NORMAL was, at 50.5 % against it): NORMAL wins 66.5 % of 400 games against
  it (95 % interval 62.3-70.7 %; ``bench/triptycha_ai.py --games 400 --match
  normal-greedy``).
* ``hard``: a real search.  With 5 or fewer niches empty it solves the rest of the
  game exactly (negamax, alpha-beta, a transposition table keyed on the board);
  before that it runs a two-ply search (its lay, the opponent's best reply) over the
  most promising lays, scored by an evaluation (niche margin, tiles exposed to the
  other side's strongest edge, tempo).  Every search counts its nodes and stops
  when the budget is spent.
* ``expert``: HARD's two-ply search over more determinizations before the endgame; in
  the endgame it compares exact values where HARD adds its bounds over three sampled
  hands: every possible opponent hand (a sample when there are more than
  ``EXPERT_HANDS``) is searched to the end for every lay, and a lay scores the number
  of hands it wins against, then its exact margins (see ``_expert``).  Measured
  (``bench/triptycha_ai.py --games 400 --match expert-hard``): EXPERT wins 58.8 % of
  games against HARD at 1.0 s (95 % interval 55.9-61.6 %), 64.2 % at 0.3 s.

Budgets are node counts, not time: ``budget_s`` seconds are ``NODES_PER_SECOND`` nodes a
second (a fixed rate, about what one core searches), so the same position with the same
budget gives the same lay on a busy machine or an idle one.  The wall clock is only a
last guard (``GUARD_FACTOR`` times the budget, at least ``GUARD_MIN`` seconds); should it
stop a search first, the lay may depend on the load, and a warning is logged.

Hidden information (a decision; docs/rules/triptycha.md is silent): the AI sees the
board, its own hand and its own deck.  With Truth on it also uses the opponent's hand
(the rules let it view it).  Otherwise the opponent's unlaid tiles are unknown: the
AI treats the opponent's deck minus the tiles already seen on the board as the
possibilities, and searches a few *determinizations* -- hands sampled from those
possibilities, the sampling seeded from the visible position so that the same
position always gets the same samples -- and plays the lay with the best average.
When the possibilities are no more than the hand (e.g. Random with a 6-tile deck)
this is exact.

The AI plays only through ``legal_actions``/``apply`` semantics: a chosen
placement is reached with ``FLIP``/``ROTATE`` actions first (they do not end the
turn), then ``LAY``.  Each call returns one action, so the host calls it again
while the AI's seat is to move; among equal placements the one needing the fewest
turns of the tile is preferred, which guarantees progress from call to call.  The scores
of a search are kept for those calls (a FLIP or ROTATE changes nothing a search reads).
"""

from __future__ import annotations

import itertools
import logging
import math
import random
import time
import zlib

from games.errors import IllegalAction

from .board import CELLS, NEIGHBOURS, UP
from .rules import (Done, Draw, Flip, Lay, Rotate, State, Take, legal_actions, resolve,
                    result, takeable)
from .tiles import Held, Tile

LEVELS = ("easy", "normal", "hard", "expert")
EXACT_EMPTY = 5          # exact search once this many niches (or fewer) are empty
ROOT_BEAM = 16           # lays looked at two plies deep before the endgame
SAMPLES = 3              # determinizations of a hidden opponent hand
EXPERT_HANDS = 24        # EXPERT's endgame: every possible hand when no more, else a sample
EXPERT_SAMPLES = 8       # EXPERT's determinizations before the endgame
NODES_PER_SECOND = 150_000  # search nodes a second of budget (a fixed rate)
GUARD_FACTOR, GUARD_MIN = 12.0, 10.0  # the wall-clock guard: a last resort

log = logging.getLogger(__name__)


class _OutOfTime(Exception):
    pass


class _Budget:
    """The nodes a search may still expand (its budget), and the wall-clock guard."""

    def __init__(self, nodes: float, deadline: float = float("inf")):
        self.start = self.left = nodes
        self.deadline = deadline
        self.fired = False
        self.count = 0

    def nodes_spent(self) -> float:
        return min(self.start, self.start - max(0.0, self.left))

    def spend(self) -> bool:
        """One node; False once the budget is spent (or the guard passed)."""
        self.left -= 1
        self.count += 1
        if self.left < 0:
            return False
        if not self.count & 1023 and time.perf_counter() > self.deadline:
            self.fired = True
            self.left = -1
            return False
        return True

    def share(self, parts: int) -> "_Budget":
        """A part of what is left, for one of ``parts`` searches in turn."""
        return _Budget(max(0, self.left) / parts, self.deadline)


def choose_action(state: State, seat: int, level: str, rng: random.Random,
                  budget_s: float = 1.0):
    """One action for ``seat`` at ``level`` ("easy", "normal", "hard", "expert")."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, not {level!r}")
    if state.phase == "draw":
        return _choose_draw(state, seat, level, rng)
    if state.phase == "trading":
        return _choose_take(state, seat, level, rng)
    if state.phase != "play" or state.turn != seat:
        raise IllegalAction("It is not the computer's turn.")
    if level == "easy":
        acts = list(legal_actions(state, seat))
        lays = [a for a in acts if isinstance(a, Lay)]
        return rng.choice(lays or [a for a in acts if isinstance(a, Flip)])
    if level == "normal":
        k, niche, up, turn = _normal(state, seat, rng)
    else:
        nodes = int(budget_s * NODES_PER_SECOND)
        key = (level, seat, nodes, _position_key(state, seat))
        scored = _scored.get(key)
        if scored is None:
            budget = _Budget(nodes, time.perf_counter()
                             + max(GUARD_MIN, budget_s * GUARD_FACTOR))
            scored = (_expert if level == "expert" else _hard)(state, seat, budget)
            if budget.fired:
                log.warning("Triptycha %s: the wall-clock guard stopped the search before "
                            "its node budget: this lay may depend on the load", level)
            else:
                _remember(key, scored)
        k, niche, up, turn = _pick(state, seat, scored)
    return _step_towards(state, seat, k, niche, up, turn)


# A search's scores of a position, kept for the FLIP and ROTATE calls that follow it: they
# change only the facing of tiles in the hand, which the search does not read (it tries
# every facing), so searching again would find the same scores.
_scored: dict = {}
_SCORED_KEPT = 64


def _position_key(state: State, seat: int):
    """What a search reads of ``state``: the board, the hands' tiles (not their facings)
    and the decks."""
    laid = tuple((h.niche, h.tile.id, h.up, h.turn) for hand in state.hands for h in hand
                 if h.niche is not None)
    hands = tuple(tuple(h.tile.id for h in hand if h.niche is None) for hand in state.hands)
    return (state.rules, state.control, laid, hands,
            tuple(tuple(t.id for t in deck) for deck in state.decks))


def _remember(key, scored) -> None:
    if len(_scored) >= _SCORED_KEPT:
        _scored.pop(next(iter(_scored)), None)
    _scored[key] = scored


def _pick(state, seat, scored):
    """The best of ``scored`` ((score, tile, cell, turn) with comparable scores) as (hand
    number, niche, up, turn): among equal scores, the placement needing the fewest turns
    of the tile, then the lowest hand number and niche."""
    best, best_key = None, None
    for score, tile, i, turn in scored:
        plan = _plan(state, seat, tile, i, turn)
        key = (score, -plan[4], -plan[0], -plan[1], plan[3])
        if best_key is None or key > best_key:
            best, best_key = plan, key
    return best[:4]


def _step_towards(state, seat, k, niche, up, turn):
    held = state.hands[seat][k - 1]
    if held.up != up:
        return Flip(k)
    if held.turn != turn:
        return Rotate(k)
    return Lay(k, niche)


def _prep(held: Held, up: bool, turn: int) -> int:
    """How many FLIP/ROTATE actions bring ``held`` to (up, turn)."""
    n = 0
    if held.up != up:
        held, n = held.flipped(), 1
    while held.turn != turn:
        held, n = held.rotated(), n + 1
    return n


# --------------------------------------------------------------------- draw and take


def _strength(tile: Tile, undercut: bool) -> int:
    return -tile.sum if undercut else tile.sum


def _choose_draw(state, seat, level, rng):
    options = [a for a in legal_actions(state, seat) if isinstance(a, Draw)]
    if not options:
        raise IllegalAction("The computer's hand is full.")
    if level == "easy":
        return rng.choice(options)
    deck = state.decks[seat]
    return max(options, key=lambda a: (_strength(deck[a.tile - 1], state.rules.undercut),
                                       -a.tile))


def _choose_take(state, seat, level, rng):
    if seat != result(state).winner:
        raise IllegalAction("Only the winner takes tiles.")
    ks = takeable(state)
    if not ks:
        return Done()
    if level == "easy":
        return Take(rng.choice(ks))
    hand = state.hands[1 - seat]
    rank = {"common": 0, "uncommon": 1, "rare": 2, "legendary": 3}
    return Take(max(ks, key=lambda k: (rank[hand[k - 1].tile.rarity], hand[k - 1].tile.sum)))


# --------------------------------------------------------------------- search position


class _Pos:
    """A mutable search position: edges and control per cell, tile pools per side.

    Tiles are indices into ``self.tiles``; ``self.es[t][up][turn]`` are edge scores.
    """

    def __init__(self, state: State, me: int, opp_tiles):
        rules = state.rules
        self.undercut = rules.undercut
        self.me = me
        self.ctrl = list(state.control)
        self.edges = [None] * CELLS
        self.cellcode = [0] * CELLS
        self.tiles: list[Tile] = []
        self.hands = [[], []]
        for s in (0, 1):
            for h in state.hands[s]:
                if h.niche is not None:
                    self.edges[h.niche - 1] = h.edge_scores(rules.inversion)
                    self.cellcode[h.niche - 1] = -1 - h.tile.id  # fixed, distinct
        own = [h.tile for h in state.hands[me] if h.niche is None]
        for s, tiles in ((me, own), (1 - me, list(opp_tiles))):
            for t in tiles:
                self.hands[s].append(len(self.tiles))
                self.tiles.append(t)
        self.es = []
        self.best = []   # best[t][up][edge]: the strongest score t can show on that edge
        for t in self.tiles:
            by_up = {}
            best = {}
            for up in (True, False):
                rows = [Held(t, up, turn).edge_scores(rules.inversion) for turn in range(3)]
                by_up[up] = rows
                pick = min if self.undercut else max
                best[up] = tuple(pick(r[e] for r in rows) for e in range(3))
            self.es.append(by_up)
            self.best.append(best)
        # placements per (tile, cell): distinct facings judged on edges that have neighbours
        self.placements = {}
        for t in range(len(self.tiles)):
            for i in range(CELLS):
                seen = {}
                for turn in range(3):
                    e = self.es[t][UP[i]][turn]
                    key = tuple(e[my] for _, my, _ in NEIGHBOURS[i])
                    seen.setdefault(key, (turn, e))
                self.placements[(t, i)] = tuple(seen.values())

    def empty(self):
        return [i for i in range(CELLS) if self.ctrl[i] is None]

    def moves(self, side):
        """(tile, cell, turn, edges) for every distinct placement of ``side``."""
        out = []
        sigs = set()
        for t in self.hands[side]:
            sig = (self.tiles[t].corners, self.tiles[t].primary)
            if sig in sigs:
                continue  # identical tiles give identical moves
            sigs.add(sig)
            for i in range(CELLS):
                if self.ctrl[i] is None:
                    for turn, e in self.placements[(t, i)]:
                        out.append((t, i, turn, e))
        return out

    def do(self, side, move):
        t, i, turn, e = move
        self.edges[i] = e
        self.ctrl[i] = side
        self.cellcode[i] = t * 3 + turn + 1
        self.hands[side].remove(t)
        battles = resolve(self.edges, self.ctrl, i, self.undercut)
        return [d for _, d, _, _, _, won in battles if won]

    def undo(self, side, move, flipped):
        t, i, turn, e = move
        for d in flipped:
            self.ctrl[d] = 1 - side
        self.edges[i] = None
        self.ctrl[i] = None
        self.cellcode[i] = 0
        self.hands[side].append(t)

    def margin(self, side):
        mine = self.ctrl.count(side)
        return mine - self.ctrl.count(1 - side)

    def evaluate(self, side):
        """Niche margin for ``side`` plus exposure: a tile with an empty neighbour whose
        shared edge the other side's best tile beats counts as half lost."""
        score = float(self.margin(side))
        und = self.undercut
        for c in range(CELLS):
            owner = self.ctrl[c]
            if owner is None:
                continue
            foe = 1 - owner
            if not self.hands[foe]:
                continue
            e = self.edges[c]
            for n, my_edge, their_edge in NEIGHBOURS[c]:
                if self.ctrl[n] is not None:
                    continue
                up = UP[n]
                if und:
                    best = min(self.best[t][up][their_edge] for t in self.hands[foe])
                    weak = best < e[my_edge]
                else:
                    best = max(self.best[t][up][their_edge] for t in self.hands[foe])
                    weak = best > e[my_edge]
                if weak:
                    score += -0.45 if owner == side else 0.45
                    break
        return score


# --------------------------------------------------------------------- normal


def _normal(state, seat, rng):
    """NORMAL's placement: the one whose niche margin is best after the opponent's most
    damaging reply, the opponent taken to hold every tile it may (``_possible_tiles``);
    then the most tiles flipped now, the fewest FLIP/ROTATE steps, and the rng."""
    pos = _Pos(state, seat, _possible_tiles(state, seat))
    opp = 1 - seat
    best, best_key = None, None
    for move in pos.moves(seat):
        flipped = pos.do(seat, move)
        worst = pos.margin(seat)
        if pos.hands[opp] and pos.empty():
            replies = []
            for reply in pos.moves(opp):
                f2 = pos.do(opp, reply)
                replies.append(pos.margin(seat))
                pos.undo(opp, reply, f2)
            worst = min(replies)
        pos.undo(seat, move, flipped)
        plan = _plan(state, seat, pos.tiles[move[0]], move[1], move[2])
        key = (worst, len(flipped), -plan[4], rng.random())
        if best_key is None or key > best_key:
            best, best_key = plan, key
    return best[:4]


def _plan(state, seat, tile, i, turn):
    """(hand number, niche, up, turn, prep actions) for laying ``tile`` in cell ``i``."""
    # among identical tiles pick the one needing fewest turns
    cands = [kk for kk, h in enumerate(state.hands[seat], 1)
             if h.niche is None and h.tile.corners == tile.corners
             and h.tile.primary == tile.primary]
    k = min(cands, key=lambda kk: _prep(state.hands[seat][kk - 1], UP[i], turn))
    return (k, i + 1, UP[i], turn, _prep(state.hands[seat][k - 1], UP[i], turn))


# --------------------------------------------------------------------- hard


def _possible_tiles(state: State, me: int) -> list[Tile]:
    """The tiles the opponent may still lay, as ``me`` sees them: its hand with Truth, else
    its deck less the tiles seen (laid, or in ``me``'s hand)."""
    opp = 1 - me
    if state.rules.truth:
        return [h.tile for h in state.hands[opp] if h.niche is None]
    laid_ids = {h.tile.id for hand in state.hands for h in hand if h.niche is not None}
    own_ids = {h.tile.id for h in state.hands[me]}
    return [t for t in state.decks[opp] if t.id not in laid_ids and t.id not in own_ids]


def _opponent_views(state: State, me: int, samples: int = SAMPLES, every: int = 0):
    """The opponent hands to search: the real one with Truth, else determinizations:
    every possible hand when there are no more than ``every``, else ``samples`` hands
    sampled (seeded from the visible position)."""
    pool = _possible_tiles(state, me)
    need = sum(h.niche is None for h in state.hands[1 - me])
    if state.rules.truth or len(pool) <= need:
        return [pool]
    if math.comb(len(pool), need) <= every:
        return [list(hand) for hand in itertools.combinations(pool, need)]
    laid_ids = {h.tile.id for hand in state.hands for h in hand if h.niche is not None}
    seed = zlib.crc32(repr((me, state.control, sorted(laid_ids),
                            sorted(t.id for t in pool))).encode())
    srng = random.Random(seed)
    return [srng.sample(pool, need) for _ in range(samples)]


def _hard(state, seat, budget: _Budget, views=None):
    """Scores of the lays ((score, tile, cell, turn)): their values summed over the views
    (the endgame's exact search gives exact values for the best lays and upper bounds for
    the others)."""
    views = _opponent_views(state, seat) if views is None else views
    empty = sum(c is None for c in state.control)
    totals = {}
    tiles = {}
    done = 0
    for n, opp_tiles in enumerate(views):
        pos = _Pos(state, seat, opp_tiles)
        share = budget.share(len(views) - n)  # what is left, shared by the views left
        try:
            if empty <= EXACT_EMPTY:
                scores = _exact_root(pos, seat, share)
            else:
                scores = _two_ply_root(pos, seat, share)
        except _OutOfTime:
            if done:
                break
            scores = _one_ply_root(pos, seat)
        finally:
            budget.left -= share.nodes_spent()
            budget.fired = budget.fired or share.fired
        done += 1
        for move, v in scores:
            key = (pos.tiles[move[0]].id, move[1], move[2])
            totals[key] = totals.get(key, 0.0) + v
            tiles[key] = pos.tiles[move[0]]
    return [(round(v, 6), tiles[key], key[1], key[2]) for key, v in totals.items()]


# --------------------------------------------------------------------- expert


def _expert(state, seat, budget: _Budget):
    """EXPERT's scores of the lays ((score, tile, cell, turn)).

    Before the endgame: HARD's two-ply search over ``EXPERT_SAMPLES`` determinizations.
    In the endgame (``EXACT_EMPTY`` niches or fewer empty) it compares exact values: for
    every possible opponent hand (a sample of ``EXPERT_HANDS`` when there are more), the
    exact result of every lay -- won or lost, searched to the end -- so that a lay's score
    is the number of hands it wins against (its exact chance of winning, the hands taken
    as equally likely); lays winning as many are then told apart by their exact final
    margins summed over the hands, as far as the budget goes.  Hands are searched in
    turn; one the budget does not finish is left out, so every lay is judged on the same
    hands.
    """
    empty = sum(c is None for c in state.control)
    if empty > EXACT_EMPTY:
        return _hard(state, seat, budget, _opponent_views(state, seat, EXPERT_SAMPLES))
    views = _opponent_views(state, seat, EXPERT_HANDS, every=EXPERT_HANDS)
    wins: dict = {}
    tiles: dict = {}
    solved = []   # (pos, table, {key: move}) of each hand searched to the end
    for opp_tiles in views:
        pos = _Pos(state, seat, opp_tiles)
        table: dict = {}
        try:
            results = exact_values(pos, seat, budget, table, window=(-1, 1))
        except _OutOfTime:
            break
        moves = {}
        for move, v in results:
            key = (pos.tiles[move[0]].id, move[1], move[2])
            wins[key] = wins.get(key, 0) + (v > 0)
            tiles[key] = pos.tiles[move[0]]
            moves[key] = move
        solved.append((pos, table, moves))
    if not solved:  # not even one hand: HARD's lays of the first hand, one ply deep
        pos = _Pos(state, seat, views[0])
        return [(v, pos.tiles[m[0]], m[1], m[2]) for m, v in _one_ply_root(pos, seat)]
    top = max(wins.values())
    tied = [key for key in wins if wins[key] == top]
    margins = dict.fromkeys(wins, 0)
    if len(tied) > 1:
        for pos, table, moves in solved:
            try:
                found = {key: exact_value(pos, seat, moves[key], budget, table)
                         for key in tied}
            except _OutOfTime:
                break
            for key, v in found.items():
                margins[key] += v
    return [((wins[key], margins[key]), tiles[key], key[1], key[2]) for key in wins]


def exact_value(pos, me, move, budget: _Budget | None = None, table=None,
                window=(-10, 10)) -> int:
    """The value of ``move`` for ``me``: the final niche margin (mine minus theirs) with
    best play by both sides to the end, exact when it lies inside ``window``; outside it
    only its side of the window is exact (with ``(-1, 1)``: won or lost).  ``table``
    (a transposition table) may be shared by searches of the same position."""
    budget = budget or _Budget(float("inf"))
    table = {} if table is None else table
    flipped = pos.do(me, move)
    try:
        return -_negamax(pos, 1 - me, -window[1], -window[0], table, budget)
    finally:
        pos.undo(me, move, flipped)


def exact_values(pos, me, budget: _Budget | None = None, table=None, window=(-10, 10)):
    """``exact_value`` of every lay of ``me``, each searched on its own (no lay's value is
    a bound from another's search): [(move, value)]."""
    table = {} if table is None else table
    return [(move, exact_value(pos, me, move, budget, table, window))
            for move in _ordered(pos, me)]


def _one_ply_root(pos, me):
    out = []
    for move in pos.moves(me):
        flipped = pos.do(me, move)
        out.append((move, pos.evaluate(me)))
        pos.undo(me, move, flipped)
    return out


def _two_ply_root(pos, me, budget: _Budget):
    """Score each promising lay by the opponent's best evaluated reply."""
    first = sorted(_one_ply_root(pos, me), key=lambda mv: -mv[1])
    out = []
    opp = 1 - me
    for move, v1 in first[:ROOT_BEAM]:
        flipped = pos.do(me, move)
        worst = None
        for reply in pos.moves(opp):
            f2 = pos.do(opp, reply)
            v = pos.evaluate(me)
            pos.undo(opp, reply, f2)
            if worst is None or v < worst:
                worst = v
            if not budget.spend():
                pos.undo(me, move, flipped)
                if out:
                    return out + [(m, v - 100) for m, v in first[len(out):]]
                raise _OutOfTime
        pos.undo(me, move, flipped)
        out.append((move, v1 if worst is None else worst))
    # lays outside the beam keep their one-ply score, handicapped
    out += [(m, v - 100) for m, v in first[ROOT_BEAM:]]
    return out


def _exact_root(pos, me, budget: _Budget | None = None):
    """Exact negamax values (final niche margin for ``me``) of every root lay, within
    ``budget`` nodes (None: no limit)."""
    budget = budget or _Budget(float("inf"))
    table = {}
    moves = _ordered(pos, me)
    out = []
    alpha = -10
    for move in moves:
        flipped = pos.do(me, move)
        # a full window on the first move, then null windows to prove moves no better
        v = -_negamax(pos, 1 - me, -10, -alpha + 1, table, budget)
        pos.undo(me, move, flipped)
        out.append((move, v))
        alpha = max(alpha, v)
    # values of moves that fail low are upper bounds; they are not chosen anyway
    return out


def _ordered(pos, side):
    scored = []
    for move in pos.moves(side):
        flipped = pos.do(side, move)
        scored.append((-len(flipped), move))
        pos.undo(side, move, flipped)
    scored.sort(key=lambda x: x[0])
    return [m for _, m in scored]


_EXACT, _LOWER, _UPPER = 0, 1, 2


def _negamax(pos, side, alpha, beta, table, budget: _Budget):
    empty = pos.ctrl.count(None)
    if empty == 0 or not pos.hands[side]:
        return pos.margin(side)
    if not budget.spend():
        raise _OutOfTime
    key = (tuple(pos.cellcode), tuple(pos.ctrl))
    hit = table.get(key)
    a0 = alpha
    if hit is not None:
        v, flag = hit
        if flag == _EXACT:
            return v
        if flag == _LOWER and v >= beta:
            return v
        if flag == _UPPER and v <= alpha:
            return v
    if empty == 1:
        best = -10
        for move in pos.moves(side):
            flipped = pos.do(side, move)
            v = pos.margin(side)
            pos.undo(side, move, flipped)
            if v > best:
                best = v
        table[key] = (best, _EXACT)
        return best
    moves = _ordered(pos, side) if empty >= 3 else pos.moves(side)
    best = -10
    for move in moves:
        flipped = pos.do(side, move)
        v = -_negamax(pos, 1 - side, -beta, -alpha, table, budget)
        pos.undo(side, move, flipped)
        if v > best:
            best = v
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    flag = _UPPER if best <= a0 else (_LOWER if best >= beta else _EXACT)
    table[key] = (best, flag)
    return best
