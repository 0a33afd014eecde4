"""A perfect-information Pyramid solver (it sees the face-down Pack: never use it
for a player's HINT or the computer player in deal 1; see ai.py).

Goals (docs/rules/pyramid.md, "Par Pyramid"):

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
- forced pairs (``_Search.forced``): two available cards that are the last live
  cards of their two complementary ranks are taken at once, as the only move (they
  can only ever go together, and taking them early loses nothing: proof there);
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
  almost every unwinnable deal at the root;
- the buried-Waste relaxation (``_Search.buried``): Waste cards never pair with each
  other, so going down the Waste each card needs its own partner among the live
  pyramid and Pack cards before the next is reached; the first left without one stays
  in the Waste, with all under it, until the redeal.  In the last pass that loses
  "all" (and "pyramid" if the joker relaxation fails without those cards); for Par it
  says whether the pyramid can still be cleared in the current deal;
- the stack relaxation (``_Search.waste_stuck``), stronger: the Pack cards as jokers
  but the Waste taken only from its top down, each card with a partner *available*
  then (an uncovered pyramid card or a Pack card).  When the pyramid must go within
  the current pass ("pyramid" in the last pass, a probe's ``clear_ps``, Par's "a clear
  in this deal?") and the relaxation cannot clear it, the state is lost.  Its search
  is capped (``STACK_EFFORT`` states; past that it cuts nothing).  In the last pass it
  also counts the fewest cards any line can leave (``_Par._stack_most``);
- the stock's nesting (``_Search.stock_pairs``): two stock cards pair only as Waste
  top and Pack top, with every live card between them in stock order gone first, so
  such pairs nest, and a card inside one goes in a nested pair or with a pyramid card
  (or alone, a King).  For "all" (``_Search.stock_stuck``) every live stock card must
  go, and each pair of complementary ranks needs as many stock pairs as its stock
  cards outnumber their pyramid partners: when no nesting does that, the pattern is
  lost.  For Par it caps the pairs of two stock cards in the bound;
- positions are compared canonically: any ``ptr`` between the top live Waste card and
  the next live Pack card is the same position.

"pyramid" runs one depth-first search; "all" first runs short ones (``STAGE_NODES``
each: all passes, then the redeals cut off -- the buried-Waste rule then applies from
the first pass, which finds a first-pass win far sooner), then that search on the rest
of the budget; once the pyramid is gone, "all" solves the stock exactly
(``_stock_min_left``).  A node budget and a time limit turn into ``result == "unknown"``.

"par" first runs root probes (``_Par.probe``: win-goal searches with every cut above,
asking "can the pyramid be cleared by the end of pass k?" and "can all 52 go with the
pyramid cleared by pass k?"), which settle most deals outright and otherwise cap the
bound; then a depth-first branch and bound with its own bounds (``_Par``): the dead-card
cut above is sound for the win goals but not for Par on a deal whose pyramid cannot be
cleared, so it is used only once a line scoring -1 or more is known.  When its budget
runs out it reports the best line found and an upper bound (``lower``/``upper``).

Budgets.  The search is bounded by *nodes* (``max_nodes``: positions expanded, the root
probes' included, and with ``solve_par(relax_per_node=...)`` the states the bounds'
relaxations explore, ``RELAX_PER_NODE`` of them as a node), so the same position with
the same budget gives the same answer whatever the load, compiled or not (the search
order and every cut are the same in both).  The budget is checked between nodes, so a
search may end a little past it: by what its last node's relaxations cost.
``time_limit`` is only a last guard, in the searching thread's CPU time (``cpu_time``):
when it stops a search first, the answer may depend on the machine, so
``Solution.timed_out`` says so and a warning is logged.  ``solve_for`` reads a budget
given in seconds as nodes at ``NODES_PER_SECOND`` with a guard ``GUARD_FACTOR`` times as
long.
"""

from __future__ import annotations

import logging
import time
from typing import Final

import attrs

from games.pyramid.cards import COVERED_BY, PYRAMID_SIZE, SHADOW, rank, spot_name
from games.pyramid.rules import DEAL, DEALS, PAR_BASE, Action, Game

# Built as a C extension with mypyc when installed with a C compiler (setup.py): the
# same code, about four times as fast.  Plain Python otherwise.
COMPILED: Final = not __file__.endswith(".py")

log = logging.getLogger(__name__)

# A budget given in seconds (``solve_for``, the computer players' ``budget_s``) is this
# many nodes a second: a fixed rate, not a measurement, so the answer does not change
# with the load.  The compiled build searches some 200,000 to 300,000 nodes a second on
# one core for Par, plain Python about a fifth of that; most searches end far sooner,
# proven.  Time is only a guard, at ``GUARD_FACTOR`` times the seconds and never under
# ``GUARD_MIN`` seconds (``guard_for``), and it is the searching thread's CPU time, not
# the wall clock: on a machine busy with other work a search gets less of the CPU, not
# less of its budget (under load the wall clock used to stop searches unproven).
NODES_PER_SECOND: Final = 400_000
GUARD_FACTOR: Final = 12.0
GUARD_MIN: Final = 10.0
#: the default time limit of ``solve``: a guard that a node budget normally comes first
GUARD_SECONDS: Final = 60.0

FULL_PYR: Final = (1 << PYRAMID_SIZE) - 1
COVER_MASK: Final = tuple(sum(1 << j for j in COVERED_BY[i]) for i in range(PYRAMID_SIZE))
# Cards that can never pair with card i: those covering it and those it covers.
_ABOVE = tuple(frozenset(j for j in range(PYRAMID_SIZE) if i in SHADOW[j])
               for i in range(PYRAMID_SIZE))
BLOCK_MASK: Final = tuple(sum(1 << j for j in SHADOW[i] | _ABOVE[i]) for i in range(PYRAMID_SIZE))
# ``PAR_BASE`` as a tuple, by deal (1-based): read at every node of the Par search
BASE: Final = tuple(PAR_BASE.get(deal, 0) for deal in range(DEALS + 1))
# every rank but the King's: what ``_Search.dead`` checks at the root and after a forced pair
ALL_RANKS: Final = tuple(range(1, 13))


STAGE_NODES: Final = 2_000  # the budget of each fewer-passes probe of the win goals
# the most states one stack relaxation (``_Search.waste_stuck``) explores before it
# gives up (and cuts nothing)
STACK_EFFORT: Final = 400
# With ``solve_par(relax_per_node=...)``, the states the bounds' relaxations explore are
# charged to the node budget, that many of them as one node: each state once, when it
# is not in their tables yet (the joker relaxation's ``_Search._clearable``, the stack
# relaxation's ``_Search._stack_clearable``, ``_Par._most``, ``_Par._stack_most``, the
# pyramids ``_Par._free_ranks`` visits, the cards of each ``_Search.stock_pairs``).  Early
# in deal 1 they take some 60 % of a small Par search's time, with 20 to 40 of them to a
# node and more in some positions than others, so a budget that counts nodes alone let
# one search take several times as long as another on the same budget.  Compiled, a
# node (move generation and its own checks) costs about as much as four such states.
RELAX_PER_NODE: Final = 4
COUNT_MASK: Final = (1 << 52) - 1  # the count fields of ranks 0..12 (4 bits a rank), Kings aside
JOKER_MASK: Final = ((1 << 39) - 1) & ~7  # the count fields of ranks 1..12 (3 bits a rank)
# Best Par: the budget of each root probe (``_Par.probe``), and the smallest node budget
# they run with (a fixed amount, so the search after them is the same search on a
# budget that grows with the caller's: see ``_Par``, "Anytime").
PROBE_NODES: Final = 300_000
ALL_PROBE_NODES: Final = 30_000
PAR_PROBE_MIN: Final = 6 * PROBE_NODES
# the share of the time left that the root probes may take: the search after them finds
# the lines when they cannot settle the deal, but redoes any clear-by-pass-k refutation
# they leave unfinished (which often needs 100k-300k nodes)
PROBE_SHARE: Final = 0.8


class _Budget(Exception):
    pass


@attrs.frozen
class Solution:
    """``result``: "win" (goal reachable), "lose" (proved unreachable) or "unknown"
    (budget exhausted); for "par", whether the line given removes all 52 cards.
    ``moves`` replays from the solved position through ``rules.play``.  ``score`` is
    the Par score of ``moves``' end.

    For "par", the best Par lies in ``[lower, upper]``: ``lower`` is ``score`` (the
    best line found) and no line scores more than ``upper``; ``proven`` is
    ``lower == upper``.  A bigger budget never lowers ``lower`` nor raises ``upper``.

    ``timed_out``: the time limit (a guard) stopped the search before its node budget
    did, so the answer may depend on the machine's load.
    """

    goal: str
    result: str
    moves: tuple[Action, ...]
    score: int | None
    proven: bool
    nodes: int
    seconds: float
    lower: int | None = None
    upper: int | None = None
    timed_out: bool = False


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


