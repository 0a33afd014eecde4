"""A perfect-information Pyramid solver (it sees the face-down Pack: never use it
for a player's HINT or the computer player in deal 1; see ai.py).

Goals (rules/pyramid.md, "Par Pyramid"):

- ``"pyramid"`` -- remove all 28 pyramid cards within the three deals;
- ``"all"``     -- remove all 52 cards within the three deals (a win);
- ``"par"``     -- the best Par score reachable, with a line that reaches it.

The search is a depth-first search over a compact state: a bitmask of removed
pyramid cards, a bitmask of removed stock cards, the Pack/Waste boundary ``ptr``
(stock cards are kept in one list, Waste bottom..top then Pack top..bottom, so
the Waste is every live card before ``ptr`` and the Pack every live card from it)
and the pass number.  Sound prunings only:

- Kings are removed at once (a pyramid King costs nothing; a Pack-top King removed
  dominates discarding it, since a Waste-top King can be removed alone later);
- position dominance: for one (pyramid, stock) removal pattern an earlier Pack
  position (or an earlier deal) reaches every later one by D alone, so a pattern
  that failed from a position has failed from every later one;
- D is taken in jumps to the next position where something new can pair (pyramid
  pairs commute with D, so they are tried before the jump);
- a pyramid card with no partner left (a complementary card that neither covers
  it nor lies under it, or a live stock card of that rank), or more cards of one
  rank than partners, makes the state dead;
- the joker relaxation: if the pyramid cannot be cleared even when every live stock
  card could be taken at any moment (each once), the pattern is dead.  This proves
  almost every unwinnable deal at the root.

"pyramid"/"all" run a depth-first probe, then (if it ran out of nodes) a forward
sweep in Pack-position order that expands each pattern from its earliest position.
"par" sweeps with branch and bound.
A node budget and a time limit turn into ``result == "unknown"``.
"""

from __future__ import annotations

import time

import attrs

from games.pyramid.cards import COVERED_BY, PYRAMID_SIZE, SHADOW, rank, spot_name
from games.pyramid.rules import DEAL, DEALS, PAR_BASE, Action, Game

FULL_PYR = (1 << PYRAMID_SIZE) - 1
COVER_MASK = tuple(sum(1 << j for j in COVERED_BY[i]) for i in range(PYRAMID_SIZE))
# Cards that can never pair with card i: those covering it and those it covers.
_ABOVE = tuple(frozenset(j for j in range(PYRAMID_SIZE) if i in SHADOW[j])
               for i in range(PYRAMID_SIZE))
BLOCK_MASK = tuple(sum(1 << j for j in SHADOW[i] | _ABOVE[i]) for i in range(PYRAMID_SIZE))


class _Budget(Exception):
    pass


@attrs.frozen
class Solution:
    """``result``: "win" (goal reachable), "lose" (proved unreachable) or "unknown"
    (budget exhausted).  ``moves`` replays from the solved position through
    ``rules.play``.  ``score`` is the Par score of ``moves``' end (for "par" the best
    found; ``proven`` tells whether it is proved best)."""

    goal: str
    result: str
    moves: tuple[Action, ...]
    score: int | None
    proven: bool
    nodes: int
    seconds: float


def _to_actions(moves) -> tuple[Action, ...]:
    out: list[Action] = []
    for move in moves:
        if move[0] == "D":
            out.extend([DEAL] * move[1])
        else:
            out.append(_to_action(move))
    return tuple(out)


def _to_action(move: tuple) -> Action:
    kind = move[0]
    if kind == "k":
        return Action("remove", (spot_name(move[1]),))
    if kind == "kP":
        return Action("remove", ("P",))
    if kind == "kW":
        return Action("remove", ("W",))
    if kind == "pp":
        return Action("remove", (spot_name(move[1]), spot_name(move[2])))
    if kind == "pP":
        return Action("remove", (spot_name(move[1]), "P"))
    if kind == "pW":
        return Action("remove", (spot_name(move[1]), "W"))
    if kind == "PW":
        return Action("remove", ("P", "W"))
    raise AssertionError(move)


