"""The ``esterport`` script (commands/entry.py) is light: the process an operator starts
is, by default, the holder, which needs the command line and not the games."""

import subprocess
import sys
import tomllib
from pathlib import Path

from server.config import Config

ROOT = Path(__file__).resolve().parents[2]


def test_the_console_script_is_the_light_entry_and_serve_holds_by_default():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"esterport": "commands.entry:main"}
    assert Config().server.hold is True


def test_the_holder_imports_no_game_and_no_command():
    probe = ("import sys, commands.entry, server.holder.process, server.holder.tls_relay; "
             "print(' '.join(sorted(m for m in sys.modules if m.startswith("
             "('games', 'commands.', 'server.app', 'sqlalchemy', 'starlette')))))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["commands.entry"], done.stdout
