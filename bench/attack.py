"""Attacks on a running server, and what a logged-in player feels meanwhile.

    .venv/bin/python bench/attack.py                      # every attack, 5 s each
    .venv/bin/python bench/attack.py --seconds 10 --attacks bomb,newline
    .venv/bin/python bench/attack.py --database postgresql+asyncpg://...   # an empty one
    .venv/bin/python bench/attack.py --attacks seekstreams --set web.streams_per_address=20

One server process (``esterport serve``, SQLite in a temporary folder unless
``--database``, descriptors limited to 1024 as a service manager would) and, beside the
attackers, one logged-in player who types LOOK five times a second and times each
answer. For every attack the script prints that player's LOOK latency (median, p99, max
and unanswered) before, during and after the attack, the server's resident memory
(VmRSS) after each phase and its peak so far (VmHWM), what the attack achieved, and the
slowest LOOK of all. It exits 1 if a LOOK went unanswered (10 s) during an attack, or a
second session of one account survived.

The attacks (from the attack campaigns):
  bomb      a bare, never negotiated MCCP3 start, then a 65 KB zlib stream of 64 MiB
  newline   ten connections writing 64 KB at a time, never a newline
  sb        forty connections each opening a 1 MB subnegotiation that never ends
  sbstream  ten connections streaming subnegotiation data
  gmcp      ten connections sending a 1 MB GMCP message
  conns     1,100 idle connections from 110 addresses (10 each, the per-address cap)
  new       ten connections creating accounts as fast as they are let
  names     ten connections typing names at the Name: prompt as fast as they can
  spam      100 players SAYing at 7.5 a second, then all leaving at once
  twins     eight simultaneous logins to one account
  flood     one logged-in player sending SAY lines as fast as the server takes them
  crlf      the same with empty lines (CR LF)
  logins    120 connections from 30 addresses logging in to one account, over and over,
            while another player logs in once a second (how long each took)
  lockout   someone at a shared address types look at the Password prompt six times;
            then a player who logged in from there before logs in once a second
  held      920 connections from 92 addresses that never log in, while a new player
            tries to log in once a second
  chat      1,000 non-ASCII characters of CHAT, 7.5 a second, to 100 listeners
  naws      ten connections sending window sizes of the wrong length (1.2 KB at a time)
  websilent 1,100 connections to the web port from one address, sending nothing
  webslow   2,100 web connections from 105 addresses sending a request head a byte a
            second (reconnecting when cut off)
  webstreams 2,000 live-board streams over 5 games from 100 addresses, never reading
            more than they must
  seekstreams 300 /seeks/events streams from 17 addresses while 80 seeks are open and 4
            players type SEEK and UNSEEK as fast as they are answered (--streams, --seeks)
  tourneystreams 300 /tournaments/events streams from 17 addresses while 4 players
            type TOURNEY JOIN and WITHDRAW
  analyse   10 players from one address looping ANALYSE (EXAMINE of a finished Pyramid
            deal: the solver) while another player's ANALYSE is timed (--analysers)
  burst     1,000 connects at once (10 from each of 100 addresses): how many got their
            Name: prompt, were refused (full), or hung (nothing within --hung-after s),
            how long the answered waited, and the kernel's count of listen queue
            overflows meanwhile (a dropped connect is retried after 1, 3, 7 s...)
Each attack's row also gives the server's log lines written during it. The web attacks
also say how often, meanwhile, a page from another address was answered
(200) and a new telnet connection got its Name: prompt.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import json
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.chaos import Conn, Lost, Server  # noqa: E402
from bench.storm import rss_kib  # noqa: E402

IAC, SB, SE, WILL = 255, 250, 240, 251
MCCP3, TTYPE, GMCP, NAWS = 87, 24, 201, 31
PASSWORD = "secret"


class LimitedServer(Server):
    """The server with at most ``nofile`` descriptors (a common service default)."""

    nofile = 1024

    def start(self) -> float:
        original = subprocess.Popen

        def limited(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            kwargs["preexec_fn"] = lambda: resource.setrlimit(
                resource.RLIMIT_NOFILE, (self.nofile, self.nofile))
            return original(*args, **kwargs)

        subprocess.Popen = limited
        try:
            return super().start()
        finally:
            subprocess.Popen = original


def peak_rss_kib(pid: int) -> int:
    """The most resident memory the process has had (VmHWM), in KiB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def write_config(folder: Path, url: str, settings: list[str] = ()) -> str:
    """The server's config.toml: the bench's own settings, then ``settings`` (each
    ``section.key=value``, the value as TOML writes it; one the bench sets is not
    overridden, TOML refuses a key twice)."""
    tables = {
        "server": ["port = 0", 'log_level = "WARNING"'],
        "database": [f'url = "{url}"'],
        "web": ["port = 0  # a free port: benches run side by side"],
        "login": ["new_accounts_per_minute = 1000  # the bench's own players; per address "
                  "as shipped"],
        "accounts": ["argon2_time_cost = 1", "argon2_memory_kib = 1024"],
    }
    for setting in settings:
        key, sep, value = setting.partition("=")
        section, dot, name = key.strip().partition(".")
        if not sep or not dot or not name:
            raise SystemExit(f"attack.py: --set wants section.key=value, not {setting!r}")
        tables.setdefault(section, []).append(f"{name} = {value.strip()}")
    path = folder / "config.toml"
    path.write_text("".join(f"[{table}]\n" + "\n".join(lines) + "\n"
                            for table, lines in tables.items()))
    return str(path)


