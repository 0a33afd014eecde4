"""Triptycha AI benchmark: HARD vs NORMAL and NORMAL vs EASY (or the matches asked for).

    .venv/bin/python bench/triptycha_ai.py [--games 200] [--seed 1] [--truth] [--budget 1.0]
        [--match expert-hard ...] [--match normal-greedy]

Besides the computer's levels a match may name ``greedy``, a baseline that is no level of
the parlor's: the plain greedy player, whose lay flips the most tiles now (ties at random;
``plain_greedy``). NORMAL should beat it.

Each match plays ``--games`` seeded games with Random hands dealt from two 10-tile
practice decks, alternating who is Player 1: games 2k and 2k+1 are the same deal with
the seats swapped, so the luck of the deal cancels out.  Prints each win rate with a 95 %
interval (from the spread of the pairs' scores), and the stronger level's mean and max
think time per action (every FLIP/ROTATE/LAY decision is a call) and per lay (the calls
that lead to one LAY, summed).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from scores import interval  # noqa: E402  (bench/scores.py)
from games.triptycha import ai  # noqa: E402
from games.triptycha.rules import (Lay, Options, Rules, apply, new_game, result,  # noqa: E402
                                   to_move)
from games.triptycha.tiles import random_deck  # noqa: E402


def plain_greedy(state, seat, level, rng, budget):  # noqa: ARG001 - choose_action's
    """The baseline: the placement that flips the most tiles now, ties at random (among
    them, the fewest FLIP/ROTATE steps first, so that the steps reach a LAY); outside
    the play phase it plays as NORMAL."""
    if state.phase != "play":
        return ai.choose_action(state, seat, "normal", rng, budget)
    pos = ai._Pos(state, seat, [])
    best, best_key = None, None
    for move in pos.moves(seat):
        flipped = pos.do(seat, move)
        pos.undo(seat, move, flipped)
        plan = ai._plan(state, seat, pos.tiles[move[0]], move[1], move[2])
        key = (len(flipped), -plan[4], rng.random())
        if best_key is None or key > best_key:
            best, best_key = plan, key
    return ai._step_towards(state, seat, *best[:4])


#: the players a match may name: the computer's levels, and the baseline
PLAYERS = {level: ai.choose_action for level in ai.LEVELS} | {"greedy": plain_greedy}


def play(seed: int, levels: tuple[str, str], rules: Rules, budget: float, times: dict,
         lays: dict | None = None):
    """One game; returns the winning seat.  ``times[level]`` collects think times per
    call, ``lays[level]`` per lay (the calls leading to a LAY, summed)."""
    rng = random.Random(seed)
    decks = (random_deck(rng, 10, 1), random_deck(rng, 10, 101))
    s = new_game(Options(decks, rules), rng)
    thinking = 0.0
    while to_move(s):
        seat = to_move(s)[0]
        t0 = time.perf_counter()
        action = PLAYERS[levels[seat]](s, seat, levels[seat], rng, budget)
        took = time.perf_counter() - t0
        times.setdefault(levels[seat], []).append(took)
        thinking += took
        if isinstance(action, Lay):
            if lays is not None:
                lays.setdefault(levels[seat], []).append(thinking)
            thinking = 0.0
        s, _ = apply(s, seat, action, rng)
    return result(s).winner


def match(a: str, b: str, games: int, seed: int, rules: Rules, budget: float,
          lays: dict | None = None):
    """``a`` vs ``b``; ``a`` is Player 1 in even games, and games 2k and 2k+1 are one
    deal.  Returns (a wins, times); ``lays`` (if given) collects think times per lay."""
    wins, _, times = match_pairs(a, b, games, seed, rules, budget, lays)
    return wins, times


def match_pairs(a: str, b: str, games: int, seed: int, rules: Rules, budget: float,
                lays: dict | None = None):
    """As ``match``; also each deal's score for ``a`` (0, 0.5 or 1 a game, averaged)."""
    wins = 0
    times: dict = {}
    pairs: list[float] = []
    for g in range(games):
        levels = (a, b) if g % 2 == 0 else (b, a)
        winner = play(seed * 100_003 + g // 2, levels, rules, budget, times, lays)
        wins += levels[winner] == a
        if g % 2:
            pairs[-1] = (pairs[-1] + (levels[winner] == a)) / 2
        else:
            pairs.append(float(levels[winner] == a))
    return wins, pairs, times


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--truth", action="store_true", help="play with the Truth rule")
    ap.add_argument("--budget", type=float, default=1.0, help="seconds per AI move")
    ap.add_argument("--match", action="append", metavar="A-B",
                    help="a match to play, e.g. expert-hard (default: hard-normal, normal-easy)")
    args = ap.parse_args(argv)
    matches = [tuple(m.lower().split("-")) for m in args.match or ("hard-normal", "normal-easy")]
    rules = Rules(random=True, truth=args.truth)
    print(f"Triptycha AI bench: {args.games} games per match, seed {args.seed}, "
          f"rules {'Random Truth' if args.truth else 'Random'}, budget {args.budget}s")
    for a, b in matches:
        t0 = time.perf_counter()
        lays: dict = {}
        wins, pairs, times = match_pairs(a, b, args.games, args.seed, rules, args.budget, lays)
        rate = wins / args.games if args.games else 0.0
        low, high = interval(pairs)
        print(f"{a.upper():>6} vs {b.upper():<6}: {a.upper()} wins {wins}/{args.games} "
              f"({rate:.1%}, 95 % interval {low:.1%}-{high:.1%} over {len(pairs)} deals), "
              f"{time.perf_counter() - t0:.1f}s")
        if times.get(a):
            ht, lt = times[a], lays[a]
            print(f"        {a.upper()} think time per action: mean "
                  f"{sum(ht) / len(ht) * 1000:.1f} ms, max {max(ht) * 1000:.1f} ms over "
                  f"{len(ht)} actions; per lay: mean {sum(lt) / len(lt) * 1000:.1f} ms, "
                  f"max {max(lt) * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
