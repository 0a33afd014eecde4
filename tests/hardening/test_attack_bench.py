"""The attack bench, short: every attack for a second against a real server process; a
logged-in player's every LOOK must be answered, and no second session of one account may
survive (the bench exits 1 otherwise). Latencies are printed, not asserted. The fourth
campaign's rows run apart, small, and what they did is checked from their results."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from tests.support.benches import run_bench

ROOT = Path(__file__).resolve().parents[2]
FOURTH = ("seekstreams", "tourneystreams", "analyse", "burst")


def bench(*args: str) -> str:
    run = run_bench("attack.py", "--seconds", "1", *args, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "every LOOK answered during every attack" in run.stdout
    return run.stdout


def results(out: str) -> dict[str, dict]:
    """Each attack's result: the JSON at the end of its "during" row."""
    found = {}
    for line in out.splitlines():
        words = line.split()
        if len(words) > 2 and words[1] == "during" and "{" in line:
            found[words[0]] = json.loads(line[line.index("{"):])
    return found


def attacks() -> tuple[str, ...]:
    """Every attack bench/attack.py knows (its ``ATTACKS``)."""
    spec = importlib.util.spec_from_file_location("attack_bench", ROOT / "bench" / "attack.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.ATTACKS


@pytest.mark.timeout(700)  # every attack in turn, each with its server: minutes, not seconds
def test_attack_bench_short():
    listed = attacks()
    assert set(FOURTH) <= set(listed)
    bench("--attacks", ",".join(a for a in listed if a not in FOURTH))


def test_fourth_campaign_rows_short():
    """40 streams of each live page from 17 addresses, two allowed an address: the rest are
    refused (429) and every stream let in is sent the page; a solver asked over and over
    still answers another player; a burst of connects is answered whole."""
    out = bench("--attacks", ",".join(FOURTH), "--streams", "40", "--seeks", "8",
                "--analysers", "2", "--burst", "200", "--set", "web.streams_per_address=2")
    rows = results(out)
    for name in ("seekstreams", "tourneystreams"):
        row = rows[name]
        assert row["200"] == 34 and row["429"] == 6, row      # 17 addresses, 2 each
        assert row["updated"] == 34 and row["changes"] > 0, row
        assert "errors" not in row, row
    assert rows["analyse"]["victim_analyses"] >= 1 and "victim_unanswered" not in rows["analyse"]
    burst = rows["burst"]
    assert burst["hung"] == 0 and burst["connect_failed"] == 0, burst
    assert burst["prompted"] + burst["refused"] == 200, burst
