"""Parlor load: N players log in and send commands; the same load against a bare echo.

    .venv/bin/python bench/load.py --players 100 1000 3000
    .venv/bin/python bench/load.py --players 500 --closed 5 --paced 5 --commands WHO LOOK
    .venv/bin/python bench/load.py --database postgresql+asyncpg://u:p@127.0.0.1/bench
    .venv/bin/python bench/load.py --slices 4 --against ../main  # this code and another, side by side

For every N (ascending; the players of a smaller N stay logged in and more join) two
modes run against two servers:

* closed-loop: each player sends its next command as soon as the answer to the previous
  one arrived (the answer ends with the prompt ``> `` and IAC GA);
* paced: each player sends one command a second (open loop: on schedule, whether or not
  the previous answer came back), at a random phase.

The servers are the parlor (``python -m commands.app serve`` in its own process, on its own
database, SQLite in a temporary folder unless ``--database``) and a bare
``asyncio.start_server`` line echo (also its own process) that speaks just enough of the
same dialogue (``Name:``, ``Password:``, ``> `` + IAC GA) for the same client code. For
every N, before measuring, one player sends each command to the parlor once and the echo
is given the parlor's answers (:func:`set_replies`): it then answers each command with the
same bytes, so both servers send replies of the same size and the baseline's cost is a
socket's, not a shorter echo's. The players are driven by ``--client-procs`` worker
processes (raw asyncio protocols, uvloop when installed) so the load generator shares no
event loop with either server.

Prints, per N, a table of throughput (answers/s), p50 and p99 latency, the parlor/bare
throughput ratio, the CPU the server and the load generator used (100% = one core), and
the server's CPU time per command answered (µs/cmd); under the closed-loop rows, the
bare echo's CPU per command divided by the parlor's ("CPU per command, bare/parlor": 1.0
would be a parlor as cheap as a socket). Exits with status 1 if any command went
unanswered.

On a machine shared with other work, the two servers measured one after the other meet
different loads, and the ratio says more about the neighbours than about the parlor.
``--slices K`` cuts the closed-loop measurement into K slices per server, run alternately
(parlor, bare, bare, parlor, ...), so both meet the same conditions; the figures are the
sums over the slices. ``--against DIR`` adds a third server, the parlor of another
checkout (its own database, the same accounts), measured in the same turns: a change's
figures before and after, under one load. ``--held`` adds the parlor as ``esterport serve``
runs it by default, under its holder (server/holder; its own database, the same accounts):
its CPU is the holder's and the serving parlor's together, so "bare/held" beside
"bare/parlor" is what holding the connections costs a command.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import deque
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

IAC, DONT, DO, WONT, WILL, SB, GA, SE = 255, 254, 253, 252, 251, 250, 249, 240
GA_BYTES = bytes([IAC, GA])
PASSWORD = "benchpass"
# Commands whose cost does not grow with the number of players online. WHO and LOOK
# list everyone online / in the room (all N players stand in the plaza), so with them
# the figures measure O(N) output, not the session path: try ``--commands WHO LOOK``.
DEFAULT_COMMANDS = ("SET", "GAMES", "PENDING", "HELP LOOK")
PARLOR, AGAINST = "parlor", "against"  # this checkout's parlor; another's (--against)
HELD = "held"  # this checkout's parlor under its holder (--held)


def raise_fd_limit() -> int:
    """Soft RLIMIT_NOFILE up to the hard limit (children inherit it); returns it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        hard = max(soft, 1 << 20)
    if soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    return soft


def player_name(i: int) -> str:
    return f"Bench{i:05d}"


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    return sorted_values[min(len(sorted_values) - 1, int(q * (len(sorted_values) - 1) + 0.5))]


def load_average() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process (Linux /proc), or None."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


# ======================================================================================
# The client side (runs in worker processes)
# ======================================================================================

