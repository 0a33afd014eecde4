"""The web door under load: page readers while telnet players play and live boards follow.

    .venv/bin/python bench/web.py                    # 50 readers, 100 players, 10 s a phase
    .venv/bin/python bench/web.py --readers 20 --players 20 --seconds 3
    .venv/bin/python bench/web.py --code ../main     # the same load on another checkout
    .venv/bin/python bench/web.py --front off        # the parlor serving its pages itself
    .venv/bin/python bench/web.py --readers-nice 10  # readers that yield the CPU the
                                                     # players' process measures with

One parlor (``python -m commands.app serve`` run from ``--code``, this checkout unless
given; its own SQLite in a temporary folder, web door on a free port). M telnet players
(raw asyncio telnet clients accepting GMCP, as Mudlet would) each play Triad Dice against
the easy computer: once a second (open loop, at a random phase) a player sends its next
move, picked from the legal moves its GMCP view lists, or, when it is not its turn,
``DICE`` (the board); the latency of a command is the time until its answer arrives
(``<name>: <move>``, or the board). When a game ends the player starts another. Every
game in play is followed by one live board (``/games/<n>/events``, as a browser showing
the page does); a live board's latency is the time from a player sending a move to the
board's update showing it.

After ``--warmup`` seconds of play, one phase of ``--seconds`` with the players alone
("quiet"), then one for each of ``--paths``: N readers (in a process of their own, so they
do not share the players' event loop; on a machine of two cores that process, the
parlor's and the players' want three, and the players' own timing suffers unless the
readers run at a lower priority, ``--readers-nice``) fetch that page in a closed loop over keep-alive
connections, ``<n>`` being the games in play in turn. Then the players stop (their games
stay in play) and the readers read each page again, alone: the server's CPU in that phase
(the parlor's process and the processes it started: the web door's front) over the pages
served is the page's CPU a request; the parlor's own share of it is printed beside. Last, a bare Starlette app
(``--serve-baseline``: one route per page answering the same bytes as the parlor did, in
its own uvicorn process) is read the same way. Prints, for every phase with players, the
players' and the live boards' p50/p99 and the pages/s; and for every page the CPU a
request, the parlor's beside the bare page's, and their ratio (bare / parlor: 1.0 would be
a page that costs no more than Starlette's least). Exits 1 if a command or a page went
unanswered or failed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
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

PATHS = ("/", "/api/games/<n>", "/games/<n>")
# what each page's body holds when it is the page asked for
EXPECT = {"/": b"Games in play", "/api/games/<n>": b'"view"', "/games/<n>": b'id="board"'}


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def cpu_seconds(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def children(pid: int) -> list[int]:
    """The processes ``pid`` started that still run (the web door's front among them)."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, ValueError):
            pass
    return found


def tree_cpu(pid: int) -> tuple[float | None, float | None]:
    """The CPU seconds of ``pid`` alone, and of ``pid`` with the processes it started
    (the front that serves the door's pages is the parlor's child)."""
    own = cpu_seconds(pid)
    if own is None:
        return None, None
    return own, own + sum(cpu_seconds(c) or 0.0 for c in children(pid))


def config(folder: Path, players: int, readers: int, front: bool = True) -> Path:
    path = folder / "config.toml"
    path.write_text(textwrap.dedent(f"""\
        [server]
        port = 0
        hold = false
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
        max_connections_per_address = {readers + players + 50}
        streams_per_address = {players + 50}
        front = {"true" if front else "false"}
    """))
    return path


def start(folder: Path, players: int, readers: int, code: Path, front: bool = True
          ) -> tuple[subprocess.Popen, int, str]:
    log = folder / "server.log"
    fh = open(log, "w")
    proc = subprocess.Popen([sys.executable, "-m", "commands.app", "serve", "--config",
                             str(config(folder, players, readers, front))],
                            stdout=subprocess.DEVNULL, stderr=fh, cwd=code,
                            env={**os.environ, "PYTHONPATH": str(code)})
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


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=15)


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
        self.moves: list[tuple[int, int, float]] = []  # (game, version moved at, when sent)
        self.stopping = False   # set: the player ends its loop after the command under way

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

    async def until(self, pattern: str, timeout: float) -> str:
        """Wait for ``pattern`` (a regex) in what arrives; drop what came up to it, and
        give what matched."""
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
        return found.group(0)

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
        while time.monotonic() < until and not self.stopping:
            if self.view and self.view.get("finished"):
                await self.new_game()
            command, answer = self.next_command()
            moving = (self.view or {}).get("game"), self.moved_at
            sent = time.monotonic()
            self.text = ""
            self.send(command)
            try:
                said = await self.until(answer, 10)
                if sent >= start_at:
                    self.latencies.append((sent, time.monotonic() - sent))
                    if command != "dice" and said.startswith(self.name) \
                            and moving[0] is not None:
                        self.moves.append((moving[0], moving[1], sent))
            except (TimeoutError, asyncio.TimeoutError):
                self.failures += 1
                self.missed.append((command, self.text[-300:]))
            tick += 1.0
            await asyncio.sleep(max(0.0, tick - time.monotonic()))


