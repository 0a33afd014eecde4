"""Disconnect storms against a real server process, with its memory measured.

    .venv/bin/python bench/storm.py --rounds 10 --players 200 --logging-in 200
    .venv/bin/python bench/storm.py ... --database postgresql+asyncpg://...  # an empty one

Each round: ``--players`` players log in over raw telnet, pair up and start a game of
the test game (a player whose game waited through the last storm resigns it first:
that is the proof it waited), say something, and ``--logging-in`` more connections stop
half-way through logging in. Then everyone goes at once, a quarter each way: a polite
close (FIN), a reset (RST), a vanished network (a half-open socket that never answers
again) and a forgotten connection (the client's host drops it without a word; the
server learns only from its next probe). The last two need root; without it they
become FIN and RST.

The script watches the server process from outside (/proc): the connections it holds
open, until there are none, and its resident memory (VmRSS).
It prints a line per round and a JSON summary, and exits 1 if a round's connections were
not all freed within twice the keepalive plus the login timeout, or a game did not wait
for its players.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.chaos import Conn, Lost, Server  # noqa: E402
from tests.support import sockets  # noqa: E402

TEST_GAME = "tests.support.tictactoe:KIND"


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def open_connections(pid: int, port: int) -> int:
    """How many connections to ``port`` the process still holds open (its listening
    socket and its database connections not counted)."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(link[8:-1])
    count = 0
    for table in ("tcp", "tcp6"):
        try:
            with open(f"/proc/{pid}/net/{table}") as f:
                next(f)
                for line in f:
                    fields = line.split()
                    local, state, inode = fields[1], fields[3], fields[9]
                    if (int(local.rsplit(":", 1)[1], 16) == port and state != "0A"
                            and inode in inodes):
                        count += 1
        except OSError:
            pass
    return count


def write_config(folder: Path, keepalive: int, login_timeout: int, url: str,
                 gc_freeze_every: float | None = None) -> str:
    path = folder / "config.toml"
    freeze = "" if gc_freeze_every is None else f"gc_freeze_every = {gc_freeze_every}"
    path.write_text(textwrap.dedent(f"""
        [server]
        {freeze}
        port = 0
        keepalive = {keepalive}
        login_timeout = {login_timeout}
        idle_timeout = 0
        max_connections_per_address = 100000
        commands_per_second = 200
        command_burst = 1000
        log_level = "WARNING"
        [database]
        url = "{url}"
        [web]
        enabled = false  # telnet only: benches run side by side, one port 8080
        [login]
        logins_per_minute = 1000000  # the bench logs its players in again and again
        new_accounts_per_address = 1000000
        new_accounts_per_minute = 1000000
        lines_per_second = 100000
        [accounts]
        argon2_time_cost = 1
        argon2_memory_kib = 1024
        [games]
        reconnect_grace = 3600
        extra = ["{TEST_GAME}"]
    """))
    return str(path)


async def log_in(port: int, name: str, new: bool) -> tuple[Conn, bool]:
    """A logged-in connection, and whether the server said a game was waiting."""
    conn = await Conn.open(port)
    await conn.expect("Name: ", 30)
    if new:
        conn.send("NEW")
        await conn.expect("Choose a name: ", 30)
        conn.send(name)
        await conn.expect("Choose a password: ", 30)
        conn.send("secret")
        await conn.expect("Type it again: ", 30)
    else:
        conn.send(name)
        await conn.expect("Password: ", 30)
    conn.send("secret")
    await conn.expect("Exits:", 60)
    conn.send("help quit")
    out = await conn.expect("Usage: QUIT", 60)
    return conn, "You have a game in progress" in out


