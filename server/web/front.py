"""The web door's front: a process of its own that speaks HTTP to browsers, so that the
players' event loop does not.

Serving a page is mostly HTTP: reading the request, routing it, writing the answer to the
reader's socket (about 300 µs of CPU a page, of which drawing the page, once per change,
is little). In the parlor's process that CPU was the players': 50 readers of ``/`` kept a
move's live board waiting 150 ms and more. So ``esterport serve`` serves the web door's
plain port from this process (``[web] front = true``), started by the door
(:class:`~server.web.front_link.FrontLink`, the parlor's end) with three descriptors: the
listening socket, and two socket pairs to the parlor.

What it does with each request, read with h11:

* **a live stream** (a path ending in ``/events``) **or a WebSocket** (``/play/ws``): the
  connection is *handed* to the parlor whole, its descriptor (``SCM_RIGHTS`` over the
  ``SOCK_SEQPACKET`` pair) with the bytes read of it so far, and the parlor's uvicorn
  serves it from there as if it had accepted it. Such a connection lasts, reads the
  parlor's memory at every change, and a /play socket must be in the parlor's process
  for the holder to keep it through a restart (docs/design.md, Restarts).
* **anything else** is *asked* of the parlor as one message on the stream pair (method,
  target, headers, the reader's address, body) and answered with the parlor's answer
  (status, headers, body), which the parlor makes with its own Starlette app and page
  copies, without parsing HTTP, writing to a reader's socket or holding its connection.

The bounds are the door's (``[web]``), kept here for the connections held here: the
budget of connections (all, per address, the oldest waiting one closed to make room:
``server/web/budget.py``), a request head of at most :data:`MAX_HEAD` bytes arriving
within ``request_timeout`` seconds, idle connections closed after :data:`KEEP_ALIVE`
seconds, and an answer from the parlor within :data:`ANSWER_TIMEOUT` (else 503).

The front ends when the parlor does: the parlor's end of the stream pair closing is its
signal (a parlor killed with -9 included), and what is being asked then is answered 503.
It imports h11 and the standard library, not the parlor's code (nor Starlette).

    python -m server.web.front '<settings as JSON>'   (by the door, never by hand)
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import os
import signal
import socket
import struct
import sys
import time
from collections import deque
from http import HTTPStatus
from typing import Any

import attrs
import h11

from server import proxy_protocol
from server.changes import reader as changes_reader
from server.web.budget import Budget, proxy_test
from server.web.negotiation import accepts_gzip, matches

log = logging.getLogger("esterport.front")

MAX_HEAD = 16 * 1024          # bytes of a request line and headers (as the parlor's door)
LARGEST_BODY = 64 * 1024      # a request's body (the door's pages take none to speak of)
HANDED_MOST = MAX_HEAD + LARGEST_BODY   # the bytes a handed connection may bring along
KEEP_ALIVE = 5.0              # seconds an idle connection is kept for its next request
# what a handed connection's bytes begin with: which port it came by
PLAIN, RELAYED = b"p", b"h"   # the plain port; the holder's relay of the HTTPS port
ANSWER_TIMEOUT = 30.0         # seconds the parlor has to answer (its pages bound their own)
KEEP_MOST = 0.25              # seconds a page's copy is kept at most (the parlor's REDRAW)
COPIES_MOST = 1024            # copies kept (past it, all are forgotten)
# the front's niceness above the parlor's: on a machine of few cores, page readers then
# take the CPU the players' process leaves, not the CPU it needs
NICENESS = 10
# what a 304 leaves out of the copy's headers
NOT_MODIFIED_LEAVES = frozenset({"content-length", "content-type", "content-encoding"})

# a frame on the stream pair: the lengths of its JSON header and of its body, then both
SIZES = struct.Struct("!II")


def frame(header: dict[str, Any], body: bytes = b"") -> bytes:
    head = json.dumps(header, separators=(",", ":")).encode()
    return SIZES.pack(len(head), len(body)) + head + body


async def read_frame(reader: asyncio.StreamReader) -> tuple[dict[str, Any], bytes]:
    """The next frame: ``(header, body)``. :class:`asyncio.IncompleteReadError` at the end."""
    head_size, body_size = SIZES.unpack(await reader.readexactly(SIZES.size))
    header = json.loads(await reader.readexactly(head_size))
    body = await reader.readexactly(body_size) if body_size else b""
    return header, body


def handed_over(request: h11.Request) -> bool:
    """Whether a request's connection goes to the parlor whole: a live stream, or a
    WebSocket's opening handshake."""
    path = request.target.split(b"?", 1)[0]
    if path.endswith(b"/events"):
        return True
    return any(name == b"upgrade" and b"websocket" in value.lower()
               for name, value in request.headers)


