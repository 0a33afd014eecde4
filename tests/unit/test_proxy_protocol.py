"""The PROXY protocol parser (server/proxy_protocol.py): v1 and v2 headers, whole or split
across segments, and what it refuses; ``[server] trusted_proxies`` as read at load."""

from __future__ import annotations

import struct

import pytest

from server.config import Config
from server.proxy_protocol import (NEED_DATA, V1_MAX, V2_MAX, V2_SIGNATURE, Header, ProxyError,
                                   parse, trusted, v1, v2)

V1 = b"PROXY TCP4 10.1.2.3 10.0.0.1 51000 4000\r\n"
V1_6 = b"PROXY TCP6 2001:db8::7 2001:db8::1 51000 4000\r\n"


@pytest.mark.parametrize("header, source", [
    (V1, ("10.1.2.3", 51000)),
    (V1_6, ("2001:db8::7", 51000)),
    (b"PROXY UNKNOWN\r\n", None),
    (b"PROXY UNKNOWN ffff:f...f:ffff ffff:f...f:ffff 65535 65535\r\n", None),
    (v2(("10.1.2.3", 51000), ("10.0.0.1", 4000)), ("10.1.2.3", 51000)),
    (v2(("2001:db8::7", 65535), ("2001:db8::1", 4000)), ("2001:db8::7", 65535)),
    (v2(("::ffff:10.1.2.3", 7), ("::1", 4000)), ("10.1.2.3", 7)),  # one address for caps
    (v2(("10.1.2.3", 1), tlvs=b"\x04\x00\x01\x00"), ("10.1.2.3", 1)),  # a NOOP TLV: skipped
])
def test_a_whole_header_names_the_client_and_its_length(header, source):
    assert parse(header + b"bob\r\n") == Header(source, len(header))


def test_helpers_write_what_haproxy_writes():
    assert v1(("10.1.2.3", 51000), ("10.0.0.1", 4000)) == V1
    assert v1(("2001:db8::7", 51000), ("2001:db8::1", 4000)) == V1_6


def test_v2_local_is_a_health_check_with_no_client():
    header = v2(None)
    assert parse(header) == Header(None, 16, local=True)


@pytest.mark.parametrize("family", [0x00, 0x31])   # unspecified, unix: keep the proxy's
def test_v2_without_a_network_address_keeps_the_proxys(family):
    size = {0x00: 0, 0x31: 216}[family]
    header = V2_SIGNATURE + struct.pack("!BBH", 0x21, family, size) + bytes(size)
    assert parse(header) == Header(None, 16 + size)


@pytest.mark.parametrize("header", [V1, V1_6, v2(("10.1.2.3", 51000)),
                                    v2(("2001:db8::7", 4)), v2(None)])
def test_every_prefix_needs_more_and_any_split_gives_the_same(header):
    for cut in range(len(header)):
        assert parse(header[:cut]) is NEED_DATA, header[:cut]
    whole = parse(header)
    # fed as it would arrive, a byte at a time (the protocol keeps a buffer and re-parses)
    buffer = b""
    for byte in header + b"x":
        buffer += bytes([byte])
        if parse(buffer) is not NEED_DATA:
            break
    assert parse(buffer) == whole


