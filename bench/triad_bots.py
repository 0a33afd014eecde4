"""Triad: a computer level heads-up against another level or a fixed player.

    .venv/bin/python bench/triad_bots.py [HANDS] [--level hard]
        [--against normal,caller,raiser,potraiser] [--budget 0.05] [--limit N] [--jobs N]

HANDS (default 2,000) hands are played against each opponent, as HANDS / 2 seeded
deals played twice with the seats swapped (duplicate: each side gets the other's
cards the second time, so the luck of the cards cancels out and the interval is
narrower).  Every hand is at a fresh two-seat table: opening bet 1, both stacks 200,
no limit unless --limit; seat 0 deals first.  The opponents:

- ``easy``, ``normal``, ``hard``: the computer's levels (games/triad/ai.py);
- ``caller``: equals every raise, passes otherwise, never raises;
- ``raiser``: raises the smallest raise it may whenever it may, else equals;
- ``potraiser``: raises the size of the pot (or all it may) whenever it may, else
  equals;
- ``pusher``: raises all it may (all in) whenever it may, else equals.

The fixed players draw like a plain player (keep Capstones and pairs, throw up to four
of the lowest other cards).  Budgets are hand evaluations (``ai.evals_for``), not
time, so a run gives the same numbers on a busy machine.  Prints, for each opponent,
the level's net cubits a hand with a 95 % interval over the deals (a deal's two hands
together; also over the hands as if they were independent), and its share of the
hands won.
"""

from __future__ import annotations

import math
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.triad import ai, rules  # noqa: E402

FIXED = ("caller", "raiser", "potraiser", "pusher")


def fixed_player(kind: str, state: rules.State, seat: int) -> rules.Action:
    if state.phase == "draw":
        cards = list(state.seats[seat].cards)
        return rules.Action("DRAW", discard=tuple(str(i + 1) for i in ai.simple_draw(cards)))
    lo, hi = rules.raise_bounds(state, seat)
    if kind != "caller" and lo <= hi:
        size = {"raiser": lo, "potraiser": max(lo, min(hi, state.pot)), "pusher": hi}[kind]
        return rules.Action("RAISE", size)
    if state.current_bet > state.seats[seat].bet:
        return rules.Action("EQUAL")
    return rules.Action("PASS")


def caller(state: rules.State, seat: int) -> rules.Action:
    return fixed_player("caller", state, seat)


def act(player: str, state: rules.State, seat: int, rng: random.Random,
        budget: float) -> rules.Action:
    if player in FIXED:
        return fixed_player(player, state, seat)
    return ai.choose_action(state, seat, player, rng, budget_s=budget)


def play_hand(seed: int, ours: str, theirs: str, our_seat: int, budget: float,
              limit: int | None, stack: int = 200) -> tuple[int, bool]:
    """Our net cubits for deal ``seed`` with us in ``our_seat``, and whether we won
    cubits.  The cards depend on the seed alone (not on who sits where)."""
    deal_rng = random.Random(seed)
    rngs = {our_seat: random.Random(f"{seed}:{ours}:{our_seat}"),
            1 - our_seat: random.Random(f"{seed}:{theirs}:{1 - our_seat}")}
    players = {our_seat: ours, 1 - our_seat: theirs}
    state = rules.new_game({"opening": 1, "limit": limit, "stacks": [stack, stack]}, deal_rng)
    state, _ = rules.apply(state, 0, rules.Action("DEAL"), deal_rng)
    while state.phase != "hand_over":
        seat = state.to_act
        action = act(players[seat], state, seat, rngs[seat], budget)
        state, _ = rules.apply(state, seat, action, deal_rng)
    net = state.seats[our_seat].stack - stack
    return net, net > 0


def play_deal(seed: int, ours: str, theirs: str, budget: float,
              limit: int | None) -> tuple[int, int, int]:
    """Deal ``seed`` twice, the seats swapped: (net in seat 0, net in seat 1, hands won)."""
    a, won_a = play_hand(seed, ours, theirs, 0, budget, limit)
    b, won_b = play_hand(seed, ours, theirs, 1, budget, limit)
    return a, b, won_a + won_b


def interval(xs: list[float]) -> str:
    mean = statistics.mean(xs)
    half = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else float("nan")
    return f"{mean:+.2f} ({mean - half:+.2f} to {mean + half:+.2f})"


def main(argv: list[str]) -> None:
    args = list(argv)
    opts = {"--level": "hard", "--against": "normal,caller,raiser,potraiser",
            "--budget": "0.05", "--limit": None, "--jobs": "1", "--first-seed": "0"}
    for key in list(opts):
        if key in args:
            i = args.index(key)
            opts[key] = args[i + 1]
            del args[i:i + 2]
    n = int(args[0]) if args else 2000
    level, budget = opts["--level"], float(opts["--budget"])
    limit = None if opts["--limit"] is None else int(opts["--limit"])
    jobs, first = int(opts["--jobs"]), int(opts["--first-seed"])
    ai.warm()
    seeds = list(range(first, first + max(1, n // 2)))
    print(f"{level} (budget {budget} s = {ai.evals_for(level, budget):,} hand evaluations a "
          f"decision) heads-up, {2 * len(seeds)} hands each ({len(seeds)} deals, seats "
          f"swapped), stacks 200, opening 1, {'no limit' if limit is None else f'limit {limit}'}")
    for theirs in opts["--against"].split(","):
        t0 = time.perf_counter()
        todo = ([level] * len(seeds), [theirs] * len(seeds), [budget] * len(seeds),
                [limit] * len(seeds))
        if jobs > 1:
            with ProcessPoolExecutor(jobs, initializer=ai.warm) as pool:
                rows = list(pool.map(play_deal, seeds, *todo, chunksize=8))
        else:
            rows = list(map(play_deal, seeds, *todo))
        pairs = [(a + b) / 2 for a, b, _ in rows]
        hands_ = [x for a, b, _ in rows for x in (a, b)]
        won = sum(w for _, _, w in rows)
        print(f"  vs {theirs:9s}: net cubits a hand {interval(pairs)} over the deals; "
              f"{interval(hands_)} over the hands as if independent; hands won "
              f"{won / len(hands_):.1%}; {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
