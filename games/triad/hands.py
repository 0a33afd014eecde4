"""Triad hand evaluation: six cards -> a HandValue that orders like
docs/rules/triad.md ("Which hand wins").

Rules page, "Hand categories" and "Comparing two hands":

* A hand is worth the best (category, denominations, Colors, fewer Capstones) any
  assignment of its Capstones and any grouping of its cards reaches.  The groups a
  category names use disjoint cards; the other cards are kickers.
* Denominations compare group by group in the category's order (a run by its
  highest card, an N-Up by its denomination, two groups of one kind higher first,
  Perfect Full by all six cards), then the kickers from highest to lowest.
* Colors compare in that same card order (Black > Purple > Green > Red); a Capstone
  takes its group's Color in a one-Color group and is colorless (below Red)
  anywhere else.  Then fewer Capstones wins.

How it is fast:

* Each code maps to one integer; the sum of the six integers packs a 52-bit card
  mask, per-Color counts, the Capstone count and per-denomination counts.
* The best Color-free reading (every category whose groups need no one-Color run)
  depends only on the denomination counts and the Capstone count, so it is computed
  once per count pattern (each Capstone tried at every denomination, one Capstone at
  a time, memoised) and kept in a table.  Its Colors follow greedily: at each position of a denomination, the
  best remaining natural card of that denomination, Capstones last.
* One-Color categories (Full Colors, Full Major, Colony, Perfect Full and the Perfect
  runs) are searched per hand, but only when a couple of bit tests on the card mask
  show one is possible (a one-Color three-run, or a near one with Capstones).

``HandValue`` is an ``int`` subclass, so comparing two hands is an int comparison.
"""

from __future__ import annotations

import functools
from itertools import combinations, combinations_with_replacement

from .cards import (
    CAPSTONE,
    COLOR_NAMES,
    NATURAL_CODES,
    denom_name,
    denom_plural,
    normalize,
    parse_card,
)

CATEGORY_NAMES = {
    1: "Full Colors",
    2: "Full Major",
    3: "Six Up",
    4: "Colony",
    5: "Five Up",
    6: "Four Up and Duo",
    7: "Double Three Up",
    8: "Perfect Full",
    9: "Four Up",
    10: "Six on a run",
    11: "Perfect Five on a run",
    12: "Triple Duo",
    13: "Double Perfect Three on a run",
    14: "Five on a run",
    15: "Perfect Four on a run and Duo",
    16: "Four on a run and Duo",
    17: "Three Up and Perfect Three on a run",
    18: "Three Up and Three on a run",
    19: "Three Up and Duo",
    20: "Perfect Three on a run",
    21: "Three Up",
    22: "Three on a run",
    23: "Double Duo",
    24: "Duo",
    25: "High Card",
}

# Group kinds: ("U", n) n of one denomination; ("R", n) a run of n, Colors mixed;
# ("P", n) a run of n in one Color; ("F", 6) six of one Color (Perfect Full).
# Each template: (category, groups); cards outside the groups are kickers.  Full
# Colors, Full Major and Colony share one template; the top card and the Capstone
# count tell them apart.
COLOR_FREE_TEMPLATES = (
    (3, (("U", 6),)),
    (5, (("U", 5),)),
    (6, (("U", 4), ("U", 2))),
    (7, (("U", 3), ("U", 3))),
    (9, (("U", 4),)),
    (10, (("R", 6),)),
    (12, (("U", 2), ("U", 2), ("U", 2))),
    (14, (("R", 5),)),
    (16, (("R", 4), ("U", 2))),
    (18, (("U", 3), ("R", 3))),
    (19, (("U", 3), ("U", 2))),
    (21, (("U", 3),)),
    (22, (("R", 3),)),
    (23, (("U", 2), ("U", 2))),
    (24, (("U", 2),)),
    (25, ()),
)
ONE_COLOR_TEMPLATES = (
    (1, (("P", 6),)),
    (2, (("P", 6),)),
    (4, (("P", 6),)),
    (8, (("F", 6),)),
    (11, (("P", 5),)),
    (13, (("P", 3), ("P", 3))),
    (15, (("P", 4), ("U", 2))),
    (17, (("U", 3), ("P", 3))),
    (20, (("P", 3),)),
)

# Cards one Color must supply (Capstones included) for a one-Color category.
_NEEDS_ONE_COLOR = {1: 6, 2: 6, 4: 6, 8: 6, 11: 5, 13: 3, 15: 4, 17: 3, 20: 3}

