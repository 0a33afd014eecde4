"""An install without the source tree (issue 38): a wheel built from this checkout,
installed into a fresh virtualenv outside it, serves with no config file at all.

The wheel must hold everything ``esterport serve`` reads: the alembic scripts
(``migrations``), the web door's templates (a game's own under ``templates/games/<key>/``)
and static files, the default data and the Pyramid solver's build record. The server
runs from an empty folder (its database is the default ``./var/esterport.db``); a player
makes an account over telnet and logs in again, and the web door serves ``/play``, a
static file and a game's own page.

The wheel is built from a copy of the sources, not in place: a build in the checkout
would leave ``build/`` there and delete an editable install's compiled solver (setup.py
clears it before it builds). The fresh virtualenv has no pip and no dependencies of its
own: the running one's pip installs the wheel into it (``--no-deps``), and a ``.pth``
file then lends it the running environment's site-packages for the dependencies. Only
that folder is added, not what its own ``.pth`` files add (an editable install of the
project), and the venv's site-packages comes first, so ``server`` is imported from the
wheel: the test checks it.

About a hundred seconds on a busy 2-core machine, most of it building the wheel (pip's
build environment, mypyc, and the C compiler at -O3).
"""

from __future__ import annotations

import asyncio
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.support.client import Client

ROOT = Path(__file__).resolve().parents[2]

# the build's own bound (pip, mypyc, gcc) and the test's, above the suite's default
BUILD_WITHIN = 420
pytestmark = [pytest.mark.e2e, pytest.mark.timeout(BUILD_WITHIN + 180)]

# Left out of the copy the wheel is built from: what is not the project's source (a
# virtualenv, caches, earlier builds, an editable install's compiled solver and its
# record, databases), and at the top the folders no build reads.
CACHES = {"__pycache__", ".mypy_cache", ".pytest_cache", ".hypothesis", ".git", ".venv"}
NOT_SOURCE = re.compile(r".*\.(egg-info|so|pyd|pyc|db|db-wal|db-shm)$|solver_build\.json$")
TOP_ONLY = {"build", "dist", "var", "tests", "bench", "docs", ".ci"}


def _left_out(folder: str, names: list[str]) -> set[str]:
    top = Path(folder) == ROOT
    return {name for name in names
            if name in CACHES or NOT_SOURCE.match(name)
            or (top and (name in TOP_ONLY or (Path(folder, name) / "pyvenv.cfg").exists()))}