class Player(asyncio.Protocol):
    """One simulated player on a raw socket.

    Logging in, it strips telnet commands (refusing every DO/WILL) and collects text to
    wait for. Logged in, it only counts bytes and go-aheads: each IAC GA ends one answer.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.transport: asyncio.Transport | None = None
        self.logging_in = True
        self.text = bytearray()
        self.partial = b""
        self.want: bytes | None = None
        self.waiter: asyncio.Future | None = None
        self.received = 0        # bytes
        self.ff_tail = False     # last chunk ended with IAC (GA may straddle two chunks)
        self.phase: "Phase | None" = None
        self.pending: deque[float] = deque()   # send times of unanswered commands
        self.next_command = 0
        self.lost = False
        self.capture: bytearray | None = None   # probing: the answer so far
        self.captured: asyncio.Future | None = None

    # -- asyncio.Protocol -----------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(ConnectionError(f"{self.name}: connection closed"))
        if self.phase is not None:
            self.phase.lost(self)

    def data_received(self, data: bytes) -> None:
        self.received += len(data)
        if self.logging_in:
            self._telnet(data)
            if self.waiter is not None and not self.waiter.done():
                if self.want is not None and self.want in self.text:
                    self.waiter.set_result(None)
                elif b"please reconnect" in self.text:   # the server's session crashed
                    self.waiter.set_exception(ConnectionError(
                        f"{self.name}: " + bytes(self.text[-200:]).decode(errors="replace")))
            return
        if self.capture is not None:
            self.capture += data
            if self.capture.endswith(GA_BYTES) and not self.captured.done():
                self.captured.set_result(bytes(self.capture))
            return
        n = data.count(GA_BYTES)
        if self.ff_tail and data[0] == GA:
            n += 1
        self.ff_tail = data[-1] == IAC
        if n and self.phase is not None:
            self.phase.answered(self, n)

    # -- login ----------------------------------------------------------------------------
    def _telnet(self, data: bytes) -> None:
        """Keep the text of ``data``; refuse every option the server offers or asks for."""
        if self.partial:
            data, self.partial = self.partial + data, b""
        i, n = 0, len(data)
        while i < n:
            j = data.find(b"\xff", i)
            if j < 0:
                self.text += data[i:]
                return
            self.text += data[i:j]
            if j + 1 >= n:
                self.partial = data[j:]
                return
            cmd = data[j + 1]
            if cmd == IAC:
                self.text.append(IAC)
                i = j + 2
            elif cmd in (DO, DONT, WILL, WONT):
                if j + 2 >= n:
                    self.partial = data[j:]
                    return
                if cmd in (DO, WILL):
                    self.transport.write(bytes([IAC, WONT if cmd == DO else DONT, data[j + 2]]))
                i = j + 3
            elif cmd == SB:
                end = data.find(bytes([IAC, SE]), j + 2)
                if end < 0:
                    self.partial = data[j:]
                    return
                i = end + 2
            else:  # GA, NOP, ...
                i = j + 2

    async def expect(self, text: str, timeout: float) -> None:
        want = text.encode()
        if want not in self.text:
            if self.lost:
                raise ConnectionError(f"{self.name}: connection closed")
            self.want, self.waiter = want, asyncio.get_running_loop().create_future()
            try:
                await asyncio.wait_for(self.waiter, timeout)
            except asyncio.TimeoutError:
                tail = bytes(self.text[-300:]).decode(errors="replace")
                raise TimeoutError(f"{self.name}: no {text!r} in {timeout} s; got ...{tail!r}")
            finally:
                self.want = self.waiter = None
        del self.text[:self.text.find(want) + len(want)]

    def send(self, line: str) -> None:
        self.transport.write(line.encode() + b"\r\n")

    async def answer(self, command: str, timeout: float) -> bytes:
        """The whole answer to ``command`` (up to the prompt's IAC GA), as sent."""
        self.capture, self.captured = bytearray(), asyncio.get_running_loop().create_future()
        try:
            self.send(command)
            return await asyncio.wait_for(self.captured, timeout)
        finally:
            self.capture = self.captured = None

    async def log_in(self, password: str, timeout: float) -> None:
        await self.expect("Name: ", timeout)
        self.send(self.name)
        await self.expect("Password: ", timeout)
        self.send(password)
        await self.expect("Exits:", timeout)
        await self.expect("> ", timeout)
        self.logging_in = False
        self.text.clear()


class Phase:
    """One measured run over every player of this worker."""

    def __init__(self, players: list[Player], mode: str, commands: list[bytes],
                 warmup: float, duration: float, interval: float = 1.0) -> None:
        self.loop = asyncio.get_running_loop()
        self.interval = interval  # paced: seconds between a player's commands
        self.players = [p for p in players if not p.lost]
        self.mode = mode
        self.commands = commands
        now = self.loop.time()
        self.t0 = now
        self.measure_from = now + warmup
        self.until = now + warmup + duration
        self.latencies: list[float] = []
        self.sent = 0
        self.answers = 0
        self.outstanding = 0      # sent, not yet answered, on open connections
        self.unexpected = 0
        self.dropped = 0          # players whose connection closed mid-phase
        self.lag: list[float] = []  # paced: how late the generator sent (its own health)
        self.stopping = False
        self.done = self.loop.create_future()

    def send(self, p: Player, now: float) -> None:
        cmd = self.commands[p.next_command % len(self.commands)]
        p.next_command += 1
        p.pending.append(now)
        self.sent += 1
        self.outstanding += 1
        p.transport.write(cmd)

    def answered(self, p: Player, n: int) -> None:
        now = self.loop.time()
        for _ in range(n):
            if not p.pending:
                self.unexpected += 1
                continue
            sent = p.pending.popleft()
            self.answers += 1
            self.outstanding -= 1
            if self.measure_from <= now <= self.until:
                self.latencies.append(now - sent)
            if self.mode == "closed" and not self.stopping:
                self.send(p, now)
        if self.stopping:
            self._check_done()

    def lost(self, p: Player) -> None:
        self.dropped += 1
        self.outstanding -= len(p.pending)
        if self.stopping:
            self._check_done()

    def _check_done(self) -> None:
        if not self.done.done() and self.outstanding <= 0:
            self.done.set_result(None)

    def _tick(self, p: Player, at: float) -> None:
        if self.stopping or p.lost:
            return
        now = self.loop.time()
        if now >= self.measure_from:
            self.lag.append(now - at)
        self.send(p, now)
        self.loop.call_at(at + self.interval, self._tick, p, at + self.interval)

    async def run(self, drain_timeout: float) -> dict[str, Any]:
        for p in self.players:
            p.pending.clear()
            p.phase = self
        if self.mode == "closed":
            for p in self.players:
                self.send(p, self.t0)
        else:
            for p in self.players:
                at = self.t0 + random.random() * self.interval
                self.loop.call_at(at, self._tick, p, at)
        await asyncio.sleep(self.until - self.loop.time())
        self.stopping = True
        self._check_done()
        try:
            await asyncio.wait_for(asyncio.shield(self.done), drain_timeout)
        except asyncio.TimeoutError:
            pass
        missing = sum(len(p.pending) for p in self.players)
        for p in self.players:
            p.phase = None
        in_window = len(self.latencies)
        lag = sorted(self.lag)
        return {"sent": self.sent, "answers": self.answers, "missing": missing,
                "unexpected": self.unexpected, "dropped": self.dropped,
                "in_window": in_window, "window": self.until - self.measure_from,
                "latencies": [round(x * 1e6) for x in self.latencies],
                "lag_p99": percentile(lag, 0.99) if lag else 0.0}


class Worker:
    """A load-generator process: obeys JSON lines on stdin, answers on stdout."""

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self.players: list[Player] = []

    async def login(self, names: list[str], password: str, concurrency: int,
                    timeout: float, retries: int = 2) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        gate = asyncio.Semaphore(concurrency)
        failures: list[str] = []
        errors: list[str] = []   # attempts that failed (then retried)
        started = time.perf_counter()

        async def one(name: str) -> None:
            async with gate:
                for attempt in range(retries + 1):
                    p = None
                    try:
                        _, p = await asyncio.wait_for(
                            loop.create_connection(lambda: Player(name), self.host, self.port),
                            timeout)
                        await p.log_in(password, timeout)
                        self.players.append(p)
                        return
                    except (OSError, TimeoutError, asyncio.TimeoutError, ConnectionError) as err:
                        if p is not None and p.transport is not None:
                            p.transport.close()
                        errors.append(f"{name}: {err!r}"[:300])
                failures.append(errors[-1])

        await asyncio.gather(*(one(n) for n in names))
        return {"seconds": time.perf_counter() - started, "ok": len(names) - len(failures),
                "failures": failures[:5], "failed": len(failures), "errors": len(errors),
                "error_samples": errors[:3]}

    async def quiet(self, still: float, timeout: float) -> dict[str, Any]:
        """Wait until nothing has arrived for ``still`` seconds (arrival notices)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        last, since = -1, loop.time()
        while loop.time() < deadline:
            total = sum(p.received for p in self.players)
            if total != last:
                last, since = total, loop.time()
            elif loop.time() - since >= still:
                return {"quiet": True}
            await asyncio.sleep(0.1)
        return {"quiet": False}

    async def probe(self, commands: list[str], timeout: float) -> dict[str, Any]:
        """Each command's answer (hex) to this worker's first player."""
        player = next(p for p in self.players if not p.lost)
        return {"answers": {c: (await player.answer(c, timeout)).hex() for c in commands}}

    async def phase(self, mode: str, commands: list[str], warmup: float, duration: float,
                    drain_timeout: float, interval: float = 1.0) -> dict[str, Any]:
        encoded = [c.encode() + b"\r\n" for c in commands]
        started = time.process_time()
        result = await Phase(self.players, mode, encoded, warmup, duration,
                             interval).run(drain_timeout)
        result["cpu"] = time.process_time() - started
        return result

    def close(self) -> None:
        for p in self.players:
            if p.transport is not None:
                p.transport.close()
        self.players.clear()

    async def serve(self) -> None:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=1 << 24)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        out = sys.stdout
        while True:
            line = await reader.readline()
            if not line:
                break
            req = json.loads(line)
            op = req.pop("op")
            if op == "exit":
                break
            if op == "close":
                self.close()
                result: dict[str, Any] = {}
            else:
                result = await getattr(self, op)(**req)
            out.write(json.dumps(result) + "\n")
            out.flush()
        self.close()


def worker_main(host: str, port: int) -> None:
    raise_fd_limit()
    try:
        import uvloop  # type: ignore[import-not-found]
        uvloop.install()
    except ImportError:
        pass
    asyncio.run(Worker(host, port).serve())


def loop_name() -> str:
    try:
        import uvloop  # type: ignore[import-not-found]  # noqa: F401
        return "uvloop"
    except ImportError:
        return "asyncio"


# ======================================================================================
# The bare reference server (its own process)
# ======================================================================================

# command (as typed, without its line end) -> the parlor's whole answer to it, prompt and
# IAC GA included: the echo answers a known command with those bytes (set_replies)
REPLIES: dict[bytes, bytes] = {}
REPLIES_NAME = b"!replies"  # a connection that logs in with this name sets REPLIES


async def _echo_session(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    ga = bytes([IAC, GA])
    try:
        writer.write(b"Name: " + ga)
        if (await reader.readline()).rstrip(b"\r\n") == REPLIES_NAME:
            REPLIES.clear()
            REPLIES.update({k.encode(): bytes.fromhex(v)
                            for k, v in json.loads(await reader.readline()).items()})
            writer.write(b"ok\r\n")
            await writer.drain()
            return
        writer.write(b"Password: " + ga)
        await reader.readline()
        writer.write(b"\r\nExits: none\r\n> " + ga)
        replies = REPLIES
        while True:
            line = await reader.readline()
            if not line:
                break
            line = line.rstrip(b"\r\n")
            writer.write(replies.get(line) or line + b"\r\n> " + ga)
            await writer.drain()
    except ConnectionError:
        pass
    finally:
        writer.close()


async def _echo_serve() -> None:
    server = await asyncio.start_server(_echo_session, "127.0.0.1", 0, backlog=1024)
    port = server.sockets[0].getsockname()[1]
    print(f"bare echo listening. Connect with: telnet 127.0.0.1 {port}", file=sys.stderr,
          flush=True)
    async with server:
        await server.serve_forever()


async def set_replies(host: str, port: int, answers: dict[str, str],
                      timeout: float = 30.0) -> None:
    """Give the bare echo on ``port`` the parlor's ``answers`` (command -> hex)."""
    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    try:
        writer.write(REPLIES_NAME + b"\r\n" + json.dumps(answers).encode() + b"\r\n")
        await asyncio.wait_for(reader.readuntil(b"ok\r\n"), timeout)
    finally:
        writer.close()


def echo_main() -> None:
    raise_fd_limit()
    try:
        asyncio.run(_echo_serve())
    except KeyboardInterrupt:
        pass


# ======================================================================================
# The coordinator
# ======================================================================================

class ServerProcess:
    """A server child process (parlor or bare echo) whose stderr goes to a log file."""

    def __init__(self, label: str, argv: list[str], log: Path, code: Path = ROOT) -> None:
        self.label = label
        self.log = log
        self.fh = open(log, "w")
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=self.fh, cwd=code,
                                     env={**os.environ, "PYTHONPATH": str(code)})
        self.port = 0

    def wait_port(self, timeout: float = 60.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.log.read_text(errors="replace").splitlines():
                if "Connect with: telnet" in line:
                    self.port = int(line.rsplit(" ", 1)[1])
                    return self.port
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"the {self.label} server did not start:\n"
                           + self.log.read_text(errors="replace")[-3000:])

    def cpu(self) -> float | None:
        return cpu_seconds(self.proc.pid)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.fh.close()