async def connect(port: int, address: str = "127.0.0.1") -> Conn:
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))
    return Conn(reader, writer)


async def log_in(port: int, name: str, *, new: bool, address: str = "127.0.0.1") -> Conn:
    conn = await connect(port, address)
    await conn.expect("Name: ", 30)
    if new:
        conn.send("NEW")
        await conn.expect("Choose a name: ", 30)
        conn.send(name)
        await conn.expect("Choose a password: ", 30)
        conn.send(PASSWORD)
        await conn.expect("Type it again: ", 30)
    else:
        conn.send(name)
        await conn.expect("Password: ", 30)
    conn.send(PASSWORD)
    await conn.expect("Exits:", 60)
    return conn


class Prober:
    """A logged-in player typing LOOK five times a second, timing every answer."""

    def __init__(self, conn: Conn) -> None:
        self.conn = conn
        self.samples: list[float] = []
        self.unanswered = 0
        self._task: asyncio.Task | None = None

    async def _run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            t0 = time.monotonic()
            self.conn.send("look")
            try:
                await self.conn.expect("Exits:[^\n]*\n", 10)
                self.samples.append(time.monotonic() - t0)
            except TimeoutError:
                self.unanswered += 1
            await asyncio.sleep(max(0.0, 0.2 - (time.monotonic() - t0)))

    async def phase(self, seconds: float) -> dict:
        """LOOK for ``seconds``; the LOOK under way then is waited for (up to its 10 s),
        so the slowest answers of a phase are counted in it, not lost."""
        self.samples, self.unanswered = [], 0
        stop = asyncio.Event()
        self._task = asyncio.create_task(self._run(stop))
        await asyncio.sleep(seconds)
        stop.set()
        await self._task
        s = self.samples
        p99 = statistics.quantiles(s, n=100, method="inclusive")[98] if len(s) > 1 else None
        return {"looks": len(s), "median_ms": round(statistics.median(s) * 1000, 1) if s else None,
                "p99_ms": round(p99 * 1000, 1) if p99 is not None else None,
                "max_ms": round(max(s) * 1000, 1) if s else None, "unanswered": self.unanswered}


async def _keep_writing(port: int, payload: bytes, connections: int, prefix: bytes = b"",
                        stop: asyncio.Event | None = None) -> dict:
    """``connections`` raw connections each sending ``prefix`` then ``payload`` over and
    over until ``stop``; counts how many the server closed."""
    closed = 0

    async def one() -> None:
        nonlocal closed
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(prefix)
            while not stop.is_set():
                writer.write(payload)
                await asyncio.wait_for(writer.drain(), 5)
                await asyncio.sleep(0)
            writer.close()
        except (ConnectionError, OSError, asyncio.TimeoutError):
            closed += 1

    await asyncio.gather(*(one() for _ in range(connections)))
    return {"connections": connections, "closed_by_server": closed}


