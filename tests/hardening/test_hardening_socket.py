"""Hostile bytes at the socket from LOGGED-IN players, in the middle of a game, while
other players watch.

One real parlor on a real socket (SQLite). Alice (a raw socket) and Bob (telnetlib3's
client) play noughts and crosses in the plaza; Carol (a MUD client with GMCP) watches
their game; Mallory (a raw socket) stands beside them. Each example, Alice or Mallory
sends a drawn payload: random binary, IAC floods, IAC with random commands, unterminated
subnegotiations, NAWS and TTYPE oddities, GMCP with bad JSON, invalid UTF-8, CR/NUL/LF
mixes, lines over the 4 KiB cap, and ANSI/OSC/DCS escapes and bidi characters inside
SAY/TELL/EMOTE/CHAT aimed at the others, interleaved with real commands.

After each example:
- the sender's session answers a marker command (unique per example), or was closed
  cleanly (then the player logs in again) - it never hangs;
- Alice, Bob, Carol and Mallory answer their markers, and nothing any of them received
  (text, or GMCP data) holds a control character other than CR, LF and tab, nor an escape
  other than our own SGR colour codes (telnet commands removed first);
- nothing was logged at ERROR, no exception of our code was swallowed by telnetlib3 (it
  logs those as WARNING lines), nothing the server logged carries a control character,
  and nobody got the "Sorry, something went wrong" apology;
- the game changed only by a "TTT PLAY n" that Alice, its player, sent (between examples
  Alice or Bob makes a legal move, so games go on, end, and new ones start);
- every few examples, a brand-new connection (announcing a hostile terminal type, which
  the server logs) gets the welcome and makes an account; every 15th example the sender
  also types QUIT amid its garbage, and logs in again.

The parlor's state carries over from one example to the next (that is the point: garbage
in the middle of a session), so examples are generated, not shrunk; findings are listed.
``ESTERPORT_SOAK=1`` runs ten times as many examples; ``ESTERPORT_SOCKET_SEED=n`` draws
another fixed sequence.
"""

from __future__ import annotations

import asyncio
import codecs
import itertools
import json
import logging
import os
import re
import tempfile
import time

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from commands.app import assemble
from server.app import Parlor
from tests.conftest import make_config
from tests.hardening import harness
from tests.support.client import Client

SOAK = os.environ.get("ESTERPORT_SOAK") == "1"
EXAMPLES = int(os.environ.get("ESTERPORT_SOCKET_EXAMPLES", 1200 if SOAK else 120))
SEED = os.environ.get("ESTERPORT_SOCKET_SEED")   # another fixed run: derandomized if unset
QUIT_EVERY = 15          # every this many examples the sender also types QUIT
PROBE_EVERY = 5          # a brand-new login every this many examples (argon2 costs time)
MARKER_TIMEOUT = 10.0    # seconds a session may take to answer its marker (loaded machine)

IAC, DONT, DO, WONT, WILL, SB, GA, EL, EC, AYT, AO, IP, BRK, DM, NOP, SE = (
    255, 254, 253, 252, 251, 250, 249, 248, 247, 246, 245, 244, 243, 242, 241, 240)
ECHO, SGA, TTYPE, NAWS, LINEMODE, NEW_ENVIRON, CHARSET, MSSP, MCCP2, MCCP3, GMCP = (
    1, 3, 24, 31, 34, 39, 42, 70, 86, 87, 201)
# after any payload this returns telnetlib3's parser to plain data, whatever state the
# payload left it in (in a subnegotiation, after a lone IAC, mid WILL/DO): IAC NOP twice
# ends a subnegotiation even if the payload's last byte was an IAC inside it
RESYNC = bytes([IAC, NOP, IAC, NOP]) + b"\r\n"

# What may reach a player's terminal: printable text, CR, LF, tab, and our own SGR codes.
# Noughts and crosses never rings the bell, so BEL is not allowed either.
SGR = re.compile(r"\x1b\[[0-9;]*m")
UNSAFE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f"
                    r"\u202a-\u202e\u2066-\u2069]")