class _Position:
    """The solver's view of a Game: ranks and bitmasks."""

    def __init__(self, game: Game):
        self.pr = [rank(c) if c is not None else 0 for c in game.pyramid]
        self.pm = sum(1 << i for i, c in enumerate(game.pyramid) if c is None)
        stock = list(game.waste) + list(game.pack)
        self.st = [rank(c) for c in stock]
        self.n = len(stock)
        self.ptr = len(game.waste)
        self.ps = game.deal - 1
        self.full_st = (1 << self.n) - 1
        # stock masks by rank, for the "has a partner left" test
        self.st_by_rank = [0] * 14
        for j, r in enumerate(self.st):
            self.st_by_rank[r] |= 1 << j
        self.pyr_by_rank = [0] * 14
        for i, r in enumerate(self.pr):
            if r:
                self.pyr_by_rank[r] |= 1 << i
        # partners[i]: pyramid cards that could ever pair with i
        self.partners = [
            (self.pyr_by_rank[13 - r] & ~BLOCK_MASK[i]) if r and r != 13 else 0
            for i, r in enumerate(self.pr)
        ]


class _Search:
    """Move generation over the compact state (pm, sm, ptr, ps) of one position."""

    def __init__(self, pos: _Position, goal: str):
        self.pos = pos
        self.want_all = goal == "all"
        self.avail_cache: dict[int, tuple[tuple[int, ...], int]] = {}
        self.expanded = 0
        self.hopeless_memo: dict[int, bool] = {}
        self.relax_memo: dict[int, bool] = {}

    def avail(self, pm: int) -> tuple[tuple[int, ...], int]:
        """Available pyramid cards and the bitmask of their ranks (cached by pm)."""
        a = self.avail_cache.get(pm)
        if a is None:
            pr = self.pos.pr
            cards = tuple(i for i in range(PYRAMID_SIZE)
                          if not (pm >> i) & 1 and not (COVER_MASK[i] & ~pm))
            a = (cards, sum({1 << pr[i] for i in cards}))
            self.avail_cache[pm] = a
        return a

    def dead(self, pm: int, sm: int, ranks) -> bool:
        """After removing cards of ``ranks``: is some pyramid card left without enough
        partners (none it can ever meet, or more cards of one rank than partners)?"""
        pos = self.pos
        for r in ranks:
            if r == 13:
                continue
            need = 13 - r
            m_need = pos.pyr_by_rank[need] & ~pm
            if not m_need:
                continue
            m_r = pos.pyr_by_rank[r] & ~pm
            s_r = pos.st_by_rank[r] & ~sm
            if m_need.bit_count() > m_r.bit_count() + s_r.bit_count():
                return True
            if m_r.bit_count() > m_need.bit_count() + (pos.st_by_rank[need] & ~sm).bit_count():
                return True
            if s_r:
                continue
            m = m_need
            partners = pos.partners
            while m:
                low = m & -m
                m ^= low
                if not (partners[low.bit_length() - 1] & ~pm):
                    return True
        return False

    def settle(self, pm: int, sm: int, ptr: int, moves: list) -> tuple[int, int, int]:
        """Remove available Kings at once (sound: see the module docstring); appends
        the King moves to ``moves``.  ``ptr`` is left as it is (never lowered), so a
        move never goes back to an earlier Pack position: the sweep relies on it."""
        pr, st, full_st = self.pos.pr, self.pos.st, self.pos.full_st
        while True:
            for i in self.avail(pm)[0]:
                if pr[i] == 13:
                    pm |= 1 << i
                    moves.append(("k", i))
                    break
            else:
                rem = full_st & ~sm
                hi = rem >> ptr
                if hi:
                    pt = ((hi & -hi).bit_length() - 1) + ptr
                    if st[pt] == 13:
                        sm |= 1 << pt
                        moves.append(("kP",))
                        continue
                lo = rem & ((1 << ptr) - 1)
                if lo:
                    wt = lo.bit_length() - 1
                    if st[wt] == 13:
                        sm |= 1 << wt
                        moves.append(("kW",))
                        continue
                return pm, sm, ptr

    def hopeless(self, pm: int, sm: int) -> bool:
        """The joker relaxation: could the pyramid be cleared if every live stock
        card could be taken at any moment (each once)?  If not, the pattern is dead.
        Pairs inside the pyramid keep their covering rules, so this catches deals
        where cards block their own partners."""
        key = pm | (sm << 28)
        dead = self.hopeless_memo.get(key)
        if dead is None:
            pos = self.pos
            counts = 0
            for r in range(1, 13):
                c = (pos.st_by_rank[r] & ~sm).bit_count()
                if c:
                    c = min(c, (pos.pyr_by_rank[13 - r] & ~pm).bit_count())
                    counts |= c << (3 * r)
            dead = not self._clearable(pm, counts)
            self.hopeless_memo[key] = dead
        return dead

    def _clearable(self, pm: int, counts: int) -> bool:
        if pm == FULL_PYR:
            return True
        key = pm | (counts << 28)
        ok = self.relax_memo.get(key)
        if ok is not None:
            return ok
        pr = self.pos.pr
        av = self.avail(pm)[0]
        ok = False
        for i in av:
            if pr[i] == 13:
                ok = self._clearable(pm | (1 << i), counts)
                self.relax_memo[key] = ok
                return ok
        n_av = len(av)
        for x in range(n_av):
            i = av[x]
            need = 13 - pr[i]
            for y in range(x + 1, n_av):
                if pr[av[y]] == need and self._clearable(pm | (1 << i) | (1 << av[y]), counts):
                    self.relax_memo[key] = True
                    return True
            if (counts >> (3 * need)) & 7 and self._clearable(pm | (1 << i), counts - (1 << (3 * need))):
                self.relax_memo[key] = True
                return True
        self.relax_memo[key] = False
        return False

    def done(self, pm: int, sm: int) -> bool:
        return pm == FULL_PYR and (not self.want_all or sm == self.pos.full_st)

    def children(self, pm: int, sm: int, ptr: int, ps: int):
        """Yield (moves, pm, sm, ptr, ps) for each move worth trying, best first."""
        self.expanded += 1
        pr, st = self.pos.pr, self.pos.st
        dead, settle = self.dead, self.settle
        av, avr = self.avail(pm)
        rem = self.pos.full_st & ~sm
        hi = rem >> ptr
        pt = ((hi & -hi).bit_length() - 1) + ptr if hi else -1
        lo = rem & ((1 << ptr) - 1)
        wt = lo.bit_length() - 1 if lo else -1
        n_av = len(av)
        for x in range(n_av):
            i = av[x]
            ri = pr[i]
            need = 13 - ri
            for y in range(x + 1, n_av):
                j = av[y]
                if pr[j] == need:
                    npm = pm | (1 << i) | (1 << j)
                    if not dead(npm, sm, (ri, need)):
                        moves = [("pp", i, j)]
                        yield (moves, *settle(npm, sm, ptr, moves), ps)
        if wt >= 0:
            rw = st[wt]
            for i in av:
                if pr[i] + rw == 13:
                    npm, nsm = pm | (1 << i), sm | (1 << wt)
                    if not dead(npm, nsm, (pr[i], rw)):
                        moves = [("pW", i)]
                        yield (moves, *settle(npm, nsm, ptr, moves), ps)
        if pt >= 0:
            rp = st[pt]
            for i in av:
                if pr[i] + rp == 13:
                    npm, nsm = pm | (1 << i), sm | (1 << pt)
                    if not dead(npm, nsm, (pr[i], rp)):
                        moves = [("pP", i)]
                        yield (moves, *settle(npm, nsm, ptr, moves), ps)
            if wt >= 0 and rp + st[wt] == 13:
                nsm = sm | (1 << pt) | (1 << wt)
                if not dead(pm, nsm, (rp, st[wt])):
                    moves = [("PW",)]
                    yield (moves, *settle(pm, nsm, ptr, moves), ps)
            # D, repeated while nothing new can pair (pyramid pairs commute with
            # D, so they are tried before the jump).
            k, steps = pt, 0
            while True:
                steps += 1
                rw2 = st[k]
                if (avr >> (13 - rw2)) & 1:
                    break
                rest = rem >> (k + 1)
                if not rest:
                    break
                p = ((rest & -rest).bit_length() - 1) + k + 1
                rp2 = st[p]
                if rp2 == 13 or rp2 + rw2 == 13 or (avr >> (13 - rp2)) & 1:
                    break
                k = p
            moves = [("D", steps)]
            yield (moves, *settle(pm, sm, k + 1, moves), ps)
        elif ps < DEALS - 1 and lo:
            moves = [("D", 1)]
            yield (moves, *settle(pm, sm, 0, moves), ps + 1)