# -- HTTP: a light client (h11, the sans-I/O library uvicorn's other parser is) ----------------
class Http:
    """One keep-alive HTTP/1.1 connection."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.conn = None

    async def get(self, path: str, timeout: float = 30) -> tuple[int, bytes]:
        import h11

        if self.conn is None:
            self.reader, self.writer = await asyncio.wait_for(
                asyncio.open_connection(self.host, self.port), timeout)
            self.conn = h11.Connection(h11.CLIENT)
        try:
            return await asyncio.wait_for(self._get(path), timeout)
        except BaseException:
            self.close()
            raise

    async def _get(self, path: str) -> tuple[int, bytes]:
        import h11

        conn = self.conn
        self.writer.write(conn.send(h11.Request(method="GET", target=path, headers=[
            ("Host", f"{self.host}:{self.port}")])))
        self.writer.write(conn.send(h11.EndOfMessage()))
        status, body = 0, bytearray()
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                data = await self.reader.read(65536)
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

    def close(self) -> None:
        if self.conn is not None:
            self.writer.close()
            self.conn = None


def split_url(url: str) -> tuple[str, int]:
    import urllib.parse

    parts = urllib.parse.urlsplit(url)
    return parts.hostname or "127.0.0.1", parts.port or 80


async def games_in_play(http: Http) -> list[int]:
    status, body = await http.get("/api/games", 10)
    return [g["id"] for g in json.loads(body)["games"]] if status == 200 else []


# -- page readers (a process of their own) -----------------------------------------------------
def readers_main(url: str, n: int, seconds: float, path: str, out: multiprocessing.Queue,
                 go: multiprocessing.Event, nice: int = 0) -> None:
    """``n`` keep-alive connections, each fetching ``path`` in a closed loop (``<n>`` in it:
    the games in play in turn, their list read again every second). A page counts as
    served when it is 200 with what the page holds, or 404 (its game ended meanwhile).
    ``nice``: this process's niceness (``--readers-nice``)."""
    if nice:
        os.nice(nice)
    host, port = split_url(url)
    expect = EXPECT.get(path, b"")

    async def run() -> dict:
        lister = Http(host, port)
        numbers = await games_in_play(lister) or [1]
        conns = [Http(host, port) for _ in range(n)]
        for i in range(0, n, 20):
            await asyncio.gather(*(c.get("/favicon.ico") for c in conns[i:i + 20]))
        out.put("ready")
        await asyncio.to_thread(go.wait)   # connected; reads when the phase begins
        latencies: list[float] = []
        failures = gone = 0
        until = time.monotonic() + seconds

        async def relist() -> None:
            nonlocal numbers
            while time.monotonic() < until:
                await asyncio.sleep(1.0)
                numbers = await games_in_play(lister) or numbers

        async def one(i: int, conn: Http) -> None:
            nonlocal failures, gone
            k = i
            while time.monotonic() < until:
                target = path.replace("<n>", str(numbers[k % len(numbers)]))
                k += 1
                sent = time.monotonic()
                try:
                    status, body = await conn.get(target)
                except (OSError, ConnectionError, asyncio.TimeoutError, ValueError):
                    failures += 1
                    continue
                if status == 200 and expect in body:
                    latencies.append(time.monotonic() - sent)
                elif status == 404 and "<n>" in path:
                    gone += 1
                else:
                    failures += 1
            conn.close()

        started = time.monotonic()
        listing = asyncio.create_task(relist())
        await asyncio.gather(*(one(i, c) for i, c in enumerate(conns)))
        listing.cancel()
        lister.close()
        return {"latencies": latencies, "failures": failures, "gone": gone,
                "elapsed": time.monotonic() - started}

    out.put(json.dumps(asyncio.run(run())))


