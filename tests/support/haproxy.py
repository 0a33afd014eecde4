"""A throwaway HAProxy for the test suite, in front of N nodes, from the shipped template.

:func:`render` turns ``server/data/haproxy.cfg`` into a concrete configuration: each
frontend's ``bind`` on a port of ours, each backend's ``server`` lines one per node (the
first ``server`` line's options copied to each). :class:`ThrowawayHAProxy` writes it to a
temp folder, checks it (``haproxy -c``), runs ``haproxy -db`` in the foreground (its log
in ``log``) and waits until its stats frontend answers; ``stop()`` ends it.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

REQUIRED = os.environ.get("ESTERPORT_REQUIRE_CLUSTER") == "1"
TEMPLATE = Path(__file__).resolve().parents[2] / "server" / "data" / "haproxy.cfg"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def render(template: str, binds: dict[str, str], nodes: dict[str, list[str]],
           inter: str | None = None) -> str:
    """``template`` with the ``bind`` line of each frontend named in ``binds`` set to its
    address, and the ``server`` lines of each backend named in ``nodes`` replaced by one
    line per node address (``node1``, ``node2``, ...), options as the first line's.
    ``inter`` (e.g. ``"500ms"``) sets the health checks' interval. A section, ``bind`` or
    ``server`` line named but absent is a ValueError (the template changed)."""
    out: list[str] = []
    section = ""
    seen: set[str] = set()
    for line in template.splitlines():
        words = line.split()
        if line and not line[0].isspace() and not line.startswith("#"):
            section = " ".join(words[:2])
        kind, _, name = section.partition(" ")
        if kind == "frontend" and name in binds and words[:1] == ["bind"]:
            out.append(f"    bind {binds[name]}")
            seen.add(section)
            continue
        if kind == "backend" and name in nodes and words[:1] == ["server"]:
            if section not in seen:
                options = " ".join(words[3:])
                for i, address in enumerate(nodes[name], 1):
                    out.append(f"    server node{i} {address} {options}".rstrip())
                seen.add(section)
            continue
        if inter and words[:1] == ["default-server"]:
            line = line.replace("inter 5s", f"inter {inter}")
        out.append(line)
    wanted = {f"frontend {n}" for n in binds} | {f"backend {n}" for n in nodes}
    if wanted - seen:
        raise ValueError(f"the HAProxy template has no bind/server line in {sorted(wanted - seen)}")
    return "\n".join(out) + "\n"


class ThrowawayHAProxy:
    """HAProxy in front of nodes: ``telnet_nodes`` and ``web_nodes`` are "host:port"."""

    def __init__(self) -> None:
        self.binary = shutil.which("haproxy") or (
            "/usr/sbin/haproxy" if os.path.exists("/usr/sbin/haproxy") else None)
        self.dir: Path | None = None
        self.proc: subprocess.Popen | None = None
        self.telnet_port = self.web_port = self.stats_port = 0
        self.backends: set[str] = set()  # those given nodes (the others have a dead one)

    @property
    def available(self) -> bool:
        return self.binary is not None

    @property
    def log(self) -> str:
        """What HAProxy has logged so far (its connection log and its warnings)."""
        return (self.dir / "log").read_text(errors="replace") if self.dir else ""

    def start(self, telnet_nodes: list[str], web_nodes: list[str] = (),
              inter: str = "500ms") -> None:
        assert self.binary is not None, "haproxy not installed"
        self.dir = Path(tempfile.mkdtemp(prefix="esterport-haproxy-"))
        self.backends = {"telnet_nodes"} | ({"web_nodes"} if web_nodes else set())
        self.telnet_port, self.web_port, self.stats_port = (_free_port() for _ in range(3))
        config = render(TEMPLATE.read_text(), {
            "telnet": f"127.0.0.1:{self.telnet_port}",
            "web": f"127.0.0.1:{self.web_port}",
            "stats": f"127.0.0.1:{self.stats_port}",
        }, {"telnet_nodes": list(telnet_nodes),
            "web_nodes": list(web_nodes) or ["127.0.0.1:9"]}, inter=inter)
        path = self.dir / "haproxy.cfg"
        path.write_text(config)
        check = subprocess.run([self.binary, "-c", "-q", "-f", str(path)], capture_output=True,
                               text=True, timeout=30)
        if check.returncode != 0:
            raise RuntimeError(f"haproxy -c refused {path}:\n{check.stdout}{check.stderr}")
        with open(self.dir / "log", "wb") as log:
            self.proc = subprocess.Popen([self.binary, "-db", "-f", str(path)], stdout=log,
                                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.wait()

    def url(self, path: str = "/") -> str:
        """The web door through HAProxy."""
        return f"http://127.0.0.1:{self.web_port}{path}"

    def wait(self, timeout: float = 10.0) -> None:
        """Until HAProxy answers on its stats frontend (not the telnet one: that would
        open a session on a node)."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"haproxy exited ({self.proc.returncode}):\n{self.log}")
            try:
                with urllib.request.urlopen(
                        f"http://127.0.0.1:{self.stats_port}/healthz", timeout=1) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"haproxy did not answer within {timeout} s:\n{self.log}")

    def states(self) -> dict[tuple[str, str], str]:
        """Each server's state from the stats CSV: (backend, node) -> its status and its
        last check's, e.g. "UP L4OK", "DOWN L7STS", "UP INI" (not checked yet)."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.stats_port}/stats;csv",
                                    timeout=5) as answer:
            lines = answer.read().decode().splitlines()
        header = lines[0].lstrip("# ").split(",")
        at = {name: i for i, name in enumerate(header)}
        out = {}
        for line in lines[1:]:
            row = line.split(",")
            if len(row) > at["status"] and row[at["svname"]] not in ("FRONTEND", "BACKEND"):
                out[(row[at["pxname"]], row[at["svname"]])] = \
                    f'{row[at["status"]]} {row[at["check_status"]].lstrip("* ")}'
        return out

    def wait_up(self, timeout: float = 10.0) -> None:
        """Until every node given to :meth:`start` has passed a health check."""
        deadline = time.time() + timeout
        states: dict = {}
        while time.time() < deadline:
            states = {k: v for k, v in self.states().items() if k[0] in self.backends}
            if states and all(state in ("UP L4OK", "UP L6OK", "UP L7OK")
                              for state in states.values()):
                return
            time.sleep(0.1)
        raise RuntimeError(f"nodes not UP within {timeout} s: {states}\n{self.log}")

    def stop(self) -> None:
        try:
            if self.proc is not None:
                self.proc.terminate()
                try:
                    self.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait(timeout=10)
        finally:  # the folder goes even when the process would not
            self.proc = None
            if self.dir is not None:
                shutil.rmtree(self.dir, ignore_errors=True)
                self.dir = None
