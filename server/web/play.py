"""``/play/ws``: a browser's session, the very same one a telnet client gets.

Subprotocol: ``telnet.mudstandards.org``, from the list proposed at
https://mudstandards.org/websocket/ — the full telnet stream (option negotiation, GMCP,
NAWS, ECHO, IAC escaping) carried in binary WebSocket frames, both ways. The
connection asks for it in ``Sec-WebSocket-Protocol``; a handshake that does not offer
it is refused (403). Because the stream is telnet, the server side needs no second
session type: once uvicorn has made the handshake, the socket is the session's
:class:`PlaySocket`, which reads and writes the frames itself and is the transport of
a telnet protocol configured exactly as the listener's (``Parlor.telnet_connection``), and telnetlib3 runs the parlor's shell over
it — the same welcome, login throttle, commands, games, presentation, GMCP board JSON,
per-address cap (the browser's socket address), command rate limit, pre-login byte
budget and idle sweep. The page (``static/play.js``) is a small telnet client: it
answers DO NAWS with its width in columns (again on every resize), turns WILL/WONT
ECHO into a password field, and reads GMCP.

Bounds of the door itself: the handshake's ``Host`` must be a name this server answers to
(see :func:`host_allowed`: a page on a foreign name whose DNS turns to this server
would otherwise be the page's own origin), and its ``Origin`` the page's own (or one of
``[web] origins``); a message is at most ``[web] max_message`` bytes (past it the
socket closes, 1009); a browser may send ``messages_per_second`` messages a second with a
burst of ``message_burst`` (past it the socket closes, 1008, with the reason); output a browser does not
read is dropped with the connection past ``server.output.MAX_PENDING_OUTPUT``, as for
telnet. The socket counts once in the budget of connections: the telnet protocol counts
it while the session runs (and refuses it when the parlor is full, as it would a telnet
client), the door's budget before and after.
"""

from __future__ import annotations

import asyncio
import base64
import ipaddress
import logging
import socket
from collections import deque
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

from starlette.websockets import WebSocket
from websockets.frames import Frame, Opcode
from websockets.protocol import Protocol as WsProtocol
from websockets.protocol import Side, State

from server.pacing import RateLimiter
from server.web.budget import Budget
from server.web.held import FrameTail

if TYPE_CHECKING:
    from server.config import Config
    from server.holder.link import HolderLink
    from server.holder.messages import Carried
    from server.telnet import TelnetProtocol

log = logging.getLogger(__name__)

SUBPROTOCOL = "telnet.mudstandards.org"
PING_EVERY = 30.0   # seconds, as uvicorn's: keeps proxies and NAT from timing the socket out
PING_WAIT = 30.0    # a browser that does not answer within this is gone


