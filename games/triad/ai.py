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
    half dropped after each (successive halving), until the budget is spent.
    This keeps the cards that make the best hand and chases runs, Perfect runs and
    Ups when the sampled draws say the chase pays.

Betting, "easy" and "normal"
    Before the draw the win chance is the best candidate's sampled value; after the
    draw it is strength ** N.  The bot raises when ahead (the further ahead, the
    bigger, up to twice the pot, or everything it may when far ahead), equals when
    the chance beats the pot odds, passes when it can and folds otherwise.  "easy"
    thinks briefly and misjudges by a random margin.

Betting, "hard": the cards and the table
    HARD deals the unseen cards out many times (``_sample_deals``): to each player
    still in six cards, and before the draw everyone's draw too (its own planned
    discard, a plain player's for the others); after the draw an opponent keeps what
    a plain player keeps of its six and gets as many new cards as it really drew,
    and a sample whose plain draw differs from that count weighs less.  This
    round's bets weigh the samples too, softly (``_bet_weights``: a raise over it
    leans to strong hands, a pass to weak ones, never enough to fold every medium
    hand to a player who always raises).  Its equity is the weighted share of the
    samples it wins.  Each action is then valued in cubits: a fold 0, a call its
    equity of the pot it would make less the price (the pot odds), a raise of each
    size (from the smallest to what the stacks of the players still in can answer)
    by who would answer it -- a sampled opponent answers when its hand's strength
    beats the pot odds it is offered -- and the equity against those hands.  The
    best one is played, mixed (``_mix``): sizes of about the same value are equally
    likely, a weak hand now and then bluffs, a strong one now and then only calls,
    so that one hand does not show a style a player could read and exploit.

