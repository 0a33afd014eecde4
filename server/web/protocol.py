"""uvicorn's protocols (its httptools HTTP parser, its WebSocket), with the door's bounds.

* Every connection is counted in the door's :class:`~server.web.budget.Budget` from the
  moment it is accepted to the moment it is lost, whichever protocol holds it then (an
  upgraded connection ends as a WebSocket); one the budget will not take is answered 503
  and closed before uvicorn sees it.
* A request's head (its line and headers) is at most :data:`MAX_HEAD` bytes (httptools
  takes headers of any size), and must be complete within ``head_timeout`` seconds: of
  the connection's opening for its first request (a connection that sends nothing was
  never timed out before), of its first byte for the next ones (between requests,
  uvicorn's keep-alive timeout applies). A connection that sent nothing is closed without
  a word; one that began a head is told 400.
* ``relayed``: the HTTPS port of a held parlor, whose TLS the holder ends and whose plain
  bytes it relays over a Unix socket (``server/holder/tls_relay.py``). Each connection
  begins with the holder's PROXY line, which names the browser: it is read before uvicorn
  sees a byte, and only then is the connection counted (by that address). To uvicorn and
  the pages it is then the browser's HTTPS connection (``client``, ``scheme``), and its
  /play socket is held through a restart as the plain port's are: TLS is not in this
  process.
"""

from __future__ import annotations

import asyncio
import weakref

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from server import proxy_protocol
from server.web.budget import Budget
from server.web.held import HeldSocket

MAX_HEAD = 16 * 1024  # bytes of a request line and headers


def refusal(reason: str) -> bytes:
    """A whole 503 answer, written before the request is read."""
    body = reason.encode()
    return (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
            b"content-length: %d\r\nretry-after: 10\r\nconnection: close\r\n\r\n" % len(body)
            + body)


def peer_address(transport: asyncio.BaseTransport) -> str:
    peer = transport.get_extra_info("peername")
    return str(peer[0]) if isinstance(peer, (tuple, list)) and peer else ""