def _dfs(search: _Search, root: tuple, max_nodes: int, deadline: float):
    """Depth-first probe; returns the move list, None (proved impossible) or raises
    _Budget.  A failed (pm, sm) pattern stays failed at any later Pack position: an
    earlier position reaches every later one by D alone."""
    failed: dict[int, int] = {}
    path: list[tuple] = []

    def visit(pm: int, sm: int, ptr: int, ps: int) -> bool:
        if search.done(pm, sm):
            search.final = (pm, sm, ptr, ps)
            return True
        if search.expanded >= max_nodes or (
                not search.expanded & 1023 and time.perf_counter() > deadline):
            raise _Budget
        key = pm | (sm << 28)
        here = ps * 32 + ptr
        f = failed.get(key)
        if f is not None and f <= here:
            return False
        if search.hopeless(pm, sm):
            failed[key] = 0
            return False
        for moves, npm, nsm, nptr, nps in search.children(pm, sm, ptr, ps):
            path.extend(moves)
            if visit(npm, nsm, nptr, nps):
                return True
            del path[len(path) - len(moves):]
        f = failed.get(key)
        if f is None or here < f:
            failed[key] = here
        return False

    return list(path) if visit(*root) else None


def _sweep(search: _Search, root: tuple, max_nodes: int, deadline: float):
    """Exhaustive forward search in order of Pack position (deal, then ptr).

    A (pm, sm) pattern is expanded from the earliest position it is reached at and
    then along its own chain of D moves; reaching it again at a later position is
    dominated (that chain passes there, or skips it only where nothing new can pair).
    Returns the move list or None.
    """
    pm0, sm0, ptr0, ps0 = root
    if search.done(pm0, sm0):
        return []
    buckets: list[list[tuple[int, bool]]] = [[] for _ in range(DEALS * 32)]
    best: dict[int, int] = {}
    on_chain: set[tuple[int, int]] = set()
    parent: dict[tuple[int, int], tuple | None] = {}
    here0 = ps0 * 32 + ptr0
    key0 = pm0 | (sm0 << 28)
    best[key0] = here0
    buckets[here0].append((key0, False))
    parent[(key0, here0)] = None
    mask28 = FULL_PYR
    for here in range(here0, DEALS * 32):
        bucket = buckets[here]
        ps, ptr = divmod(here, 32)
        while bucket:
            key, chain = bucket.pop()
            if chain:
                if (key, here) in on_chain:
                    continue
            elif best[key] != here:
                continue
            else:
                pm, sm = key & mask28, key >> 28
                if search.hopeless(pm, sm):
                    continue
            on_chain.add((key, here))
            if search.expanded >= max_nodes or (
                    not search.expanded & 255 and time.perf_counter() > deadline):
                raise _Budget
            pm, sm = key & mask28, key >> 28
            for moves, npm, nsm, nptr, nps in search.children(pm, sm, ptr, ps):
                nkey = npm | (nsm << 28)
                nhere = nps * 32 + nptr
                if nkey == key:  # D: follow this pattern's own chain
                    if (nkey, nhere) not in on_chain:
                        parent.setdefault((nkey, nhere), (key, here, moves))
                        buckets[nhere].append((nkey, True))
                    continue
                b = best.get(nkey)
                if b is not None and b <= nhere:
                    continue
                best[nkey] = nhere
                parent[(nkey, nhere)] = (key, here, moves)
                if search.done(npm, nsm):
                    return _trace(parent, (nkey, nhere))
                buckets[nhere].append((nkey, False))
    return None


