"""The telnet connection: which options the server speaks, and what a client may cost.

telnetlib3 does the protocol; this module decides the policy around it, in one place:

* **Options.** No BINARY offer (Debian's telnet then staircases every reply), UTF-8 both
  ways for every client whatever it negotiates (a CHARSET a client names is never used
  to decode or encode: a bogus or non-ASCII-compatible one would crash the session), and
  nothing a client sends is ever inflated: MCCP3 is refused, and a client's MCCP3 start
  (``IAC SB 87 IAC SE``, which telnetlib3 obeys unasked) is ignored (65 KB of zlib became
  64 MiB of input and froze the server).
* **Compression of what the server sends** (MCCP2, ``[server] mccp``: :class:`Compression`)
  is offered on a plain TCP connection only (never over TLS, the holder's TLS relay or
  /play). Its memory is bounded: a small window, and no compressor while a connection is
  quiet (the stream ends after ``mccp_idle`` seconds without output; the next output
  starts a new one). At a reload's hand-over the stream ends and the option is given up,
  so the next parlor begins plain and offers it again (:meth:`TelnetProtocol.hand_over`).
* **Input costs time linear in the bytes received.** :class:`LineReader` hands the
  session everything buffered in one decode (telnetlib3's reader re-decoded the whole
  buffer on every ``read(4096)`` and popped it a byte at a time: quadratic). A packet of
  plain text (what a player types) goes straight to the reader, without telnetlib3's
  walk of it byte by byte (:meth:`TelnetProtocol._plain`).
* **Backpressure.** The socket is read no faster than the session takes lines: the
  reader pauses it while it holds more than twice its limit.
* **Bounds.** A subnegotiation (``IAC SB`` … ``IAC SE``) longer than
  ``max_subnegotiation`` closes the connection before telnetlib3 walks it byte by byte;
  a connection that has not logged in may send at most ``prelogin_bytes``; the whole
  server accepts at most ``max_connections`` at once (below the descriptor limit); when
  full, the connection that has not logged in and has been silent longest makes room
  (held idle connections cannot keep players out), and only when there is none is a
  newcomer refused, politely.
* **Dead peers** are found by TCP keepalive (see :class:`TelnetProtocol`).
* **Proxies.** A connection from one of ``[server] trusted_proxies`` (HAProxy's
  ``send-proxy-v2``) must begin with a PROXY protocol header, read before telnetlib3 sees
  a byte; its client's address is then the connection's ``peername`` (per-address caps,
  login throttles, logs). From anyone else, a connection that begins with a PROXY header
  is closed (a balancer missing from ``trusted_proxies``); later, the same bytes are text.
"""

from __future__ import annotations

import asyncio
import codecs
import functools
import logging
import re
import resource
import socket
import sys
import time
import zlib
from typing import Any, Callable, Iterable

import attrs
import telnetlib3
from telnetlib3.stream_reader import TelnetReaderUnicode
from telnetlib3.stream_writer import TelnetWriterUnicode
from telnetlib3 import slc
from telnetlib3.server_base import logger as _TELNET_LOG
from telnetlib3.accessories import TRACE

from telnetlib3.telopt import (BINARY, DO, ECHO, GA, GMCP, IAC as IAC_BYTE, LINEMODE,
                              MCCP2_COMPRESS, MSSP, NAWS, SGA, TTYPE, WILL, WONT)

from server import proxy_protocol

log = logging.getLogger(__name__)

IAC, SB, SE = 255, 250, 240
_IAC_SE = bytes([IAC, SE])
MCCP2 = MCCP2_COMPRESS  # telnet option 86: the server compresses what it sends
MCCP2_START = bytes([IAC, SB, MCCP2[0], IAC, SE])  # every byte after it is in the stream
FULL = "Esterport is full right now; please try again in a few minutes.\r\n".encode()
EVICTED = ("Esterport is full; connections that have not logged in make room first. "
           "Please connect again.\r\n").encode()
EVICT_AFTER = 1.0  # seconds a pre-login connection must have been silent to make room
DESCRIPTOR_HEADROOM = 64  # descriptors kept for the database, logs and the listener
PROXY_WAIT = 5.0  # seconds a trusted proxy has to send its PROXY header
# Connections the loop accepts in one turn (asyncio's default ``backlog``): each is a
# descriptor before the caps see it (in ``connection_made``, a turn later), so a burst
# never takes more than this many at once past them. The kernel's queue is deeper:
# ``[server] backlog`` (:func:`listen_backlog`).
ACCEPT_BATCH = 100