class PlaySocket(asyncio.Protocol, asyncio.Transport, FrameTail):
    """One browser's /play session on its socket, with no task of its own.

    Below, it is the socket's protocol: WebSocket frames, read and written with the
    websockets library's sans-I/O protocol (``conn``), already open. It takes the socket
    from uvicorn once the handshake is done (:func:`play`), or in a held parlor's next
    parlor from the holder (:func:`resume`). Above, it is the transport of the telnet
    protocol the session runs on (``Parlor.telnet_connection``): each message read is
    handed to it as it arrives, and what it writes in a turn of the loop goes out as one
    binary message. Pings keep proxies from timing the socket out.

    ``held``: the holder may keep the socket through a restart (a held parlor's, plain
    and uncompressed). ``plays`` and ``budget``: the door's sessions and its count of
    connections (the telnet protocol counts the socket while the session runs)."""

    __slots__ = ("parlor", "conn", "_tail", "_peer", "held", "plays", "budget", "telnet",
                 "socket_transport", "_carried", "_window", "_first", "_limit", "_out",
                 "_flushing", "_frames", "_text", "_held_back", "_reading", "_still",
                 "_closing", "_let_go", "_ended", "_lent", "close_code", "close_reason",
                 "_timer", "_pinged")

    def __init__(self, parlor: Shell, conn: WsProtocol, peer: tuple[str, int], *,
                 held: bool = False, carried: "Carried | None" = None,
                 window: tuple[int, int] | None = None, first: bytes = b"",
                 plays: set | None = None,
                 budget: Budget | None = None) -> None:
        asyncio.Transport.__init__(self)
        self.parlor = parlor
        self.conn = conn
        self._tail_init()
        self._peer = peer
        self.held = held
        self.plays = plays
        self.budget = budget
        self.telnet: "TelnetProtocol | None" = None
        self.socket_transport: asyncio.Transport | None = None
        self._carried, self._window, self._first = carried, window, first
        cfg = parlor.config.web
        self._limit = RateLimiter(cfg.messages_per_second, cfg.message_burst)
        self._out = bytearray()                       # written this turn, not yet sent
        self._flushing: asyncio.Handle | None = None
        self._frames: list[bytes] = []                # a fragmented message so far
        self._text = False
        self._held_back: deque[bytes] | None = None   # read while the session takes none
        self._reading = True     # the telnet protocol takes input (its back-pressure)
        self._still = False      # a hand-over: read nothing more, deliver all that was read
        self._closing = False
        self._let_go = False
        self._ended = False
        self._lent = False       # uncounted in the door's budget while the session runs
        self.close_code, self.close_reason = 1000, ""   # the close frame sent at the end
        self._timer: asyncio.TimerHandle | None = None  # the next ping, or its deadline
        self._pinged = False

    # -- the socket (asyncio's protocol) -------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.socket_transport = transport  # type: ignore[assignment]
        self._ping_later()
        self._start()
        if self._first:
            first, self._first = self._first, b""
            self.data_received(first)

    def data_received(self, data: bytes) -> None:
        if self._let_go:
            return
        self._arrived(data)
        self.conn.receive_data(data)
        self._parsed()
        for frame in self.conn.events_received():
            self._frame(frame)
        self._send_out()
        if self.conn.parser_exc is not None:   # it has sent its close frame (1009, 1002...)
            self._end()

    def eof_received(self) -> bool | None:
        self.conn.receive_eof()
        self._send_out()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_timer()
        if self._flushing is not None:
            self._flushing.cancel()
            self._flushing = None
        if not self._let_go:
            self._end()
        if self.budget is not None and self.socket_transport is not None:
            self.budget.release(self.socket_transport)

    def _frame(self, frame: Frame) -> None:
        opcode = frame.opcode
        if opcode is Opcode.TEXT or opcode is Opcode.BINARY:
            self._text, self._frames = opcode is Opcode.TEXT, [bytes(frame.data)]
        elif opcode is Opcode.CONT:
            self._frames.append(bytes(frame.data))
        elif opcode is Opcode.PONG:
            if self._pinged:
                self._pinged = False
                self._stop_timer()
                self._ping_later()
            return
        elif opcode is Opcode.CLOSE:   # the protocol has answered it; the session ends
            self._end()
            return
        else:   # PING: the protocol has queued the PONG
            return
        if frame.fin:
            data, self._frames = b"".join(self._frames), []
            if self._text:   # the subprotocol carries telnet in binary frames; take it
                data = data.decode("utf-8", errors="replace").encode("utf-8")
            self.received(data)

    def received(self, data: bytes) -> None:
        """A whole message from the browser: to the session, or held back while it takes
        no input; past the rate of messages, the socket closes with the reason (1008)."""
        if self._closing:
            return
        if not self._limit.allow():
            cfg = self.parlor.config.web
            log.warning("closing /play from %s: more than %g messages a second",
                        self._peer[0], cfg.messages_per_second)
            self.close_code = 1008   # policy: the documented code, and why
            self.close_reason = f"more than {cfg.messages_per_second:g} messages a second"
            self.abort()
            return
        if self._held_back or not (self._reading or self._still):
            if self._held_back is None:
                self._held_back = deque()
            self._held_back.append(data)
            if self.socket_transport is not None and not self.socket_transport.is_closing():
                self.socket_transport.pause_reading()
            return
        assert self.telnet is not None
        self.telnet.data_received(data)

    def _release(self) -> None:
        """Give the session what was held back, as far as it takes it; then read on."""
        while self._held_back and (self._reading or self._still) and not self._closing:
            assert self.telnet is not None
            self.telnet.data_received(self._held_back.popleft())
        if not self._held_back:
            self._held_back = None
        sock = self.socket_transport
        if (not self._held_back and self._reading and not self._still
                and sock is not None and not sock.is_closing()):
            sock.resume_reading()

    def _send_out(self) -> None:
        sock = self.socket_transport
        if sock is None:
            return
        for chunk in self.conn.data_to_send():
            if sock.is_closing():
                return
            if chunk:
                sock.write(chunk)
            else:  # the protocol's end of stream: the closing handshake is over
                sock.close()

    # -- keepalive -------------------------------------------------------------------------------
    def _ping_later(self) -> None:
        self._timer = asyncio.get_running_loop().call_later(PING_EVERY, self._send_ping)

    def _send_ping(self) -> None:
        self._timer = None
        sock = self.socket_transport
        if self.conn.state is not State.OPEN or sock is None or sock.is_closing():
            return
        self.conn.send_ping(b"esterport")
        self._send_out()
        self._pinged = True
        self._timer = asyncio.get_running_loop().call_later(PING_WAIT, self._no_pong)

    def _no_pong(self) -> None:
        self._timer = None
        log.info("a /play socket did not answer a ping in %g s", PING_WAIT)
        if self.socket_transport is not None:
            self.socket_transport.abort()

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    # -- the session -----------------------------------------------------------------------------
    def _start(self) -> None:
        parlor = self.parlor
        protocol = parlor.telnet_connection()
        self.telnet = protocol
        if self._carried is not None:
            protocol.carried = self._carried
        if self.budget is not None:   # the telnet protocol counts it (or refuses it) now
            self.budget.counter["open"] -= 1
            self._lent = True
        if self.plays is not None:
            self.plays.add(self)
        protocol.connection_made(self)
        if self._closing:   # refused (the parlor is full)
            return
        if self.held and self._carried is None and parlor.holder is not None:
            protocol.held = parlor.holder.hold(self.socket_transport, websocket=True,
                                               peer=self._peer)
        if self._window is not None and self._carried is None:
            protocol.on_naws(*self._window)
        self._carried = self._window = None

    def _end(self) -> None:
        """The session is over (the socket closed, or its closing handshake began): the
        telnet protocol sees the end of its input, once."""
        if self._ended:
            return
        self._ended = self._closing = True
        self._held_back = None
        if self.plays is not None:
            self.plays.discard(self)
        if self._lent and self.budget is not None:
            self.budget.counter["open"] += 1
            self._lent = False
        telnet = self.telnet
        if telnet is not None and getattr(telnet, "_transport", None) is not None:
            telnet.connection_lost(None)

    # -- the telnet protocol's transport ---------------------------------------------------------
    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._peer if name == "peername" else default   # no "socket": no keepalive

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if self._closing:
            return
        self._out += data
        if self._flushing is None:
            self._flushing = asyncio.get_running_loop().call_soon(self._flush)

    def writelines(self, chunks) -> None:  # noqa: ANN001
        for chunk in chunks:
            self.write(chunk)

    def _flush(self) -> None:
        """What was written this turn, as one binary message."""
        self._flushing = None
        if not self._out:
            return
        data, self._out = bytes(self._out), bytearray()
        sock = self.socket_transport
        if self.conn.state is State.OPEN and sock is not None and not sock.is_closing():
            self.conn.send_binary(data)
            self._send_out()

    def get_write_buffer_size(self) -> int:
        """Bytes not sent yet: this turn's, and the socket's."""
        sock = self.socket_transport
        return len(self._out) + (sock.get_write_buffer_size() if sock is not None else 0)

    def is_closing(self) -> bool:
        return self._closing

    def close(self) -> None:
        """Send what is written, then a close frame; the browser's answer ends the
        connection (or, within two seconds, this end does)."""
        if self._closing:
            return
        self._closing = True
        if self._flushing is not None:
            self._flushing.cancel()
        self._flush()
        sock = self.socket_transport
        if sock is None or sock.is_closing():
            return
        if self.conn.state is State.OPEN:
            self.conn.send_close(self.close_code, self.close_reason)
            self._send_out()
            asyncio.get_running_loop().call_later(2.0, sock.abort)
        else:
            sock.close()

    def abort(self) -> None:
        self._out.clear()
        self.close()

    def can_write_eof(self) -> bool:
        return False

    def pause_reading(self) -> None:
        if self._still:   # a hand-over: the session takes all there is
            return
        self._reading = False
        if self.socket_transport is not None and not self.socket_transport.is_closing():
            self.socket_transport.pause_reading()

    def resume_reading(self) -> None:
        self._reading = True
        self._release()

    def is_reading(self) -> bool:
        return self._reading

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self.telnet = protocol  # type: ignore[assignment]

    def get_protocol(self) -> asyncio.BaseProtocol | None:
        return self.telnet

    # -- a held parlor's hand-over (server/holder) -----------------------------------------------
    @property
    def side(self) -> "PlaySocket | None":
        """The socket the holder keeps (server/holder/link.py, ``carried``): this one,
        when it may be held."""
        return self if self.held else None

    async def hold_still(self) -> None:
        """Read nothing more from the socket, and let the session take everything that
        was read (it is then in the reader: ``Session.unread``)."""
        self._still = True
        sock = self.socket_transport
        if sock is not None and not sock.is_closing():
            sock.pause_reading()
        self._release()

    @property
    def handed_over(self) -> bool:
        """Let go at a hand-over: the next parlor carries the session on."""
        return self._let_go

    def let_go(self) -> None:
        """The holder has the socket and the session's state: end here without a word
        (no close frame, no end of the session); this process's descriptor closes."""
        self._let_go = self._closing = True
        self._stop_timer()
        if self._flushing is not None:
            self._flushing.cancel()
            self._flushing = None
        if self.socket_transport is not None:
            self.socket_transport.abort()


