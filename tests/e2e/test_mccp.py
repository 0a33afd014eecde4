"""MUD clients' compression (MCCP2, ``[server] mccp``; server/telnet.py) with real clients:
telnetlib3's client and a raw socket that decompresses, on a parlor in this process;
TinTin++ in tmux and telnetlib3's client on a held parlor through a reload and a kill -9.

A client that agrees reads a zlib stream with the configured level and window; one that
refuses, or a TLS connection, reads plain text; a stream quiet for ``mccp_idle`` seconds
ends and the next output starts another; DONT MCCP2 ends it; MCCP3 (what a client
sends) stays refused. At a reload the stream ends and the option is given up, and the
next parlor compresses again; after a kill -9 a client left inside a stream is closed.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
import zlib

import pytest
import telnetlib3

from commands.app import assemble
from tests.conftest import make_config, require_program, write_config
from tests.e2e import test_restarts
from tests.e2e.test_restarts import CARRY_ON, GAP, Held
from tests.e2e.test_sessions_freed import _freed, _refs, no_collector  # noqa: F401
from tests.e2e.test_tls import free_port, pairs, tls_client  # noqa: F401 (pairs: a fixture)
from tests.support.client import Client
from tests.support.teardown import cleanup
from tests.support.tmux import Screen
from tests.support.waits import until

IAC, DONT, DO, WONT, WILL, SB, SE = 255, 254, 253, 252, 251, 250, 240
TTYPE, MCCP2, MCCP3 = 24, 86, 87
START = bytes([IAC, SB, MCCP2, IAC, SE])


@pytest.fixture
async def squeezing(sqlite_url):
    """A factory of parlors in this process with MCCP2 on (and the settings given)."""
    made = []

    async def make(**server):
        parlor = assemble(make_config(sqlite_url, mccp=True, **server))
        await parlor.start()
        made.append(parlor)
        return parlor

    yield make
    async with cleanup() as steps:
        for parlor in made:
            await steps.run("stopping the parlor", parlor.stop(), 60)


class Raw:
    """A telnet client on a raw socket: it answers the terminal type's question (so the
    server takes it for a telnet client), agrees to MCCP2 or refuses it, and
    decompresses the stream; ``text`` is what it read, ``wire`` what crossed the wire."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 agree: bool) -> None:
        self.reader, self.writer, self.agree = reader, writer, agree
        self.text = b""
        self.wire = b""
        self.inflate: zlib._Decompress | None = None
        self.streams: list[bytes] = []   # the first bytes of each stream (its zlib header)
        self.ended = 0                  # streams that ended
        self._pending = b""             # bytes not read yet (a start may go on in the next)

    @classmethod
    async def connect(cls, port: int, agree: bool = True) -> "Raw":
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        return cls(reader, writer, agree)

    def _read(self, data: bytes) -> None:
        self.wire += data
        pending, self._pending = self._pending + data, b""
        while pending:
            if self.inflate is not None:
                self.text += self.inflate.decompress(pending)
                pending = b""
                if self.inflate.eof:   # the stream ended: what follows is plain
                    pending, self.inflate = self.inflate.unused_data, None
                    self.ended += 1
                continue
            at = pending.find(START)
            if at < 0:   # (keep what may be the beginning of a start)
                keep = next((k for k in range(len(START) - 1, 0, -1)
                             if pending.endswith(START[:k])), 0)
                self.text += pending[:len(pending) - keep]
                self._pending = pending[len(pending) - keep:]
                break
            self.text += pending[:at]
            rest = pending[at + len(START):]
            if len(rest) < 2:   # the stream's header (the tests read it): wait for it whole
                self._pending = pending[at:]
                break
            self.streams.append(rest[:2])
            self.inflate = zlib.decompressobj()
            pending = rest
        for option, answer in ((bytes([IAC, DO, TTYPE]), bytes([IAC, WILL, TTYPE])),
                               (bytes([IAC, WILL, MCCP2]),
                                bytes([IAC, DO if self.agree else DONT, MCCP2]))):
            if option in self.text:
                self.text = self.text.replace(option, b"<asked>")
                self.writer.write(answer)

    async def expect(self, want: bytes, timeout: float = 10.0, times: int = 1) -> bytes:
        """Read until ``want`` has been read ``times`` times in all."""
        async with asyncio.timeout(timeout):
            while self.text.count(want) < times:
                chunk = await self.reader.read(65536)
                if not chunk:
                    raise ConnectionError(f"closed before {want!r}; read {self.text[-300:]!r}")
                self._read(chunk)
        return self.text

    def send(self, line: str) -> None:
        self.writer.write(line.encode() + b"\r\n")

    def close(self) -> None:
        self.writer.close()