def head_size(request: h11.Request) -> int:
    """About the bytes of a request's line and headers."""
    return len(request.target) + sum(len(name) + len(value) + 4
                                     for name, value in request.headers) + 16


def text_answer(status: int, message: str) -> tuple[int, list[tuple[str, str]], bytes]:
    body = message.encode()
    return status, [("content-type", "text/plain; charset=utf-8"),
                    ("content-length", str(len(body))), ("connection", "close")], body


@attrs.frozen
class Kept:
    """A copy of the parlor's answer to a page request, sent again while the parlor's
    count of changes is ``count`` and it is younger than ``until`` (time.monotonic())."""

    count: int
    until: float
    status: int
    headers: list
    body: bytes
    tag: str

    def not_modified(self) -> tuple[int, list, bytes]:
        return 304, [(n, v) for n, v in self.headers
                     if n.lower() not in NOT_MODIFIED_LEAVES], b""


@attrs.frozen
class Question:
    """A request asked of the parlor: who asked, the key its answer may be kept under,
    and the count of changes and the time when it was asked (a copy of the answer is
    as old as that)."""

    connection: "Connection"
    key: tuple[bytes, bytes, bool] | None
    count: int
    at: float
    # the readers of the same page who came while it was asked: they get its answer too
    also: list["Connection"] = attrs.Factory(list)


