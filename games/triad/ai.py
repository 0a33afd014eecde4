"""Triad computer players.  They see only their own cards and play only through
``legal_actions`` / ``apply``.

Hand strength
    A hand's strength is about the share of typical final hands it beats, from a
    measured table of how often each category ends a hand dealt from a fresh deck
    and improved by a simple draw (keep Capstones and paired denominations, throw
    the lowest other cards), scaled within the category by the top denomination.
    Against N opponents the chance to win is about strength ** N.

Draw
    Every discard of up to four cards (Capstones are always kept) is a candidate;
    each is scored by sampling replacement cards from the cards the bot has not
    seen and averaging strength ** N.  Candidates are sampled in rounds, the worse
    half dropped after each (successive halving), until the time budget is spent.
    This keeps the cards that make the best hand and chases runs, Perfect runs and
    Ups when the sampled draws say the chase pays.

Betting
    Before the draw the win chance is the best candidate's sampled value; after the
    draw it is strength ** N.  The bot raises when ahead (the further ahead, the
    bigger, up to twice the pot, or everything it may when far ahead), equals when
    the chance beats the pot odds, passes when it can and folds otherwise.  "easy"
    thinks briefly and misjudges by a random margin.

``warm()`` builds the evaluator's table (a second or two, once per process) so
that early decisions do not pay for filling it.
"""

from __future__ import annotations

import random
import time
from itertools import combinations, islice

from . import hands
from .cards import CAPSTONE, DECK
from .rules import Action, State, legal_actions, raise_bounds

LEVELS = {"easy": 0.15, "normal": 0.5, "hard": 1.0}  # share of the time budget used
NOISE = {"easy": 0.15, "normal": 0.04, "hard": 0.0}


# ------------------------------------------------------------------ strength
def simple_draw(cards: list[str]) -> list[int]:
    """Indices a plain player throws: not a Capstone, not paired, lowest first, <= 4."""
    denoms = [None if c == CAPSTONE else int(c[:-1]) for c in cards]
    paired = {d for d in denoms if d is not None and denoms.count(d) >= 2}
    loose = [i for i, d in enumerate(denoms) if d is not None and d not in paired]
    loose.sort(key=lambda i: denoms[i])
    keep_high = 2 if len(loose) == 6 else 0  # nothing to build on: keep the two highest
    return loose[: min(4, len(loose) - keep_high)]


# Share of each category among typical final hands: 20,000 hands dealt from a fresh
# deck and improved by ``simple_draw`` (measured once; see ``measure_shares``).
CATEGORY_SHARE = {
    1: 0.0, 2: 0.0, 3: 0.0002, 4: 0.0001, 5: 0.0108, 6: 0.0107, 7: 0.0006, 8: 0.0013,
    9: 0.1022, 10: 0.0074, 11: 0.0011, 12: 0.0701, 13: 0.0007, 14: 0.0499, 15: 0.0009,
    16: 0.0177, 17: 0.0001, 18: 0.0018, 19: 0.0265, 20: 0.1732, 21: 0.1351, 22: 0.1331,
    23: 0.113, 24: 0.1226, 25: 0.0208,
}
_BELOW = {c: sum(CATEGORY_SHARE[k] for k in range(c + 1, 26)) for c in CATEGORY_SHARE}


def measure_shares(n: int = 20000, seed: int = 7) -> dict[int, float]:
    """Re-measure CATEGORY_SHARE (for maintainers; not used in play)."""
    rng = random.Random(seed)
    counts = dict.fromkeys(range(1, 26), 0)
    for _ in range(n):
        deck = list(DECK)
        rng.shuffle(deck)
        cards = [deck.pop() for _ in range(6)]
        for i in simple_draw(cards):
            cards[i] = deck.pop()
        counts[hands.evaluate(cards).category] += 1
    return {c: round(k / n, 4) for c, k in counts.items()}


def strength(value: hands.HandValue) -> float:
    """About the share of typical final hands ``value`` beats: the share of worse
    categories, plus its own category's share scaled by its first denomination."""
    value = hands.HandValue(value)
    cat = value.category
    top = value.denominations[0]
    return _BELOW[cat] + CATEGORY_SHARE[cat] * (top - 1.5) / 13


def warm() -> None:
    """Build the evaluator's table now rather than hand by hand."""
    hands.warm()