def protocols(budget: Budget, head_timeout: float, *,
              relayed: bool = False) -> tuple[type, type]:
    """uvicorn's HTTP and WebSocket protocol classes, bound to ``budget`` (``relayed``:
    for the holder's relay of the HTTPS port; see the module's docstring)."""

    class BoundedHttp(HttpToolsProtocol):
        """An HTTP connection: counted, timed, its heads bounded."""

        refused = False
        _head: int | None = 0   # bytes of the current request's head so far (None: past it)
        _timer: asyncio.TimerHandle | None = None
        #: what the web door's front read of the connection before handing it over
        #: (server/web/front.py): read here first, before anything from the socket
        first = b""

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            why = budget.admit(transport, self.client_address(transport))
            if why is not None:
                self.refused = True
                transport.write(refusal(why))
                transport.close()
                return
            super().connection_made(transport)
            budget.wait(transport)
            self._start_timer()
            if self.first:
                first, self.first = self.first, b""
                self.data_received(first)

        def client_address(self, transport: asyncio.BaseTransport) -> str:
            return peer_address(transport)

        def connection_lost(self, exc: Exception | None) -> None:
            if self.refused:
                return
            budget.release(self.transport)
            self._stop_timer()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self.refused:
                return
            if self._head is not None:
                if self._timer is None:
                    self._start_timer()
                self._head += len(data)
                if self._head > MAX_HEAD:
                    self._stop_timer()
                    self.send_400_response("Request line and headers too large.")
                    return
            super().data_received(data)

        def on_headers_complete(self) -> None:
            self._head = None
            self._stop_timer()
            budget.busy(self.transport)
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            super().on_message_complete()
            self._head = 0

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self.timeout_keep_alive_task is not None:   # idle until its next request
                budget.wait(self.transport)

        def _start_timer(self) -> None:
            self._timer = asyncio.get_running_loop().call_later(head_timeout, self._too_slow)

        def _too_slow(self) -> None:
            self._timer = None
            if self._head is None or self.transport.is_closing():
                return
            if self._head == 0:   # not a byte since it opened
                self.transport.close()
            else:
                self.send_400_response("Request line and headers too slow.")

        def _stop_timer(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

    class CountedWebSocket(WebSocketsSansIOProtocol, HeldSocket):
        """A connection upgraded to a WebSocket: still counted, until it is lost. In a
        held parlor its /play session may hand it to the holder (``HeldSocket``): the
        ASGI scope names it (``scope["extensions"]["esterport.socket"]``)."""

        asgi_task: asyncio.Task | None = None
        #: whether this process holds the connection's TLS (the HTTPS port of a parlor
        #: not held): such a socket cannot be handed to another process
        tls_here = False

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            self._tail_init()
            super().connection_made(transport)
            self.tls_here = self.scheme == "wss"

        def data_received(self, data: bytes) -> None:
            self._arrived(data)
            super().data_received(data)

        def handle_events(self) -> None:
            self._parsed()
            super().handle_events()

        def handle_connect(self, event) -> None:  # noqa: ANN001
            super().handle_connect(event)
            scope = getattr(self, "scope", None)
            if scope is not None:
                scope["extensions"]["esterport.socket"] = self

        async def run_asgi(self) -> None:
            self.asgi_task = asyncio.current_task()
            await super().run_asgi()

        def hold_still(self) -> None:
            self.read_paused = False  # so that taking a message does not resume reading
            super().hold_still()

        def let_go(self) -> None:
            """Forget the socket and its session's task (the process is about to end, and
            neither a close frame nor the end of the session may come of it)."""
            self.stop_keepalive()
            if self.asgi_task is not None:
                self.tasks.discard(self.asgi_task)
            super().let_go()

        def shutdown(self) -> None:
            if not self.gone:
                super().shutdown()

        def connection_lost(self, exc: Exception | None) -> None:
            budget.release(self.transport)
            if self.gone:   # let go: the holder has it, and the session must not hear
                self.connections.discard(self)
                return
            super().connection_lost(exc)

    if not relayed:
        return BoundedHttp, CountedWebSocket

    # the browser each relayed connection is from, by its transport (the WebSocket a
    # request upgrades to is made by uvicorn, which hands it the transport alone)
    browsers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    class RelayedHttp(BoundedHttp):
        """A connection of the holder's HTTPS relay: the PROXY line first, then HTTP."""

        _line: bytearray | None = None   # the PROXY line so far (None: read)

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            self._line = bytearray()
            self.refused = True   # not counted until the line is read
            self.transport = transport
            if self.first:   # handed over by the front: its PROXY line is in what it read
                first, self.first = self.first, b""
                self.data_received(first)

        def data_received(self, data: bytes) -> None:
            if self._line is None:
                super().data_received(data)
                return
            self._line += data
            try:
                header = proxy_protocol.parse(bytes(self._line))
            except proxy_protocol.ProxyError:   # not the holder (it cannot be: the folder
                self.transport.close()          # is private), or a bug: nothing to serve
                return
            if header is proxy_protocol.NEED_DATA:
                return
            rest = bytes(self._line[header.length:])
            self._line = None
            browsers[self.transport] = header.source or ("", 0)
            self.refused = False
            super().connection_made(self.transport)
            if self.refused:
                return
            self.client = browsers[self.transport]
            self.scheme = "https"
            if rest:
                super().data_received(rest)

        def client_address(self, transport: asyncio.BaseTransport) -> str:
            return str(browsers[transport][0])

    class RelayedWebSocket(CountedWebSocket):
        """A relayed connection upgraded to /play's WebSocket: the browser's, over wss."""

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)
            self.client = browsers.get(transport, ("", 0))
            self.scheme = "wss"

    return RelayedHttp, RelayedWebSocket
