"""Triad hand evaluation speed against treys' 7-card poker evaluator.

    .venv/bin/python bench/triad_eval.py [N] [--cold]

Evaluates N (default 200,000) seeded random 6-card Triad hands with
games.triad.hands.evaluate and N seeded random 7-card poker hands with treys, in one
run (alternating slices, so both meet the same machine load), and prints hands/s
for each and the ratio.  Both sides build their tables
before the clock starts (treys in ``Evaluator()``, ours in ``warm()``); ``--cold``
skips our warm-up so the table fills while timing.
"""

from __future__ import annotations

import random
import sys
import time

from treys import Card, Evaluator

from games.triad import hands
from games.triad.cards import DECK


def main(argv: list[str]) -> None:
    args = [a for a in argv if not a.startswith("--")]
    n = int(args[0]) if args else 200_000
    cold = "--cold" in argv

    rng = random.Random(20240601)
    triad_hands = [rng.sample(DECK, 6) for _ in range(n)]
    poker_deck = [Card.new(r + s) for r in "23456789TJQKA" for s in "shdc"]
    poker_hands = [rng.sample(poker_deck, 7) for _ in range(n)]

    t0 = time.perf_counter()
    evaluator = Evaluator()
    treys_build = time.perf_counter() - t0
    t0 = time.perf_counter()
    size = 0 if cold else hands.warm()
    ours_build = time.perf_counter() - t0

    # Alternate slices of both workloads so that both see the same machine load.
    evaluate, treys_eval = hands.evaluate, evaluator.evaluate
    ours_s = theirs_s = 0.0
    step = max(1, n // 20)
    for start in range(0, n, step):
        t0 = time.perf_counter()
        for h in triad_hands[start:start + step]:
            evaluate(h)
        t1 = time.perf_counter()
        for h in poker_hands[start:start + step]:
            treys_eval(h[:2], h[2:])
        t2 = time.perf_counter()
        ours_s += t1 - t0
        theirs_s += t2 - t1
    ours, theirs = n / ours_s, n / theirs_s

    print(f"table build: ours {ours_build:.2f} s ({size} entries), treys {treys_build:.2f} s")
    print(f"triad 6-card evaluate: {ours:,.0f} hands/s ({n:,} hands{', cold' if cold else ''})")
    print(f"treys 7-card evaluate: {theirs:,.0f} hands/s ({n:,} hands)")
    print(f"ratio ours/treys: {ours / theirs:.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