def unseen_cards(own: tuple[str, ...]) -> list[str]:
    """The deck minus the bot's own cards (Capstones counted)."""
    rest = list(DECK)
    for c in own:
        rest.remove(c)
    return rest


# ------------------------------------------------------------------ the draw
def draw_candidates(cards: tuple[str, ...]) -> list[tuple[int, ...]]:
    """Every discard of 0..4 cards that keeps the Capstones (0-based indices)."""
    free = [i for i, c in enumerate(cards) if c != CAPSTONE]
    return [d for k in range(5) for d in combinations(free, k)]


def plan_draw(cards: tuple[str, ...], opponents: int, rng: random.Random,
              deadline: float, max_samples: int = 400) -> tuple[tuple[int, ...], float]:
    """(best discard, its sampled win chance) by successive halving within the deadline."""
    unseen = unseen_cards(cards)
    cands = draw_candidates(cards)
    totals = {d: 0.0 for d in cands}
    counts = {d: 0 for d in cands}
    stand = hands.evaluate(cards)
    stand_score = strength(stand) ** max(1, opponents)
    per_round = 8
    while True:
        for d in cands:
            if not d:
                totals[d] += stand_score * per_round
                counts[d] += per_round
                continue
            kept = [c for i, c in enumerate(cards) if i not in d]
            for _ in range(per_round):
                value = hands.evaluate(kept + rng.sample(unseen, len(d)))
                totals[d] += strength(value) ** max(1, opponents)
                counts[d] += 1
            if time.perf_counter() > deadline:
                break
        ranked = sorted(cands, key=lambda d: totals[d] / max(1, counts[d]), reverse=True)
        if time.perf_counter() > deadline or len(ranked) == 1 or counts[ranked[0]] >= max_samples:
            best = ranked[0]
            return best, totals[best] / max(1, counts[best])
        cands = ranked[: max(1, (len(ranked) + 1) // 2)]
        per_round *= 2


# ------------------------------------------------------------------ choosing
def choose_action(state: State, seat: int, level: str = "normal", rng: random.Random | None = None,
                  budget_s: float = 1.0) -> Action:
    """The bot's action for ``seat``; respects ``budget_s`` (seconds) itself."""
    rng = rng or random.Random()
    actions = list(islice(legal_actions(state, seat), 4))  # the kinds, not every raise size
    if not actions:
        raise ValueError("the bot has nothing to do here")
    if actions[0].kind == "DEAL":
        return actions[0]
    share = LEVELS.get(level, LEVELS["normal"])
    deadline = time.perf_counter() + max(0.001, budget_s * share) * 0.9
    me = state.seats[seat]
    opponents = sum(1 for i, s in enumerate(state.seats) if i != seat and s.live)
    if state.phase == "draw":
        discard, _ = plan_draw(me.cards, opponents, rng, deadline)
        return Action("DRAW", discard=tuple(str(i + 1) for i in discard))
    if state.phase == "bet1":
        _, chance = plan_draw(me.cards, opponents, rng, deadline, max_samples=200)
    else:
        chance = strength(hands.evaluate(me.cards)) ** max(1, opponents)
    chance = min(1.0, max(0.0, chance + rng.uniform(-1, 1) * NOISE.get(level, 0.0)))
    return _bet(state, seat, actions, chance, level)


def _bet(state: State, seat: int, actions: list[Action], chance: float, level: str) -> Action:
    """Raise when ahead (bigger the further ahead), equal when the pot odds pay,
    pass when free, fold otherwise."""
    me = state.seats[seat]
    to_call = min(state.current_bet - me.bet, me.stack)
    pot = state.pot
    lo, hi = raise_bounds(state, seat)
    can_raise = any(a.kind == "RAISE" for a in actions) and lo <= hi
    ahead = 0.55 if level == "hard" else 0.6
    if state.last_raise:
        ahead += 0.12  # re-raising needs more
    if can_raise and chance > ahead:
        edge = min(1.0, (chance - ahead) / (1.0 - ahead))
        cap = hi if chance > 0.85 else max(lo, 2 * pot)
        amount = lo + int((min(hi, cap) - lo) * edge)
        return Action("RAISE", max(lo, min(hi, amount)))
    if to_call == 0:
        return Action("PASS")
    if chance * (pot + to_call) >= to_call:
        return Action("EQUAL")
    return Action("FOLD")
