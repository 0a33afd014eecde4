"""bench/load.py's baseline: the bare echo answers each command with the bytes the
parlor answered it with (``set_replies``), so both servers send replies of the same
size; and the CPU per command of both, and their ratio, are printed."""

from __future__ import annotations

import asyncio
import importlib.util
import io
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "load.py"


def _load():
    spec = importlib.util.spec_from_file_location("bench_load_echo", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


load = _load()
GA = bytes([255, 249])


async def _read_until(reader: asyncio.StreamReader, end: bytes) -> bytes:
    return await asyncio.wait_for(reader.readuntil(end), 5)


async def test_the_echo_answers_with_the_parlors_bytes():
    server = await asyncio.start_server(load._echo_session, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    who = b"Name  Where\r\n" + b"Bench00001  The Plaza\r\n" * 30 + b"> " + GA
    try:
        await load.set_replies("127.0.0.1", port, {"WHO": who.hex()}, timeout=5)
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        await _read_until(reader, b"Name: " + GA)
        writer.write(b"Bench00001\r\n")
        await _read_until(reader, b"Password: " + GA)
        writer.write(b"pw\r\n")
        await _read_until(reader, b"> " + GA)
        writer.write(b"WHO\r\n")
        assert await _read_until(reader, GA) == who
        writer.write(b"GAMES\r\n")  # a command it was not given: echoed, as before
        assert await _read_until(reader, GA) == b"GAMES\r\n> " + GA
        writer.close()
    finally:
        server.close()
        await server.wait_closed()
        load.REPLIES.clear()


def _row(server: str, answers: int, cpu: float) -> dict:
    part = {"latencies": [1000] * answers, "window": 2.0, "sent": answers, "answers": answers,
            "missing": 0, "unexpected": 0, "dropped": 0, "cpu": 0.1, "lag_p99": 0.0}
    return load.summarize(server, "closed", [part], cpu, 2.0)


def test_cpu_per_command_and_the_ratio_are_printed():
    parlor, bare = _row("parlor", 1000, 0.1), _row("bare", 2000, 0.1)
    assert parlor["cpu_per_command"] == pytest.approx(100.0)  # µs
    assert bare["cpu_per_command"] == pytest.approx(50.0)
    assert load.cpu_ratio([parlor, bare], "closed") == pytest.approx(0.5)
    assert load.cpu_ratio([parlor, bare], "paced") is None
    out = io.StringIO()
    load.print_table(10, [parlor, bare], {"parlor": {"seconds": 1.0}, "bare": {"seconds": 1.0}},
                     out)
    text = out.getvalue()
    assert "µs/cmd" in text and "100.0" in text and "50.0" in text
    assert "closed-loop: CPU per command, bare/parlor: 0.50" in text


def test_paced_zero_skips_the_paced_phase():
    assert load.parse_args(["--paced", "0"]).paced == 0