# -- live boards (in the players' process: it is lightly loaded) -------------------------------
class LiveBoards:
    """One live board (``/games/<n>/events``) for every game in play, the games' list read
    every half second; each ``update`` event's arrival is kept as (game, version, when)."""

    def __init__(self, url: str) -> None:
        self.host, self.port = split_url(url)
        self.arrivals: dict[int, list[tuple[int, float]]] = {}
        self.following: dict[int, asyncio.Task] = {}
        self.failures = 0
        self.stopping = False

    async def run(self, until: float) -> None:
        lister = Http(self.host, self.port)
        try:
            while time.monotonic() < until and not self.stopping:
                try:
                    numbers = await games_in_play(lister)
                except (OSError, ConnectionError, asyncio.TimeoutError):
                    numbers = []
                for n in numbers:
                    if n not in self.following or self.following[n].done() \
                            and self.following[n].result() == "idle":
                        self.following[n] = asyncio.create_task(self.follow(n, until))
                await asyncio.sleep(0.5)
        finally:
            lister.close()
            for task in self.following.values():
                task.cancel()
            await asyncio.gather(*self.following.values(), return_exceptions=True)

    async def follow(self, game: int, until: float) -> str:
        import h11

        try:
            reader, writer = await asyncio.open_connection(self.host, self.port)
        except OSError:
            self.failures += 1
            return "failed"
        conn = h11.Connection(h11.CLIENT)
        writer.write(conn.send(h11.Request(method="GET", target=f"/games/{game}/events",
                                           headers=[("Host", f"{self.host}:{self.port}")])))
        writer.write(conn.send(h11.EndOfMessage()))
        text, ended = "", "closed"
        try:
            while time.monotonic() < until:
                event = conn.next_event()
                if event is h11.NEED_DATA:
                    data = await reader.read(65536)
                    if not data:
                        break
                    conn.receive_data(data)
                    continue
                if isinstance(event, h11.Response) and event.status_code != 200:
                    if event.status_code != 404:
                        self.failures += 1
                    return "refused"
                if isinstance(event, h11.EndOfMessage):
                    break
                if not isinstance(event, h11.Data):
                    continue
                now = time.monotonic()
                text += bytes(event.data).decode()
                while "\n\n" in text:
                    block, text = text.split("\n\n", 1)
                    kind = re.search(r"^event: (\w+)", block, re.MULTILINE)
                    body = re.search(r"^data: (.*)$", block, re.MULTILINE)
                    if kind and kind.group(1) == "update" and body:
                        moves = json.loads(body.group(1))["summary"]["moves"]
                        self.arrivals.setdefault(game, []).append((moves, now))
                    elif kind and kind.group(1) == "end" and body:
                        ended = json.loads(body.group(1)).get("reason", "ended")
        except (OSError, h11.ProtocolError):
            self.failures += 1
        finally:
            writer.close()
        return ended

    def latencies(self, moves: list[tuple[int, int, float]]) -> list[tuple[float, float]]:
        """(when sent, seconds until a live board showed it) of each move a board saw,
        once the board was open: a move of a game that began since the games' list was
        last read is shown when its board opens, up to half a second later, which is the
        bench's polling and not the door's latency."""
        found = []
        for game, version, sent in moves:
            arrivals = self.arrivals.get(game, ())
            if not arrivals or sent < arrivals[0][1]:
                continue   # (its board's first update, the game as it stood, came after)
            for shown, when in arrivals:
                if shown > version and when >= sent:
                    found.append((sent, when - sent))
                    break
        return found


