"""``/play/ws``: a browser's session, the very same one a telnet client gets.

Subprotocol: ``telnet.mudstandards.org``, from the list proposed at
https://mudstandards.org/websocket/ — the full telnet stream (option negotiation, GMCP,
NAWS, ECHO, IAC escaping) carried in binary WebSocket frames, both ways. The
connection asks for it in ``Sec-WebSocket-Protocol``; a handshake that does not offer
it is refused (403). Because the stream is telnet, the server side needs no second
session type: a :class:`WebSocketTransport` (an ``asyncio.Transport`` whose bytes go to
and come from the WebSocket) is handed to a telnet protocol configured exactly as the
listener's (``Parlor.telnet_connection``), and telnetlib3 runs the parlor's shell over
it — the same welcome, login throttle, commands, games, presentation, GMCP board JSON,
per-address cap (the browser's socket address), command rate limit, pre-login byte
budget and idle sweep. The page (``static/play.js``) is a small telnet client: it
answers DO NAWS with its width in columns (again on every resize), turns WILL/WONT
ECHO into a password field, and reads GMCP.

Bounds of the door itself: the handshake's ``Host`` must be a name this server answers to
(see :func:`host_allowed`: a page on a foreign name whose DNS turns to this server
would otherwise be the page's own origin), and its ``Origin`` the page's own (or one of
``[web] origins``); a message is at most ``[web] max_message`` bytes (uvicorn closes
the socket, 1009); a browser may send ``messages_per_second`` messages a second with a
burst of ``message_burst`` (past it the socket closes, 1008, with the reason); output a browser does not
read is dropped with the connection past ``server.output.MAX_PENDING_OUTPUT``, as for
telnet. The socket counts once in the budget of connections: the telnet protocol counts
it while the session runs (and refuses it when the parlor is full, as it would a telnet
client), the door's budget before and after.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

from starlette.websockets import WebSocket, WebSocketDisconnect

from server.pacing import RateLimiter
from server.web.budget import Budget
from server.web.held import HeldSocket, ResumedWebSocket

if TYPE_CHECKING:
    from server.config import Config
    from server.holder.link import HolderLink
    from server.holder.messages import Carried
    from server.telnet import TelnetProtocol

log = logging.getLogger(__name__)

SUBPROTOCOL = "telnet.mudstandards.org"


class WebSocketTransport(asyncio.Transport):
    """The write side of a telnet protocol, sending to a WebSocket.

    ``write`` is synchronous (telnetlib3 calls it from its protocol); bytes gather in a
    buffer that :meth:`pump` sends, one WebSocket message per loop turn's worth.
    ``pause_reading`` stops the receiving loop taking more messages (telnetlib3's reader
    back-pressure)."""

    def __init__(self, peer: tuple[str, int], side: "HeldSocket | None" = None) -> None:
        super().__init__()
        self._peer = peer
        self.side = side   # a held parlor's: the socket under the WebSocket (server/web/held.py)
        self.receiving = False  # the session waits for the next message
        self._sending = False
        self._still = False     # held still for a hand-over: the session takes all there is
        self._let_go = False
        self._buffer = bytearray()
        self._ready = asyncio.Event()
        self._reading = asyncio.Event()
        self._reading.set()
        self._closing = False
        self.close_code, self.close_reason = 1000, ""   # the close frame sent at the end
        self._protocol: asyncio.BaseProtocol | None = None

    # -- what telnetlib3 and the session ask of a transport --------------------------------
    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": self._peer}.get(name, default)  # no "socket": no keepalive

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if self._closing:
            return
        self._buffer += data
        self._ready.set()

    def writelines(self, chunks) -> None:  # noqa: ANN001
        for chunk in chunks:
            self.write(chunk)

    def get_write_buffer_size(self) -> int:
        """Bytes not sent yet: the buffer's, a message being sent, and the socket's."""
        size = len(self._buffer) + self._sending
        return size + self.side.buffered() if self.side is not None else size

    def is_closing(self) -> bool:
        return self._closing

    def close(self) -> None:
        """Send what is buffered, then close the WebSocket."""
        self._closing = True
        self._ready.set()
        self._reading.set()

    def abort(self) -> None:
        self._buffer.clear()
        self.close()

    def can_write_eof(self) -> bool:
        return False

    def pause_reading(self) -> None:
        if not self._still:
            self._reading.clear()

    def resume_reading(self) -> None:
        self._reading.set()

    def is_reading(self) -> bool:
        return self._reading.is_set()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self._protocol = protocol

    def get_protocol(self) -> asyncio.BaseProtocol | None:
        return self._protocol

    # -- a held parlor's hand-over (server/holder) -------------------------------------------
    async def hold_still(self) -> None:
        """Read nothing more from the socket, and return once the session has taken
        everything that was read (it is then in the reader: ``Session.unread``)."""
        assert self.side is not None
        self.side.hold_still()
        self._still = True
        self._reading.set()
        while not (self.side.still and self.receiving) and not self._closing:
            await asyncio.sleep(0.005)

    @property
    def handed_over(self) -> bool:
        """Let go at a hand-over: the next parlor carries the session on."""
        return self._let_go

    def let_go(self) -> None:
        """The holder has the socket and the session's state: end here without a word."""
        self._let_go = self._closing = True
        self._ready.set()
        if self.side is not None:
            self.side.let_go()

    # -- the WebSocket side ----------------------------------------------------------------
    async def reading_allowed(self) -> None:
        await self._reading.wait()

    async def pump(self, websocket: WebSocket) -> None:
        """Send buffered bytes until closed; then the rest, then a close frame."""
        try:
            while True:
                await self._ready.wait()
                self._ready.clear()
                if self._let_go:
                    return
                if self._buffer:
                    data, self._buffer = bytes(self._buffer), bytearray()
                    self._sending = True
                    try:
                        await websocket.send_bytes(data)
                    finally:
                        self._sending = False
                if self._closing and not self._buffer:
                    break
            if not self._let_go:
                await websocket.close(self.close_code, self.close_reason)
        except (WebSocketDisconnect, RuntimeError, OSError):
            pass  # the browser went first
        finally:
            self._closing = True


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
    plays: set[WebSocketTransport]


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
    side = websocket.scope.get("extensions", {}).get("esterport.socket")
    holdable = (door.holds_plays and side is not None and not side.tls_here
                and not side.conn.extensions)
    with door.budget.lent():
        await run_session(websocket, door.parlor, door.plays, side=side if holdable else None)


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