APOLOGY = "Sorry, something went wrong"


def unsafe(text: str) -> list[str]:
    return UNSAFE.findall(SGR.sub("", text))


def unsafe_json(value) -> list[str]:  # noqa: ANN001
    return harness.unsafe_json(value, unsafe)


# -- a raw, logged-in connection --------------------------------------------------------

class TelnetText:
    """Server output -> text: telnet commands removed (a stream: a command may be split
    across reads), GMCP subnegotiations kept apart, UTF-8 decoded incrementally."""

    def __init__(self) -> None:
        self.state = "data"
        self.sb = bytearray()
        self.gmcp: list[tuple[str, object]] = []
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def feed(self, data: bytes) -> str:
        out = bytearray()
        for b in data:
            s = self.state
            if s == "data":
                if b == IAC:
                    self.state = "iac"
                else:
                    out.append(b)
            elif s == "iac":
                if b == IAC:
                    out.append(IAC)
                    self.state = "data"
                elif b == SB:
                    self.sb.clear()
                    self.state = "sb"
                elif b in (WILL, WONT, DO, DONT):
                    self.state = "option"
                else:
                    self.state = "data"
            elif s == "option":
                self.state = "data"
            elif s == "sb":
                if b == IAC:
                    self.state = "sb-iac"
                else:
                    self.sb.append(b)
            else:  # sb-iac
                if b == IAC:
                    self.sb.append(IAC)
                    self.state = "sb"
                else:
                    if b == SE and self.sb[:1] == bytes([GMCP]):
                        self._gmcp(bytes(self.sb[1:]))
                    self.state = "data"
        return self.decoder.decode(bytes(out))

    def _gmcp(self, payload: bytes) -> None:
        package, _, data = payload.decode("utf-8", "replace").partition(" ")
        try:
            value = json.loads(data) if data.strip() else None
        except ValueError:
            value = f"<not JSON: {data[:80]!r}>"
        self.gmcp.append((package, value))


