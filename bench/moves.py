"""CPU a move in the host: two accounts play Triad Dice through the parlor's own services
(``GameHost.act``: the engine, the move stored in its transaction, every audience told),
with no sockets, so what is measured is a move's own cost in the parlor.

    .venv/bin/python bench/moves.py [--games 30] [--turns 3] [--database URL]
        [--against DIR]

Each turn plays ``--games`` games with moves chosen by a seeded random player and prints
the CPU a move: of the process (the event loop's thread and SQLite's worker thread, which
runs the statements) and of the event loop's thread alone. ``--against DIR`` measures
another checkout's parlor in the same turns (each turn runs one, then the other, in a
process of its own), and prints each one's median and the ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()


async def measure(url: str, games: int, seed: int) -> dict:
    from commands.app import assemble
    from games.dice import rules
    from server.config import (AccountsSection, Config, DatabaseSection, GamesSection,
                               LoginSection, ServerSection)
    from server.hosting import Seat

    config = Config(
        server=ServerSection(host="127.0.0.1", port=0),
        database=DatabaseSection(url=url),
        login=LoginSection(),
        games=GamesSection(computer_delay=0.0),
        accounts=AccountsSection(argon2_time_cost=1, argon2_memory_kib=1024))
    parlor = assemble(config)
    await parlor.db.migrate()
    try:
        run = random.Random().randrange(10**8)   # a database given may be used again
        a = await parlor.accounts.create(f"Alpha{run}", "benchpass")
        b = await parlor.accounts.create(f"Bravo{run}", "benchpass")
        seats = (Seat(a.id, a.name), Seat(b.id, b.name))
        spec = parlor.host.kinds["dice"].spec
        rng = random.Random(seed)
        moves, cpu, loop_cpu = 0, 0.0, 0.0
        for _ in range(games):
            game = await parlor.host.start_game("dice", seats, spec.parse_options([]))
            while game.outcome is None:
                seat = list(spec.to_move(game.state))[0]
                action = rng.choice(list(rules.legal_actions(game.state, seat)))
                began, began_loop = time.process_time(), time.thread_time()
                await parlor.host.act(seats[seat].account_id, "dice", action)
                cpu += time.process_time() - began
                loop_cpu += time.thread_time() - began_loop
                moves += 1
        return {"moves": moves, "cpu_us": 1e6 * cpu / moves, "loop_us": 1e6 * loop_cpu / moves}
    finally:
        await parlor.host.close()
        await parlor.db.close()


def one_turn(code: Path, games: int, seed: int, database: str | None) -> dict:
    """One measurement in a process of its own, with ``code`` first on its path."""
    out = subprocess.run(
        [sys.executable, str(HERE), "--one", str(code), "--games", str(games),
         "--seed", str(seed)] + (["--database", database] if database else []),
        capture_output=True, text=True, cwd=code, timeout=1800,
        env={**os.environ, "PYTHONPATH": str(code)})
    if out.returncode != 0:
        raise SystemExit(f"the measurement in {code} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=30, help="games a turn (default 30)")
    p.add_argument("--turns", type=int, default=3, help="turns (default 3)")
    p.add_argument("--database", metavar="URL",
                   help="the database (default: SQLite in a new temporary folder a turn)")
    p.add_argument("--against", metavar="DIR", type=Path,
                   help="also measure the parlor of another checkout, in the same turns")
    p.add_argument("--one", metavar="DIR", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--seed", type=int, default=1, help=argparse.SUPPRESS)
    ns = p.parse_args()
    if ns.one is not None:  # a measurement, in its own process
        sys.path.insert(0, str(ns.one.resolve()))
        with tempfile.TemporaryDirectory(prefix="esterport-moves-") as folder:
            url = ns.database or f"sqlite+aiosqlite:///{folder}/moves.db"
            print(json.dumps(asyncio.run(measure(url, ns.games, ns.seed))))
        return
    if ns.database and ns.against:
        raise SystemExit("--database with --against would share one database: use SQLite")
    codes = {"this": HERE.parent.parent}
    if ns.against:
        codes["against"] = ns.against.resolve()
    print(f"CPU a Triad Dice move in the host, {ns.games} games a turn, {ns.turns} turns; "
          f"database: {ns.database or 'SQLite (a new file a turn)'}")
    print(f"{'turn':>4} {'code':8} {'moves':>6} {'process µs':>11} {'loop µs':>9}")
    seen: dict[str, list[dict]] = {name: [] for name in codes}
    for turn in range(ns.turns):
        for name, code in codes.items():
            got = one_turn(code, ns.games, turn + 1, ns.database)
            seen[name].append(got)
            print(f"{turn + 1:>4} {name:8} {got['moves']:>6} {got['cpu_us']:>11.0f} "
                  f"{got['loop_us']:>9.0f}", flush=True)
    medians = {name: (statistics.median(g["cpu_us"] for g in runs),
                      statistics.median(g["loop_us"] for g in runs))
               for name, runs in seen.items()}
    for name, (cpu, loop) in medians.items():
        print(f"median   {name:8} process {cpu:.0f} µs, loop {loop:.0f} µs a move "
              f"({codes[name]})")
    if ns.against:
        (cpu, loop), (old_cpu, old_loop) = medians["this"], medians["against"]
        print(f"this / against: process {cpu / old_cpu:.2f}, loop {loop / old_loop:.2f}")


if __name__ == "__main__":
    main()