class HeldProcess(ServerProcess):
    """``esterport serve --hold``: the holder, whose child parlor serves. Its CPU is both
    processes' (the spare, which only waits, is not counted)."""

    def cpu(self) -> float | None:
        from server.holder.process import serving_parlor

        holder = cpu_seconds(self.proc.pid)
        parlor = serving_parlor(self.proc.pid)
        served = cpu_seconds(parlor) if parlor is not None else None
        return None if holder is None or served is None else holder + served


class WorkerPool:
    """``procs`` load-generator processes connected to one server."""

    def __init__(self, host: str, port: int, procs: int) -> None:
        self.host, self.port, self.n = host, port, procs
        self.procs: list[asyncio.subprocess.Process] = []
        self.count = 0   # players logged in (or tried)

    async def start(self) -> None:
        for _ in range(self.n):
            self.procs.append(await asyncio.create_subprocess_exec(
                sys.executable, str(Path(__file__).resolve()), "--_worker", self.host,
                str(self.port), stdin=subprocess.PIPE, stdout=subprocess.PIPE, limit=1 << 26,
                cwd=ROOT))

    async def _ask(self, proc: asyncio.subprocess.Process, req: dict[str, Any]) -> dict[str, Any]:
        proc.stdin.write((json.dumps(req) + "\n").encode())
        await proc.stdin.drain()
        line = await proc.stdout.readline()
        if not line:
            raise RuntimeError("a load-generator worker died")
        return json.loads(line)

    async def all(self, reqs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return await asyncio.gather(*(self._ask(p, r) for p, r in zip(self.procs, reqs)))

    async def grow(self, total: int, concurrency: int, timeout: float) -> dict[str, Any]:
        """Log in players ``self.count .. total-1``, dealt round-robin to the workers."""
        new = list(range(self.count, total))
        self.count = total
        reqs = [{"op": "login", "names": [player_name(i) for i in new[k::self.n]],
                 "password": PASSWORD, "concurrency": max(1, concurrency // self.n),
                 "timeout": timeout} for k in range(self.n)]
        started = time.perf_counter()
        results = await self.all(reqs)
        await self.all([{"op": "quiet", "still": 1.0, "timeout": 300.0}] * self.n)
        return {"seconds": time.perf_counter() - started,
                "failed": sum(r["failed"] for r in results),
                "failures": [f for r in results for f in r["failures"]][:5],
                "errors": sum(r["errors"] for r in results),
                "error_samples": [e for r in results for e in r["error_samples"]][:3]}

    async def probe(self, commands: list[str], timeout: float = 30.0) -> dict[str, str]:
        """Each command's whole answer (hex), to one player of the first worker."""
        return (await self._ask(self.procs[0], {"op": "probe", "commands": commands,
                                                "timeout": timeout}))["answers"]

    async def phase(self, mode: str, commands: list[str], warmup: float,
                    duration: float, interval: float = 1.0) -> list[dict[str, Any]]:
        req = {"op": "phase", "mode": mode, "commands": commands, "warmup": warmup,
               "duration": duration, "drain_timeout": max(30.0, duration),
               "interval": interval}
        return await self.all([req] * self.n)

    async def stop(self) -> None:
        for proc in self.procs:
            if proc.returncode is None:
                try:
                    proc.stdin.write(b'{"op": "exit"}\n')
                    proc.stdin.close()
                except (ConnectionError, RuntimeError):
                    pass
        for proc in self.procs:
            try:
                await asyncio.wait_for(proc.wait(), 5)
            except asyncio.TimeoutError:   # busy (interrupted mid-login or mid-phase)
                proc.kill()
                await proc.wait()


def parlor_config(folder: Path, database: str, players: int) -> Path:
    path = folder / "config.toml"
    path.write_text(textwrap.dedent(f"""\
        [server]
        host = "127.0.0.1"
        port = 0
        hold = false
        idle_timeout = 0
        max_connections_per_address = {players + 100}
        commands_per_second = 1000000
        command_burst = 1000000
        log_level = "WARNING"
        fairness = false
        [database]
        url = "{database}"
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
        computer_delay = 0.0
    """))
    return path


def seed_accounts(folder: Path, config: Path, players: int, code: Path = ROOT) -> float:
    """Create ``players`` accounts with ``esterport seed`` (idempotent); returns seconds."""
    seed = folder / "players.toml"
    seed.write_text("".join(f'[[accounts]]\nname = "{player_name(i)}"\npassword = "{PASSWORD}"\n\n'
                            for i in range(players)))
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "commands.app", "seed", str(seed), "--config",
                           str(config)], cwd=code, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(code)})
    if done.returncode != 0:
        raise RuntimeError(f"seeding failed:\n{done.stderr[-3000:]}")
    return time.perf_counter() - started


