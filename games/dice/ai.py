"""The Triad Dice computer player.

``choose_action(state, seat, level, rng, budget_s=1.0)``:

``easy``
    A random legal action (a random removal when one must be chosen).
``normal``
    One ply, greedy: every action (a move together with the removal it allows) is
    scored with ``evaluate`` and the best is played; ties broken by the rng.
``hard``
    Negamax with alpha-beta, iterative deepening within ``budget_s``, a transposition
    table (Zobrist keys), move ordering (table move, moves that form a Triad, history
    heuristic) and the same evaluation at the leaves.  ``search`` returns a
    ``SearchResult`` with the node count and the depth reached (the bench reads them).
    The budget is a node count, not time: ``budget_s`` seconds are ``NODES_PER_SECOND``
    nodes a second (a fixed rate), so given the rng the choice does not depend on the
    load.  The wall clock is only a last guard (``GUARD_FACTOR`` times the budget, at
    least ``GUARD_MIN`` seconds): should it stop the search first, the move may depend
    on the load, and a warning is logged.
``expert``
    HARD's search on ``EXPERT_FACTOR`` times the nodes (``budget_s * EXPERT_FACTOR``
    seconds at the fixed rate): the search is what limits HARD (HARD at the server's
    budget beat HARD at a fifth of it 17 games of 20), so more nodes -- about one ply
    deeper, about 2.2 s a move -- should play better.  Measured: EXPERT scored 20 of 30
    games against HARD in ``bench/level_ratings.py --games dice --rounds 30`` (rated
    1909, RD 71, to HARD's 1802, RD 67) and 11 of 20 in ``bench/dice_ai.py --match
    expert-hard`` (seeds 1-20): 62 % of 50 games, a 95 % interval of about 48-76 %, so
    not yet shown to be stronger beyond doubt.

The search walks positions with the rules module's own primitives (``moves_from``,
``triads_through``, the ``TRIAD`` table) on a mutable copy of ``State.cells``; the
action it returns is always one of ``legal_actions(state, seat)``.  Inside the tree the
draw rules are not tracked; at the root an action that would repeat a position a third
time or reach the 200-turn limit is scored as a draw.
"""

from __future__ import annotations

import logging
import random
import time
from typing import Iterable

import attrs

from . import rules
from .rules import (CELLS, DIRECTION_NAMES, PAIRS, RAYS, REMOVALS_TO_WIN, TRIAD, WINDOWS,
                    Move, Remove, State)

LEVELS = ("easy", "normal", "hard", "expert")
EXPERT_FACTOR = 3  # EXPERT searches on this many times HARD's nodes
NODES_PER_SECOND = 20_000  # search nodes a second of budget (a fixed rate)
GUARD_FACTOR, GUARD_MIN = 12.0, 10.0  # the wall-clock guard: a last resort

log = logging.getLogger(__name__)
WIN = 1_000_000
REMOVAL = 1000

# A move: (origin, old_code, target, new_code, removed_cell, removed_code, direction, kind)
# kind 0 ordinary, 1 stalemate change in place, 2 stalemate move by current value;
# removed_cell -1 when the move forms no Triad.
ORDINARY, CHANGE, SHIFT = 0, 1, 2

_ZRNG = random.Random(0x7D1CE)
ZOBRIST = tuple(tuple(_ZRNG.getrandbits(64) if code else 0 for code in range(7))
                for _ in range(CELLS))
ZSIDE = _ZRNG.getrandbits(64)
del _ZRNG

RAYS3 = tuple(tuple(ray[:3] for ray in per_cell) for per_cell in RAYS)
#: ``NEED[seat][a * 7 + b]``: the value a die of ``seat`` must show to make a Triad with
#: dice ``a`` and ``b`` (0 when none can: an empty cell, or both dice ``seat``'s own).
NEED = tuple(
    tuple(
        0 if not (a and b) or (rules.die_owner(a) == seat and rules.die_owner(b) == seat)
        else (rules.die_value(a) if rules.die_value(a) == rules.die_value(b)
              else 6 - rules.die_value(a) - rules.die_value(b))
        for a in range(7) for b in range(7))
    for seat in (0, 1))


@attrs.frozen
class SearchResult:
    action: Move | Remove
    score: int
    depth: int
    nodes: int
    elapsed: float


class _Timeout(Exception):
    pass