class Raw:
    """A player on a raw asyncio socket: sends any bytes; everything it receives is read
    at once (the server never sees a client that stops reading) and kept for the checks."""

    def __init__(self, name: str, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter) -> None:
        self.name = name
        self.reader = reader
        self.writer = writer
        self.telnet = TelnetText()
        self.buf = ""          # text received since the last check
        self.eof = False
        self.pump = asyncio.create_task(self._pump())

    @classmethod
    async def connect(cls, port: int, name: str) -> "Raw":
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        return cls(name, reader, writer)

    async def _pump(self) -> None:
        try:
            while True:
                chunk = await self.reader.read(65536)
                if not chunk:
                    break
                self.buf += self.telnet.feed(chunk)
        except (ConnectionError, OSError):
            pass
        finally:
            self.eof = True

    async def send(self, data: bytes) -> None:
        if self.eof or self.writer.is_closing():
            return
        self.writer.write(data)
        try:
            await self.writer.drain()
        except (ConnectionError, OSError):
            pass

    async def expect(self, pattern: str, start: int = 0, timeout: float = 5.0) -> bool:
        """Wait until ``pattern`` appears in what arrived (from ``start`` of the unchecked
        text); False if the connection closed first. A time-out raises."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            if rx.search(SGR.sub("", self.buf[start:])):
                return True
            if self.eof:
                return False
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.name}: no {pattern!r} in {timeout} s; got:\n"
                                     f"{self.buf[-1500:]!r}")
            await asyncio.sleep(0.01)

    def take(self) -> tuple[str, list]:
        """The text and GMCP received since the last call."""
        text, self.buf = self.buf, ""
        gmcp, self.telnet.gmcp = self.telnet.gmcp, []
        return text, gmcp

    async def create(self, password: str = "secret") -> "Raw":
        for ask, answer in (("Name: ", "NEW"), ("Choose a name: ", self.name),
                            ("Choose a password: ", password), ("Type it again: ", password)):
            assert await self.expect(ask, timeout=10), f"{self.name}: closed at {ask!r}"
            self.buf = ""
            await self.send(answer.encode() + b"\r\n")
        assert await self.expect(r"Exits:", timeout=10)
        return self

    async def login(self, password: str = "secret") -> "Raw":
        for ask, answer in (("Name: ", self.name), ("Password: ", password)):
            assert await self.expect(ask, timeout=10), f"{self.name}: closed at {ask!r}"
            self.buf = ""
            await self.send(answer.encode() + b"\r\n")
        assert await self.expect(r"Exits:", timeout=10)
        return self

    async def close(self) -> None:
        self.writer.close()
        self.pump.cancel()
        await asyncio.gather(self.pump, return_exceptions=True)


class Tap:
    """A telnetlib3 reader that also keeps, whole, everything read through it (Client
    strips more than colour codes from what it keeps)."""

    def __init__(self, reader) -> None:  # noqa: ANN001
        self.reader = reader
        self.got: list[str] = []

    async def read(self, n: int) -> str:
        chunk = await self.reader.read(n)
        self.got.append(chunk)
        return chunk

    def take(self) -> str:
        text, self.got = "".join(self.got), []
        return text


# -- what is logged --------------------------------------------------------------------

class Log(logging.Handler):
    """ERROR records anywhere, and exceptions that telnetlib3 swallowed while parsing input
    (it logs a traceback line by line at WARNING) when the traceback passes through our
    code (a callback of ours raised). Exceptions wholly inside telnetlib3 (a truncated NAWS
    makes its own struct.unpack fail, deeply nested GMCP JSON its json.loads) are its own
    handled input errors: they are counted, not failed."""

    OURS = re.compile(r'File "[^"]*/(?:server|commands|games)/')

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.errors: list[str] = []
        self.warnings: dict[str, int] = {}
        self.traceback: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        msg = record.getMessage()
        if record.name.startswith(("server", "commands")) and unsafe(msg):
            # what a client sent (its terminal type, its client's name) must not write
            # escapes or forged lines into the server's log (read on a terminal, by grep)
            self.errors.append(f"{record.name} logged terminal controls: {msg[:300]!r}")
        if record.levelno >= logging.ERROR:
            self.errors.append(f"{record.name}: {msg}")
        elif record.name.startswith("telnetlib3") and msg.startswith(" "):
            self.traceback.append(msg)   # a line of a swallowed exception's traceback
        elif self.traceback:             # ... and its last line: the exception
            lines, self.traceback = self.traceback + [msg], []
            if any(self.OURS.search(line) for line in lines):
                self.errors.append("telnetlib3 swallowed an exception of ours:\n"
                                   + "\n".join(lines))
            else:
                self._count(f"telnetlib3 swallowed its own {msg[:70]}")
        elif record.levelno >= logging.WARNING:
            self._count(f"{record.name}: {msg[:70]}")

    def _count(self, key: str) -> None:
        key = re.sub(r"b'[^']*'|\d+", "#", key)
        self.warnings[key] = self.warnings.get(key, 0) + 1

    def take(self) -> list[str]:
        out, self.errors = self.errors, []
        return out


# terminal types a new connection announces (TTYPE IS ...; the server logs it at login)
HOSTILE_TERMS = ["xterm", "xterm\x1b]0;pwned\x07", "vt100\r\n[session 1] Root logged in",
                 "ansi\x1b[2J\x1b[H", "x" * 5000, "dumb\x00\x08\x7f"]


# -- payloads --------------------------------------------------------------------------

TARGETS = ["Alice", "Bob", "Carol", "Mallory", "alice", "BOB", "nobody"]
ESCAPES = ["\x1b[2J", "\x1b[H", "\x1b]0;pwned\x07", "\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\",
           "\x1bP+q544e\x1b\\", "\x1bPq#0;2;0;0;0\x1b\\", "\x9b31m", "\x9d0;t\x9c", "\x90dcs\x9c",
           "\x1b[31m", "\x1b[0m", "\x1b[6n", "\x1b[?1049h", "\x1bc", "\x1b(0", "\x1b", "\x07",
           "\x08\x08\x08", "\x7f", "\x00", "\x0e", "\x1b[1;31", "\x1b]", "\u202e", "\u2066",
           "\u2067", "\u2068", "\u2069", "\u200f", "\u200e", "\u061c", "\u2028", "\u2029",
           "\x85", "\ufeff", "\u200b", "\U0001f600", "e\u0301", "caf\u00e9", "\t", "\r", "\x0b",
           "\x0c", "hi", " ", "'", ":", "%s", "{0}"]
PLAIN = ["who", "look", "ttt", "pending", "games", "say hello", "emote waves",
         "chat hello all", "tell Bob hi", "tell Carol psst", "tell Alice hey", "reply ok",
         "'quick", ":nods", "finger Bob", "ttt games", "ttt status", "observe 1",
         "set width 60", "set width 200", "set color off", "set color on"]


def _escape_iac(data: bytes) -> bytes:
    return data.replace(b"\xff", b"\xff\xff")


def _sb(option: int, body: bytes, *, end: bool = True, escape: bool = True) -> bytes:
    out = bytes([IAC, SB, option]) + (_escape_iac(body) if escape else body)
    return out + bytes([IAC, SE]) if end else out


def _naws(w: int, h: int) -> bytes:
    return bytes([IAC, WILL, NAWS]) + _sb(NAWS, w.to_bytes(2, "big") + h.to_bytes(2, "big"))


def payload_kinds() -> dict[str, st.SearchStrategy[bytes]]:
    hostile = st.lists(st.sampled_from(ESCAPES), min_size=1, max_size=12).map("".join)
    text = st.one_of(hostile, st.text(max_size=40))
    talk = st.one_of(
        text.map(lambda t: f"say {t}"), text.map(lambda t: f"'{t}"),
        text.map(lambda t: f"emote {t}"), text.map(lambda t: f":{t}"),
        text.map(lambda t: f"chat {t}"), text.map(lambda t: f"reply {t}"),
        st.tuples(st.sampled_from(TARGETS), text).map(lambda p: f"tell {p[0]} {p[1]}"),
    ).map(lambda line: line.encode("utf-8", "surrogatepass") + b"\r\n")
    command = st.one_of(
        st.sampled_from(PLAIN),
        st.integers(0, 10).map(lambda n: f"ttt play {n}"),
        st.sampled_from(["ttt play x", "ttt play 99999999999999999999", "ttt play -1",
                         "ttt play 1 2", "ttt resign now"]),
    ).map(lambda line: line.encode() + b"\r\n")
    iac_cmd = st.lists(
        st.one_of(
            st.tuples(st.sampled_from([WILL, WONT, DO, DONT]), st.integers(0, 255)).map(
                lambda p: bytes([IAC, *p])),
            st.integers(0, 255).map(lambda b: bytes([IAC, b])),
            st.sampled_from([bytes([IAC, c]) for c in (NOP, DM, BRK, IP, AO, AYT, EC, EL, GA)]),
        ), min_size=1, max_size=30).map(b"".join)
    # options the server knows (MCCP3 from a client even turns on decompression of what
    # follows), and any other byte
    option = st.one_of(st.sampled_from([ECHO, SGA, TTYPE, NAWS, LINEMODE, NEW_ENVIRON,
                                        CHARSET, MSSP, MCCP2, MCCP3, GMCP]),
                       st.integers(0, 255))
    sb_open = st.tuples(option, st.binary(max_size=300)).map(
        lambda p: bytes([IAC, SB, p[0]]) + p[1])
    sb_closed = st.tuples(option, st.binary(max_size=300), st.booleans()).map(
        lambda p: _sb(p[0], p[1], escape=p[2]))
    naws = st.one_of(
        st.sampled_from([_naws(0, 0), _naws(1, 1), _naws(65535, 65535), _naws(80, 0),
                         _naws(0, 65535), _naws(255, 255),
                         bytes([IAC, SB, NAWS, 0, 80, IAC, SE]),         # truncated
                         bytes([IAC, SB, NAWS, IAC, SE]),                # empty
                         bytes([IAC, SB, NAWS, 255, 255, 255, 255, IAC, SE]),  # unescaped
                         bytes([IAC, SB, NAWS, 0, 80, 0, 24, 0, 0, 1, IAC, SE]),  # too long
                         bytes([IAC, SB, NAWS, 0, 80]),                  # no SE
                         bytes([IAC, WONT, NAWS])]),
        st.tuples(st.integers(0, 65535), st.integers(0, 65535)).map(lambda p: _naws(*p)),
    )
    ttype_name = st.one_of(
        st.integers(1, 70000).map(lambda n: b"x" * n),
        st.lists(st.sampled_from([e.encode("utf-8") for e in ESCAPES] + [b"\xff", b"\xc3("]),
                 min_size=1, max_size=20).map(b"".join),
        st.binary(max_size=200),
    )
    ttype = st.tuples(ttype_name, st.sampled_from([0, 1, 2, 255])).map(
        lambda p: bytes([IAC, WILL, TTYPE]) + _sb(TTYPE, bytes([p[1]]) + p[0]))
    deep = st.integers(1, 100_000).map(lambda n: "[" * n + "]" * n)
    gmcp_body = st.one_of(
        st.sampled_from(['Core.Hello {"client": "Mud', 'Core.Hello {', 'Core.Hello }',
                         'Core.Hello []', 'Core.Hello 1e999', 'Core.Hello -1e999',
                         'Core.Hello NaN', 'Core.Hello "x"', 'Core.Hello null',
                         'Core.Hello {"client": [], "version": {}}',
                         'Core.Hello {"client": "\\u001b]0;pwned\\u0007\\u202e", '
                         '"version": "\\u009b2J\\n\\r\\u0000"}',
                         'Core.Hello {"client": 1e999, "version": -0}',
                         'core.hello {"client": "x"}', 'Core.Supports.Set ["Char 1"]',
                         'Char.Login {"name": "Alice", "password": "x"}', ' ', '', '\u00e9 {}',
                         'Core.Hello {"client": "\ud800"}']),
        deep.map(lambda d: f"Core.Hello {d}"),
        st.integers(1, 200_000).map(lambda n: 'Core.Hello {"client": "' + "A" * n + '"}'),
        st.dictionaries(st.text(max_size=8), st.one_of(st.text(max_size=20), st.integers(),
                                                       st.floats(), st.none()),
                        max_size=5).map(lambda d: "Core.Hello " + json.dumps(d)),
        st.text(max_size=60),
    ).map(lambda s: s.encode("utf-8", "surrogatepass"))
    gmcp = st.tuples(gmcp_body, st.booleans()).map(
        lambda p: bytes([IAC, DO, GMCP]) + _sb(GMCP, p[0], end=p[1]))
    bad_utf8 = st.lists(st.one_of(
        st.sampled_from([b"\xc3\x28", b"\xa0\xa1", b"\xe2\x28\xa1", b"\xf0\x28\x8c\xbc",
                         b"\xc0\xaf", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80", b"\xfe",
                         b"\xc2\x9b31m", b"\xc2\x9d0;x\xc2\x9c", b"\x9b2J", b"\xc2",
                         b"\xe2\x80\xae", b"say ", b"tell Bob ", b"\r\n"]),
        st.binary(min_size=1, max_size=8).map(lambda b: bytes(x | 0x80 for x in b)),
    ), min_size=1, max_size=20).map(b"".join)
    line_ends = st.lists(st.sampled_from([b"\r", b"\n", b"\x00", b"\r\x00", b"\r\n",
                                          b"\n\r", b"say x", b"look", b" ", b"\x00say y"]),
                         min_size=1, max_size=40).map(b"".join)
    overlong = st.tuples(
        st.sampled_from([b"say ", b"tell Bob ", b"", b"ttt play ", b"\x1b[2J"]),
        st.sampled_from([4090, 4092, 4096, 4097, 5000, 70_000, 300_000]),
        st.sampled_from([b"\r\n", b"\n", b"\r", b"", b"\r\nsay after\r\n"]),
    ).map(lambda p: p[0] + b"y" * (p[1] - len(p[0])) + p[2])
    return {
        "binary": st.binary(min_size=1, max_size=3000),
        "iac flood": st.tuples(st.integers(1, 20_000), st.sampled_from([b"", b"say x\r\n"])
                               ).map(lambda p: b"\xff" * p[0] + p[1]),
        "iac commands": iac_cmd,
        "sb no SE": sb_open,
        "sb random": sb_closed,
        "naws": naws,
        "ttype": ttype,
        "gmcp": gmcp,
        "invalid utf-8": bad_utf8,
        "cr/nul/lf": line_ends,
        "overlong": overlong,
        "escapes in talk": talk,
        "command": command,
        # on a line of its own (garbage before it may still swallow it)
        "move": st.integers(1, 9).map(lambda n: f"\r\nttt play {n}\r\n".encode()),
    }


KINDS = payload_kinds()


@st.composite
def payloads(draw) -> list[tuple[str, bytes]]:  # noqa: ANN001
    """One to six parts, each of a drawn kind: alone, it is one kind of garbage; mixed,
    an interleaving of garbage and real commands."""
    names = draw(st.lists(st.sampled_from(sorted(KINDS)), min_size=1, max_size=6))
    return [(name, draw(KINDS[name])) for name in names]


# -- the parlor ------------------------------------------------------------------------

class Table:
    """The parlor, its four players and the game between Alice and Bob."""

    def __init__(self, parlor: Parlor) -> None:
        self.parlor = parlor
        self.port = parlor.port
        self.raws: dict[str, Raw] = {}
        self.bob: Client
        self.carol: Client
        self.game_id = 0
        self.live = None  # the LiveGame (kept: a finished game leaves host.live)
        self.probes = itertools.count(1)
        self.markers = itertools.count(1)
        self.moves = 0   # moves made in all the games
        self.games = 0

    @classmethod
    async def open(cls) -> "Table":
        folder = tempfile.mkdtemp(prefix="esterport-socket-")
        config = make_config(f"sqlite+aiosqlite:///{folder}/e.db",
                             max_connections_per_address=100)
        parlor = assemble(config)
        await parlor.start()
        t = cls(parlor)
        for name in ("Alice", "Mallory"):
            t.raws[name] = await (await Raw.connect(t.port, name)).create()
        t.bob = await Client.connect(t.port)
        await t.bob.create("Bob")
        t.bob.reader = Tap(t.bob.reader)
        t.carol = await Client.connect_mud(t.port)
        await t.carol.create("Carol")
        t.carol.reader = Tap(t.carol.reader)
        await t.new_game()
        return t

    async def close(self) -> None:
        for raw in self.raws.values():
            await raw.close()
        await self.bob.close()
        await self.carol.close()
        for _ in range(250):  # let the sessions leave (each records its last-seen time)
            if not self.parlor.connections and not self.parlor.connections.shell_tasks:
                break
            await asyncio.sleep(0.02)
        await self.parlor.stop()

    # the game
    def game(self):  # noqa: ANN201
        return self.live

    def snapshot(self) -> tuple:
        game = self.live
        return (game.id, game.version, game.state, game.outcome)

    async def new_game(self) -> None:
        alice = self.raws["Alice"]
        await alice.send(b"\r\nttt challenge Bob\r\n")
        await self.bob.expect("TTT ACCEPT", timeout=10)
        await self.bob.cmd("ttt accept Alice", "begins", timeout=10)
        ids = [g.id for g in self.parlor.host.live.values()
               if [s.name for s in g.seats] == ["Alice", "Bob"]]
        assert ids, "no game between Alice and Bob"
        self.game_id = max(ids)
        self.live = self.parlor.host.live[self.game_id]
        self.games += 1
        await self.carol.cmd(f"observe {self.game_id}", "You are now watching", timeout=10)

    async def players_move(self) -> None:
        """A legal move of whoever is to move, Alice or Bob (so the games go on to their
        later stages and their ends); a new game once one is over."""
        game = self.game()
        if game.outcome is not None:
            await self.new_game()
            return
        cell = next(i for i, c in enumerate(game.state.cells) if c is None) + 1
        if 1 in game.kind.spec.to_move(game.state):
            await self.bob.cmd(f"ttt play {cell}", f"Bob: PLAY {cell}", timeout=10)
        else:
            alice = self.raws["Alice"]
            start = len(alice.buf)
            await alice.send(RESYNC + f"ttt play {cell}\r\n".encode())
            assert await alice.expect(f"Alice: PLAY {cell}", start, timeout=10)
        self.moves += 1

    # markers
    async def raw_marker(self, raw: Raw, start: int) -> str:
        """'answered' or 'closed'; raises if the session hangs. The marker is resent
        while unanswered: a payload may have used up the rate limit's burst, or turned on
        MCCP3 so that the next chunk is taken for compressed data and dropped."""
        word = f"mk{next(self.markers)}z"
        deadline = time.monotonic() + MARKER_TIMEOUT
        while True:
            await raw.send(RESYNC + f"help {word}\r\n".encode())
            try:
                if await raw.expect(f"There is no help on '{word}'", start, timeout=1.0):
                    return "answered"
                return "closed"
            except AssertionError:
                if time.monotonic() > deadline:
                    raise AssertionError(f"{raw.name}: the session hangs: no answer to its "
                                         f"marker in {MARKER_TIMEOUT} s; last received:\n"
                                         f"{raw.buf[-1500:]!r}") from None

    async def client_marker(self, client: Client) -> None:
        word = f"mk{next(self.markers)}z"
        await client.cmd(f"help {word}", f"There is no help on '{word}'",
                         timeout=MARKER_TIMEOUT)

    async def reconnect(self, name: str) -> None:
        old = self.raws[name]
        await old.close()
        self.raws[name] = await (await Raw.connect(self.port, name)).login()

    async def probe(self) -> None:
        """A brand-new connection gets the welcome and can make an account (its terminal
        type, which the server logs, is hostile)."""
        n = next(self.probes)
        c = await Client.connect(self.port, term=HOSTILE_TERMS[n % len(HOSTILE_TERMS)])
        try:
            await c.expect("Welcome to", timeout=10)
            await c.create(f"Probe{n}")
            await self.client_marker(c)
        finally:
            await c.close()


async def example(t: Table, log: Log, sender: str, parts: list[tuple[str, bytes]],
                  move: bool) -> list[str]:
    for name, other in list(t.raws.items()):
        if other.eof:   # QUIT (or the server) closed it: log in again
            await t.reconnect(name)
    if move:
        await t.players_move()
    raw = t.raws[sender]
    before = t.snapshot()
    start = len(raw.buf)
    for _, data in parts:
        await raw.send(data)
    problems = []
    outcome = await t.raw_marker(raw, start)
    # everyone else answers too (and everything they were sent has arrived by then)
    for name, other in t.raws.items():
        if other is not raw and not other.eof:
            await t.raw_marker(other, len(other.buf))
    await t.client_marker(t.bob)
    await t.client_marker(t.carol)
    await asyncio.sleep(0)

    received = {name: r.take() for name, r in t.raws.items()}
    received["Bob"] = (t.bob.reader.take(), [])
    received["Carol"] = (t.carol.reader.take(), t.carol.gmcp[:])
    t.carol.gmcp.clear()
    for name, (text, gmcp) in received.items():
        bad = unsafe(text)
        if bad:
            at = SGR.sub("", text).find(bad[0])
            problems.append(f"{name} received terminal controls {bad[:8]!r} in "
                            f"{SGR.sub('', text)[max(0, at - 80):at + 40]!r}")
        if APOLOGY in text:
            problems.append(f"{name} got an apology")
        for package, data in gmcp:
            if unsafe_json(data) or unsafe(str(package)):
                problems.append(f"{name} received controls in GMCP {package}")
    problems += log.take()

    after = t.snapshot()
    if after != before:
        # the cells Alice's "TTT PLAY n" lines named (a generous reading: telnet commands
        # and garbage before one may or may not have ended the line before it)
        played = {int(m) - 1 for m in re.findall(rb"ttt play (\d)(?=[\r\n])",
                                                 b"".join(d for _, d in parts))}
        game = t.game()
        old_state = before[2]
        new_cells = {i for i, (a, b) in enumerate(zip(old_state.cells, game.state.cells))
                     if a != b}
        if sender != "Alice" or not new_cells <= played or after[0] != before[0] or any(
                game.state.cells[i] != 0 for i in new_cells):
            problems.append(f"the game changed without a legal move of its player: "
                            f"{before} -> {after}")
        t.moves += len(new_cells)
    if problems:
        shown = [(k, d[:200]) for k, d in parts]
        return [f"{sender} ({outcome}) sent {shown!r}:\n  " + "\n  ".join(problems)]
    return []


def test_garbage_from_logged_in_players_mid_game():
    loop = asyncio.new_event_loop()
    log = Log()
    logging.getLogger().addHandler(log)
    server_log = logging.getLogger("server")
    level = server_log.level
    server_log.setLevel(logging.INFO)   # the login line, with the terminal type, is INFO
    t = loop.run_until_complete(Table.open())
    found: list[str] = []
    kinds: dict[str, int] = {}
    closed: dict[str, int] = {}
    count = itertools.count(1)
    try:
        @settings(max_examples=EXAMPLES, deadline=None, database=None,
                  derandomize=SEED is None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @seed(int(SEED or 0))
        @given(st.sampled_from(["Alice", "Mallory"]), payloads(),
               st.integers(0, 3).map(bool))   # a legal move first, 3 times in 4
        def run(sender, parts, move):  # noqa: ANN001
            if len(found) >= 10:
                return
            for name, _ in parts:
                kinds[name] = kinds.get(name, 0) + 1
            n = next(count)
            if n % QUIT_EVERY == 0:   # the session ends mid-garbage; the player comes back
                parts = parts + [("quit", b"\r\nquit\r\n\xff\xfa\x1f")]
            found.extend(loop.run_until_complete(example(t, log, sender, parts, move)))
            if t.raws[sender].eof:
                closed[sender] = closed.get(sender, 0) + 1
            if n % PROBE_EVERY == 0:
                loop.run_until_complete(t.probe())
                found.extend(f"a new connection (probe): {p}" for p in log.take())

        run()
        loop.run_until_complete(t.probe())
        found.extend(f"a new connection (probe): {p}" for p in log.take())
        print(f"\nsocket fuzz: {next(count) - 1} examples, parts by kind {kinds}, "
              f"sessions closed by a payload {closed}, {t.games} games, {t.moves} moves, "
              f"warnings {sorted(log.warnings.items(), key=lambda x: -x[1])[:8]}")
        assert not found, "\n\n".join(found)
    finally:
        logging.getLogger().removeHandler(log)
        server_log.setLevel(level)
        loop.run_until_complete(t.close())
        loop.run_until_complete(asyncio.sleep(0.1))   # the database thread's last answers
        loop.close()