def header(window_bits: int, level: int) -> bytes:
    """The two bytes a zlib stream begins with for these settings (RFC 1950)."""
    return zlib.compressobj(level, zlib.DEFLATED, window_bits, 1).flush()[:2]


def session_of(parlor, name: str):  # noqa: ANN001, ANN201
    return next(s for s in parlor.online.sessions.values() if s.name == name)


# -- in this process ------------------------------------------------------------------------
@pytest.mark.parametrize("settings", [dict(), dict(mccp_level=9, mccp_window_bits=10)])
async def test_a_client_that_agrees_reads_a_stream_of_the_configured_window(squeezing,
                                                                            settings):
    """WILL MCCP2 is offered; DO gets IAC SB MCCP2 IAC SE, then a zlib stream whose
    header names the configured window and level (12 and 6 by default), and the text in
    it reads right: the welcome, an account made, LOOK."""
    parlor = await squeezing(**settings)
    raw = await Raw.connect(parlor.port)
    try:
        await raw.expect(b"Name: ")
        assert raw.streams == [header(settings.get("mccp_window_bits", 12),
                                      settings.get("mccp_level", 6))]
        assert b"Welcome to Esterport" in raw.text
        for line, answer in (("NEW", b"Choose a name: "), ("Zed", b"Choose a password: "),
                             ("secret1", b"Type it again: "), ("secret1", b"Exits:")):
            raw.send(line)
            await raw.expect(answer)
        assert session_of(parlor, "Zed").terminal.compressing
        raw.send("look")
        text = await raw.expect(b"Exits:", times=2)
        assert text.count(b"The Plaza of Esterport") == 2 and raw.ended == 0
        assert len(raw.wire) < len(raw.text) / 2, (len(raw.wire), len(raw.text))
    finally:
        raw.close()


async def test_telnetlib3_players_play_a_game_compressed(squeezing):
    """Two telnetlib3 clients (they take MCCP2 when offered) make accounts, talk and play
    Noughts and Crosses to a win, every line read through the stream."""
    parlor = await squeezing()
    alice = await Client.connect(parlor.port)
    bob = await Client.connect(parlor.port)
    try:
        await alice.create("Alice")
        await bob.create("Bob")
        for client, name in ((alice, "Alice"), (bob, "Bob")):
            assert client.writer.mccp2_active
            assert session_of(parlor, name).terminal.compressing
        await alice.cmd("say hello, compressed", 'You say, "hello, compressed"')
        await bob.expect('Alice says, "hello, compressed"')
        await alice.cmd("ttt challenge bob", "You challenge Bob")
        await bob.expect("Alice challenges you")
        bob.send("ttt accept alice")
        await alice.expect(r"Game #\d+: Noughts and Crosses, Alice vs Bob begins")
        for player, cell in ((alice, 1), (bob, 4), (alice, 2), (bob, 5)):
            await player.cmd(f"ttt play {cell}", f"{player.name}: PLAY {cell}")
        alice.send("ttt play 3")
        await bob.expect("Alice wins")
        await alice.cmd("who", "2 players connected")
        assert alice.writer.mccp2_active and bob.writer.mccp2_active
    finally:
        await alice.close()
        await bob.close()