# the number of bits set in each 14-bit number (``_popcount``)
_POP14: Final = tuple(bin(x).count("1") for x in range(1 << 14))


def _popcount(mask: int) -> int:
    """``mask.bit_count()`` for a pyramid or stock mask (under 28 bits), by table:
    compiled, ``int.bit_count`` is a method call."""
    return _POP14[mask & 16383] + _POP14[mask >> 14]


def _count_table(ranks: list[int], bits: int) -> list[int]:
    """For each mask of ``bits`` bits, the packed count by rank (4 bits a rank) of the
    cards it selects out of ``ranks`` (missing ranks count as rank 0)."""
    table = [0]
    for b in range(bits):
        v = 1 << (4 * ranks[b]) if b < len(ranks) else 0
        table += [x + v for x in table]
    return table


# The memo tables whose facts depend on the pyramid alone (its cards by spot and a mask
# of those gone), never on the stock's order: which cards are available (``avail``), the
# joker relaxation (``relax``: ``_Search._clearable``), ``_Par._most`` and
# ``_Par._free_ranks`` (both keyed by the stock's counts by rank, not its order).
# ``solve_par(shared=...)`` keeps them from one search to the next.
PYRAMID_TABLES: Final = ("avail", "relax", "most", "free")


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
        # the searches' memo tables (``_Search``, and ``_Par``'s "most" and "free"): they
        # hold facts of this position; those of ``PYRAMID_TABLES`` of its pyramid alone
        self.memo: dict[str, dict] = {name: {} for name in (
            "avail", "kings", "hopeless", "relax", "stack", "stuck", "lost", "most", "free")}
        # stock masks by rank, for the "has a partner left" test
        self.st_by_rank = [0] * 14
        for j, r in enumerate(self.st):
            self.st_by_rank[r] |= 1 << j
        self.pyr_by_rank = [0] * 14
        for i, r in enumerate(self.pr):
            if r:
                self.pyr_by_rank[r] |= 1 << i
        # Live-card counts by rank, packed 4 bits a rank (field 4 * r), from a mask of
        # live cards by table look-up: 7 bits of pyramid or 8 bits of stock at a time.
        self.pyr_tab = [_count_table(self.pr[7 * c:7 * c + 7], 7) for c in range(4)]
        self.st_tab = [_count_table(self.st[8 * c:8 * c + 8], 8)
                       for c in range((self.n + 7) // 8 or 1)]
        # the shift of the partner rank's field for each stock card (-1: a King)
        self.need_shift = [4 * (13 - r) if r != 13 else -1 for r in self.st]
        self.st_kings = self.st_by_rank[13]
        # partners[i]: pyramid cards that could ever pair with i
        self.partners = [
            (self.pyr_by_rank[13 - r] & ~BLOCK_MASK[i]) if r and r != 13 else 0
            for i, r in enumerate(self.pr)
        ]

    def share(self, shared: dict) -> None:
        """Use the tables of ``PYRAMID_TABLES`` kept in ``shared`` for this pyramid (its
        cards by spot, the gone ones as 0), made there if it has none yet."""
        key = tuple(self.pr)
        tables = shared.get(key)
        if tables is None:
            tables = shared[key] = {name: self.memo[name] for name in PYRAMID_TABLES}
        for name in PYRAMID_TABLES:
            self.memo[name] = tables[name]

    def pyr_counts(self, live: int) -> int:
        """Packed counts by rank of the pyramid cards in ``live``."""
        t = self.pyr_tab
        return (t[0][live & 127] + t[1][(live >> 7) & 127] + t[2][(live >> 14) & 127]
                + t[3][live >> 21])

    def st_counts(self, live: int) -> int:
        """Packed counts by rank of the stock cards in ``live``."""
        out = 0
        for tab in self.st_tab:
            out += tab[live & 255]
            live >>= 8
        return out


# a move of the search: (moves, pm, sm, ptr, ps) after it
_Child = tuple[list[tuple], int, int, int, int]


class _Search:
    """Move generation over the compact state (pm, sm, ptr, ps) of one position."""

    def __init__(self, pos: _Position, goal: str):
        self.pos = pos
        self.want_all = goal == "all"
        # The dead-card cut drops every move after which the pyramid can no longer be
        # cleared: sound for the win goals, not for Par, where such a move may still
        # leave fewer cards on a deal the pyramid cannot be cleared in.
        self.cut_dead = goal != "par"
        # the tables below depend on the position alone, so every search of it (the
        # root probes and the Par search) shares them
        self.avail_cache: dict[int, tuple[tuple[int, ...], int]] = pos.memo["avail"]
        self.king_cache: dict[int, tuple[int, list]] = pos.memo["kings"]
        self.hopeless_memo: dict[int, bool] = pos.memo["hopeless"]
        self.relax_memo: dict[int, bool] = pos.memo["relax"]
        self.stack_memo: dict[int, bool] = pos.memo["stack"]
        self.stuck_memo: dict[int, bool] = pos.memo["stuck"]
        self.lost_memo: dict[int, bool] = pos.memo["lost"]
        self.expanded = 0
        self.last_ps = DEALS - 1  # the last pass (0-based)
        self.stock_first = False
        # the pass (0-based) by which the pyramid must be cleared (``_Par``'s probes)
        self.clear_ps = DEALS - 1
        self.final: tuple[int, int, int, int] = (0, 0, 0, 0)  # where ``_dfs`` found its goal
        self.timed_out = False  # the time limit (a guard) stopped ``_dfs``
        # relaxation states a node costs (``RELAX_PER_NODE``; 0: they cost nothing), and
        # those explored since the last node charged for them
        self.relax_per_node = 0
        self.relaxed = 0

    def relax_state(self, n: int = 1) -> None:
        """A relaxation explored ``n`` new states: every ``relax_per_node`` of them count
        as one node expanded (``relax_per_node`` 0: none do)."""
        per = self.relax_per_node
        if per:
            self.relaxed += n
            if self.relaxed >= per:
                self.expanded += self.relaxed // per
                self.relaxed %= per

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

    def dead(self, pm: int, sm: int, ranks: tuple[int, ...]) -> bool:
        """After removing cards of ``ranks``: is some pyramid card left without enough
        partners (none it can ever meet, or more cards of one rank than partners)?"""
        pos = self.pos
        pc = sc = -1
        for r in ranks:
            if r == 13:
                continue
            need = 13 - r
            m_need = pos.pyr_by_rank[need] & ~pm
            if not m_need:
                continue
            if pc < 0:  # the live cards by rank, packed (4 bits a rank)
                pc = pos.pyr_counts(FULL_PYR & ~pm)
                sc = pos.st_counts(pos.full_st & ~sm)
            n_need, n_r = (pc >> (4 * need)) & 15, (pc >> (4 * r)) & 15
            s_r = (sc >> (4 * r)) & 15
            if n_need > n_r + s_r or n_r > n_need + ((sc >> (4 * need)) & 15):
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
        the King moves to ``moves``.  ``ptr`` is left as it is."""
        if (self.avail(pm)[1] >> 13) & 1:
            hit = self.king_cache.get(pm)
            if hit is None:
                pr, kings, pm0 = self.pos.pr, [], pm
                while True:
                    for i in self.avail(pm)[0]:
                        if pr[i] == 13:
                            pm |= 1 << i
                            kings.append(("k", i))
                            break
                    else:
                        break
                hit = self.king_cache[pm0] = (pm, kings)
            pm = hit[0]
            moves.extend(hit[1])
        pos = self.pos
        rem = pos.full_st & ~sm
        if not rem & pos.st_kings:
            return pm, sm, ptr
        st = pos.st
        hi = rem >> ptr
        while hi:
            pt = ((hi & -hi).bit_length() - 1) + ptr
            if st[pt] != 13:
                break
            sm |= 1 << pt
            hi ^= 1 << (pt - ptr)
            moves.append(("kP",))
        lo = rem & ((1 << ptr) - 1)
        while lo:
            wt = lo.bit_length() - 1
            if st[wt] != 13:
                break
            sm |= 1 << wt
            lo ^= 1 << wt
            moves.append(("kW",))
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
            sc = pos.st_counts(pos.full_st & ~sm)
            pc = pos.pyr_counts(FULL_PYR & ~pm)
            counts = 0
            for r in range(1, 13):
                c = (sc >> (4 * r)) & 15
                if c:
                    p = (pc >> (52 - 4 * r)) & 15
                    counts |= (c if c < p else p) << (3 * r)
            dead = not self._clearable(pm, counts)
            self.hopeless_memo[key] = dead
        return dead

    def buried(self, pm: int, sm: int, ptr: int) -> int:
        """The Waste cards that cannot be taken for the rest of this pass.  Waste cards
        never pair with each other (only one is on top), so to reach a Waste card every
        live card above it must go first, each with its own partner among the live
        pyramid and Pack cards (or as a King).  Going down from the top, the first card
        left without a partner once those above have taken theirs stays in the Waste
        until the redeal, and so does all it covers: those are returned."""
        pos = self.pos
        rem = pos.full_st & ~sm
        waste = rem & ((1 << ptr) - 1)
        if not waste:
            return 0
        supply = pos.pyr_counts(FULL_PYR & ~pm) + pos.st_counts(rem ^ waste)
        need_shift = pos.need_shift
        w = waste
        while w:
            top = w.bit_length() - 1
            f = need_shift[top]
            if f >= 0:
                if not (supply >> f) & 15:
                    return waste & ((2 << top) - 1)
                supply -= 1 << f
            w ^= 1 << top
        return 0

    def last_pass_dead(self, pm: int, sm: int, ptr: int, ps: int) -> bool:
        """In the last pass, a buried Waste card (``buried``) is never taken: "all" is
        lost, and "pyramid" unless the pyramid can be cleared without those cards.  With
        ``clear_ps`` set (the pyramid must be cleared by that pass), a standing pyramid
        after it is lost, and in it the buried cards cannot help clear it."""
        if ps < self.last_ps and ps < self.clear_ps:
            return False
        if ps > self.clear_ps:
            return pm != FULL_PYR
        b = self.buried(pm, sm, ptr)
        if ps >= self.last_ps and self.want_all:
            # every Waste card must go: the buried-Waste rule is nearly as strong as
            # the stack relaxation here, and far cheaper
            return bool(b)
        if b and self.hopeless(pm, sm | b):
            return True
        # the pyramid must go in this pass
        return bool(self.pos.full_st & ~sm & ((1 << ptr) - 1)) and (
            self.waste_stuck(pm, sm, ptr))

    def waste_stuck(self, pm: int, sm: int, ptr: int) -> bool:
        """The stack relaxation of a clear within this pass: could the pyramid be
        cleared before the next redeal if every live Pack card could be taken at any
        moment (each once, as in ``hopeless``) but the cards now in the Waste only
        from its top down, each with an available pyramid card or a Pack card (or
        alone, a King)?  True when it could not.

        Every real line of this pass is a line of the relaxation: a pair with the real
        Waste top is a pair with a Pack card when that top was discarded in this pass
        (it lies above every card now in the Waste), else with the relaxation's Waste
        top (every card now in the Waste above it is gone); D and pairs of two Pack
        cards only use up cards.  So when the relaxation cannot clear the pyramid, no
        line clears it in this pass.  It is ``hopeless`` when the Waste is empty, and
        implies the buried-Waste rule (whose Waste cards need no available partner)."""
        pos = self.pos
        rem = pos.full_st & ~sm
        waste = rem & ((1 << ptr) - 1)
        sc = pos.st_counts(rem ^ waste)
        need = pos.pyr_counts(FULL_PYR & ~pm) + pos.st_counts(waste)
        counts = 0
        for r in range(1, 13):
            c = (sc >> (4 * r)) & 15
            if c:
                p = (need >> (52 - 4 * r)) & 15
                counts |= (c if c < p else p) << (3 * r)
        if self._clearable(pm, counts):  # cleared without the Waste
            return False
        wc = 0
        for j in self.bits(waste):
            wc += 1 << (3 * pos.st[j])
        self.stack_left = STACK_EFFORT
        try:
            return not self._stack_clearable(pm, waste, counts, counts + wc)
        except _Budget:  # too long to tell: no cut
            return False

    @staticmethod
    def bits(mask: int):
        while mask:
            low = mask & -mask
            mask ^= low
            yield low.bit_length() - 1

    def _stack_clearable(self, pm: int, waste: int, counts: int, jok: int) -> bool:
        """``_Search.waste_stuck``'s search; ``jok`` is ``counts`` plus the Waste cards
        by rank: the joker relaxation of ``hopeless`` with those, a quick refutation."""
        if pm == FULL_PYR:
            return True
        key = pm | (waste << 28) | (counts << 60)
        memo = self.stack_memo
        ok = memo.get(key)
        if ok is not None:
            return ok
        self.relax_state()
        if not self._clearable(pm, jok & JOKER_MASK):
            memo[key] = False
            return False
        self.stack_left -= 1
        if self.stack_left < 0:
            raise _Budget
        pr, st = self.pos.pr, self.pos.st
        av = self.avail(pm)[0]
        for i in av:
            if pr[i] == 13:
                ok = memo[key] = self._stack_clearable(pm | (1 << i), waste, counts, jok)
                return ok
        rt = -1
        if waste:
            top = waste.bit_length() - 1
            rt = st[top]
            if rt == 13:
                ok = memo[key] = self._stack_clearable(pm, waste ^ (1 << top), counts,
                                                       jok - (1 << 39))
                return ok
        ok = False
        n_av = len(av)
        for x in range(n_av):
            i = av[x]
            need = 13 - pr[i]
            if need == rt and self._stack_clearable(pm | (1 << i), waste ^ (1 << top), counts,
                                                    jok - (1 << (3 * rt))):
                ok = True
                break
            for y in range(x + 1, n_av):
                if pr[av[y]] == need and self._stack_clearable(
                        pm | (1 << i) | (1 << av[y]), waste, counts, jok):
                    ok = True
                    break
            if ok:
                break
            if (counts >> (3 * need)) & 7 and self._stack_clearable(
                    pm | (1 << i), waste, counts - (1 << (3 * need)),
                    jok - (1 << (3 * need))):
                ok = True
                break
        if not ok and rt > 0 and (counts >> (3 * (13 - rt))) & 7:
            ok = self._stack_clearable(pm, waste ^ (1 << top),
                                       counts - (1 << (3 * (13 - rt))),
                                       jok - (1 << (3 * rt)) - (1 << (3 * (13 - rt))))
        memo[key] = ok
        return ok

    def _clearable(self, pm: int, counts: int) -> bool:
        if pm == FULL_PYR:
            return True
        key = pm | (counts << 28)
        ok = self.relax_memo.get(key)
        if ok is not None:
            return ok
        self.relax_state()
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
            if (counts >> (3 * need)) & 7 and self._clearable(pm | (1 << i),
                                                              counts - (1 << (3 * need))):
                self.relax_memo[key] = True
                return True
        self.relax_memo[key] = False
        return False

    def free_ranks(self, pm: int) -> int:
        """The ranks (bit r) of the stock cards that may still go otherwise than with
        another stock card: with a live pyramid card of the complementary rank, or
        alone (Kings)."""
        pc = self.pos.pyr_counts(FULL_PYR & ~pm)
        free = 1 << 13
        for r in range(1, 13):
            if (pc >> (52 - 4 * r)) & 15:
                free |= 1 << r
        return free

    def live_stock(self, sm: int) -> tuple[list[int], int]:
        """The ranks of the live stock cards in stock order, and the set of them (bit
        r)."""
        st = self.pos.st
        live = [st[j] for j in range(self.pos.n) if not (sm >> j) & 1]
        ranks = 0
        for r in live:
            ranks |= 1 << r
        return live, ranks

    def stock_pairs(self, sm: int, free: int) -> int:
        """The most pairs of two live stock cards (``sm``) any line can still make,
        where ``free`` (``free_ranks``) are the ranks that may go otherwise.

        Such a pair is a Waste top and a Pack top, so the earlier card in stock order
        is in the Waste and the later on the Pack, in any pass (the stock keeps its
        order), and every live card between them has gone before: with its own
        partner in a pair nested inside, with a pyramid card, or alone.  So the pairs
        nest, and a card left inside one must be free."""
        live, ranks = self.live_stock(sm)
        # A card with no complementary stock card never pairs with one: leave it out
        # when it is free; else it stays for good, and no pair spans it (split there).
        most = 0
        seq: list[int] = []
        for r in live:
            if (ranks >> (13 - r)) & 1:
                seq.append(r)
            elif not (free >> r) & 1:
                if len(seq) > 1:
                    most += _nested_pairs(seq, free)
                seq = []
        if len(seq) > 1:
            most += _nested_pairs(seq, free)
        return most

    def stock_stuck(self, pm: int, sm: int) -> bool:
        """Goal "all": can the live stock cards not all go, by ``stock_pairs``?  And for
        each pair of complementary ranks: the stock cards of one rank beyond the live
        pyramid cards of the other must go in pairs of two stock cards; can that many
        such pairs of those ranks nest?"""
        pos = self.pos
        free = self.free_ranks(pm)
        pc = pos.pyr_counts(FULL_PYR & ~pm)
        sc = pos.st_counts(pos.full_st & ~sm)
        wanted = 0  # 3 bits a pair of ranks: the pairs of two stock cards it needs
        bound = False  # a live stock card that can only go with another
        for r in range(1, 7):
            q = 13 - r
            s_r, s_q = (sc >> (4 * r)) & 15, (sc >> (4 * q)) & 15
            p_r, p_q = (pc >> (4 * r)) & 15, (pc >> (4 * q)) & 15
            need = max(s_q - p_r, s_r - p_q)
            if need > 0:
                wanted |= need << (3 * r)
            bound = bool(bound or s_r and not p_q or s_q and not p_r)
        if not wanted and not bound:  # every live stock card may go with the pyramid
            return False
        key = sm | (free << 24) | (wanted << 38)
        memo = self.stuck_memo
        stuck = memo.get(key)
        if stuck is None:
            live, ranks = self.live_stock(sm)
            # a card with no complementary stock card is free, or can never go
            seq = [r for r in live if (ranks >> (13 - r)) & 1 or not (free >> r) & 1]
            # every card must go, with enough pairs of each pair of ranks that wants
            # them (each such check is also the check with none wanted)
            stuck = False if wanted else not _nest_all(seq, free)
            r = 1
            while not stuck and wanted >> (3 * r):
                need = (wanted >> (3 * r)) & 7
                if need:
                    stuck = not _nest_all(seq, free, (1 << r) | (1 << (13 - r)), need)
                r += 1
            memo[key] = stuck
        return stuck

    def lost(self, pm: int, sm: int) -> bool:
        """Is the pattern (pm, sm) lost from every position: the joker relaxation
        (``hopeless``), and for "all" the nesting of the stock's pairs too?"""
        if not self.want_all:
            return self.hopeless(pm, sm)
        key = pm | (sm << 28)
        lost = self.lost_memo.get(key)
        if lost is None:
            lost = self.lost_memo[key] = self.hopeless(pm, sm) or self.stock_stuck(pm, sm)
        return lost

    def done(self, pm: int, sm: int) -> bool:
        return pm == FULL_PYR and (not self.want_all or sm == self.pos.full_st)

    def forced(self, pm: int, sm: int, av: tuple[int, ...], avr: int, rem: int, pt: int,
               wt: int) -> tuple[tuple, int, int] | None:
        """A pair that is safe to take at once: two available cards that are the last
        live cards of their two (complementary) ranks, or None.  Returns
        (move, pm, sm) after it.

        Soundness (dominance): neither card can ever go except with the other, so any
        line L from here either takes this pair at some point or never does.  Take it
        now and follow L, skipping its pair move and its D moves of these cards: every
        other move of L stays legal, since the stock order is L's with two cards cut
        out (a Pack or Waste top of L that is not one of them is the top here too, and
        one of them can be used by L only in the skipped pair), and the pyramid has
        only lost cards, so every card available in L is available here.  A redeal of
        L made only to reach one of them may be left out, which keeps a redeal in
        hand.  So every position L reaches is matched by one here with the same live
        cards less these two, in the same deal or an earlier one: it scores at least
        as much (fewer cards left, a clear no later) and wins whenever L wins.  (The
        Kings rule is the one-card case.)"""
        pos = self.pos
        pr, st = pos.pr, pos.st
        cnt = pos.pyr_counts(FULL_PYR & ~pm) + pos.st_counts(rem)
        for i in av:
            r = pr[i]
            if (cnt >> (4 * r)) & 15 != 1 or (cnt >> (52 - 4 * r)) & 15 != 1:
                continue
            need = 13 - r
            if (avr >> need) & 1:
                for j in av:
                    if pr[j] == need:
                        move = ("pp", i, j) if i < j else ("pp", j, i)
                        return move, pm | (1 << i) | (1 << j), sm
            if wt >= 0 and st[wt] == need:
                return ("pW", i), pm | (1 << i), sm | (1 << wt)
            if pt >= 0 and st[pt] == need:
                return ("pP", i), pm | (1 << i), sm | (1 << pt)
        if pt >= 0 and wt >= 0:
            r = st[pt]
            if r + st[wt] == 13 and (cnt >> (4 * r)) & 15 == 1 and (
                    cnt >> (52 - 4 * r)) & 15 == 1:
                return ("PW",), pm, sm | (1 << pt) | (1 << wt)
        return None

    def children(self, pm: int, sm: int, ptr: int, ps: int) -> list[_Child]:
        """(moves, pm, sm, ptr, ps) for each move worth trying, best first."""
        self.expanded += 1
        pr, st = self.pos.pr, self.pos.st
        cut = self.cut_dead
        av, avr = self.avail(pm)
        rem = self.pos.full_st & ~sm
        hi = rem >> ptr
        pt = ((hi & -hi).bit_length() - 1) + ptr if hi else -1
        lo = rem & ((1 << ptr) - 1)
        wt = lo.bit_length() - 1 if lo else -1
        out: list[_Child] = []
        forced = self.forced(pm, sm, av, avr, rem, pt, wt)
        if forced is not None:
            move, npm, nsm = forced
            if not (cut and self.dead(npm, nsm, ALL_RANKS)):
                moves = [move]
                out.append((moves, *self.settle(npm, nsm, ptr, moves), ps))
            return out
        if wt >= 0:  # the Waste top first: the Waste is only ever reached from the top
            rw = st[wt]
            for i in av:
                if pr[i] + rw == 13:
                    npm, nsm = pm | (1 << i), sm | (1 << wt)
                    if not (cut and self.dead(npm, nsm, (pr[i], rw))):
                        moves = [("pW", i)]
                        out.append((moves, *self.settle(npm, nsm, ptr, moves), ps))
        # the pyramid's pairs, then the Pack top's (or the other way round)
        first = len(out)
        n_av = len(av)
        for x in range(n_av):
            i = av[x]
            ri = pr[i]
            need = 13 - ri
            if not (avr >> need) & 1:
                continue
            for y in range(x + 1, n_av):
                j = av[y]
                if pr[j] == need:
                    npm = pm | (1 << i) | (1 << j)
                    if not (cut and self.dead(npm, sm, (ri, need))):
                        moves = [("pp", i, j)]
                        out.append((moves, *self.settle(npm, sm, ptr, moves), ps))
        middle = len(out)
        if pt >= 0:
            rp = st[pt]
            if (avr >> (13 - rp)) & 1:
                for i in av:
                    if pr[i] + rp == 13:
                        npm, nsm = pm | (1 << i), sm | (1 << pt)
                        if not (cut and self.dead(npm, nsm, (pr[i], rp))):
                            moves = [("pP", i)]
                            out.append((moves, *self.settle(npm, nsm, ptr, moves), ps))
            if wt >= 0 and rp + st[wt] == 13:
                nsm = sm | (1 << pt) | (1 << wt)
                if not (cut and self.dead(pm, nsm, (rp, st[wt]))):
                    moves = [("PW",)]
                    out.append((moves, *self.settle(pm, nsm, ptr, moves), ps))
            if self.stock_first and middle < len(out):  # the Pack's pairs before the pyramid's
                out[first:] = out[middle:] + out[first:middle]
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
            out.append((moves, *self.settle(pm, sm, k + 1, moves), ps))
        elif ps < self.last_ps and lo:
            moves = [("D", 1)]
            out.append((moves, *self.settle(pm, sm, 0, moves), ps + 1))
        return out


def _nest_all(seq: list[int], free: int, counted: int = 0, need: int = 0) -> bool:
    """Can every card of ``seq`` go, each in a pair of complementary ranks or with a rank
    in ``free``, the pairs nesting (``_Search.stock_pairs``), with at least ``need``
    pairs whose ranks are in ``counted``?

    Dynamic programming over the suffixes, as bit sets: ``go[c][i]`` has bit j when
    seq[i:j] can all go with at least c counted pairs.  seq[i] goes free (then seq[i+1:j]
    must), or pairs with a later card k, where seq[i+1:k] and seq[k+1:j] all go."""
    n = len(seq)
    part = _partners(seq)
    go = [[0] * (n + 1) for _ in range(need + 1)]
    go[0][n] = 1 << n
    for i in range(n - 1, -1, -1):
        free_i = (free >> seq[i]) & 1
        one = (counted >> seq[i]) & 1
        pairs = []  # (k, the most counted pairs seq[i+1:k] can all go with, and this one)
        for k in part[i]:
            inside = -1
            while inside < need and (go[inside + 1][i + 1] >> k) & 1:
                inside += 1
            if inside >= 0:
                pairs.append((k + 1, inside + one))
        for c in range(need + 1):
            v = 1 << i if c == 0 else 0
            if free_i:
                v |= go[c][i + 1]
            for after, got in pairs:
                v |= go[c - got if c > got else 0][after]
            go[c][i] = v
    return bool((go[need][0] >> n) & 1)


def _partners(seq: list[int]) -> list[list[int]]:
    """For each card of ``seq``, the later cards of the complementary rank."""
    n = len(seq)
    return [[k for k in range(i + 1, n) if seq[k] == 13 - r] for i, r in enumerate(seq)]


def _nested_pairs(seq: list[int], free: int) -> int:
    """The most pairs of complementary ranks in ``seq`` that nest (no two cross), where
    every card inside a pair is in a pair nested in it or has a rank in ``free``
    (``_Search.stock_pairs``), by dynamic programming over the spans."""
    n = len(seq)
    part = _partners(seq)
    memo: dict[int, int] = {}

    def inner(i: int, j: int) -> int:
        """The most pairs in seq[i:j] with every card in it gone (-1: impossible)."""
        if i >= j:
            return 0
        key = i * 32 + j
        best = memo.get(key)
        if best is not None:
            return best
        best = inner(i + 1, j) if (free >> seq[i]) & 1 else -1
        for k in part[i]:
            if k >= j:
                break
            a = inner(i + 1, k)
            if a >= 0:
                b = inner(k + 1, j)
                if b >= 0 and a + b + 1 > best:
                    best = a + b + 1
        memo[key] = best
        return best

    top = [0] * (n + 1)  # top[i]: the most pairs in seq[i:], cards may stay
    for i in range(n - 1, -1, -1):
        best = top[i + 1]
        for k in part[i]:
            a = inner(i + 1, k)
            if a >= 0 and a + 1 + top[k + 1] > best:
                best = a + 1 + top[k + 1]
        top[i] = best
    return top[0]


def _dfs(search: _Search, root: tuple[int, int, int, int], max_nodes: int,
         deadline: float) -> list[tuple] | None:
    """Depth-first probe; returns the move list, None (proved impossible) or raises
    _Budget.  A failed (pm, sm) pattern stays failed at any later Pack position: an
    earlier position reaches every later one by D alone."""
    failed: dict[int, int] = {}
    path: list[tuple] = []
    stock_memo: dict = {}

    def visit(pm: int, sm: int, ptr: int, ps: int) -> bool:
        if search.done(pm, sm):
            search.final = (pm, sm, ptr, ps)
            return True
        if pm == FULL_PYR:  # "all": the stock alone is left, solved exactly
            left, tail = _stock_min_left(search, sm, ptr, ps, stock_memo)
            if left:
                return False
            path.extend(tail)
            search.final = (pm, search.pos.full_st, ptr, ps)
            return True
        if search.expanded >= max_nodes:
            raise _Budget
        if not search.expanded & 15 and cpu_time() > deadline:
            search.timed_out = True
            raise _Budget
        key = pm | (sm << 28)
        # the position, canonical: any ptr between the top live Waste card and the
        # next live Pack card is the same position
        cptr = (search.pos.full_st & ~sm & ((1 << ptr) - 1)).bit_length()
        here = ps * 32 + cptr
        f = failed.get(key)
        if f is not None and f <= here:
            return False
        if search.lost(pm, sm):
            failed[key] = 0
            return False
        if search.last_pass_dead(pm, sm, ptr, ps):
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


def cpu_time() -> float:
    """The guard's clock: the CPU time of the thread that searches (not the wall clock,
    which a busy machine runs down without the search getting its share)."""
    return time.thread_time()


def nodes_for(seconds: float) -> int:
    """A budget in seconds as nodes (``NODES_PER_SECOND``): the same whatever the load."""
    return max(1, int(seconds * NODES_PER_SECOND))


def guard_for(seconds: float) -> float:
    """The CPU-time guard of a budget of ``seconds``: a last resort, far beyond it."""
    return max(GUARD_MIN, seconds * GUARD_FACTOR)


def solve_for(game: Game, goal: str, seconds: float) -> Solution:
    """``solve`` on a budget given in seconds: ``nodes_for(seconds)`` nodes, with the
    thread's CPU time a guard (``guard_for``)."""
    return solve(game, goal, max_nodes=nodes_for(seconds), time_limit=guard_for(seconds))


def _timed_out(sol: Solution) -> Solution:
    """Report a search that the time limit (a guard) stopped."""
    if sol.timed_out:
        log.warning("the Pyramid solver's time limit stopped a %s search after %.1f s and "
                    "%d nodes, before its node budget: this answer may depend on the load",
                    sol.goal, sol.seconds, sol.nodes)
    return sol


def solve(game: Game, goal: str = "pyramid", max_nodes: int = 2_000_000,
          time_limit: float = GUARD_SECONDS) -> Solution:
    """Solve ``game`` from its current position for ``goal`` ("pyramid", "all", "par"),
    within ``max_nodes`` (the budget; ``time_limit`` is a guard: see the module
    docstring)."""
    if goal == "par":
        return solve_par(game, max_nodes=max_nodes, time_limit=time_limit)
    return _timed_out(_solve_win(game, goal, max_nodes, time_limit))


def _solve_win(game: Game, goal: str, max_nodes: int, time_limit: float) -> Solution:
    """``solve`` for the win goals ("pyramid", "all")."""
    if goal not in ("pyramid", "all"):
        raise ValueError(f"unknown goal {goal!r}")
    t0 = time.perf_counter()
    if game.over:
        done = game.cards_left == 0 if goal == "all" else game.pyramid_left == 0
        return Solution(goal, "win" if done else "lose", (), game.score, True, 0, 0.0)
    pos = _Position(game)
    search = _Search(pos, goal)
    deadline = cpu_time() + time_limit
    lead: list[tuple] = []
    root = (*search.settle(pos.pm, 0, pos.ptr, lead), pos.ps)
    found = None
    try:
        if not search.dead(root[0], root[1], ALL_RANKS) and not search.lost(root[0], root[1]):
            # Goal "all": short searches first, all three passes, then fewer passes (a
            # win within the first pass or two is often far quicker to find with the
            # redeal out of reach, as the buried-Waste rule then applies in that pass;
            # with the pyramid due by an earlier pass instead, the stack relaxation's
            # cost ate its gain), and all three passes trying the stock's pairs before
            # the pyramid's (the move order that finds some wins at once and others
            # late).  Then one depth-first search on the rest of the budget.
            done = False
            if goal == "all":  # "pyramid" finds its wins as soon without them
                stages = [(DEALS - 1, False), (DEALS - 1, True)]
                stages += [(last_ps, False) for last_ps in range(pos.ps, DEALS - 1)]
                for last_ps, stock_first in stages:
                    search.last_ps, search.stock_first = last_ps, stock_first
                    try:
                        found = _dfs(search, root,
                                     min(search.expanded + STAGE_NODES, max_nodes), deadline)
                    except _Budget:
                        continue
                    if found is not None or last_ps == DEALS - 1:
                        done = True  # a win, or proved impossible
                        break
            if not done:
                search.last_ps, search.stock_first = DEALS - 1, False
                found = _dfs(search, root, max_nodes, deadline)
    except _Budget:
        return Solution(goal, "unknown", (), None, False, search.expanded,
                        time.perf_counter() - t0, timed_out=search.timed_out)
    moves = _to_actions(lead + found) if found is not None else ()
    return Solution(goal, "win" if found is not None else "lose", moves, None, True,
                    search.expanded, time.perf_counter() - t0, timed_out=search.timed_out)


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
        legal = [a for a in game_actions(game) if a is not END] or [END]
        move = next((a for a in legal if a.kind == "remove"), legal[0])
        game, _ = play(game, move)
        line.append(move)
    return game, tuple(line)


def solve_par(game: Game, max_nodes: int = 2_000_000, time_limit: float = GUARD_SECONDS,
              probe_nodes: int = PROBE_NODES, relax_per_node: int = 0,
              shared: dict | None = None) -> Solution:
    """The best Par score reachable from ``game``, a line reaching it, and bounds.

    Returns a Solution whose ``lower`` is the score of the line given (the best found)
    and whose ``upper`` no line can beat; ``proven`` when they meet.  See ``_Par``.
    ``probe_nodes`` is the budget of each root probe (``_Par.probe``; they run when
    ``max_nodes`` is at least six times it): a smaller one lets a small search probe.
    ``relax_per_node`` (``RELAX_PER_NODE``; 0, the default: not at all) charges the
    relaxations' states to ``max_nodes``, that many as one node, in the root probes
    and the search alike, so the budget bounds their work too (``nodes`` counts them).
    ``shared``, a dict the caller keeps (empty at first), carries the tables that depend
    on the pyramid alone (``PYRAMID_TABLES``) to its next searches of positions with the
    same pyramid, whatever their stock: what is found there is not searched (nor
    charged) again.  The answer then depends on the searches made with it before.
    """
    t0 = time.perf_counter()
    if game.over:
        return Solution("par", "win" if game.cards_left == 0 else "lose", (),
                        game.score, True, 0, 0.0, game.score, game.score)
    par = _Par(game, max_nodes, cpu_time() + time_limit, shared=shared)
    par.root_probe = probe_nodes
    par.gen.relax_per_node = relax_per_node
    lower, upper, line, end = par.run()  # ``end``: where ``line`` ends, replayed by run
    assert end.over and end.score == lower, (end, lower)
    return _timed_out(Solution("par", "win" if end.cards_left == 0 else "lose", line, lower,
                               lower == upper, par.gen.expanded + par.probe_expanded,
                               time.perf_counter() - t0, lower, upper, par.timed_out))


class _Par:
    """Branch and bound for the best Par score, depth first, with a transposition table.

    **The value.**  END is legal at any moment, and a game that is stuck ends with the
    same score END would give, so the best Par is the largest ``par_score`` of any
    position a line can reach: minus the cards left while the pyramid stands, and once
    it is cleared in deal d, ``PAR_BASE[d]`` less the stock cards the rest of the game
    cannot remove (``_stock_min_left``, exact).  Every position visited is scored as if
    the player ended there, so the best line found (``best``) only ever improves.

    **The state** is (pm, sm, ptr, ps) as in ``_Search`` (bit-packed removed pyramid and
    stock cards, the Pack/Waste boundary and the pass); Kings are removed at once and D
    is taken in jumps (both sound for Par: see the module docstring).  The
    transposition table is keyed on the canonical pattern ``pm | sm << 28``: once a
    pattern has been searched from a Pack position, a visit from any later position
    (``here`` = pass * 32 + ptr) is dominated -- the earlier position reaches it by D
    alone and so can do all it can, clearing the pyramid in the same deal or sooner.

    **The upper bound** ``bound()`` (admissible: never below the best score reachable):

    - while the pyramid can still be cleared (the joker relaxation of
      ``_Search.hopeless`` says so): ``PAR_BASE`` of the current deal (a later clear
      scores less), or what an uncleared line could score, whichever is more; the
      current deal is skipped when the root probes proved no clear by its end
      (``first_clear``), or when the buried-Waste or stack relaxation says the pyramid
      cannot go before the redeal;
    - once it cannot: minus the fewest cards any line could leave, by the *full joker
      relaxation* ``_left_min``: every live stock card may be taken at any moment (each
      once) with an available pyramid card, or with another stock card.  Every real line
      is a line of the relaxation, so it leaves at least as many cards.  In the last
      pass the Waste cards count only from the top down (``_stack_most``).  Pairs of
      two stock cards are capped at the most that can nest (``_stock_pairs_most``):
      without that cap, the relaxation pairs stock cards that only ever meet across a
      card that cannot go.

    A child's bound is capped by its parent's (a child reaches a subset of what its
    parent reaches), so bounds only tighten going down.

    **Cuts**, each sound for Par: a position whose bound does not beat ``best`` is not
    expanded; a transposition hit (same pattern, searched from an earlier or the same
    position) is not expanded -- everything its first search reached was scored, and
    what that search cut could not beat ``best`` then, so it cannot now; and once
    ``best`` >= -1 the win goals' dead-card filter is switched on, because a move that
    leaves a pyramid card without partners leads only to uncleared positions, which
    score -1 at most.  Before that it is *not* used: on a deal whose pyramid cannot be
    cleared it would cut exactly the lines that leave the fewest cards.

    **Phases.**  The root probes (``probe``; only with a node budget of at least
    ``PAR_PROBE_MIN``, or six times ``root_probe`` when a caller sets a smaller one,
    each on its own fixed budget, counted in the nodes): they may
    solve the deal (a win with the pyramid cleared in the earliest pass it can be) or
    raise ``first_clear``.  Then a plain depth-first search on a small budget
    (``probe_nodes``).
    If it is not done: if no line scoring -1 or more is known yet (no clear in sight),
    the same search goes on (its table holds); else the search starts again one deal at
    a time: a redeal is not followed at once but queued (``queue``, with its parent's
    bound as cap) until the deal it ends has been searched, so a clear in an earlier
    deal is found, and bounds the later deals, before they are dived into.  The table
    is then keyed by deal too (``tt``; what the plain search stored, ``tt0``, still
    holds), since a pattern's entry no longer covers the deals after its own.  The
    upper bound is the smaller of the phases' bounds.

    **Anytime.**  The search order does not depend on the budget, so a bigger budget
    does the same first steps and more: ``lower`` (= ``best``) never drops.  (The root
    probes run on fixed budgets, so for every node budget from ``PAR_PROBE_MIN`` up they
    learn the same and the search after them is the same search; below it they do not
    run.  A time limit, a guard, that stops a probe leaves what it had learned, and is
    reported in ``timed_out``.)  When the
    budget runs out the search unwinds, each position not expanded counting its bound,
    so the root's value is an upper bound; expanding a position replaces its bound by
    its children's, which are capped by it, so ``upper`` never rises with the budget.
    ``proven`` is ``lower == upper``.
    """

    def __init__(self, game: Game, max_nodes: int, deadline: float,
                 probe_nodes: int = 20_000, shared: dict | None = None):
        self.game = game
        self.pos = _Position(game)
        if shared is not None:  # before the searches take their tables from it
            self.pos.share(shared)
        self.gen = _Search(self.pos, "par")
        self.gen.cut_dead = False
        self.max_nodes = max_nodes
        self.deadline = deadline
        self.out = False
        self.best = -PYRAMID_SIZE - self.pos.n - 1  # below any score: no line recorded yet
        self.best_moves: list = []
        self.path: list = []
        self.tt: dict[int, tuple[int, int]] = {}
        # the patterns a redeal starts each later deal with: key -> (cap, path)
        self.queue: list[dict[int, tuple[int, list]]] = [{} for _ in range(DEALS)]
        self.layered = False
        self.tt0: dict[int, tuple[int, int]] = {}
        self.probe_nodes = probe_nodes
        self.stock_memo: dict = {}
        self.left_memo: dict = self.pos.memo["most"]
        self.stack_memo: dict = {}
        self.pairs_memo: dict[int, int] = {}
        self.cap_memo: dict[int, int] = {}
        self.joker_left_memo: dict[int, int] = {}
        self.free_memo: dict[int, int] = self.pos.memo["free"]
        # a position whose pyramid is already gone keeps the base of the deal it went in
        self.cleared_base = BASE[game.cleared_in] if game.cleared_in else None
        # the earliest pass (0-based) the pyramid may still be cleared in: the root
        # probes (``probe``) raise it when they prove no clear by an earlier pass
        self.first_clear = self.pos.ps
        self.probe_expanded = 0  # nodes spent by the root probes
        self.root_probe = PROBE_NODES  # the budget of each root probe
        self.timed_out = False  # the time limit (a guard) stopped a search

    def past_deadline(self) -> bool:
        """Has the time limit (a guard) passed?  Noted in ``timed_out``."""
        if cpu_time() > self.deadline:
            self.timed_out = True
            return True
        return False

    def base(self, ps: int) -> int:
        """The Par base of a pyramid cleared now, in pass ``ps`` (0-based)."""
        return self.cleared_base if self.cleared_base is not None else BASE[ps + 1]

    # -- scores and bounds ----------------------------------------------------------------
    def record(self, value: int, tail: list) -> None:
        """A line scoring ``value``: the path so far and ``tail``, which plays on to the
        end of the game (so the line reported always replays to its score)."""
        if value > self.best:
            self.best = value
            self.best_moves = self.path + tail
            if value >= -1:
                self.gen.cut_dead = True

    def play_on(self, pm: int, sm: int, ptr: int, ps: int) -> tuple[int, list]:
        """From an uncleared position, play on to the end of the game, any pair first,
        else D: the score there (never less than ending now) and the moves."""
        gen, st, full_st = self.gen, self.pos.st, self.pos.full_st
        pr = self.pos.pr
        moves: list = []
        while True:
            pm, sm, ptr = gen.settle(pm, sm, ptr, moves)
            if pm == FULL_PYR:
                left, tail = _stock_min_left(gen, sm, ptr, ps, self.stock_memo)
                return self.base(ps) - left, moves + tail
            av = gen.avail(pm)[0]
            rem = full_st & ~sm
            hi = rem >> ptr
            pt = ((hi & -hi).bit_length() - 1) + ptr if hi else -1
            lo = rem & ((1 << ptr) - 1)
            wt = lo.bit_length() - 1 if lo else -1
            move: tuple | None = None
            for x, i in enumerate(av):
                for j in av[x + 1:]:
                    if pr[i] + pr[j] == 13:
                        move, pm = ("pp", i, j), pm | (1 << i) | (1 << j)
                        break
                else:
                    if wt >= 0 and pr[i] + st[wt] == 13:
                        move, pm, sm = ("pW", i), pm | (1 << i), sm | (1 << wt)
                    elif pt >= 0 and pr[i] + st[pt] == 13:
                        move, pm, sm = ("pP", i), pm | (1 << i), sm | (1 << pt)
                if move:
                    break
            if move is None and pt >= 0 and wt >= 0 and st[pt] + st[wt] == 13:
                move, sm = ("PW",), sm | (1 << pt) | (1 << wt)
            if move is None:
                if pt >= 0:
                    move, ptr = ("D", 1), pt + 1
                elif ps < DEALS - 1 and lo:
                    move, ptr, ps = ("D", 1), 0, ps + 1
                else:
                    return -self.left_now(pm, sm), moves
            moves.append(move)

    def left_now(self, pm: int, sm: int) -> int:
        return PYRAMID_SIZE - _popcount(pm) + _popcount(self.pos.full_st & ~sm)

    def bound(self, pm: int, sm: int, ptr: int, ps: int, cap: int = 1 << 30) -> int:
        """An upper bound on every Par score reachable from (pm, sm, ptr, ps), at most
        ``cap``.  A bound at or below ``best`` cuts the position whatever its value (and
        what it returns then only ever counts as at most ``best``: ``run`` takes the
        larger of the root's value and ``best``), so work that cannot change the
        verdict is skipped: no relaxation when ``cap`` or this deal's base is already
        at most ``best``, and no buried-Waste scan when ``cap`` is already at most
        what it could give (the next deal's base)."""
        best = self.best
        gen = self.gen
        k = ps if ps >= self.first_clear else self.first_clear
        if k >= DEALS:  # the probes proved the pyramid cannot be cleared
            if cap <= best:
                return cap
            h = -max(1, self.left_min(pm, sm, ptr, ps))
            return h if h < cap else cap
        top = BASE[k + 1]  # >= 20, above any uncleared score (-1 at most)
        if cap < top:
            top = cap
        if top <= best:
            return top
        if gen.hopeless(pm, sm):
            h = -max(1, self.left_min(pm, sm, ptr, ps))
            return h if h < cap else cap
        if k > ps:  # no clear in this pass (the probes): the base of pass k at most
            return top
        last = ps + 1 >= DEALS
        if not last and cap <= BASE[ps + 2]:
            return cap
        # Cleared in this deal?  Only with the pyramid, the Pack and the Waste cards
        # not buried for the rest of this pass (the joker relaxation on those).
        b = gen.buried(pm, sm, ptr)
        if b and gen.hopeless(pm, sm | b) or (
                (last or BASE[ps + 2] <= best)  # else it could not cut: not worth it
                and self.pos.full_st & ~sm & ((1 << ptr) - 1) and gen.waste_stuck(pm, sm, ptr)):
            h = -max(1, self.left_min(pm, sm, ptr, ps)) if last else BASE[ps + 2]
            return h if h < cap else cap
        return top

    def left_min(self, pm: int, sm: int, ptr: int = 0, ps: int = 0) -> int:
        """The fewest cards any line from (pm, sm) could leave, by the full joker
        relaxation (see the class docstring), with the pairs of two stock cards capped
        by ``_stock_pairs_most``.  In the last pass with cards in the Waste, by the
        stack relaxation (``_stack_most``) instead."""
        pos = self.pos
        rem = pos.full_st & ~sm
        waste = rem & ((1 << ptr) - 1) if ps >= DEALS - 1 else 0
        if not waste:  # the same for the whole pattern (a D leaves it the same)
            left = self.joker_left_memo.get(pm | (sm << 28))
            if left is not None:
                return left
        sc = pos.st_counts(rem ^ waste)
        cap = self._stock_pairs_most(pm, sm)
        most = self._stack_most(pm, waste, sc & COUNT_MASK, cap) if waste else (
            self._most(pm, sc & COUNT_MASK, cap))
        left = self.left_now(pm, sm) - (sc >> 52) - most
        if not waste:
            self.joker_left_memo[pm | (sm << 28)] = left
        return left

    def _stock_pairs_most(self, pm: int, sm: int) -> int:
        """The most pairs of two stock cards any line from here can still make
        (``_Search.stock_pairs``), memoised by pattern (a D leaves it the same) and by
        what it depends on."""
        cap = self.cap_memo.get(pm | (sm << 28))
        if cap is None:
            key = sm | (self._free_ranks(pm, sm) << 24)
            memo = self.pairs_memo
            cap = memo.get(key)
            if cap is None:
                self.gen.relax_state(self.pos.n - _popcount(sm))  # its cards
                cap = memo[key] = self.gen.stock_pairs(sm, key >> 24)
            self.cap_memo[pm | (sm << 28)] = cap
        return cap

    def _free_ranks(self, pm: int, sm: int) -> int:
        """``_Search.free_ranks``, sharper where it pays, in the Par bound: the ranks of
        the stock cards that may go with a pyramid card some line can still remove,
        or alone (Kings).

        By a relaxation: a stock card of each rank still live may be taken at any
        moment, as often as wanted.  Every pyramid it reaches is visited (there are at
        most 1430 pyramids); a pyramid card removed in any of them may still go."""
        pos = self.pos
        sc = pos.st_counts(pos.full_st & ~sm)
        have = 0  # the ranks of the live stock cards
        for r in range(1, 13):
            if (sc >> (4 * r)) & 15:
                have |= 1 << r
        key = pm | (have << 28)
        memo = self.free_memo
        hit = memo.get(key)
        if hit is not None:
            return hit
        pr = pos.pr
        avail = self.gen.avail
        seen = {pm}
        todo = [pm]
        while todo:
            m = todo.pop()
            av = avail(m)[0]
            for x, i in enumerate(av):
                need = 13 - pr[i]
                if not need or (have >> need) & 1:
                    m2 = m | (1 << i)
                    if m2 not in seen:
                        seen.add(m2)
                        todo.append(m2)
                for j in av[x + 1:]:
                    if pr[j] == need:
                        m2 = m | (1 << i) | (1 << j)
                        if m2 not in seen:
                            seen.add(m2)
                            todo.append(m2)
        gone = 0
        for m in seen:
            gone |= m
        gone &= ~pm
        free = 1 << 13
        while gone:
            low = gone & -gone
            gone ^= low
            free |= 1 << (13 - pr[low.bit_length() - 1])
        self.gen.relax_state(len(seen))
        memo[key] = free
        return free

    def _stack_most(self, pm: int, waste: int, counts: int, cap: int) -> int:
        """Most cards a last-pass line removes from pyramid ``pm``, the Waste cards
        ``waste`` (taken only from the top down: ``_Search.waste_stuck``) and Pack
        ``counts`` (4 bits a rank, Kings aside: each may be taken at any moment); two
        stock cards may pair (Pack with Pack at the end, as that enables nothing), at
        most ``cap`` times."""
        if not waste:
            return self._most(pm, counts, cap)
        key = pm | (waste << 28) | (counts << 60) | (cap << 112)
        memo = self.stack_memo
        hit = memo.get(key)
        if hit is not None:
            return hit
        self.gen.relax_state()
        pr, st = self.pos.pr, self.pos.st
        av = self.gen.avail(pm)[0]
        for i in av:
            if pr[i] == 13:
                best = memo[key] = 1 + self._stack_most(pm | (1 << i), waste, counts, cap)
                return best
        top = waste.bit_length() - 1
        rt = st[top]
        if rt == 13:
            best = memo[key] = 1 + self._stack_most(pm, waste ^ (1 << top), counts, cap)
            return best
        best = 0
        for r in range(1, 7):
            best += min((counts >> (4 * r)) & 15, (counts >> (4 * (13 - r))) & 15)
        best = 2 * (best if best < cap else cap)
        n_av = len(av)
        for x in range(n_av):
            i = av[x]
            need = 13 - pr[i]
            if need == rt:
                v = 2 + self._stack_most(pm | (1 << i), waste ^ (1 << top), counts, cap)
                if v > best:
                    best = v
            for y in range(x + 1, n_av):
                if pr[av[y]] == need:
                    v = 2 + self._stack_most(pm | (1 << i) | (1 << av[y]), waste, counts, cap)
                    if v > best:
                        best = v
            if (counts >> (4 * need)) & 15:
                v = 2 + self._stack_most(pm | (1 << i), waste, counts - (1 << (4 * need)), cap)
                if v > best:
                    best = v
        if cap and (counts >> (4 * (13 - rt))) & 15:
            v = 2 + self._stack_most(pm, waste ^ (1 << top), counts - (1 << (4 * (13 - rt))),
                                     cap - 1)
            if v > best:
                best = v
        memo[key] = best
        return best

    def _most(self, pm: int, counts: int, cap: int) -> int:
        """Most cards the relaxation removes from pyramid ``pm`` with stock ``counts``
        (4 bits a rank): pyramid pairs, pyramid + stock, Kings, then at most ``cap``
        stock pairs."""
        key = pm | (counts << 28) | (cap << 80)
        memo = self.left_memo
        hit = memo.get(key)
        if hit is not None:
            return hit
        self.gen.relax_state()
        pr = self.pos.pr
        av = self.gen.avail(pm)[0]
        for i in av:
            if pr[i] == 13:
                best = 1 + self._most(pm | (1 << i), counts, cap)
                memo[key] = best
                return best
        best = 0
        for r in range(1, 7):  # what the stock can still pair off by itself
            best += min((counts >> (4 * r)) & 15, (counts >> (4 * (13 - r))) & 15)
        best = 2 * (best if best < cap else cap)
        n_av = len(av)
        for x in range(n_av):
            i = av[x]
            need = 13 - pr[i]
            for y in range(x + 1, n_av):
                if pr[av[y]] == need:
                    v = 2 + self._most(pm | (1 << i) | (1 << av[y]), counts, cap)
                    if v > best:
                        best = v
            if (counts >> (4 * need)) & 15:
                v = 2 + self._most(pm | (1 << i), counts - (1 << (4 * need)), cap)
                if v > best:
                    best = v
        memo[key] = best
        return best

    # -- the search -----------------------------------------------------------------------
    def probe(self, lead: list, root: tuple) -> bool:
        """The root probes (win-goal searches, with all their cuts, on ``PROBE_NODES``
        each).  For each pass k from the current one: can the pyramid be cleared by the
        end of pass k?  If not, no line scores more than a later pass's base: raise
        ``first_clear`` and go on.  If so (and no earlier pass can), the clear found,
        played on, is a line; when it removes all 52 cards, or a second probe finds a
        line that does with the pyramid cleared in pass k, that line scores
        ``PAR_BASE[k + 1]``, which no line beats: recorded, and True (solved).  Stops at
        the first probe that runs out of nodes or time (what it learned holds)."""
        pos = self.pos
        if root[0] == FULL_PYR:
            return False
        deadline = cpu_time()
        deadline += (self.deadline - deadline) * PROBE_SHARE
        for k in range(pos.ps, DEALS):
            search = _Search(pos, "pyramid")
            search.last_ps = search.clear_ps = k
            search.relax_per_node = self.gen.relax_per_node
            try:
                found = _dfs(search, root, self.root_probe, deadline)
            except _Budget:
                self.timed_out = self.timed_out or search.timed_out
                return False
            finally:
                self.probe_expanded += search.expanded
            if found is None:
                self.first_clear = k + 1  # no clear by pass k
                continue
            # a clear: its line, played on, is a lower bound
            _, sm, ptr, ps = search.final
            left, tail = _stock_min_left(self.gen, sm, ptr, ps, self.stock_memo)
            self.path = []
            self.record(BASE[ps + 1] - left, lead + found + tail)
            if not left:  # all 52 go: the best any line with a clear can score
                return True
            # can all 52 go with it?  (the stock's pairs tried first, then the pyramid's:
            # each move order finds some lines far sooner than the other)
            finished = False
            all_nodes = self.root_probe * ALL_PROBE_NODES // PROBE_NODES
            for stock_first, budget in ((True, all_nodes // 2), (False, all_nodes)):
                search = _Search(pos, "all")
                search.clear_ps, search.stock_first = k, stock_first
                search.relax_per_node = self.gen.relax_per_node
                try:
                    found = _dfs(search, root, budget, deadline)
                    finished = True
                except _Budget:
                    self.timed_out = self.timed_out or search.timed_out
                self.probe_expanded += search.expanded
                if finished:
                    break
            if not finished or found is None:
                return False
            self.path = []
            self.record(BASE[k + 1], lead + found)
            return True
        return False

    def run(self) -> tuple[int, int, tuple[Action, ...], Game]:
        pos, gen = self.pos, self.gen
        lead: list = []
        pm, sm, ptr = gen.settle(pos.pm, 0, pos.ptr, lead)
        if self.max_nodes >= 6 * self.root_probe and self.probe(lead, (pm, sm, ptr, pos.ps)):
            best = self.best
            end, line = _finish_line(self.game, _to_actions(self.best_moves))
            if end.score != best:
                raise AssertionError(f"the Par line scores {end.score}, not {best}")
            return best, best, line, end
        self.max_nodes -= self.probe_expanded
        # 1. plain depth first, on a small budget
        self.path = list(lead)
        max_nodes = self.max_nodes
        self.max_nodes = min(max_nodes, self.probe_nodes)
        upper = max(self.visit(pm, sm, ptr, pos.ps, BASE[1]), self.best)
        self.max_nodes = max_nodes
        if self.out and upper > self.best and gen.expanded < max_nodes and (
                not self.past_deadline()) and self.best < -1:
            # 2a. no clear in sight: the best lines leave the fewest cards, found deep
            # in the later deals; go on depth first (what is in the table holds)
            self.out = False
            self.path = list(lead)
            upper = min(upper, max(self.visit(pm, sm, ptr, pos.ps, BASE[1]), self.best))
        elif self.out and upper > self.best and gen.expanded < max_nodes and (
                not self.past_deadline()):
            # 2b. one deal at a time (see the class docstring)
            self.out = False
            self.layered = True
            self.tt0, self.tt = self.tt, {}
            self.path = list(lead)
            upper2 = self.visit(pm, sm, ptr, pos.ps, BASE[1])
            for ps in range(pos.ps + 1, DEALS):
                for key, (cap, path) in self.queue[ps].items():
                    if self.out:
                        u = cap  # not searched: its bound (its parent's, at most)
                    else:
                        self.path = list(path)
                        u = self.visit(key & FULL_PYR, key >> 28, 0, ps, cap)
                    if u > upper2:
                        upper2 = u
            upper = min(upper, max(upper2, self.best))
        end, line = _finish_line(self.game, _to_actions(self.best_moves))
        if end.score != self.best:
            raise AssertionError(f"the Par line scores {end.score}, not {self.best}")
        return self.best, upper, line, end

    def visit(self, pm: int, sm: int, ptr: int, ps: int, cap: int) -> int:
        """Search from (pm, sm, ptr, ps); returns an upper bound on its value that is
        exact or at most ``best`` where the search was complete."""
        if pm == FULL_PYR:
            left, tail = _stock_min_left(self.gen, sm, ptr, ps, self.stock_memo)
            value = self.base(ps) - left
            self.record(value, tail)
            return value
        key = pm | (sm << 28)
        cptr = (self.pos.full_st & ~sm & ((1 << ptr) - 1)).bit_length()
        here = ps * 32 + cptr  # canonical, as in ``_dfs``
        if self.layered:
            seen = self.tt0.get(key)  # what the plain search found holds here too
            if seen is not None and seen[0] <= here:
                return seen[1]
            key |= ps << 52
            here = cptr
        seen = self.tt.get(key)
        if seen is not None and seen[0] <= here:
            return seen[1]
        value = -self.left_now(pm, sm)
        if value > self.best:  # as good as ending here, or better: play on to the end
            self.record(*self.play_on(pm, sm, ptr, ps))
        h = self.bound(pm, sm, ptr, ps, cap)
        if h <= self.best or self.out:
            return h
        gen = self.gen
        if gen.expanded >= self.max_nodes or (
                not gen.expanded & 15 and self.past_deadline()):
            self.out = True
            return h
        ub = value
        path = self.path
        queue = self.queue
        for moves, npm, nsm, nptr, nps in gen.children(pm, sm, ptr, ps):
            if nps != ps and self.layered:  # a redeal: searched once this deal is done
                nkey = npm | (nsm << 28)
                pending = queue[nps].get(nkey)
                if pending is None:
                    queue[nps][nkey] = (h, path + moves)
                elif h < pending[0]:
                    queue[nps][nkey] = (h, pending[1])
                continue
            path.extend(moves)
            u = self.visit(npm, nsm, nptr, nps, h)
            del path[len(path) - len(moves):]
            if u > ub:
                ub = u
        ub = min(ub, h)
        if not self.out:
            seen = self.tt.get(key)
            if seen is None or here <= seen[0]:
                self.tt[key] = (here, ub)
        return ub
