"""The computer's levels play rated games among themselves: Glicko-2 ratings per game.

    .venv/bin/python bench/level_ratings.py [--games pyramid,triad,triptycha,dice]
        [--rounds 30] [--budget 1.0] [--seed 0] [--write]

Every round each pair of a game's levels (its spec's ``levels``: easy, normal, hard, and
Triptycha's expert) plays one game of each game kind,
and a round is one rating period (``server/glicko2.py``, the parlor's own Glicko-2:
every level starts at 1500, RD 350).  What a "game" is:

- **Pyramid** (a patience): both levels play the same deal (Use Same Deck); the higher
  Par wins, the same Par is a draw.
- **Triad**: one deal heads-up, played twice with the seats swapped (bench/triad_bots.py,
  stacks 200, opening 1, no limit); the level that wins cubits over both hands wins.
- **Triptycha** and **Triad Dice**: one game (the seats and the first player alternate
  round by round).

Budgets are the levels' ``budget_s`` per move (``--budget``); every game reads it as a
count (search nodes, solver nodes, hand evaluations), so the results do not depend on the
load (a wall-clock guard that fires says so in a warning).
Prints each level's rating with its RD (a 95 % interval is about rating +- 2 RD), and the
score of each pairing. ``--write`` also writes them beside each game's spec
(``games/<game>/levels.json``, with the command that measured them): the parlor reads its
levels' ratings from there (``games.spec.measured_ratings``), and the suite checks that
every level is rated (tests/unit/test_levels_file.py). So a player knows what beating
HARD means: a rating is a player's, and a difference of 200 is about a 76 % expected score.
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games.spec import LEVELS_FILE  # noqa: E402
from server.glicko2 import Glicko, update  # noqa: E402

SPECS = {"pyramid": "games.pyramid.spec", "triad": "games.triad.spec",
         "triptycha": "games.triptycha.spec", "dice": "games.dice.spec"}


def levels_of(kind: str) -> tuple[str, ...]:
    """The computer's levels of a game kind, weakest first, as its spec lists them."""
    return importlib.import_module(SPECS[kind]).SPEC.levels


# -- one game of each kind: the score of ``a`` (1, 0.5 or 0) -------------------------------
_pyramid_cache: dict[tuple[int, str, float], int] = {}


def pyramid_par(seed: int, level: str, budget: float) -> int:
    from games.pyramid import ai, rules
    key = (seed, level, budget)
    if key not in _pyramid_cache:
        state = rules.new_game({"seeds": [seed]}, random.Random(0))
        rng = random.Random(seed)
        while not state.over:
            state, _ = rules.apply(state, 0, ai.choose_action(state, 0, level, rng, budget), rng)
        _pyramid_cache[key] = state.game.score
    return _pyramid_cache[key]


def pyramid_game(a: str, b: str, seed: int, budget: float) -> float:
    pa, pb = pyramid_par(seed, a, budget), pyramid_par(seed, b, budget)
    return 1.0 if pa > pb else 0.5 if pa == pb else 0.0


def triad_game(a: str, b: str, seed: int, budget: float) -> float:
    import triad_bots
    x, y, _ = triad_bots.play_deal(seed, a, b, budget, None)
    return 1.0 if x + y > 0 else 0.5 if x + y == 0 else 0.0


def triptycha_game(a: str, b: str, seed: int, budget: float) -> float:
    from games.triptycha.ai import choose_action
    from games.triptycha.rules import Options, Rules, apply, new_game, result, to_move
    from games.triptycha.tiles import random_deck
    rng = random.Random(seed)
    levels = (a, b) if seed % 2 == 0 else (b, a)
    decks = (random_deck(rng, 10, 1), random_deck(rng, 10, 101))
    s = new_game(Options(decks, Rules(random=True)), rng)
    while to_move(s):
        seat = to_move(s)[0]
        s, _ = apply(s, seat, choose_action(s, seat, levels[seat], rng, budget), rng)
    winner = result(s).winner
    if winner is None:
        return 0.5
    return 1.0 if levels[winner] == a else 0.0