async def run_session(websocket: Any, parlor: Shell, plays: set | None = None, *,
                      side: "HeldSocket | None" = None, carried: "Carried | None" = None) -> None:
    """The telnet session over an accepted WebSocket, until either side ends it.

    ``websocket`` is Starlette's, or (``carried``: handed over by the holder) a
    :class:`~server.web.held.ResumedWebSocket`; ``side``, in a held parlor, is the socket
    under it, which the holder then keeps through a restart; ``plays``, the door's
    sessions."""
    cfg = parlor.config.web
    client = websocket.client
    transport = WebSocketTransport((client.host, client.port) if client else ("?", 0), side)
    protocol = parlor.telnet_connection()
    if carried is not None:
        protocol.carried = carried
    transport.set_protocol(protocol)
    protocol.connection_made(transport)
    if side is not None and carried is None and parlor.holder is not None:
        protocol.held = parlor.holder.hold(side.transport, websocket=True,
                                           peer=transport.get_extra_info("peername"))
    window = window_size(websocket.query_params)
    if window is not None and carried is None:
        protocol.on_naws(*window)
    pump = asyncio.create_task(transport.pump(websocket))
    plays = plays if plays is not None else set()
    plays.add(transport)
    limiter = RateLimiter(cfg.messages_per_second, cfg.message_burst)
    try:
        while not transport.is_closing():
            transport.receiving = True
            message = await websocket.receive()
            transport.receiving = False
            if message["type"] == "websocket.disconnect":
                break
            data = message.get("bytes")
            if data is None:  # a text frame: the subprotocol carries telnet in binary ones
                text = message.get("text") or ""
                data = text.encode("utf-8")
            if not limiter.allow():
                log.warning("closing /play from %s: more than %g messages a second",
                            transport.get_extra_info("peername")[0], cfg.messages_per_second)
                transport.close_code = 1008   # policy: the documented code, and why
                transport.close_reason = (f"more than {cfg.messages_per_second:g} messages "
                                          "a second")
                transport.abort()
                break
            await transport.reading_allowed()
            if transport.is_closing():
                break
            protocol.data_received(data)
    except (WebSocketDisconnect, RuntimeError, OSError):
        pass
    finally:
        plays.discard(transport)
        if getattr(protocol, "_transport", None) is not None:
            protocol.connection_lost(None)  # the session sees end of input
        transport.close()
        await pump


_resumed: set[asyncio.Task] = set()   # the resumed sessions' tasks, kept until they end


async def resume(parlor: Shell, carried: "Carried", fd: int) -> None:
    """Carry on a /play session the parlor before this one had (server/holder); OSError
    when its socket was gone in the gap."""
    side = ResumedWebSocket(carried, parlor.config.web.max_message)
    await asyncio.get_running_loop().connect_accepted_socket(
        lambda: side, socket.socket(fileno=fd))
    task = asyncio.create_task(run_session(side, parlor, side=side, carried=carried))
    _resumed.add(task)
    task.add_done_callback(_resumed.discard)
