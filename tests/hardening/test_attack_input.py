"""The third attack campaign's input findings, each on a real parlor over real sockets:
client-to-server compression nobody agreed to, input without backpressure, empty lines
that skipped the rate limit, and malformed window sizes that filled the log."""

from __future__ import annotations

import asyncio
import logging
import zlib

from commands.app import assemble
from server.app import Parlor
from tests.conftest import make_config
from tests.support.client import Client

IAC, SB, SE, WILL = 255, 250, 240, 251
MCCP3, NAWS = 87, 31


async def _started(sqlite_url, **server) -> Parlor:
    parlor = assemble(make_config(sqlite_url, **server))
    await parlor.start()
    return parlor


async def _read_until(reader: asyncio.StreamReader, marker: bytes, seconds: float) -> bytes:
    """What the server sends until ``marker`` appears, or ``seconds`` pass."""
    data = b""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while marker not in data:
        left = deadline - loop.time()
        if left <= 0:
            break
        try:
            chunk = await asyncio.wait_for(reader.read(65536), left)
        except asyncio.TimeoutError:
            break
        if not chunk:
            break
        data += chunk
    return data


async def test_compressed_input_is_never_inflated_unless_agreed(sqlite_url):
    """A bare ``IAC SB MCCP3 IAC SE``, never negotiated, used to switch telnetlib3's
    inflation on: what followed was inflated without limit (64 MiB from 65 KB). Now it
    is ignored, and what follows is only bytes: a compressed NEW is not a NEW."""
    parlor = await _started(sqlite_url)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", parlor.port)
        await _read_until(reader, b"Name: ", 5)
        squeeze = zlib.compressobj()
        stream = squeeze.compress(b"NEW\r\n") + squeeze.flush(zlib.Z_SYNC_FLUSH)
        writer.write(bytes([IAC, SB, MCCP3, IAC, SE]) + stream)
        await writer.drain()
        out = await _read_until(reader, b"Creating a new account", 1.5)
        assert b"Creating a new account" not in out
        for protocol in parlor.server._protocols:
            assert getattr(protocol, "_mccp3_decompressor", None) is None
        writer.write(b"\r\nNEW\r\n")  # plain text still works
        assert b"Creating a new account" in await _read_until(reader, b"Creating", 5)
        writer.close()
    finally:
        await parlor.stop()


def _session_of(parlor: Parlor, name: str):  # noqa: ANN202
    return next(s for s in parlor.online.sessions.values() if s.name == name)


async def test_a_session_is_read_no_faster_than_it_is_served(sqlite_url):
    """While a session waits (its paste queue, the rate limit), the server stops reading
    its socket: what it sends stays in the kernel and the sender's own buffers, not in
    the server's memory (20 MB of SAY used to pile up and be decoded in one step)."""
    parlor = await _started(sqlite_url, commands_per_second=5.0, command_burst=10)
    try:
        mallory = await Client.connect(parlor.port)
        await mallory.create("Mallory")
        bob = await Client.connect(parlor.port)
        await bob.create("Bob")
        _r, raw = mallory.reader, mallory.writer
        chunk = b"say hi\r\n" * 8192  # 64 KB
        transport = raw.transport if hasattr(raw, "transport") else raw._transport
        sent = 0
        drained = True
        for _ in range(320):  # up to 20 MB
            transport.write(chunk)
            sent += len(chunk)
            if transport.get_write_buffer_size() > 4 << 20:
                drained = False  # the server stopped taking it: backpressure
                break
            await asyncio.sleep(0)
        await asyncio.sleep(0.5)
        session = _session_of(parlor, "Mallory")
        held = len(session.terminal.unread()) + len(session._buffer) + \
            sum(len(line) for line in session._lines or ())
        assert held < 1 << 20, f"the server holds {held} bytes of unread input"
        assert not drained, f"the server read all {sent} bytes while serving 5 a second"
        await bob.cmd("look", "Exits:")
        transport.abort()
    finally:
        await parlor.stop()


async def test_empty_lines_count_against_the_rate_limit(sqlite_url):
    """Every line counts, empty or not: 10 MB of CR LF used to skip the rate limit and
    the fairness governor and keep the server busy for everyone."""
    parlor = await _started(sqlite_url, commands_per_second=50.0, command_burst=10)
    try:
        mallory = await Client.connect(parlor.port)
        await mallory.create("Mallory")
        mallory.writer.write("\r\n" * 2000)
        await mallory.expect("sending commands too fast", 10)
    finally:
        await parlor.stop()


async def test_malformed_window_sizes_do_not_fill_the_log(sqlite_url, caplog):
    """A NAWS subnegotiation of the wrong length was a traceback in the log per
    subnegotiation (1.2 KB of them wrote 53 KB). Now it is ignored quietly."""
    parlor = await _started(sqlite_url)
    try:
        alice = await Client.connect(parlor.port)
        await alice.create("Alice")
        reader, writer = await asyncio.open_connection("127.0.0.1", parlor.port)
        await _read_until(reader, b"Name: ", 5)
        caplog.clear()
        with caplog.at_level(logging.DEBUG):
            bad = bytes([IAC, SB, NAWS, 1, 2, 3, IAC, SE])  # three bytes, not four
            writer.write(bad * 150)  # 1.2 KB
            await writer.drain()
            await asyncio.sleep(0.5)
            await alice.cmd("look", "Exits:")
        logged = sum(len(r.getMessage()) + len(r.exc_text or "") for r in caplog.records
                     if r.levelno >= logging.INFO)
        tracebacks = [r for r in caplog.records if r.exc_info]
        assert not tracebacks
        assert logged < 2000, f"{logged} bytes of log for 1.2 KB of input"
        writer.close()
    finally:
        await parlor.stop()
