"""The fourth campaign's listen backlog: asyncio listens with a backlog of 100 unless told
otherwise, and 1,000 connects at once left 278 clients never accepted. Both doors'
listeners now let the kernel hold ``[server] backlog`` connections (capped by
net.core.somaxconn), read back from the kernel: ``ss`` shows a listening socket's
backlog as its Send-Q. (bench/attack.py's ``burst`` row makes the 1,000 connects.)"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.hardening.test_attack_web import running

SOMAXCONN = Path("/proc/sys/net/core/somaxconn")


def listen_queue(port: int) -> int:
    """The backlog of the socket listening on 127.0.0.1:``port``, as the kernel has it."""
    run = subprocess.run(["ss", "-ltnH", f"sport = :{port}"], capture_output=True,
                         text=True, timeout=10, check=True)
    rows = [line.split() for line in run.stdout.splitlines() if line.strip()]
    assert len(rows) == 1, run.stdout
    return int(rows[0][2])   # State Recv-Q Send-Q Local Peer


@pytest.fixture
def somaxconn() -> int:
    if shutil.which("ss") is None or not SOMAXCONN.exists():
        pytest.skip("needs ss (iproute2) and /proc/sys/net/core/somaxconn")
    most = int(SOMAXCONN.read_text())
    if most <= 200:
        pytest.skip(f"net.core.somaxconn is {most}: too low to tell a backlog from 100")
    return most


async def test_both_doors_listen_with_the_configured_backlog(sqlite_url, somaxconn):
    wanted = min(somaxconn, 150 + somaxconn // 2)   # neither asyncio's 100 nor the cap
    async with running(sqlite_url, server={"backlog": wanted}) as (parlor, door):
        assert listen_queue(parlor.port) == wanted
        assert listen_queue(door.port) == wanted


async def test_the_default_backlog_is_deep(sqlite_url, somaxconn):
    async with running(sqlite_url) as (parlor, door):
        expected = min(parlor.config.server.backlog, somaxconn)
        assert parlor.config.server.backlog >= 1024
        assert listen_queue(parlor.port) == expected
        assert listen_queue(door.port) == expected


def test_a_backlog_below_one_is_refused_in_one_line():
    from server.config import Config

    with pytest.raises(ValueError, match=r"^config: \[server\] backlog should be at least 1, "
                                         r"not 0$"):
        Config.from_dict({"server": {"backlog": 0}})