def origin_allowed(websocket: WebSocket, extra: tuple[str, ...]) -> bool:
    """The handshake's Origin is this server's own page (same host and port as the
    request's Host), or listed in ``[web] origins``. A request without Origin is not a
    browser's (browsers always send one on a WebSocket): it may connect, as a telnet
    client may."""
    origin = websocket.headers.get("origin")
    if origin is None:
        return True
    if origin in extra:
        return True
    host = websocket.headers.get("host", "")
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and bool(host) and parts.netloc == host


def _hostname(netloc: str) -> str:
    """The name in a Host header or an origin's netloc: lower case, no port, no brackets
    round an IPv6 address, no final dot; "" when it is not one."""
    try:
        return (urlsplit("//" + netloc).hostname or "").rstrip(".")
    except ValueError:
        return ""


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class Shell(Protocol):
    """What /play reads of the parlor: the settings (``[web]``), whether it is handing
    over (a reload, which the next parlor takes), a telnet connection configured as its
    listener's, and the holder of a held parlor."""

    config: "Config"
    handing_over: bool
    holder: "HolderLink | None"

    def telnet_connection(self) -> "TelnetProtocol": ...


class Entrance(Protocol):
    """The web door as /play reads it (``WebDoor`` in server/web/__init__.py, which
    ``build_app`` puts in the app's state): its parlor, its host and the names /play
    answers to, whether it is closing, whether the holder keeps its /play sockets, its
    budget of connections, and the sessions it runs."""

    @property
    def parlor(self) -> Shell: ...

    host: str
    host_names: frozenset[str]
    closing: asyncio.Event
    holds_plays: bool
    budget: Budget
    plays: set[PlaySocket]


