"""Triptycha computer players.

* ``easy``: a random legal LAY (flipping first when no tile fits an empty niche).
* ``normal``: greedy one ply: the placement (tile, niche, rotation) that flips the
  most tiles now; ties go to the placement leaving the fewest weak edges exposed.
* ``hard``: a real search.  With 5 or fewer niches empty it solves the rest of the
  game exactly (negamax, alpha-beta, a transposition table keyed on the board);
  before that it runs a two-ply search (its lay, the opponent's best reply) over the
  most promising lays, scored by an evaluation (niche margin, tiles exposed to the
  other side's strongest edge, tempo).  Every search counts its nodes and stops
  when the budget is spent.

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
turns of the tile is preferred, which guarantees progress from call to call.
"""

from __future__ import annotations

import logging
import random
import time
import zlib

from games.errors import IllegalAction

from .board import CELLS, NEIGHBOURS, UP
from .rules import (Done, Draw, Flip, Lay, Rotate, State, Take, legal_actions, resolve,
                    result, takeable)
from .tiles import Held, Tile

LEVELS = ("easy", "normal", "hard")
EXACT_EMPTY = 5          # exact search once this many niches (or fewer) are empty
ROOT_BEAM = 16           # lays looked at two plies deep before the endgame
SAMPLES = 3              # determinizations of a hidden opponent hand
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
    """One action for ``seat`` at ``level`` ("easy", "normal", "hard")."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}")
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
        k, niche, up, turn = _greedy(state, seat, rng)
    else:
        budget = _Budget(int(budget_s * NODES_PER_SECOND),
                         time.perf_counter() + max(GUARD_MIN, budget_s * GUARD_FACTOR))
        k, niche, up, turn = _hard(state, seat, budget)
        if budget.fired:
            log.warning("Triptycha hard: the wall-clock guard stopped the search before its "
                        "node budget: this lay may depend on the load")
    return _step_towards(state, seat, k, niche, up, turn)


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


def _greedy(state, seat, rng):
    pos = _Pos(state, seat, [])
    best, best_key = None, None
    for move in pos.moves(seat):
        flipped = pos.do(seat, move)
        key = (len(flipped), pos.evaluate(seat))
        pos.undo(seat, move, flipped)
        plan = _plan(state, seat, pos, move)
        full = (key, -plan[4], rng.random())
        if best_key is None or full > best_key:
            best, best_key = plan, full
    return best[:4]


def _plan(state, seat, pos, move):
    """(hand number, niche, up, turn, prep actions) for a search move."""
    t, i, turn, _ = move
    tile = pos.tiles[t]
    # among identical tiles pick the one needing fewest turns
    cands = [kk for kk, h in enumerate(state.hands[seat], 1)
             if h.niche is None and h.tile.corners == tile.corners
             and h.tile.primary == tile.primary]
    k = min(cands, key=lambda kk: _prep(state.hands[seat][kk - 1], UP[i], turn))
    return (k, i + 1, UP[i], turn, _prep(state.hands[seat][k - 1], UP[i], turn))


# --------------------------------------------------------------------- hard


def _opponent_views(state: State, me: int):
    """The opponent hands to search: the real one with Truth, else determinizations."""
    opp = 1 - me
    need = sum(h.niche is None for h in state.hands[opp])
    if state.rules.truth:
        return [[h.tile for h in state.hands[opp] if h.niche is None]]
    laid_ids = {h.tile.id for hand in state.hands for h in hand if h.niche is not None}
    own_ids = {h.tile.id for h in state.hands[me]}
    pool = [t for t in state.decks[opp] if t.id not in laid_ids and t.id not in own_ids]
    if len(pool) <= need:
        return [pool]
    seed = zlib.crc32(repr((me, state.control, sorted(laid_ids),
                            sorted(t.id for t in pool))).encode())
    srng = random.Random(seed)
    return [srng.sample(pool, need) for _ in range(SAMPLES)]


def _hard(state, seat, budget: _Budget):
    views = _opponent_views(state, seat)
    empty = sum(c is None for c in state.control)
    totals = {}
    plans = {}
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
            plans[key] = _plan(state, seat, pos, move)
    # only moves scored in every completed determinization compete
    best = max(totals, key=lambda key: (round(totals[key], 6), -plans[key][4],
                                        -plans[key][0], -plans[key][1], plans[key][3]))
    return plans[best][:4]


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
