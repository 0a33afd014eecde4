"""A player for tests over ``/play/ws``: the telnet stream in binary WebSocket frames
(``telnet.mudstandards.org``), spoken by a small client like the page's ``play.js``:
it answers DO NAWS with its width, notes WILL/WONT ECHO, and accepts GMCP."""

from __future__ import annotations

import asyncio
import json
import re
import ssl as ssl_module

from websockets.asyncio.client import connect

from tests.support.client import ANSI

IAC, DONT, DO, WONT, WILL, SB, GA, SE = 255, 254, 253, 252, 251, 250, 249, 240
ECHO, SGA, TTYPE, NAWS, BINARY, GMCP = 1, 3, 24, 31, 0, 201
SUBPROTOCOL = "telnet.mudstandards.org"


class WsPlayer:
    def __init__(self, ws, cols: int) -> None:  # noqa: ANN001
        self.ws = ws
        self.cols = cols
        self.buffer = ""
        self.seen = ""
        self.echo_off = False         # the server has WILL ECHO (a password is asked)
        self.echo_changes: list[bool] = []
        self.gmcp: list[tuple[str, object]] = []
        self._mode, self._cmd, self._sb = 0, 0, bytearray()
        self._text = bytearray()
        self.closed = False

    @classmethod
    async def connect(cls, url: str, *, cols: int = 100, origin: str | None = None,
                      subprotocols: tuple[str, ...] = (SUBPROTOCOL,),
                      headers: dict[str, str] | None = None,
                      ssl: "ssl_module.SSLContext | None" = None) -> "WsPlayer":
        ws = await connect(url, subprotocols=list(subprotocols), origin=origin,
                           max_size=1 << 22, open_timeout=10, additional_headers=headers,
                           **({"ssl": ssl} if ssl is not None else {}))
        return cls(ws, cols)

    async def close(self) -> None:
        await self.ws.close()

    # -- output --------------------------------------------------------------------------
    async def _send(self, data: bytes) -> None:
        await self.ws.send(data)

    def send(self, line: str) -> None:
        data = (line + "\r\n").encode().replace(b"\xff", b"\xff\xff")
        asyncio.get_running_loop().create_task(self._send(data))

    async def naws(self, cols: int, rows: int = 40) -> None:
        self.cols = cols
        body = bytes([cols >> 8, cols & 255, rows >> 8, rows & 255]).replace(b"\xff", b"\xff\xff")
        await self._send(bytes([IAC, SB, NAWS]) + body + bytes([IAC, SE]))

    # -- input ---------------------------------------------------------------------------
    async def _negotiate(self, cmd: int, opt: int) -> None:
        if cmd == DO:
            if opt == NAWS:
                await self._send(bytes([IAC, WILL, NAWS]))
                await self.naws(self.cols)
            elif opt in (BINARY, TTYPE):
                await self._send(bytes([IAC, WILL, opt]))
            else:
                await self._send(bytes([IAC, WONT, opt]))
        elif cmd == WILL:
            if opt == ECHO:
                self.echo_off = True
                self.echo_changes.append(True)
                await self._send(bytes([IAC, DO, ECHO]))
            elif opt in (GMCP, SGA):
                await self._send(bytes([IAC, DO, opt]))
            else:
                await self._send(bytes([IAC, DONT, opt]))
        elif cmd == WONT and opt == ECHO:
            self.echo_off = False
            self.echo_changes.append(False)

    async def _sub(self, body: bytes) -> None:
        if body[:2] == bytes([TTYPE, 1]):
            await self._send(bytes([IAC, SB, TTYPE, 0]) + b"WSTEST" + bytes([IAC, SE]))
        elif body[:1] == bytes([GMCP]):
            pkg, _, payload = body[1:].decode().partition(" ")
            self.gmcp.append((pkg, json.loads(payload) if payload else None))

    async def _feed(self, data: bytes) -> None:
        for b in data:
            if self._mode == 0:
                if b == IAC:
                    self._mode = 1
                else:
                    self._text.append(b)
            elif self._mode == 1:
                if b == IAC:
                    self._text.append(b)
                    self._mode = 0
                elif b == SB:
                    self._mode, self._sb = 3, bytearray()
                elif WILL <= b <= DONT:
                    self._mode, self._cmd = 2, b
                else:
                    self._mode = 0
            elif self._mode == 2:
                self._mode = 0
                await self._negotiate(self._cmd, b)
            elif self._mode == 3:
                if b == IAC:
                    self._mode = 4
                else:
                    self._sb.append(b)
            else:
                if b == SE:
                    self._mode = 0
                    await self._sub(bytes(self._sb))
                else:
                    self._sb.append(b)
                    self._mode = 3
        text = self._text.decode("utf-8", errors="ignore")
        self._text.clear()
        self.buffer += text
        self.seen += ANSI.sub("", text)

    async def expect(self, pattern: str, timeout: float = 10.0) -> str:
        rx = re.compile(pattern)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            plain = ANSI.sub("", self.buffer)
            match = rx.search(plain)
            if match:
                self.buffer = plain[match.end():]
                return plain[:match.end()]
            left = deadline - loop.time()
            if left <= 0:
                raise AssertionError(f"did not see {pattern!r}; got:\n{plain[-2000:]}")
            try:
                data = await asyncio.wait_for(self.ws.recv(), left)
            except asyncio.TimeoutError:
                continue
            except Exception as err:  # closed
                self.closed = True
                raise AssertionError(f"connection closed ({err}) before {pattern!r}; "
                                     f"got:\n{plain[-2000:]}") from None
            await self._feed(data if isinstance(data, bytes) else data.encode())

    async def cmd(self, line: str, pattern: str, timeout: float = 10.0) -> str:
        self.send(line)
        return await self.expect(pattern, timeout)

    async def create(self, name: str, password: str = "secret") -> "WsPlayer":
        await self.expect("Name: ")
        await self.cmd("new", "Choose a name: ")
        await self.cmd(name, "Choose a password: ")
        await self.cmd(password, "Type it again: ")
        await self.cmd(password, f"Welcome, {name}!")
        await self.expect("> ")
        return self

    async def closed_by_server(self, timeout: float = 10.0) -> str:
        """Read until the server closes; what it said before closing."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            try:
                data = await asyncio.wait_for(self.ws.recv(), deadline - loop.time())
            except asyncio.TimeoutError:
                raise AssertionError("the server did not close the connection") from None
            except Exception:
                return ANSI.sub("", self.buffer)
            await self._feed(data if isinstance(data, bytes) else data.encode())
