"""Running a bench script (bench/) from a test, the short version the suite keeps."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_bench(script: str, *args: str, timeout: float) -> subprocess.CompletedProcess:
    """``bench/<script>`` with ``args``, in a session of its own that is ended whole
    however the test ends (its time up included): no server process it started is ever
    left running. Its output is printed, for the test's report."""
    proc = subprocess.Popen([sys.executable, f"bench/{script}", *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
    print(stdout[-5000:], stderr[-2000:])
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