def connection_cap(configured: int) -> int:
    """The most connections to accept at once: ``configured`` (0: as many as the
    descriptor limit allows), but always below the soft RLIMIT_NOFILE with room for the
    database, the log and the listening sockets."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    room = max(1, soft - max(DESCRIPTOR_HEADROOM, soft // 10)) \
        if soft != resource.RLIM_INFINITY else 1 << 20
    return min(configured, room) if configured > 0 else room


def listen_backlog(sockets: Iterable[Any], backlog: int) -> None:
    """Let the kernel hold up to ``backlog`` connections for each of a listener's
    ``sockets`` until the server accepts them (``[server] backlog``; Linux caps it at
    net.core.somaxconn).

    asyncio takes one number for two things: the listen(2) backlog and how many
    connections it accepts in one turn of the loop. Listeners are made with
    :data:`ACCEPT_BATCH` for both (telnetlib3 passes no backlog on); this deepens only the
    kernel's queue, by calling listen(2) again on the same socket (through a duplicate of
    its descriptor). With asyncio's 100, a burst of 1,000 connects left 278 clients never
    accepted: the kernel dropped what did not fit."""
    for listening in sockets:
        with socket.fromfd(listening.fileno(), listening.family, listening.type) as same:
            same.listen(backlog)


@attrs.frozen
class Compression:
    """How the telnet port compresses what it sends to a client that agreed to MCCP2
    (``[server] mccp_*``): zlib's ``level``, its window of ``2 ** window_bits`` bytes and
    its ``mem_level``; a stream that has sent nothing for ``idle`` seconds ends (0: never).

    A compressor holds ``(1 << (window_bits + 2)) + (1 << (mem_level + 9))`` bytes (zlib's
    own formula) and about 6 KB of state besides, for as long as its stream is open, and
    nothing once it has ended. A window of 4 KB holds the board or page sent before,
    which the next one mostly repeats. bench/mccp_memory.py: an idle session with a stream
    open costs 22 KiB more than a plain one (9 KiB), telnetlib3's own level 9 and
    memLevel 5 cost 35 KiB more, for 4.3 and 4.4 to 1 on a run of commands."""

    level: int = 6
    window_bits: int = 12
    mem_level: int = 2
    idle: float = 60.0

    @classmethod
    def from_config(cls, server: Any) -> "Compression | None":
        """The settings of a ``[server]`` section; None when ``mccp`` is off."""
        if not server.mccp:
            return None
        return cls(server.mccp_level, server.mccp_window_bits, server.mccp_mem_level,
                   server.mccp_idle)

    def compressor(self) -> Any:
        return zlib.compressobj(self.level, zlib.DEFLATED, self.window_bits, self.mem_level)


class LineReader(TelnetReaderUnicode):
    """A reader whose ``read`` takes the whole buffer in one decode.

    Always UTF-8 (invalid bytes replaced), whatever the client negotiated; an incremental
    decoder keeps a character split between two TCP segments whole."""

    def decode(self, buf: bytes, final: bool = False) -> str:  # noqa: D102
        decoder = self._decoder
        if decoder is None:
            if buf.isascii():  # no character begun before, none split here: the same text
                return buf.decode("ascii")
            decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        text = decoder.decode(buf, final)
        # kept only while it holds part of a character (216 bytes an idle connection)
        self._decoder = decoder if decoder.getstate()[0] else None
        return text

    async def read(self, n: int = -1) -> str:  # noqa: ARG002 - everything buffered
        if self._exception is not None:
            raise self._exception
        if not self._buffer and not self._eof:
            # telnetlib3's _wait_for_data, inline: an idle session waits here, and one
            # coroutine less in its wait is 216 bytes less
            if self._waiter is not None:
                raise RuntimeError("read() called while another read waits for data")
            if self._paused:
                self._paused = False
                self._transport.resume_reading()
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        data = bytes(self._buffer)
        self._buffer.clear()
        self._maybe_resume_transport()
        return self.decode(data, final=not data and self._eof)

    def discard(self) -> bool | None:
        """Drop everything buffered unread (a flood), and read the socket again. Whether
        what was dropped ended inside a line (None: nothing was buffered)."""
        if not self._buffer:
            return None
        cut = self._buffer[-1] not in b"\r\n"
        self._buffer.clear()
        self._maybe_resume_transport()
        return cut

    # -- waiting without a task (TelnetProtocol.when_input) ------------------------------
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # set here, in every reader, so that setting them later keeps the attribute dict
        # one that shares its keys with every other reader's (a key added later made
        # each waiting reader's dict its own: 830 bytes)
        self._wake: Callable[[Any], None] | None = None  # called once input or its end
        self._wake_with: Any = None                      # arrives, with this

    def when_input(self, wake: Callable[[Any], None], with_: Any) -> bool:
        """Call ``wake(with_)`` once input, its end or an error arrives; False, and nothing
        kept, when one is here already (read it now)."""
        if self._buffer or self._eof or self._exception is not None:
            return False
        self._wake, self._wake_with = wake, with_
        return True

    def wake(self) -> None:
        """Make the call ``when_input`` keeps (if any) now, and forget it."""
        wake, with_ = self._wake, self._wake_with
        if wake is not None:
            self._wake = self._wake_with = None
            wake(with_)

    def _wakeup_waiter(self) -> None:  # telnetlib3: data or the end arrived
        super()._wakeup_waiter()
        self.wake()

    def set_exception(self, exc: Exception) -> None:  # telnetlib3: the connection failed
        super().set_exception(exc)
        self.wake()


class _HandlerTable:
    """One of telnetlib3's five handler tables of a writer (command byte → callable),
    kept light.

    telnetlib3 gives every connection five dicts of about fifty bound methods, the same
    for every connection: 5 KB, a third of an idle connection. Here a table is a view
    (:class:`_Handlers`): a handler that is a method of the writer or of its protocol is
    named once per class (learnt from the first connection, :meth:`Writer.compact`) and
    bound when looked up. Until ``compact`` the table is telnetlib3's own dict."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.table = name

    def __get__(self, writer: Any, owner: type | None = None) -> Any:
        if writer is None:
            return self
        raw = writer.__dict__.get(self.table)
        return raw if raw is not None else _Handlers(writer, self.table)

    def __set__(self, writer: Any, value: dict) -> None:  # telnetlib3's __init__
        writer.__dict__[self.table] = value


class _Handlers:
    """A writer's handler table as a mapping, looked up by name (see
    :class:`_HandlerTable`). A handler that is not the class's (none, for a parlor
    session) is the connection's own, in ``writer._own_handlers``."""

    __slots__ = ("writer", "table")

    def __init__(self, writer: "Writer", table: str) -> None:
        self.writer, self.table = writer, table

    def _named(self, key: bytes) -> Callable[..., Any]:
        writer = self.writer
        holder, name = writer._names[self.table][key]  # KeyError: no handler
        return getattr(writer if holder == "writer" else writer._protocol, name)

    def __getitem__(self, key: bytes) -> Callable[..., Any]:
        own = self.writer._own_handlers
        if own and (self.table, key) in own:
            return own[self.table, key]
        return self._named(key)

    def __contains__(self, key: object) -> bool:
        own = self.writer._own_handlers
        return bool(own and (self.table, key) in own) or key in self.writer._names[self.table]

    def get(self, key: bytes, default: Any = None) -> Any:
        return self[key] if key in self else default

    def __setitem__(self, key: bytes, func: Callable[..., Any]) -> None:
        writer = self.writer
        own = writer._own_handlers
        if own:
            own.pop((self.table, key), None)
        if key in writer._names[self.table] and self._named(key) == func:
            return  # the class's own handler: nothing to keep
        if own is None:
            own = writer._own_handlers = {}
        own[self.table, key] = func

    def clear(self) -> None:  # the connection closed: nothing resolves any more
        self.writer._names = _CLOSED
        self.writer._own_handlers = None


_CLOSED: dict = {table: {} for table in ("_iac_callback", "_slc_callback", "_ext_callback",
                                         "_ext_send_callback", "_ext_offer_callback")}