async def attack(name: str, port: int, ready: asyncio.Event, go: asyncio.Event,
                 stop: asyncio.Event) -> dict:
    """Attack ``name``: set ``ready`` once its setup (players it needs logged in) is
    done, begin on ``go``, end on ``stop``."""
    if name not in ("spam", "twins"):
        ready.set()
        await go.wait()
    if name == "bomb":  # never negotiated: a bare MCCP3 start, then 64 MiB in 65 KB
        bomb = zlib.compress(b"x\n" * (32 << 20), 9)
        return await _keep_writing(port, bomb, 5, bytes([IAC, SB, MCCP3, IAC, SE]), stop)
    if name == "newline":
        return await _keep_writing(port, b"x" * 65536, 10, b"", stop)
    if name == "sb":
        return await _keep_writing(port, b"A" * (1 << 20), 40, bytes([IAC, SB, TTYPE, 0]), stop)
    if name == "sbstream":
        return await _keep_writing(port, b"B" * 4096, 10, bytes([IAC, SB, TTYPE, 0]), stop)
    if name == "gmcp":
        message = b'Core.Hello {"client": "' + b"y" * (1 << 20) + b'"}'
        return await _keep_writing(port, bytes([IAC, SB, GMCP]) + message + bytes([IAC, SE]),
                                   10, b"", stop)
    if name == "conns":
        held, refused = [], 0
        for a in range(110):
            for _ in range(10):
                try:
                    held.append(await connect(port, f"127.0.{10 + a // 200}.{a % 200 + 1}"))
                except OSError:
                    refused += 1
        await stop.wait()
        await asyncio.sleep(0.5)

        async def gone(conn: Conn) -> bool:
            try:
                while await asyncio.wait_for(conn.reader.read(65536), 0.5):
                    pass
                return True
            except asyncio.TimeoutError:
                return False
            except OSError:
                return True

        closed = sum(await asyncio.gather(*(gone(c) for c in held)))
        for conn in held:
            conn.close()
        return {"opened": len(held), "refused_at_connect": refused,
                "closed_by_server": closed}
    if name in ("new", "names"):
        results = {"accounts_made": 0, "answers": 0}

        async def flood(i: int) -> None:
            conn = None
            try:
                conn = await connect(port)
                await conn.expect("Name: ", 10)
                n = 0
                while not stop.is_set():
                    n += 1
                    if name == "new":
                        conn.send("NEW")
                        out = await conn.expect("(Choose a name: |Too many[^\n]*\n)", 10)
                        if "Too many" in out:
                            results["answers"] += 1
                            await conn.expect("Name: ", 10)
                            continue
                        conn.send(f"Flood{i}x{n}")
                        await conn.expect("Choose a password: ", 10)
                        conn.send(PASSWORD)
                        await conn.expect("Type it again: ", 10)
                        conn.send(PASSWORD)
                        out = await conn.expect("(Welcome, |Too many)", 10)
                        if "Welcome" in out:
                            results["accounts_made"] += 1
                            conn.close()
                            conn = await connect(port)
                            await conn.expect("Name: ", 10)
                    else:
                        conn.send(f"nobody{i}x{n}")
                        out = await conn.expect("(Password: |Too many[^\n]*\n)", 10)
                        if "Password" in out:
                            conn.send("guess")
                            await conn.expect("(There is no account|Wrong|Too many)", 10)
                        results["answers"] += 1
            except (Lost, TimeoutError, OSError) as err:
                results.setdefault("errors", []).append(str(err)[:60])
            finally:
                if conn is not None:
                    conn.close()

        await asyncio.gather(*(flood(i) for i in range(10)))
        return results
    if name == "spam":
        conns = []
        for i in range(100):
            conns.append(await log_in(port, f"Spam{i:03d}", new=True,
                                      address=f"127.0.20.{i // 8 + 1}"))
        ready.set()
        await go.wait()

        async def talk(conn: Conn) -> None:
            while not stop.is_set():
                conn.send("say spam spam spam")
                await asyncio.sleep(1 / 7.5)

        await asyncio.gather(*(talk(c) for c in conns))
        for conn in conns:
            conn.writer.transport.abort()
        return {"players": len(conns)}
    if name == "twins":
        first = await log_in(port, "Twin", new=True, address="127.0.30.1")
        first.close()
        ready.set()
        await go.wait()
        conns = [await connect(port, "127.0.30.2") for _ in range(8)]
        for conn in conns:
            await conn.expect("Name: ", 10)
            conn.send("Twin")
        for conn in conns:
            try:
                await conn.expect("(Password: |Too many)", 10)
            except (Lost, TimeoutError):
                pass
        for conn in conns:
            conn.send(PASSWORD)
        await stop.wait()
        for conn in conns:
            conn.close()
        return {"logins": len(conns)}
    raise ValueError(name)



# -- the web door ---------------------------------------------------------------------------
SLOW_HEAD = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"s" * 60000  # never ends


def web_port(server: Server) -> int:
    """The web door's port, from the line the server prints when the door opens."""
    for line in server.log:
        found = re.search(r"point a browser at http://[^/]+:(\d+)/", line)
        if found:
            return int(found.group(1))
    raise RuntimeError("the server's web door did not open")


async def _together(coros: list, batch: int = 50) -> list:
    """Run ``coros`` at once, begun ``batch`` a turn of the bench's loop: 2,000 connects
    begun in one turn kept it busy past their own 3 s timeouts on a loaded machine, and
    every one was counted refused though the server had taken it."""
    tasks = []
    for i, coro in enumerate(coros):
        tasks.append(asyncio.create_task(coro))
        if i % batch == batch - 1:
            await asyncio.sleep(0)
    return await asyncio.gather(*tasks)


CONNECT_ERRORS: Counter[str] = Counter()  # why web connects failed, by kind of error


async def _web_connect(port: int, address: str) -> tuple[asyncio.StreamReader,
                                                          asyncio.StreamWriter] | None:
    """A connection to the web door from ``address``, or None when the server did not
    take it within 3 s (its listen queue full, its descriptors gone); why is counted in
    :data:`CONNECT_ERRORS`."""
    try:
        return await asyncio.wait_for(
            asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0)), 3)
    except (OSError, asyncio.TimeoutError) as err:
        CONNECT_ERRORS[type(err).__name__ if not isinstance(err, OSError) or not err.errno
                       else errno.errorcode.get(err.errno, str(err.errno))] += 1
        return None


