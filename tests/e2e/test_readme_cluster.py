"""The README's "Several machines" block, run as a new user runs it: typed line by line into
a shell in a real terminal (tmux), as root, on Debian's own PostgreSQL and Redis services,
then Debian's telnet through HAProxy, then the README's line that stops it all.

Only port numbers are changed (the nodes', HAProxy's, in the block and in the copy of
``server/data/haproxy.cfg`` the block's folder holds), so the test never takes 4000 or
8080 from anything else on the machine. The block runs in a folder of its own, whose
``.venv/bin/esterport`` runs this checkout.

The block changes the machine: it starts the ``postgresql`` and ``redis-server`` services
and makes the PostgreSQL role and database ``esterport``. So the test runs only as root on
Debian (``service``, ``runuser``, ``pg_lsclusters``), never where a role or database
``esterport`` exists already (someone's real parlor), and afterwards drops what it made
and stops the services it found stopped.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.tmux import Screen

ROOT = Path(__file__).resolve().parents[2]
REQUIRED = os.environ.get("ESTERPORT_REQUIRE_CLUSTER") == "1"


def readme_block() -> list[str]:
    """The lines of the first ``sh`` block under "## Several machines"."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Several machines"):]
    section = section[:section.find("\n## ", 1)]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None, "README: no sh block under Several machines"
    return block.group(1).splitlines()


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _ports() -> dict[str, str]:
    """Old port -> new, for the block and haproxy.cfg: three free decades (telnet 4610-
    4613, web 4620-4623, stats 4630, or the next free ones)."""
    for base in range(461, 600, 3):
        decades = (base, base + 1, base + 2)
        if all(_free(d * 10 + k) for d in decades for k in range(4)):
            telnet, web, stats = decades
            table = {"4000": f"{telnet}0", "8080": f"{web}0", "8404": f"{stats}0"}
            for k in (1, 2, 3):
                table[f"400{k}"] = f"{telnet}{k}"
                table[f"808{k}"] = f"{web}{k}"
            table["400$i"], table["808$i"] = f"{telnet}$i", f"{web}$i"
            return table
    raise RuntimeError("no free ports for the README's cluster")


def substitute(text: str, ports: dict[str, str]) -> str:
    """``text`` with each port number of ``ports`` (whole numbers only) replaced."""
    pattern = re.compile(r"(?<!\d)(" + "|".join(re.escape(p) for p in
                                                 sorted(ports, key=len, reverse=True))
                         + r")(?!\d)")
    return pattern.sub(lambda m: ports[m.group(1)], text)


def _psql(sql: str) -> str:
    return subprocess.run(["runuser", "-u", "postgres", "--", "psql", "-tAc", sql],
                          capture_output=True, text=True, timeout=30).stdout.strip()


def _postgres_online() -> bool:
    out = subprocess.run(["pg_lsclusters", "-h"], capture_output=True, text=True,
                         timeout=30).stdout
    return any(" online" in line for line in out.splitlines())


def _redis_up() -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", 6379)) == 0


def _skip(why: str) -> None:
    if REQUIRED and os.geteuid() == 0:
        pytest.fail(f"the README's cluster cannot run here: {why}")
    pytest.skip(why)


@pytest.fixture
def debian_root():
    """Debian's services as root, and what they were before (restored after)."""
    if os.geteuid() != 0:
        _skip("the README's cluster block runs as root")
    for tool in ("service", "runuser", "pg_lsclusters", "tmux", "telnet", "haproxy",
                 "redis-server"):
        if shutil.which(tool) is None and not os.path.exists(f"/usr/sbin/{tool}"):
            _skip(f"{tool} not installed (Debian: postgresql redis-server haproxy telnet tmux)")
    if not subprocess.run(["pg_lsclusters", "-h"], capture_output=True, text=True,
                          timeout=30).stdout.strip():
        _skip("Debian's postgresql package has no cluster here")
    postgres_was, redis_was = _postgres_online(), _redis_up()
    subprocess.run(["service", "postgresql", "start"], capture_output=True, timeout=120)
    if _psql("SELECT 1 FROM pg_roles WHERE rolname = 'esterport'") or \
            _psql("SELECT 1 FROM pg_database WHERE datname = 'esterport'"):
        if not postgres_was:
            subprocess.run(["service", "postgresql", "stop"], capture_output=True, timeout=120)
        pytest.skip("a PostgreSQL role or database esterport exists here: not touched")
    try:
        yield
    finally:
        _psql("DROP DATABASE IF EXISTS esterport WITH (FORCE)")
        _psql("DROP ROLE IF EXISTS esterport")
        if not postgres_was:
            subprocess.run(["service", "postgresql", "stop"], capture_output=True, timeout=120)
        if not redis_was:
            subprocess.run(["service", "redis-server", "stop"], capture_output=True,
                           timeout=120)


