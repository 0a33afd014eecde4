"""The web door under load: N readers of a live game's page while M telnet players play.

    .venv/bin/python bench/web.py                       # 200 readers, 100 players, 10 s
    .venv/bin/python bench/web.py --readers 50 --players 20 --seconds 5

One parlor (``python -m commands.app serve``, its own SQLite in a temporary folder, web
door on a free port). M telnet players (raw asyncio telnet clients accepting GMCP,
as Mudlet would) each play Triad Dice against the easy computer: once a second (open loop, at a
random phase) a player sends its next move, picked from the legal moves its GMCP view
lists, or, when it is not its turn, ``DICE`` (the board); the latency of a command is
the time until its answer arrives (``<name>: <move>``, or the board). When a game ends
the player starts another.

After ``--warmup`` seconds of play, two phases of ``--seconds`` each: the players alone
("before"), then the players while N readers (in a second process, so they do not share
the players' event loop) fetch ``/games/<n>`` in a closed loop, n being the games in play
(round robin). Prints p50 and p99 of the page latency and pages/s, and the players'
p50/p99 before and during, with the CPU the server used (100% = one core). Exits 1 if a
command or a page went unanswered or failed.
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
        logins_per_minute = 1000000  # the bench logs its players in again and again
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
IAC, DONT, DO, WONT, WILL, SB, SE, GMCP = 255, 254, 253, 252, 251, 250, 240, 201
# answers that say the game moved on meanwhile (the computer moved, the game ended)
NOT_NOW = "It is not your turn|You are not playing Triad Dice"


class Player:
    """A telnet player on a raw asyncio stream (telnetlib3's client costs the load
    generator more CPU than the server it measures): it says DO GMCP, reads the
    ``Dice.Game`` view from GMCP, and refuses every other option."""

    def __init__(self, index: int, port: int) -> None:
        self.name = f"Webbench{index:04d}"
        self.port = port
        self.view: dict | None = None
        self.text = ""
        self.latencies: list[tuple[float, float]] = []   # (when sent, seconds)
        self.failures = 0
        self.games = 0
        self._raw = bytearray()
        self.missed: list[tuple[str, str]] = []   # commands unanswered, what came instead
        self.moved_at = -1   # the game version at this player's last move

    async def connect(self) -> None:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        self.arrived, self.gone = asyncio.Event(), False
        self.task = asyncio.create_task(self._read())
        for line, until in (("", "Name: "), ("new", "Choose a name: "),
                            (self.name, "Choose a password: "), ("benchpass", "Type it again: "),
                            ("benchpass", "> ")):  # (no regex specials in these)
            if line:
                self.send(line)
            await self.until(until, 60)

    def send(self, line: str) -> None:
        self.writer.write(line.encode() + b"\r\n")

    def _parse(self, data: bytes) -> str:
        """Telnet bytes to text; answers negotiations, keeps GMCP views."""
        buf = self._raw + data
        out = bytearray()
        i = 0
        while i < len(buf):
            b = buf[i]
            if b != IAC:
                j = buf.find(IAC, i)
                j = len(buf) if j < 0 else j
                out += buf[i:j]
                i = j
                continue
            if i + 1 >= len(buf):
                break
            cmd = buf[i + 1]
            if cmd == IAC:
                out.append(IAC)
                i += 2
            elif cmd in (WILL, WONT, DO, DONT):
                if i + 2 >= len(buf):
                    break
                opt = buf[i + 2]
                if cmd == WILL:
                    self.writer.write(bytes([IAC, DO if opt == GMCP else DONT, opt]))
                elif cmd == DO:
                    self.writer.write(bytes([IAC, WONT, opt]))
                i += 3
            elif cmd == SB:
                end = buf.find(bytes([IAC, SE]), i)
                if end < 0:
                    break
                body = bytes(buf[i + 2:end])
                if body[:1] == bytes([GMCP]):
                    package, _, payload = body[1:].decode(errors="replace").partition(" ")
                    if package == "Dice.Game":
                        self.view = json.loads(payload)
                i = end + 2
            else:
                i += 2
        self._raw = buf[i:]
        return out.decode(errors="replace")

    async def _read(self) -> None:
        """Read all the time (a GMCP view that follows an answer is taken at once)."""
        while True:
            chunk = await self.reader.read(65536)
            if not chunk:
                self.gone = True
                self.arrived.set()
                return
            self.text += self._parse(chunk)
            self.arrived.set()

    async def until(self, pattern: str, timeout: float) -> None:
        """Wait for ``pattern`` (a regex) in what arrives; drop what came up to it."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while (found := rx.search(self.text)) is None:
            if self.gone:
                raise ConnectionError("closed")
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(pattern)
            self.arrived.clear()
            try:
                await asyncio.wait_for(self.arrived.wait(), left)
            except asyncio.TimeoutError:
                pass
        self.text = self.text[found.end():]

    async def new_game(self) -> None:
        self.view = None
        self.send("dice challenge computer easy")
        await self.until("begins", 60)
        self.games += 1
        self.moved_at = -1

    def next_command(self) -> tuple[str, str]:
        """The command to send and the answer it waits for (a regex): a move from the
        newest view's legal moves when that view is newer than this player's last move and
        says it is their turn, else the board (DICE)."""
        v = self.view
        if v and not v.get("finished") and v.get("version", -1) > self.moved_at \
                and v.get("seat") in v.get("view", {}).get("to_move", ()):
            legal = v["view"].get("legal") or []
            if legal:
                move = random.choice(legal)
                self.moved_at = v.get("version", 0)
                return f"dice {move}", f"{re.escape(self.name)}: {re.escape(move)}|{NOT_NOW}"
        return "dice", f"Triad Dice - turn|{NOT_NOW}"

    async def play(self, until: float, start_at: float) -> None:
        await asyncio.sleep(random.random())
        tick = time.monotonic()
        while time.monotonic() < until:
            if self.view and self.view.get("finished"):
                await self.new_game()
            command, answer = self.next_command()
            sent = time.monotonic()
            self.text = ""
            self.send(command)
            try:
                await self.until(answer, 10)
                if sent >= start_at:
                    self.latencies.append((sent, time.monotonic() - sent))
            except (TimeoutError, asyncio.TimeoutError):
                self.failures += 1
                self.missed.append((command, self.text[-300:]))
            tick += 1.0
            await asyncio.sleep(max(0.0, tick - time.monotonic()))


