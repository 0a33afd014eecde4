"""A flood of password logins against one server with the shipped [accounts] settings:
its memory and its log.

    .venv/bin/python bench/login_flood.py                       # shipped settings, 20 s
    .venv/bin/python bench/login_flood.py --hashing-at-once 2 --memory-kib 65536 --time-cost 3

One server process (``esterport serve``, SQLite in a temporary folder, the shipped
config.toml but for its port, database and the new-account limits this script needs to
make its accounts). ``--hashing-at-once``, ``--memory-kib``, ``--time-cost`` and
``--log-repeats`` set those settings instead of the shipped ones. The script makes
``--accounts`` accounts one at a time, then ``--connections`` connections from 30 loopback
addresses log in to them over and over for ``--seconds``, every other try with a wrong
password (each try, right or wrong, costs the server a password hash). It prints the
server's resident memory when fresh (VmRSS), its peak before the flood and at the end
(VmHWM: the high-water mark, which catches the hashes' brief peaks that a sampled RSS
misses), the log lines written during the flood, and what the logins got.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.chaos import Conn, Lost, Server  # noqa: E402

PASSWORD = "secret"


def status_kib(pid: int, field: str) -> int:
    """A field of /proc/<pid>/status in KiB (VmRSS, VmHWM)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def write_config(folder: Path, args: argparse.Namespace) -> str:
    accounts = "\n".join(f"{key} = {value}" for key, value in (
        ("hashing_at_once", args.hashing_at_once), ("argon2_memory_kib", args.memory_kib),
        ("argon2_time_cost", args.time_cost)) if value is not None)
    server = f"log_repeats = {args.log_repeats}" if args.log_repeats is not None else ""
    path = folder / "config.toml"
    path.write_text(textwrap.dedent(f"""
        [server]
        port = 0
        {server}
        [database]
        url = "sqlite+aiosqlite:///{folder}/flood.db"
        [web]
        port = 0
        [login]
        new_accounts_per_address = 1000
        new_accounts_per_minute = 1000
        [accounts]
    """) + accounts + "\n")
    return str(path)


async def connect(port: int, address: str) -> Conn:
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))
    return Conn(reader, writer)


async def create(port: int, name: str) -> None:
    conn = await connect(port, "127.0.99.1")
    try:
        await conn.expect("Name: ", 30)
        for line, prompt in (("NEW", "Choose a name: "), (name, "Choose a password: "),
                             (PASSWORD, "Type it again: "), (PASSWORD, "Exits:")):
            conn.send(line)
            await conn.expect(prompt, 60)
    finally:
        conn.close()


async def try_login(port: int, name: str, password: str, address: str) -> str:
    """One login: "ok", "wrong", "refused" (throttled) or "lost"."""
    try:
        conn = await connect(port, address)
    except OSError:
        return "lost"
    try:
        await conn.expect("Name: ", 30)
        conn.send(name)
        out = await conn.expect("(Password: |Too many[^\n]*\n)", 30)
        if "Password" not in out:
            return "refused"
        conn.send(password)
        out = await conn.expect("(Exits:|Too many[^\n]*\n|Wrong password)", 60)
        return "ok" if "Exits" in out else "wrong" if "Wrong" in out else "refused"
    except (Lost, TimeoutError, OSError):
        return "lost"
    finally:
        conn.close()


async def run(args: argparse.Namespace) -> None:
    folder = Path(tempfile.mkdtemp(prefix="esterport-flood-"))
    server = Server(write_config(folder, args))
    server.start()
    try:
        pid = server.proc.pid
        await asyncio.sleep(2)
        fresh = status_kib(pid, "VmRSS")
        names = [f"Flood{i:02d}" for i in range(args.accounts)]
        for name in names:
            await create(server.port, name)
        await asyncio.sleep(1)
        before = status_kib(pid, "VmHWM")
        logged = len(server.log)
        stop = time.monotonic() + args.seconds
        counts = {"ok": 0, "wrong": 0, "refused": 0, "lost": 0}

        async def crowd(i: int) -> None:
            n = 0
            while time.monotonic() < stop:
                n += 1
                password = "wrong-guess" if n % 2 else PASSWORD
                got = await try_login(server.port, names[i % len(names)], password,
                                      f"127.0.100.{i % 30 + 1}")
                counts[got] += 1

        await asyncio.gather(*(crowd(i) for i in range(args.connections)))
        lines = len(server.log) - logged
        await asyncio.sleep(1)
        peak = status_kib(pid, "VmHWM")
        after = status_kib(pid, "VmRSS")
    finally:
        server.stop()
    settings = " ".join(f"{k}={v}" for k, v in (
        ("hashing_at_once", args.hashing_at_once), ("argon2_memory_kib", args.memory_kib),
        ("argon2_time_cost", args.time_cost), ("log_repeats", args.log_repeats))
        if v is not None) or "shipped"
    print(f"settings: {settings}")
    print(f"fresh RSS {fresh / 1024:.1f} MiB; peak before the flood {before / 1024:.1f} MiB; "
          f"peak at the end {peak / 1024:.1f} MiB; RSS after {after / 1024:.1f} MiB")
    print(f"{args.seconds:.0f} s of {args.connections} connections: logins {counts}; "
          f"{lines} log lines written during the flood")
    tail = [line.rstrip() for line in server.log[-4:]]
    print("last log lines:", *tail, sep="\n  ")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--accounts", type=int, default=10)
    parser.add_argument("--connections", type=int, default=60)
    parser.add_argument("--hashing-at-once", type=int)
    parser.add_argument("--memory-kib", type=int)
    parser.add_argument("--time-cost", type=int)
    parser.add_argument("--log-repeats", type=int,
                        help="[server] log_repeats (0: every line logged)")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