def _folder(tmp_path: Path, ports: dict[str, str]) -> Path:
    """The first command's folder, as the block expects it: ``.venv/bin/esterport`` (this
    checkout, with this interpreter) and ``server/data/haproxy.cfg`` (ports changed)."""
    folder = tmp_path / "esterport"
    (folder / ".venv" / "bin").mkdir(parents=True)
    script = folder / ".venv" / "bin" / "esterport"
    script.write_text(f"#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} -m commands.app "
                      '"$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    (folder / "server" / "data").mkdir(parents=True)
    cfg = (ROOT / "server" / "data" / "haproxy.cfg").read_text()
    (folder / "server" / "data" / "haproxy.cfg").write_text(substitute(cfg, ports))
    return folder


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _wait(screen: Screen, text: str, timeout: float) -> list[str]:
    """Until ``text`` is on the screen (whose lines have no trailing blanks)."""
    return screen.wait_for(text, timeout=timeout)


def test_the_readme_cluster_block_as_a_new_user_runs_it(tmp_path, debian_root):
    ports = _ports()
    folder = _folder(tmp_path, ports)
    lines = [substitute(line, ports) for line in readme_block()]
    assert lines[-1].startswith("telnet 127.0.0.1 "), lines[-1]
    screen = Screen("bash --norc --noprofile", cols=160, rows=50)
    try:
        screen.type(f"cd {folder}")
        for line in lines:
            screen.type(line)
        _wait(screen, "Name:", timeout=240)   # three nodes up, HAProxy, telnet through it
        screen.type("NEW")
        _wait(screen, "Choose a name:", timeout=10)
        screen.type("Readme")
        _wait(screen, "Choose a password:", timeout=10)
        screen.type("secret12")
        _wait(screen, "Type it again:", timeout=10)
        screen.type("secret12")
        _wait(screen, "Welcome, Readme!", timeout=20)
        screen.type("who")
        _wait(screen, "1 player connected.", timeout=10)
        screen.type("quit")
        _wait(screen, "Connection closed by foreign host.", timeout=10)
        holders = [int((folder / f"esterport-n{i}.pid").read_text()) for i in (1, 2, 3)]
        screen.type("kill $(cat haproxy.pid) $(jobs -p)")   # the README's way to stop
        # what the shell prints once every job has ended (not the typed line, echoed
        # at once: its arithmetic is not done yet)
        screen.type("wait; echo all-stopped-$((6 * 7))")
        _wait(screen, "all-stopped-42", timeout=60)
        assert not [pid for pid in holders if _alive(pid)], "a node's holder outlived the stop"
        shown = "\n".join(screen.lines())
        assert "Sorry" not in shown and "Traceback" not in shown
        for i in (1, 2, 3):
            log = (folder / f"n{i}.log").read_text()
            assert "Esterport is listening" in log and "Traceback" not in log, log
        # the three started at once on an empty database: one loaded the default data
        logs = "".join((folder / f"n{i}.log").read_text() for i in (1, 2, 3))
        assert logs.count("seed: collection Harbour") == 1
    finally:
        screen.close()  # the shell's jobs end with it
        pid = folder / "haproxy.pid"
        if pid.exists():
            subprocess.run(["kill", pid.read_text().strip()], capture_output=True)
        time.sleep(0.5)
