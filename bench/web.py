"""The web door under load: N readers of a live game's page while M telnet players play.

    .venv/bin/python bench/web.py                       # 200 readers, 100 players, 10 s
    .venv/bin/python bench/web.py --readers 50 --players 20 --seconds 5

One parlor (``python -m commands.app serve``, its own SQLite in a temporary folder, web
door on a free port). M telnet players (telnetlib3 clients accepting GMCP, as Mudlet
would) each play Triad Dice against the easy computer: once a second (open loop, at a
random phase) a player sends its next move, picked from the legal moves its GMCP view
lists, or, when it is not its turn, ``DICE`` (the board); the latency of a command is
the time until its answer arrives (``<name>: <move>``, or the board). When a game ends
the player starts another.

Two phases of ``--seconds`` each: the players alone ("before"), then the players while
N readers (in a second process, so they do not share the players' event loop) fetch
``/games/<n>`` in a closed loop, n being the games in play (round robin). Prints p50 and
p99 of the page latency and pages/s, and the players' p50/p99 before and during, with
the CPU the server used (100% = one core). Exits 1 if a command or a page went
unanswered or failed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import random
import re
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def cpu_seconds(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        import os
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def config(folder: Path, players: int) -> Path:
    path = folder / "config.toml"
    path.write_text(textwrap.dedent(f"""\
        [server]
        port = 0
        idle_timeout = 0
        max_connections_per_address = {players + 50}
        commands_per_second = 1000
        command_burst = 1000
        log_level = "WARNING"
        [database]
        url = "sqlite+aiosqlite:///{folder}/bench.db"
        [login]
        new_accounts_per_address = 1000000
        new_accounts_per_minute = 1000000
        lines_per_second = 100000
        [accounts]
        argon2_time_cost = 1
        argon2_memory_kib = 1024
        [games]
        computer_delay = 0.0
        [web]
        port = 0
        max_requests = 5000
    """))
    return path


def start(folder: Path, players: int) -> tuple[subprocess.Popen, int, str]:
    log = folder / "server.log"
    fh = open(log, "w")
    proc = subprocess.Popen([sys.executable, "-m", "commands.app", "serve", "--config",
                             str(config(folder, players))], stdout=subprocess.DEVNULL,
                            stderr=fh, cwd=ROOT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        text = log.read_text(errors="replace")
        web = re.search(r"point a browser at (http://\S+)", text)
        telnet = re.search(r"Connect with: telnet \S+ (\d+)", text)
        if web and telnet:
            return proc, int(telnet.group(1)), web.group(1)
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    raise SystemExit("the server did not start:\n" + log.read_text(errors="replace")[-3000:])


# -- telnet players ----------------------------------------------------------------------------
class Player:
    def __init__(self, index: int, port: int) -> None:
        self.name = f"Webbench{index:04d}"
        self.port = port
        self.view: dict | None = None
        self.text = ""
        self.latencies: list[tuple[float, float]] = []   # (when sent, seconds)
        self.failures = 0
        self.games = 0

    async def connect(self) -> None:
        import telnetlib3
        from telnetlib3.telopt import GMCP

        player = self

        class Protocol(telnetlib3.TelnetClient):
            def connection_made(self, transport) -> None:  # noqa: ANN001
                super().connection_made(transport)
                self.writer.always_do.update({GMCP})
                self.writer.set_ext_callback(GMCP, player.on_gmcp)

        self.reader, self.writer = await telnetlib3.open_connection(
            "127.0.0.1", self.port, client_factory=Protocol, cols=120, rows=40, term="bench",
            connect_minwait=0.05, connect_maxwait=0.5, encoding="utf8", force_binary=True)
        for line, until in (("", "Name: "), ("new", "Choose a name: "),
                            (self.name, "Choose a password: "), ("benchpass", "Type it again: "),
                            ("benchpass", "> ")):
            if line:
                self.writer.write(line + "\r\n")
            await self.until(until, 30)

    def on_gmcp(self, package: str, data) -> None:  # noqa: ANN001
        if package == "Dice.Game" and isinstance(data, dict):
            self.view = data

    async def until(self, pattern: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while pattern not in self.text:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(pattern)
            chunk = await asyncio.wait_for(self.reader.read(65536), left)
            if not chunk:
                raise ConnectionError("closed")
            self.text += chunk
        self.text = self.text[self.text.index(pattern) + len(pattern):]

    async def new_game(self) -> None:
        self.view = None
        self.writer.write("dice challenge computer easy\r\n")
        await self.until("begins", 30)
        self.games += 1

    def next_command(self) -> tuple[str, str]:
        """The command to send and the text that answers it."""
        v = self.view
        if v and not v.get("finished") and v.get("seat") in v.get("view", {}).get("to_move", ()):
            legal = v["view"].get("legal") or []
            if legal:
                move = random.choice(legal)
                return f"dice {move}", f"{self.name}: {move}"
        return "dice", "Triad Dice - turn"

    async def play(self, until: float, start_at: float) -> None:
        await asyncio.sleep(random.random())
        tick = time.monotonic()
        while time.monotonic() < until:
            if self.view and self.view.get("finished"):
                await self.new_game()
            command, answer = self.next_command()
            sent = time.monotonic()
            self.text = ""
            self.writer.write(command + "\r\n")
            try:
                await self.until(answer, 10)
                if sent >= start_at:
                    self.latencies.append((sent, time.monotonic() - sent))
            except (TimeoutError, asyncio.TimeoutError):
                self.failures += 1
            tick += 1.0
            await asyncio.sleep(max(0.0, tick - time.monotonic()))


# -- page readers (a process of their own) -----------------------------------------------------
def readers_main(url: str, n: int, seconds: float, out: multiprocessing.Queue) -> None:
    async def run() -> dict:
        import httpx

        limits = httpx.Limits(max_connections=n, max_keepalive_connections=n)
        async with httpx.AsyncClient(base_url=url.rstrip("/"), limits=limits, timeout=30) as http:
            numbers = [g["id"] for g in (await http.get("/api/games")).json()["games"]] or [1]
            latencies: list[float] = []
            failures = 0
            until = time.monotonic() + seconds

            async def reader(i: int) -> None:
                nonlocal failures
                k = i
                while time.monotonic() < until:
                    path = f"/games/{numbers[k % len(numbers)]}"
                    k += 1
                    sent = time.monotonic()
                    try:
                        r = await http.get(path)
                        ok = r.status_code == 200 and 'id="board"' in r.text
                    except httpx.HTTPError:
                        ok = False
                    if ok:
                        latencies.append(time.monotonic() - sent)
                    else:
                        failures += 1

            started = time.monotonic()
            await asyncio.gather(*(reader(i) for i in range(n)))
            return {"latencies": latencies, "failures": failures,
                    "elapsed": time.monotonic() - started, "games": len(numbers)}

    out.put(json.dumps(asyncio.run(run())))


# -- the run ---------------------------------------------------------------------------------
async def main_async(ns: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="esterport-web-bench-") as tmp:
        proc, port, url = start(Path(tmp), ns.players)
        try:
            players = [Player(i, port) for i in range(ns.players)]
            for i in range(0, len(players), 20):
                await asyncio.gather(*(p.connect() for p in players[i:i + 20]))
            await asyncio.gather(*(p.new_game() for p in players))
            t0 = time.monotonic()
            before_end = t0 + ns.seconds
            during_end = before_end + ns.seconds
            play = asyncio.gather(*(p.play(during_end, t0) for p in players))
            await asyncio.sleep(max(0.0, before_end - time.monotonic()))
            cpu0 = cpu_seconds(proc.pid)
            queue: multiprocessing.Queue = multiprocessing.Queue()
            readers = multiprocessing.Process(target=readers_main,
                                              args=(url, ns.readers, ns.seconds, queue))
            readers.start()
            pages = json.loads(await asyncio.to_thread(queue.get))
            cpu1 = cpu_seconds(proc.pid)
            await play
            readers.join()
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
    lat = [x for p in players for x in p.latencies]
    before = [s for t, s in lat if t < before_end]
    during = [s for t, s in lat if t >= before_end]
    page = pages["latencies"]
    failures = sum(p.failures for p in players) + pages["failures"]
    ms = lambda v: f"{v * 1000:8.1f}"  # noqa: E731
    print(f"web door bench: {ns.readers} readers of /games/<n> ({pages['games']} games), "
          f"{ns.players} telnet players playing Triad Dice, {ns.seconds:g} s a phase")
    print(f"{'':28}{'count':>8}{'per s':>9}{'p50 ms':>9}{'p99 ms':>9}")
    print(f"{'telnet commands, before':28}{len(before):8d}{len(before) / ns.seconds:9.1f}"
          f"{ms(percentile(before, .5))}{ms(percentile(before, .99))}")
    print(f"{'telnet commands, during':28}{len(during):8d}{len(during) / ns.seconds:9.1f}"
          f"{ms(percentile(during, .5))}{ms(percentile(during, .99))}")
    print(f"{'pages /games/<n>':28}{len(page):8d}{len(page) / pages['elapsed']:9.1f}"
          f"{ms(percentile(page, .5))}{ms(percentile(page, .99))}")
    if cpu0 is not None and cpu1 is not None:
        print(f"server CPU while readers ran: {100 * (cpu1 - cpu0) / pages['elapsed']:.0f}% "
              f"(100% = one core); games started: {sum(p.games for p in players)}")
    print(f"failures (unanswered commands, failed pages): {failures}")
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--readers", type=int, default=200, help="concurrent page readers")
    parser.add_argument("--players", type=int, default=100, help="telnet players")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each phase")
    ns = parser.parse_args(argv)
    if ns.readers < 1 or ns.players < 1 or ns.seconds <= 0:
        parser.error("readers and players are at least 1, seconds above 0")
    return asyncio.run(main_async(ns))


if __name__ == "__main__":
    sys.exit(main())
