"""A browser's /play WebSocket in a held parlor (``esterport serve --hold``, server/holder).

The holder keeps a duplicate of each /play socket's descriptor, as it does a telnet
socket's, so a reload or a crash of the parlor does not close it. Two things make that
possible for a WebSocket:

* *No state in the process between messages.* A held door does not compress /play
  (permessage-deflate keeps a dictionary across messages), and what the parlor has read
  of a frame not yet whole (:attr:`HeldSocket.tail`) goes to the holder with the rest of
  the session's state.
* *A parlor that takes a socket already open.* :class:`ResumedWebSocket` speaks
  WebSocket over a handed-over descriptor with the websockets library's sans-I/O
  protocol, begun in its OPEN state: no handshake, no uvicorn. It offers the session what
  Starlette's ``WebSocket`` does (``receive``, ``send_bytes``, ``close``, ``client``), so
  the same session code (:func:`server.web.play.run_session`) runs over either.

Both kinds of socket (uvicorn's, :class:`server.web.protocol` ``CountedWebSocket``, in
the parlor that accepted it; this module's in every parlor after) are a
:class:`HeldSocket`: at a hand-over the parlor stops reading from the socket
(:meth:`HeldSocket.hold_still`), lets the session take what was read, sends its state,
and lets the socket go without a word (:meth:`HeldSocket.let_go`): no close frame, no
``connection_lost`` for the session. A fragmented message cut by a hand-over, or a frame
the parlor was writing when it was killed, is not carried (browsers send each command
in one small frame); the page then reconnects by its token, as after any drop.
"""

from __future__ import annotations

import asyncio
import base64
import logging
from typing import TYPE_CHECKING, Any

from websockets.frames import Frame, Opcode
from websockets.protocol import Protocol, Side, State

if TYPE_CHECKING:
    from server.holder.messages import Carried

log = logging.getLogger(__name__)

PING_EVERY = 30.0   # seconds, as the door's uvicorn: keeps proxies and NAT from timing out
PING_WAIT = 30.0    # a browser that does not answer within this is gone
QUEUED = 16         # messages read and not yet taken before reading pauses


def wire_size(frame: Frame) -> int:
    """The bytes a browser's (masked, uncompressed) frame took on the wire."""
    n = len(frame.data)
    return 2 + 4 + (0 if n < 126 else 2 if n < 65536 else 8) + n


class HeldSocket:
    """What a held parlor asks of a /play socket (a mixin: the class provides
    ``transport``, ``queue`` of ASGI-style messages, and ``conn``, a websockets
    sans-I/O protocol)."""

    transport: asyncio.Transport
    queue: asyncio.Queue
    conn: Protocol
    holding = False   # a hand-over: nothing more is read from the socket
    gone = False      # let go: the holder has the socket, this process forgets it

    def _tail_init(self) -> None:
        self._tail = bytearray()

    def _arrived(self, data: bytes) -> None:
        """Bytes from the socket, before they are parsed (only of a socket that may be
        held: an open one, not compressed, whose frames' sizes are what they carry)."""
        if self.conn.state is State.OPEN and not self.conn.extensions:
            self._tail += data

    def _parsed(self) -> None:
        """The frames just parsed (still in ``conn.events``) are no longer a tail."""
        if self._tail:
            for event in self.conn.events:
                if isinstance(event, Frame):
                    del self._tail[:wire_size(event)]

    @property
    def tail(self) -> bytes:
        """The bytes of a frame not yet whole (the next parlor parses them first)."""
        return bytes(self._tail)

    @property
    def socket(self) -> Any:
        return self.transport.get_extra_info("socket")

    def hold_still(self) -> None:
        """A hand-over: read nothing more (it waits in the socket for the next parlor);
        what was read is still delivered."""
        self.holding = True
        if not self.transport.is_closing():
            self.transport.pause_reading()

    @property
    def still(self) -> bool:
        """Nothing read waits to be taken."""
        return self.queue.empty()

    def buffered(self) -> int:
        """Bytes written and not yet sent."""
        return self.transport.get_write_buffer_size()

    def let_go(self) -> None:
        """Forget the socket: the holder keeps it open for the next parlor."""
        self.gone = True
        self.transport.abort()   # closes this process's descriptor only


