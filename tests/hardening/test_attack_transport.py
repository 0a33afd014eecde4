"""The attack campaign's transport findings (issue: pre-login denial of service, log
safety), each on a real parlor over real sockets: compression, quadratic input, long
subnegotiations, the pre-login byte budget, the global connection cap, commands after
their sender left, a bogus CHARSET, the idle timeout, and what reaches the log."""

from __future__ import annotations

import asyncio
import logging
import zlib


from commands.app import assemble
from server.app import Parlor
from tests.conftest import make_config
from tests.support.client import Client
from tests.support.waits import until

IAC, DONT, DO, WONT, WILL, SB, SE, NOP = 255, 254, 253, 252, 251, 250, 240, 241
MCCP2, MCCP3, CHARSET, TTYPE = 86, 87, 42, 24


async def _started(sqlite_url, **server) -> Parlor:
    parlor = assemble(make_config(sqlite_url, **server))
    await parlor.start()
    return parlor


async def _read_for(reader: asyncio.StreamReader, seconds: float) -> bytes:
    """Everything the server sends within ``seconds`` (or until it closes)."""
    data = b""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        left = deadline - loop.time()
        if left <= 0:
            return data
        try:
            chunk = await asyncio.wait_for(reader.read(65536), left)
        except asyncio.TimeoutError:
            return data
        if not chunk:
            return data + b"<EOF>"
        data += chunk


async def _closed(client: Client, timeout: float = 5.0) -> str:
    """Wait until the server closes ``client``; a reset counts (a server that closes
    with unread input in its socket sends RST, and what it wrote last may be lost)."""
    try:
        return await client.closed(timeout=timeout)
    except ConnectionResetError:
        return "<RST>"


async def test_client_compression_is_refused_and_a_zlib_bomb_is_just_bytes(sqlite_url):
    parlor = await _started(sqlite_url)
    try:
        alice = await Client.connect(parlor.port)
        await alice.create("Alice")
        reader, writer = await asyncio.open_connection("127.0.0.1", parlor.port)
        writer.write(bytes([IAC, WILL, MCCP3, IAC, DO, MCCP2]))
        await writer.drain()
        answer = await _read_for(reader, 1.0)
        assert bytes([IAC, DO, MCCP3]) not in answer     # MCCP3 was accepted unasked
        assert bytes([IAC, DONT, MCCP3]) in answer
        assert bytes([IAC, WILL, MCCP2]) not in answer
        # the bomb: a 2 KB zlib stream of 2 MiB; never inflated, it is only input bytes
        bomb = zlib.compress(b"\0" * (2 << 20), 9)
        writer.write(bytes([IAC, SB, MCCP3, IAC, SE]) + bomb)
        await writer.drain()
        await alice.cmd("look", "Exits:")
        await alice.cmd("say still here", "still here")
        writer.close()
    finally:
        await parlor.stop()


async def test_an_unterminated_line_past_max_line_closes_the_connection(sqlite_url):
    parlor = await _started(sqlite_url, max_line=4096)
    try:
        mallory = await Client.connect(parlor.port)
        await mallory.create("Mallory")
        bob = await Client.connect(parlor.port)
        await bob.create("Bob")
        mallory.writer.write("x" * 70_000)  # no newline, ever
        out = await _closed(mallory)
        assert "too long" in out or out == "<RST>"
        await bob.cmd("look", "Exits:")
        await until(lambda: [s.name for s in parlor.online.sessions.values()] == ["Bob"],
                    "Mallory's session gone, Bob's kept")
    finally:
        await parlor.stop()


async def test_the_reader_takes_everything_buffered_in_one_decode():
    """Reading costs time linear in the bytes: one read returns the whole buffer (the
    library's reader decoded the whole buffer per 4096-character read and popped it a
    byte at a time), and a character split across two segments stays whole."""
    from server.telnet import LineReader

    reader = LineReader(fn_encoding=lambda **kw: "utf-8")
    reader.feed_data(b"a" * 300_000 + "caf\u00e9".encode()[:-1])
    text = await reader.read(4096)
    assert text == "a" * 300_000 + "caf"
    reader.feed_data("caf\u00e9".encode()[-1:] + b"\n")
    assert await reader.read(4096) == "\u00e9\n"


