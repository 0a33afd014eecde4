"""Triad: our bot against a "call everything" bot, heads up.

    .venv/bin/python bench/triad_bots.py [HANDS] [--level normal] [--budget 0.02] [--limit N]

Each of HANDS (default 2,000) seeded hands is played at a fresh two-seat table
(opening bet 1, both stacks 200, no limit unless --limit), the button alternating.
The caller equals every raise, passes otherwise, never raises, and draws like a
plain player (keeps Capstones and pairs, throws up to four of the lowest other
cards).  Prints our net cubits per hand and our share of the hands won.
"""

from __future__ import annotations

import random
import sys
import time

from games.triad import ai, rules


def caller(state: rules.State, seat: int) -> rules.Action:
    if state.phase == "draw":
        cards = list(state.seats[seat].cards)
        return rules.Action("DRAW", discard=tuple(str(i + 1) for i in ai.simple_draw(cards)))
    if state.current_bet > state.seats[seat].bet:
        return rules.Action("EQUAL")
    return rules.Action("PASS")


def play_hand(seed: int, level: str, budget: float, limit: int | None, stack: int = 200) -> tuple[int, bool]:
    """Our net cubits for one hand, and whether we took the (larger part of the) pot."""
    rng = random.Random(seed)
    ours = seed % 2  # the seat our bot takes; the other seat deals first half the time
    state = rules.new_game({"opening": 1, "limit": limit, "stacks": [stack, stack]}, rng)
    state, _ = rules.apply(state, 0, rules.Action("DEAL"), rng)
    while state.phase != "hand_over":
        seat = state.to_act
        if seat == ours:
            action = ai.choose_action(state, seat, level, rng, budget_s=budget)
        else:
            action = caller(state, seat)
        state, _ = rules.apply(state, seat, action, rng)
    net = state.seats[ours].stack - stack
    return net, net > 0


def main(argv: list[str]) -> None:
    args = list(argv)
    opts = {"--level": "normal", "--budget": "0.02", "--limit": None}
    for key in list(opts):
        if key in args:
            i = args.index(key)
            opts[key] = args[i + 1]
            del args[i:i + 2]
    n = int(args[0]) if args else 2000
    level, budget = opts["--level"], float(opts["--budget"])
    limit = None if opts["--limit"] is None else int(opts["--limit"])
    ai.warm()
    t0 = time.perf_counter()
    total = wins = losses = 0
    for seed in range(n):
        net, won = play_hand(seed, level, budget, limit)
        total += net
        wins += won
        losses += net < 0
    dt = time.perf_counter() - t0
    print(f"{n} hands, level {level}, budget {budget} s per decision, "
          f"{'no limit' if limit is None else f'limit {limit}'}, {dt:.0f} s")
    print(f"net cubits per hand: {total / n:+.3f} (total {total:+d})")
    print(f"hands won: {wins / n:.1%}, lost: {losses / n:.1%}, "
          f"win share of decided hands: {wins / max(1, wins + losses):.1%}")


if __name__ == "__main__":
    main(sys.argv[1:])
