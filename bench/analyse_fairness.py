"""How long one player's ANALYSE takes while another address loops ANALYSE.

    .venv/bin/python bench/analyse_fairness.py                 # 10 looping connections
    .venv/bin/python bench/analyse_fairness.py --crowd 0       # the same player, alone

One server process (``esterport serve``, the shipped config but for its port, a SQLite
file in a temporary folder and cheap password hashes). A player finishes ``--games``
standard Pyramid games of ``--moves`` D's each, so their records hold that many positions
each. Then ``--crowd`` players at one address (127.0.0.1) EXAMINE the first games and loop
ANALYSE, each time at the next position (so that few answers can come from the solver's
memory); after ``--warmup`` seconds one player at another address (127.0.0.2) asks ANALYSE
``--asks`` times at positions of the last game, which nobody else asks about, and times
every answer; the crowd loops until that player is done (at most ``--seconds``). With
``--same`` each of the crowd EXAMINEs one position and loops ANALYSE there, as the attack
campaign did (then the solver's memory answers all but the first). It prints that player's times (median and worst), how many answers the
crowd got, how many times it was told the solver was still analysing theirs.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.chaos import Conn, Lost, Server  # noqa: E402

PASSWORD = "secret"
ANSWER = r"(best Par is[^\n]*\n|still analysing[^\n]*\n|deal is over[^\n]*\n)"


def write_config(folder: Path) -> str:
    path = folder / "config.toml"
    path.write_text(textwrap.dedent(f"""
        [server]
        port = 0
        [database]
        url = "sqlite+aiosqlite:///{folder}/fair.db"
        [web]
        enabled = false
        [login]
        new_accounts_per_address = 1000
        new_accounts_per_minute = 1000
        [accounts]
        argon2_time_cost = 1
        argon2_memory_kib = 1024
    """))
    return str(path)


async def player(port: int, name: str, address: str) -> Conn:
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))
    conn = Conn(reader, writer)
    await conn.expect("Name: ", 30)
    for line, prompt in (("NEW", "Choose a name: "), (name, "Choose a password: "),
                         (PASSWORD, "Type it again: "), (PASSWORD, "Exits:")):
        conn.send(line)
        await conn.expect(prompt, 60)
    return conn


async def run(args: argparse.Namespace) -> None:
    folder = Path(tempfile.mkdtemp(prefix="esterport-fair-"))
    server = Server(write_config(folder))
    server.start()
    try:
        port = server.port
        dealer = await player(port, "Dealer", "127.0.0.3")
        for number in range(1, args.games + 1):
            dealer.send("pyr new")
            await dealer.expect("your move", 30)
            for _ in range(args.moves):
                dealer.send("pyr d")
                await dealer.expect(r"Dealer: D\r?\n", 30)
            dealer.send("pyr quit yes")
            await dealer.expect(f"Game #{number} is over", 30)
            await dealer.expect("The solver, seeing every card", 120)
        dealer.close()
        crowd = [await player(port, f"Loop{i:02d}", "127.0.0.1") for i in range(args.crowd)]
        other = await player(port, "Other", "127.0.0.2")
        stop = time.monotonic() + args.seconds
        done = asyncio.Event()
        counts = {"answers": 0, "still_analysing": 0}
        # the crowd takes the positions of the first games, the other player the last's
        theirs = [(g, m) for m in range(1, args.moves + 1) for g in range(1, args.games)]
        mine = [(args.games, m) for m in range(1, args.asks + 1)]

        async def loop(i: int, conn: Conn) -> None:
            k = i
            while time.monotonic() < stop and not done.is_set():
                if k < args.crowd or not args.same:
                    game, move = theirs[k % len(theirs)]
                    k += args.crowd or 1
                    conn.send(f"examine {game} {move}")
                    await conn.expect(f"Move {move} of", 30)
                conn.send("analyse")
                out = await conn.expect(ANSWER, 120)
                counts["still_analysing" if "still" in out else "answers"] += 1
                if "still" in out:
                    await asyncio.sleep(0.05)  # looping as fast as the answers come

        looping = [asyncio.create_task(loop(i, c)) for i, c in enumerate(crowd)]
        await asyncio.sleep(args.warmup)  # the crowd's queue builds up
        took = []
        for game, move in mine:
            other.send(f"examine {game} {move}")
            await other.expect(f"Move {move} of", 30)
            t0 = time.monotonic()
            other.send("analyse")
            await other.expect(ANSWER, 300)
            took.append(time.monotonic() - t0)
        done.set()
        await asyncio.gather(*looping, return_exceptions=True)
    except (Lost, TimeoutError) as err:
        print("failed:", err)
        print("".join(server.log[-20:]))
        raise
    finally:
        server.stop()
    print(f"crowd of {args.crowd} at one address: {counts}")
    print(f"another address's ANALYSE, {len(took)} asks: median {statistics.median(took):.2f} s, "
          f"worst {max(took):.2f} s ({', '.join(f'{t:.2f}' for t in took)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--crowd", type=int, default=10, help="looping connections")
    parser.add_argument("--seconds", type=float, default=180.0, help="the crowd's most")
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--same", action="store_true",
                        help="each of the crowd loops ANALYSE at one position")
    parser.add_argument("--games", type=int, default=4, help="stored games")
    parser.add_argument("--moves", type=int, default=20, help="D's in each stored game")
    parser.add_argument("--asks", type=int, default=6, help="the other player's ANALYSEs")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
