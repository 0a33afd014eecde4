"""Triad hand evaluation: table tests from docs/rules/triad.md, and the fast evaluator
checked against a slow, obviously-correct reference.

The reference tries every category in rank order; for each, every way of cutting
the six cards into that category's groups (in order) plus kickers, and for each
group every reading of its Capstones (the group's denomination / top card / Color
follows from its natural cards; an all-Capstone group is the best there is).  It
keeps the best (denominations, Colors) of the first category any cutting reaches.

ESTERPORT_FULL=1 runs the 200,000-hand comparison (else 6,000, to keep the suite quick).
"""

from __future__ import annotations

import functools
import os
import random
from itertools import combinations, combinations_with_replacement

import pytest

from games.triad.cards import DECK, NATURAL_CODES, parse_card
from games.triad.hands import CATEGORY_NAMES, HandValue, evaluate, warm

# --- the reference ------------------------------------------------------------------
# group kinds: U = N of one denomination, R = run (Colors mixed), P = one-Color run,
# F = six of one Color.  (category, groups)
REF_TEMPLATES = (
    (1, (("P", 6),)),
    (2, (("P", 6),)),
    (3, (("U", 6),)),
    (4, (("P", 6),)),
    (5, (("U", 5),)),
    (6, (("U", 4), ("U", 2))),
    (7, (("U", 3), ("U", 3))),
    (8, (("F", 6),)),
    (9, (("U", 4),)),
    (10, (("R", 6),)),
    (11, (("P", 5),)),
    (12, (("U", 2), ("U", 2), ("U", 2))),
    (13, (("P", 3), ("P", 3))),
    (14, (("R", 5),)),
    (15, (("P", 4), ("U", 2))),
    (16, (("R", 4), ("U", 2))),
    (17, (("U", 3), ("P", 3))),
    (18, (("U", 3), ("R", 3))),
    (19, (("U", 3), ("U", 2))),
    (20, (("P", 3),)),
    (21, (("U", 3),)),
    (22, (("R", 3),)),
    (23, (("U", 2), ("U", 2))),
    (24, (("U", 2),)),
    (25, ()),
)
REF_CONDITIONS = {  # extra conditions on (top card, Capstones in the hand)
    1: lambda top, caps: top == 14 and caps == 0,
    2: lambda top, caps: top == 14 and caps > 0,
    4: lambda top, caps: top < 14,
}


@functools.lru_cache(maxsize=1 << 18)
def _best_option(kind, n, cards, cat, caps):
    """The best (denominations, Colors) of one group, or None (memoised: hands share groups)."""
    opts = _group_options(kind, n, cards)
    cond = REF_CONDITIONS.get(cat)
    if cond is not None:
        opts = [o for o in opts if cond(o[0], caps)]
    return max((o[1:] for o in opts), default=None)


def _group_options(kind, n, cards):
    """Every (top, representative denominations, Colors) a group of cards can read as.

    ``cards``: (denomination, Color 1..4) for naturals, (0, 0) for Capstones.
    """
    nats = [c for c in cards if c != (0, 0)]
    ncap = n - len(nats)
    ds = {x[0] for x in nats}
    cs = {x[1] for x in nats}
    out = []
    if kind == "U":
        # every natural must show the group's denomination; Capstones show it too
        for d in (ds if ds else range(2, 15)):
            if len(ds) <= 1:
                cols = tuple(sorted((x[1] for x in nats), reverse=True)) + (0,) * ncap
                out.append((d, (d,), cols))
    elif kind in ("R", "P"):
        # the window h-n+1..h must hold each natural, each at its own denomination
        if len(ds) == len(nats):
            tops = range(max(ds), min(ds) + n) if ds else range(n + 1, 15)
            for h in tops:
                if not n + 1 <= h <= 14:
                    continue
                window = range(h, h - n, -1)
                if kind == "R":
                    by = {x[0]: x[1] for x in nats}
                    out.append((h, (h,), tuple(by.get(d, 0) for d in window)))
                else:
                    for c in (cs if cs else range(1, 5)):
                        if len(cs) <= 1:
                            out.append((h, (h,), (c,) * n))
    else:  # F: Capstones take the Color and any denomination
        for c in range(1, 5):
            if all(x[1] == c for x in nats):
                for extra in combinations_with_replacement(range(2, 15), ncap):
                    ds = tuple(sorted([x[0] for x in nats] + list(extra), reverse=True))
                    out.append((ds[0], ds, (c,) * n))
    return out