async def test_a_client_that_refuses_reads_plain_text(squeezing):
    """DONT MCCP2 (a raw client), or telnetlib3 told not to compress: no stream, and the
    same words in plain text."""
    parlor = await squeezing()
    raw = await Raw.connect(parlor.port, agree=False)
    reader, writer = await telnetlib3.open_connection(
        "127.0.0.1", parlor.port, cols=120, rows=40, term="xterm", connect_minwait=0.05,
        connect_maxwait=0.5, encoding="utf8", force_binary=True, compression=False)
    plain = Client(reader, writer)
    try:
        await plain.create("Plain")
        await plain.cmd("look", "Exits:")
        assert not writer.mccp2_active
        assert not session_of(parlor, "Plain").terminal.compressing
        await raw.expect(b"Name: ")
        raw.send("NEW")
        await raw.expect(b"Choose a name: ")
        assert START not in raw.wire and raw.streams == []
        assert b"<asked>" in raw.text   # it was offered, and said no
    finally:
        raw.close()
        await plain.close()


async def test_mccp2_is_not_offered_unless_configured(sqlite_url):
    """By default (``mccp = false``) the parlor offers no MCCP2 and refuses a client's
    DO, as before."""
    parlor = assemble(make_config(sqlite_url))
    await parlor.start()
    raw = await Raw.connect(parlor.port)
    try:
        await raw.expect(b"Name: ")
        raw.writer.write(bytes([IAC, DO, MCCP2]))
        raw.send("")
        await asyncio.sleep(0.5)
        await raw.expect(bytes([IAC, WONT, MCCP2]))
        assert bytes([IAC, WILL, MCCP2]) not in raw.text and START not in raw.wire
    finally:
        raw.close()
        await parlor.stop()


async def test_a_quiet_stream_ends_and_the_next_output_starts_another(squeezing):
    """``mccp_idle``: a stream that carried nothing for that long ends (the client reads
    plain after it) and its compressor is freed; the next output opens a new stream."""
    parlor = await squeezing(mccp_idle=0.3)
    alice = await Client.connect(parlor.port)
    try:
        await alice.create("Alice")
        protocol = session_of(parlor, "Alice").terminal
        await until(lambda: not protocol.compressing and not alice.writer.mccp2_active)
        assert protocol._deflate is None and protocol._deflate_timer is None
        await alice.cmd("look", "Exits:")
        assert protocol.compressing and alice.writer.mccp2_active
        await until(lambda: not protocol.compressing)
        await alice.cmd("who", "1 player connected")
    finally:
        await alice.close()


async def test_dont_mccp2_ends_the_stream_and_text_goes_plain(squeezing):
    """A client that says DONT MCCP2 while reading a stream: the stream ends cleanly
    (MCCP2 says the server stops), and what follows is plain on the wire."""
    parlor = await squeezing()
    raw = await Raw.connect(parlor.port)
    try:
        await raw.expect(b"Name: ")
        assert raw.streams and raw.inflate is not None
        before = len(raw.wire)
        raw.writer.write(bytes([IAC, DONT, MCCP2]))
        raw.send("NEW")
        await raw.expect(b"Choose a name: ")
        assert raw.ended == 1 and raw.inflate is None
        assert b"Choose a name: " in raw.wire[before:]   # plain on the wire
        raw.send("Dee")
        await raw.expect(b"Choose a password: ")
        assert len(raw.streams) == 1
    finally:
        raw.close()


