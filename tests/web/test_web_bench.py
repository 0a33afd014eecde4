"""bench/web.py runs end to end (tiny numbers: figures are printed, never asserted)."""

from __future__ import annotations

import os
import subprocess
import sys


def test_the_web_bench_runs_and_reports():
    done = subprocess.run([sys.executable, "bench/web.py", "--readers", "4", "--players", "3",
                           "--seconds", "1", "--warmup", "0.5"], capture_output=True, text=True,
                          timeout=240, cwd=os.getcwd())
    assert done.returncode == 0, done.stdout + done.stderr
    for row in ("telnet commands, before", "telnet commands, during", "pages /games/<n>",
                "failures (unanswered commands, failed pages): 0 "):
        assert row in done.stdout, done.stdout
    bad = subprocess.run([sys.executable, "bench/web.py", "--readers", "0"], capture_output=True,
                         text=True, timeout=60, cwd=os.getcwd())
    assert bad.returncode == 2 and "readers and players are at least 1" in bad.stderr
