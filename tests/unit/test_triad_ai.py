"""Triad bots: legal, within budget, sensible draws; tiny versions of the benchmarks."""

from __future__ import annotations

import importlib.util
import pathlib
import random
import time

import pytest

from games.triad import ai, hands, rules

BENCH = pathlib.Path(__file__).resolve().parents[2] / "bench"


def load_bench(name):
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_bot_plays_legal_actions_within_budget(level):
    ai.warm()
    rng = random.Random(2)
    state = rules.new_game({"opening": 1, "limit": 8, "stacks": [30, 30, 30]}, rng)
    for _ in range(60):
        movers = rules.to_move(state)
        if not movers:
            break
        seat = movers[0]
        t0 = time.perf_counter()
        action = ai.choose_action(state, seat, level, rng, budget_s=0.02)
        assert time.perf_counter() - t0 < 0.5
        legal = list(rules.legal_actions(state, seat))
        if action.kind == "DRAW":
            assert len(action.discard) <= 4
        else:
            assert action in legal
        state, _ = rules.apply(state, seat, action, rng)


def test_draw_keeps_a_made_hand_and_the_capstones():
    ai.warm()
    rng = random.Random(1)
    cards = ("14B", "14P", "14G", "14R", "C", "2G")  # Five Up: nothing to gain
    discard, chance = ai.plan_draw(cards, 1, rng, time.perf_counter() + 0.05)
    assert discard in ((), (5,)) and chance > 0.9
    cards = ("C", "9G", "2R", "5P", "12B", "7R")
    discard, _ = ai.plan_draw(cards, 1, rng, time.perf_counter() + 0.05)
    assert 0 not in discard  # never throws a Capstone


def test_candidates_and_strength():
    assert len(ai.draw_candidates(("C", "2R", "3R", "4R", "5R", "6R"))) == 1 + 5 + 10 + 10 + 5
    low = ai.strength(hands.evaluate("2R 4G 6P 8B 10R 13G".split()))
    high = ai.strength(hands.evaluate("14B 14P 14G 14R C 2G".split()))
    assert 0 <= low < 0.1 and high > 0.95


def test_bot_folds_junk_to_a_big_raise_and_raises_a_monster():
    ai.warm()
    rng = random.Random(3)
    state = rules.new_game({"opening": 1, "stacks": [100, 100]}, rng)
    state, _ = rules.apply(state, 0, rules.Action("DEAL"), rng)
    state, _ = rules.apply(state, 1, rules.Action("PASS"), rng)
    state, _ = rules.apply(state, 0, rules.Action("PASS"), rng)
    state, _ = rules.apply(state, 1, rules.Action("DRAW"), rng)
    state, _ = rules.apply(state, 0, rules.Action("DRAW"), rng)
    import attrs
    seats = list(state.seats)
    seats[1] = attrs.evolve(seats[1], cards=("2R", "4G", "6P", "9B", "11R", "13G"))
    seats[0] = attrs.evolve(seats[0], cards=("14B", "14P", "14G", "14R", "C", "2G"))
    state = attrs.evolve(state, seats=tuple(seats))
    assert ai.choose_action(state, 1, "hard", rng, budget_s=0.01).kind == "PASS"
    state, _ = rules.apply(state, 1, rules.Action("PASS"), rng)
    big = ai.choose_action(state, 0, "hard", rng, budget_s=0.01)
    assert big.kind == "RAISE" and big.amount > 2
    state, _ = rules.apply(state, 0, rules.Action("RAISE", 60), rng)
    assert ai.choose_action(state, 1, "hard", rng, budget_s=0.01).kind == "FOLD"


def test_bench_bots_tiny():
    bench = load_bench("triad_bots")
    for seed in range(3):
        net, _ = bench.play_hand(seed, "easy", 0.005, None)
        assert isinstance(net, int)


def test_bench_eval_tiny(capsys):
    load_bench("triad_eval").main(["500"])
    out = capsys.readouterr().out
    assert "hands/s" in out and "ratio" in out
