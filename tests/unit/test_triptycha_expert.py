"""Triptycha's EXPERT level: exact endgame values (checked against a brute force through
the rules themselves), every possible hidden hand, and the same lay for the same position
and budget."""

import itertools
import math
import random

import attrs
import pytest

from games.triptycha import ai
from games.triptycha.ai import _Budget, _opponent_views, _Pos, choose_action, exact_values
from games.triptycha.board import UP
from games.triptycha.rules import Flip, Lay, Options, Rules, apply, legal_actions, new_game
from games.triptycha.tiles import random_deck


def position(seed, rules, laid, size=10):
    """A game of ``rules`` played at random until ``laid`` niches are filled."""
    rng = random.Random(seed)
    s = new_game(Options((random_deck(rng, size, 1), random_deck(rng, size, 101)), rules), rng)
    while s.laid < laid:
        acts = list(legal_actions(s, s.turn))
        lays = [a for a in acts if isinstance(a, Lay)]
        s, _ = apply(s, s.turn, rng.choice(lays or [a for a in acts if isinstance(a, Flip)]),
                     rng)
    return s


def lay(state, k, niche, turn):
    """``state`` after the mover lays hand tile ``k`` in ``niche`` facing ``turn``."""
    seat = state.turn
    hand = list(state.hands[seat])
    hand[k - 1] = attrs.evolve(hand[k - 1], up=UP[niche - 1], turn=turn)
    hands = tuple(tuple(hand) if s == seat else state.hands[s] for s in (0, 1))
    state = attrs.evolve(state, hands=hands)
    return apply(state, seat, Lay(k, niche), random.Random(0))[0]


def brute(state, me):
    """The final margin for ``me`` with best play to the end: every unlaid tile, niche
    and facing, through ``rules.apply`` (no search code of the AI's)."""
    if state.phase != "play":
        c = state.counts()
        return c[me] - c[1 - me]
    seat = state.turn
    values = [brute(lay(state, k, i + 1, turn), me)
              for k, held in enumerate(state.hands[seat], 1) if held.niche is None
              for i in range(9) if state.control[i] is None
              for turn in range(3)]
    return max(values) if seat == me else min(values)


CASES = [  # (seed, rules, niches laid)
    (1, Rules(random=True, truth=True), 6),
    (2, Rules(random=True, truth=True), 7),
    (3, Rules(random=True, truth=True, undercut=True), 6),
    (4, Rules(random=True, truth=True, inversion=True), 6),
    (5, Rules(random=True, truth=True, inversion=True, undercut=True), 6),
    (6, Rules(random=True, truth=True), 5),
]


@pytest.mark.parametrize("seed, rules, laid", CASES)
def test_exact_values_are_the_brute_force_values_of_every_lay(seed, rules, laid):
    s = position(seed, rules, laid)
    me = s.turn
    pos = _Pos(s, me, [h.tile for h in s.hands[1 - me] if h.niche is None])
    values = exact_values(pos, me)
    assert values
    for (t, i, turn, _), v in values:
        k = next(k for k, h in enumerate(s.hands[me], 1)
                 if h.niche is None and h.tile is pos.tiles[t])
        assert v == brute(lay(s, k, i + 1, turn), me), (t, i, turn)
    # and the won/lost window gives the sign only, rightly
    signs = exact_values(_Pos(s, me, pos.tiles[len(pos.hands[me]):]), me, window=(-1, 1))
    assert [v > 0 for _, v in signs] == [v > 0 for _, v in values]


@pytest.mark.parametrize("seed, rules, laid", CASES)
def test_expert_lays_a_best_lay_when_it_sees_everything(seed, rules, laid):
    s = position(seed, rules, laid)
    me = s.turn
    best = brute(s, me)
    rng = random.Random(0)
    while s.turn == me and s.phase == "play":
        s, _ = apply(s, me, choose_action(s, me, "expert", rng, 1.0), rng)
    assert brute(s, me) == best


def test_every_possible_hidden_hand_is_searched_when_few():
    s = position(7, Rules(random=True), 6)
    me = s.turn
    hidden = sum(h.niche is None for h in s.hands[1 - me])
    views = _opponent_views(s, me, 3, every=100)
    laid = {h.tile.id for hand in s.hands for h in hand if h.niche is not None}
    pool = [t for t in s.decks[1 - me] if t.id not in laid]
    assert len(views) == math.comb(len(pool), hidden)
    assert {frozenset(t.id for t in v) for v in views} == {
        frozenset(t.id for t in c) for c in itertools.combinations(pool, hidden)}
    assert len(_opponent_views(s, me, 3, every=2)) == 3  # too many: a sample


@pytest.mark.parametrize("laid, budget_s", [(4, 0.05), (4, 0.3), (2, 0.3), (6, 0.02)])
def test_the_same_position_and_budget_give_the_same_lay(laid, budget_s):
    s = position(8, Rules(random=True), laid)
    picks = []
    for _ in range(2):
        ai._scored.clear()  # search again, not the scores kept for FLIP/ROTATE
        picks.append(choose_action(s, s.turn, "expert", random.Random(), budget_s))
    assert picks[0] == picks[1]
    assert picks[0] in set(legal_actions(s, s.turn))


def test_a_budget_is_nodes_and_a_spent_one_still_gives_scores():
    s = position(9, Rules(random=True), 4)
    budget = _Budget(2_000)
    scored = ai._expert(s, s.turn, budget)
    assert scored and budget.left < 0
    assert budget.count <= 2_000 + 2  # the node refused, and the tie-break's first try