class Front:
    """The process's one object: the listener, the links to the parlor, the connections,
    and the copies of the pages the parlor said may be kept.

    A page the parlor drew from its own copies (``Pages.cached``, ``server/web/app.py``)
    comes back with ``keep``: for that long at most, and while nothing the public pages
    show changes (the parlor's count of changes, shared in memory:
    ``server/changes.py``), the same request is answered here, with gzip and 304 as the
    parlor would, and the parlor hears nothing of it."""

    def __init__(self, settings: dict[str, Any]) -> None:
        self.settings = settings
        counter = {"open": 0, "refused": 0}
        self.budget = Budget(counter, settings["total"], settings["share"],
                             settings["per_address"], proxy_test(tuple(settings["proxies"])))
        self.head_timeout = float(settings["head_timeout"])
        self.asking: dict[int, Question] = {}       # by number: what the parlor is asked
        self.numbers = 0
        self.connections: set[Connection] = set()
        self._writer: asyncio.StreamWriter | None = None
        self._hand = socket.socket(fileno=settings["hand"])
        self._hand.setblocking(False)
        self._handing: deque[tuple[bytes, int]] = deque()   # waiting to go, our dups
        self._date = (0, b"")
        self.changes = changes_reader(settings["changes"])
        self.kept: dict[tuple[bytes, bytes, bool], Kept] = {}
        # the question under way for a page, by key: readers of one change share it
        self.asking_for: dict[tuple[bytes, bytes, bool], Question] = {}

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        reader, self._writer = await asyncio.open_unix_connection(
            sock=socket.socket(fileno=self.settings["pages"]))
        listener = socket.socket(fileno=self.settings["listen"])
        # asyncio accepts up to ``backlog`` connections a turn, each a descriptor, before
        # the budget sees any: a small batch, and the kernel's queue deepened after
        servers = [await loop.create_server(lambda: Connection(self), sock=listener,
                                            backlog=self.settings["backlog"])]
        listener.listen(self.settings["deep_backlog"])
        if self.settings.get("relay") is not None:   # the holder's relay of HTTPS
            relay = socket.socket(fileno=self.settings["relay"])
            servers.append(await loop.create_server(lambda: Connection(self, relayed=True),
                                                    sock=relay,
                                                    backlog=self.settings["backlog"]))
            relay.listen(self.settings["deep_backlog"])
        self._writer.write(frame({"ready": os.getpid()}))
        try:
            while True:
                header, body = await read_frame(reader)
                asked = self.asking.pop(header["id"], None)
                if asked is None:   # its connection is gone
                    continue
                if asked.key is not None and self.asking_for.get(asked.key) is asked:
                    del self.asking_for[asked.key]
                copy = Kept(asked.count, asked.at + min(float(header.get("keep") or 0),
                                                        KEEP_MOST),
                            header["status"], header["headers"], body,
                            _header(header["headers"], "etag"))
                if header.get("keep") and asked.key is not None and copy.status == 200:
                    self._keep(asked.key, copy)
                asked.connection.answer_from(copy)
                for joined in asked.also:
                    joined.answer_from(copy)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass   # the parlor is gone: so is its door
        for server in servers:
            server.close()
        for asked in list(self.asking.values()):
            for connection in (asked.connection, *asked.also):
                connection.answer(
                    *text_answer(503, "The parlor is restarting; please try again."))
        for connection in list(self.connections):
            connection.transport.close()
        await asyncio.sleep(0.1)   # the last answers leave

    def ask(self, connection: "Connection", question: dict[str, Any], body: bytes,
            key: tuple[bytes, bytes, bool] | None) -> int:
        """Send a request to the parlor; its answer goes to ``connection`` (and is kept
        as the copy for ``key`` if the parlor says it may be)."""
        self.numbers += 1
        asked = self.asking[self.numbers] = Question(connection, key, self.changes(),
                                                     time.monotonic())
        if key is not None:
            self.asking_for[key] = asked
        assert self._writer is not None
        self._writer.write(frame({"id": self.numbers, **question}, body))
        return self.numbers

    def copy(self, key: tuple[bytes, bytes, bool]) -> Kept | None:
        """The kept copy for ``key``, if it is still what the parlor would answer."""
        kept = self.kept.get(key)
        if kept is None:
            return None
        if kept.count != self.changes() or time.monotonic() >= kept.until:
            del self.kept[key]
            return None
        return kept

    def _keep(self, key: tuple[bytes, bytes, bool], kept: Kept) -> None:
        if len(self.kept) >= COPIES_MOST:
            self.kept.clear()
        self.kept[key] = kept

    def forget(self, number: int) -> None:
        """The connection that asked is gone: its question's answer goes to the readers
        who joined it, if any (one of them takes it over)."""
        asked = self.asking.get(number)
        if asked is None:
            return
        if asked.also:
            self.asking[number] = attrs.evolve(asked, connection=asked.also[0],
                                               also=asked.also[1:])
            asked.also[0].question = number
            if asked.key is not None and self.asking_for.get(asked.key) is asked:
                self.asking_for[asked.key] = self.asking[number]
            return
        del self.asking[number]
        if asked.key is not None and self.asking_for.get(asked.key) is asked:
            del self.asking_for[asked.key]

    def joinable(self, key: tuple[bytes, bytes, bool]) -> Question | None:
        """The question under way for page ``key`` since nothing changed, if any."""
        asked = self.asking_for.get(key)
        if asked is None or asked.count != self.changes():
            return None
        return asked

    def hand(self, fd: int, data: bytes) -> None:
        """Send connection ``fd`` (a duplicate is taken now) to the parlor, with ``data``."""
        self._handing.append((data, os.dup(fd)))
        if len(self._handing) == 1:
            self._flush_hands()

    def _flush_hands(self) -> None:
        loop = asyncio.get_running_loop()
        while self._handing:
            data, fd = self._handing[0]
            try:
                socket.send_fds(self._hand, [data], [fd])
            except (BlockingIOError, InterruptedError):
                loop.add_writer(self._hand.fileno(), self._flush_hands)
                return
            except OSError as err:   # the parlor is gone: the connection ends here
                log.warning("could not hand a connection to the parlor: %s", err)
            self._handing.popleft()
            os.close(fd)
        loop.remove_writer(self._hand.fileno())

    def date(self) -> bytes:
        """The Date header's value, made once a second."""
        now = int(time.time())
        if self._date[0] != now:
            self._date = (now, email.utils.formatdate(now, usegmt=True).encode())
        return self._date[1]


