"""Triptycha computer players: legality, the exact endgame, and a tiny bench."""

import importlib.util
import random
from pathlib import Path

import pytest

from games.triptycha.ai import _Pos, _exact_root, choose_action
from games.triptycha.rules import (Draw, Lay, Options, Rules, Take, apply, legal_actions,
                                   new_game, result, to_move)
from games.triptycha.tiles import random_deck


def new(seed, rules=Rules(random=True)):
    rng = random.Random(seed)
    return new_game(Options((random_deck(rng, 8, 1), random_deck(rng, 8, 101)), rules), rng)


@pytest.mark.parametrize("level", ["easy", "normal", "hard", "expert"])
@pytest.mark.parametrize("rules", [Rules(random=True), Rules(take=2),
                                   Rules(random=True, undercut=True, inversion=True, truth=True)])
def test_ai_plays_only_legal_actions_to_the_end(level, rules):
    rng = random.Random(3)
    s = new(7, rules)
    calls = 0
    while to_move(s):
        seat = to_move(s)[0]
        a = choose_action(s, seat, level, rng, budget_s=0.3)
        assert a in set(legal_actions(s, seat))
        s, _ = apply(s, seat, a, rng)
        calls += 1
        assert calls < 80, "FLIP/ROTATE steps must converge on a LAY"
    assert s.phase == "over"


def test_exact_search_finds_the_winning_last_lay():
    rng = random.Random(5)
    for seed in range(20):
        s = new(seed, Rules(random=True, truth=True))
        while s.laid < 8:
            seat = s.turn
            lays = [a for a in legal_actions(s, seat) if isinstance(a, Lay)]
            if not lays:
                s, _ = apply(s, seat, next(a for a in legal_actions(s, seat)
                                           if type(a).__name__ == "Flip"), rng)
                continue
            s, _ = apply(s, seat, rng.choice(lays), rng)
        pos = _Pos(s, 0, [])
        scores = dict((m, v) for m, v in _exact_root(pos, 0))
        best = max(scores.values())
        # play HARD's choice out and compare with the solved value
        while s.phase == "play":
            s, _ = apply(s, 0, choose_action(s, 0, "hard", rng), rng)
        c = s.counts()
        assert c[0] - c[1] == best


def test_ai_draws_and_takes():
    s = new(1, Rules(take=1))
    a = choose_action(s, 0, "hard", random.Random(0))
    assert isinstance(a, Draw)
    rng = random.Random(2)
    s = new(2, Rules(random=True, take=1))
    while s.phase == "play":
        s, _ = apply(s, s.turn, choose_action(s, s.turn, "easy", rng), rng)
    w = result(s).winner
    a = choose_action(s, w, "hard", rng)
    assert isinstance(a, Take)
    loser = s.hands[1 - w]
    assert loser[a.tile - 1].tile.sum == max(h.tile.sum for h in loser
                                             if h.tile.rarity == loser[a.tile - 1].tile.rarity)


def _bench():
    path = Path(__file__).resolve().parents[2] / "bench" / "triptycha_ai.py"
    spec = importlib.util.spec_from_file_location("triptycha_ai_bench", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_tiny_bench_runs():
    mod = _bench()
    wins, times = mod.match("hard", "normal", 2, 1, Rules(random=True), 0.3)
    assert 0 <= wins <= 2 and times["hard"]
    assert mod.main(["--games", "1", "--budget", "0.2"]) == 0


def test_normal_beats_the_plain_greedy_player():
    """NORMAL looks at the opponent's most damaging reply (issue 39, item 21); the plain
    greedy player (the bench's ``plain_greedy``, what NORMAL was) only counts the tiles
    it flips now."""
    bench = _bench()
    wins, pairs, _ = bench.match_pairs("normal", "greedy", 60, 1, Rules(random=True), 1.0)
    low, _high = bench.interval(pairs)
    assert wins >= 36 and low > 0.5, (wins, low)   # 60 % of 30 deals, both seats each