def _kicker_options(cards):
    nats = [c for c in cards if c is not None]
    ncap = len(cards) - len(nats)
    for extra in combinations_with_replacement(range(2, 15), ncap):
        ks = sorted(nats + [(d, 0) for d in extra], reverse=True)
        yield tuple(k[0] for k in ks), tuple(k[1] for k in ks)


def _cuttings(idx, sizes):
    """Ordered cuttings of the index tuple into groups of the given sizes + the rest."""
    if not sizes:
        yield (), idx
        return
    for first in combinations(idx, sizes[0]):
        rest = tuple(i for i in idx if i not in first)
        for more, kick in _cuttings(rest, sizes[1:]):
            yield (first,) + more, kick


@functools.cache
def _all_cuttings(sizes):
    return tuple(_cuttings(tuple(range(6)), sizes))


def reference(codes):
    """(category, denominations, Colors, Capstones) by exhaustive search."""
    cards = []
    for code in codes:
        card = parse_card(code)
        cards.append(None if card is None else (card[0], card[1] + 1))
    caps = cards.count(None)
    for cat, groups in REF_TEMPLATES:
        best = None
        for cut, kick in _all_cuttings(tuple(n for _, n in groups)):
            options = []
            for (kind, n), members in zip(groups, cut):
                group = tuple(sorted((cards[i] or (0, 0) for i in members), reverse=True))
                option = _best_option(kind, n, group, cat, caps)
                if option is None:
                    break
                options.append(option)
            else:
                for kd, kc in _kicker_options([cards[i] for i in kick]):
                    dk = sum((o[0] for o in options), ()) + kd
                    ck = sum((o[1] for o in options), ()) + kc
                    if best is None or (dk, ck) > best:
                        best = (dk, ck)
        if best is not None:
            colors = "".join("-RGPB"[c] for c in best[1])
            return cat, best[0], colors, caps
    raise AssertionError("High Card always applies")


# --- the reference's own check: brute force over Capstone assignments -----------------
def _assigned_option(kind, n, cards):
    """The reading of a group of concrete cards (d, Color 1..4, is_capstone), or None.

    A Capstone keeps the Color it stands for in a one-Color group and is colorless
    (0) anywhere else.
    """
    ds = sorted((x[0] for x in cards), reverse=True)
    if kind == "U":
        if len(set(ds)) != 1:
            return None
        return (ds[0],), tuple(sorted((0 if x[2] else x[1] for x in cards), reverse=True))
    if kind in ("R", "P"):
        if ds != list(range(ds[0], ds[0] - n, -1)):
            return None
        if kind == "R":
            by = {x[0]: (0 if x[2] else x[1]) for x in cards}
            return (ds[0],), tuple(by[d] for d in ds)
        if len({x[1] for x in cards}) != 1:
            return None
        return (ds[0],), (cards[0][1],) * n
    if len({x[1] for x in cards}) != 1:  # F
        return None
    return tuple(ds), (cards[0][1],) * n


