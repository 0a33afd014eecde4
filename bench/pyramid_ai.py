"""Pyramid computer player benchmark over seeded deals.

The player sees only the pyramid and the turned cards (games/pyramid/ai.py).  For each
deal it prints, with 95 % intervals (mean +- 1.96 standard errors):

- the player's mean Par, and in which deal it cleared the pyramid;
- the solver's best Par with every card seen from the start (``--best-nodes``), and in
  which deal that line clears: what no player who cannot see the Pack can be sure of;
- its gap to the best from the start of deal 2, where the whole Pack has been seen
  once and a remembering player knows everything: the best the solver proves from the
  position the player reached at the redeal, (a) on the player's own budget for a
  move, where the target is 0.0 on every deal the solver proves, and (b) on
  ``--best-nodes``.

Budgets are solver nodes, not time (``--budget`` seconds are ``ai.thinking_nodes`` of
them; 1.0, the default, is what the server's computer player gets a move), so a run
gives the same numbers on a busy machine and an idle one.

    .venv/bin/python bench/pyramid_ai.py --deals 200 --level hard [--budget 1.0]
        [--best-nodes 100000000] [--jobs 2]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.pyramid import ai, rules, solver  # noqa: E402


def interval(xs: list[float]) -> str:
    """``mean (lo to hi)``, a 95 % interval by the normal approximation."""
    if not xs:
        return "n/a"
    mean = statistics.mean(xs)
    if len(xs) < 2:
        return f"{mean:+.2f}"
    half = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs))
    return f"{mean:+.2f} ({mean - half:+.2f} to {mean + half:+.2f})"


def cleared_in(game: rules.Game, line) -> int:
    for action in line:
        game, _ = rules.play(game, action)
    return game.cleared_in


def run_deal(seed: int, level: str, budget: float, best_nodes: int, no_solver: bool) -> dict:
    state = rules.new_game({"seeds": [seed]}, random.Random(0))
    rng = random.Random(seed)
    at_redeal = None
    t0 = time.process_time()
    move_cpu = []  # each move's thinking: its budget is nodes, this is what they took
    while not state.over:
        t1 = time.process_time()
        action = ai.choose_action(state, 0, level, rng, budget)
        move_cpu.append(time.process_time() - t1)
        state, _ = rules.apply(state, 0, action, rng)
        if at_redeal is None and state.game.deal == 2 and not state.game.over:
            at_redeal = state.game
    out = {"seed": seed, "score": state.game.score, "cleared": state.game.cleared_in,
           "won": state.game.how == "won", "cpu": time.process_time() - t0,
           "moves": len(move_cpu), "move_cpu": sum(move_cpu),
           "move_cpu_max": max(move_cpu, default=0.0)}
    if no_solver:
        return out
    best = solver.solve_par(rules.Game.dealt(seed), max_nodes=best_nodes)
    out.update(best=best.lower, best_proven=best.proven,
               best_cleared=cleared_in(rules.Game.dealt(seed), best.moves))
    if at_redeal is not None:
        own = ai.par_line(at_redeal, ai.thinking_nodes(level, budget))
        big = solver.solve_par(at_redeal, max_nodes=best_nodes)
        out.update(d2_own=own.lower, d2_own_proven=own.proven,
                   d2_big=big.lower, d2_big_proven=big.proven)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--level", default="hard", choices=ai.LEVELS)
    ap.add_argument("--budget", type=float, default=1.0,
                    help="the player's budget a move, in seconds (read as solver nodes)")
    ap.add_argument("--best-nodes", type=int, default=10**8,
                    help="the solver's node budget for the best lines")
    ap.add_argument("--no-solver", action="store_true")
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    seeds = list(range(args.first_seed, args.first_seed + args.deals))
    t0 = time.perf_counter()
    todo = ([args.level] * len(seeds), [args.budget] * len(seeds),
            [args.best_nodes] * len(seeds), [args.no_solver] * len(seeds))
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            rows = list(pool.map(run_deal, seeds, *todo))
    else:
        rows = list(map(run_deal, seeds, *todo))
    n = len(rows)
    nodes = ai.thinking_nodes(args.level, args.budget)

    def by_deal(key: str) -> str:
        return "/".join(str(sum(r[key] == d for r in rows)) for d in (1, 2, 3))

    print(f"seeds {seeds[0]}..{seeds[-1]} ({n} deals); the solver "
          f"{'compiled (mypyc)' if solver.COMPILED else 'in plain Python'}")
    print(f"computer ({args.level}, {args.budget} s a move = {nodes:,} solver nodes): "
          f"mean Par {interval([r['score'] for r in rows])}; pyramid cleared in deal 1/2/3: "
          f"{by_deal('cleared')}, all 52 removed {sum(r['won'] for r in rows)}; "
          f"cpu {statistics.mean(r['cpu'] for r in rows):.2f} s a deal")
    slowest = max(rows, key=lambda r: r["move_cpu_max"])
    per_move = sum(r["move_cpu"] for r in rows) / sum(r["moves"] for r in rows)
    print(f"cpu a move: mean {per_move:.3f} s, the most {slowest['move_cpu_max']:.2f} s "
          f"(seed {slowest['seed']})")
    if args.no_solver:
        print(f"total {time.perf_counter() - t0:.1f} s")
        return
    proven = sum(r["best_proven"] for r in rows)
    print(f"solver, every card seen from the start ({args.best_nodes:,} nodes, proven "
          f"{proven}/{n}): mean Par {interval([r['best'] for r in rows])}; its line clears "
          f"in deal 1/2/3: {by_deal('best_cleared')}")
    print(f"gap to it: {interval([r['best'] - r['score'] for r in rows])}")
    reached = [r for r in rows if "d2_own" in r]
    print(f"deals that reached deal 2: {len(reached)}/{n}")
    for key, what in (("d2_own", f"the player's own budget, {nodes:,} nodes"),
                      ("d2_big", f"{args.best_nodes:,} nodes")):
        done = [r for r in reached if r[key + "_proven"]]
        gaps = [r[key] - r["score"] for r in done]
        worst = max(gaps, default=0)
        print(f"gap to the best from the start of deal 2 ({what}; proven on {len(done)} of "
              f"{len(reached)}): {interval(gaps)}, deals with a gap {sum(g > 0 for g in gaps)}"
              f", the largest {worst}")
    print(f"total {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
