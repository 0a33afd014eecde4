"""Triad Dice computer players: legal choices, sensible HARD play, a tiny bench."""

import random

import pytest

from games.dice import ai, rules
from games.dice.notation import parse_action, parse_board


def make(picture, turn=0, removed=(0, 0)):
    cells = parse_board(picture)
    return rules.State(cells=cells, turn=turn, starter=0, removed=removed,
                       history=(rules.position_key(cells, turn),))


@pytest.mark.parametrize("level", ai.LEVELS)
def test_every_choice_is_legal_through_a_whole_game(level):
    rng = random.Random(5)
    state = rules.new_game({}, rng)
    while state.result is None:
        seat = state.turn
        action = ai.choose_action(state, seat, level, random.Random(state.turns), budget_s=0.02)
        assert action in set(rules.legal_actions(state, seat))
        state, _ = rules.apply(state, seat, action, rng)


def test_gen_moves_matches_legal_actions():
    rng = random.Random(8)
    for _ in range(5):
        state = rules.new_game({}, rng)
        while state.result is None and not state.pending:
            moves = ai.gen_moves(list(state.cells), state.turn)
            assert {ai.to_action(m) for m in moves} == set(rules.legal_actions(state, state.turn))
            for m in moves:  # the removal choices are those the engine offers
                after, _ = rules.apply(state, state.turn, ai.to_action(m), rng)
                if m[4] >= 0 and after.pending:
                    assert m[4] in after.pending
            state, _ = rules.apply(state, state.turn, rng.choice(list(
                rules.legal_actions(state, state.turn))), rng)


def test_stalemate_moves_are_generated():
    state = make("""
     .   .   .   .   .   .
     .   .   .   .   .   .
     .   .   .   .   .   .
    [3]  .   .   .   .   .
     .   .  [1] [1] [1] [3]
    [3]  .  (1) (2) (1) (1)
    """, removed=(2, 0))
    moves = ai.gen_moves(list(state.cells), 0)
    assert {ai.to_action(m) for m in moves} == set(rules.legal_actions(state, 0))
    # c1 NW makes the third Triad: HARD and NORMAL both take the win
    for level in ("normal", "hard"):
        assert ai.choose_action(state, 0, level, random.Random(0), 0.2) == parse_action("MOVE c1 NW")


WIN_IN_ONE = """
 .   .   .   .   .   .
 .   .   .   .  [1]  .
 .   .   .   .   .   .
 .  [2] [2]  .   .   .
 .   .   .   .   .  (2)
(3)  .   .   .   .  [1]
"""


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_takes_the_winning_triad(level):
    state = make(WIN_IN_ONE, removed=(2, 2))
    action = ai.choose_action(state, 0, level, random.Random(1), budget_s=0.2)
    after, _ = rules.apply(state, 0, action, random.Random(0))
    assert after.result is not None and after.result.winner == 0


def test_hard_search_is_deterministic_at_a_fixed_depth():
    rng = random.Random(2)
    state = rules.new_game({}, rng)
    for _ in range(6):
        state, _ = rules.apply(state, state.turn, rng.choice(list(
            rules.legal_actions(state, state.turn))), rng)
    if state.result is None:
        a = ai.search(state, state.turn, random.Random(9), budget_s=60, max_depth=2)
        b = ai.search(state, state.turn, random.Random(9), budget_s=60, max_depth=2)
        assert (a.action, a.score, a.nodes, a.depth) == (b.action, b.score, b.nodes, b.depth)
        assert a.depth == 2 and a.nodes > 0


def test_hard_respects_its_budget_roughly():
    state = rules.new_game({}, random.Random(4))
    r = ai.search(state, state.turn, random.Random(0), budget_s=0.05)
    assert r.depth >= 1 and r.action in set(rules.legal_actions(state, state.turn))


def test_pending_removal_is_chosen():
    state = make("""
     .   .   .   .   .   .
     .   .  (2)  .   .   .
     .   .  [2]  .   .   .
     .  (2)  .  [2]  .   .
     .   .   .   .   .   .
     .   .  (3)  .   .   .
    """)
    state, _ = rules.apply(state, 0, parse_action("MOVE c1 2 N"), random.Random(0))
    assert state.pending
    for level in ai.LEVELS:
        assert ai.choose_action(state, 0, level, random.Random(0), 0.05) in {
            rules.Remove(c) for c in state.pending}


def test_bad_level_and_wrong_seat():
    state = rules.new_game({"starter": 0}, random.Random(1))
    with pytest.raises(ValueError):
        ai.choose_action(state, 0, "grandmaster", random.Random(0))
    with pytest.raises(ValueError):
        ai.choose_action(state, 1, "easy", random.Random(0))


def test_tiny_bench_runs(capsys):
    import importlib.util
    import pathlib
    path = pathlib.Path(__file__).resolve().parents[2] / "bench" / "dice_ai.py"
    spec = importlib.util.spec_from_file_location("dice_ai_bench", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    bench.main(["--games", "2", "--budget", "0.02"])
    out = capsys.readouterr().out
    assert "HARD vs NORMAL: 2 games" in out and "NORMAL vs EASY: 2 games" in out
    assert "nodes/s" in out
