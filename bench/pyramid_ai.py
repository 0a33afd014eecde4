"""Pyramid computer player benchmark: its mean Par score over seeded deals (it sees
only the pyramid and turned cards), next to the solver's best Par on the same deals.

    .venv/bin/python bench/pyramid_ai.py --deals 1000 --level normal [--par-limit 1.0]
"""

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.pyramid import ai, rules  # noqa: E402
from games.pyramid.solver import solve  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--level", default="normal", choices=ai.LEVELS)
    ap.add_argument("--budget", type=float, default=0.2, help="AI seconds per move")
    ap.add_argument("--par-limit", type=float, default=1.0)
    ap.add_argument("--no-solver", action="store_true")
    args = ap.parse_args()
    ai_scores, best_scores, cleared = [], [], 0
    t0 = time.perf_counter()
    for seed in range(args.first_seed, args.first_seed + args.deals):
        state = rules.new_game({"seeds": [seed]}, random.Random(0))
        rng = random.Random(seed)
        while not state.over:
            state, _ = rules.apply(state, 0, ai.choose_action(state, 0, args.level, rng,
                                                              args.budget), rng)
        ai_scores.append(state.game.score)
        cleared += state.game.cleared_in > 0
        if not args.no_solver:
            best_scores.append(solve(rules.Game.dealt(seed), "par",
                                     time_limit=args.par_limit).score)
    n = len(ai_scores)
    print(f"computer ({args.level}, {args.budget} s/move): mean Par {statistics.mean(ai_scores):+.2f},"
          f" pyramid cleared {cleared / n:.1%}")
    if best_scores:
        print(f"solver best (perfect information): mean Par {statistics.mean(best_scores):+.2f}")
    print(f"deals {n}, total {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