def reference_by_assignment(codes):
    """Try every card each Capstone can stand for (any of the 52, repeats allowed),
    then every cutting of the concrete hand; keep the best."""
    nats = []
    for code in codes:
        card = parse_card(code)
        if card is not None:
            nats.append((card[0], card[1] + 1, False))
    caps = 6 - len(nats)
    faces = [(d, c, True) for d in range(2, 15) for c in range(1, 5)]
    best = None
    for extra in combinations_with_replacement(faces, caps):
        cards = nats + list(extra)
        for cat, groups in REF_TEMPLATES:
            if best is not None and cat > -best[0]:
                break
            found = None
            for cut, kick in _all_cuttings(tuple(n for _, n in groups)):
                parts = []
                for (kind, n), members in zip(groups, cut):
                    option = _assigned_option(kind, n, [cards[i] for i in members])
                    cond = REF_CONDITIONS.get(cat)
                    if option is None or (cond is not None and not cond(option[0][0], caps)):
                        break
                    parts.append(option)
                else:
                    ks = sorted(((cards[i][0], 0 if cards[i][2] else cards[i][1]) for i in kick), reverse=True)
                    dk = sum((o[0] for o in parts), ()) + tuple(k[0] for k in ks)
                    ck = sum((o[1] for o in parts), ()) + tuple(k[1] for k in ks)
                    if found is None or (dk, ck) > found:
                        found = (dk, ck)
            if found is not None:
                cand = (-cat, found[0], found[1])
                if best is None or cand > best:
                    best = cand
                break
    colors = "".join("-RGPB"[c] for c in best[2])
    return -best[0], best[1], colors, caps


def fast(codes):
    v = evaluate(codes)
    return v.category, v.denominations, v.colors, v.capstones


def random_hands(seed, n):
    rng = random.Random(seed)
    deck = list(DECK)
    return [rng.sample(deck, 6) for _ in range(n)]


# --- table tests: every category ---------------------------------------------------
CATEGORY_TABLE = [
    # hand, category, name
    ("14B 13B 12B 11B 10B 9B", 1, "Full Colors, Black"),
    ("C 13P 12P 11P 10P 9P", 2, "Full Major, Purple"),
    ("14B 13B C 11B 10B C", 2, "Full Major, Black"),
    ("14B 14P 14G 14R C C", 3, "Six Up, Pyramids"),
    ("13R 12R 11R 10R 9R 8R", 4, "Colony, Prince High Red"),
    ("7G 6G 5G 4G 3G 2G", 4, "Colony, 7 High Green"),
    ("13R 12R C 10R 9R 8R", 4, "Colony, Prince High Red"),
    ("14B 14P 14G 14R C 13B", 5, "Five Up, Pyramids"),
    ("14B 14P 14G 14R 13B 13G", 6, "Four Up and Duo, Pyramids and Princes"),
    ("14B 14P 14G 13R 13B 13G", 7, "Double Three Up, Pyramids and Princes"),
    ("14B 13B 11B 10B 8B 7B", 8, "Perfect Full, Pyramid High Black"),
    ("14B 14P 14G 14R 13B 12G", 9, "Four Up, Pyramids"),
    ("14B 13P 12B 11B 10B 9B", 10, "Six on a run, Pyramid High"),
    ("14B 13B 12B 11B 10B 8P", 11, "Perfect Five on a run, Pyramid High Black"),
    ("14B 14P 13B 13G 12R 12G", 12, "Triple Duo, Pyramids, Princes and Princesses"),
    ("14B 13B 12B 10R 9R 8R", 13, "Double Perfect Three on a run, Pyramid High Black and 10 High Red"),
    ("14B 13P 12B 11B 10B 8R", 14, "Five on a run, Pyramid High"),
    ("14B 13B 12B 11B 9P 9G", 15, "Perfect Four on a run and Duo, Pyramid High Black and 9s"),
    ("14B 13P 12B 11B 9P 9G", 16, "Four on a run and Duo, Pyramid High and 9s"),
    ("14B 14P 14G 12R 11R 10R", 17, "Three Up and Perfect Three on a run, Pyramids and Princess High Red"),
    ("14B 14P 14G 12R 11G 10R", 18, "Three Up and Three on a run, Pyramids and Princess High"),
    ("14B 14P 14G 13R 13G 11R", 19, "Three Up and Duo, Pyramids and Princes"),
    ("14B 13B 12B 10R 9G 7R", 20, "Perfect Three on a run, Pyramid High Black"),
    ("14B 14P 14G 13R 11G 9R", 21, "Three Up, Pyramids"),
    ("14B 13P 12B 10R 8G 6R", 22, "Three on a run, Pyramid High"),
    ("14B 14P 13B 13G 11R 9G", 23, "Double Duo, Pyramids and Princes"),
    ("14B 14P 12B 10G 8R 6G", 24, "Duo, Pyramids"),
    ("14B 12P 10B 8G 6R 4G", 25, "High Card, Pyramid"),
]


