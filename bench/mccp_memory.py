"""What MCCP2 costs an idle logged-in session: resident memory per session, with and without.

    .venv/bin/python bench/mccp_memory.py                   # 1,000 sessions each way
    .venv/bin/python bench/mccp_memory.py --players 3000 --window-bits 15 --mem-level 8

Three runs, each in a process of its own (memory a run freed would be reused by the
next), each one parlor on SQLite (as ``bench/idle.py``) with ``[server] mccp = true``
and players on raw sockets in a child process:

* **plain**: the players refuse MCCP2 (``IAC DONT 86``), as Debian's telnet does;
* **stream open**: they agree and decompress, and the stream stays open while idle
  (``mccp_idle = 0``): one zlib compressor a session;
* **stream ended**: the same, but the parlor ends a stream after 2 s without output
  (``mccp_idle``) and frees its compressor; measured once every stream has ended.

A first batch logs in (the parlor's caches warm), then ``--players`` more; a figure is
the growth of the parlor's resident memory (VmRSS) over the second batch, per session,
each VmRSS read after glibc's ``malloc_trim`` (so memory freed, such as an ended stream's
compressor, counts as freed, not as the allocator's to reuse).
zlib's own formula for a compressor is ``(1 << (windowBits + 2)) + (1 << (memLevel + 9))``
bytes, and its state about 6 KB more. Last, one player that agreed runs a few commands
(LOOK, WHO, HELP and others): the bytes that crossed the wire against the text they carried.
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import gc
import json
import os
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import load  # noqa: E402  (bench/load.py: its raw-socket player, config and accounts)
from storm import rss_kib  # noqa: E402

from commands.app import assemble  # noqa: E402
from server.config import Config  # noqa: E402

WARM = 100
IAC, DONT, DO, WILL, SB, SE, MCCP2, TTYPE = 255, 254, 253, 251, 250, 240, 86, 24
OFFER = bytes([IAC, WILL, MCCP2])
ASK_TTYPE = bytes([IAC, DO, TTYPE])  # a telnet client answers it (and is offered more)
START = bytes([IAC, SB, MCCP2, IAC, SE])
COMMANDS = ["look", "who", "help", "help dice", "help triad", "rankings dice", "look",
            "finger player0", "who", "look"]


class Squeezed(load.Player):
    """``bench/load.py``'s player that answers the terminal type's question (a telnet
    client, which the server then offers MCCP2), agrees to MCCP2 with ``accept`` (else
    refuses it, as telnet does), and decompresses what the server sends before the player reads it; ``wire`` and
    ``plain`` count the bytes as received and as read."""

    def __init__(self, name: str, accept: bool) -> None:
        super().__init__(name)
        self.accept = accept   # MCCP2 (the terminal type is answered either way)
        self.inflate: zlib._Decompress | None = None
        self.tail = b""   # the end of a chunk that may begin an MCCP2 start
        self.wire = self.plain = 0

    def data_received(self, data: bytes) -> None:
        self.wire += len(data)
        data, self.tail = self.tail + data, b""
        out = b""
        while data:
            if self.inflate is not None:
                out += self.inflate.decompress(data)
                data = b""
                if self.inflate.eof:   # the stream ended: what follows is plain
                    data, self.inflate = self.inflate.unused_data, None
                continue
            at = data.find(START)
            if at < 0:
                keep = next((k for k in range(len(START) - 1, 0, -1)
                             if data.endswith(START[:k])), 0)
                out, data, self.tail = out + data[:len(data) - keep], b"", data[len(data) - keep:]
            else:
                out, data = out + data[:at], data[at + len(START):]
                self.inflate = zlib.decompressobj()
        if ASK_TTYPE in out:   # as a MUD client does
            out = out.replace(ASK_TTYPE, b"")
            self.transport.write(bytes([IAC, WILL, TTYPE]))
        if self.accept and OFFER in out:
            out = out.replace(OFFER, b"")
            self.transport.write(bytes([IAC, DO, MCCP2]))
        self.plain += len(out)
        if out:
            super().data_received(out)


async def clients(port: int, count: int, accept: bool, concurrency: int) -> None:
    """The child process: log ``count`` players in, say "ready", run the commands on the
    first, print its byte counts, and keep them all until stdin closes."""
    load.raise_fd_limit()
    loop = asyncio.get_running_loop()
    gate = asyncio.Semaphore(concurrency)
    players: list[Squeezed] = []

    async def one(i: int) -> None:
        async with gate:
            _, p = await loop.create_connection(
                lambda: Squeezed(load.player_name(i), accept), "127.0.0.1", port)
            await p.log_in(load.PASSWORD, 120)
            players.append(p)

    async def batch(first: int, n: int) -> None:
        await asyncio.gather(*(one(i) for i in range(first, first + n)))
        print(json.dumps({"ready": len(players)}), flush=True)
        await loop.run_in_executor(None, sys.stdin.readline)

    await batch(0, WARM)
    await batch(WARM, count)
    first = players[0]
    wire, plain = first.wire, first.plain
    for command in COMMANDS:
        await first.answer(command, 30)
    print(json.dumps({"wire": first.wire - wire, "plain": first.plain - plain}), flush=True)
    await loop.run_in_executor(None, sys.stdin.readline)
    for p in players:
        p.transport.close()


def config_text(folder: Path, ns: argparse.Namespace, idle: float) -> Path:
    path = load.parlor_config(folder, f"sqlite+aiosqlite:///{folder}/db.sqlite",
                              WARM + ns.players)
    path.write_text(path.read_text().replace("[server]\n", (
        f"[server]\nmccp = true\nmccp_level = {ns.level}\nmccp_window_bits = {ns.window_bits}\n"
        f"mccp_mem_level = {ns.mem_level}\nmccp_idle = {idle}\n"), 1))
    return path


def resident() -> int:
    """This process's VmRSS in KiB, once the collector has run and glibc has returned
    the free memory it can to the system."""
    gc.collect()
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass
    return rss_kib(os.getpid())


async def measure(ns: argparse.Namespace) -> dict:
    """One run (``--run plain|open|ended``): the parlor's growth per session."""
    folder = Path(tempfile.mkdtemp(prefix="esterport-mccp-"))
    config = config_text(folder, ns, 2.0 if ns.run == "ended" else 0.0)
    load.seed_accounts(folder, config, WARM + ns.players)
    parlor = assemble(Config.load(config))
    await parlor.start()
    child = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "--_clients", str(parlor.port), str(ns.players),
        "1" if ns.run != "plain" else "0", str(ns.login_concurrency),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT)

    async def said() -> dict:
        line = await asyncio.wait_for(child.stdout.readline(), 600)
        if not line:
            raise RuntimeError("the players' process ended")
        return json.loads(line)

    async def go_on() -> None:
        child.stdin.write(b"\n")
        await child.stdin.drain()

    try:
        await said()
        await asyncio.sleep(3 if ns.run == "ended" else 1)
        before = resident()
        await go_on()
        await said()
        await asyncio.sleep(4 if ns.run == "ended" else 2)   # (every stream ends in 2 s)
        after = resident()
        open_streams = sum(bool(s.terminal.compressing)
                           for s in parlor.online.sessions.values())
        await go_on()
        counted = await said()
        return {"bytes": (after - before) * 1024 / ns.players, "open": open_streams,
                "sessions": len(parlor.online.sessions), **counted}
    finally:
        if child.returncode is None:
            child.stdin.close()
            try:
                await asyncio.wait_for(child.wait(), 30)
            except TimeoutError:
                child.kill()
        await parlor.stop()


