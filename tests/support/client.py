"""A player for tests: telnetlib3's real telnet client, with expect()."""

from __future__ import annotations

import asyncio
import re

import telnetlib3
from telnetlib3.telopt import GMCP, MSSP

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


# how long a reply may take before a test fails: generous, since the suite also runs on a
# machine whose cores are busy with other work (a computer seated at a Triad table took
# over 5 s beside two CPU-bound jobs)
WAIT = 15.0

class Client:
    def __init__(self, reader, writer, name: str = "") -> None:  # noqa: ANN001
        self.reader = reader
        self.writer = writer
        self.name = name
        self.buffer = ""
        self.seen = ""   # everything received, colour codes removed

    @classmethod
    async def connect(cls, port: int, *, cols: int = 250, term: str = "xterm",
                      source: str | None = None) -> "Client":
        """``source``: the loopback address to connect from (a node that trusts
        127.0.0.1 as its balancer takes players from another, 127.0.0.2)."""
        more = {"local_addr": (source, 0)} if source else {}
        reader, writer = await telnetlib3.open_connection(
            "127.0.0.1", port, cols=cols, rows=40, term=term, connect_minwait=0.05, **more,
            connect_maxwait=0.5, encoding="utf8", force_binary=True)
        # force_binary: telnetlib3's client decodes US-ASCII unless the server offers
        # BINARY, which the parlor does not (see server/telnet.py); players' clients
        # (telnet, TinTin++, nc, Mudlet) show the UTF-8 the parlor sends regardless.
        return cls(reader, writer)

    @classmethod
    async def connect_mud(cls, port: int, *, cols: int = 120) -> "Client":
        """A client that accepts GMCP and MSSP, as Mudlet would; what arrives is kept in
        ``.gmcp`` ([(package, data)]) and ``.mssp`` ([variables])."""
        gmcp: list = []
        mssp: list = []

        class MudProtocol(telnetlib3.TelnetClient):
            def connection_made(self, transport) -> None:  # noqa: ANN001
                super().connection_made(transport)
                self.writer.always_do.update({GMCP, MSSP})
                self.writer.set_ext_callback(GMCP, lambda pkg, data: gmcp.append((pkg, data)))
                self.writer.set_ext_callback(MSSP, mssp.append)

        reader, writer = await telnetlib3.open_connection(
            "127.0.0.1", port, client_factory=MudProtocol, cols=cols, rows=40, term="Mudlet",
            connect_minwait=0.05, connect_maxwait=0.5, encoding="utf8", force_binary=True)
        client = cls(reader, writer)
        client.gmcp, client.mssp = gmcp, mssp
        return client

    def send(self, line: str) -> None:
        self.writer.write(line + "\r\n")

    async def expect(self, pattern: str, timeout: float = WAIT) -> str:
        """Read until ``pattern`` (a regex, searched with colour codes removed) appears;
        return everything up to and including it."""
        rx = re.compile(pattern)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            plain = ANSI.sub("", self.buffer)
            match = rx.search(plain)
            if match:
                # drop the consumed part of the raw buffer (match on the plain text)
                self.buffer = plain[match.end():]
                return plain[:match.end()]
            left = deadline - loop.time()
            if left <= 0:
                raise AssertionError(f"{self.name}: did not see {pattern!r}; got:\n{plain[-2000:]}")
            try:
                chunk = await asyncio.wait_for(self.reader.read(65536), left)
            except asyncio.TimeoutError:
                continue
            if not chunk:
                raise AssertionError(f"{self.name}: connection closed before {pattern!r}; "
                                     f"got:\n{plain[-2000:]}")
            self.buffer += chunk
            self.seen += ANSI.sub("", chunk)

    async def cmd(self, line: str, pattern: str, timeout: float = WAIT) -> str:
        self.send(line)
        return await self.expect(pattern, timeout)

    async def create(self, name: str, password: str = "secret",
                     timeout: float = WAIT) -> "Client":
        """Make an account and log in; ``timeout``: for each answer (many at once wait
        for the password hashing's turn)."""
        self.name = name
        await self.expect("Name: ", timeout)
        self.send("NEW")
        await self.expect("Choose a name: ", timeout)
        self.send(name)
        await self.expect("Choose a password: ", timeout)
        self.send(password)
        await self.expect("Type it again: ", timeout)
        self.send(password)
        await self.expect(r"Exits:.*\n(.|\n)*?> ", timeout)
        return self

    async def login(self, name: str, password: str = "secret") -> "Client":
        self.name = name
        await self.expect("Name: ")
        self.send(name)
        await self.expect("Password: ")
        self.send(password)
        await self.expect(r"Exits:")
        return self

    async def close(self) -> None:
        self.writer.close()
        await asyncio.sleep(0)

    async def closed(self, timeout: float = WAIT) -> str:
        """Wait for the server to close the connection; return what came before."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            try:
                chunk = await asyncio.wait_for(self.reader.read(65536), deadline - loop.time())
            except asyncio.TimeoutError:
                break
            except ConnectionError:  # a write of ours met the closed socket first: closed
                rest = bytes(getattr(self.reader, "_buffer", b"")).decode(errors="replace")
                return ANSI.sub("", self.buffer + rest)
            if not chunk:
                return ANSI.sub("", self.buffer)
            self.buffer += chunk
        raise AssertionError(f"{self.name}: connection still open")
