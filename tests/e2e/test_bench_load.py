"""bench/load.py, shortened: 20 players, 2 s a phase, against a real parlor process and
the bare echo. Asserts only that every command was answered and the figures are printed
(no wall-clock assertions: the machine is shared)."""

from __future__ import annotations

import importlib.util
import io
import math
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

BENCH = Path(__file__).resolve().parents[2] / "bench" / "load.py"


def _load():
    spec = importlib.util.spec_from_file_location("bench_load", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


async def test_short_load_run_answers_every_command_and_prints_the_figures(tmp_path):
    load = _load()
    ns = load.parse_args(["--players", "20", "--closed", "2", "--paced", "2", "--warmup", "0.5",
                          "--database", f"sqlite+aiosqlite:///{tmp_path}/bench.db"])
    out = io.StringIO()
    rows = await load.run(ns, out)
    text = out.getvalue()

    assert {(r["server"], r["mode"]) for r in rows} == {
        ("parlor", "closed"), ("parlor", "paced"), ("bare", "closed"), ("bare", "paced")}
    for r in rows:
        assert r["players"] == 20 and r["login_failed"] == 0, r
        assert r["sent"] > 0 and r["answers"] == r["sent"], r
        assert r["missing"] == 0 and r["unexpected"] == 0 and r["dropped"] == 0, r
        assert r["throughput"] > 0 and not math.isnan(r["p50"]) and not math.isnan(r["p99"]), r
    assert "N = 20 players" in text
    for word in ("closed-loop", "paced 1/s", "parlor", "bare", "cmds/s", "p50 ms", "p99 ms",
                 "ratio", "Python 3.", "CPUs"):
        assert word in text, word


def test_main_runs_the_short_benchmark(tmp_path, capsys):
    load = _load()
    code = load.main(["--players", "5", "--closed", "1", "--paced", "1", "--warmup", "0.2",
                      "--commands", "WHO", "LOOK",
                      "--database", f"sqlite+aiosqlite:///{tmp_path}/bench.db"])
    text = capsys.readouterr().out
    assert code == 0, text
    assert "N = 5 players" in text and "closed-loop" in text and "paced 1/s" in text
