"""The crash-restart soak (bench/chaos.py), short: scripted players play every hosted game
while the server is killed with SIGKILL and restarted; no acknowledged move vanishes,
cubits and tiles balance with their ledgers after every kill. On SQLite and PostgreSQL.
``ESTERPORT_SOAK=1`` runs 50 kills."""

from __future__ import annotations

import json
import os
import subprocess
import sys

SOAK = os.environ.get("ESTERPORT_SOAK") == "1"


def test_sigkill_and_restart_lose_nothing(db_url):
    kills = "50" if SOAK else "3"
    proc = subprocess.run(
        [sys.executable, "bench/chaos.py", "--kills", kills, "--players", "8",
         "--min-gap", "2.5", "--max-gap", "3.5", "--database", db_url],
        capture_output=True, text=True, timeout=900 if SOAK else 180)
    lines = proc.stdout.strip().splitlines()
    assert lines, proc.stderr[-3000:]
    figures = json.loads(lines[0])
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert figures["violations"] == 0
    assert figures["kills"] == int(kills)
    assert figures["acked"] > 0 and figures["games_restored_total"] > 0