# -- the bare page: Starlette's least, the baseline a page is measured against -----------------
def serve_baseline(folder: Path) -> None:
    """A bare Starlette app answering each page's bytes as the parlor answered them (an
    HTMLResponse of the page's text, a JSONResponse of the JSON's data), served by uvicorn
    (its httptools parser, as the parlor's door) on a free port, printed on stdout."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.responses import HTMLResponse, JSONResponse
    from starlette.routing import Route

    pages = json.loads((folder / "pages.json").read_text())
    routes = []
    for path, (kind, body) in pages.items():
        starlette_path = path.replace("<n>", "{n}")
        if kind == "json":
            async def endpoint(request, data=json.loads(body)):  # noqa: ANN001, ANN202
                return JSONResponse(data)
        else:
            async def endpoint(request, text=body):  # noqa: ANN001, ANN202
                return HTMLResponse(text)
        routes.append(Route(starlette_path, endpoint))
    app = Starlette(routes=routes)

    async def serve() -> None:
        config = uvicorn.Config(app, host="127.0.0.1", port=0, lifespan="off",
                                log_config=None, log_level="warning", access_log=False,
                                http="httptools", timeout_keep_alive=5, server_header=False)
        server = uvicorn.Server(config)
        serving = asyncio.create_task(server.serve())
        for _ in range(600):
            if server.started or serving.done():
                break
            await asyncio.sleep(0.05)
        if not server.started:
            print("not started", flush=True)
            return
        print(f"port {server.servers[0].sockets[0].getsockname()[1]}", flush=True)
        await serving

    asyncio.run(serve())


def start_baseline(folder: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()),
                             "--serve-baseline", str(folder)], stdout=subprocess.PIPE,
                            text=True, cwd=ROOT)
    line = proc.stdout.readline()
    found = re.match(r"port (\d+)", line)
    if found is None:
        stop(proc)
        raise SystemExit(f"the bare Starlette page did not start: {line!r}")
    return proc, f"http://127.0.0.1:{found.group(1)}/"


async def read_pages(url: str, ns: argparse.Namespace, path: str, pid: int) -> dict:
    """``ns.readers`` readers of ``path`` for ``ns.seconds``, with the CPU ``pid`` used
    meanwhile (``cpu``, seconds)."""
    context = multiprocessing.get_context("spawn")
    queue, go = context.Queue(), context.Event()
    readers = context.Process(target=readers_main,
                              args=(url, ns.readers, ns.seconds, path, queue, go,
                                    ns.readers_nice))
    readers.start()
    ready = await asyncio.to_thread(queue.get, True, 120)
    assert ready == "ready", ready
    (own0, all0), began = tree_cpu(pid), time.monotonic()
    go.set()
    pages = json.loads(await asyncio.to_thread(queue.get, True, ns.seconds + 120))
    (own1, all1), ended = tree_cpu(pid), time.monotonic()
    await asyncio.to_thread(readers.join, 30)
    # the parlor's process with the front's (what a page costs the machine), and the
    # parlor's alone (what it takes from the players)
    pages["cpu"] = None if all0 is None or all1 is None else all1 - all0
    pages["parlor_cpu"] = None if own0 is None or own1 is None else own1 - own0
    pages["path"], pages["began"], pages["ended"] = path, began, ended
    return pages


# -- the run ---------------------------------------------------------------------------------
async def main_async(ns: argparse.Namespace) -> int:
    code = Path(ns.code).resolve()
    with tempfile.TemporaryDirectory(prefix="esterport-web-bench-") as tmp:
        proc, port, url = start(Path(tmp), ns.players, ns.readers, code, ns.front == "on")
        try:
            players = [Player(i, port) for i in range(ns.players)]
            for i in range(0, len(players), 20):
                await asyncio.gather(*(p.connect() for p in players[i:i + 20]))
            await asyncio.gather(*(p.new_game() for p in players))
            t0 = time.monotonic() + ns.warmup      # players play, unmeasured, until t0
            end = t0 + ns.seconds * (1 + len(ns.paths)) + 300  # bounded: stopped below
            boards = LiveBoards(url)
            play = [asyncio.create_task(p.play(end, t0)) for p in players]
            following = asyncio.create_task(boards.run(end))
            await asyncio.sleep(max(0.0, t0 - time.monotonic()))
            await asyncio.sleep(ns.seconds)
            phases = [("quiet", t0, t0 + ns.seconds, None)]
            for path in ns.paths:
                pages = await read_pages(url, ns, path, proc.pid)
                phases.append((f"readers of {path}", pages["began"], pages["ended"], pages))
            for p in players:
                p.stopping = True
            boards.stopping = True
            _, left = await asyncio.wait([*play, following], timeout=20)
            for task in left:
                task.cancel()
            # the pages alone (the players wait, their games in play): CPU a request
            alone = {path: await read_pages(url, ns, path, proc.pid) for path in ns.paths}
            # the pages as they stand, for the bare page to answer the same bytes
            http = Http(*split_url(url))
            numbers = await games_in_play(http) or [1]
            bodies = {}
            for path in ns.paths:
                status, body = await http.get(path.replace("<n>", str(numbers[0])))
                bodies[path] = ("json" if path.startswith("/api/") else "html",
                                body.decode())
            http.close()
        finally:
            stop(proc)
        (Path(tmp) / "pages.json").write_text(json.dumps(bodies))
        bare, bare_url = start_baseline(Path(tmp))
        try:
            baseline = {path: await read_pages(bare_url, ns, path, bare.pid)
                        for path in ns.paths}
        finally:
            stop(bare)
    return report(ns, code, players, boards, phases, alone, baseline)


def report(ns: argparse.Namespace, code: Path, players: list, boards: LiveBoards,
           phases: list, alone: dict, baseline: dict) -> int:
    lat = [x for p in players for x in p.latencies]
    live = boards.latencies([m for p in players for m in p.moves])
    ms = lambda v: f"{v * 1000:8.1f}"  # noqa: E731
    unanswered = sum(p.failures for p in players)
    failed_pages = sum(ph[3]["failures"] for ph in phases if ph[3]) + sum(
        b["failures"] for b in [*alone.values(), *baseline.values()])
    if ns.verbose:
        for p in players:
            for command, text in p.missed:
                print(f"unanswered: {p.name} {command!r}; got ...{text[-160:]!r}")
    print(f"web door bench: {ns.players} telnet players playing Triad Dice, {ns.readers} "
          f"page readers (niceness {ns.readers_nice}), {ns.seconds:g} s a phase; the "
          f"parlor's code: {code}")
    print(f"{'phase':28}{'telnet p50':>11}{'p99 ms':>8}{'live n':>7}{'p50':>8}{'p99':>8}"
          f"{'max ms':>8}{'pages/s':>9}{'p50':>8}{'p99 ms':>8}{'CPU %':>7}{'parlor %':>9}")
    for name, began, ended, pages in phases:
        t = [s for w, s in lat if began <= w < ended]
        b = [s for w, s in live if began <= w < ended]
        row = f"{name:28}{ms(percentile(t, .5)):>11}{ms(percentile(t, .99))}" \
              f"{len(b):7d}{ms(percentile(b, .5))}{ms(percentile(b, .99))}" \
              f"{ms(max(b) if b else float('nan'))}"
        if pages is None:
            print(row)
            continue
        served = len(pages["latencies"]) + pages["gone"]
        cpu = f"{100 * pages['cpu'] / pages['elapsed']:7.0f}" \
            f"{100 * pages['parlor_cpu'] / pages['elapsed']:9.0f}" \
            if pages["cpu"] is not None else ""
        print(f"{row}{served / pages['elapsed']:9.0f}{ms(percentile(pages['latencies'], .5))}"
              f"{ms(percentile(pages['latencies'], .99))}{cpu}")
    print(f"CPU a request (µs), alone{'':3}{'parlor':>10}{'bare page':>11}{'bare/parlor':>13}"
          f"{'pages/s':>9}{'bare pages/s':>14}{'in the parlor':>15}")
    for path, pages in alone.items():
        bare = baseline[path]
        served = len(pages["latencies"]) + pages["gone"]
        bare_served = len(bare["latencies"])
        if pages["cpu"] is None or bare["cpu"] is None or not served or not bare_served:
            print(f"{path:28}{'n/a':>10}")
            continue
        own, theirs = pages["cpu"] / served, bare["cpu"] / bare_served
        print(f"{path:28}{own * 1e6:10.0f}{theirs * 1e6:11.0f}"
              f"{theirs / own if own else float('nan'):13.2f}"
              f"{served / pages['elapsed']:9.0f}{bare_served / bare['elapsed']:14.0f}"
              f"{pages['parlor_cpu'] / served * 1e6:15.0f}")
    failures = unanswered + failed_pages + boards.failures
    print(f"failures (unanswered commands, failed pages, failed live boards): {failures} "
          f"({unanswered} commands, {failed_pages} pages, {boards.failures} live boards)")
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--readers", type=int, default=50, help="concurrent page readers")
    parser.add_argument("--readers-nice", type=int, default=0, metavar="N",
                        help="the readers' process's niceness (10: on a machine of few "
                             "cores, the readers' closed loop takes no CPU the players' "
                             "process, which measures, needs; the parlor's is unchanged)")
    parser.add_argument("--players", type=int, default=100, help="telnet players")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each phase")
    parser.add_argument("--warmup", type=float, default=3.0,
                        help="seconds the players play before anything is measured")
    parser.add_argument("--paths", default=",".join(PATHS),
                        help=f"the pages read, one phase each (default {','.join(PATHS)})")
    parser.add_argument("--front", choices=("on", "off"), default="on",
                        help="[web] front: the door's plain port served by a process of "
                             "its own (on, the default), or by the parlor (off)")
    parser.add_argument("--code", default=str(ROOT),
                        help="the checkout whose parlor is measured (default: this one)")
    parser.add_argument("--serve-baseline", metavar="FOLDER", help=argparse.SUPPRESS)
    parser.add_argument("--verbose", action="store_true", help="show unanswered commands")
    ns = parser.parse_args(argv)
    if ns.serve_baseline:
        serve_baseline(Path(ns.serve_baseline))
        return 0
    if ns.readers < 1 or ns.players < 1 or ns.seconds <= 0:
        parser.error("readers and players are at least 1, seconds above 0")
    ns.paths = [p for p in ns.paths.split(",") if p]
    unknown = [p for p in ns.paths if p not in PATHS]
    if unknown or not ns.paths:
        parser.error(f"--paths are some of {', '.join(PATHS)}, not {', '.join(unknown)}")
    if not (Path(ns.code) / "commands" / "app.py").is_file():
        parser.error(f"--code {ns.code} is not a checkout of the parlor (no commands/app.py)")
    return asyncio.run(main_async(ns))


if __name__ == "__main__":
    sys.exit(main())