async def test_a_long_subnegotiation_closes_the_connection(sqlite_url):
    parlor = await _started(sqlite_url, max_subnegotiation=4096)
    try:
        bob = await Client.connect(parlor.port)
        await bob.create("Bob")
        reader, writer = await asyncio.open_connection("127.0.0.1", parlor.port)
        writer.write(bytes([IAC, SB, TTYPE, 0]))
        for _ in range(4):
            writer.write(b"A" * 2000)  # streamed, never ended
            await writer.drain()
        out = await _read_for(reader, 3.0)
        assert out.endswith(b"<EOF>")
        await bob.cmd("look", "Exits:")
    finally:
        await parlor.stop()


async def test_a_big_gmcp_message_from_a_logged_in_player_closes_only_that_connection(sqlite_url):
    parlor = await _started(sqlite_url, max_subnegotiation=8192)
    try:
        mud = await Client.connect_mud(parlor.port)
        await mud.create("Muddy")
        bob = await Client.connect(parlor.port)
        await bob.create("Bob")
        mud.writer.send_gmcp("Core.Hello", {"client": "x" * 100_000})
        await _closed(mud)
        await bob.cmd("look", "Exits:")
    finally:
        await parlor.stop()


async def test_bytes_before_login_are_budgeted(sqlite_url):
    parlor = await _started(sqlite_url, prelogin_bytes=20_000)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", parlor.port)
        for _ in range(30):  # name after name, never logging in
            writer.write(b"nobody-at-all\r\n" * 100)
            await writer.drain()
        out = await _read_for(reader, 5.0)
        assert out.endswith(b"<EOF>")
        # a real login is far below the budget
        alice = await Client.connect(parlor.port)
        await alice.create("Alice")
        await alice.cmd("look", "Exits:")
    finally:
        await parlor.stop()


async def test_the_global_connection_cap_refuses_politely(sqlite_url):
    """Full of players who logged in, the server refuses a newcomer with a sentence."""
    parlor = await _started(sqlite_url, max_connections=3, max_connections_per_address=100)
    try:
        held = [await Client.connect(parlor.port) for _ in range(3)]
        for i, client in enumerate(held):
            await client.create(f"Holder{i}")
        reader, writer = await asyncio.open_connection("127.0.0.1", parlor.port)
        out = await _read_for(reader, 3.0)
        assert b"full" in out and out.endswith(b"<EOF>")
        assert parlor.counter["refused"] >= 1
        await held[0].close()
        await asyncio.sleep(0.5)
        alice = await Client.connect(parlor.port)  # room again
        await alice.create("Alice")
    finally:
        await parlor.stop()


def test_connection_cap_stays_below_the_descriptor_limit():
    import resource

    from server.telnet import connection_cap

    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert connection_cap(0) < soft
    assert connection_cap(10) == 10
    assert connection_cap(10 ** 9) < soft


def test_accept_failures_are_reported_once_per_window(caplog):
    from server.telnet import AcceptErrors

    handler = AcceptErrors(window=10.0)
    loop = asyncio.new_event_loop()
    try:
        with caplog.at_level(logging.WARNING):
            for _ in range(10_000):
                handler(loop, {"message": "socket.accept() out of system resource",
                               "exception": OSError(24, "Too many open files")})
    finally:
        loop.close()
    records = [r for r in caplog.records if "accept" in r.getMessage()]
    assert len(records) == 1 and records[0].exc_info is None


