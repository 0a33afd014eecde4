"""Triptycha properties over random games (hypothesis)."""

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.triptycha.notation import format_action, parse_action, state_from_json, state_to_json
from games.triptycha.rules import (Draw, Flip, Lay, Options, Rules, apply, legal_actions,
                                   new_game, outcome, to_move, transfers)
from games.triptycha.render import render, view_for
from games.triptycha.tiles import random_deck

rules_st = st.builds(
    Rules, truth=st.booleans(), random=st.booleans(), inversion=st.booleans(),
    undercut=st.booleans(), plunder=st.booleans(), take=st.integers(0, 5))


def roundtrip(s):
    return state_from_json(json.loads(json.dumps(state_to_json(s))))


def check_invariants(s):
    assert roundtrip(s) == s
    assert sum(s.counts()) == s.laid
    placed = sum(h.niche is not None for hand in s.hands for h in hand)
    assert placed == s.laid
    view = view_for(s, 0)
    json.dumps(view)


def run_game(seed, rules, every_action=False):
    rng = random.Random(seed)
    decks = (random_deck(rng, 7, 1), random_deck(rng, 8, 101))
    s = new_game(Options(decks, rules), rng)
    lays = 0
    steps = 0
    while to_move(s):
        steps += 1
        assert steps < 200
        check_invariants(s)
        seat = rng.choice(to_move(s))
        acts = list(legal_actions(s, seat))
        assert acts
        if every_action:
            for a in acts:
                new, _ = apply(s, seat, a, random.Random(0))
                assert parse_action(format_action(a)) == a
        pref = [a for a in acts if isinstance(a, (Lay, Draw))]
        if not pref and s.phase == "play":
            pref = [a for a in acts if isinstance(a, Flip)]
        a = rng.choice(pref or acts)
        s2, _ = apply(s, seat, a, rng)
        # a save/restore in the middle changes nothing
        s3, _ = apply(roundtrip(s), seat, a, random.Random(rng.random()))
        assert s3 == s2
        s = s2
        lays += isinstance(a, Lay)
    check_invariants(s)
    return s, lays


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), rules_st)
def test_board_fills_in_exactly_nine_lays(seed, rules):
    s, lays = run_game(seed, rules)
    assert s.phase == "over" and lays == 9 and s.laid == 9
    out = outcome(s)
    assert out is not None and sum(out.scores) == 9
    for tid, frm, to in transfers(s):
        assert frm != to
    render(view_for(s, 0), color=False)


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 10**6), rules_st)
def test_every_legal_action_applies(seed, rules):
    run_game(seed, rules, every_action=True)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10**6), rules_st, st.integers(60, 120), st.booleans())
def test_render_fits_width_at_every_step(seed, rules, width, color):
    from games.triptycha.render import _visible_len
    rng = random.Random(seed)
    decks = (random_deck(rng, 7, 1), random_deck(rng, 8, 101))
    s = new_game(Options(decks, rules), rng)
    while to_move(s):
        for seat in (0, 1, None):
            text = render(view_for(s, seat), width=width, color=color, names=("Ann", "Abe"))
            assert all(_visible_len(line) <= width for line in text.split("\n"))
            if not color:
                assert "\x1b" not in text
        seat = rng.choice(to_move(s))
        acts = list(legal_actions(s, seat))
        pref = [a for a in acts if isinstance(a, (Lay, Draw))] or acts
        s, _ = apply(s, seat, rng.choice(pref), rng)