def run(ns: argparse.Namespace) -> int:
    figures = {}
    for name in ("plain", "open", "ended"):
        done = subprocess.run([sys.executable, __file__, "--run", name, *sys.argv[1:]],
                              capture_output=True, text=True, timeout=1200, cwd=ROOT)
        if done.returncode != 0:
            print(f"the {name} run failed:\n{done.stderr[-3000:]}")
            return 1
        figures[name] = json.loads(done.stdout.strip().splitlines()[-1])
    plain, opened, ended = figures["plain"], figures["open"], figures["ended"]
    formula = (1 << (ns.window_bits + 2)) + (1 << (ns.mem_level + 9))
    print(f"MCCP2 at level {ns.level}, window 2^{ns.window_bits}, memLevel {ns.mem_level} "
          f"(zlib's formula: {formula / 1024:.1f} KiB a compressor); {ns.players} idle "
          f"logged-in sessions measured after {WARM}:")
    print(f"  plain (MCCP2 refused)        {plain['bytes'] / 1024:6.1f} KiB a session")
    print(f"  stream open                  {opened['bytes'] / 1024:6.1f} KiB a session "
          f"({opened['bytes'] / plain['bytes']:.2f}x plain; {opened['open']} of "
          f"{opened['sessions']} streams open)")
    print(f"  stream ended after 2 s idle  {ended['bytes'] / 1024:6.1f} KiB a session "
          f"({ended['bytes'] / plain['bytes']:.2f}x plain; {ended['open']} of "
          f"{ended['sessions']} streams open)")
    print(f"on the wire, {len(COMMANDS)} commands ({', '.join(COMMANDS)}): "
          f"{opened['plain']:,} bytes of text in {opened['wire']:,} compressed "
          f"({opened['plain'] / opened['wire']:.1f} to 1); plain: {plain['wire']:,}")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--_clients":
        port, count, accept, concurrency = argv[1:5]
        asyncio.run(clients(int(port), int(count), accept == "1", int(concurrency)))
        return 0
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--players", type=int, default=1000, help="sessions measured")
    p.add_argument("--level", type=int, default=6)
    p.add_argument("--window-bits", type=int, default=12)
    p.add_argument("--mem-level", type=int, default=2)
    p.add_argument("--login-concurrency", type=int, default=50)
    p.add_argument("--run", choices=("plain", "open", "ended"), help=argparse.SUPPRESS)
    ns = p.parse_args(argv)
    if ns.run:
        print(json.dumps(asyncio.run(measure(ns))))
        return 0
    return run(ns)


if __name__ == "__main__":
    sys.exit(main())
