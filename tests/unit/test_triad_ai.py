"""Triad bots: legal, within budget, sensible draws; tiny versions of the benchmarks."""

from __future__ import annotations

import importlib.util
import pathlib
import random

import pytest

from games.triad import ai, hands, rules

BENCH = pathlib.Path(__file__).resolve().parents[2] / "bench"


def load_bench(name):
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_bot_plays_legal_actions_within_budget(level, monkeypatch):
    """Legal actions, and the budget is a count of hand evaluations (never time)."""
    ai.warm()
    rng = random.Random(2)
    state = rules.new_game({"opening": 1, "limit": 8, "stacks": [30, 30, 30]}, rng)
    calls = [0]
    evaluate = hands.evaluate

    def counted(cards):
        calls[0] += 1
        return evaluate(cards)

    monkeypatch.setattr(hands, "evaluate", counted)
    for _ in range(60):
        movers = rules.to_move(state)
        if not movers:
            break
        seat = movers[0]
        calls[0] = 0
        action = ai.choose_action(state, seat, level, rng, budget_s=0.02)
        assert calls[0] <= max(2 * ai.evals_for(level, 0.02), 1_200)
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
    discard, chance = ai.plan_draw(cards, 1, rng, 5_000)
    assert discard in ((), (5,)) and chance > 0.9
    cards = ("C", "9G", "2R", "5P", "12B", "7R")
    discard, _ = ai.plan_draw(cards, 1, rng, 5_000)
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


def test_bench_bots_tiny(capsys):
    bench = load_bench("triad_bots")
    for seed in range(3):
        for theirs in ("normal", "caller", "raiser", "potraiser"):
            a, b, won = bench.play_deal(seed, "hard", theirs, 0.002, None)
            assert isinstance(a, int) and isinstance(b, int) and 0 <= won <= 2
    bench.main(["4", "--budget", "0.002", "--against", "caller,raiser"])
    out = capsys.readouterr().out
    assert "vs caller" in out and "vs raiser" in out and "net cubits a hand" in out


def test_hard_plays_the_table():
    """HARD's bet is the best expected value by sampled deals: it raises a monster for
    value, folds junk to a big raise, and its raises are sized by what an opponent would
    answer (not always the same)."""
    ai.warm()
    rng = random.Random(3)
    state = rules.new_game({"opening": 1, "stacks": [100, 100]}, rng)
    state, _ = rules.apply(state, 0, rules.Action("DEAL"), rng)
    for seat in (1, 0):
        state, _ = rules.apply(state, seat, rules.Action("PASS"), rng)
    for seat in (1, 0):
        state, _ = rules.apply(state, seat, rules.Action("DRAW"), rng)
    import attrs
    seats = list(state.seats)
    seats[1] = attrs.evolve(seats[1], cards=("2R", "4G", "6P", "9B", "11R", "13G"), drew=4)
    seats[0] = attrs.evolve(seats[0], cards=("14B", "14P", "14G", "14R", "C", "2G"), drew=0)
    state = attrs.evolve(state, seats=tuple(seats))
    sizes = set()
    for k in range(20):
        action = ai.choose_action(state, 1, "hard", random.Random(k), budget_s=0.02)
        assert action.kind in ("PASS", "RAISE")  # a pass, or now and then a bluff
    state, _ = rules.apply(state, 1, rules.Action("PASS"), rng)
    for k in range(20):
        action = ai.choose_action(state, 0, "hard", random.Random(k), budget_s=0.02)
        if action.kind == "RAISE":
            sizes.add(action.amount)
    assert sizes and max(sizes) > 2
    state, _ = rules.apply(state, 0, rules.Action("RAISE", 60), rng)
    assert ai.choose_action(state, 1, "hard", rng, budget_s=0.02).kind == "FOLD"


def test_hard_samples_fit_the_draws():
    """After the draw an opponent who stood pat is more often holding a made hand than
    one who drew four."""
    ai.warm()
    rng = random.Random(4)
    state = rules.new_game({"opening": 1, "stacks": [100, 100]}, rng)
    state, _ = rules.apply(state, 0, rules.Action("DEAL"), rng)
    for seat in (1, 0):
        state, _ = rules.apply(state, seat, rules.Action("PASS"), rng)
    for seat in (1, 0):
        state, _ = rules.apply(state, seat, rules.Action("DRAW"), rng)
    import attrs

    def mean_strength(drew: int) -> float:
        seats = list(state.seats)
        seats[1] = attrs.evolve(seats[1], drew=drew)
        s = attrs.evolve(state, seats=tuple(seats))
        deals = ai._sample_deals(s, 0, random.Random(1), 3_000, ())
        weights = ai._bet_weights(s, 0, deals)
        return sum(w * d.theirs[0][1] for d, w in zip(deals, weights)) / sum(weights)

    assert mean_strength(0) > mean_strength(4) + 0.1


def test_bench_eval_tiny(capsys):
    load_bench("triad_eval").main(["500"])
    out = capsys.readouterr().out
    assert "hands/s" in out and "ratio" in out
