"""The disconnect-storm benchmark (bench/storm.py), short: two storms of a dozen
connections against a real server process, on SQLite and PostgreSQL. Asserts what must
hold (every connection freed, every game waited for its players, the server alive), not
the memory or time figures it prints."""

from __future__ import annotations

import json
import subprocess
import sys


def test_two_small_storms_free_everything(db_url):
    proc = subprocess.run(
        [sys.executable, "bench/storm.py", "--rounds", "2", "--players", "6",
         "--logging-in", "6", "--keepalive", "1", "--database", db_url],
        capture_output=True, text=True, timeout=180)
    lines = proc.stdout.strip().splitlines()
    assert lines, proc.stderr[-3000:]
    figures = json.loads(lines[0])
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert figures["rounds"] == 2 and figures["problems"] == 0
    assert figures["rss_after_last_mib"] > 0
