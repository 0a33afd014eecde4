"""A real terminal client inside tmux, and what is really on its screen.

pexpect reads the byte stream and cannot see columns; tmux runs the client in a virtual
terminal of a given size, so ``capture-pane`` shows the screen a player would see: where
each line starts, how long it is, whether UTF-8 shows. Each Screen has its own tmux
server (``-L``), so tests running in parallel never share one.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import time

_names = itertools.count(1)


class Screen:
    def __init__(self, command: str, cols: int = 80, rows: int = 24) -> None:
        self.socket = f"esterport-test-{os.getpid()}-{next(_names)}"
        self.cols, self.rows = cols, rows
        self._tmux("new-session", "-d", "-x", str(cols), "-y", str(rows), command)
        self._tmux("set-option", "-g", "history-limit", "5000")

    def _tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], check=True,
                              capture_output=True, text=True, timeout=10).stdout

    def type(self, line: str) -> None:
        """Type ``line`` and press Enter, as a player would."""
        self._tmux("send-keys", "-l", line)
        self._tmux("send-keys", "Enter")

    def lines(self, history: bool = True) -> list[str]:
        """The screen (and its scrollback), one string a row, trailing blanks removed."""
        args = ["capture-pane", "-p", "-J"]  # -J: a line the terminal wrapped is one line
        if history:
            args += ["-S", "-"]
        return [line.rstrip() for line in self._tmux(*args).split("\n")]

    def wait_for(self, text: str | tuple[str, ...], timeout: float = 10.0) -> list[str]:
        """The screen's lines once one of them holds ``text`` (or one of the texts of a
        tuple), within ``timeout`` seconds."""
        texts = (text,) if isinstance(text, str) else text
        deadline = time.monotonic() + timeout
        while True:
            lines = self.lines()
            if any(t in line for line in lines for t in texts):
                return lines
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} never appeared on the screen:\n"
                                     + "\n".join(lines[-self.rows:]))
            time.sleep(0.1)

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True,
                       timeout=10)