class _Options(dict):
    """telnetlib3's ``Option`` table (option → state) without a per-table dict of
    attributes: a state change wakes the writer's waiters, as there. On the table of
    this end's options (``local``), an option turned on is told to the protocol's
    ``on_agreed``."""

    __slots__ = ("writer", "local")

    def __init__(self, writer: "Writer", states: dict, local: bool = False) -> None:
        super().__init__(states)
        self.writer, self.local = writer, local

    def enabled(self, key: bytes) -> bool:
        return self.get(key) is True

    def __setitem__(self, key: bytes, value: bool) -> None:
        was = self.get(key)
        dict.__setitem__(self, key, value)
        writer = self.writer
        if writer is None:  # the connection was released (TelnetProtocol.release)
            return
        if writer._waiters:
            writer._check_waiters()
        if self.local and value is True and was is not True and writer._protocol is not None:
            writer._protocol.on_agreed(key)


class _Buffer(list):
    """A subnegotiation buffer: the ``deque`` telnetlib3 uses costs 760 bytes empty,
    and every connection holds two; this list costs 56."""

    __slots__ = ()

    def popleft(self) -> Any:
        return self.pop(0)


class _Made:
    """An attribute of a connection made only when first read (most never read it)."""

    def __init__(self, make: Callable[[Any], Any]) -> None:
        self.make = make

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.make(obj)
        return value


_NONE: frozenset = frozenset()
_SETTLED: list[asyncio.Future] = []


def _cork(transport: asyncio.BaseTransport, on: bool) -> None:
    """Hold what is written to a TCP connection in the kernel until ``on`` is False
    (``TCP_CORK``; Linux sends it anyway after 200 ms): many small writes leave as one
    segment, and the client wakes once. Nothing on a socket that is not TCP."""
    sock = transport.get_extra_info("socket")
    cork = getattr(socket, "TCP_CORK", None)
    if sock is None or cork is None or sock.family not in (socket.AF_INET, socket.AF_INET6):
        return
    try:
        sock.setsockopt(socket.IPPROTO_TCP, cork, int(on))
    except OSError:
        pass


def _settled() -> asyncio.Future:
    """One finished future, shared by every logged-in connection in place of its own
    finished negotiation waiters (telnetlib3 only asks them whether they are done)."""
    if not _SETTLED:
        done = asyncio.get_running_loop().create_future()
        done.set_result(None)
        _SETTLED.append(done)
    return _SETTLED[0]
_PLAIN = (type(None), bool, int, float, str, bytes)


def _without_defaults(obj: Any, shared: tuple[str, ...] = ()) -> None:
    """Rebuild ``obj``'s attribute dict without what every connection holds alike: the
    plain values (None, flags, numbers, strings) and the objects named in ``shared``
    (the loop, the logger, the factories). Those become class attributes of its class,
    learnt from its first connection, and read the same; an attribute set later is the
    connection's own again.

    telnetlib3's writer and protocol hold some 60 and 45 attributes each, past the 30
    a dict shares its keys for, so each connection paid a full dict of 1.6 KB; most of
    those attributes keep their first value for the connection's life."""
    cls = type(obj)
    defaults = cls.__dict__.get("_learnt_defaults")
    if defaults is None:
        defaults = {k: v for k, v in vars(obj).items()
                    if (type(v) in _PLAIN or k in shared) and not hasattr(cls, k)}
        for name, value in defaults.items():
            setattr(cls, name, value)
        cls._learnt_defaults = defaults

    def alike(name: str, value: Any) -> bool:
        if name not in defaults:
            return False
        default = defaults[name]
        return value is default or (type(value) in _PLAIN and type(value) is type(default)
                                    and value == default)

    obj.__dict__ = {k: v for k, v in vars(obj).items() if not alike(k, v)}