async def test_mccp3_stays_refused_and_its_bomb_is_only_bytes_with_mccp2_on(squeezing):
    """MCCP2 on changes nothing of what a client sends: WILL MCCP3 is refused, a bare
    MCCP3 start is ignored and the zlib that follows is not inflated (a compressed NEW
    is not a NEW), while a compressing player plays on."""
    parlor = await squeezing()
    alice = await Client.connect(parlor.port)
    raw = await Raw.connect(parlor.port, agree=False)
    try:
        await alice.create("Alice")
        await raw.expect(b"Name: ")
        raw.writer.write(bytes([IAC, WILL, MCCP3]))
        await raw.expect(bytes([IAC, DONT, MCCP3]))
        squeeze = zlib.compressobj()
        stream = squeeze.compress(b"NEW\r\n") + squeeze.flush(zlib.Z_SYNC_FLUSH)
        bomb = zlib.compress(b"\0" * (2 << 20), 9)
        raw.writer.write(bytes([IAC, SB, MCCP3, IAC, SE]) + stream + bomb)
        await alice.cmd("say still here", "still here")
        assert b"Creating a new account" not in raw.text
        for protocol in parlor.server._protocols:
            assert getattr(protocol, "_mccp3_decompressor", None) is None
        assert alice.writer.mccp2_active
    finally:
        raw.close()
        await alice.close()


async def test_compressing_sessions_are_freed_as_their_players_leave(squeezing,
                                                                    no_collector):
    """A stream's write is an attribute of the connection's transport that refers to its
    protocol: it must go with the connection, so that reference counting alone (the
    collector off) frees every compressing session, open stream or ended."""
    parlor = await squeezing(mccp_idle=0.5)
    players = [await (await Client.connect(parlor.port)).create(f"Zip{i}") for i in range(4)]
    assert all(session.terminal.compressing for session in parlor.online.sessions.values())
    await until(lambda: not any(s.terminal.compressing for s in parlor.online.sessions.values()))
    await players[0].cmd("look", "Exits:")   # one stream open again, three ended
    refs = _refs(parlor)
    await players[1].cmd("quit", "Goodbye")
    for player in players:
        player.writer.close()
    assert await _freed(refs) == []


async def test_mccp2_is_not_offered_over_tls(sqlite_url, pairs):
    """The TLS port is the same parlor, but compressing before encrypting would let what
    a player is sent be guessed from its length: no offer, and DO MCCP2 is refused;
    a plain player beside it compresses."""
    config = make_config(sqlite_url, mccp=True, tls_port=free_port(),
                         tls_certificate=str(pairs[0].certificate), tls_key=str(pairs[0].key))
    parlor = assemble(config)
    await parlor.start()
    secure = plain = None
    try:
        secure = await tls_client(parlor.config.server.tls_port)
        plain = await Client.connect(parlor.port)
        await secure.create("Secure")
        await plain.create("Open")
        await secure.cmd("look", "Exits:")
        assert not secure.writer.mccp2_active and plain.writer.mccp2_active
        protocol = session_of(parlor, "Secure").terminal
        assert not protocol.may_compress and not protocol.compressing
        assert not protocol.writer.local_option.enabled(bytes([MCCP2]))
    finally:
        for client in (secure, plain):
            if client is not None:
                await client.close()
        await parlor.stop()


# -- a held parlor (a process of its own) ---------------------------------------------------
@pytest.fixture
def held_compressing(tmp_path, monkeypatch):
    """``esterport serve --hold`` with MCCP2 on (streams never end for quiet)."""
    def config(where):  # noqa: ANN001, ANN202
        path = write_config(where)
        with open(path) as fh:
            text = fh.read()
        with open(path, "w") as fh:
            fh.write(text.replace("[server]\n", "[server]\nmccp = true\nmccp_idle = 0\n", 1))
        return path

    monkeypatch.setattr(test_restarts, "write_config", config)
    server = Held(tmp_path)
    yield server
    server.stop()


async def plain_client(port: int) -> Client:
    reader, writer = await telnetlib3.open_connection(
        "127.0.0.1", port, cols=120, rows=40, term="xterm", connect_minwait=0.05,
        connect_maxwait=0.5, encoding="utf8", force_binary=True, compression=False)
    return Client(reader, writer)


