"""Tournament pairing: how long one round takes to pair, Swiss and arena.

    .venv/bin/python bench/pairing.py --entrants 1000 --rounds 6

A simulated Swiss of ``--entrants`` players (random results, the stronger player more
likely to win) paired round by round, and an arena's pairing of everyone waiting at once;
prints the time of each pairing and checks: no pairing repeated, byes one each at most,
first moves balanced.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.services.pairing import (Entrant, Result, arena_pairings, swiss_pairings,  # noqa: E402
                                     swiss_standings)


def simulate_swiss(n: int, rounds: int, rng: random.Random) -> dict:
    ratings = {i: rng.gauss(1500, 250) for i in range(1, n + 1)}
    seats = {i: [] for i in ratings}
    opponents = {i: [] for i in ratings}
    results: list[Result] = []
    times = []
    for _ in range(rounds):
        points = {i: p for i, p, _, _ in swiss_standings(ratings, results)}
        entrants = [Entrant(i, points[i], ratings[i], tuple(seats[i]), tuple(opponents[i]))
                    for i in ratings]
        t = time.perf_counter()
        pairs, bye = swiss_pairings(entrants)
        times.append(time.perf_counter() - t)
        for a, b in pairs:
            p = 1 / (1 + 10 ** ((ratings[b] - ratings[a]) / 400))
            x = rng.random()
            score = 1.0 if x < p - 0.05 else 0.5 if x < p + 0.05 else 0.0
            results.append(Result(a, b, score))
            seats[a].append(0)
            seats[b].append(1)
            opponents[a].append(b)
            opponents[b].append(a)
        if bye is not None:
            results.append(Result(bye, None, 1.0))
            opponents[bye].append(None)
    met = [tuple(sorted((r.first, r.second))) for r in results if r.second is not None]
    return {"times": times, "repeats": len(met) - len(set(met)),
            "max_byes": max(sum(1 for o in v if o is None) for v in opponents.values()),
            "max_imbalance": max(abs(sum(1 if s == 0 else -1 for s in v)) for v in seats.values())}


def arena_round(n: int, rng: random.Random) -> float:
    entrants = [Entrant(i, rating=rng.gauss(1500, 250), seats=(rng.randrange(2),),
                        opponents=(rng.randrange(1, n + 1),)) for i in range(1, n + 1)]
    ranks = {e.id: k for k, e in enumerate(rng.sample(entrants, n))}
    t = time.perf_counter()
    pairs = arena_pairings(entrants, ranks)
    elapsed = time.perf_counter() - t
    assert len(pairs) == n // 2
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entrants", type=int, nargs="+", default=[64, 1000])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    opts = parser.parse_args()
    for n in opts.entrants:
        rng = random.Random(opts.seed)
        s = simulate_swiss(n, opts.rounds, rng)
        print(f"Swiss {n} entrants, {opts.rounds} rounds: pairing a round "
              f"mean {sum(s['times']) / len(s['times']):.3f} s, worst {max(s['times']):.3f} s; "
              f"repeated pairings {s['repeats']}, most byes {s['max_byes']}, "
              f"worst first-move imbalance {s['max_imbalance']}")
        a = [arena_round(n, rng) for _ in range(3)]
        print(f"Arena {n} waiting: pairing mean {sum(a) / len(a):.3f} s, worst {max(a):.3f} s")


if __name__ == "__main__":
    main()