def _trace(parent: dict, node: tuple) -> list[tuple]:
    out: list[list[tuple]] = []
    while parent[node] is not None:
        key, here, moves = parent[node]
        out.append(moves)
        node = (key, here)
    return [m for moves in reversed(out) for m in moves]


def solve(game: Game, goal: str = "pyramid", max_nodes: int = 2_000_000,
          time_limit: float = 10.0, probe_nodes: int = 200_000) -> Solution:
    """Solve ``game`` from its current position for ``goal`` ("pyramid", "all", "par")."""
    if goal == "par":
        return solve_par(game, max_nodes=max_nodes, time_limit=time_limit)
    if goal not in ("pyramid", "all"):
        raise ValueError(f"unknown goal {goal!r}")
    t0 = time.perf_counter()
    if game.over:
        done = game.cards_left == 0 if goal == "all" else game.pyramid_left == 0
        return Solution(goal, "win" if done else "lose", (), game.score, True, 0, 0.0)
    pos = _Position(game)
    search = _Search(pos, goal)
    deadline = t0 + time_limit
    lead: list[tuple] = []
    root = (*search.settle(pos.pm, 0, pos.ptr, lead), pos.ps)
    found = None
    try:
        if not search.dead(root[0], root[1], range(1, 13)) and not search.hopeless(root[0], root[1]):
            try:
                found = _dfs(search, root, min(probe_nodes, max_nodes), deadline)
                proven = True
            except _Budget:
                proven = False
            if found is None and not proven:
                found = _sweep(search, root, max_nodes, deadline)
    except _Budget:
        return Solution(goal, "unknown", (), None, False, search.expanded,
                        time.perf_counter() - t0)
    moves = _to_actions(lead + found) if found is not None else ()
    return Solution(goal, "win" if found is not None else "lose", moves, None, True,
                    search.expanded, time.perf_counter() - t0)


