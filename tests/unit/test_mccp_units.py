"""MCCP2's settings (server/config.py, server/telnet.py ``Compression``) and what the holder
knows of a connection's stream (server/holder): ``Carried.compressing`` on the wire, and no
gap notice written into an open stream."""

from __future__ import annotations

import asyncio
import json
import socket
import zlib

import pytest

from server.config import Config
from server.holder import messages
from server.holder.messages import Carried, Update
from server.holder.process import GAP_NOTICE, Holder
from server.telnet import Compression


def test_the_settings_default_to_off_and_a_small_window():
    server = Config().server
    assert server.mccp is False and Compression.from_config(server) is None
    on = Config.from_dict({"server": {"mccp": True}}).server
    assert Compression.from_config(on) == Compression(level=6, window_bits=12, mem_level=2,
                                                      idle=60.0)


@pytest.mark.parametrize("key, value, words", [
    ("mccp_level", 0, "mccp_level should be 1 to 9, not 0"),
    ("mccp_window_bits", 16, "mccp_window_bits should be 9 to 15, not 16"),
    ("mccp_mem_level", 10, "mccp_mem_level should be 1 to 9, not 10"),
    ("mccp_idle", -1, "mccp_idle should be 0 to 86400, not -1"),
    ("mccp", "yes", "mccp should be true or false"),
])
def test_a_setting_out_of_range_is_refused_in_one_line(key, value, words):
    with pytest.raises(ValueError, match=words):
        Config.from_dict({"server": {key: value}})


def test_a_compressor_is_made_with_the_settings():
    deflate = Compression(level=9, window_bits=10, mem_level=1).compressor()
    data = deflate.compress(b"Exits: east, north\r\n" * 20) + deflate.flush()
    assert data[0] == (10 - 8) << 4 | 8        # RFC 1950: CINFO is the window, less 8
    assert data[1] >> 6 == 3                   # FLEVEL 3: levels 7 to 9
    assert zlib.decompress(data) == b"Exits: east, north\r\n" * 20


def test_carried_says_whether_a_stream_was_open_and_an_older_reader_takes_no():
    carried = Carried(conn=3, address="192.0.2.1", port=4000, compressing=True)
    version, back = messages.decode(messages.encode(Update(carried)))
    assert back.carried.compressing is True
    body = json.loads(messages.encode(Update(carried)))
    del body["carried"]["compressing"]         # a parlor of a release before it
    assert messages.decode(json.dumps(body).encode())[1].carried.compressing is False


async def test_the_gap_notice_is_not_written_into_an_open_stream():
    """While no parlor runs, a player who types hears that the parlor restarts, but not
    one whose client is inside an MCCP2 stream: plain words there would corrupt it."""
    holder = Holder(argv=[], listeners={}, check=lambda: None, spare=False)
    plain_held, plain_player = socket.socketpair()
    squeezed_held, squeezed_player = socket.socketpair()
    holder.held = {1: (plain_held.fileno(), Carried(conn=1)),
                   2: (squeezed_held.fileno(), Carried(conn=2, compressing=True))}
    try:
        holder._watch_gap()
        plain_player.send(b"look\r\n")
        squeezed_player.send(b"look\r\n")
        await asyncio.sleep(0.2)
        plain_player.setblocking(False)
        squeezed_player.setblocking(False)
        assert plain_player.recv(4096) == GAP_NOTICE
        with pytest.raises(BlockingIOError):
            squeezed_player.recv(4096)
    finally:
        holder._stop_watching()
        for sock in (plain_held, plain_player, squeezed_held, squeezed_player):
            sock.close()


class _Transport:
    """What ``may_compress`` asks of a transport: its socket and its TLS object."""

    def __init__(self, sock: socket.socket | None, tls: object = None) -> None:
        self.extra = {"socket": sock, "ssl_object": tls}

    def get_extra_info(self, name: str, default: object = None) -> object:
        return self.extra.get(name, default)


async def test_only_a_plain_tcp_connection_may_compress():
    """MCCP2 is offered on a TCP socket without TLS only: not on the holder's TLS relay (a
    Unix socket), not over TLS, not on /play (a WebSocket: no socket), nor when off."""
    from server.telnet import TelnetProtocol

    on = type("On", (TelnetProtocol,), {"compression": Compression()})
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    unix, _other = socket.socketpair()
    try:
        for protocol_class, transport, may in (
                (on, _Transport(tcp), True), (TelnetProtocol, _Transport(tcp), False),
                (on, _Transport(unix), False), (on, _Transport(tcp, tls=object()), False),
                (on, _Transport(None), False)):
            protocol = protocol_class()
            protocol._transport = transport
            assert protocol.may_compress is may, (protocol_class, transport.extra)
    finally:
        for sock in (tcp, unix, _other):
            sock.close()