class Writer(TelnetWriterUnicode):
    """telnetlib3's writer, with a malformed subnegotiation refused quietly, and light.

    A handler that fails on a client's bytes (a NAWS of three bytes makes ``struct``
    raise) was logged by telnetlib3 as a traceback of a dozen warning lines, per
    subnegotiation: 1.2 KB of them wrote 53 KB of log. Refused as a ``ValueError``, it
    is one debug line, like every other bad byte.

    Light: telnetlib3 built about 19 KB of tables per connection, most of them alike
    for every connection. :meth:`compact` (once the protocol has wired its handlers)
    makes the handler tables views named per class (:class:`_HandlerTable`), the option
    tables slotted dicts and the subnegotiation buffers lists; the client-side option
    policies (``always_*``, ``passive_do``) and the character table are the class's;
    the refusal sets, the session context and the LINEMODE state are made when first
    used. At login the protocol drops what is still alike (``_without_defaults``)."""

    always_will = always_do = always_wont = always_dont = passive_do = _NONE
    rejected_will = _Made(lambda w: set())
    rejected_do = _Made(lambda w: set())
    directional_refusals = _Made(lambda w: set())
    will_callbacks = _Made(lambda w: {})
    _environ_batches = _Made(lambda w: [])
    ctx = _Made(lambda w: telnetlib3.TelnetSessionContext())
    _linemode = _Made(lambda w: slc.Linemode())
    slctab = slc.generate_slctab(TelnetWriterUnicode.default_slc_tab)  # read-only here:
    # a connection gets its own copy only when it negotiates LINEMODE (``_own_slctab``)
    _iac_callback = _HandlerTable()
    _slc_callback = _HandlerTable()
    _ext_callback = _HandlerTable()
    _ext_send_callback = _HandlerTable()
    _ext_offer_callback = _HandlerTable()
    _HANDLER_TABLES = tuple(_CLOSED)
    _names: dict[str, dict[bytes, tuple[str, str]]] | None = None  # learnt: see compact
    _own_handlers: dict[tuple[str, bytes], Callable[..., Any]] | None = None

    def compact(self) -> None:
        """Share what every connection holds alike (see the class's docstring)."""
        for name in ("always_will", "always_do", "always_wont", "always_dont", "passive_do",
                     "rejected_will", "rejected_do", "directional_refusals", "will_callbacks",
                     "_environ_batches"):
            if not self.__dict__[name]:
                del self.__dict__[name]  # the class's (shared) one, or made when needed
        for name in ("slctab", "ctx", "_linemode"):  # as they began: made again when needed
            del self.__dict__[name]
        self._sb_buffer = _Buffer(self._sb_buffer)
        self._slc_buffer = _Buffer(self._slc_buffer)
        for name in ("pending_option", "local_option", "remote_option"):
            setattr(self, name, _Options(self, getattr(self, name), name == "local_option"))
        cls = type(self)
        if cls._names is None:
            cls._names = {table: {key: holder for key, func in self.__dict__[table].items()
                                  if (holder := self._holder(func)) is not None}
                          for table in self._HANDLER_TABLES}
        for table in self._HANDLER_TABLES:
            raw = self.__dict__.pop(table)
            view = _Handlers(self, table)
            for key, func in raw.items():
                view[key] = func

    def _holder(self, func: Any) -> tuple[str, str] | None:
        """("writer" or "protocol", method name) for a method of this connection's
        writer or protocol; None for any other callable."""
        owner, name = getattr(func, "__self__", None), getattr(func, "__name__", "")
        if owner is self and getattr(type(self), name, None) is func.__func__:
            return ("writer", name)
        if owner is not None and owner is self._protocol \
                and getattr(type(owner), name, None) is func.__func__:
            return ("protocol", name)
        return None

    def _own_slctab(self) -> None:
        """LINEMODE changes the character table: this connection's own copy, then."""
        if "slctab" not in self.__dict__:
            self.slctab = slc.generate_slctab(self.default_slc_tab)

    def handle_will(self, opt: bytes) -> None:  # noqa: D102
        if opt == LINEMODE:
            self._own_slctab()
        super().handle_will(opt)
        if opt == TTYPE:
            self._answered()

    def handle_wont(self, opt: bytes) -> None:  # noqa: D102
        super().handle_wont(opt)
        if opt == TTYPE:
            self._answered()

    def _answered(self) -> None:
        """The client answered DO TTYPE: it speaks telnet. One that answered only after
        its session began (a browser on a busy machine, a slow link) is offered the MUD
        protocols now (``Session.offer_mud_protocols`` skipped them)."""
        session = getattr(self._protocol, "session", None)
        if session is not None:
            session.offer_mud_protocols(late=True)

    def handle_do(self, opt: bytes) -> bool:
        """DO MCCP2 is agreed where the connection may compress (the protocol says;
        telnetlib3, told ``compression=False``, would refuse it), refused elsewhere.
        Everything else is telnetlib3's (MCCP3 stays refused)."""
        if opt != MCCP2:
            return super().handle_do(opt)
        protocol = self._protocol
        if protocol is None or not protocol.may_compress:
            self.iac(WONT, opt)
            return False
        if not self.local_option.enabled(opt):
            self.iac(WILL, opt)  # (not sent again while the offer waits for this answer)
        return True

    def handle_dont(self, opt: bytes) -> None:
        """DONT MCCP2: the client wants plain text again; the stream ends (MCCP2 says
        the server stops compressing)."""
        if opt == MCCP2 and self._protocol is not None:
            self._protocol.stop_compressing()
        super().handle_dont(opt)

    def handle_subnegotiation(self, buf: Any) -> None:  # noqa: D102
        if buf and buf[0] == LINEMODE:
            self._own_slctab()
        try:
            super().handle_subnegotiation(buf)
        except ValueError:
            raise
        except Exception as err:  # the client's bytes, not our bug
            raise ValueError(f"malformed subnegotiation ({type(err).__name__})") from None


_AGREED = {GMCP: "gmcp", MSSP: "mssp"}  # the options a session is told a client agreed to


