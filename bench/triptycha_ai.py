"""Triptycha AI benchmark: HARD vs NORMAL and NORMAL vs EASY.

    .venv/bin/python bench/triptycha_ai.py [--games 200] [--seed 1] [--truth] [--budget 1.0]

Each match plays ``--games`` seeded games with Random hands dealt from two 10-tile
practice decks, alternating who is Player 1.  Prints win rates and HARD's mean and
max think time per action (every FLIP/ROTATE/LAY decision is a call).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.triptycha.ai import choose_action  # noqa: E402
from games.triptycha.rules import Options, Rules, apply, new_game, result, to_move  # noqa: E402
from games.triptycha.tiles import random_deck  # noqa: E402


def play(seed: int, levels: tuple[str, str], rules: Rules, budget: float, times: dict):
    """One game; returns the winning seat.  ``times[level]`` collects think times."""
    rng = random.Random(seed)
    decks = (random_deck(rng, 10, 1), random_deck(rng, 10, 101))
    s = new_game(Options(decks, rules), rng)
    while to_move(s):
        seat = to_move(s)[0]
        t0 = time.perf_counter()
        action = choose_action(s, seat, levels[seat], rng, budget)
        times.setdefault(levels[seat], []).append(time.perf_counter() - t0)
        s, _ = apply(s, seat, action, rng)
    return result(s).winner


def match(a: str, b: str, games: int, seed: int, rules: Rules, budget: float):
    """``a`` vs ``b``; ``a`` is Player 1 in even games.  Returns (a wins, times)."""
    wins = 0
    times: dict = {}
    for g in range(games):
        levels = (a, b) if g % 2 == 0 else (b, a)
        winner = play(seed * 100_003 + g, levels, rules, budget, times)
        wins += levels[winner] == a
    return wins, times


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--truth", action="store_true", help="play with the Truth rule")
    ap.add_argument("--budget", type=float, default=1.0, help="seconds per AI move")
    args = ap.parse_args(argv)
    rules = Rules(random=True, truth=args.truth)
    print(f"Triptycha AI bench: {args.games} games per match, seed {args.seed}, "
          f"rules {'Random Truth' if args.truth else 'Random'}, budget {args.budget}s")
    for a, b in (("hard", "normal"), ("normal", "easy")):
        t0 = time.perf_counter()
        wins, times = match(a, b, args.games, args.seed, rules, args.budget)
        rate = wins / args.games if args.games else 0.0
        print(f"{a.upper():>6} vs {b.upper():<6}: {a.upper()} wins {wins}/{args.games} "
              f"({rate:.1%}), {time.perf_counter() - t0:.1f}s")
        if "hard" in times and times["hard"]:
            ht = times["hard"]
            print(f"        HARD think time per action: mean {sum(ht) / len(ht) * 1000:.1f} ms, "
                  f"max {max(ht) * 1000:.1f} ms over {len(ht)} actions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