def summarize(server: str, mode: str, parts: list[dict[str, Any]], server_cpu: float | None,
              wall: float, window: float | None = None) -> dict[str, Any]:
    """One row from the workers' ``parts`` of a phase (or of several slices of one: then
    ``window`` is their measured seconds added up)."""
    lat = sorted(x for part in parts for x in part["latencies"])
    if window is None:
        window = max(part["window"] for part in parts)
    answers = sum(p["answers"] for p in parts)
    return {
        "server": server, "mode": mode,
        "throughput": len(lat) / window if window > 0 else 0.0,
        "p50": percentile(lat, 0.50) / 1000, "p99": percentile(lat, 0.99) / 1000,
        "sent": sum(p["sent"] for p in parts), "answers": answers,
        "missing": sum(p["missing"] for p in parts),
        "unexpected": sum(p["unexpected"] for p in parts),
        "dropped": sum(p["dropped"] for p in parts),
        "server_cpu": None if server_cpu is None else server_cpu / wall,
        # the server's CPU over the whole phase (warm-up and drain too) for every answer
        # in it (those of the warm-up and the drain too): µs a command
        "cpu_per_command": (None if server_cpu is None or not answers
                            else 1e6 * server_cpu / answers),
        "client_cpu": sum(p["cpu"] for p in parts) / wall,
        "lag_p99": max(p["lag_p99"] for p in parts) * 1000,
    }