# -- page readers (a process of their own) -----------------------------------------------------
def readers_main(url: str, n: int, seconds: float, out: multiprocessing.Queue,
                 go: multiprocessing.Event) -> None:
    """``n`` keep-alive connections, each fetching pages in a closed loop (HTTP/1.1 framed
    by h11, the sans-I/O library uvicorn itself uses: a light client, so the figures are
    the server's)."""
    import urllib.parse

    import h11

    parts = urllib.parse.urlsplit(url)
    host, port = parts.hostname, parts.port

    async def fetch(conn: h11.Connection, reader, writer,  # noqa: ANN001
                    path: str) -> tuple[int, bytes]:
        writer.write(conn.send(h11.Request(method="GET", target=path,
                                           headers=[("Host", f"{host}:{port}")])))
        writer.write(conn.send(h11.EndOfMessage()))
        status, body = 0, bytearray()
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                data = await reader.read(65536)
                if not data:
                    raise ConnectionError("closed")
                conn.receive_data(data)
            elif isinstance(event, h11.Response):
                status = event.status_code
            elif isinstance(event, h11.Data):
                body += event.data
            elif isinstance(event, h11.EndOfMessage):
                conn.start_next_cycle()
                return status, bytes(body)

    async def run() -> dict:
        reader, writer = await asyncio.open_connection(host, port)
        conn = h11.Connection(h11.CLIENT)
        _, body = await fetch(conn, reader, writer, "/api/games")
        writer.close()
        numbers = [g["id"] for g in json.loads(body)["games"]] or [1]
        await asyncio.to_thread(go.wait)   # started early; reads when the phase begins
        latencies: list[float] = []
        failures = 0
        until = time.monotonic() + seconds

        async def one(i: int) -> None:
            nonlocal failures
            k = i
            reader = writer = conn = None
            while time.monotonic() < until:
                if conn is None:
                    reader, writer = await asyncio.open_connection(host, port)
                    conn = h11.Connection(h11.CLIENT)
                path = f"/games/{numbers[k % len(numbers)]}"
                k += 1
                sent = time.monotonic()
                try:
                    status, body = await asyncio.wait_for(fetch(conn, reader, writer, path), 30)
                    ok = status == 200 and b'id="board"' in body
                except (OSError, ConnectionError, asyncio.TimeoutError, h11.ProtocolError):
                    ok, conn = False, None
                if ok:
                    latencies.append(time.monotonic() - sent)
                else:
                    failures += 1
            if writer is not None:
                writer.close()

        started = time.monotonic()
        await asyncio.gather(*(one(i) for i in range(n)))
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
            t0 = time.monotonic() + ns.warmup      # players play, unmeasured, until t0
            before_end = t0 + ns.seconds
            during_end = before_end + ns.seconds
            play = asyncio.gather(*(p.play(during_end, t0) for p in players))
            # the readers' process starts now (spawned: it shares nothing with this one)
            # and waits, connected, for the second phase
            context = multiprocessing.get_context("spawn")
            queue, go = context.Queue(), context.Event()
            readers = context.Process(target=readers_main,
                                      args=(url, ns.readers, ns.seconds, queue, go))
            readers.start()
            await asyncio.sleep(max(0.0, before_end - time.monotonic()))
            cpu0 = cpu_seconds(proc.pid)
            go.set()
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
    unanswered = sum(p.failures for p in players)
    ms = lambda v: f"{v * 1000:8.1f}"  # noqa: E731
    if ns.verbose:
        t_first = min((t for t, _ in lat), default=0.0)
        for second in range(int(2 * ns.seconds)):
            bucket = [x for t, x in lat if second <= t - t_first < second + 1]
            print(f"second {second:2d}: {len(bucket):4d} commands, p50 "
                  f"{ms(percentile(bucket, .5))} ms, p99 {ms(percentile(bucket, .99))} ms")
        for p in players:
            for command, text in p.missed:
                print(f"unanswered: {p.name} {command!r}; got ...{text[-160:]!r}")
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
    print(f"failures (unanswered commands, failed pages): {failures} "
          f"({unanswered} commands, {pages['failures']} pages)")
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--readers", type=int, default=200, help="concurrent page readers")
    parser.add_argument("--players", type=int, default=100, help="telnet players")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each phase")
    parser.add_argument("--warmup", type=float, default=3.0,
                        help="seconds the players play before anything is measured")
    parser.add_argument("--verbose", action="store_true", help="show unanswered commands")
    ns = parser.parse_args(argv)
    if ns.readers < 1 or ns.players < 1 or ns.seconds <= 0:
        parser.error("readers and players are at least 1, seconds above 0")
    return asyncio.run(main_async(ns))


if __name__ == "__main__":
    sys.exit(main())
