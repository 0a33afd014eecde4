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
    for row in ("quiet ", "readers of / ", "readers of /api/games/<n> ",
                "readers of /games/<n> ", "CPU a request (µs), alone",
                "failures (unanswered commands, failed pages, failed live boards): 0 "):
        assert row in done.stdout, done.stdout
    # each page's CPU a request beside the bare Starlette page's, their ratio, the pages
    # a second of each, and the part of it spent in the parlor's process
    for path in ("/", "/api/games/<n>", "/games/<n>"):
        row = next(line for line in done.stdout.splitlines()
                   if line.startswith(path + " ") and not line.startswith("readers"))
        assert len(row.split()) == 7, row
        assert float(row.split()[6]) < float(row.split()[1]), row   # the front's share
    bad = subprocess.run([sys.executable, "bench/web.py", "--readers", "0"], capture_output=True,
                         text=True, timeout=60, cwd=os.getcwd())
    assert bad.returncode == 2 and "readers and players are at least 1" in bad.stderr
