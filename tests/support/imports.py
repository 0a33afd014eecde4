"""What a parlor imports: a fresh interpreter loads the parlor, its web door and its
commands (as ``esterport serve`` does before it serves), and tells which of the named
modules it loaded with them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def loaded_by_a_parlor(*modules: str) -> list[str]:
    """Those of ``modules`` that loading the parlor imports, sorted."""
    probe = ("import sys, server.app, server.web.app, commands.registry; "
             f"print(' '.join(sorted(m for m in {modules!r} if m in sys.modules)))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()
