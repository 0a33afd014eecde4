"""bench/reload.py, short: 50 players, 2 games, 2 reloads and a kill -9 of a held parlor.
Asserts what must hold (no connection closed, no word typed in a gap lost, doubled or
out of order, every game playable), not the gap times or memory it prints."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.support.benches import run_bench

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]


def _bench():
    spec = importlib.util.spec_from_file_location("bench_reload", ROOT / "bench" / "reload.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.timeout(500)  # logins, three restarts of a parlor process: a minute or two
def test_short_reload_bench_closes_nothing_and_runs_every_word_once():
    run = run_bench("reload.py", "--players", "50", "--games", "2", "--reloads", "2",
                    "--kills", "1", timeout=420)
    out = run.stdout
    assert run.returncode == 0, out[-3000:] + run.stderr[-3000:]
    assert ("verdict: 0 closed, 0 lost, 0 doubled, 0 out of order; 2/2 games playable; "
            "0 restarts not served again") in out
    # a tenth of them are browsers on /play: their sockets are held as well
    assert "of them on /play: 5 logged in, 0 closed, 5 told to carry on after every gap" in out
    # the wait p50 and p99, then from the signal p50, p99, max; the counts
    rows = re.findall(r"(?m)^\s+(\d) (reload|kill)(?:\s+[\d.]+){5}\s+(\d+)\s+(\d+)"
                      r"\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)/(\d+)", out)
    assert [(r[0], r[1]) for r in rows] == [("1", "reload"), ("2", "reload"), ("3", "kill")], out
    for _, _, typed, once, lost, doubled, disordered, closed, carried, players in rows:
        assert int(typed) > 0 and once == typed, out
        assert (lost, doubled, disordered, closed) == ("0", "0", "0", "0"), out
        assert carried == players == "50", out
    assert "per idle session, bytes" in out


def test_the_bench_counts_words_lost_doubled_and_out_of_order():
    """What the bench counts, on players made up: B heard A's words 1, 3, 2, 2 (2 doubled,
    out of order); A heard only B's word 1 (2 and 3 lost); a third player closed."""
    bench = _bench()

    def player(name, heard, closed_at=None):  # noqa: ANN001, ANN202
        return SimpleNamespace(name=name, heard=heard, restarted=[11.0], waits=[10.5],
                               answered={(1, 1): 12.0, (1, 2): 12.5}, closed_at=closed_at,
                               lines=[(10.1, "You tell Bench00002: w1-1")])

    a = player("Bench00001", [("Bench00002", 1, 1), ("Bench00002", 2, 1)])
    b = player("Bench00002", [("Bench00001", 1, k) for k in (1, 3, 2, 2)])
    gone = player("Bench00003", [], closed_at=10.2)
    gap = bench.Gap(1, "kill")
    gap.signalled = 10.0
    gap.typed_at = 10.05
    row = bench.tally(gap, [(a, b), (b, a)], [a, b, gone], 3, until=20.0)
    assert (row["typed"], row["once"], row["lost"], row["doubled"]) == (6, 3, 2, 1)
    assert row["disordered"] == 1 and row["closed"] == 1 and row["carried"] == 3
    assert row["p50"] == pytest.approx(2.0) and row["early"] == 0 and row["waited"] == 2
    assert row["wait50"] == pytest.approx(1.95)  # from the first word typed
    assert len(row["examples"]) == 2 and "heard Bench00001's words [1, 3, 2, 2]" in \
        row["examples"][0]


def test_kills_are_spread_among_the_reloads():
    bench = _bench()
    assert bench.schedule(2, 1) == ["reload", "reload", "kill"]
    assert bench.schedule(0, 3) == ["kill"] * 3
    ten = bench.schedule(10, 3)
    assert ten.count("kill") == 3 and len(ten) == 13
    assert "kill, kill" not in ", ".join(ten)