# --- the packed card integers ---------------------------------------------------
_CAPS_SHIFT = 64
_LOW52 = (1 << 52) - 1


def _card_int(code: str) -> int:
    """A card's share of the packed sum.  Bits 0..51: the card (13 * Color index +
    denomination - 2); 52..63: a 3-bit count per Color; 64..66: the Capstone count;
    67..105: a 3-bit count per denomination.  Bits 64 and up are the table key."""
    card = parse_card(code)
    if card is None:
        return 1 << _CAPS_SHIFT
    d, ci = card
    return (1 << (13 * ci + d - 2)) | (1 << (52 + 3 * ci)) | (1 << (67 + 3 * (d - 2)))


_VALUE = {code: _card_int(code) for code in NATURAL_CODES + (CAPSTONE,)}
# Per natural code: (denomination, Color value 1..4, mask of the same denomination
# in higher Colors) -- the last gives its rank among equal denominations.
_INFO = {}
for _code in NATURAL_CODES:
    _d, _ci = parse_card(_code)
    _INFO[_code] = (_d, _ci + 1, sum(1 << (13 * cj + _d - 2) for cj in range(_ci + 1, 4)))
_INFO[CAPSTONE] = None
_NAT = {code: info[:2] for code, info in _INFO.items() if info is not None}
# Largest per-Color count in the 12 Color-count bits of the sum.
_MOST = [max((k >> (3 * ci)) & 7 for ci in range(4)) for k in range(1 << 12)]

# Bits of a Color block that have 1 (resp. 2) more bits above them in the same block.
_BLOCK11 = sum(((1 << 12) - 1) << (13 * ci) for ci in range(4))
_BLOCK10 = sum(((1 << 11) - 1) << (13 * ci) for ci in range(4))


# Color counts + Capstone count (bits 52..66 of the sum) where one Color and the
# Capstones make all six cards: Perfect Full or better may apply.
_ONE_COLOR_COUNTS = frozenset(
    (caps << 12) | ((6 - caps) << (3 * ci)) for caps in range(5) for ci in range(4)
)

# --- ranks: one int per hand value ----------------------------------------------
def _pack(cat: int, dk: tuple, ck: tuple, caps: int) -> int:
    """(category, denominations, Colors, Capstones) -> an int that orders hands."""
    d = 0
    for i in range(6):
        d = (d << 4) | (dk[i] if i < len(dk) else 0)
    c = 0
    for i in range(6):
        c = (c << 3) | ck[i]
    return ((((25 - cat) << 24 | d) << 18 | c) << 3) | (7 - caps)


class HandValue(int):
    """The worth of a six-card hand; compare with <, ==, > like ints.

    ``category`` is 1..25 as in docs/rules/triad.md (1 best), ``name`` the category with
    its detail ("Colony, Prince High Red"), ``denominations`` the compared
    denominations, ``colors`` the compared Colors (letters, "-" = colorless).
    """

    __slots__ = ()

    @property
    def category(self) -> int:
        return 25 - (self >> 45)

    @property
    def capstones(self) -> int:
        return 7 - (self & 7)

    @property
    def denominations(self) -> tuple[int, ...]:
        d = (self >> 21) & ((1 << 24) - 1)
        return tuple(x for x in ((d >> (4 * (5 - i))) & 15 for i in range(6)) if x)

    @property
    def colors(self) -> str:
        c = (self >> 3) & ((1 << 18) - 1)
        return "".join("-RGPB"[(c >> (3 * (5 - i))) & 7] for i in range(6))

    @property
    def name(self) -> str:
        return f"{CATEGORY_NAMES[self.category]}, {self.detail}"

    @property
    def detail(self) -> str:
        cat, dk, ck = self.category, self.denominations, self.colors

        def color(i: int) -> str:
            return COLOR_NAMES[ck[i]] if ck[i] != "-" else "Black"

        def high(h: int) -> str:
            return f"{denom_name(h)} High"

        if cat in (1, 2):
            return color(0)
        if cat in (4, 8, 11, 20):
            return f"{high(dk[0])} {color(0)}"
        if cat == 13:
            return f"{high(dk[0])} {color(0)} and {high(dk[1])} {color(3)}"
        if cat == 15:
            return f"{high(dk[0])} {color(0)} and {denom_plural(dk[1])}"
        if cat == 16:
            return f"{high(dk[0])} and {denom_plural(dk[1])}"
        if cat == 17:
            return f"{denom_plural(dk[0])} and {high(dk[1])} {color(3)}"
        if cat == 18:
            return f"{denom_plural(dk[0])} and {high(dk[1])}"
        if cat in (10, 14, 22):
            return high(dk[0])
        if cat == 12:
            return f"{denom_plural(dk[0])}, {denom_plural(dk[1])} and {denom_plural(dk[2])}"
        if cat in (6, 7, 19, 23):
            return f"{denom_plural(dk[0])} and {denom_plural(dk[1])}"
        if cat == 25:
            return denom_name(dk[0])
        return denom_plural(dk[0])

    def __repr__(self) -> str:
        return f"<HandValue {self.name} [{self.colors}] caps={self.capstones}>"

    def __str__(self) -> str:
        return self.name