@pytest.mark.parametrize("hand,category,name", CATEGORY_TABLE)
def test_category_table(hand, category, name):
    v = evaluate(hand.split())
    assert (v.category, v.name) == (category, name)
    assert CATEGORY_NAMES[v.category] == name.split(",")[0]
    assert reference(hand.split())[0] == category


def test_categories_are_ordered():
    values = [evaluate(h.split()) for h, _, _ in CATEGORY_TABLE]
    cats = [v.category for v in values]
    assert cats == sorted(cats)
    for a, b in zip(values, values[1:]):
        if a.category != b.category:
            assert a > b  # the table runs best first
    assert isinstance(values[0], HandValue) and isinstance(values[0], int)


# --- table tests: tie rules --------------------------------------------------------
TIE_TABLE = [
    # a, relation, b, why
    ("14B 14P 9B 8G 5R 3R", ">", "13B 13P 11B 9G 7R 2R", "higher Duo wins before kickers"),
    ("9B 9P 14G 8G 5R 3R", ">", "9G 9R 13B 12G 10R 4R", "same Duo: kickers, highest first"),
    ("9B 9P 14G 8G 5R 3R", ">", "9G 9R 14B 8P 5G 2R", "last kicker decides"),
    ("14B 14P 9B 9P 5R 3R", ">", "14G 14R 8B 8P 12R 11R", "Double Duo: second pair before kickers"),
    ("9B 9P 7G 5R 3R 2G", ">", "9G 9R 7B 5G 3G 2R", "Duo of 9s, kickers equal: Colors"),
    ("9B 9P 8G 6R 4R 3R", ">", "9G 9R 8B 6G 4G 3G", "Colors in card order: the pair first"),
    ("14B 14P 11P 8G 5R 2G", ">", "14B C 11P 8G 5R 2G", "a Capstone is colorless in a Duo"),
    ("9B C 8P 6G 4G 2G", "==", "9B C 8P 6G 4G 2G", "identical hands tie"),
    ("14B C 11P 8G 5R 2G", "<", "14B 14R 11P 8G 5R 2R", "a colorless Capstone loses to Red"),
    ("13R 12R 11R 10R 9R C", ">", "13B 12B 11B 10B 9B 8B", "the Capstone as the Red Pyramid: "
     "Full Major beats Colony"),
    ("13R 12R C 10R 9R 8R", "<", "13B 12B 11B 10B 9B 8B", "Colony against Colony: Colors"),
    ("10R 9R 8R 14B 4G 2P", ">", "10G 9G 8G 13B 4B 2B", "Perfect three: kickers before Colors"),
    ("10B 9B 8B 13P 4G 2P", ">", "10G 9G 8G 13B 4B 2B", "then Colors, run first"),
    ("14B 13P 12B 10R 8G 6R", ">", "14P 13B 12G 10R 8G 6R", "mixed run: Colors card by card"),
    ("14B 14P 14G 13R 11G 9R", ">", "C 14R 14P 13B 11P 9B", "Three Up: natural Colors before Capstone"),
    ("14B 13B 12B 10R 9R 8R", ">", "14P 13P 12P 10B 9B 8B", "Double Perfect: higher run's Color first"),
    ("C 13B 12B 11B 10B 9B", "<", "14B 13B 12B 11B 10B 9B", "Full Major below Full Colors"),
    ("C 13B 12B 11B 10B 9B", ">", "C C 12B 11B 10B 9B", "fewer Capstones wins"),
    ("14B 14P 14G 14R C 2R", ">", "14B 14P 14G C C 2G", "Five Up: Colors, a Capstone is colorless"),
]