Budgets
    ``budget_s`` is read as a number of hand evaluations (``evals_for``:
    ``EVALS_PER_SECOND`` a second, a fixed rate, times the level's share), never as
    time, so the same state, budget and rng give the same action whatever the load.

``warm()`` builds the evaluator's table (a second or two, once per process) so
that early decisions do not pay for filling it.
"""

from __future__ import annotations

import random
from itertools import combinations, islice

import attrs

from . import hands
from .cards import CAPSTONE, DECK
from .rules import Action, State, legal_actions, raise_bounds

LEVELS = {"easy": 0.15, "normal": 0.5, "hard": 1.0}  # share of the budget used
NOISE = {"easy": 0.15, "normal": 0.04, "hard": 0.0}
#: hand evaluations a second of budget: a fixed rate (about what one core does)
EVALS_PER_SECOND = 100_000
MIN_EVALS = 64  # whatever the budget
# HARD (see the module docstring)
MIN_DEALS, MAX_DEALS = 64, 1500  # sampled deals of the unseen cards for one bet
STAND_STRENGTH = 0.8  # a plain player stands on a hand this strong
DRAW_FIT = 0.35  # a sample's weight for each card its plain draw differs by
# A raise over HARD weighs a sample whose opponent's hand has strength s by
# RAISE_FLOOR + (1 - RAISE_FLOOR) * s ** k, k = 1 + RAISE_POWER * (the raise in pots,
# at most 1.5): the bigger the raise, the stronger the hands it leans to, never to
# nothing (a bluff).  A pass weighs by PASS_FLOOR + (1 - PASS_FLOOR) * (1 - s).
RAISE_FLOOR = 0.15
RAISE_POWER = 2.0
PASS_FLOOR = 0.5
RAISE_SIZES = (0.5, 1.0, 2.0, 4.0)  # raises tried, as shares of the pot
SIZE_SLACK = 0.1  # raises within this share of the pot of the best are as good
SLOW_PLAY = 0.1  # how often a raise is only a call (or a pass)
RISK = 0.25  # aversion to a gamble's spread (``_risk``)
BLUFF = 0.08  # how often a weak hand bluffs, when nothing or little is to pay
BLUFF_BELOW = 0.35  # a hand is weak below this equity


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


# ------------------------------------------------------------------ budgets
def evals_for(level: str, budget_s: float) -> int:
    """The hand evaluations ``level`` may spend on one decision with ``budget_s``:
    ``EVALS_PER_SECOND`` a second (a fixed rate, not a measurement) times its share."""
    return max(MIN_EVALS, int(budget_s * EVALS_PER_SECOND * LEVELS.get(level, LEVELS["normal"])))


# ------------------------------------------------------------------ the draw
def draw_candidates(cards: tuple[str, ...]) -> list[tuple[int, ...]]:
    """Every discard of 0..4 cards that keeps the Capstones (0-based indices)."""
    free = [i for i, c in enumerate(cards) if c != CAPSTONE]
    return [d for k in range(5) for d in combinations(free, k)]


def plan_draw(cards: tuple[str, ...], opponents: int, rng: random.Random,
              evals: int, max_samples: int = 400) -> tuple[tuple[int, ...], float]:
    """(best discard, its sampled win chance) by successive halving, spending at most
    about ``evals`` hand evaluations (a count: the same answer whatever the load)."""
    unseen = unseen_cards(cards)
    cands = draw_candidates(cards)
    totals = {d: 0.0 for d in cands}
    counts = {d: 0 for d in cands}
    stand = hands.evaluate(cards)
    stand_score = strength(stand) ** max(1, opponents)
    per_round = 8
    used = 0
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
            used += per_round
            if used >= evals:
                break
        ranked = sorted(cands, key=lambda d: totals[d] / max(1, counts[d]), reverse=True)
        if used >= evals or len(ranked) == 1 or counts[ranked[0]] >= max_samples:
            best = ranked[0]
            return best, totals[best] / max(1, counts[best])
        cands = ranked[: max(1, (len(ranked) + 1) // 2)]
        per_round *= 2


# ------------------------------------------------------------------ choosing
def choose_action(state: State, seat: int, level: str = "normal", rng: random.Random | None = None,
                  budget_s: float = 1.0) -> Action:
    """The bot's action for ``seat``.  ``budget_s`` is read as a number of hand
    evaluations (``evals_for``), not time: the same state, budget and rng give the same
    action on a busy machine or an idle one."""
    rng = rng or random.Random()
    actions = list(islice(legal_actions(state, seat), 4))  # the kinds, not every raise size
    if not actions:
        raise ValueError("the bot has nothing to do here")
    if actions[0].kind == "DEAL":
        return actions[0]
    evals = evals_for(level, budget_s)
    me = state.seats[seat]
    opponents = sum(1 for i, s in enumerate(state.seats) if i != seat and s.live)
    if state.phase == "draw":
        discard, _ = plan_draw(me.cards, opponents, rng, evals)
        return Action("DRAW", discard=tuple(str(i + 1) for i in discard))
    if level == "hard":
        return _hard_bet(state, seat, actions, rng, evals)
    if state.phase == "bet1":
        _, chance = plan_draw(me.cards, opponents, rng, evals, max_samples=200)
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


# ------------------------------------------------------------------ HARD
def _model_discard(cards: list[str], count: int) -> list[int]:
    """The ``count`` cards a player most likely threw from ``cards``: never a Capstone
    while another card is there, then the loosest (fewest of its denomination), the
    lowest first."""
    denoms = [0 if c == CAPSTONE else int(c[:-1]) for c in cards]
    mult = {d: denoms.count(d) for d in denoms}
    order = sorted(range(len(cards)), key=lambda i: (
        cards[i] == CAPSTONE, mult[denoms[i]], denoms[i]))
    return order[:count]


def _model_count(cards: list[str], value: hands.HandValue) -> int:
    """How many cards a plain player throws from ``cards``: none from a made hand
    (``STAND_STRENGTH``), else ``simple_draw``'s."""
    if strength(value) >= STAND_STRENGTH:
        return 0
    return len(simple_draw(cards))


@attrs.frozen
class _Deal:
    """One sampled deal of the unseen cards: my final hand's value and, for each
    opponent still in, their final hand's value, strength and prior weight (how well
    the sample fits the cards they drew)."""

    mine: int
    theirs: tuple[tuple[int, float, float], ...]


def _sample_deals(state: State, seat: int, rng: random.Random, evals: int,
                  my_discard: tuple[int, ...]) -> list[_Deal]:
    """Deals of the unseen cards to the opponents still in, as far as ``evals`` hand
    evaluations go.  Before the draw, everyone then draws: I throw ``my_discard``, each
    opponent what a plain player throws (``_model_discard``).  After it, an opponent's
    six cards are the ones it kept and as many new ones as it drew: the kept ones are
    what a plain player keeps of six sampled cards, and a sample whose plain draw
    differs from what the player drew weighs less (``DRAW_FIT`` for each card of
    difference)."""
    me = state.seats[seat]
    opps = [o for i, o in enumerate(state.seats) if i != seat and o.live]
    unseen = unseen_cards(me.cards)
    before = state.phase == "bet1"
    per = 3 if before else 2  # evaluations a sample costs, about
    n = max(MIN_DEALS, min(MAX_DEALS, evals // (per * max(1, len(opps)))))
    mine_fixed = None if before else int(hands.evaluate(me.cards))
    kept = [c for i, c in enumerate(me.cards) if i not in my_discard]
    out = []
    for _ in range(n):
        pool = list(unseen)
        rng.shuffle(pool)
        if before:
            mine = int(hands.evaluate(kept + [pool.pop() for _ in my_discard]))
        else:
            assert mine_fixed is not None
            mine = mine_fixed
        theirs = []
        for o in opps:
            cards = [pool.pop() for _ in range(6)]
            weight = 1.0
            if before:
                thrown = set(_model_discard(cards, len(simple_draw(cards))))
            else:
                drew = o.drew or 0
                fit = abs(_model_count(cards, hands.evaluate(cards)) - drew)
                weight = DRAW_FIT ** fit
                thrown = set(_model_discard(cards, drew))
            final = [c for i, c in enumerate(cards) if i not in thrown]
            final += [pool.pop() for _ in thrown]
            value = hands.evaluate(final)
            theirs.append((int(value), strength(value), weight))
        out.append(_Deal(mine, tuple(theirs)))
    return out


def _bet_weights(state: State, seat: int, deals: list[_Deal]) -> list[float]:
    """Each deal's weight: how well it fits the draws (``_sample_deals``) and this
    round's bets.  An opponent who raised over me holds a stronger hand more often,
    and one who passed a weaker one, but never to nothing (``RAISE_FLOOR``,
    ``PASS_FLOOR``): a bluff and a slow play are possible, and a player who always
    raises is not read as always strong."""
    me = state.seats[seat]
    opps = [o for i, o in enumerate(state.seats) if i != seat and o.live]
    lean = []  # per opponent: (floor, power; power < 0: a pass)
    for o in opps:
        if o.bet > me.bet:  # raised over me this round: the bigger, the stronger
            before = max(1, state.pot - (o.bet - me.bet))
            lean.append((RAISE_FLOOR, 1.0 + RAISE_POWER * min(1.5, (o.bet - me.bet) / before)))
        elif o.acted and o.bet == me.bet == 0:  # passed
            lean.append((PASS_FLOOR, -1.0))
        else:
            lean.append((1.0, 0.0))
    out = []
    for deal in deals:
        w = 1.0
        for (floor, k), (_, s, fit) in zip(lean, deal.theirs):
            like = 1.0 if floor >= 1.0 else floor + (1.0 - floor) * (
                s ** k if k > 0 else 1.0 - s)
            w *= fit * like
        out.append(w)
    return out


def _equity(deals: list[_Deal], weights: list[float], keep=None) -> tuple[float, float]:
    """(my weighted chance to win the showdown, the weight of the deals counted), over
    the deals ``keep`` accepts (all by default); a tie counts half."""
    total = won = 0.0
    for deal, w in zip(deals, weights):
        if keep is not None and not keep(deal):
            continue
        share = 1.0
        for value, _, _ in deal.theirs:
            share *= 1.0 if deal.mine > value else 0.5 if deal.mine == value else 0.0
        won += w * share
        total += w
    return (won / total if total else 0.0), total


def _hard_bet(state: State, seat: int, actions: list[Action], rng: random.Random,
              evals: int) -> Action:
    """HARD's bet: the action of the best expected value, by the sampled deals (see
    the module docstring), mixed so that one hand does not tell its style."""
    me = state.seats[seat]
    opps = [o for i, o in enumerate(state.seats) if i != seat and o.live]
    my_discard: tuple[int, ...] = ()
    if state.phase == "bet1":
        my_discard, _ = plan_draw(me.cards, len(opps), rng, evals // 2, max_samples=200)
        evals -= evals // 2
    deals = _sample_deals(state, seat, rng, evals, my_discard)
    weights = _bet_weights(state, seat, deals)
    equity, _ = _equity(deals, weights)
    pot = state.pot
    to_call = min(state.current_bet - me.bet, me.stack)
    options: dict[tuple[str, int], float] = {}
    if to_call:
        options[("FOLD", 0)] = 0.0
        options[("EQUAL", 0)] = equity * (pot + to_call) - to_call - _risk(
            me, equity * (1.0 - equity) * (pot + to_call) ** 2)
    else:
        options[("PASS", 0)] = equity * pot
    lo, hi = raise_bounds(state, seat)
    if any(a.kind == "RAISE" for a in actions) and lo <= hi:
        # no raise beyond what someone still in can answer
        cover = max(o.stack + o.bet for o in opps if o.status == "in") - state.current_bet
        top = max(lo, min(hi, cover))
        sizes = {lo, top} | {min(top, max(lo, int(pot * f))) for f in RAISE_SIZES}
        for size in sorted(sizes):
            options[("RAISE", size)] = _raise_value(state, me, opps, deals, weights,
                                                    to_call, size)
    kind, amount = _mix(options, equity, to_call, rng, pot)
    return Action(kind, amount) if kind == "RAISE" else Action(kind)


def _raise_value(state: State, me, opps, deals, weights, to_call: int, size: int) -> float:
    """Expected value of raising ``size``: everyone folds, or an opponent answers with
    the hands a player answers with (a chance to win, its strength, at least the pot
    odds it is offered) and the showdown decides."""
    pot_after = state.pot + to_call + size
    need = [min(o.stack, state.current_bet + size - o.bet) for o in opps]
    odds = [n / (pot_after + n) if n > 0 else 0.0 for n in need]

    def answered(deal: _Deal) -> bool:
        return any(s >= q for (_, s, _), q in zip(deal.theirs, odds))

    equity, called = _equity(deals, weights, answered)
    total = sum(weights)
    p_call = called / total if total else 1.0
    paid = to_call + size
    extra = sum(need)  # what the answers bring, about (all of them when all answer)
    value = (1.0 - p_call) * state.pot + p_call * (equity * (pot_after + extra) - paid)
    return value - _risk(me, p_call * equity * (1.0 - equity) * (pot_after + extra) ** 2)


def _risk(me, variance: float) -> float:
    """What a gamble's spread costs (``RISK``): a coin flip for everything is worth less
    than a sure small edge, so the results (and a bench's intervals) spread less."""
    return RISK * variance / (2.0 * max(1, me.stack + me.committed))


def _mix(options: dict[tuple[str, int], float], equity: float, to_call: int,
         rng: random.Random, pot: int) -> tuple[str, int]:
    """The best option, mostly.  Raises within ``SIZE_SLACK`` of a pot of the best raise
    are equally likely (the size does not tell the hand); with a hand too weak to
    go on, now and then a bluff (``BLUFF``), and with a strong one now and then a pass
    or a call instead of a raise (``SLOW_PLAY``)."""
    best = max(options, key=lambda k: options[k])
    raises = sorted(k for k in options if k[0] == "RAISE")
    if best[0] == "RAISE":
        top = options[best]
        close = [k for k in raises if options[k] >= top - SIZE_SLACK * max(1, pot)]
        if rng.random() < SLOW_PLAY:
            return ("EQUAL", 0) if to_call else ("PASS", 0)
        return rng.choice(close)
    if raises and equity < BLUFF_BELOW and to_call * 4 <= pot and rng.random() < BLUFF:
        target = min(raises, key=lambda k: abs(k[1] - pot))  # about the pot
        return target
    return best