@pytest.mark.parametrize("data, why", [
    (b"bob\r\n", "not a PROXY header"),
    (b"GET / HTTP/1.1\r\n", "not a PROXY header"),
    (b"PROXX TCP4", "not a PROXY header"),
    (b"\xff\xfb\x18", "not a PROXY header"),        # telnet negotiation: not from a proxy
    (b"\r\n\r\n\x00\r\nQUIX", "not a PROXY header"),
    (b"PROXY TCP4 10.1.2.3 10.0.0.1 51000\r\n", "malformed"),
    (b"PROXY TCP5 10.1.2.3 10.0.0.1 1 2\r\n", "malformed"),
    (b"PROXY TCP4  10.1.2.3 10.0.0.1 1 2\r\n", "malformed"),   # two spaces
    (b"PROXY TCP4 10.1.2.300 10.0.0.1 1 2\r\n", "bad address"),
    (b"PROXY TCP4 2001:db8::7 10.0.0.1 1 2\r\n", "bad address"),
    (b"PROXY TCP6 10.1.2.3 2001:db8::1 1 2\r\n", "bad address"),
    (b"PROXY TCP4 10.1.2.3 10.0.0.1 65536 2\r\n", "bad port"),
    (b"PROXY TCP4 10.1.2.3 10.0.0.1 01 2\r\n", "bad port"),
    (b"PROXY TCP4 10.1.2.3 10.0.0.1 -1 2\r\n", "bad port"),
    (b"PROXY TCP4 10.1.2.3 10.0.0.1 \xd9\xa1 2\r\n", "not ASCII"),
    (b"PROXY TCP4 10.1.2.3\n", "CR LF"),
    (b"PROXY TCP4 10.1.2.3\rx", "CR LF"),
    (V2_SIGNATURE + b"\x11\x11\x00\x0c" + bytes(12), "version 1"),
    (V2_SIGNATURE + b"\x22\x11\x00\x0c" + bytes(12), "command 2"),
    (V2_SIGNATURE + b"\x21\x41\x00\x0c" + bytes(12), "unknown family"),
    (V2_SIGNATURE + b"\x21\x21\x00\x0c" + bytes(12), "address block of 12 bytes"),
])
def test_garbage_is_refused_saying_why(data, why):
    with pytest.raises(ProxyError, match=why):
        parse(data)


def test_garbage_is_refused_from_its_first_bytes():
    with pytest.raises(ProxyError):
        parse(b"b")
    with pytest.raises(ProxyError):
        parse(b"PROXI")
    with pytest.raises(ProxyError):
        parse(b"\r\n\r\n\x01")


def test_a_v1_line_is_bounded():
    line = b"PROXY UNKNOWN " + b"x" * (V1_MAX - 16) + b"\r\n"
    assert len(line) == V1_MAX and parse(line) == Header(None, V1_MAX)
    with pytest.raises(ProxyError, match="longer than 107"):
        parse(b"PROXY UNKNOWN " + b"x" * 200)
    with pytest.raises(ProxyError, match="longer than 107"):
        parse(b"PROXY UNKNOWN " + b"x" * (V1_MAX - 15) + b"\r\n")


def test_a_v2_header_is_bounded_before_its_body_arrives():
    most = V2_SIGNATURE + struct.pack("!BBH", 0x21, 0x11, V2_MAX - 16)
    assert parse(most) is NEED_DATA
    assert parse(most + bytes(V2_MAX - 16)).length == V2_MAX
    with pytest.raises(ProxyError, match="233 bytes"):
        parse(V2_SIGNATURE + struct.pack("!BBH", 0x21, 0x11, V2_MAX - 15))
    with pytest.raises(ProxyError, match="65551 bytes"):
        parse(V2_SIGNATURE + b"\x21\x11\xff\xff")


def test_trusted_takes_addresses_and_networks():
    test = trusted(("127.0.0.1", "10.0.0.0/24", "2001:db8::/32"))
    assert test("127.0.0.1") and test("10.0.0.200") and test("2001:db8::5")
    assert test("::ffff:127.0.0.1")
    assert not test("127.0.0.2") and not test("10.0.1.1") and not test("?") and not test("")
    assert not trusted(())("127.0.0.1")


def test_trusted_proxies_are_checked_at_load():
    config = Config.from_dict({"server": {"trusted_proxies": ["127.0.0.1", "10.0.0.0/8"]}})
    assert config.server.trusted_proxies == ("127.0.0.1", "10.0.0.0/8")
    assert Config().server.trusted_proxies == ()
    for bad in ("proxy.example.org", "*", "10.0.0.0/33", "300.1.1.1"):
        with pytest.raises(ValueError) as caught:
            Config.from_dict({"server": {"trusted_proxies": ["127.0.0.1", bad]}})
        message = str(caught.value)
        assert "\n" not in message
        assert message.startswith("config: [server] trusted_proxies:") and repr(bad) in message
    with pytest.raises(ValueError, match="list of strings"):
        Config.from_dict({"server": {"trusted_proxies": "127.0.0.1"}})