# --------------------------------------------------------------------------- moves

def _with_removals(cells: list[int], side: int, origin: int, old: int, target: int,
                   new: int, d: int, kind: int, out: list) -> None:
    """Append the move, once per die it lets the mover remove (or once with none)."""
    cells[origin] = 0
    cells[target] = new
    cands: set[int] = set()
    for w, (p, q) in zip(WINDOWS[target], PAIRS[target]):
        if TRIAD[new * 49 + cells[p] * 7 + cells[q]]:
            for c in w:
                if (cells[c] - 1) // 3 == side:
                    cands.add(c)
    cells[target] = 0
    cells[origin] = old
    if cands:
        for c in sorted(cands):
            out.append((origin, old, target, new, c, new if c == target else cells[c], d, kind))
    else:
        out.append((origin, old, target, new, -1, 0, d, kind))


def gen_moves(cells: list[int], side: int) -> list[tuple]:
    """Every turn ``side`` can play (a move with its removal), stalemate forms included."""
    out: list[tuple] = []
    base = side * 3
    own = [i for i in range(CELLS) if base < cells[i] <= base + 3]
    for origin in own:
        old = cells[origin]
        oldv = old - base
        rays = RAYS3[origin]
        for d in range(8):
            k = 0
            for target in rays[d]:
                if cells[target]:
                    break
                k += 1
                if k != oldv:
                    _with_removals(cells, side, origin, old, target, base + k, d, ORDINARY, out)
    if out:
        return out
    for origin in own:
        old = cells[origin]
        oldv = old - base
        for v in (1, 2, 3):
            if v != oldv:
                _with_removals(cells, side, origin, old, origin, base + v, -1, CHANGE, out)
        for d in range(8):
            ray = RAYS3[origin][d]
            if len(ray) >= oldv and not any(cells[c] for c in ray[:oldv]):
                _with_removals(cells, side, origin, old, ray[oldv - 1], old, d, SHIFT, out)
    return out


def to_action(move: tuple) -> Move:
    origin, _old, _target, new, _rc, _rcode, d, kind = move
    value = (new - 1) % 3 + 1
    if kind == ORDINARY:
        return Move(origin, value, DIRECTION_NAMES[d])
    if kind == CHANGE:
        return Move(origin, value, None)
    return Move(origin, None, DIRECTION_NAMES[d])


# --------------------------------------------------------------------------- evaluation

def threats(cells: list[int], side: int) -> int:
    """How many empty cells ``side`` could fill next move to form a Triad."""
    need = NEED[side]
    lo, hi = side * 3, side * 3 + 3
    count = 0
    for t in range(CELLS):
        if cells[t]:
            continue
        wanted = 0
        for p, q in PAIRS[t]:
            v = need[cells[p] * 7 + cells[q]]
            if v:
                wanted |= 1 << v
        if not wanted:
            continue
        for ray in RAYS3[t]:
            k = 0
            for c in ray:
                k += 1
                code = cells[c]
                if code:
                    if lo < code <= hi and wanted >> k & 1 and code - lo != k:
                        # the die must not be one of the pair it would complete
                        for p, q in PAIRS[t]:
                            if c != p and c != q and need[cells[p] * 7 + cells[q]] == k:
                                count += 1
                                wanted = 0
                                break
                    break
            if not wanted:
                break
    return count


def mobility(cells: list[int], side: int) -> int:
    lo, hi = side * 3, side * 3 + 3
    n = 0
    for i in range(CELLS):
        if lo < cells[i] <= hi:
            for ray in RAYS3[i]:
                if ray and not cells[ray[0]]:
                    n += 1
    return n


def evaluate(cells: list[int], removed: list[int], side: int) -> int:
    """Score for ``side``, who is to move: removals, Triad threats, mobility."""
    opp = 1 - side
    mine, theirs = threats(cells, side), threats(cells, opp)
    score = REMOVAL * (removed[side] - removed[opp])
    if mine:
        score += REMOVAL // 2 + 30 * mine
    score -= 60 * theirs + (250 if theirs >= 2 else 0)
    score += 3 * (mobility(cells, side) - mobility(cells, opp))
    return score


# --------------------------------------------------------------------------- search

def _make(cells, removed, move, side) -> None:
    origin, _old, target, new, rc, _rcode, _d, _k = move
    cells[origin] = 0
    cells[target] = new
    if rc >= 0:
        cells[rc] = 0
        removed[side] += 1