class _Client:
    """``host`` and ``port``, as Starlette's ``websocket.client``."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port


class ResumedWebSocket(asyncio.Protocol, HeldSocket):
    """A /play WebSocket handed over by the holder: already open, spoken with the
    websockets library's sans-I/O protocol."""

    def __init__(self, carried: "Carried", max_size: int) -> None:
        self.conn = Protocol(Side.SERVER, state=State.OPEN, max_size=max_size)
        self.queue: asyncio.Queue = asyncio.Queue()
        self.client = _Client(carried.address, carried.port)
        self.query_params: dict[str, str] = {}
        self._tail_init()
        self._first = base64.b64decode(carried.stream) if carried.stream else b""
        self._frames: list[bytes] = []
        self._text = False
        self._paused = False
        self._writable = asyncio.Event()
        self._writable.set()
        self._ping: asyncio.TimerHandle | None = None
        self._pong: asyncio.TimerHandle | None = None
        self.transport = None  # type: ignore[assignment]

    # -- asyncio's side ----------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self._schedule_ping()
        if self._first:
            self.data_received(self._first)

    def data_received(self, data: bytes) -> None:
        self._arrived(data)
        self.conn.receive_data(data)
        self._parsed()
        for frame in self.conn.events_received():
            self._frame(frame)
        self._send_out()
        if self.conn.parser_exc is not None:   # the protocol has sent its close frame
            sent = self.conn.close_sent
            self.queue.put_nowait({"type": "websocket.disconnect",
                                   "code": sent.code if sent is not None else 1002})
        if self.queue.qsize() >= QUEUED and not self._paused:
            self._paused = True
            self.transport.pause_reading()

    def eof_received(self) -> bool | None:
        self.conn.receive_eof()
        self._send_out()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_pings()
        self._writable.set()
        if not self.gone:
            self.queue.put_nowait({"type": "websocket.disconnect", "code": 1006})

    def pause_writing(self) -> None:
        self._writable.clear()

    def resume_writing(self) -> None:
        self._writable.set()

    def _frame(self, frame: Frame) -> None:
        if frame.opcode in (Opcode.TEXT, Opcode.BINARY):
            self._text, self._frames = frame.opcode is Opcode.TEXT, [bytes(frame.data)]
        elif frame.opcode is Opcode.CONT:
            self._frames.append(bytes(frame.data))
        elif frame.opcode is Opcode.PONG:
            if self._pong is not None:
                self._pong.cancel()
                self._pong = None
                self._schedule_ping()
            return
        elif frame.opcode is Opcode.CLOSE:
            close = self.conn.close_rcvd
            self.queue.put_nowait({"type": "websocket.disconnect",
                                   "code": close.code if close else 1005})
            return
        else:  # PING: the protocol has queued the PONG
            return
        if frame.fin:
            data, self._frames = b"".join(self._frames), []
            if self._text:
                self.queue.put_nowait({"type": "websocket.receive",
                                       "text": data.decode("utf-8", errors="replace")})
            else:
                self.queue.put_nowait({"type": "websocket.receive", "bytes": data})

    def _send_out(self) -> None:
        for chunk in self.conn.data_to_send():
            if self.transport.is_closing():
                return
            if chunk:
                self.transport.write(chunk)
            else:  # the protocol's end of stream: the closing handshake is over
                self.transport.close()

    # -- keepalive -----------------------------------------------------------------------------
    def _schedule_ping(self) -> None:
        self._ping = asyncio.get_running_loop().call_later(PING_EVERY, self._send_ping)

    def _send_ping(self) -> None:
        self._ping = None
        if self.conn.state is not State.OPEN or self.transport.is_closing():
            return
        self.conn.send_ping(b"esterport")
        self._send_out()
        self._pong = asyncio.get_running_loop().call_later(PING_WAIT, self._no_pong)

    def _no_pong(self) -> None:
        self._pong = None
        log.info("a resumed /play socket did not answer a ping in %g s", PING_WAIT)
        self.transport.abort()

    def _stop_pings(self) -> None:
        for timer in (self._ping, self._pong):
            if timer is not None:
                timer.cancel()
        self._ping = self._pong = None

    def let_go(self) -> None:
        self._stop_pings()
        super().let_go()

    # -- what the session asks (as of Starlette's WebSocket) -----------------------------------
    async def receive(self) -> dict:
        message = await self.queue.get()
        if self._paused and self.queue.empty() and not self.holding:
            self._paused = False
            self.transport.resume_reading()
        return message

    async def send_bytes(self, data: bytes) -> None:
        if self.conn.state is not State.OPEN or self.transport.is_closing():
            raise ConnectionResetError("the /play socket is closed")
        self.conn.send_binary(data)
        self._send_out()
        await self._writable.wait()

    async def close(self, code: int = 1000, reason: str = "") -> None:
        """Send a close frame; the browser's answer ends the connection (or, within two
        seconds, this end does)."""
        if self.conn.state is State.OPEN and not self.transport.is_closing():
            self.conn.send_close(code, reason)
            self._send_out()
            asyncio.get_running_loop().call_later(2.0, self.transport.abort)