async def test_a_reload_ends_the_stream_and_the_next_parlor_compresses_again(
        held_compressing):
    """A compressing telnetlib3 client and a plain one through a reload: both stay
    connected and read every word; the stream ended cleanly at the hand-over, and the
    next parlor offered MCCP2 again and compresses."""
    held = held_compressing
    squeezed = await Client.connect(held.port)
    plain = await plain_client(held.port)
    try:
        await squeezed.create("Squeezed")
        await plain.create("Plain")
        assert squeezed.writer.mccp2_active and not plain.writer.mccp2_active
        await squeezed.cmd("say before", 'You say, "before"')
        await plain.expect('Squeezed says, "before"')
        held.reload()
        await asyncio.to_thread(held.attached, 2)
        await squeezed.expect(CARRY_ON, timeout=30)
        await plain.expect(CARRY_ON, timeout=30)
        await squeezed.cmd("say after", 'You say, "after"')
        await plain.expect('Squeezed says, "after"')
        await plain.cmd("look", "Exits:")
        assert squeezed.writer.mccp2_active and not plain.writer.mccp2_active
        assert "decompression error" not in "".join(held.log).lower()
    finally:
        await squeezed.close()
        await plain.close()


async def test_after_a_kill_a_client_inside_a_stream_is_closed_and_a_plain_one_stays(
        held_compressing):
    """kill -9 leaves a compressing client's decompressor mid-stream: the holder writes
    no gap notice into it and the next parlor closes it at once, saying why in its log;
    a plain client is told of the gap and carries on."""
    held = held_compressing
    squeezed = await Client.connect(held.port)
    plain = await plain_client(held.port)
    try:
        await squeezed.create("Squeezed")
        await plain.create("Plain")
        await squeezed.cmd("look", "Exits:")
        assert squeezed.writer.mccp2_active
        await asyncio.sleep(0.5)   # (the holder has heard of the stream)
        os.kill(held.parlor(), signal.SIGKILL)
        plain.send("look")   # typed in the gap: the notice, then LOOK once it is back
        await plain.expect(GAP, timeout=30)
        await plain.expect(CARRY_ON, timeout=30)
        await plain.expect("Exits:", timeout=30)
        gone = await squeezed.closed(timeout=30)
        assert GAP not in gone
        async with asyncio.timeout(10):
            while not any("inside the MCCP2 stream" in line for line in held.log):
                await asyncio.sleep(0.1)
    finally:
        await squeezed.close()
        await plain.close()


def test_tintin_plays_compressed_through_a_reload(held_compressing):
    """TinTin++ (its telnet debug on, so its own words show what it decompresses) makes
    an account and plays with MCCP2 on; a reload ends its stream cleanly, the next
    parlor's offer starts another, and the game goes on."""
    held = held_compressing
    path = require_program("tt++")
    screen = Screen(f"{path} -e '#config {{debug telnet}} on; "
                    f"#session esterport 127.0.0.1 {held.port}'", cols=100, rows=40)
    try:
        screen.wait_for("Type your name", 30)   # (bounds for a machine busy with more)
        screen.wait_for("INFO MCCP2 INITIALIZED", 30)
        for line in ("new", "Tinny", "tintin1", "tintin1"):
            screen.type(line)
            time.sleep(0.3)
        screen.wait_for("Welcome, Tinny!", 30)
        screen.type("pyr new")
        screen.wait_for("Deal 1 of 3", 30)
        held.reload()
        held.attached(2)
        screen.wait_for(CARRY_ON, 30)
        screen.type("say compressed again")
        lines = screen.wait_for('You say, "compressed again"', 30)
        text = "\n".join(lines)
        assert "COMPRESSION END" in text and "COMPRESSION ERROR" not in text
        assert text.count("INFO MCCP2 INITIALIZED") == 2, text[-3000:]
        assert "RCVD IAC WONT MCCP2" in text   # the option given up at the hand-over
        screen.type("pyr hint")   # (a deal with no pair showing has no move to hint)
        screen.wait_for(("Hint: PYR", "No cards can be removed now"), 60)
        screen.type("quit")
        screen.wait_for("if you leave, it waits for you", 30)   # (the Pyramid deal in play)
        screen.type("quit")
        screen.wait_for("SESSION 'esterport' DIED", 30)
    finally:
        screen.close()
