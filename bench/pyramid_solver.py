"""Pyramid solver benchmark over seeded deals: for each goal ("pyramid": clear the
pyramid, "all": remove all 52 cards, both within three passes; "par": the best Par
score) the verdict counts, how many were left unknown (budget spent), and the time per
deal (mean, median, max: wall clock, which the time limit applies to, and the CPU time
of the solving process, steadier on a shared machine; and the nodes searched); for Par
how many best scores are proven, the mean and the unproven gaps; and the winnable rates.

    PYTHONPATH=. .venv/bin/python bench/pyramid_solver.py --deals 1000 [--start 0]
        [--limit 10] [--jobs 2]

``--jobs`` solves deals in that many processes at once (each deal is timed inside its
own process; keep it at most the number of cores).
"""

import argparse
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.pyramid.rules import Game  # noqa: E402
from games.pyramid.solver import COMPILED, solve  # noqa: E402

GOALS = ("pyramid", "all", "par")


def run_deal(seed: int, limit: float, goals: tuple[str, ...]) -> dict:
    out = {}
    for goal in goals:
        cpu = time.process_time()
        sol = solve(Game.dealt(seed), goal, max_nodes=10**9, time_limit=limit)
        cpu = time.process_time() - cpu
        out[goal] = (sol.result, sol.seconds, sol.lower, sol.upper, sol.proven, cpu, sol.nodes)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--start", "--first-seed", type=int, default=0)
    ap.add_argument("--limit", type=float, default=10.0, help="seconds per deal and goal")
    ap.add_argument("--par-limit", type=float, default=None,
                    help="seconds per deal for Par (default: --limit)")
    ap.add_argument("--no-par", action="store_true")
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    seeds = range(args.start, args.start + args.deals)
    goals = GOALS[:2] if args.no_par else GOALS
    t_start = time.perf_counter()
    results: dict[int, dict] = {}
    for goal in goals:
        limit = args.par_limit if goal == "par" and args.par_limit else args.limit
        if args.jobs > 1:
            with ProcessPoolExecutor(args.jobs) as pool:
                for seed, out in zip(seeds, pool.map(run_deal, seeds, [limit] * len(seeds),
                                                     [(goal,)] * len(seeds), chunksize=4)):
                    results.setdefault(seed, {}).update(out)
        else:
            for seed in seeds:
                results.setdefault(seed, {}).update(run_deal(seed, limit, (goal,)))
    n = len(seeds)
    print(f"seeds {args.start}..{args.start + n - 1} ({n} deals), limit {args.limit} s "
          f"per deal and goal, {args.jobs} process(es); the solver "
          f"{'compiled (mypyc)' if COMPILED else 'in plain Python (not compiled)'}")
    for goal in goals:
        rows = [results[s][goal] for s in seeds]
        times = [r[1] * 1000 for r in rows]
        cpus = [r[5] * 1000 for r in rows]
        timing = (f"time ms mean {statistics.mean(times):.1f}  median "
                  f"{statistics.median(times):.1f}  max {max(times):.1f}  (cpu ms mean "
                  f"{statistics.mean(cpus):.1f}  median {statistics.median(cpus):.1f}  max "
                  f"{max(cpus):.1f}; nodes {sum(r[6] for r in rows)})")
        if goal == "par":
            proven = sum(r[4] for r in rows)
            lowers = [r[2] for r in rows]
            gaps = [r[3] - r[2] for r in rows if not r[4]]
            print(f"goal par     : proven {proven}/{n}  unproven {n - proven}  best Par mean "
                  f"{statistics.mean(lowers):+.2f} (lower bounds)  "
                  f"max gap {max(gaps, default=0)}  {timing}")
            continue
        win = sum(r[0] == "win" for r in rows)
        lose = sum(r[0] == "lose" for r in rows)
        unknown = n - win - lose
        print(f"goal {goal:8s}: win {win}  lose {lose}  unknown {unknown}  {timing}")
    for goal, what in (("pyramid", "pyramid cleared"), ("all", "all 52 removed")):
        win = sum(results[s][goal][0] == "win" for s in seeds)
        unknown = sum(results[s][goal][0] == "unknown" for s in seeds)
        print(f"winnable ({what}, within three passes): {win}/{n} = {win / n:.1%}"
              + (f" (+{unknown} unknown)" if unknown else ""))
    print(f"total {time.perf_counter() - t_start:.1f} s")


if __name__ == "__main__":
    main()
