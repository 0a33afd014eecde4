"""bench/moves.py, its short version: a turn of two games, measured in a process of its
own, prints the CPU a move of the process and of the loop's thread, and the medians."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_moves_bench_prints_the_cpu_a_move():
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "moves.py"), "--games", "2",
                          "--turns", "1"], capture_output=True, text=True, cwd=ROOT,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    turn = re.search(r"^\s+1 this\s+(\d+)\s+(\d+)\s+(\d+)$", out.stdout, re.M)
    assert turn is not None, out.stdout
    moves, process, loop = map(int, turn.groups())
    assert moves > 10 and process >= loop > 0
    assert re.search(r"^median\s+this\s+process \d+ µs, loop \d+ µs a move", out.stdout, re.M)
