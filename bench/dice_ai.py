"""Triad Dice computer players: match results and HARD's search speed.

    .venv/bin/python bench/dice_ai.py                      # 200 games a match, 1 s a move
    .venv/bin/python bench/dice_ai.py --games 40 --budget 0.2
    .venv/bin/python bench/dice_ai.py --match hard-normal  # one match only

Each match plays seeded games (game i uses seed ``--seed + i``); the first named level
always sits in seat 0 and the starting player alternates game by game.  Prints wins,
losses and draws per match, then HARD's nodes per second and mean/max think time.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.dice import ai, rules  # noqa: E402


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
              stats: Stats) -> tuple[int | None, int]:
    rng = random.Random(seed)
    state = rules.new_game({"starter": starter}, rng)
    ai_rngs = (random.Random(seed * 2 + 1), random.Random(seed * 2 + 2))
    while state.result is None:
        seat = state.turn
        level = levels[seat]
        if level == "hard":
            result = ai.search(state, seat, ai_rngs[seat], budget)
            stats.add(result)
            action = result.action
        else:
            action = ai.choose_action(state, seat, level, ai_rngs[seat], budget)
        state, _ = rules.apply(state, seat, action, rng)
    return state.result.winner, state.turns


def run_match(levels: tuple[str, str], games: int, seed: int, budget: float, stats: Stats,
              progress: bool) -> None:
    wins = [0, 0]
    draws = 0
    turns = 0
    start = time.perf_counter()
    for i in range(games):
        winner, n = play_game(levels, seed + i, i % 2, budget, stats)
        turns += n
        if winner is None:
            draws += 1
        else:
            wins[winner] += 1
        if progress and (i + 1) % 10 == 0:
            print(f"  ... {i + 1}/{games}: {levels[0]} {wins[0]}, {levels[1]} {wins[1]},"
                  f" draws {draws}", flush=True)
    a, b = levels
    print(f"{a.upper()} vs {b.upper()}: {games} games, {a.upper()} won {wins[0]}"
          f" ({100 * wins[0] / games:.1f}%), {b.upper()} won {wins[1]}"
          f" ({100 * wins[1] / games:.1f}%), draws {draws}; mean {turns / games:.1f} turns;"
          f" {time.perf_counter() - start:.0f} s", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--budget", type=float, default=1.0, help="HARD's seconds per move")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--match", choices=("all", "hard-normal", "normal-easy"), default="all")
    parser.add_argument("--progress", action="store_true")
    args = parser.parse_args(argv)
    print(f"Triad Dice AI bench: {args.games} games a match, HARD budget {args.budget} s,"
          f" seeds {args.seed}..{args.seed + args.games - 1}", flush=True)
    stats = Stats()
    if args.match in ("all", "hard-normal"):
        run_match(("hard", "normal"), args.games, args.seed, args.budget, stats, args.progress)
    if args.match in ("all", "normal-easy"):
        run_match(("normal", "easy"), args.games, args.seed, args.budget, stats, args.progress)
    if stats.moves:
        depths = sorted(stats.depths)
        print(f"HARD: {stats.moves} moves, {stats.nodes} nodes,"
              f" {stats.nodes / max(stats.search_time, 1e-9):.0f} nodes/s,"
              f" think time mean {stats.search_time / stats.moves:.3f} s"
              f" max {stats.max_time:.3f} s, median depth {depths[len(depths) // 2]}"
              f" (max {depths[-1]})", flush=True)


if __name__ == "__main__":
    main()