def print_table(n: int, rows: list[dict[str, Any]], logins: dict[str, dict[str, Any]],
                out: Any) -> None:
    print(f"\nN = {n} players   (log-in to quiet: "
          + ", ".join(f"{k} {v['seconds']:.1f} s" for k, v in logins.items()) + ")", file=out)
    head = (f"{'mode':<12} {'server':<7} {'cmds/s':>9} {'p50 ms':>8} {'p99 ms':>8} "
            f"{'ratio':>6} {'answered':>17} {'srv CPU':>8} {'gen CPU':>8} {'µs/cmd':>7}")
    print(head, file=out)
    print("-" * len(head), file=out)
    bare = {r["mode"]: r for r in rows if r["server"] == "bare"}
    for r in rows:
        ref = bare.get(r["mode"])
        ratio = (f"{r['throughput'] / ref['throughput']:.2f}"
                 if r["server"] != "bare" and ref and ref["throughput"] else "")
        srv = "" if r["server_cpu"] is None else f"{100 * r['server_cpu']:.0f}%"
        answered = f"{r['answers']}/{r['sent']}"
        mode = "closed-loop" if r["mode"] == "closed" else "paced 1/s"
        per = "" if r["cpu_per_command"] is None else f"{r['cpu_per_command']:.1f}"
        print(f"{mode:<12} {r['server']:<7} {r['throughput']:>9.0f} {r['p50']:>8.2f} "
              f"{r['p99']:>8.2f} {ratio:>6} {answered:>17} {srv:>8} "
              f"{100 * r['client_cpu']:>7.0f}% {per:>7}", file=out)
        if r["missing"] or r["unexpected"] or r["dropped"]:
            print(f"    !! {r['missing']} unanswered, {r['unexpected']} unexpected answers, "
                  f"{r['dropped']} connections lost", file=out)
        if r["mode"] == "paced" and r["lag_p99"] > 20:
            print(f"    !! the load generator's send timers fired late (p99 {r['lag_p99']:.0f} "
                  "ms): it or the machine is busy; latency counts from the actual send",
                  file=out)
    for mode, label in (("closed", "closed-loop"), ("paced", "paced 1/s")):
        for server in (PARLOR, HELD, AGAINST):
            ratio = cpu_ratio(rows, mode, server)
            if ratio is not None:
                print(f"{label}: CPU per command, bare/{server}: {ratio:.2f}", file=out)
    out.flush()