def dice_game(a: str, b: str, seed: int, budget: float) -> float:
    from games.dice import ai, rules
    rng = random.Random(seed)
    levels = (a, b)
    state = rules.new_game({"starter": seed % 2}, rng)
    ai_rngs = (random.Random(seed * 2 + 1), random.Random(seed * 2 + 2))
    while state.result is None:
        seat = state.turn
        action = ai.choose_action(state, seat, levels[seat], ai_rngs[seat], budget)
        state, _ = rules.apply(state, seat, action, rng)
    winner = state.result.winner
    if winner is None:
        return 0.5
    return 1.0 if levels[winner] == a else 0.0


GAMES = {"pyramid": pyramid_game, "triad": triad_game, "triptycha": triptycha_game,
         "dice": dice_game}


def rate(kind: str, rounds: int, budget: float, seed: int) -> tuple[dict, dict]:
    """Glicko-2 ratings of the levels after ``rounds`` rating periods, and the score of
    each pairing: {(a, b): [points of a, games]}."""
    play = GAMES[kind]
    levels = levels_of(kind)
    ratings = {level: Glicko() for level in levels}
    scores: dict[tuple[str, str], list[float]] = {p: [0.0, 0] for p in
                                                   itertools.combinations(levels, 2)}
    for r in range(rounds):
        results: dict[str, list[tuple[Glicko, float]]] = {level: [] for level in levels}
        for a, b in itertools.combinations(levels, 2):
            score = play(a, b, seed + r, budget)
            scores[(a, b)][0] += score
            scores[(a, b)][1] += 1
            results[a].append((ratings[b], score))
            results[b].append((ratings[a], 1.0 - score))
        ratings = {level: update(ratings[level], results[level]) for level in levels}
    return ratings, scores


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default="pyramid,triad,triptycha,dice")
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--budget", type=float, default=1.0,
                    help="each level's budget a move (the server's: 1.0)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--write", action="store_true",
                    help="write the ratings beside each game's spec (games/<game>/levels.json)")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    print(f"levels' Glicko-2 ratings: {args.rounds} rounds (rating periods), each pair of "
          f"levels one game a round, budget {args.budget} s a move, seeds from {args.seed}")
    for kind in args.games.split(","):
        t0 = time.perf_counter()
        ratings, scores = rate(kind, args.rounds, args.budget, args.seed)
        line = "  ".join(f"{level.upper()} {ratings[level].rating:.0f} (RD "
                         f"{ratings[level].rd:.0f})" for level in ratings)
        pairs = ", ".join(f"{a}-{b} {pts:g}/{n}" for (a, b), (pts, n) in scores.items())
        print(f"{kind:9s}: {line};  scores {pairs};  {time.perf_counter() - t0:.0f} s")
        if args.write:
            path = write(kind, ratings, scores,
                         f"bench/level_ratings.py --games {kind} --rounds {args.rounds} "
                         f"--budget {args.budget:g} --seed {args.seed}")
            print(f"{'':9s}  written to {path.relative_to(ROOT)}")


def write(kind: str, ratings: dict, scores: dict, command: str) -> Path:
    """The ratings and scores of ``kind``'s levels, beside its spec, as the parlor reads
    them (``games.spec.measured_ratings``)."""
    spec = importlib.import_module(SPECS[kind])
    path = Path(spec.__file__).with_name(LEVELS_FILE)
    data = {"measured_by": command, "date": time.strftime("%Y-%m-%d"),
            "ratings": {level: {"rating": round(g.rating), "rd": round(g.rd)}
                        for level, g in ratings.items()},
            "scores": {f"{a}-{b}": {"points": pts, "games": n}
                       for (a, b), (pts, n) in scores.items()}}
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return path


if __name__ == "__main__":
    main()