def _stock_min_left(search: _Search, sm: int, ptr: int, ps: int, memo: dict) -> tuple[int, list]:
    """With the pyramid gone: the fewest stock cards left at the end (Kings, Pack+Waste
    pairs, D and redeals), and a line to that end."""
    st, full_st = search.pos.st, search.pos.full_st
    key = sm | (ptr << 24) | (ps << 30)
    hit = memo.get(key)
    if hit is not None:
        return hit
    rem = full_st & ~sm
    hi = rem >> ptr
    pt = ((hi & -hi).bit_length() - 1) + ptr if hi else -1
    lo = rem & ((1 << ptr) - 1)
    wt = lo.bit_length() - 1 if lo else -1
    options: list[tuple[int, list]] = []
    if pt >= 0 and st[pt] == 13:
        left, line = _stock_min_left(search, sm | (1 << pt), ptr, ps, memo)
        options.append((left, [("kP",)] + line))
    elif wt >= 0 and st[wt] == 13:
        left, line = _stock_min_left(search, sm | (1 << wt), ptr, ps, memo)
        options.append((left, [("kW",)] + line))
    else:
        if pt >= 0 and wt >= 0 and st[pt] + st[wt] == 13:
            left, line = _stock_min_left(search, sm | (1 << pt) | (1 << wt), ptr, ps, memo)
            options.append((left, [("PW",)] + line))
        if pt >= 0:
            left, line = _stock_min_left(search, sm, pt + 1, ps, memo)
            options.append((left, [("D", 1)] + line))
        elif ps < DEALS - 1 and lo:
            left, line = _stock_min_left(search, sm, 0, ps + 1, memo)
            options.append((left, [("D", 1)] + line))
    best = min(options, key=lambda o: o[0]) if options else (rem.bit_count(), [])
    memo[key] = best
    return best


def _finish_line(game: Game, actions) -> tuple[Game, tuple[Action, ...]]:
    """Replay ``actions`` through the engine, then play on (Kings and pairs first,
    else D) until the game is over; returns the final game and the whole line."""
    from games.pyramid.rules import END, game_actions, play

    line = list(actions)
    for a in line:
        game, _ = play(game, a)
    while not game.over:
        legal = [a for a in game_actions(game) if a is not END]
        move = next((a for a in legal if a.kind == "remove"), legal[0])
        game, _ = play(game, move)
        line.append(move)
    return game, tuple(line)