# --- the Color-free table ---------------------------------------------------------
def _fill_free(groups, i, cnt, reps, seq, best):
    """Best (reps + kickers, seq) of Color-free groups over a concrete multiset."""
    if i == len(groups):
        kick = tuple(d for d in range(14, 1, -1) for _ in range(cnt[d]))
        cand = (reps + kick, seq + kick)
        return cand if best is None or cand > best else best
    kind, n = groups[i]
    if kind == "U":
        for d in range(14, 1, -1):
            if cnt[d] >= n:
                cnt[d] -= n
                best = _fill_free(groups, i + 1, cnt, reps + (d,), seq + (d,) * n, best)
                cnt[d] += n
    else:
        for h in range(14, n, -1):
            window = range(h, h - n, -1)
            if all(cnt[x] for x in window):
                for x in window:
                    cnt[x] -= 1
                best = _fill_free(groups, i + 1, cnt, reps + (h,), seq + tuple(window), best)
                for x in window:
                    cnt[x] += 1
    return best


_CONCRETE: dict[tuple, tuple] = {}
# Per Color-free category: (largest N-Up, longest run) its groups need.
_FREE_NEEDS = {
    cat: (max((n for k, n in groups if k == "U"), default=0), max((n for k, n in groups if k == "R"), default=0))
    for cat, groups in COLOR_FREE_TEMPLATES
}


def _concrete_free(ms: tuple) -> tuple:
    """(category, reps, seq) of the best Color-free reading of six denominations."""
    hit = _CONCRETE.get(ms)
    if hit is None:
        cnt = [0] * 15
        for d in ms:
            cnt[d] += 1
        most = max(cnt)
        longest = run = 0
        for d in range(2, 15):
            run = run + 1 if cnt[d] else 0
            longest = max(longest, run)
        for cat, groups in COLOR_FREE_TEMPLATES:
            need_up, need_run = _FREE_NEEDS[cat]
            if most < need_up or longest < need_run:
                continue  # no N-Up or no run long enough: skip the search
            best = _fill_free(groups, 0, cnt, (), (), None)
            if best is not None:
                hit = (cat, best[0], best[1])
                break
        _CONCRETE[ms] = hit
    return hit


_FREE: dict[int, tuple] = {}
_BEST_FREE: dict[int, tuple] = {}


def _best_free(key: int) -> tuple:
    """(-category, reps, seq) of the best Color-free reading for a count pattern.

    ``key`` packs 3-bit denomination counts above a 3-bit Capstone count.  With no
    Capstone it is the concrete reading; otherwise one Capstone takes each
    denomination in turn (in the Color-free categories a Capstone is just a
    colorless card of its denomination) and the best of those readings wins.
    """
    hit = _BEST_FREE.get(key)
    if hit is None:
        if key & 7:
            hit = max(_best_free(key - 1 + (1 << (3 + 3 * (d - 2)))) for d in range(2, 15))
        else:
            counts = key >> 3
            ms = tuple(d for d in range(14, 1, -1) for _ in range((counts >> (3 * (d - 2))) & 7))
            cat, reps, seq = _concrete_free(ms)
            hit = (-cat, reps, seq)
        _BEST_FREE[key] = hit
    return hit



def _free_entry(dkey: int) -> tuple:
    """Table entry for a denomination-count pattern: (category, packed value, plan).

    The packed value has no Colors yet; ``plan[d]`` lists the bit shifts of the
    Color positions holding denomination d, in card order; natural cards of d take
    them best Color first.
    """
    caps = dkey & 7
    best = _best_free(dkey)
    cat, reps, seq = -best[0], best[1], best[2]
    plan: list = [()] * 15
    for pos, d in enumerate(seq):
        plan[d] += (3 * (5 - pos) + 3,)  # already shifted past the Capstone bits
    entry = (cat, _pack(cat, reps, (0,) * 6, caps), plan)
    _FREE[dkey] = entry
    return entry


