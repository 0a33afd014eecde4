"""Pyramid solver benchmark: seeded deals, share winnable (pyramid cleared / all 52
removed, within three deals), time per deal for each goal, and the best Par mean.

    .venv/bin/python bench/pyramid_solver.py --deals 1000 [--par-limit 1.0]
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.pyramid.rules import Game  # noqa: E402
from games.pyramid.solver import solve  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--limit", type=float, default=10.0, help="seconds per deal and goal")
    ap.add_argument("--par-limit", type=float, default=1.0, help="seconds per deal for Par")
    ap.add_argument("--no-par", action="store_true")
    args = ap.parse_args()
    seeds = range(args.first_seed, args.first_seed + args.deals)
    t_start = time.perf_counter()
    for goal in ("pyramid", "all"):
        times, results = [], {"win": 0, "lose": 0, "unknown": 0}
        for seed in seeds:
            sol = solve(Game.dealt(seed), goal, time_limit=args.limit)
            times.append(sol.seconds * 1000)
            results[sol.result] += 1
        n = len(times)
        print(f"goal {goal:8s}: winnable {results['win'] / n:6.1%}  lose {results['lose']}"
              f"  unknown {results['unknown']}  time ms mean {statistics.mean(times):.1f}"
              f"  median {statistics.median(times):.1f}  max {max(times):.1f}")
    if not args.no_par:
        scores, times, proven = [], [], 0
        for seed in seeds:
            sol = solve(Game.dealt(seed), "par", time_limit=args.par_limit)
            scores.append(sol.score)
            times.append(sol.seconds * 1000)
            proven += sol.proven
        print(f"best Par: mean {statistics.mean(scores):+.2f} over {len(scores)} deals"
              f" ({proven} proven best, others best found in {args.par_limit} s);"
              f" time ms mean {statistics.mean(times):.1f} max {max(times):.1f}")
    print(f"total {time.perf_counter() - t_start:.1f} s")


if __name__ == "__main__":
    main()
