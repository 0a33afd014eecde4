"""Whole tournaments over real sockets: a Swiss of Triad Dice and a Triptycha arena, run
by the parlor's director and played by scripted players (each game resigned, after a
think, by whoever the game's coin says loses).

    .venv/bin/python bench/tournament.py                       # 64 x 6 Swiss, 32 x 10 min arena
    .venv/bin/python bench/tournament.py --arena-minutes 2 --think 0.5

Prints how long connecting and playing took, the games played, and the checks: no
pairing repeated (arena: no immediate rematch), most byes, the worst first-move
imbalance, and whether the standings equal the ones recomputed from the stored games.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import attrs  # noqa: E402

from commands.app import assemble  # noqa: E402
from server.config import TournamentsSection  # noqa: E402
from server.services.pairing import Result, arena_points, swiss_standings  # noqa: E402
from tests.conftest import make_config  # noqa: E402
from tests.integration.test_tiles import CHAIN_BOB  # noqa: E402
from tests.e2e.test_e2e_triptycha import give_deck, seed  # noqa: E402
from tests.support.tournament_players import (connect, first_move_spread, names,  # noqa: E402
                                              player, stored)


async def parlor_in(tmp: Path, minute_seconds: float):  # noqa: ANN201
    config = attrs.evolve(make_config(f"sqlite+aiosqlite:///{tmp}/bench.db",
                                      max_connections_per_address=1000),
                          tournaments=TournamentsSection(tick=0.5, minute_seconds=minute_seconds))
    parlor = assemble(config)
    await parlor.start()
    return parlor


async def swiss(tmp: Path, n: int, rounds: int, think: float) -> None:
    parlor = await parlor_in(tmp / "swiss", 60.0)
    try:
        t0 = time.perf_counter()
        players = await connect(parlor, names("Sw", n))
        t1 = time.perf_counter()
        await players[0].cmd(f"tourney create dice swiss {rounds}", "is open")
        for p in players:
            await p.cmd("tourney join 1", "You enter")
        players[0].send("tourney start 1")
        await asyncio.gather(*(player(p, "Triad Dice", "dice", 1, think) for p in players))
        t2 = time.perf_counter()
        row = await parlor.host.tournaments.get(1)
        waves = row.state["pairings"]
        met = [frozenset((p["first"], p["second"])) for w in waves for p in w]
        byes: dict[int, int] = {}
        for w in waves:
            for p in w:
                if p["second"] is None:
                    byes[p["first"]] = byes.get(p["first"], 0) + 1
        results = [Result(p["first"], p["second"], 0.5 if g.result["winner"] is None
                          else 1.0 - g.result["winner"]) for p, g in await stored(parlor, waves)]
        results += [Result(i, None, 1.0) for i, k in byes.items() for _ in range(k)]
        ids = [e["id"] for e in row.state["entrants"]]
        same = swiss_standings(ids, results) == [
            (e["id"], a, b, c) for e, a, b, c in parlor.host.tournaments.standings(row)]
        print(f"Swiss, {n} players, {rounds} rounds of Triad Dice: connecting {t1 - t0:.1f} s, "
              f"playing {t2 - t1:.1f} s ({row.status}); games {len(results) - sum(byes.values())}"
              f", repeated pairings {len(met) - len(set(met))}, most byes "
              f"{max(byes.values(), default=0)}, worst first-move imbalance "
              f"{first_move_spread(waves)}, standings match stored games: {same}")
        for p in players:
            await p.close()
    finally:
        await parlor.stop()


async def arena(tmp: Path, n: int, minutes: int, minute_seconds: float, think: float) -> None:
    parlor = await parlor_in(tmp / "arena", minute_seconds)
    try:
        await seed(parlor, tmp / "arena")
        t0 = time.perf_counter()
        players = await connect(parlor, names("Ar", n))
        for p in players:
            await give_deck(parlor, p.name, CHAIN_BOB)
        t1 = time.perf_counter()
        await players[0].cmd(f"tourney create tt arena {minutes}", "is open")
        for p in players:
            await p.cmd("tourney join 1", "You enter")
        players[0].send("tourney start 1")
        await asyncio.gather(*(player(p, "Triptycha", "tt", 1, think) for p in players))
        t2 = time.perf_counter()
        row = await parlor.host.tournaments.get(1)
        waves = row.state["pairings"]
        last: dict[int, int] = {}
        rematches = 0
        order: dict[int, list[float]] = {}
        for p, g in await stored(parlor, waves):
            a, b = p["first"], p["second"]
            rematches += last.get(a) == b
            last[a], last[b] = b, a
            s = 0.5 if g.result["winner"] is None else 1.0 - g.result["winner"]
            order.setdefault(a, []).append(s)
            order.setdefault(b, []).append(1 - s)
        table = parlor.host.tournaments.standings(row)
        same = {t["entrant"]["id"]: t["points"] for t in table if t["games"]} == {
            i: arena_points(s)[0] for i, s in order.items()}
        print(f"Arena, {n} players, {minutes} minutes of Triptycha (a minute: {minute_seconds:g} s)"
              f": connecting {t1 - t0:.1f} s, playing {t2 - t1:.1f} s ({row.status}); games "
              f"{sum(map(len, order.values())) // 2}, immediate rematches {rematches}, worst "
              f"first-move imbalance {first_move_spread(waves)}, standings match stored "
              f"games: {same}")
        for p in players:
            await p.close()
    finally:
        await parlor.stop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--swiss-players", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--arena-players", type=int, default=32)
    parser.add_argument("--arena-minutes", type=int, default=10)
    parser.add_argument("--minute-seconds", type=float, default=60.0)
    parser.add_argument("--think", type=float, default=1.0, help="seconds before a resign")
    opts = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "swiss").mkdir()
        (Path(tmp) / "arena").mkdir()
        asyncio.run(swiss(Path(tmp), opts.swiss_players, opts.rounds, opts.think))
        asyncio.run(arena(Path(tmp), opts.arena_players, opts.arena_minutes,
                          opts.minute_seconds, opts.think))


if __name__ == "__main__":
    main()
