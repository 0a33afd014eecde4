"""A throwaway PostgreSQL server for the test suite (initdb + pg_ctl in a temp folder)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from typing import Iterator

REQUIRED = os.environ.get("ESTERPORT_REQUIRE_POSTGRES") == "1"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tool(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for base in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (base / name).exists():
            return str(base / name)
    return None


class ThrowawayPostgres:
    def __init__(self) -> None:
        self.initdb = _tool("initdb")
        self.pg_ctl = _tool("pg_ctl")
        self.dir: Path | None = None
        self.port = 0

    @property
    def available(self) -> bool:
        return bool(self.initdb and self.pg_ctl)

    def start(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="esterport-pg-"))
        data = self.dir / "data"
        env = dict(os.environ)
        run_as = []
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root: use nobody
            os.chmod(self.dir, 0o777)
            run_as = ["runuser", "-u", "nobody", "--"]
        subprocess.run([*run_as, self.initdb, "-D", str(data), "-A", "trust", "-U", "postgres",
                        "--no-sync", "-E", "UTF8"], check=True, capture_output=True, env=env,
                       timeout=120)
        self.port = _free_port()
        opts = (f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off "
                "-c synchronous_commit=off -c full_page_writes=off -c max_connections=300")
        subprocess.run([*run_as, self.pg_ctl, "-D", str(data), "-o", opts, "-l",
                        str(self.dir / "log"), "-w", "-t", "60", "start"], check=True,
                       capture_output=True, env=env, timeout=90)
        self._run_as = run_as

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}/{database}"

    async def new_database(self) -> str:
        import asyncpg

        name = "t_" + uuid.uuid4().hex[:12]
        conn = await asyncpg.connect(host="127.0.0.1", port=self.port, user="postgres",
                                     database="postgres", timeout=30)
        try:
            await conn.execute(f'CREATE DATABASE "{name}"', timeout=60)
        finally:
            await conn.close(timeout=10)
        return self.url(name)

    def stop(self) -> None:
        if self.dir is None:
            return
        try:
            subprocess.run([*self._run_as, self.pg_ctl, "-D", str(self.dir / "data"), "-m",
                            "immediate", "-w", "-t", "30", "stop"], capture_output=True,
                           timeout=60)
        finally:  # the folder goes even when pg_ctl would not answer
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None

    def wait(self) -> None:
        deadline = time.time() + 10
        while time.time() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.1)


def running(pg: "ThrowawayPostgres") -> Iterator["ThrowawayPostgres"]:
    """A fixture's body for a throwaway PostgreSQL ``pg``: started, yielded, stopped after;
    skipped where PostgreSQL is not installed (a failure when it is required)."""
    import pytest
    if not pg.available:
        if REQUIRED:
            pytest.fail("PostgreSQL (initdb/pg_ctl) is required (ESTERPORT_REQUIRE_POSTGRES=1) "
                        "but not found")
        pytest.skip("PostgreSQL (initdb/pg_ctl) not installed")
    pg.start()
    pg.wait()
    try:
        yield pg
    finally:
        pg.stop()