@pytest.mark.parametrize("a,rel,b,why", TIE_TABLE)
def test_tie_rules(a, rel, b, why):
    va, vb = evaluate(a.split()), evaluate(b.split())
    assert {">": va > vb, "<": va < vb, "==": va == vb}[rel], (why, va, vb)


def test_capstone_takes_run_color_and_colorless_elsewhere():
    v = evaluate("13R 12R C 10R 9R 8R".split())
    assert v.colors == "RRRRRR"
    v = evaluate("14B C 11P 8G 5R 2G".split())
    assert v.name == "Duo, Pyramids" and v.colors == "B-PGRG"


def test_capstones_pick_the_best_category():
    # C C with 9B 8B: a one-Color run of four (or Full?) -- the best the reference finds.
    for hand in ("C C 9B 8B 2R 3G", "C C C 2R 7G 13P", "C C C C 2R 9B", "C 14B 14P 13G 13R 2G"):
        assert fast(hand.split()) == reference(hand.split()), hand


# --- bad hands -----------------------------------------------------------------------
@pytest.mark.parametrize("hand,message", [
    ("14B 13B 12B 11B 10B", "six cards"),
    ("14B 13B 12B 11B 10B 9B 8B", "six cards"),
    ("14B 14B 12B 11B 10B 9B", "twice"),
    ("C C C C C 9B", "Capstones"),
    ("15B 13B 12B 11B 10B 9B", "15B"),
    ("14X 13B 12B 11B 10B 9B", "14X"),
    ("1R 13B 12B 11B 10B 9B", "1R"),
])
def test_bad_hands(hand, message):
    with pytest.raises(ValueError, match=message):
        evaluate(hand.split())


def test_lowercase_codes_are_read():
    assert evaluate("14b 13b 12b 11b 10b 9b".split()).category == 1


# --- fast against reference -----------------------------------------------------------
FULL = os.environ.get("ESTERPORT_FULL") == "1"
CHUNKS = 10
PER_CHUNK = 20_000 if FULL else 600


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_fast_matches_reference_random(chunk):
    """6,000 seeded random hands (200,000 with ESTERPORT_FULL=1)."""
    for hand in random_hands(1000 + chunk, PER_CHUNK):
        assert fast(hand) == reference(hand), hand


@pytest.mark.parametrize("caps", [3, 4])
def test_fast_matches_reference_many_capstones(caps):
    """Every hand with 3 or 4 Capstones whose naturals come from a sampled set."""
    rng = random.Random(caps)
    sample = rng.sample(NATURAL_CODES, 14 if caps == 3 else 26)
    if not FULL:
        sample = sample[: 9 if caps == 3 else 14]
    for nats in combinations(sample, 6 - caps):
        hand = list(nats) + ["C"] * caps
        assert fast(hand) == reference(hand), hand


@pytest.mark.parametrize("caps,count", [(1, 25), (2, 1)])
def test_reference_matches_brute_force_over_assignments(caps, count):
    """The reference reads Capstones group by group; check it against trying every
    card each Capstone could be (one- and two-Capstone hands)."""
    rng = random.Random(caps)
    for _ in range(count * (10 if FULL else 1)):
        hand = rng.sample(NATURAL_CODES, 6 - caps) + ["C"] * caps
        assert reference_by_assignment(hand) == reference(hand), hand


def test_warm_builds_the_table():
    assert warm() > 20_000