async def _cut_off(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                   stop: asyncio.Event, trickle: bytes) -> bool:
    """Hold a connection until ``stop``, sending ``trickle`` a byte a second; True when
    the server answered or closed it first (whatever it answered: the head is never
    whole, so any answer ends the connection)."""
    sent = 0
    while not stop.is_set():
        if sent < len(trickle):
            writer.write(trickle[sent:sent + 1])
            sent += 1
        try:
            await asyncio.wait_for(reader.read(65536), 1.0)
            return True
        except asyncio.TimeoutError:
            continue
        except OSError:
            return True
    return False


async def _hold_web(port: int, addresses: list[str], per_address: int, stop: asyncio.Event,
                    trickle: bytes = b"", reconnect: bool = False) -> dict:
    """``per_address`` connections from each of ``addresses``, held until ``stop``."""
    stats = {"opened": 0, "refused_at_connect": 0, "closed_by_server": 0}

    async def one(address: str) -> None:
        while not stop.is_set():
            conn = await _web_connect(port, address)
            if conn is None:
                stats["refused_at_connect"] += 1
            else:
                stats["opened"] += 1
                closed = await _cut_off(*conn, stop, trickle)
                stats["closed_by_server"] += closed
                conn[1].close()
            if not reconnect:
                return
            await asyncio.sleep(1.0)

    await _together([one(a) for a in addresses for _ in range(per_address)])
    return stats


async def _stream(port: int, address: str, path: str, stop: asyncio.Event,
                  stats: dict) -> None:
    """One live stream (``path``: a game's, the seeks', the tournaments'), held open until
    ``stop``; it reads the answer's head and then whatever comes, counting the ``update``
    events (``updates``, and ``updated``: streams that got one at least)."""
    conn = await _web_connect(port, address)
    if conn is None:
        stats["refused_at_connect"] += 1
        return
    reader, writer = conn
    writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    marker, tail, updates = b"event: update", b"", 0
    try:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        status = head.split(b" ", 2)[1].decode() if head.startswith(b"HTTP/") else "?"
        stats[status] = stats.get(status, 0) + 1
        if status != "200":
            return
        while not stop.is_set():
            try:
                chunk = await asyncio.wait_for(reader.read(65536), 1.0)
            except asyncio.TimeoutError:
                continue
            if not chunk:
                stats["closed_by_server"] += 1
                break
            seen = tail + chunk
            updates += seen.count(marker)
            tail = seen[-(len(marker) - 1):]
    except (OSError, asyncio.IncompleteReadError, asyncio.TimeoutError, IndexError):
        stats["closed_by_server"] += 1
    finally:
        writer.close()
        stats["updates"] = stats.get("updates", 0) + updates
        stats["updated"] = stats.get("updated", 0) + (updates > 0)


