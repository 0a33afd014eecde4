"""Fixtures: databases (SQLite and a throwaway PostgreSQL), a running parlor, players."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import threading

import pytest
from hypothesis import settings

from commands.app import assemble
from server.config import (AccountsSection, Config, DatabaseSection, GamesSection, LoginSection,
                           ServerSection)
from tests.support.client import Client
from tests.support.postgres import ThrowawayPostgres, running
from tests.support.teardown import cleanup

# a throwaway Redis and HAProxy; the report of a test that ran over its time
pytest_plugins = ["tests.support.cluster_fixtures", "tests.support.hangs"]

TEST_GAME = "tests.support.tictactoe:KIND"

# Property tests draw the same examples on every run, so the suite (and CI) passes or
# fails for the code, not for the dice; ESTERPORT_EXPLORE=1 draws new ones each run (bug
# hunts and soaks: what it finds becomes a table-driven case).
# No deadline: a per-example time limit is a wall-clock assertion, and on a busy 2-core
# machine it fails for the neighbours, not for the code (timings live in bench/).
settings.register_profile("repeatable", derandomize=True, database=None, deadline=None)
settings.register_profile("explore", deadline=None)
settings.load_profile("explore" if os.environ.get("ESTERPORT_EXPLORE") == "1" else "repeatable")


# Tests that run a whole bench in a child process bounded by their own ``timeout=``
# (seconds, the soak's where there is one): the per-test limit (pyproject.toml's
# ``timeout``, tests/support/hangs.py) is raised above it, so the child's bound speaks.
OWN_BOUNDS = {"test_attack_bench.py": 600, "test_hardening_chaos.py": 900,
              "test_hardening_storm_bench.py": 180, "test_web_bench.py": 240}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        own = OWN_BOUNDS.get(item.path.name)
        if own is not None and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(own + 60))


@pytest.fixture(scope="session")
def postgres():
    yield from running(ThrowawayPostgres())


@pytest.fixture(params=["sqlite", "postgresql"])
async def db_url(request, tmp_path):
    """A fresh, empty database: each test that asks runs on SQLite and on PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path}/esterport.db"
    pg = request.getfixturevalue("postgres")
    return await pg.new_database()


@pytest.fixture
def sqlite_url(tmp_path):
    return f"sqlite+aiosqlite:///{tmp_path}/esterport.db"


def make_config(url: str, **server) -> Config:
    server.setdefault("commands_per_second", 50.0)
    server.setdefault("command_burst", 400)
    server.setdefault("gc_freeze_every", 0.0)  # one process, many parlors: CPython pacing
    return Config(
        server=ServerSection(host="127.0.0.1", port=0, **server),
        database=DatabaseSection(url=url),
        login=LoginSection(max_failures=3, failure_window=60, lockout=60,
                           logins_per_minute=100000,
                           new_accounts_per_address=100000, new_accounts_per_minute=100000,
                           lines_per_second=10000.0),
        games=GamesSection(reconnect_grace=1, computer_delay=0.0, extra=(TEST_GAME,)),
        accounts=AccountsSection(starting_cubits=1000, argon2_time_cost=1,
                                 argon2_memory_kib=1024),
    )


@pytest.fixture
async def parlor(sqlite_url):
    """A running parlor on SQLite, on an ephemeral port, hosting the test game."""
    p = assemble(make_config(sqlite_url))
    await p.start()
    yield p
    async with cleanup() as steps:
        await steps.run("stopping the parlor", p.stop(), 60)


@pytest.fixture
async def clients(parlor):
    """A factory of connected players: ``await clients("Alice")`` creates and logs in."""
    made: list[Client] = []

    async def make(name: str | None = None, password: str = "secret", new: bool = True) -> Client:
        client = await Client.connect(parlor.port)
        made.append(client)
        if name is not None:
            await (client.create(name, password) if new else client.login(name, password))
        return client

    yield make
    async with cleanup() as steps:
        for client in made:
            await steps.run(f"closing {client.name or 'a client'}", client.close(), 10)


def write_config(tmp_path, **games) -> str:
    """A config file for a server subprocess: ephemeral port, its own SQLite file."""
    extra = ", ".join(f'"{x}"' for x in games.get("extra", (TEST_GAME,)))
    path = tmp_path / "config.toml"
    path.write_text(textwrap.dedent(f"""
        [server]
        port = 0
        commands_per_second = 50
        command_burst = 100
        [web]
        port = 0
        [database]
        url = "sqlite+aiosqlite:///{tmp_path}/e.db"
        [login]
        logins_per_minute = 1000000
        new_accounts_per_address = 1000000
        new_accounts_per_minute = 1000000
        lines_per_second = 100000
        [accounts]
        argon2_time_cost = 1
        argon2_memory_kib = 1024
        [games]
        reconnect_grace = 1
        computer_delay = 0.0
        extra = [{extra}]
    """))
    return str(path)


def start_server(config: str) -> tuple[subprocess.Popen, int]:
    """``esterport serve --config`` in a child process; returns it and its port."""
    proc = subprocess.Popen([sys.executable, "-m", "commands.app", "serve", "--no-hold",
                             "--config", config],
                            stderr=subprocess.PIPE, text=True, cwd=os.getcwd())
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if "Connect with: telnet" in line:
            # keep reading its log so a chatty server never blocks on a full pipe
            threading.Thread(target=proc.stderr.read, daemon=True).start()
            return proc, int(line.rsplit(" ", 1)[1])
    raise RuntimeError("the server did not start:\n" + "".join(seen[-30:]))


@pytest.fixture
def server_process(tmp_path):
    proc, port = start_server(write_config(tmp_path))
    yield port
    stop_process(proc)


def stop_process(proc: subprocess.Popen, within: float = 10.0) -> None:
    """SIGTERM, and SIGKILL after ``within`` seconds; every wait bounded."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=within)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def require_program(name: str) -> str:
    """The path of a client program; skipped if missing, unless CI requires clients."""
    found = shutil.which(name) or (f"/usr/games/{name}" if os.path.exists(f"/usr/games/{name}")
                                   else None)
    if found is None:
        if os.environ.get("ESTERPORT_REQUIRE_CLIENTS") == "1":
            pytest.fail(f"{name} is required (ESTERPORT_REQUIRE_CLIENTS=1) but not installed")
        pytest.skip(f"{name} not installed")
    return found
