"""The telnet protocol's way in for plain text (``TelnetProtocol.data_received``): a
packet with no telnet command and no byte the character table gives a meaning to goes
straight to the reader; everything else goes telnetlib3's way, and what the reader
gets is the same either way."""

from __future__ import annotations

import asyncio

import pytest
import telnetlib3.server_base
from hypothesis import given, settings
from hypothesis import strategies as st

from server.telnet import TelnetProtocol

IAC, SB, SE, WILL, NAWS = 255, 250, 240, 251, 31


class _Transport(asyncio.Transport):
    def __init__(self) -> None:
        super().__init__()
        self.sent = bytearray()

    def get_extra_info(self, name, default=None):  # noqa: ANN001, ANN201
        return {"peername": ("10.0.0.1", 4000)}.get(name, default)

    def write(self, data: bytes) -> None:
        self.sent += data

    def is_closing(self) -> bool:
        return False

    def close(self) -> None:
        pass

    def abort(self) -> None:
        pass

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


def connect() -> TelnetProtocol:
    protocol = TelnetProtocol(cols=80, rows=24, shell=None, connect_maxwait=0.1)
    protocol.connection_made(_Transport())
    return protocol


def close(protocol: TelnetProtocol) -> None:
    protocol.connection_lost(None)


@pytest.fixture
def slow_path_calls(monkeypatch):
    """The chunks telnetlib3's own byte walk is given."""
    calls: list[bytes] = []
    walk = telnetlib3.server_base._process_data_chunk

    def counted(data, *args, **kwargs):  # noqa: ANN001, ANN202
        calls.append(bytes(data))
        return walk(data, *args, **kwargs)

    monkeypatch.setattr(telnetlib3.server_base, "_process_data_chunk", counted)
    return calls


async def test_a_plain_line_goes_straight_to_the_reader(slow_path_calls):
    protocol = connect()
    try:
        before = protocol.rx_bytes
        protocol.data_received(b"look\r\n")
        protocol.data_received("say h\u00e9\r\n".encode())
        assert bytes(protocol.reader._buffer) == "look\r\nsay h\u00e9\r\n".encode()
        assert slow_path_calls == [] and protocol.rx_bytes == before + 15
        assert 0 <= protocol.idle < 5
    finally:
        close(protocol)


async def test_commands_and_special_characters_go_telnetlib3s_way(slow_path_calls):
    protocol = connect()
    try:
        protocol.data_received(bytes([IAC, WILL, NAWS]))
        protocol.data_received(b"who\r\n")  # the first byte after a command: telnetlib3's
        protocol.data_received(b"who\r\n")
        protocol.data_received(b"stop\x03\r\n")  # ^C: the character table's interrupt
        assert slow_path_calls == [bytes([IAC, WILL, NAWS]), b"who\r\n", b"stop\x03\r\n"]
        assert bytes(protocol.reader._buffer).startswith(b"who\r\nwho\r\nstop")
    finally:
        close(protocol)


PIECES = st.sampled_from([
    b"look\r\n", b"say hi", b"\r\n", b"\r\x00", "\u00e9\u65e5".encode(), b"x" * 40,
    bytes([IAC, WILL, NAWS]), bytes([IAC, SB, NAWS, 0, 100, 0, 40, IAC, SE]),
    bytes([IAC, IAC]), bytes([IAC]), b"\x03", b"\x7f", b"\x1a", b"\x15", b"\x00",
])


@settings(max_examples=200, deadline=None)
@given(st.lists(PIECES, max_size=12), st.lists(st.integers(min_value=1, max_value=7),
                                               min_size=1, max_size=6))
async def test_the_reader_gets_what_telnetlib3_would_give_it(pieces, cuts):
    """Cut into packets anywhere (a command split between two), the same bytes as when
    every packet goes telnetlib3's way."""
    stream = b"".join(pieces)
    packets, at, k = [], 0, 0
    while at < len(stream):
        size = cuts[k % len(cuts)]
        packets.append(stream[at:at + size])
        at, k = at + size, k + 1
    fast, slow = connect(), connect()
    slow._plain = lambda data: False  # type: ignore[method-assign]
    try:
        for packet in packets:
            fast.data_received(packet)
            slow.data_received(packet)
        assert bytes(fast.reader._buffer) == bytes(slow.reader._buffer)
        assert fast.rx_bytes == slow.rx_bytes
        assert (fast.cols, fast.rows) == (slow.cols, slow.rows)
    finally:
        close(fast)
        close(slow)


async def test_what_arrives_after_the_shell_let_go_is_dropped(caplog):
    """A session whose shell ended (it crashed, or was turned away) is released at once
    (``TelnetProtocol.release``), but its socket closes only once its last words are
    out: a client's late answer to an option asked at the start (WILL NEW-ENVIRON) must
    not reach the option handlers of a protocol that was let go."""
    NEW_ENVIRON, DO = 39, 253
    protocol = connect()
    try:
        protocol.writer.iac(bytes([DO]), bytes([NEW_ENVIRON]))   # asked at the start
        protocol.release()
        with caplog.at_level("DEBUG"):
            protocol.data_received(bytes([IAC, WILL, NEW_ENVIRON]) + b"look\r\n")
        assert not caplog.records, caplog.text   # telnetlib3 logs what a handler raised
    finally:
        close(protocol)