def _unmake(cells, removed, move, side) -> None:
    origin, old, target, _new, rc, rcode, _d, _k = move
    if rc >= 0:
        cells[rc] = rcode
        removed[side] -= 1
    cells[target] = 0
    cells[origin] = old


def _zkey_delta(move) -> int:
    origin, old, target, new, rc, rcode, _d, _k = move
    z = ZOBRIST[origin][old] ^ ZOBRIST[target][new]
    if rc >= 0:
        z ^= ZOBRIST[rc][rcode]
    return z


class _Searcher:
    def __init__(self, deadline: float, check_every: int = 32,
                 max_nodes: float = float("inf")):
        self.deadline = deadline  # the wall-clock guard
        self.max_nodes = max_nodes  # the budget
        self.fired = False  # the guard stopped a search
        self.nodes = 0
        self.tt: dict[int, tuple[int, int, int, tuple | None]] = {}  # key -> depth, score, flag, move
        self.history: dict[tuple, int] = {}
        self.check_every = check_every

    def order(self, moves: list[tuple], best: tuple | None) -> list[tuple]:
        hist = self.history

        def key(m):
            if m == best:
                return -10**9
            return -(100000 if m[4] >= 0 else 0) - hist.get(m[:4], 0)
        return sorted(moves, key=key)

    def negamax(self, cells, removed, side, depth, alpha, beta, zkey, ply) -> int:
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise _Timeout
        if self.nodes % self.check_every == 0 and time.perf_counter() > self.deadline:
            self.fired = True
            raise _Timeout
        if removed[1 - side] >= REMOVALS_TO_WIN:
            return -WIN + ply
        if depth == 0:
            return evaluate(cells, removed, side)
        alpha0 = alpha
        entry = self.tt.get(zkey)
        best_move = None
        if entry is not None:
            e_depth, e_score, e_flag, best_move = entry
            if e_depth >= depth:
                if e_flag == 0:
                    return e_score
                if e_flag == 1 and e_score >= beta:
                    return e_score
                if e_flag == -1 and e_score <= alpha:
                    return e_score
        moves = gen_moves(cells, side)
        best = -WIN - 1
        chosen = None
        for move in self.order(moves, best_move):
            _make(cells, removed, move, side)
            try:
                score = -self.negamax(cells, removed, 1 - side, depth - 1, -beta, -alpha,
                                      zkey ^ _zkey_delta(move) ^ ZSIDE, ply + 1)
            finally:
                _unmake(cells, removed, move, side)
            if score > best:
                best, chosen = score, move
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        k = move[:4]
                        self.history[k] = self.history.get(k, 0) + depth * depth
                        break
        flag = 0 if alpha0 < best < beta else (1 if best >= beta else -1)
        self.tt[zkey] = (depth, best, flag, chosen)
        return best


def _root_moves(state: State, seat: int) -> list[tuple]:
    cells = list(state.cells)
    if state.pending:
        return [(-1, 0, -1, 0, c, cells[c], -1, -1) for c in state.pending]
    return gen_moves(cells, seat)


def _root_action(move: tuple) -> Move | Remove:
    if move[0] == -1:
        return Remove(move[4])
    return to_action(move)


def _draw_after(state: State, seat: int, cells: list[int], move: tuple) -> bool:
    """Would this root move end the game in a draw (repetition or 200 quiet turns)?"""
    if move[4] >= 0:
        return False
    if state.quiet_turns + 1 >= rules.QUIET_TURN_LIMIT:
        return True
    key = rules.position_key(cells, 1 - seat)
    return state.history.count(key) + 1 >= rules.REPETITIONS_FOR_DRAW


def _make_root(cells, removed, move, side):
    if move[0] == -1:
        cells[move[4]] = 0
        removed[side] += 1
    else:
        _make(cells, removed, move, side)


def _unmake_root(cells, removed, move, side):
    if move[0] == -1:
        cells[move[4]] = move[5]
        removed[side] -= 1
    else:
        _unmake(cells, removed, move, side)


def _key(cells: Iterable[int], side: int) -> int:
    z = ZSIDE if side else 0
    for i, c in enumerate(cells):
        z ^= ZOBRIST[i][c]
    return z


