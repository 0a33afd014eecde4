"""A flood of logins against a real server process writes a bounded log (server/logs.py,
installed by server/cli.py): an attack campaign counted 1,450 lines in 36 s."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import time

FLOOD = 90          # wrong passwords, each on its own connection
AT_ONCE = 6


def _config(tmp_path) -> str:  # noqa: ANN001
    """The shipped log settings; logins as fast as a flood can make them."""
    path = tmp_path / "config.toml"
    path.write_text(textwrap.dedent(f"""
        [server]
        port = 0
        [web]
        enabled = false
        [database]
        url = "sqlite+aiosqlite:///{tmp_path}/e.db"
        [login]
        max_failures = 100000
        logins_per_minute = 100000
        lines_per_second = 100000
        [accounts]
        argon2_time_cost = 1
        argon2_memory_kib = 1024
    """))
    return str(path)


def _lines(log) -> list[str]:  # noqa: ANN001
    return log.read_text(errors="replace").splitlines()


async def _dialogue(port: int, *steps: tuple[bytes, bytes]) -> None:
    """Connect, then for each (line, answer) send the line and wait for the answer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        async def until(text: bytes) -> None:
            seen = b""
            while text not in seen:
                chunk = await asyncio.wait_for(reader.read(4096), 10)
                assert chunk, f"closed before {text!r}: {seen[-300:]!r}"
                seen += chunk
        await until(b"Name: ")
        for line, answer in steps:
            writer.write(line + b"\r\n")
            await until(answer)
    finally:
        writer.close()


async def test_a_login_flood_leaves_a_bounded_log(tmp_path):
    log = tmp_path / "server.log"
    with open(log, "w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "commands.app", "serve", "--no-hold",
                                 "--config", _config(tmp_path)], stderr=err, text=True)
    try:
        port = None
        for _ in range(300):
            started = [line for line in _lines(log) if "Connect with: telnet" in line]
            if started:
                port = int(started[0].rsplit(" ", 1)[1])
                break
            assert proc.poll() is None, "\n".join(_lines(log)[-20:])
            await asyncio.sleep(0.1)
        assert port, "the server did not start:\n" + "\n".join(_lines(log)[-20:])
        await _dialogue(port, (b"NEW", b"Choose a name: "), (b"Flooded", b"Choose a password: "),
                        (b"secret", b"Type it again: "), (b"secret", b"Exits:"))
        before = len(_lines(log))
        turns = asyncio.Semaphore(AT_ONCE)

        async def one() -> None:
            async with turns:
                await _dialogue(port, (b"flooded", b"Password: "), (b"guess", b"Wrong password"))

        await asyncio.wait_for(asyncio.gather(*(one() for _ in range(FLOOD))), 120)
        flood = _lines(log)[before:]
        # each try logs a connect, the failure and the close: 270 lines written whole;
        # summed up, at most 20 of each kind in a 10 s window, plus their summaries
        assert len(flood) <= 3 * 20 * 2 + 10, "\n".join(flood)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            summaries = [line for line in _lines(log)[before:]
                         if "more like this in the last 10 s)" in line]
            if any("failed login" in line for line in summaries):
                break
            await asyncio.sleep(0.2)
        assert any("failed login for flooded from 127.0.0.1 ... (" in s for s in summaries), \
            "\n".join(_lines(log)[before:])
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