class TelnetProtocol(telnetlib3.TelnetServer):
    """telnetlib3's server protocol with Esterport's option policy and bounds, and the
    session's terminal (:class:`server.terminal.Terminal`).

    ``Parlor.start`` makes a subclass with the configured values (class attributes), and
    one shared ``counter`` of open connections.

    Keepalive: a client whose network vanished leaves a half-open socket. After
    ``keepalive`` seconds of silence the kernel probes the peer every third of that,
    three times, and gives up; output that stays unacknowledged for twice ``keepalive``
    gives up too (TCP_USER_TIMEOUT). Either way the connection ends within about twice
    ``keepalive`` and the session is freed as after any disconnect."""

    keepalive = 60
    max_subnegotiation = 8192
    prelogin_bytes = 65536
    max_connections = 1 << 20
    counter: dict[str, int] = {"open": 0, "refused": 0}
    # connections not logged in yet, oldest first: the first to go when the server is full
    prelogin: dict["TelnetProtocol", None] = {}
    on_refused: Callable[[], None] | None = None
    proxies: tuple[str, ...] = ()  # [server] trusted_proxies
    proxy_wait = PROXY_WAIT
    holder: Any = None  # a held parlor's HolderLink (server/holder): it keeps each socket
    held: int | None = None    # the holder's number for this connection
    carried: Any = None  # a connection a new parlor carries on (server.holder.messages.Carried)
    compression: Compression | None = None  # [server] mccp: MCCP2 offered (None: not)
    _deflate: Any = None   # the open MCCP2 stream's compressor (None: no stream open)
    _deflate_timer: asyncio.TimerHandle | None = None  # ends the stream once it is quiet
    _wrote_at = 0.0        # when the stream last carried output (time.monotonic)
    released = False       # its shell has ended and let go of it (``release``)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["reader_factory_encoding"] = LineReader
        kwargs["writer_factory_encoding"] = Writer
        super().__init__(*args, **kwargs)
        self._drain_waiters = []  # asyncio's is a deque (760 bytes); appended, removed and
        # walked only, as a list is
        self.refused = False
        self._logged_in = False
        self.session: Any = None  # the connection's session, once its shell runs: told
        # when the connection is lost, when the client agrees to an option, and its GMCP
        self._received = 0
        self._heard = time.monotonic()  # when the client last sent a byte (before login)
        self._received_at = self._heard  # when it last sent a byte (``idle``)
        self._in_sb = False
        self._sb_len = 0
        self._tail_iac = False        # the last chunk ended with IAC
        self._proxy_header: bytearray | None = None  # a trusted proxy's header so far
        self._proxy_timer: asyncio.TimerHandle | None = None
        # the client's window as NAWS last said (else the listener's default): the session
        # reads it on every long reply, so it is kept here rather than asked for through
        # the writer's extra-info chain
        self.cols, self.rows = self.get_extra_info("cols"), self.get_extra_info("rows")

    def on_naws(self, rows: int, cols: int) -> None:
        super().on_naws(rows, cols)
        self.cols, self.rows = cols, rows
        self._tell_holder()  # a new parlor keeps the window

    def _tell_holder(self) -> None:
        """In a held parlor, send the holder what a new parlor would need of this
        connection now (its window, whether an MCCP2 stream is open)."""
        if self.held is not None and self.holder is not None and self.session is not None:
            self.holder.update(self.held, self.session)

    @property
    def logged_in(self) -> bool:
        """Set by the session: no pre-login budget any more, and never evicted."""
        return self._logged_in

    @logged_in.setter
    def logged_in(self, value: bool) -> None:
        self._logged_in = value
        if value:
            self.prelogin.pop(self, None)
            # settled: what negotiation and the login set is set; the rest is as it began
            if self.writer is not None:
                writer = self.writer  # options no longer pending are as if never asked
                writer.pending_option = _Options(
                    writer, {k: v for k, v in writer.pending_option.items() if v})
                _without_defaults(writer, ("log",))
            if self._waiter_connected.done() and self.waiter_encoding.done():
                self._tasks = [t for t in self._tasks if t is not self._waiter_connected
                               and t is not self.waiter_encoding]
                self._waiter_connected = self.waiter_encoding = _settled()
            _without_defaults(self, ("_loop", "shell", "_reader_factory", "_writer_factory",
                                     "_reader_factory_encoding", "_writer_factory_encoding",
                                     "_waiter_connected", "waiter_encoding"))

    # -- the session's terminal (server/terminal.py) -------------------------------------
    @property
    def transport(self) -> asyncio.BaseTransport | None:
        """The transport under the connection (a held parlor's hand-over and the TLS
        port's close look at it)."""
        return self._transport

    async def read(self) -> str:
        return await self.reader.read(4096)

    def discard(self) -> bool | None:
        return self.reader.discard()

    def when_input(self, wake: Callable[[Any], None]) -> bool:
        return self.reader.when_input(wake, self.session)

    def wake(self) -> None:
        if self.reader is not None:
            self.reader.wake()

    def unread(self) -> bytes:
        reader = self.reader
        return bytes(reader._buffer) if reader is not None else b""

    def send(self, text: str, go_ahead: bool = False) -> None:
        writer = self.writer
        data = writer._escape_iac(writer.encode(text))  # telnetlib3's own encoder/escaper
        if go_ahead and not writer.local_option.enabled(SGA):
            data += IAC_BYTE + GA
        writer._write(data, escape_iac=False)

    @property
    def backlog(self) -> int:
        transport = self._transport
        return transport.get_write_buffer_size() if transport is not None else 0

    def abort(self) -> None:
        if self._transport is not None:
            self._transport.abort()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()

    def echo(self, on: bool) -> None:
        self.writer.iac(WONT if on else WILL, ECHO)

    @property
    def gmcp_on(self) -> bool:
        writer = self.writer
        return writer is not None and bool(writer.local_option.enabled(GMCP)
                                           or writer.remote_option.enabled(GMCP))

    def send_gmcp(self, package: str, data: Any) -> None:
        self.writer.send_gmcp(package, data)

    def offer_mud_protocols(self, late: bool = False) -> bool:
        """Offer GMCP and MSSP. A client that has not answered the options asked at
        connect is offered nothing yet: nc never answers, and would print the option
        bytes (MSSP's is "F"); one that answers later is offered them then (``late``),
        unless they were offered already (or carried on with GMCP agreed)."""
        writer = self.writer
        if writer is None or not late and writer.pending_option.get(DO + TTYPE):
            return False
        if late and (writer.pending_option.get(WILL + GMCP)
                     or writer.local_option.get(GMCP) is not None):
            return False
        writer.iac(WILL, GMCP)
        writer.iac(WILL, MSSP)
        return True

    @property
    def mssp_on(self) -> bool:
        return self.writer is not None and bool(self.writer.local_option.enabled(MSSP))

    def send_mssp(self, variables: dict[str, Any]) -> None:
        self.writer.send_mssp(variables)

    # -- connecting ----------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        if self.counter["open"] >= self.max_connections and not self._make_room():
            self.refused = True
            self.counter["refused"] += 1
            if self.on_refused is not None:
                self.on_refused()
            try:
                transport.write(FULL)  # type: ignore[attr-defined]
            finally:
                transport.close()
            return
        self.counter["open"] += 1
        self.prelogin[self] = None
        if self.carried is not None:  # handed over by the holder: telnet went on before
            self.held = self.carried.conn
            # its options were agreed with the parlor before: the session starts at once,
            # and what the client answers to the options asked again comes as it comes
            self.connect_maxwait = 0.0
            # its address before anything logs it (a relayed TLS socket has none of its own)
            self._extra["peername"] = (sys.intern(self.carried.address), self.carried.port)
            # what it is sent until it is back (the options asked again, GMCP, the line
            # that says carry on, its prompt) leaves in one segment, not one a write:
            # a thousand connections carried on at once cost a send each, not six
            _cork(transport, True)
            self._begin(transport)
            self._carry_on(self.carried)
            return
        if self.holder is not None:
            self.held = self.holder.hold(transport)
        self._keepalive(transport)
        if self._from_proxy(transport):
            self._transport = transport  # the telnet protocol starts once the header is read
            self._proxy_header = bytearray()
            self._proxy_timer = asyncio.get_running_loop().call_later(
                self.proxy_wait, self._drop, f"no PROXY header within {self.proxy_wait:g} s")
            return
        self._begin(transport)

    def _begin(self, transport: asyncio.BaseTransport) -> None:
        if self.carried is not None:  # (telnetlib3 logs "Connection from": a thousand at
            _TELNET_LOG.disabled = True  # a reload, for connections that never left)
            try:
                super().connection_made(transport)
            finally:
                _TELNET_LOG.disabled = False
        else:
            super().connection_made(transport)
        self.writer.set_ext_callback(GMCP, self.on_gmcp)
        self.writer.compact()
        # Backpressure: the reader pauses the socket once it holds twice its limit and
        # resumes when the session reads again. telnetlib3's client does this; its server
        # never does, so what a client sent while its session waited piled up in memory.
        self.reader.set_transport(transport)

    def _carry_on(self, carried: Any) -> None:
        """What the parlor before knew of the connection: its address (a proxy's word
        included), window, terminal and GMCP. The options are asked again at connect
        (a client answers, or keeps what it had); GMCP is taken as agreed, since a MUD
        client does not answer an offer it already took."""
        self._extra["peername"] = (sys.intern(carried.address), carried.port)
        self._extra["TERM"] = sys.intern(carried.terminal) if carried.terminal else \
            self._extra.get("TERM")
        window = carried.window
        self.on_naws(window.rows, window.cols)
        self.writer.remote_option[NAWS] = True  # it told its window before: it may again
        if carried.gmcp:
            self.writer.local_option[GMCP] = True

    def carried_on(self) -> None:
        """The session on a connection carried on is back: what was held for it
        (``_cork``) leaves now, and the parlor before's state is let go."""
        self.carried = None
        if self._transport is not None:
            _cork(self._transport, False)

    def _from_proxy(self, transport: asyncio.BaseTransport) -> bool:
        """Whether the connection is a trusted proxy's (a real socket, from one of
        ``proxies``): its first bytes must be a PROXY header."""
        if not self.proxies or transport.get_extra_info("socket") is None:
            return False
        peer = transport.get_extra_info("peername")
        return bool(peer) and _trusted(self.proxies)(str(peer[0]))

    def _read_proxy_header(self, data: bytes) -> bytes | None:
        """Gather a trusted proxy's header; once it is whole, start the telnet protocol
        as the client's connection and return the bytes after it (None: not yet, or the
        connection is closed)."""
        assert self._proxy_header is not None and self._transport is not None
        self._proxy_header += data
        try:
            header = proxy_protocol.parse(self._proxy_header)
        except proxy_protocol.ProxyError as err:
            self._drop(f"bad PROXY header from a trusted proxy: {err}")
            return None
        if header is proxy_protocol.NEED_DATA:
            return None
        self._cancel_proxy_timer()
        transport = self._transport
        if header.local:  # the proxy's health check: nothing to serve, nothing to log
            transport.close()  # (still held: connection_lost knows telnet never started)
            return None
        rest = bytes(self._proxy_header[header.length:])
        self._proxy_header = None
        if header.source is not None:
            self._extra["proxy"] = transport.get_extra_info("peername")
            self._extra["peername"] = header.source
        self._begin(transport)
        return rest

    def _cancel_proxy_timer(self) -> None:
        if self._proxy_timer is not None:
            self._proxy_timer.cancel()
            self._proxy_timer = None

    def _make_room(self) -> bool:
        """The server is full: close the connection that has not logged in and has been
        silent longest (at least ``EVICT_AFTER`` seconds), so held idle connections
        cannot keep new players out. False when there is none."""
        now = time.monotonic()
        quiet = min(self.prelogin, key=lambda p: p._heard, default=None)
        if quiet is None or now - quiet._heard < EVICT_AFTER or quiet._transport is None:
            return False
        log.info("server full: closing a connection silent for %.0f s before login",
                 now - quiet._heard)
        self.prelogin.pop(quiet, None)
        transport = quiet._transport
        transport.write(EVICTED)
        transport.close()
        return True

    def _keepalive(self, transport: asyncio.BaseTransport) -> None:
        sock = transport.get_extra_info("socket")
        if sock is None:
            return
        idle = self.keepalive
        for level, option, value in (
            (socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1),
            (socket.IPPROTO_TCP, getattr(socket, "TCP_KEEPIDLE", None), idle),
            (socket.IPPROTO_TCP, getattr(socket, "TCP_KEEPINTVL", None), max(1, idle // 3)),
            (socket.IPPROTO_TCP, getattr(socket, "TCP_KEEPCNT", None), 3),
            (socket.IPPROTO_TCP, getattr(socket, "TCP_USER_TIMEOUT", None), 2000 * idle),
        ):
            if option is not None:
                try:
                    sock.setsockopt(level, option, value)
                except OSError:  # not every platform has every option
                    pass

    def eof_received(self) -> None:
        if self._proxy_header is not None:  # telnet never started: asyncio closes the
            return None                     # transport and calls connection_lost once
        return super().eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.refused:
            return
        self.prelogin.pop(self, None)
        self.counter["open"] -= 1
        if self.held is not None and self.holder is not None:
            self.holder.release(self.held)  # (not during a hand-over: the socket goes on)
            self.held = None
        if self._proxy_header is not None:  # gone before its header: telnet never started
            self._proxy_header = None
            self._cancel_proxy_timer()
            self._transport = None
            return
        if self.writer is None:  # closed before telnet started (a carried stream: above)
            self._transport = None
            return
        self._drop_stream()
        self._hook(None)  # (its write held this protocol)
        if self.session is not None:
            self.session.connection_lost()  # it drops its unread input at once
        super().connection_lost(exc)

    def release(self) -> None:
        """The connection's shell has ended: undo the links that make this protocol, its
        writer, its reader, their option tables and the session one reference cycle, so
        that all of it is freed when the shell lets go rather than at the next full
        garbage collection, which the parlor runs seldom (server/collector.py): after a
        storm of disconnects, every session stayed in memory until then."""
        self.session = None
        self.released = True  # what arrives until its socket closes is nobody's now
        writer, reader = self.writer, self.reader
        if writer is not None:
            writer._protocol = None
            writer.fn_encoding = None
            for table in (writer.pending_option, writer.local_option, writer.remote_option):
                if isinstance(table, _Options):
                    table.writer = None
        if reader is not None:
            reader.fn_encoding = None
            reader._exception = None  # its traceback holds the shell's frames

    # -- options -------------------------------------------------------------------------
    def on_agreed(self, option: bytes) -> None:
        """The client agreed to an option this end offered (DO after our WILL)."""
        if option == MCCP2:
            self._hook(self._write_resuming)  # the next output opens a stream
        name = _AGREED.get(option)
        if self.session is not None and name is not None:
            self.session.agreed(name)

    #: what a client's NEW_ENVIRON is asked for and kept of: the language and character
    #: set (8-bit text, as telnetlib3 reads them) and the terminal. telnetlib3 asks for a
    #: dozen names and anything else the client cares to send, and kept it all in every
    #: connection's extras (about 400 bytes a session for telnetlib3's own client)
    ENVIRON = ("LANG", "CHARSET", "TERM")

    def on_request_environ(self) -> list[str]:
        return list(self.ENVIRON)

    def on_environ(self, mapping: dict[str, str]) -> None:
        super().on_environ({key: value for key, value in mapping.items()
                            if str(key).upper() in self.ENVIRON})

    def on_gmcp(self, package: str, data: Any) -> None:
        """A GMCP message from the client (wired for every connection, so its handler
        is the class's, not one of its own)."""
        if self.session is not None:
            self.session.on_gmcp(package, data)

    def _mccp3_start(self) -> None:
        """Never inflate what a client sends. telnetlib3 starts inflating (without a
        bound) on a bare ``IAC SB MCCP3 IAC SE``, negotiated or not; the parlor never
        agrees to MCCP3, so the subnegotiation means nothing and what follows is plain
        bytes, counted and bounded like any others."""
        self.writer.mccp3_active = False

    def begin_advanced_negotiation(self) -> None:
        """Ask the client to send 8-bit data and for its window size; offer MCCP2 where it
        may compress (:attr:`may_compress`), and nothing else.

        DO BINARY makes Debian's telnet stop stripping the 8th bit of what is typed, so
        accents arrive. The server does not offer WILL BINARY: Debian's telnet answers it
        by turning off its terminal's output processing, and every reply then starts at
        the column where the player's typing ended (a staircase). UTF-8 is sent anyway,
        and telnet, TinTin++, nc and Mudlet all show it; a client that asks for binary
        (DO BINARY) is told yes."""
        self.writer.iac(DO, BINARY)
        self.writer.iac(DO, NAWS)
        if self.may_compress:
            self.writer.iac(WILL, MCCP2)

    # -- compression (MCCP2) -------------------------------------------------------------
    # While the client has MCCP2 on, this connection's transport has its own ``write``
    # (an attribute of the transport object, as telnetlib3's own MCCP2 does it, so that
    # every byte the writer or anyone sends goes through it): with no stream open,
    # :meth:`_write_resuming`, which opens one; with one open, :meth:`_write_deflated`.
    # A stream quiet for ``compression.idle`` seconds ends and its compressor is freed.

    @property
    def may_compress(self) -> bool:
        """Whether MCCP2 may be offered and agreed here: it is configured, and this is a
        plain TCP socket (not TLS, where compressing before encrypting leaks what is
        sent, and neither the holder's TLS relay nor a /play WebSocket)."""
        transport = self._transport
        if self.compression is None or transport is None:
            return False
        sock = transport.get_extra_info("socket")
        return (sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6)
                and transport.get_extra_info("ssl_object") is None)

    @property
    def compressing(self) -> bool:
        """Whether an MCCP2 stream is open: the client is decompressing, and nothing
        plain may reach it until the stream ends (a held parlor's holder is told)."""
        return self._deflate is not None

    def _hook(self, write: Callable[[bytes], None] | None) -> None:
        """Route the transport's writes through ``write`` (None: its own again)."""
        transport = getattr(self.writer, "_transport", None)
        if transport is None:
            return
        if write is None:   # (a /play session's transport has no __dict__: never hooked)
            getattr(transport, "__dict__", {}).pop("write", None)
        else:
            transport.write = write

    def _raw_write(self, data: bytes) -> None:
        transport = self.writer._transport
        type(transport).write(transport, data)

    def _write_resuming(self, data: bytes) -> None:
        """The transport's write while the client has MCCP2 on and no stream is open:
        output once the session runs opens a stream and goes in it. (Before the session
        there is nobody to tell the holder of it: that output, the option negotiation,
        goes plain.)"""
        if self.session is None or self.compression is None:
            self._raw_write(data)
            return
        self._raw_write(MCCP2_START)
        self._deflate = self.compression.compressor()
        self._hook(self._write_deflated)
        if self.compression.idle:
            self._deflate_timer = asyncio.get_running_loop().call_later(
                self.compression.idle, self._check_idle)
        self._write_deflated(data)
        self._tell_holder()

    def _write_deflated(self, data: bytes) -> None:
        """The transport's write while a stream is open: compressed and flushed, so the
        client shows it at once (telnetlib3 flushes the same way)."""
        deflate = self._deflate
        self._wrote_at = time.monotonic()
        self._raw_write(deflate.compress(data) + deflate.flush(zlib.Z_SYNC_FLUSH))

    def _check_idle(self) -> None:
        """The stream's quiet timer: end it once it has carried nothing for
        ``compression.idle`` seconds (its compressor is freed; the next output opens
        another), else look again when it could have been that long."""
        self.__dict__.pop("_deflate_timer", None)
        if self._deflate is None or self.compression is None:
            return
        quiet = time.monotonic() - self._wrote_at
        if quiet < self.compression.idle:
            self._deflate_timer = asyncio.get_running_loop().call_later(
                self.compression.idle - quiet, self._check_idle)
            return
        self._end_stream()
        self._hook(self._write_resuming)

    def _end_stream(self) -> None:
        """End the open stream cleanly (Z_FINISH: the client reads plain after it) and
        free its compressor."""
        deflate = self._deflate
        self._drop_stream()
        if deflate is None:
            return
        try:
            self._raw_write(deflate.flush(zlib.Z_FINISH))
        except Exception:  # a dying transport: the connection ends anyway
            log.debug("MCCP2 stream end not sent", exc_info=True)
        self._tell_holder()

    def _drop_stream(self) -> None:
        """Forget the open stream without ending it (the connection is gone)."""
        timer = self.__dict__.pop("_deflate_timer", None)
        if timer is not None:
            timer.cancel()
        self.__dict__.pop("_deflate", None)

    def stop_compressing(self) -> None:
        """The client said DONT MCCP2: end the stream, and send plain from now on."""
        self._end_stream()
        self._hook(None)

    def hand_over(self) -> None:
        """A reload's hand-over (the session's flush calls this once the parlor hands
        over): end the stream and give up the option (WONT MCCP2), so that the client
        reads plain and has MCCP2 off, and the next parlor, which cannot continue this
        parlor's stream, begins plain and offers MCCP2 again. What is sent after this
        goes plain."""
        writer = self.writer
        if writer is None or not writer.local_option.enabled(MCCP2):
            return
        self.stop_compressing()
        try:
            writer.iac(WONT, MCCP2)
        except Exception:
            log.debug("WONT MCCP2 not sent", exc_info=True)

    def encoding(self, outgoing: Any = None, incoming: Any = None) -> str:  # noqa: ARG002
        return "utf-8"

    def on_request_charset(self) -> list[str]:
        return ["UTF-8"]

    def on_charset(self, charset: str) -> None:
        """A client's CHARSET answer is noted, never used: the parlor speaks UTF-8."""
        self._extra["charset"] = "utf-8"

    # -- input bounds --------------------------------------------------------------------
    def data_received(self, data: bytes) -> None:
        if self.refused or self._transport is None or self.released:
            return
        if self._proxy_header is not None:
            data = self._read_proxy_header(data)  # type: ignore[assignment]
            if not data:
                return
        elif not self._received and "proxy" not in self._extra and \
                data.startswith((proxy_protocol.V1_PREFIX, proxy_protocol.V2_SIGNATURE)):
            # a proxy this node does not trust (its header is no player's name)
            self._drop("sent a PROXY header but is not in [server] trusted_proxies")
            return
        if not self._logged_in:
            self._heard = time.monotonic()
            self._received += len(data)
            if self._received > self.prelogin_bytes:
                self._drop(f"sent {self._received} bytes without logging in")
                return
        if IAC in data or self._in_sb:
            if not self._scan_subnegotiation(data):
                self._drop(f"subnegotiation over {self.max_subnegotiation} bytes")
                return
        elif self._plain(data):
            # text and nothing else (what a player types, nearly every packet): what
            # telnetlib3 would do with it, without its per-packet work (a datetime of
            # the clock, a set of the special bytes built, the bytes walked one by one)
            self._received_at = time.monotonic()
            self._rx_bytes += len(data)
            self.reader.feed_data(data)
            return
        self._received_at = time.monotonic()
        super().data_received(data)

    def _plain(self, data: bytes) -> bool:
        """Whether telnetlib3 would only hand ``data`` (no IAC in it) to the reader: no
        command under way (nor compression, nor a trace to log), and none of the bytes
        its character table (SLC) gives a meaning to. A connection that has its own table
        (LINEMODE) goes telnetlib3's way."""
        writer = self.writer
        if writer is None or writer.iac_received or writer.cmd_received \
                or self._mccp3_decompressor is not None or "slctab" in writer.__dict__ \
                or _TELNET_LOG.isEnabledFor(TRACE):
            return False
        return not (writer.slc_simulated and _slc_special(writer.slctab).search(data))

    @property
    def idle(self) -> float:
        """Seconds since the client last sent a byte (telnetlib3's, from a clock read
        that costs less: its datetime of every packet is not kept)."""
        return time.monotonic() - self._received_at

    def _scan_subnegotiation(self, data: bytes) -> bool:
        """Follow IAC SB … IAC SE across chunks with ``bytes.find`` (no per-byte work);
        False when one grows past the bound."""
        i, n = 0, len(data)
        if self._tail_iac and n:
            self._tail_iac = False
            if self._in_sb and data[0] == SE:
                self._in_sb, i = False, 1
            elif not self._in_sb and data[0] == SB:
                self._in_sb, self._sb_len, i = True, 0, 1
            else:
                i = 1
        while i < n:
            if self._in_sb:
                end = data.find(_IAC_SE, i)
                if end == -1:
                    self._sb_len += n - i
                    self._tail_iac = data[-1] == IAC
                    break
                self._sb_len += end - i
                self._in_sb, i = False, end + 2
            else:
                at = data.find(IAC, i)
                if at == -1:
                    break
                if at + 1 >= n:
                    self._tail_iac = True
                    break
                if data[at + 1] == SB:
                    self._in_sb, self._sb_len = True, 0
                i = at + 2
            if self._sb_len > self.max_subnegotiation:
                return False
        return not (self._in_sb and self._sb_len > self.max_subnegotiation)

    def _drop(self, why: str) -> None:
        peer = self.get_extra_info("peername")
        log.warning("closing %s: %s", peer[0] if peer else "?", why)
        transport, self._in_sb = self._transport, False
        self._cancel_proxy_timer()
        if transport is not None:
            transport.abort()


_SLC_SPECIAL: dict[int, tuple[dict, "re.Pattern[bytes]"]] = {}


def _slc_special(slctab: dict) -> "re.Pattern[bytes]":
    """The bytes to which a character table (telnetlib3's SLC table) gives a meaning,
    IAC among them, as a pattern that finds one; made once per table (the class's
    table: one pattern), as telnetlib3 builds the set on every packet."""
    known = _SLC_SPECIAL.get(id(slctab))
    if known is not None and known[0] is slctab:
        return known[1]
    special = {IAC} | {defn.val[0] for defn in slctab.values() if defn.val != slc.theNULL}
    pattern = re.compile(b"[" + b"".join(re.escape(bytes([b])) for b in sorted(special)) + b"]")
    if len(_SLC_SPECIAL) >= 8:
        _SLC_SPECIAL.clear()
    _SLC_SPECIAL[id(slctab)] = (slctab, pattern)
    return pattern


@functools.lru_cache(maxsize=8)
def _trusted(proxies: tuple[str, ...]) -> Callable[[str], bool]:
    return proxy_protocol.trusted(proxies)


class AcceptErrors:
    """A loop exception handler that turns asyncio's accept-failure reports (a traceback
    a time, thousands a second when descriptors run out) into one warning per
    ``window`` seconds with a count; everything else goes to the default handler."""

    def __init__(self, window: float = 10.0) -> None:
        self.window = window
        self.last = float("-inf")
        self.dropped = 0

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict) -> None:
        message = str(context.get("message", ""))
        if "accept" in message and isinstance(context.get("exception"), OSError):
            now = time.monotonic()
            if now - self.last >= self.window:
                err = context["exception"]
                more = f" ({self.dropped} more since the last report)" if self.dropped else ""
                log.warning("cannot accept connections: %s%s", err.strerror or err, more)
                self.last, self.dropped = now, 0
            else:
                self.dropped += 1
            return
        loop.default_exception_handler(context)
