"""The seam between sessions and telnet (server/terminal.py): what a session asks of its
terminal is all there, on telnet's and on the tests' fake, and a session reaches
telnetlib3 through nothing else."""

import ast
import inspect
from pathlib import Path

from server.telnet import TelnetProtocol
from server.terminal import Terminal
from tests.hardening.harness import FakeTerminal

ROOT = Path(__file__).resolve().parents[2]


def test_telnet_and_the_fake_have_what_a_session_asks_of_a_terminal():
    methods = {name for name in vars(Terminal) if not name.startswith("_")}
    assert {"read", "send", "gmcp_on", "offer_mud_protocols", "release"} <= methods
    for cls in (TelnetProtocol, FakeTerminal):
        missing = sorted(name for name in methods if not hasattr(cls, name))
        assert not missing, f"{cls.__name__} lacks {missing}"
    fake = FakeTerminal()
    assert all(hasattr(fake, name) for name in inspect.get_annotations(Terminal))


def test_only_telnet_imports_telnetlib3_on_the_sessions_side():
    """The session and its parts speak to a Terminal; telnetlib3 is telnet.py's."""
    for name in ("session.py", "output.py", "line_input.py", "mud_protocols.py",
                 "connections.py", "login.py"):
        tree = ast.parse((ROOT / "server" / name).read_text())
        imported = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | \
            {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert not any(m.split(".")[0] == "telnetlib3" for m in imported), name
