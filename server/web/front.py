"""The web door's front: a process of its own that speaks HTTP to browsers, so that the
players' event loop does not.

Serving a page is mostly HTTP: reading the request, routing it, writing the answer to the
reader's socket (about 300 µs of CPU a page, of which drawing the page, once per change,
is little). In the parlor's process that CPU was the players': 50 readers of ``/`` kept a
move's live board waiting 150 ms and more. So ``esterport serve`` serves the web door's
plain port from this process (``[web] front = true``), started by the door
(:class:`~server.web.front_link.FrontLink`, the parlor's end) with three descriptors: the
listening socket, and two socket pairs to the parlor.

Requests are read with httptools (llhttp, uvicorn's C parser) and answers written as
plain bytes: with h11 (pure Python) reading and writing took most of the front's CPU, and
a page cost the front and the parlor about 350 µs together; it is now about 150 µs
(``bench/web.py``). What it does with each request:

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
It imports httptools and the standard library, not the parlor's code (nor Starlette).

    python -m server.web.front '<settings as JSON>'   (by the door, never by hand)
"""

from __future__ import annotations

import asyncio
import email.utils
import functools
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
import httptools

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
RESTART_RETRY = 2             # Retry-After of what was asked as the parlor went (a reload: ~1 s)
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


class Request:
    """A request read whole (its headers' names in lower case)."""

    __slots__ = ("method", "target", "version", "headers", "body", "keep_alive")

    def __init__(self, method: bytes, target: bytes, version: str,
                 headers: list[tuple[bytes, bytes]]) -> None:
        self.method, self.target, self.version, self.headers = method, target, version, headers
        self.body = b""
        self.keep_alive = True


def handed_over(request: Request) -> bool:
    """Whether a request's connection goes to the parlor whole: a live stream, or a
    WebSocket's opening handshake."""
    path = request.target.split(b"?", 1)[0]
    if path.endswith(b"/events"):
        return True
    return any(name == b"upgrade" and b"websocket" in value.lower()
               for name, value in request.headers)


