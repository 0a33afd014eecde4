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
from server.web.held import FrameTail

MAX_HEAD = 16 * 1024  # bytes of a request line and headers


class _Forgotten(asyncio.Transport):
    """Where uvicorn's WebSocket protocol writes once it has given its socket up: nowhere."""

    def write(self, data) -> None:  # noqa: ANN001
        pass

    def close(self) -> None:
        pass

    def abort(self) -> None:
        pass

    def is_closing(self) -> bool:
        return True


FORGOTTEN = _Forgotten()


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

        def handle_websocket_upgrade(self) -> None:
            super().handle_websocket_upgrade()
            self.parser = None   # (it refers back to this protocol: no cycle left to collect)

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

    class CountedWebSocket(WebSocketsSansIOProtocol, FrameTail):
        """A connection upgraded to a WebSocket: still counted, until it is lost. Once
        /play has accepted it, it gives the open socket up (:meth:`give_up`) to the
        session's own protocol (``server.web.play.PlaySocket``); the ASGI scope names it
        (``scope["extensions"]["esterport.socket"]``)."""

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

        def give_up(self) -> tuple[asyncio.Transport, list[dict]]:
            """The open socket and the messages read of it since the handshake, for the
            protocol that takes it over; uvicorn forgets it (no ping, no close frame,
            no count of it at a stop; its task ends) and the budget's count of it goes
            with it (the new protocol releases it when it is lost)."""
            self.stop_keepalive()
            self.scope["extensions"].pop("esterport.socket", None)   # (no cycle left)
            transport, self.transport = self.transport, FORGOTTEN  # type: ignore[assignment]
            self.connections.discard(self)
            queued = []
            while not self.queue.empty():
                queued.append(self.queue.get_nowait())
            return transport, queued

        def connection_lost(self, exc: Exception | None) -> None:
            budget.release(self.transport)
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