class Storm:
    def __init__(self, server: Server, players: int, logging_in: int,
                 rate: float = 0.0) -> None:
        self.server = server
        self.rate = rate  # logins started a second (0: all at once)
        self.names = [f"Storm{i:03d}" for i in range(players)]
        self.logging_in = logging_in
        self.created = False
        self.in_game: set[str] = set()   # players whose game should be waiting for them
        self.problems: list[str] = []

    async def pair(self, a: str, b: str) -> list[Conn]:
        (ca, wa), (cb, wb) = await asyncio.gather(
            log_in(self.server.port, a, not self.created),
            log_in(self.server.port, b, not self.created))
        for name, waited in ((a, wa), (b, wb)):
            if (name in self.in_game) != waited:
                self.problems.append(f"{name}: game waiting {waited}, expected "
                                     f"{name in self.in_game}")
        if wa or wb:
            (ca if wa else cb).send("ttt resign")
            await ca.expect("wins", 30)
        ca.send(f"ttt challenge {b}")
        await cb.expect("TTT ACCEPT", 30)
        cb.send(f"ttt accept {a}")
        await ca.expect("begins", 30)
        ca.send("ttt play 5")
        await cb.expect(f"{a}: PLAY 5", 30)
        ca.send(f"say {a} and {b} are playing.")
        await cb.expect("are playing", 30)
        self.in_game |= {a, b}
        return [ca, cb]

    async def paced(self, i: int, a: str, b: str) -> list[Conn]:
        """Pair ``i`` logs in when its turn comes at ``rate`` logins a second (at once
        when the rate is 0)."""
        if self.rate:
            await asyncio.sleep(2 * i / self.rate)
        return await self.pair(a, b)

    async def round(self, n: int, keepalive: int, login_timeout: int) -> dict:
        pid = self.server.proc.pid
        pairs = list(zip(self.names[::2], self.names[1::2]))
        t0 = time.monotonic()
        conns = [c for pair in await asyncio.gather(*(self.paced(i, a, b)
                                                      for i, (a, b) in enumerate(pairs)))
                 for c in pair]
        self.created = True
        for _ in range(self.logging_in):
            c = await Conn.open(self.server.port)
            c.send("Storm000")   # a name, and never the password
            conns.append(c)
        await asyncio.sleep(1.0)  # let the last ones reach the password prompt
        ready_s = time.monotonic() - t0
        peak_connections = open_connections(pid, self.server.port)
        peak_rss = rss_kib(pid)

        half_open = sockets.half_open_supported()
        ways = [sockets.fin, sockets.reset,
                sockets.vanish if half_open else sockets.fin,
                sockets.reboot if half_open else sockets.reset]
        t0 = time.monotonic()
        for i, c in enumerate(conns):
            ways[i % 4](c.writer)
        limit = 2 * keepalive + login_timeout + 5
        while open_connections(pid, self.server.port) and time.monotonic() - t0 < limit:
            await asyncio.sleep(0.1)
        freed_s = time.monotonic() - t0
        left = open_connections(pid, self.server.port)
        if left > 0:
            self.problems.append(f"round {n}: {left} connections still open after {limit} s")
        for c in conns:
            c.writer.transport.abort()
        await asyncio.sleep(0.5)
        return {"round": n, "connections": len(conns), "ready_s": round(ready_s, 1),
                "connections_peak": peak_connections, "freed_s": round(freed_s, 1),
                "left_open": max(0, left), "rss_peak_mib": round(peak_rss / 1024, 1),
                "rss_after_mib": round(rss_kib(pid) / 1024, 1)}

    async def run(self, rounds: int, keepalive: int, login_timeout: int) -> dict:
        self.server.start()
        pid = self.server.proc.pid
        await asyncio.sleep(1.0)
        baseline_rss = rss_kib(pid)
        rows = []
        for n in range(1, rounds + 1):
            try:
                row = await self.round(n, keepalive, login_timeout)
            except (Lost, TimeoutError) as err:
                self.problems.append(f"round {n}: {err}")
                break
            rows.append(row)
            print(json.dumps(row), file=sys.stderr)
        alive = self.server.proc.poll() is None
        if not alive:
            self.problems.append("the server died")
        after = [r["rss_after_mib"] for r in rows]
        return {
            "rounds": len(rows), "players": len(self.names), "logging_in": self.logging_in,
            "half_open": sockets.half_open_supported(), "keepalive_s": keepalive,
            "rss_baseline_mib": round(baseline_rss / 1024, 1),
            "rss_after_first_mib": after[0] if after else None,
            "rss_after_last_mib": after[-1] if after else None,
            "rss_growth_per_round_after_first_kib": (
                round((after[-1] - after[0]) * 1024 / (len(after) - 1)) if len(after) > 1
                else None),
            "freed_s_max": max((r["freed_s"] for r in rows), default=None),
            "problems": len(self.problems),
        }


async def amain(args: argparse.Namespace) -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    folder = Path(tempfile.mkdtemp(prefix="esterport-storm-"))
    url = args.database or f"sqlite+aiosqlite:///{folder}/storm.db"
    server = Server(write_config(folder, args.keepalive, args.login_timeout, url,
                                 args.gc_freeze_every))
    storm = Storm(server, args.players - args.players % 2, args.logging_in, args.rate)
    try:
        figures = await storm.run(args.rounds, args.keepalive, args.login_timeout)
    finally:
        server.stop()
    figures["database"] = url.split(":", 1)[0]
    print(json.dumps(figures))
    for p in storm.problems[:30]:
        print("PROBLEM:", p)
    if storm.problems:
        print("the server's last words:\n" + "".join(server.log[-15:]), file=sys.stderr)
    return 1 if storm.problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--players", type=int, default=200, help="logged in, in games")
    parser.add_argument("--logging-in", type=int, default=200, help="stopped mid-login")
    parser.add_argument("--rate", type=float, default=0.0,
                        help="logins started a second (default 0: all at once)")
    parser.add_argument("--keepalive", type=int, default=2, help="the server's setting, s")
    parser.add_argument("--login-timeout", type=int, default=30, help="the server's, s")
    parser.add_argument("--database", help="an empty database's URL (default: a new SQLite)")
    parser.add_argument("--gc-freeze-every", type=float,
                        help="the server's [server] gc_freeze_every (default: its own)")
    return asyncio.run(amain(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