class Refusal(Exception):
    """Raised in a parser's callback: the request is answered ``status`` and the
    connection closed."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


class HandOver(Exception):
    """Raised in a parser's callback: the request's connection goes to the parlor."""


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
        status, headers, body = text_answer(503, "The parlor is restarting; please try again.")
        headers.append(("retry-after", str(RESTART_RETRY)))
        for asked in list(self.asking.values()):
            for connection in (asked.connection, *asked.also):
                connection.answer(status, headers, body)
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
    is read first, and the connection is then the browser's, over https.

    The parser's callbacks (``on_*``) gather each request; whole ones wait in ``waiting``
    and are answered one at a time, in order (requests sent together included)."""

    transport: asyncio.Transport

    def __init__(self, front: Front, relayed: bool = False) -> None:
        self.front = front
        self.relayed = relayed
        self.proxy_line: bytearray | None = bytearray() if relayed else None
        self.parser = httptools.HttpRequestParser(self)
        self.address = ""
        self.port = 0
        self.counted = False   # in the budget (until lost, or handed to the parlor)
        self.gone = False
        # the bytes read since nothing was left to answer (what a hand-over sends along),
        # and the requests begun in them
        self.read = bytearray()
        self.begun = 0
        self.waiting: deque[Request] = deque()   # read whole, not answered yet
        self.request: Request | None = None      # the one being answered
        self.reading: Request | None = None      # the one being read (its head whole)
        self.partial = False                     # a request begun and not read whole
        self._target = b""
        self._headers: list[tuple[bytes, bytes]] = []
        self._head = 0                           # about the bytes of its line and headers
        self._body = bytearray()
        self.question: int | None = None
        self.joined: Question | None = None   # another reader's question, answered with it
        self.timer: asyncio.TimerHandle | None = None
        self.answered = 0             # requests answered on this connection
        self.paused = False           # reading paused while the parlor is asked
        self.ending = False           # unreadable bytes came: close after what was read
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
            self._write(status, headers + [("retry-after", "10")], body)
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
        if not self.partial and not self.waiting and self.request is None:
            # a request begins: what a hand-over would send begins here. Its head is
            # timed from its first byte (the first request's, from the opening)
            self.read, self.begun = bytearray(), 0
            if self.answered:
                self._time(self.front.head_timeout, self._too_slow)
        self.read += data
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            pass   # an upgrade to anything but a WebSocket: answered as any request
        except httptools.HttpParserCallbackError as err:
            why = err.__context__
            if isinstance(why, HandOver):
                self._hand_over()
            elif isinstance(why, Refusal):
                self._fail(why.status, why.message)
            else:
                log.error("reading a request failed", exc_info=why)
                self._fail(500, "The front could not read the request.")
            return
        except httptools.HttpParserError:
            if not self.waiting and self.request is None:
                self._fail(400, "Bad request.")
                return
            # what came whole before the bad bytes (or bytes sent after a request that
            # closes the connection) is answered, and then the connection closes
            self.ending = True
            self._pause()
        else:
            if self.partial and len(self.read) > (HANDED_MOST if self.reading else MAX_HEAD):
                # (a header still coming is not in ``_head`` yet)
                if self.reading:
                    self._fail(413, "Request too large.")
                else:
                    self._fail(431, "Request line and headers too large.")
                return
        self._next()

    def eof_received(self) -> bool | None:
        return None   # the transport closes; a question under way is forgotten

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

    # -- the parser's callbacks ------------------------------------------------------------
    def on_message_begin(self) -> None:
        self.partial = True
        self.begun += 1
        self.reading = None
        self._target, self._headers, self._head, self._body = b"", [], 16, bytearray()

    def on_url(self, url: bytes) -> None:
        self._target += url
        self._grow(len(url))

    def on_header(self, name: bytes, value: bytes) -> None:
        self._headers.append((name.lower(), value))
        self._grow(len(name) + len(value) + 4)

    def _grow(self, size: int) -> None:
        self._head += size
        if self._head > MAX_HEAD:
            raise Refusal(431, "Request line and headers too large.")

    def on_headers_complete(self) -> None:
        parser = self.parser
        request = self.reading = Request(parser.get_method(), self._target,
                                         parser.get_http_version(), self._headers)
        self._time(None)
        self.front.budget.busy(self.transport)
        if handed_over(request):
            if self.begun > 1 or self.waiting or self.request is not None:
                # sent behind other requests in one breath: not worth a hand-over's care
                raise Refusal(400, "Bad request.")
            raise HandOver

    def on_body(self, body: bytes) -> None:
        self._body += body
        if len(self._body) > LARGEST_BODY:
            raise Refusal(413, "Request too large.")

    def on_message_complete(self) -> None:
        request = self.reading
        assert request is not None
        request.body = bytes(self._body)
        request.keep_alive = self.parser.should_keep_alive()
        self.waiting.append(request)
        self.partial, self.reading = False, None

    # -- the request -----------------------------------------------------------------------
    def _next(self) -> None:
        """Answer the next request read whole, unless one is being answered."""
        if self._taking:
            return
        self._taking = True
        try:
            while (not self.gone and self.request is None and self.waiting):
                self.request = self.waiting.popleft()
                self._ask()
        finally:
            self._taking = False

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
        if request.method in (b"GET", b"HEAD") and not request.body:
            key = (request.method, request.target,
                   accepts_gzip(_header(request.headers, b"accept-encoding")))
            kept = self.front.copy(key)
            if kept is not None:
                self.answer_from(kept)
                return
        self._pause()   # one request at a time; the next waits its turn
        asked = self.front.joinable(key) if key is not None else None
        if asked is not None:   # asked already, since the last change: its answer will do
            asked.also.append(self)
            self.joined = asked
            self._time(ANSWER_TIMEOUT, self._unanswered)
            return
        question = {
            "method": request.method.decode("ascii", "replace"),
            "target": request.target.decode("latin-1"),
            "version": request.version,
            # a page's validator is compared here (answer_from), against the parlor's
            # whole answer, which readers of the same page who come meanwhile share
            "headers": [[name.decode("latin-1"), value.decode("latin-1")]
                        for name, value in request.headers
                        if key is None or name != b"if-none-match"],
            "client": [self.address, self.port],
            "scheme": "https" if self.relayed else "http",
        }
        self.question = self.front.ask(self, question, request.body, key)
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
        request, self.request = self.request, None
        if self.gone:
            return
        self.answered += 1
        named = {name.lower(): value for name, value in headers}   # (the headers read once)
        closing = named.get("connection", "").lower() == "close"   # the answer says so
        keep = request is not None and request.keep_alive and not closing \
            and not (self.ending and not self.waiting)
        if request is not None and (request.method == b"HEAD" or status in (204, 304)):
            body = b""   # (its length stays in the headers: a HEAD's is the page's)
        elif "content-length" not in named:
            headers = [*headers, ("content-length", str(len(body)))]
        if not keep and not closing:
            headers = [*headers, ("connection", "close")]
        self._write(status, headers, body, dated="date" in named)
        if not keep:   # (and no answer to anything sent after it)
            self.gone = True
            self.transport.close()
            return
        self.front.budget.wait(self.transport)
        if not self.waiting:   # (a request read whole is answered at once, below)
            if self.partial:
                self._time(self.front.head_timeout, self._too_slow)
            else:
                self._time(KEEP_ALIVE, self.transport.close)
        if self.paused and not self.ending:
            self.paused = False
            self.transport.resume_reading()
        self._next()

    def _pause(self) -> None:
        if not self.paused:
            self.paused = True
            self.transport.pause_reading()

    def _write(self, status: int, headers: list, body: bytes, dated: bool | None = None
               ) -> None:
        """Write an answer: the status line, ``headers`` (pairs of text) with a Date
        unless they have one (``dated``: whether they do, when the caller knows), and
        ``body``."""
        if dated is None:
            dated = any(name.lower() == "date" for name, _ in headers)
        date = b"" if dated else b"date: " + self.front.date() + b"\r\n"
        self.transport.write(b"HTTP/1.1 %d %s\r\n" % (status, _reason(status))
                             + "".join(f"{n}: {v}\r\n" for n, v in headers).encode("latin-1")
                             + date + b"\r\n" + body)

    # -- what ends a connection ------------------------------------------------------------
    def _fail(self, status: int, message: str) -> None:
        """Answer ``status`` and close."""
        self._time(None)
        self.gone = True
        self._write(*text_answer(status, message))
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
    """The first value of header ``name`` (lower case) among ``headers``: a request's
    pairs of bytes (``name`` as bytes), or the parlor's of text."""
    for key, value in headers:
        if key.lower() == name:
            return value.decode("latin-1") if isinstance(value, bytes) else value
    return ""


@functools.lru_cache(maxsize=64)
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
