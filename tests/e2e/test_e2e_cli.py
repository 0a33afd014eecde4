"""The operator's entry point: esterport serve/migrate/seed/admin, as subprocesses."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

from tests.conftest import start_server, write_config
from tests.support.client import Client


def esterport(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "commands.app", *args], capture_output=True,
                          text=True, cwd=os.getcwd(), timeout=60)


def test_help_and_bad_config(tmp_path):
    done = esterport("--help")
    assert done.returncode == 0 and "serve" in done.stdout and "admin" in done.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text("[server]\nprot = 1\n")
    done = esterport("serve", "--config", str(bad))
    assert done.returncode == 2 and "unknown key 'prot'" in done.stderr


def test_serve_logs_which_pyramid_solver_runs(tmp_path):
    """At start the server says whether the Pyramid solver is the compiled build or
    plain Python (and, when a build failed or is stale, why)."""
    from games.pyramid import solver_build

    proc = subprocess.Popen([sys.executable, "-m", "commands.app", "serve", "--no-hold",
                             "--config", write_config(tmp_path)], stderr=subprocess.PIPE, text=True,
                            cwd=os.getcwd())
    seen = []
    try:
        for line in proc.stderr:
            seen.append(line)
            if "Connect with: telnet" in line:
                break
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    said = [line for line in seen if "the Pyramid solver" in line]
    assert len(said) == 1, "".join(seen)
    assert said[0].rstrip().endswith(solver_build.describe()[1]), said


def test_migrate_seed_and_admin_tasks(tmp_path):
    config = write_config(tmp_path)
    assert esterport("migrate", "--config", config).returncode == 0
    seed = tmp_path / "people.toml"
    seed.write_text('[[accounts]]\nname = "Opal"\npassword = "gemstone"\ncubits = 5000\n')
    done = esterport("seed", str(seed), "--config", config)
    assert done.returncode == 0 and "created account Opal" in done.stdout
    done = esterport("seed", str(seed), "--config", config)       # idempotent
    assert "created" not in done.stdout
    done = esterport("admin", "grant", "opal", "--config", config)
    assert done.returncode == 0 and "Opal is now an admin" in done.stdout
    assert "Opal" in esterport("admin", "list", "--config", config).stdout
    done = esterport("admin", "cubits", "Opal", "-100", "--config", config)
    assert "4900" in done.stdout
    done = esterport("admin", "audit", "--config", config)
    assert done.returncode == 0 and "ledger OK" in done.stdout
    done = esterport("admin", "grant", "nobody", "--config", config)
    assert done.returncode == 1 and "No account named nobody" in done.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text("[[wizards]]\nname = 'x'\n")
    done = esterport("seed", str(bad), "--config", config)
    assert done.returncode == 1 and "unknown table" in done.stderr


async def test_admin_granted_on_the_command_line_can_shut_down_cleanly(tmp_path):
    config = write_config(tmp_path)
    seed = tmp_path / "people.toml"
    seed.write_text('[[accounts]]\nname = "Opal"\npassword = "gemstone"\n'
                    '[[accounts]]\nname = "Pearl"\npassword = "gemstone"\n')
    await asyncio.to_thread(esterport, "seed", str(seed), "--config", config)
    await asyncio.to_thread(esterport, "admin", "grant", "Opal", "--config", config)
    proc, port = await asyncio.to_thread(start_server, config)
    try:
        pearl = await (await Client.connect(port)).login("Pearl", "gemstone")
        await pearl.cmd("@shutdown", r"Huh\?")
        opal = await (await Client.connect(port)).login("Opal", "gemstone")
        await opal.cmd("help", "Admin:")
        await opal.cmd("@shutdown now", "Shutting down")
        await pearl.expect("Opal is shutting Esterport down: now")
        code = await asyncio.to_thread(proc.wait, 15)
        assert code == 0
    finally:
        if proc.poll() is None:
            proc.kill()