def warm() -> int:
    """Build the whole Color-free table now (else it fills as hands come); returns its size."""
    for caps in range(5):
        for nat in combinations_with_replacement(range(2, 15), 6 - caps):
            if any(nat.count(d) > 4 for d in set(nat)):
                continue
            key = caps
            for d in nat:
                key += 1 << (3 + 3 * (d - 2))
            if key not in _FREE:
                _free_entry(key)
    return len(_FREE)


# --- one-Color search ---------------------------------------------------------------
def _search_color(groups, i, nats, caps, reps, cols, best, hlo, hhi):
    """Best (reps + kickers, colors) for groups that may need one-Color runs.

    ``nats`` is a tuple of natural cards (denomination, Color value 1..4), best
    first; ``caps`` the Capstones not yet placed.  Capstones left for kickers stand
    as colorless Pyramids.
    """
    if i == len(groups):
        kick = sorted(nats + ((14, 0),) * caps, reverse=True)
        cand = (reps + tuple(k[0] for k in kick), cols + tuple(k[1] for k in kick))
        return cand if best is None or cand > best else best
    kind, n = groups[i]
    if kind == "U":
        denoms = sorted({x[0] for x in nats} | ({14} if caps >= n else set()), reverse=True)
        for d in denoms:
            avail = [x for x in nats if x[0] == d]
            for j in range(max(0, n - caps), min(len(avail), n) + 1):
                if j == 0 and d != 14:
                    continue
                for used in combinations(avail, j):
                    rest = tuple(x for x in nats if x not in used)
                    c = tuple(x[1] for x in used) + (0,) * (n - j)
                    best = _search_color(groups, i + 1, rest, caps - (n - j), reps + (d,),
                                         cols + c, best, hlo, hhi)
    elif kind == "P":
        top = hhi if i == 0 else 14
        bottom = hlo if i == 0 else n + 1
        colors = {x[1] for x in nats}
        if caps >= n:
            colors.add(4)
        for c in colors:
            cm = 0
            for x in nats:
                if x[1] == c:
                    cm |= 1 << x[0]
            for h in _tops(cm, n, n - caps):
                if h > top or h < bottom:
                    continue
                lo = h - n + 1
                avail = [x for x in nats if x[1] == c and lo <= x[0] <= h]
                for j in range(max(0, n - caps), len(avail) + 1):
                    for used in combinations(avail, j):
                        rest = tuple(x for x in nats if x not in used)
                        best = _search_color(groups, i + 1, rest, caps - (n - j), reps + (h,),
                                             cols + (c,) * n, best, hlo, hhi)
    else:  # "F": every card one Color; Capstones stand as Pyramids of it
        colors = {x[1] for x in nats}
        if len(colors) <= 1:
            c = colors.pop() if colors else 4
            ds = tuple(sorted([x[0] for x in nats] + [14] * caps, reverse=True))
            cand = (ds, (c,) * 6)
            best = cand if best is None or cand > best else best
    return best


_TOPS: dict[int, tuple] = {}  # _tops by (mask, n, need) packed in one int: a quicker key


@functools.lru_cache(maxsize=None)
def _tops(cm: int, n: int, need: int) -> tuple:
    """Top cards h of the runs of n whose window holds at least ``need`` bits of cm."""
    window = (1 << n) - 1
    return tuple(h for h in range(14, n, -1) if (cm & (window << (h - n + 1))).bit_count() >= need)


def _run_and_kickers(nats: tuple, caps: int, n: int, low: int):
    """Best (denominations, Colors) of a one-Color run of n plus kickers, or None.

    Only the highest top card counts.  The run takes every natural card of its Color
    in its window -- except that when a Capstone is left over, the run may take it
    for its natural Pyramid instead, so that the Pyramid is a colored kicker rather
    than the Capstone a colorless one (any other swap lowers the kickers).
    """
    starts = []
    for ci in range(4):
        block = (low >> (13 * ci)) & 0x1FFF
        if block or caps >= n:
            key = (block << 8) | (n << 4) | max(0, n - caps)
            tops = _TOPS.get(key)
            if tops is None:
                tops = _TOPS[key] = _tops(block << 2, n, n - caps)
            if tops:
                starts.append((tops[0], ci + 1))
    if not starts:
        return None
    h = max(starts)[0]
    lo = h - n + 1
    best = None
    for top, c in starts:
        if top != h:
            continue
        avail = [x for x in nats if x[1] == c and lo <= x[0] <= h]
        choices = [avail]
        if h == 14 and avail and avail[0][0] == 14 and caps > n - len(avail):
            choices.append(avail[1:])
        for used in choices:
            kick = [x for x in nats if x not in used] + [(14, 0)] * (caps - n + len(used))
            kick.sort(reverse=True)
            cand = ((h,) + tuple(k[0] for k in kick), (c,) * n + tuple(k[1] for k in kick))
            if best is None or cand > best:
                best = cand
    return best