def search(state: State, seat: int, rng: random.Random, budget_s: float = 1.0,
           max_depth: int = 64) -> SearchResult:
    """Iterative-deepening alpha-beta from ``state`` for ``seat``, on
    ``budget_s * NODES_PER_SECOND`` nodes."""
    start = time.perf_counter()
    cells = list(state.cells)
    removed = list(state.removed)
    moves = _root_moves(state, seat)
    rng.shuffle(moves)  # ties are broken by the rng
    budget = budget_s * NODES_PER_SECOND
    guard = start + max(GUARD_MIN, budget_s * GUARD_FACTOR)
    searcher = _Searcher(guard, max_nodes=budget)
    if len(moves) == 1:
        return SearchResult(_root_action(moves[0]), 0, 0, 0, time.perf_counter() - start)
    draws = {m for m in moves if m[0] != -1 and _is_draw(state, seat, cells, removed, m)}
    best_move, best_score, depth_done = moves[0], -WIN - 1, 0
    order = moves
    for depth in range(1, max_depth + 1):
        # depth 1 (one evaluation per move) always completes, whatever the budget
        searcher.deadline = float("inf") if depth == 1 else guard
        searcher.max_nodes = float("inf") if depth == 1 else budget
        scores: dict[tuple, int] = {}
        alpha = -WIN - 1
        try:
            for move in order:
                if move in draws:
                    score = 0
                else:
                    _make_root(cells, removed, move, seat)
                    try:
                        z = _key(cells, 1 - seat)
                        score = -searcher.negamax(cells, removed, 1 - seat, depth - 1,
                                                  -WIN - 1, -alpha, z, 1)
                    finally:
                        _unmake_root(cells, removed, move, seat)
                scores[move] = score
                if score > alpha:
                    alpha = score
        except _Timeout:
            # keep the moves fully searched at this depth if the previous best was among them
            if order[0] in scores:
                cand = max(scores, key=lambda m: scores[m])
                best_move, best_score = cand, scores[cand]
            break
        order = sorted(order, key=lambda m: -scores[m])
        best_move, best_score, depth_done = order[0], scores[order[0]], depth
        if abs(best_score) >= WIN - 100 or searcher.nodes > budget * 0.5:
            break
    if searcher.fired:
        log.warning("Triad Dice: the wall-clock guard stopped the search before its "
                    "node budget: this move may depend on the load")
    return SearchResult(_root_action(best_move), best_score, depth_done, searcher.nodes,
                        time.perf_counter() - start)


def _is_draw(state, seat, cells, removed, move) -> bool:
    _make(cells, removed, move, seat)
    try:
        return _draw_after(state, seat, cells, move)
    finally:
        _unmake(cells, removed, move, seat)


# --------------------------------------------------------------------------- levels

def _easy(state: State, seat: int, rng: random.Random) -> Move | Remove:
    return rng.choice(list(rules.legal_actions(state, seat)))


def _normal(state: State, seat: int, rng: random.Random) -> Move | Remove:
    cells = list(state.cells)
    removed = list(state.removed)
    moves = _root_moves(state, seat)
    best, best_score = [], None
    for move in moves:
        _make_root(cells, removed, move, seat)
        try:
            if removed[seat] >= REMOVALS_TO_WIN:
                score = WIN
            elif move[0] != -1 and _draw_after(state, seat, cells, move):
                score = 0
            else:
                score = -evaluate(cells, removed, 1 - seat)
        finally:
            _unmake_root(cells, removed, move, seat)
        if best_score is None or score > best_score:
            best, best_score = [move], score
        elif score == best_score:
            best.append(move)
    return _root_action(rng.choice(best))


def choose_action(state: State, seat: int, level: str, rng: random.Random,
                  budget_s: float = 1.0) -> Move | Remove:
    """The computer's action for ``seat`` at ``level`` (one of ``LEVELS``)."""
    if state.result is not None or seat not in rules.to_move(state):
        raise ValueError("the computer has nothing to play here")
    level = level.lower()
    if level == "easy":
        return _easy(state, seat, rng)
    if level == "normal":
        return _normal(state, seat, rng)
    if level == "hard":
        return search(state, seat, rng, budget_s).action
    if level == "expert":
        return search(state, seat, rng, budget_s * EXPERT_FACTOR).action
    raise ValueError(f"level must be one of {LEVELS}, not {level!r}")