def host_names(door: Entrance) -> frozenset[str]:
    """The names /play answers to: localhost, the door's host when it is a name, ``[web]
    hosts``, and the names in ``[web] origins``."""
    cfg = door.parlor.config.web
    names = {"localhost", _hostname(door.host)}
    names.update(_hostname(host) for host in cfg.hosts)
    names.update(_hostname(urlsplit(origin).netloc) for origin in cfg.origins)
    return frozenset(names - {""})


def host_allowed(websocket: WebSocket, names: frozenset[str]) -> bool:
    """The handshake's Host is one of ``names`` or an IP address. DNS rebinding: a page
    on ``evil.example`` whose name the attacker then points at this server speaks to it
    as its own origin (Origin and Host both ``evil.example``); only the name in Host
    tells it from the parlor's page. An address is never a rebound name, and a request
    without Host is not a browser's."""
    host = websocket.headers.get("host")
    if host is None:
        return True
    name = _hostname(host)
    return name in names or _is_address(name)


async def play(websocket: WebSocket) -> None:
    door: Entrance = websocket.app.state.door
    cfg = door.parlor.config.web
    if door.closing.is_set():
        await websocket.close(1001)
        return
    if door.parlor.handing_over:  # a reload: the next parlor takes it (the page retries)
        await websocket.accept(subprotocol=SUBPROTOCOL)
        await websocket.close(1012)
        return
    if not origin_allowed(websocket, cfg.origins):
        log.warning("refused /play from origin %r", websocket.headers.get("origin"))
        await websocket.close(1008)  # before accept: the handshake gets 403
        return
    if not host_allowed(websocket, door.host_names):
        log.warning("refused /play for host %r (not in [web] hosts)",
                    websocket.headers.get("host"))
        await websocket.close(1008)
        return
    if SUBPROTOCOL not in websocket.scope.get("subprotocols", ()):
        await websocket.close(1002)
        return
    await websocket.accept(subprotocol=SUBPROTOCOL)
    # the open socket leaves uvicorn (and this task ends): the session runs on a
    # PlaySocket, as it will in the next parlor of a held one
    side = websocket.scope["extensions"]["esterport.socket"]
    client = websocket.client
    socket_transport, queued = side.give_up()
    conn, first = side.conn, b""
    if not conn.extensions:   # a protocol of its own, without the handshake's request
        conn = WsProtocol(Side.SERVER, state=State.OPEN, max_size=cfg.max_message)
        first = side.tail     # (uncompressed: the bytes of a frame begun are all its state)
    session = PlaySocket(
        door.parlor, conn, (client.host, client.port) if client else ("?", 0),
        held=door.holds_plays and not side.tls_here and not conn.extensions,
        window=window_size(websocket.query_params), first=first, plays=door.plays,
        budget=door.budget)
    socket_transport.set_protocol(session)
    session.connection_made(socket_transport)
    for message in queued:   # what uvicorn read after the handshake
        if message["type"] == "websocket.receive":
            data = message.get("bytes")
            session.received(data if data is not None
                             else (message.get("text") or "").encode("utf-8"))
        else:   # websocket.disconnect: the browser's close frame, or the socket gone
            if socket_transport.is_closing():   # (gone before this protocol had it)
                session.connection_lost(None)
            else:
                socket_transport.close()
            break
    if not session.is_closing():
        session.resume_reading()


def window_size(query: Any) -> tuple[int, int] | None:
    """``(rows, cols)`` from the address's ``?cols=&rows=``: the page's window when it
    connected, so the welcome fits it even when the answer to DO NAWS comes after the
    shell has started (telnetlib3 waits half a second for it). Anything else: ``None``."""
    try:
        cols, rows = int(query.get("cols", "")), int(query.get("rows", ""))
    except ValueError:
        return None
    if not (20 <= cols <= 250 and 10 <= rows <= 200):
        return None
    return rows, cols


async def resume(parlor: Shell, carried: "Carried", fd: int) -> None:
    """Carry on a /play session the parlor before this one had (server/holder); OSError
    when its socket was gone in the gap."""
    conn = WsProtocol(Side.SERVER, state=State.OPEN, max_size=parlor.config.web.max_message)
    session = PlaySocket(parlor, conn, (carried.address, carried.port), held=True,
                         carried=carried, first=base64.b64decode(carried.stream)
                         if carried.stream else b"")
    await asyncio.get_running_loop().connect_accepted_socket(
        lambda: session, socket.socket(fileno=fd))