def cpu_ratio(rows: list[dict[str, Any]], mode: str, server: str = "parlor") -> float | None:
    """The bare echo's CPU per command over ``server``'s in ``mode`` (1.0: as cheap)."""
    per = {r["server"]: r["cpu_per_command"] for r in rows if r["mode"] == mode}
    if not per.get(server) or not per.get("bare"):
        return None
    return per["bare"] / per[server]


class Tally:
    """One server's measurement in one mode, possibly in several slices, added up."""

    def __init__(self) -> None:
        self.parts: list[dict[str, Any]] = []
        self.used: float | None = 0.0   # server CPU seconds
        self.wall = 0.0
        self.window = 0.0

    async def slice(self, ns: argparse.Namespace, server: ServerProcess, pool: WorkerPool,
                    mode: str, warmup: float, duration: float) -> None:
        cpu0, t0 = server.cpu(), time.perf_counter()
        got = await pool.phase(mode, ns.commands, warmup, duration)
        cpu1 = server.cpu()
        self.wall += time.perf_counter() - t0
        self.used = (None if self.used is None or cpu0 is None or cpu1 is None
                     else self.used + cpu1 - cpu0)
        self.window += max(part["window"] for part in got)
        self.parts.extend(got)

    def row(self, label: str, mode: str) -> dict[str, Any]:
        return summarize(label, mode, self.parts, self.used, self.wall, self.window)