class Connection(asyncio.Protocol):
    """One browser's connection while it is the front's.

    ``relayed``: a connection of the holder's relay of the HTTPS port
    (server/holder/tls_relay.py), which begins with a PROXY line naming the browser: it
    is read first, and the connection is then the browser's, over https."""

    transport: asyncio.Transport

    def __init__(self, front: Front, relayed: bool = False) -> None:
        self.front = front
        self.relayed = relayed
        self.proxy_line: bytearray | None = bytearray() if relayed else None
        self.h11 = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
        self.address = ""
        self.port = 0
        self.counted = False   # in the budget (until lost, or handed to the parlor)
        self.gone = False
        self.read = bytearray()       # the bytes of this request so far (to hand over)
        self.request: h11.Request | None = None
        self.body = bytearray()
        self.question: int | None = None
        self.joined: Question | None = None   # another reader's question, answered with it
        self.timer: asyncio.TimerHandle | None = None
        self.answered = 0             # requests answered on this connection
        self._taking = False          # in _next (an answer from a copy does not re-enter)

    # -- asyncio's callbacks ---------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:  # type: ignore[override]
        self.transport = transport  # type: ignore[assignment]
        self._time(self.front.head_timeout, self._too_slow)
        if self.relayed:
            return   # counted once the PROXY line names the browser
        peer = transport.get_extra_info("peername")
        if isinstance(peer, (tuple, list)) and peer:
            self.address, self.port = str(peer[0]), int(peer[1])
        self._admit()

    def _admit(self) -> None:
        transport = self.transport
        why = self.front.budget.admit(transport, self.address)
        if why is not None:
            self.gone = True
            status, headers, body = text_answer(503, why)
            self._write_last(status, headers + [("retry-after", "10")], body)
            transport.close()
            return
        self.counted = True
        self.front.connections.add(self)
        self.front.budget.wait(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        self.gone = True
        self._time(None)
        self.front.connections.discard(self)
        if self.counted:
            self.front.budget.release(self.transport)
        if self.question is not None:
            self.front.forget(self.question)
        if self.joined is not None and self in self.joined.also:
            self.joined.also.remove(self)

    def data_received(self, data: bytes) -> None:
        if self.gone:
            return
        if self.relayed and not self.counted:
            data = self._proxy_line(data)
            if not data:
                return
        if not self.read and self.request is None and self.answered:
            # the first byte of a request after the first: its head is timed from here
            # (the first one's from the opening of the connection)
            self._time(self.front.head_timeout, self._too_slow)
        self.read += data
        self.h11.receive_data(data)
        self._next()

    def eof_received(self) -> bool | None:
        if not self.gone:
            self.h11.receive_data(b"")
            self._next()
        return None

    def _proxy_line(self, data: bytes) -> bytes:
        """Read the holder's PROXY line (``self.proxy_line`` so far); once it is whole,
        count the connection by the browser's address and return what followed it."""
        assert self.proxy_line is not None
        self.proxy_line += data
        try:
            header = proxy_protocol.parse(bytes(self.proxy_line))
        except proxy_protocol.ProxyError:   # not the holder (the relay's folder is private)
            self.gone = True
            self.transport.close()
            return b""
        if header is proxy_protocol.NEED_DATA:
            return b""
        rest = bytes(self.proxy_line[header.length:])
        del self.proxy_line[header.length:]
        self.address, self.port = header.source or ("", 0)
        self.address = str(self.address)
        self._admit()
        return b"" if self.gone else rest

    # -- the request -----------------------------------------------------------------------
    def _next(self) -> None:
        """Take what h11 has read: a request whole, then its answer."""
        if self._taking:
            return
        self._taking = True
        try:
            self._take()
        finally:
            self._taking = False

    def _take(self) -> None:
        while not self.gone and self.question is None and self.joined is None:
            try:
                event = self.h11.next_event()
            except h11.RemoteProtocolError as err:
                self._fail(err.error_status_hint, "Request line and headers too large."
                           if err.error_status_hint == 431 else "Bad request.")
                return
            if event is h11.NEED_DATA:
                if len(self.read) > HANDED_MOST:
                    self._fail(413, "Request too large.")
                return
            if event is h11.PAUSED:
                return
            if isinstance(event, h11.Request):
                self._time(None)
                self.front.budget.busy(self.transport)
                if head_size(event) > MAX_HEAD:   # h11 bounds only a head still coming
                    self._fail(400, "Request line and headers too large.")
                    return
                if handed_over(event):
                    self._hand_over()
                    return
                self.request, self.body = event, bytearray()
            elif isinstance(event, h11.Data):
                self.body += event.data
                if len(self.body) > LARGEST_BODY:
                    self._fail(413, "Request too large.")
                    return
            elif isinstance(event, h11.EndOfMessage):
                self._ask()
            elif isinstance(event, h11.ConnectionClosed):
                self.transport.close()
                return

    def _hand_over(self) -> None:
        """Give the connection to the parlor with what it sent so far, and forget it."""
        self.transport.pause_reading()
        sock = self.transport.get_extra_info("socket")
        if self.relayed:   # the parlor reads the holder's line first, as from the relay
            self.front.hand(sock.fileno(), RELAYED + bytes(self.proxy_line or b"")
                            + bytes(self.read))
        else:
            self.front.hand(sock.fileno(), PLAIN + bytes(self.read))
        self.front.budget.release(self.transport)
        self.counted, self.gone = False, True
        self.transport.abort()   # our descriptor only: the parlor's duplicate stays open

    def _ask(self) -> None:
        """Answer the request from a kept copy, or ask the parlor."""
        request = self.request
        assert request is not None
        key = None
        if request.method in (b"GET", b"HEAD") and not self.body:
            key = (request.method, request.target,
                   accepts_gzip(_header(request.headers, b"accept-encoding")))
            kept = self.front.copy(key)
            if kept is not None:
                self.answer_from(kept)
                return
        self.transport.pause_reading()   # one request at a time; the next waits its turn
        asked = self.front.joinable(key) if key is not None else None
        if asked is not None:   # asked already, since the last change: its answer will do
            asked.also.append(self)
            self.joined = asked
            self._time(ANSWER_TIMEOUT, self._unanswered)
            return
        question = {
            "method": request.method.decode("ascii", "replace"),
            "target": request.target.decode("latin-1"),
            "version": request.http_version.decode("ascii", "replace"),
            # a page's validator is compared here (answer_from), against the parlor's
            # whole answer, which readers of the same page who come meanwhile share
            "headers": [[name.decode("latin-1"), value.decode("latin-1")]
                        for name, value in request.headers
                        if key is None or name != b"if-none-match"],
            "client": [self.address, self.port],
            "scheme": "https" if self.relayed else "http",
        }
        self.question = self.front.ask(self, question, bytes(self.body), key)
        self._time(ANSWER_TIMEOUT, self._unanswered)

    def answer_from(self, copy: Kept) -> None:
        """Answer with a copy of the parlor's answer to the same request: 304 when the
        request names the copy's tag."""
        if copy.status == 200 and self.request is not None and matches(
                _header(self.request.headers, b"if-none-match"), copy.tag):
            self.answer(*copy.not_modified())
        else:
            self.answer(copy.status, copy.headers, copy.body)

    def answer(self, status: int, headers: list, body: bytes) -> None:
        """The parlor's answer to this connection's request: send it, and go on."""
        self.question = self.joined = None
        self._time(None)
        if self.gone:
            return
        self.answered += 1
        try:
            self._write_whole(status, headers, body)
        except h11.LocalProtocolError as err:   # an answer h11 will not send as it is
            log.warning("the parlor's answer could not be sent: %s", err)
            self.transport.abort()
            return
        if self.h11.our_state is h11.MUST_CLOSE or self.h11.their_state is h11.MUST_CLOSE:
            self.transport.close()
            return
        try:
            self.h11.start_next_cycle()
        except h11.LocalProtocolError:
            self.transport.close()
            return
        self.request, self.body = None, bytearray()
        self.read = bytearray(self.h11.trailing_data[0])
        self.front.budget.wait(self.transport)
        self._time(KEEP_ALIVE if not self.read else self.front.head_timeout,
                   self.transport.close if not self.read else self._too_slow)
        self.transport.resume_reading()
        self._next()

    def _write_whole(self, status: int, headers: list, body: bytes) -> None:
        pairs = self._pairs(headers)
        out = self.h11.send(h11.Response(status_code=status, headers=pairs,
                                         reason=_reason(status)))
        if body and self.request is not None and self.request.method != b"HEAD":
            out += self.h11.send(h11.Data(data=body))
        out += self.h11.send(h11.EndOfMessage())
        self.transport.write(out)

    def _write_last(self, status: int, headers: list, body: bytes) -> None:
        """An answer after which the connection closes, written as HTTP/1.1 outside
        h11's states (a refusal before any request, an error in one)."""
        self.transport.write(b"HTTP/1.1 %d %s\r\n" % (status, _reason(status))
                             + b"".join(n + b": " + v + b"\r\n" for n, v in self._pairs(headers))
                             + b"\r\n" + body)

    def _pairs(self, headers: list) -> list[tuple[bytes, bytes]]:
        pairs = [(name.encode("latin-1"), value.encode("latin-1")) for name, value in headers]
        if not any(name.lower() == b"date" for name, _ in pairs):
            pairs.append((b"date", self.front.date()))
        return pairs

    # -- what ends a connection ------------------------------------------------------------
    def _fail(self, status: int, message: str) -> None:
        """Answer ``status`` if no answer has begun, and close."""
        self._time(None)
        if self.h11.our_state in (h11.IDLE, h11.SEND_RESPONSE):
            self._write_last(*text_answer(status, message))
        self.transport.close()

    def _too_slow(self) -> None:
        """The head did not come whole in time: close at once if nothing came."""
        if not self.read:
            self.transport.close()
        else:
            self._fail(400, "Request line and headers too slow.")

    def _unanswered(self) -> None:
        if self.joined is not None:
            if self in self.joined.also:
                self.joined.also.remove(self)
            self.joined = None
            self._fail(503, "The parlor did not answer in time; please try again.")
            return
        if self.question is not None:
            self.front.forget(self.question)
            self.question = None
            self._fail(503, "The parlor did not answer in time; please try again.")

    def _time(self, seconds: float | None, then: Any = None) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if seconds is not None:
            self.timer = asyncio.get_running_loop().call_later(seconds, then)


def _header(headers: Any, name: str | bytes) -> str:
    """The first value of header ``name`` (lower case) among ``headers``: h11's pairs of
    bytes (``name`` as bytes), or the parlor's of text."""
    for key, value in headers:
        if key.lower() == name:
            return value.decode("latin-1") if isinstance(value, bytes) else value
    return ""


def _reason(status: int) -> bytes:
    try:
        return HTTPStatus(status).phrase.encode()
    except ValueError:
        return b""


def main(argv: list[str]) -> None:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="esterport web front: %(message)s")
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # a terminal's ^C is the parlor's to act on
    os.nice(NICENESS)
    settings = json.loads(argv[1])
    asyncio.run(Front(settings).run())


if __name__ == "__main__":
    main(sys.argv)