async def test_commands_die_with_their_sender(sqlite_url):
    """A session that has been sending hard waits while the server is behind; if its
    connection closes meanwhile, nothing it typed runs afterwards."""
    parlor = await _started(sqlite_url, commands_per_second=50.0, command_burst=4)
    try:
        parlor.governor.threshold = -1.0  # the server is always "behind"
        bob = await Client.connect(parlor.port)
        await bob.create("Bob")
        spammer = await Client.connect(parlor.port)
        await spammer.create("Spammer")
        spammer.writer.write("".join(f"say spam {i}\r\n" for i in range(20)))
        await asyncio.sleep(0.3)
        spammer.writer.close()
        await asyncio.sleep(5)
        heard = bob.buffer.count("spam ")
        assert heard <= 6, heard
        await bob.cmd("look", "Exits:")  # a quiet player never waits on the governor
    finally:
        await parlor.stop()


async def test_a_bogus_charset_does_not_kill_the_session(sqlite_url, caplog):
    parlor = await _started(sqlite_url)
    try:
        with caplog.at_level(logging.WARNING):
            for name in (b"bogus", b"utf-16", b"rot13", b"hex"):
                reader, writer = await asyncio.open_connection("127.0.0.1", parlor.port)
                writer.write(bytes([IAC, WILL, CHARSET, IAC, SB, CHARSET, 2]) + name
                             + bytes([IAC, SE]))
                writer.write(b"NEW\r\n")
                await writer.drain()
                out = await _read_for(reader, 1.5)
                assert b"Creating a new account" in out
                writer.close()
            alice = await Client.connect(parlor.port)
            await alice.create("Alice")
            await alice.cmd("say caf\u00e9", "caf\u00e9")
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert not [r for r in caplog.records if r.exc_info]
    finally:
        await parlor.stop()


async def test_a_trickle_does_not_defeat_the_idle_timeout(sqlite_url):
    parlor = await _started(sqlite_url, idle_timeout=2)
    try:
        lazy = await Client.connect(parlor.port)
        await lazy.create("Lazy")

        async def trickle() -> None:
            for _ in range(40):
                if lazy.writer.transport.is_closing() or lazy.reader.at_eof():
                    return  # closed (what the test waits for)
                lazy.writer.write("\r\n")           # empty lines
                lazy.writer.send_iac(bytes([IAC, NOP]))  # and telnet NOPs
                await asyncio.sleep(0.25)

        task = asyncio.create_task(trickle())
        try:
            out = await lazy.closed(timeout=8)
        finally:
            task.cancel()
        assert "Timeout" in out
    finally:
        await parlor.stop()


def test_log_records_carry_no_control_characters():
    from server.cli import LogSafety

    forged = "xterm\r\n2026-11-23 10:00:00 WARNING server.app: admin erin: cubits mallory 1000000" \
             "\x1b]0;owned\x07\x9b2J\u202e"
    record = logging.LogRecord("telnetlib3.server", logging.INFO, __file__, 1,
                               "terminal type %r / %s", (forged, forged), None)
    assert LogSafety().filter(record)
    message = record.getMessage()
    assert not any(ord(c) < 32 or 0x7f <= ord(c) <= 0x9f for c in message)
    assert "\u202e" not in message and "\\x0d\\x0a2026" in message


def test_one_kind_of_flood_hides_no_other_record():
    from server.cli import LogThrottle

    throttle = LogThrottle("telnetlib3", burst=50, window=10.0)

    def record(msg: str, at: float) -> logging.LogRecord:
        r = logging.LogRecord("telnetlib3.server_base", logging.WARNING, __file__, 1, msg,
                              ("x",), None)
        r.created = at
        return r

    flood = [throttle.filter(record("bad NAWS %s", 100 + i / 1000)) for i in range(5000)]
    assert flood.count(True) == 50
    assert all(throttle.filter(record("Connection from %s", 101)) for _ in range(500))
    assert all(throttle.filter(record("Connection closed for %s", 101)) for _ in range(500))
    assert throttle.filter(record("some other complaint %s", 101))
