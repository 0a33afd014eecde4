"""The attack bench, short: every attack for a second against a real server process; a
logged-in player's every LOOK must be answered, and no second session of one account may
survive (the bench exits 1 otherwise). Latencies are printed, not asserted."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_attack_bench_short():
    run = subprocess.run([sys.executable, "bench/attack.py", "--seconds", "1"], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    print(run.stdout[-4000:], run.stderr[-2000:])
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "every LOOK answered during every attack" in run.stdout