def _run(args: list, within: float, **kw) -> subprocess.CompletedProcess:
    """A child process that must succeed within ``within`` seconds; its output on failure."""
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True,
                          timeout=within, **kw)
    assert done.returncode == 0, (f"{' '.join(map(str, args))} exited {done.returncode}:\n"
                                  f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done


def _child_env() -> dict[str, str]:
    """The environment of the installed server: nothing that points at the checkout."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def build_wheel(tmp: Path) -> Path:
    """``pip wheel`` of a copy of the checkout: the one wheel it made."""
    source, wheels = tmp / "source", tmp / "wheels"
    shutil.copytree(ROOT, source, ignore=_left_out)
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", wheels, source],
         BUILD_WITHIN)
    (wheel,) = wheels.glob("esterport-*.whl")
    return wheel


def install(wheel: Path, venv: Path) -> Path:
    """A fresh virtualenv at ``venv`` holding ``wheel``; its Python."""
    _run([sys.executable, "-m", "venv", "--without-pip", venv], 60)
    python = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "-q",
          wheel], 120, env=_child_env())
    # the dependencies: the running environment's site-packages, after the venv's own
    # (added once the wheel is in, so pip never sees the running one's install of it)
    ours = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                     30, env=_child_env()).stdout.strip())
    lent = {sysconfig.get_paths()[key] for key in ("purelib", "platlib")}
    (ours / "zz_test_dependencies.pth").write_text("".join(f"{p}\n" for p in sorted(lent)))
    return python


class Server:
    """``esterport serve`` as a child process, its log read line by line on a thread."""

    def __init__(self, args: list, cwd: Path) -> None:
        self.proc = subprocess.Popen([str(a) for a in args], cwd=cwd, env=_child_env(),
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.log: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stderr:
            self.lines.put(line)
        self.lines.put(None)

    def wait_for(self, pattern: str, within: float) -> re.Match:
        """The first line of the log from here on matching ``pattern``."""
        deadline = time.monotonic() + within
        while True:
            left = deadline - time.monotonic()
            try:
                line = self.lines.get(timeout=max(left, 0.01))
            except queue.Empty:
                raise AssertionError(f"no {pattern!r} within {within} s:\n{self.text()}") from None
            if line is None:
                raise AssertionError(f"the server exited ({self.proc.poll()}) before "
                                     f"{pattern!r}:\n{self.text()}")
            self.log.append(line)
            found = re.search(pattern, line)
            if found:
                return found

    def text(self) -> str:
        return "".join(self.log[-60:])

    def stop(self, within: float = 30) -> int | None:
        """SIGTERM and its exit code; SIGKILL (and None) past ``within`` seconds."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=within)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
            return None


async def _telnet(port: int) -> str:
    """A new account, then a login to it in another connection: what that one saw."""
    maker = await Client.connect(port)
    try:
        await maker.create("Wheeler", "installed")
        await maker.cmd("quit", "Goodbye", timeout=10)
    finally:
        await maker.close()
    player = await Client.connect(port)
    try:
        await player.login("Wheeler", "installed")
        return await player.cmd("who", r"1 player connected\.", timeout=10)
    finally:
        await player.close()


def test_a_wheel_installed_outside_the_checkout_serves(tmp_path):
    assert not tmp_path.resolve().is_relative_to(ROOT), "the test needs a folder outside the checkout"
    wheel = build_wheel(tmp_path / "build")
    python = install(wheel, tmp_path / "venv")
    venv = (tmp_path / "venv").resolve()

    # the project is imported from the wheel, not from the checkout
    where = _run([python, "-c", "import server, games, commands; "
                  "print(server.__file__, games.__file__, commands.__file__)"],
                 60, cwd=tmp_path, env=_child_env()).stdout.split()
    for path in where:
        assert Path(path).resolve().is_relative_to(venv), where

    run = tmp_path / "run"   # no config.toml here: every setting is its default
    run.mkdir()
    server = Server([venv / "bin" / "esterport", "serve", "--port", "0", "--web-port", "0"], run)
    try:
        web = int(server.wait_for(r"The web door is open: point a browser at "
                                  r"http://127\.0\.0\.1:(\d+)/", 90).group(1))
        port = int(server.wait_for(r"Connect with: telnet 127\.0\.0\.1 (\d+)", 30).group(1))
        # held, as by default: the process started is the holder, the parlor its child
        assert any("esterport.holder: parlor started" in line for line in server.log), \
            server.text()
        said = [line for line in server.log if "the Pyramid solver" in line]
        assert len(said) == 1, server.text()
        if shutil.which("gcc") or shutil.which("cc"):   # the wheel holds the compiled build
            assert "the Pyramid solver is the compiled build (mypyc)" in said[0], said

        seen = asyncio.run(asyncio.wait_for(_telnet(port), 60))
        assert "Wheeler" in seen.rsplit("Name", 1)[-1], seen   # WHO's table lists them

        with httpx.Client(base_url=f"http://127.0.0.1:{web}", timeout=10) as http:
            play = http.get("/play")
            assert play.status_code == 200, play.text[-2000:]
            assert 'data-path="/play/ws"' in play.text and "/static/play.js" in play.text
            script = http.get("/static/play.js")
            assert script.status_code == 200 and len(script.content) > 1000
            top = http.get("/pyramid/top10")   # a game's own template (templates/games/pyr/)
            assert top.status_code == 200, top.text[-2000:]
            assert "<h1>Pyramid Top 10" in top.text
    finally:
        code = server.stop()
    assert code == 0, f"exit {code} after SIGTERM:\n{server.text()}"
    assert (run / "var" / "esterport.db").is_file()   # the default database, made here