def solve_par(game: Game, max_nodes: int = 2_000_000, time_limit: float = 10.0) -> Solution:
    """The best Par score reachable from ``game`` and a line reaching it.

    Sweep of the (pm, sm) patterns at their earliest Pack positions (an earlier
    position dominates for Par too: it can clear the pyramid no later and reach the
    same stock state by D).  A pattern that clears the pyramid in deal d scores
    ``PAR_BASE[d]`` less the fewest cards it can leave (``_stock_min_left``); a
    pattern that cannot beat the best so far (50/35/20 by deal; for an uncleared
    line, the cards the joker relaxation says must stay) is cut.  Other lines score
    minus the cards left, the fewest over every reachable pattern.
    """
    t0 = time.perf_counter()
    deadline = t0 + time_limit
    if game.over:
        return Solution("par", "win" if game.cards_left == 0 else "lose", (),
                        game.score, True, 0, 0.0)
    pos = _Position(game)
    search = _Search(pos, "pyramid")
    lead: list[tuple] = []
    root = (*search.settle(pos.pm, 0, pos.ptr, lead), pos.ps)
    pm0, sm0, ptr0, ps0 = root
    stock_memo: dict = {}
    best_val: int | None = None
    best_node = None
    best_tail: list = []
    buckets: list[list[int]] = [[] for _ in range(DEALS * 32)]
    seen: dict[int, int] = {}
    parent: dict[tuple[int, int], tuple | None] = {}
    full_st = pos.full_st

    def value_of(pm: int, sm: int, ptr: int, ps: int) -> tuple[int, list]:
        if pm == FULL_PYR:
            left, tail = _stock_min_left(search, sm, ptr, ps, stock_memo)
            return PAR_BASE[ps + 1] - left, tail
        return -(PYRAMID_SIZE - pm.bit_count() + (full_st & ~sm).bit_count()), []

    def bound(pm: int, sm: int, ps: int) -> int:
        """An upper bound on any Par score reachable from this pattern."""
        if not search.hopeless(pm, sm):
            return PAR_BASE[ps + 1]
        return -(PYRAMID_SIZE - pm.bit_count() - _relax_most(search, pm, sm))

    def consider(pm, sm, ptr, ps, node):
        nonlocal best_val, best_node, best_tail
        val, tail = value_of(pm, sm, ptr, ps)
        if best_val is None or val > best_val:
            best_val, best_node, best_tail = val, node, tail
            return True
        return False

    key0 = pm0 | (sm0 << 28)
    here0 = ps0 * 32 + ptr0
    parent[(key0, here0)] = None
    seen[key0] = here0
    consider(pm0, sm0, ptr0, ps0, (key0, here0))
    # A quick depth-first clearing line sets a good score to beat.
    dfs_line = None
    try:
        found = _dfs(search, root, min(20_000, max_nodes), deadline)
    except _Budget:
        found = None
    if found is not None:
        val, tail = value_of(*search.final)
        if val > best_val:
            best_val, best_node, dfs_line = val, None, found + tail
    buckets[here0].append(key0)
    proven = True
    try:
        for here in range(here0, DEALS * 32):
            ps, ptr = divmod(here, 32)
            bucket = buckets[here]
            while bucket:
                if best_val == PAR_BASE[1]:
                    break
                key = bucket.pop()
                pm, sm = key & FULL_PYR, key >> 28
                if pm == FULL_PYR or bound(pm, sm, ps) <= best_val:
                    continue
                if search.expanded >= max_nodes or (
                        not search.expanded & 255 and time.perf_counter() > deadline):
                    raise _Budget
                for moves, npm, nsm, nptr, nps in search.children(pm, sm, ptr, ps):
                    nkey = npm | (nsm << 28)
                    nhere = nps * 32 + nptr
                    if (nkey, nhere) in parent:
                        continue
                    b = seen.get(nkey)
                    if nkey != key and b is not None and b <= nhere:
                        continue
                    if b is None or nhere < b:
                        seen[nkey] = nhere
                    parent[(nkey, nhere)] = (key, here, moves)
                    consider(npm, nsm, nptr, nps, (nkey, nhere))
                    buckets[nhere].append(nkey)
    except _Budget:
        proven = False
    if best_node is None:
        line = _to_actions(lead + dfs_line)
    else:
        line = _to_actions(lead + _trace(parent, best_node) + best_tail)
    end, line = _finish_line(game, line)
    return Solution("par", "win" if end.cards_left == 0 else "lose", line, end.score,
                    proven, search.expanded, time.perf_counter() - t0)


def _relax_most(search: _Search, pm: int, sm: int) -> int:
    """Joker relaxation: the most further pyramid cards that could be removed."""
    pos = search.pos
    counts = 0
    for r in range(1, 13):
        c = (pos.st_by_rank[r] & ~sm).bit_count()
        if c:
            counts |= min(c, (pos.pyr_by_rank[13 - r] & ~pm).bit_count()) << (3 * r)
    memo = search.__dict__.setdefault("most_memo", {})
    return _most(search, pm, counts, memo)


def _most(search: _Search, pm: int, counts: int, memo: dict) -> int:
    key = pm | (counts << 28)
    hit = memo.get(key)
    if hit is not None:
        return hit
    pr = search.pos.pr
    av = search.avail(pm)[0]
    best = 0
    for i in av:
        if pr[i] == 13:
            best = 1 + _most(search, pm | (1 << i), counts, memo)
            memo[key] = best
            return best
    n_av = len(av)
    for x in range(n_av):
        i = av[x]
        need = 13 - pr[i]
        for y in range(x + 1, n_av):
            if pr[av[y]] == need:
                best = max(best, 2 + _most(search, pm | (1 << i) | (1 << av[y]), counts, memo))
        if (counts >> (3 * need)) & 7:
            best = max(best, 1 + _most(search, pm | (1 << i), counts - (1 << (3 * need)), memo))
    memo[key] = best
    return best
