"""A throwaway Redis server for the test suite (redis-server on a free port, in a temp folder).

No persistence by default (``--save '' --appendonly no``): :meth:`ThrowawayRedis.restart`
then comes back empty on the same port, as a Redis that lost its memory mid-game would;
``ThrowawayRedis(persist=True)`` keeps an append-only file across restarts instead.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

REQUIRED = os.environ.get("ESTERPORT_REQUIRE_CLUSTER") == "1"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ThrowawayRedis:
    def __init__(self, *, persist: bool = False) -> None:
        self.binary = shutil.which("redis-server") or (
            "/usr/bin/redis-server" if os.path.exists("/usr/bin/redis-server") else None)
        self.persist = persist
        self.dir: Path | None = None
        self.proc: subprocess.Popen | None = None
        self.port = 0

    @property
    def available(self) -> bool:
        return self.binary is not None

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    @property
    def log(self) -> str:
        return (self.dir / "log").read_text(errors="replace") if self.dir else ""

    def start(self) -> None:
        """Start it (on a new free port the first time, on the same one after a stop) and
        wait until it answers PING."""
        assert self.binary is not None, "redis-server not installed"
        if self.dir is None:
            self.dir = Path(tempfile.mkdtemp(prefix="esterport-redis-"))
            self.port = _free_port()
        args = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1",
                "--dir", str(self.dir), "--daemonize", "no", "--protected-mode", "yes",
                "--save", "", "--appendonly", "yes" if self.persist else "no",
                "--logfile", str(self.dir / "log")]
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        self.wait()

    def wait(self, timeout: float = 10.0) -> None:
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"redis-server exited ({self.proc.returncode}):\n{self.log}")
            if self.ping():
                return
            time.sleep(0.05)
        raise RuntimeError(f"redis-server did not answer within {timeout} s:\n{self.log}")

    def ping(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                return s.recv(64).startswith(b"+PONG")
        except OSError:
            return False

    def command(self, *words: str) -> bytes:
        """One command, its raw reply (for tests that look inside, e.g. ``FLUSHALL``)."""
        body = b"".join(b"$%d\r\n%s\r\n" % (len(w.encode()), w.encode()) for w in words)
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
            s.sendall(b"*%d\r\n" % len(words) + body)
            return s.recv(1 << 16)

    def _halt(self) -> None:
        if self.proc is None:
            return
        self.proc.terminate()   # SIGTERM: redis-server exits (no save: nothing to save)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)  # SIGKILL: gone at once (a bound all the same)
        finally:
            self.proc = None

    def restart(self, down: float = 0.0) -> None:
        """Stop it and start it again on the same port, after ``down`` seconds: clients'
        connections break; without ``persist`` every key is gone."""
        self._halt()
        if down:
            time.sleep(down)
        self.start()

    def stop(self) -> None:
        try:
            self._halt()
        finally:  # the folder goes even when the process would not
            if self.dir is not None:
                shutil.rmtree(self.dir, ignore_errors=True)
                self.dir = None