async def measure(ns: argparse.Namespace, server: ServerProcess, pool: WorkerPool,
                  label: str, mode: str, duration: float) -> dict[str, Any]:
    """One row: ``mode`` on one server for ``duration`` seconds after the warm-up."""
    tally = Tally()
    await tally.slice(ns, server, pool, mode, ns.warmup, duration)
    return tally.row(label, mode)


async def measure_alternately(ns: argparse.Namespace, servers: dict[str, ServerProcess],
                              pools: dict[str, WorkerPool]) -> list[dict[str, Any]]:
    """The closed-loop rows of both servers, measured in ``ns.slices`` slices each, taken
    in turn (parlor, bare, bare, parlor, ...): both meet the machine's load alike. The
    first slice of each warms up for ``--warmup`` seconds, the others for at most 0.2."""
    tallies = {label: Tally() for label in servers}
    order = list(servers)
    for k in range(ns.slices):
        for label in order if k % 2 == 0 else order[::-1]:
            warmup = ns.warmup if k == 0 else min(ns.warmup, 0.2)
            await tallies[label].slice(ns, servers[label], pools[label], "closed", warmup,
                                       ns.closed / ns.slices)
    return [tallies[label].row(label, "closed") for label in order]


async def run(ns: argparse.Namespace, out: Any = sys.stdout) -> list[dict[str, Any]]:
    """The whole benchmark; prints as it goes; returns every row (one per N/server/mode)."""
    fds = raise_fd_limit()
    sizes = sorted(set(ns.players))
    top = sizes[-1]
    print(f"Esterport load benchmark: Python {platform.python_version()} "
          f"({platform.python_implementation()}), {os.cpu_count()} CPUs "
          f"({platform.machine()}, {platform.system()} {platform.release()}), "
          f"open-file limit {fds}, generator loop {loop_name()}, {ns.client_procs} generator "
          f"process(es); load average {load_average()}", file=out)
    print(f"commands (cycled, each player starting at its own offset): {' | '.join(ns.commands)}; "
          f"closed-loop {ns.closed:g} s, paced {ns.paced:g} s, warm-up {ns.warmup:g} s each"
          + (f"; closed-loop in {ns.slices} slices a server, taken in turn"
             if ns.slices > 1 else ""), file=out)
    need = 2 * top + 200
    if fds < need:
        print(f"!! open-file limit {fds} is below the ~{need} that {top} players need "
              "(both ends are on this machine); some connections will fail", file=out)
    folder = Path(tempfile.mkdtemp(prefix="esterport-bench-"))
    database = ns.database or f"sqlite+aiosqlite:///{folder}/bench.db"
    config = parlor_config(folder, database, top)
    seconds = seed_accounts(folder, config, top)
    print(f"database {database.split('@')[-1]}: {top} accounts seeded in {seconds:.1f} s",
          file=out)
    if ns.held:
        held = folder / HELD
        held.mkdir()
        held_config = parlor_config(held, f"sqlite+aiosqlite:///{held}/bench.db", top)
        held_config.write_text(held_config.read_text().replace(
            "hold = false", f'hold = true\npid_file = "{held}/esterport.pid"'))
        seconds = seed_accounts(held, held_config, top)
        print(f"{HELD}: the parlor under its holder, on its own database (seeded in "
              f"{seconds:.1f} s)", file=out)
    if ns.against:
        other = folder / AGAINST
        other.mkdir()
        other_config = parlor_config(other, f"sqlite+aiosqlite:///{other}/bench.db", top)
        seconds = seed_accounts(other, other_config, top, ns.against)
        print(f"{AGAINST}: the parlor of {ns.against}, on its own database (seeded in "
              f"{seconds:.1f} s)", file=out)
    out.flush()
    profile = ["-m", "cProfile", "-o", ns.profile_server] if ns.profile_server else []
    servers = {
        "parlor": ServerProcess("parlor", [sys.executable, *profile, "-m", "commands.app", "serve",
                                           "--config", str(config)], folder / "parlor.log"),
        "bare": ServerProcess("bare", [sys.executable, str(Path(__file__).resolve()),
                                       "--_echo"], folder / "bare.log"),
    }
    if ns.held:
        servers[HELD] = HeldProcess(HELD, [
            sys.executable, "-m", "commands.entry", "serve", "--config", str(held_config)],
            folder / f"{HELD}.log")
    if ns.against:
        servers[AGAINST] = ServerProcess(AGAINST, [
            sys.executable, "-m", "commands.app", "serve", "--config", str(other_config)],
            folder / f"{AGAINST}.log", ns.against)
    pools: dict[str, WorkerPool] = {}
    rows: list[dict[str, Any]] = []
    try:
        for label, server in servers.items():
            server.wait_port()
            pools[label] = WorkerPool("127.0.0.1", server.port, ns.client_procs)
            await pools[label].start()
        for n in sizes:
            logins: dict[str, dict[str, Any]] = {}
            table: list[dict[str, Any]] = []
            for label in servers:
                logins[label] = await pools[label].grow(n, ns.login_concurrency,
                                                        ns.login_timeout)
                if logins[label]["errors"]:
                    print(f"!! {label}: {logins[label]['errors']} log-in attempt(s) failed "
                          f"(each retried up to twice), e.g. {logins[label]['error_samples'][:1]}",
                          file=out)
                if logins[label]["failed"]:
                    print(f"!! {label}: {logins[label]['failed']} of {n} players could not log "
                          f"in, e.g. {logins[label]['failures'][:2]}", file=out)
            answers = await pools["parlor"].probe(ns.commands)
            await set_replies("127.0.0.1", servers["bare"].port, answers)
            print(f"\nreply bytes at N = {n} (the parlor's; the echo sends the same): "
                  + ", ".join(f"{c} {len(a) // 2}" for c, a in answers.items()), file=out)
            for label in servers:
                if ns.slices == 1:
                    table.append(await measure(ns, servers[label], pools[label], label, "closed",
                                               ns.closed))
                if ns.paced > 0:
                    table.append(await measure(ns, servers[label], pools[label], label,
                                               "paced", ns.paced))
            if ns.slices > 1:
                table.extend(await measure_alternately(ns, servers, pools))
            for row in table:
                row["players"] = n
                row["login_failed"] = logins[row["server"]]["failed"]
            table.sort(key=lambda r: (r["mode"] != "closed", list(servers).index(r["server"])))
            print_table(n, table, logins, out)
            print(f"load average {load_average()}", file=out)
            rows.extend(table)
    finally:
        for pool in pools.values():
            await pool.stop()
        for server in servers.values():
            server.stop()
        if ns.keep:
            print(f"(kept {folder})", file=out)
        else:
            shutil.rmtree(folder, ignore_errors=True)
    print("\nsrv CPU / gen CPU: CPU time of the server process / of all load-generator "
          "processes during the phase, as % of one core (wall time includes warm-up and "
          "drain).", file=out)
    return rows


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--players", type=int, nargs="+", default=[100, 1000, 3000], metavar="N",
                   help="numbers of players (default: 100 1000 3000)")
    p.add_argument("--closed", type=float, default=10.0, metavar="S",
                   help="seconds measured closed-loop (default 10)")
    p.add_argument("--paced", type=float, default=15.0, metavar="S",
                   help="seconds measured at 1 command/s per player (default 15; 0: none)")
    p.add_argument("--slices", type=int, default=1, metavar="K",
                   help="measure closed-loop in K slices per server, parlor and bare in turn "
                        "(default 1: one after the other)")
    p.add_argument("--warmup", type=float, default=1.0, metavar="S",
                   help="seconds run before each measurement starts (default 1)")
    p.add_argument("--commands", nargs="+", default=list(DEFAULT_COMMANDS), metavar="CMD",
                   help="commands each player cycles through (default: %(default)s)")
    p.add_argument("--database", metavar="URL",
                   help="the parlor's database (default: SQLite in a temporary folder)")
    p.add_argument("--client-procs", type=int, default=1, metavar="K",
                   help="load-generator processes (default 1)")
    p.add_argument("--login-concurrency", type=int, default=20, metavar="K",
                   help="logins in progress at once (default 20)")
    p.add_argument("--login-timeout", type=float, default=120.0, metavar="S")
    p.add_argument("--against", type=Path, metavar="DIR",
                   help="also measure the parlor of another checkout, in the same turns")
    p.add_argument("--held", action="store_true",
                   help="also measure the parlor under its holder (serve's default), in "
                        "the same turns")
    p.add_argument("--keep", action="store_true", help="keep the temporary folder (logs, db)")
    p.add_argument("--profile-server", metavar="FILE",
                   help="run the parlor under cProfile and write its stats to FILE")
    ns = p.parse_args(argv)
    if ns.slices < 1:
        p.error("--slices is a number of slices, 1 or more")
    if ns.against is not None:
        ns.against = ns.against.resolve()
        if not (ns.against / "commands" / "app.py").is_file():
            p.error(f"--against {ns.against} is not a checkout of the parlor (no commands/app.py)")
    return ns


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--_worker"]:
        worker_main(argv[1], int(argv[2]))
        return 0
    if argv[:1] == ["--_echo"]:
        echo_main()
        return 0
    ns = parse_args(argv)
    try:
        rows = asyncio.run(run(ns))
    except KeyboardInterrupt:
        return 130
    bad = [r for r in rows if r["missing"] or r["unexpected"] or r["dropped"]
           or r["login_failed"]]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
