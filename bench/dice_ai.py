"""Triad Dice computer players: match results and the searching levels' speed.

    .venv/bin/python bench/dice_ai.py                      # 200 games a match, 1 s a move
    .venv/bin/python bench/dice_ai.py --games 40 --budget 0.2
    .venv/bin/python bench/dice_ai.py --match hard-normal  # one match only
    .venv/bin/python bench/dice_ai.py --match expert-hard --games 40

Each match plays seeded games (game i uses seed ``--seed + i``); the first named level
always sits in seat 0 and the starting player alternates game by game.  Prints wins,
losses and draws per match, the first level's score (a draw is half a point) with a 95 %
interval (normal approximation over the games), then for HARD and EXPERT their nodes per
second, mean/max think time and the depths reached.  ``--budget`` is the server's budget
a move (HARD's; EXPERT searches on ``ai.EXPERT_FACTOR`` times it).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from scores import interval  # noqa: E402  (bench/scores.py)
from games.dice import ai, rules  # noqa: E402

#: the node budget of a searching level, as a multiple of ``--budget`` (its ``choose_action``)
SEARCH_FACTOR = {"hard": 1, "expert": ai.EXPERT_FACTOR}
MATCHES = ("expert-hard", "hard-normal", "normal-easy")


class Stats:
    def __init__(self) -> None:
        self.nodes = 0
        self.search_time = 0.0
        self.moves = 0
        self.max_time = 0.0
        self.depths: list[int] = []

    def add(self, result: ai.SearchResult) -> None:
        self.nodes += result.nodes
        self.search_time += result.elapsed
        self.moves += 1
        self.max_time = max(self.max_time, result.elapsed)
        self.depths.append(result.depth)


def play_game(levels: tuple[str, str], seed: int, starter: int, budget: float,
              stats: dict[str, Stats]) -> tuple[int | None, int]:
    rng = random.Random(seed)
    state = rules.new_game({"starter": starter}, rng)
    ai_rngs = (random.Random(seed * 2 + 1), random.Random(seed * 2 + 2))
    while state.result is None:
        seat = state.turn
        level = levels[seat]
        if level in SEARCH_FACTOR:  # what choose_action plays, with the search's figures
            result = ai.search(state, seat, ai_rngs[seat], budget * SEARCH_FACTOR[level])
            stats.setdefault(level, Stats()).add(result)
            action = result.action
        else:
            action = ai.choose_action(state, seat, level, ai_rngs[seat], budget)
        state, _ = rules.apply(state, seat, action, rng)
    return state.result.winner, state.turns


def run_match(levels: tuple[str, str], games: int, seed: int, budget: float,
              stats: dict[str, Stats], progress: bool) -> None:
    wins = [0, 0]
    draws = 0
    turns = 0
    scores: list[float] = []
    start = time.perf_counter()
    for i in range(games):
        winner, n = play_game(levels, seed + i, i % 2, budget, stats)
        turns += n
        if winner is None:
            draws += 1
        else:
            wins[winner] += 1
        scores.append(0.5 if winner is None else float(winner == 0))
        if progress and (i + 1) % 10 == 0:
            print(f"  ... {i + 1}/{games}: {levels[0]} {wins[0]}, {levels[1]} {wins[1]},"
                  f" draws {draws}", flush=True)
    a, b = levels
    low, high = interval(scores)
    print(f"{a.upper()} vs {b.upper()}: {games} games, {a.upper()} won {wins[0]}"
          f" ({100 * wins[0] / games:.1f}%), {b.upper()} won {wins[1]}"
          f" ({100 * wins[1] / games:.1f}%), draws {draws}; {a.upper()} scored"
          f" {100 * sum(scores) / games:.1f}% (95 % interval {100 * low:.1f}-{100 * high:.1f}%);"
          f" mean {turns / games:.1f} turns; {time.perf_counter() - start:.0f} s", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--budget", type=float, default=1.0,
                        help="the server's seconds a move (HARD's; EXPERT gets more)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--match", choices=("all", "both") + MATCHES, default="both",
                        help="one match, both of the weaker ones (the default), or all")
    parser.add_argument("--progress", action="store_true")
    args = parser.parse_args(argv)
    print(f"Triad Dice AI bench: {args.games} games a match, HARD budget {args.budget} s,"
          f" seeds {args.seed}..{args.seed + args.games - 1}", flush=True)
    stats: dict[str, Stats] = {}
    chosen = {"all": MATCHES, "both": MATCHES[1:]}.get(args.match, (args.match,))
    for match in chosen:
        a, b = match.split("-")
        run_match((a, b), args.games, args.seed, args.budget, stats, args.progress)
    for level, st in stats.items():
        depths = sorted(st.depths)
        print(f"{level.upper()}: {st.moves} moves, {st.nodes} nodes,"
              f" {st.nodes / max(st.search_time, 1e-9):.0f} nodes/s,"
              f" think time mean {st.search_time / st.moves:.3f} s"
              f" max {st.max_time:.3f} s, median depth {depths[len(depths) // 2]}"
              f" (max {depths[-1]})", flush=True)


if __name__ == "__main__":
    main()