async def _web_page(port: int, address: str) -> bool:
    """GET /api/who from ``address``: True when it was answered 200 within 3 s."""
    conn = await _web_connect(port, address)
    if conn is None:
        return False
    reader, writer = conn
    try:
        writer.write(b"GET /api/who HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        answer = await asyncio.wait_for(reader.read(65536), 3)
        return answer.startswith(b"HTTP/1.1 200")
    except (OSError, asyncio.TimeoutError):
        return False
    finally:
        writer.close()


async def _telnet_prompt(port: int, address: str) -> bool:
    """A new telnet connection from ``address`` gets its Name: prompt within 3 s."""
    try:
        conn = await asyncio.wait_for(connect(port, address), 3)
    except (OSError, asyncio.TimeoutError):
        return False
    try:
        await conn.expect("Name: ", 3)
        return True
    except (Lost, TimeoutError):
        return False
    finally:
        conn.close()


async def _doors_meanwhile(telnet: int, web: int, stop: asyncio.Event) -> dict:
    """Every half second until ``stop`` (the first once the attack has had two seconds to
    build up): is a page answered, does a telnet login start?"""
    pages, logins, tries = 0, 0, 0
    while True:
        try:
            await asyncio.wait_for(stop.wait(), 2.0 if tries == 0 else 0.5)
            break
        except asyncio.TimeoutError:
            pass
        tries += 1
        page, login = await asyncio.gather(_web_page(web, "127.0.0.77"),
                                           _telnet_prompt(telnet, "127.0.0.78"))
        pages += page
        logins += login
    return {"pages_ok": f"{pages}/{tries}", "telnet_prompts_ok": f"{logins}/{tries}"}


async def _games_in_play(port: int, count: int) -> tuple[list[int], list[Conn]]:
    """``count`` games of Triad Dice against the computer, each waiting for its player."""
    games, players = [], []
    for i in range(count):
        conn = await log_in(port, f"Host{i}", new=True, address="127.0.60.1")
        conn.send("dice challenge computer easy")
        out = await conn.expect(r"Game #\d+", 30)
        games.append(int(re.search(r"#(\d+)", out).group(1)))
        players.append(conn)
    return games, players


async def web_attack(name: str, server: Server, ready: asyncio.Event, go: asyncio.Event,
                     stop: asyncio.Event) -> dict:
    """A web attack (as :func:`attack`), with how the doors answered others meanwhile."""
    port = web_port(server)
    games, players = await _games_in_play(server.port, 5) if name == "webstreams" else ([], [])
    ready.set()
    await go.wait()
    doors = asyncio.create_task(_doors_meanwhile(server.port, port, stop))
    if name == "websilent":
        result = await _hold_web(port, ["127.0.40.1"], 1100, stop)
    elif name == "webslow":
        result = await _hold_web(port, [f"127.0.50.{a}" for a in range(1, 106)], 20, stop,
                                 trickle=SLOW_HEAD, reconnect=True)
    elif name == "webstreams":
        result = {"refused_at_connect": 0, "closed_by_server": 0}
        await _together([_stream(port, f"127.0.55.{i // 20 + 1}",
                                 f"/games/{games[i % len(games)]}/events", stop, result)
                         for i in range(2000)])
    else:
        raise ValueError(name)
    for conn in players:
        conn.close()
    if CONNECT_ERRORS:
        result["connect_errors"] = dict(CONNECT_ERRORS)
        CONNECT_ERRORS.clear()
    return {**result, **await doors}


async def _pour(conn: Conn, payload: bytes, stop: asyncio.Event) -> int:
    """Write ``payload`` over and over as fast as the server takes it; bytes taken."""
    sent = 0
    try:
        while not stop.is_set():
            conn.writer.write(payload)
            try:
                await asyncio.wait_for(conn.writer.drain(), 0.5)
            except asyncio.TimeoutError:
                continue  # the server stopped reading us: backpressure
            sent += len(payload)
    except (ConnectionError, OSError):
        pass
    return sent


async def _timed_login(port: int, name: str, address: str) -> float | None:
    """Seconds a login of ``name`` takes from connecting to the room (None: refused)."""
    t0 = time.monotonic()
    try:
        conn = await connect(port, address)
        try:
            await conn.expect("Name: ", 30)
            conn.send(name)
            out = await conn.expect("(Password: |Too many[^\n]*\n|full)", 30)
            if "Password" not in out:
                return None
            conn.send(PASSWORD)
            out = await conn.expect("(Exits:|Too many[^\n]*\n|Wrong)", 30)
            return time.monotonic() - t0 if "Exits" in out else None
        finally:
            conn.close()
    except (Lost, TimeoutError, OSError):
        return None


async def _victim_logins(port: int, name: str, address: str, stop: asyncio.Event) -> dict:
    """Another player logging in once a second meanwhile: how long each login took."""
    took, refused = [], 0
    while not stop.is_set():
        t = await _timed_login(port, name, address)
        if t is None:
            refused += 1
        else:
            took.append(t)
        await asyncio.sleep(1.0)
    return {"victim_logins": len(took), "victim_refused": refused,
            "victim_login_ms_max": round(max(took) * 1000) if took else None}


async def input_attack(name: str, port: int, ready: asyncio.Event, go: asyncio.Event,
                       stop: asyncio.Event) -> dict:
    """The third campaign's attacks on input and logins (as :func:`attack`)."""
    if name in ("flood", "crlf"):  # one logged-in player sending as fast as it can
        conn = await log_in(port, f"Pour{name}", new=True, address="127.0.65.1")
        ready.set()
        await go.wait()
        sent = await _pour(conn, b"say hi\r\n" * 8192 if name == "flood" else b"\r\n" * 32768,
                           stop)
        conn.writer.transport.abort()
        return {"mb_taken_by_server": round(sent / 1e6, 1)}
    if name == "logins":  # 120 connections from 30 addresses logging in to one account
        await (await log_in(port, "Crowd", new=True, address="127.0.70.1")).writer.drain()
        quiet = await log_in(port, "Quiet", new=True, address="127.0.71.1")
        quiet.close()
        ready.set()
        await go.wait()
        stats = {"crowd_logins": 0, "crowd_refused": 0}

        async def crowd(i: int) -> None:
            while not stop.is_set():
                ok = await _timed_login(port, "Crowd", f"127.0.70.{i % 30 + 1}")
                stats["crowd_logins" if ok is not None else "crowd_refused"] += 1

        victim = asyncio.create_task(_victim_logins(port, "Quiet", "127.0.71.1", stop))
        await asyncio.gather(*(crowd(i) for i in range(120)))
        return {**stats, **await victim}
    if name == "lockout":  # someone at a shared address mistypes; its players log in
        local = await log_in(port, "Local", new=True, address="127.0.72.1")
        local.close()
        ready.set()
        await go.wait()
        for _ in range(6):  # ``look`` typed at the Password prompt, again and again
            conn = await connect(port, "127.0.72.1")
            try:
                await conn.expect("Name: ", 10)
                conn.send("Local2")
                await conn.expect("(Password: |Too many|There is no)", 10)
                conn.send("look")
                await conn.expect("(Wrong|There is no|Too many)", 10)
            except (Lost, TimeoutError, OSError):
                pass
            conn.close()
        return await _victim_logins(port, "Local", "127.0.72.1", stop)
    if name == "held":  # 920 idle connections from 92 addresses, never logging in
        (await log_in(port, "Newcomer", new=True, address="127.0.81.1")).close()
        held = []
        ready.set()
        await go.wait()
        for a in range(92):
            for _ in range(10):
                try:
                    held.append(await connect(port, f"127.0.80.{a + 1}"))
                except OSError:
                    break
        newcomers = await _victim_logins(port, "Newcomer", "127.0.81.1", stop)
        for conn in held:
            conn.close()
        return {"held": len(held), **newcomers}
    if name == "chat":  # 1,000 characters of non-ASCII CHAT to 100 listeners
        ears = [await log_in(port, f"Ear{i:03d}", new=True, address=f"127.0.90.{i // 8 + 1}")
                for i in range(100)]
        mouth = await log_in(port, "Mouth", new=True, address="127.0.91.1")
        ready.set()
        await go.wait()
        said = 0
        while not stop.is_set():
            mouth.send("chat " + "é" * 994)
            said += 1
            await asyncio.sleep(1 / 7.5)
        for conn in (*ears, mouth):
            conn.writer.transport.abort()
        return {"chats": said, "listeners": len(ears)}
    if name == "naws":  # window sizes of the wrong length, before login
        ready.set()
        await go.wait()
        bad = bytes([IAC, SB, NAWS, 1, 2, 3, IAC, SE]) * 150  # 1.2 KB
        return await _keep_writing(port, bad, 10, b"", stop)
    raise ValueError(name)


# -- the fourth campaign: live pages, the solver, a connect burst ------------------------------
TYPED_PER_SECOND = 6.0  # commands a second each player of seekstreams and tourneystreams types


def listen_overflows() -> int:
    """The kernel's count of connections dropped because a listener's queue was full
    (TcpExt ListenOverflows: the whole machine's, so other benches may add to it)."""
    with open("/proc/net/netstat") as f:
        lines = f.read().splitlines()
    for names, values in zip(lines[::2], lines[1::2]):
        if names.startswith("TcpExt:"):
            return int(dict(zip(names.split(), values.split())).get("ListenOverflows", 0))
    return 0


async def _drain(conns: list[Conn], stop: asyncio.Event) -> None:
    """Read and forget what ``conns`` are sent until ``stop`` (players who sit there)."""
    async def one(conn: Conn) -> None:
        while not stop.is_set():
            try:
                if not await asyncio.wait_for(conn.reader.read(65536), 1.0):
                    return
            except asyncio.TimeoutError:
                continue
            except OSError:
                return

    await asyncio.gather(*(one(c) for c in conns))


async def _toggle(conn: Conn, commands: tuple[tuple[str, str], ...], stop: asyncio.Event,
                  stats: dict) -> None:
    """Type ``commands`` (each a line and the pattern of its answer) round and round until
    ``stop``, each once the one before was answered, :data:`TYPED_PER_SECOND` a second
    at most (the shipped limit is 8: a player at it is told to slow down); counts them
    (``changes``)."""
    try:
        while not stop.is_set():
            for line, answer in commands:
                t0 = time.monotonic()
                conn.send(line)
                await conn.expect(answer, 30)
                stats["changes"] += 1
                await asyncio.sleep(max(0.0, 1 / TYPED_PER_SECOND - (time.monotonic() - t0)))
    except (Lost, TimeoutError, OSError) as err:
        stats.setdefault("errors", []).append(str(err)[-200:])


async def _page_streams(port: int, path: str, count: int, addresses: int,
                        stop: asyncio.Event) -> dict:
    """``count`` streams of ``path`` from ``addresses`` loopback addresses, until ``stop``."""
    stats = {"refused_at_connect": 0, "closed_by_server": 0}
    await _together([_stream(port, f"127.0.101.{i % addresses + 1}", path, stop, stats)
                     for i in range(count)])
    return stats


async def fourth_attack(name: str, server: Server, ready: asyncio.Event, go: asyncio.Event,
                        stop: asyncio.Event, sizes: argparse.Namespace) -> dict:
    """The fourth campaign's attacks (as :func:`attack`); ``sizes`` from the command line."""
    port = server.port
    if name in ("seekstreams", "tourneystreams"):
        typers = [await log_in(port, f"Typer{name[0]}{i}", new=True, address="127.0.100.1")
                  for i in range(4)]
        sitting: list[Conn] = []
        if name == "seekstreams":  # seeks no one can take (ratings 3000-3100), so none pair
            for i in range(sizes.seeks):
                conn = await log_in(port, f"Seeker{i:03d}", new=True,
                                    address=f"127.0.102.{i // 8 + 1}")
                conn.send("dice seek 3000-3100")
                await conn.expect("Your seek \\d+ is posted", 30)
                sitting.append(conn)
            path, commands = "/seeks/events", (("dice seek 3000-3100", "Your seek \\d+ is posted"),
                                               ("unseek", "You take back your seek"))
        else:
            typers[0].send("tourney create dice swiss 3")
            out = await typers[0].expect("Tournament \\d+ is open", 30)
            number = int(re.search(r"Tournament (\d+)", out).group(1))
            path, commands = "/tournaments/events", (
                (f"tourney join {number}", "You enter tournament"),
                (f"tourney withdraw {number}", "You withdraw from tournament"))
        ready.set()
        await go.wait()
        stats = {"changes": 0}
        drained = asyncio.create_task(_drain(sitting, stop))
        toggles = [asyncio.create_task(_toggle(c, commands, stop, stats)) for c in typers]
        streams = await _page_streams(web_port(server), path, sizes.streams, 17, stop)
        await asyncio.gather(drained, *toggles)
        for conn in (*typers, *sitting):
            conn.close()
        return {**streams, **stats}
    if name == "analyse":  # ten players from one address asking the solver, over and over
        async def examining(name_: str, address: str) -> Conn:
            conn = await log_in(port, name_, new=True, address=address)
            conn.send("pyr new")
            out = await conn.expect("Game #\\d+", 30)
            number = int(re.search(r"Game #(\d+)", out).group(1))
            conn.send("pyr quit")
            await conn.expect("(Par|over|ends)", 30)
            await asyncio.sleep(0.5)
            conn.send(f"examine {number} 0")
            await conn.expect("Move 0 of", 30)
            return conn

        askers = [await examining(f"Asker{i}", "127.0.110.1") for i in range(sizes.analysers)]
        victim = await examining("Student", "127.0.111.1")
        ready.set()
        await go.wait()
        stats = {"attacker_analyses": 0}
        answer = "(From here the best Par|That deal is over)[^\n]*\n"

        async def ask(conn: Conn) -> None:
            try:
                while not stop.is_set():
                    conn.send("analyse")
                    await conn.expect(answer, 120)
                    stats["attacker_analyses"] += 1
            except (Lost, TimeoutError, OSError) as err:
                stats.setdefault("errors", []).append(str(err)[:60])

        attackers = [asyncio.create_task(ask(c)) for c in askers]
        took = []
        stopping = asyncio.create_task(stop.wait())
        while not stop.is_set():
            t0 = time.monotonic()
            victim.send("analyse")
            waiting = asyncio.create_task(victim.expect(answer, 120))
            await asyncio.wait((waiting, stopping), return_when=asyncio.FIRST_COMPLETED)
            if not waiting.done():  # the phase ended first: its answer still counts, if it
                await asyncio.wait((waiting,), timeout=40)  # comes before the 60 s bound
            if not waiting.done():
                waiting.cancel()
                await asyncio.gather(waiting, return_exceptions=True)
                stats["victim_waiting_at_end_s"] = round(time.monotonic() - t0, 2)
                break
            if waiting.exception() is not None:
                stats["victim_unanswered"] = stats.get("victim_unanswered", 0) + 1
                break
            took.append(time.monotonic() - t0)
        stopping.cancel()
        for task in attackers:   # each waits for the solver; their answers are not counted
            task.cancel()
        await asyncio.gather(*attackers, return_exceptions=True)
        for conn in (*askers, victim):
            conn.writer.transport.abort()
        return {**stats, "victim_analyses": len(took),
                "victim_analyse_s_median": round(statistics.median(took), 2) if took else None,
                "victim_analyse_s_max": round(max(took), 2) if took else None}
    if name == "burst":  # connects all at once, ten from an address (its telnet cap)
        ready.set()
        await go.wait()
        stats = {"connects": sizes.burst, "prompted": 0, "refused": 0, "hung": 0,
                 "connect_failed": 0}
        took: list[float] = []
        held: list[asyncio.StreamWriter] = []
        overflows = listen_overflows()

        async def one(i: int) -> None:
            address = f"127.0.{120 + i // 2000}.{(i // 10) % 200 + 1}"
            t0 = time.monotonic()
            try:
                reader, writer = await asyncio.wait_for(asyncio.open_connection(
                    "127.0.0.1", port, local_addr=(address, 0)), sizes.hung_after)
            except TimeoutError:
                stats["hung"] += 1
                return
            except OSError:
                stats["connect_failed"] += 1
                return
            held.append(writer)
            seen = b""
            try:
                async with asyncio.timeout(max(0.1, sizes.hung_after - (time.monotonic() - t0))):
                    while b"Name: " not in seen:
                        chunk = await reader.read(4096)
                        if not chunk:
                            break
                        seen += chunk
            except TimeoutError:
                stats["hung"] += 1
                return
            except OSError:
                pass
            took.append(time.monotonic() - t0)
            stats["prompted" if b"Name: " in seen else "refused"] += 1

        await _together([one(i) for i in range(sizes.burst)], batch=sizes.burst)  # at once
        stats["listen_overflows"] = listen_overflows() - overflows
        stats["answered_s_median"] = round(statistics.median(took), 2) if took else None
        stats["answered_s_max"] = round(max(took), 2) if took else None
        await stop.wait()
        for writer in held:
            writer.close()
        return stats
    raise ValueError(name)


WEB_ATTACKS = ("websilent", "webslow", "webstreams")
INPUT_ATTACKS = ("flood", "crlf", "logins", "lockout", "held", "chat", "naws")
FOURTH_ATTACKS = ("seekstreams", "tourneystreams", "analyse", "burst")
ATTACKS = ("bomb", "newline", "sb", "sbstream", "gmcp", "conns", "new", "names", "spam", "twins",
           *INPUT_ATTACKS, *WEB_ATTACKS, *FOURTH_ATTACKS)


async def run(args: argparse.Namespace) -> int:
    folder = Path(tempfile.mkdtemp(prefix="esterport-attack-"))
    url = args.database or f"sqlite+aiosqlite:///{folder}/attack.db"
    server = LimitedServer(write_config(folder, url, args.set))
    server.start()
    failed = False
    slowest = 0.0
    try:
        prober = Prober(await log_in(server.port, "Watcher", new=True, address="127.0.0.9"))
        print(f"{'attack':<10} {'phase':<7} {'looks':>5} {'median ms':>10} {'p99 ms':>8} "
              f"{'max ms':>8} {'unanswered':>10} {'RSS MiB':>8} {'peak MiB':>8} {'log':>5}  "
              "result")
        for name in args.attacks.split(","):
            ready, go, stop = asyncio.Event(), asyncio.Event(), asyncio.Event()
            task = asyncio.create_task(
                fourth_attack(name, server, ready, go, stop, args) if name in FOURTH_ATTACKS
                else web_attack(name, server, ready, go, stop) if name in WEB_ATTACKS
                else input_attack(name, server.port, ready, go, stop) if name in INPUT_ATTACKS
                else attack(name, server.port, ready, go, stop))
            waiting = asyncio.create_task(ready.wait())  # its players are logged in
            await asyncio.wait([task, waiting], return_when=asyncio.FIRST_COMPLETED)
            if not ready.is_set():  # its setup failed: say so, and go on with the next
                waiting.cancel()
                error = task.exception() if not task.cancelled() else None
                print(f"{name:<10} setup failed: {error!r}", flush=True)
                failed = True
                continue
            before = await prober.phase(args.seconds)
            before["rss_mib"] = round(rss_kib(server.proc.pid) / 1024, 1)
            before["peak_mib"] = round(peak_rss_kib(server.proc.pid) / 1024, 1)
            logged = len(server.log)
            go.set()
            during = await prober.phase(args.seconds)
            during["rss_mib"] = round(rss_kib(server.proc.pid) / 1024, 1)
            during["peak_mib"] = round(peak_rss_kib(server.proc.pid) / 1024, 1)
            during["log_lines"] = len(server.log) - logged
            twins = None
            if name == "twins":  # while they are all still connected
                prober.conn.send("who twin")
                out = await prober.conn.expect(r"(connected\.|match '[^']*'\.)", 10)
                listing = out[out.rfind("Name "):]  # WHO's table, not "Twin has arrived."
                twins = len(re.findall(r"^Twin\b", listing, re.M))
            stop.set()
            try:
                result = await asyncio.wait_for(task, 60)
            except asyncio.TimeoutError:
                result = {"error": "the attack did not stop in 60 s"}
            after = await prober.phase(args.seconds)
            after["rss_mib"] = round(rss_kib(server.proc.pid) / 1024, 1)
            after["peak_mib"] = round(peak_rss_kib(server.proc.pid) / 1024, 1)
            if twins is not None:
                result["twin_sessions"] = twins
                failed |= twins != 1
            failed |= bool(during["unanswered"])
            slowest = max(slowest, during["max_ms"] or 0)
            for phase, row in (("before", before), ("during", during), ("after", after)):
                print(f"{name:<10} {phase:<7} {row['looks']:>5} {row['median_ms']!s:>10} "
                      f"{row['p99_ms']!s:>8} {row['max_ms']!s:>8} {row['unanswered']:>10} "
                      f"{row['rss_mib']:>8} {row['peak_mib']:>8} "
                      f"{row.get('log_lines', ''):>5}  "
                      f"{json.dumps(result) if phase == 'during' else ''}", flush=True)
    finally:
        server.stop()
    print(f"slowest LOOK during an attack: {slowest} ms")
    print("FAILED: a LOOK went unanswered (10 s) during an attack, or a second session "
          "survived" if failed else "every LOOK answered during every attack")
    return 1 if failed else 0


def main() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the attacker's own sockets
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="length of each phase")
    parser.add_argument("--attacks", default=",".join(ATTACKS))
    parser.add_argument("--database", help="a database URL (default: SQLite in a temp folder)")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                        help="a server setting (TOML value), e.g. web.streams_per_address=20")
    parser.add_argument("--streams", type=int, default=300,
                        help="live page streams of seekstreams and tourneystreams")
    parser.add_argument("--seeks", type=int, default=80, help="open seeks of seekstreams")
    parser.add_argument("--analysers", type=int, default=10,
                        help="players from one address looping ANALYSE in analyse")
    parser.add_argument("--burst", type=int, default=1000, help="connects at once in burst")
    parser.add_argument("--hung-after", type=float, default=15.0,
                        help="seconds a burst connect may wait for its first byte")
    return asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