def _one_color_best(cards, m: int, caps: int, worse_than: int):
    """Best one-Color reading better than category ``worse_than``, or None."""
    counts = (m >> 52) & 0xFFF
    most = caps + _MOST[counts]
    low = m & _LOW52
    nats = None
    for cat, groups in ONE_COLOR_TEMPLATES:
        if cat >= worse_than:
            return None
        # Quick impossibilities.  Cards one Color must supply; and in the categories
        # without kickers every natural card must sit in a group, so: two runs take
        # at most two Colors (13); the cards off the run's Color make the Duo (15);
        # the cards off the Three Up's denomination make the run (17).
        if most < _NEEDS_ONE_COLOR[cat]:
            continue
        if nats is None:
            nats = tuple(sorted((_NAT[c] for c in cards if c != CAPSTONE), reverse=True))
            colors = {c for _, c in nats}
        if cat == 13 and len(colors) > 2:
            continue
        if cat == 15 and not any(len({d for d, c in nats if c != k}) <= 1 for k in colors):
            continue
        if cat == 17 and not any(len({c for d, c in nats if d != e}) <= 1 for e, _ in nats):
            continue
        if cat == 1 and caps:
            continue
        if cat == 2 and not caps:
            continue
        hlo, hhi = 2, 14
        if cat in (1, 2):
            hlo = 14
        elif cat == 4:
            hhi = 13
        if cat in (11, 20):
            best = _run_and_kickers(nats, caps, groups[0][1], low)
        else:
            best = _search_color(groups, 0, nats, caps, (), (), None, hlo, hhi)
        if best is not None:
            return cat, best[0], best[1]
    return None


# --- the entry point -------------------------------------------------------------
def _bad(cards) -> ValueError:
    """Explain what is wrong with a hand that failed the fast checks."""
    try:
        cards = list(cards)
    except TypeError:
        return ValueError(f"a hand is six card codes, not {cards!r}")
    if len(cards) != 6:
        return ValueError(f"a hand has six cards, not {len(cards)}")
    seen = set()
    caps = 0
    for code in cards:
        card = parse_card(code)  # raises with its own message
        if card is None:
            caps += 1
        elif card in seen:
            return ValueError(f"{code} appears twice: the deck has one of each natural card")
        seen.add(card)
    if caps > 4:
        return ValueError(f"{caps} Capstones: the deck has only four")
    return ValueError(f"not a hand: {cards!r}")


def evaluate(cards) -> HandValue:
    """Six card codes (``"14B"``, ``"13P"``, ``"C"``...) -> their HandValue.

    A string is split on whitespace: ``evaluate("14B 13B 12B 11B 10B 9B")``.

    :raises ValueError: a bad code, not six cards, a natural card twice, or more
        than four Capstones.
    """
    if isinstance(cards, str):
        cards = cards.split()
    try:
        if len(cards) != 6:
            raise _bad(cards)
        m = sum(map(_VALUE.__getitem__, cards))
    except (KeyError, TypeError):
        try:
            cards = [normalize(c) for c in cards]
            m = sum(map(_VALUE.__getitem__, cards))
        except (KeyError, TypeError, ValueError):
            raise _bad(cards) from None
    dkey = m >> _CAPS_SHIFT
    caps = dkey & 7
    low = m & _LOW52
    if low.bit_count() + caps != 6 or caps > 4:
        raise _bad(cards)
    entry = _FREE.get(dkey) or _free_entry(dkey)
    cat = entry[0]
    # Could a one-Color category beat the Color-free reading?
    if cat > 3 and (
        caps >= 2
        or (caps == 1 and (low & ((low >> 1) | (low >> 2) & _BLOCK10) & _BLOCK11))
        or (low & (low >> 1) & (low >> 2) & _BLOCK10)
        or (m >> 52) & 0x7FFF in _ONE_COLOR_COUNTS
    ):
        found = _one_color_best(cards, m, caps, cat)
        if found is not None:
            return HandValue(_pack(found[0], found[1], found[2], caps))
    plan = entry[2]
    value = entry[1]
    for code in cards:
        info = _INFO[code]
        if info is not None:
            value |= info[1] << plan[info[0]][(low & info[2]).bit_count()]
    return HandValue(value)
