"""The PROXY protocol (HAProxy's, v1 text and v2 binary): who a proxied connection is from.

A proxy in front of the telnet door (HAProxy's ``send-proxy`` / ``send-proxy-v2``) opens
each connection to a node with one header naming the client it carries; the telnet
stream follows. :func:`parse` reads that header from the bytes received so far, with no
I/O (h11's shape): a :class:`Header`, :data:`NEED_DATA`, or :class:`ProxyError`. It is
bounded: a v1 line is at most 107 bytes (``PROXY TCP6 <ipv6> <ipv6> 65535 65535\\r\\n``),
a v2 header at most 232 (16 bytes and the 216 of the largest address block: TLVs that
would make it longer, from ``proxy-v2-options``, are refused). Bytes that cannot begin a
header are refused at once, before the bound.

:func:`trusted` reads ``[server] trusted_proxies``: only a connection from one of those
addresses may (and must) begin with a header; from anyone else the same bytes are just
text. Specification: haproxy.org, ``doc/proxy-protocol.txt``.
"""

from __future__ import annotations

import enum
import ipaddress
import struct
from typing import Callable

import attrs

V1_PREFIX = b"PROXY "
V1_MAX = 107
V2_SIGNATURE = b"\r\n\r\n\x00\r\nQUIT\n"
V2_MAX = 232

_V2_ADDRESSES = {  # family and transport byte -> bytes of its address block
    0x00: 0,     # AF_UNSPEC: no address (keep the proxy's)
    0x11: 12,    # TCP over IPv4
    0x12: 12,    # UDP over IPv4
    0x21: 36,    # TCP over IPv6
    0x22: 36,    # UDP over IPv6
    0x31: 216,   # AF_UNIX stream
    0x32: 216,   # AF_UNIX datagram
}


class ProxyError(ValueError):
    """The bytes are not a PROXY header (or not one this parser takes); the message says
    why, quoting what it can."""


class NeedData(enum.Enum):
    NEED_DATA = "need data"


NEED_DATA = NeedData.NEED_DATA


@attrs.frozen
class Header:
    """A whole header. ``source`` is the client's (address, port), or None when the
    proxy names none (v1 ``UNKNOWN``, v2 ``LOCAL`` or an unspecified or unix family):
    the connection is then the proxy's own. ``local`` marks a v2 ``LOCAL`` command (the
    proxy's health check). ``length`` is the header's bytes: the stream starts after."""

    source: tuple[str, int] | None
    length: int
    local: bool = False


def parse(data: bytes) -> Header | NeedData:
    """The header at the start of ``data``: a :class:`Header`, or :data:`NEED_DATA` when
    ``data`` is a header's beginning that needs more bytes.

    :raises ProxyError: ``data`` does not begin a header, or the header is malformed or
        longer than the bound. It is the only exception raised on purpose.

    >>> parse(b"PROXY TCP4 10.1.2.3 10.0.0.1 51000 4000\\r\\nbob")
    Header(source=('10.1.2.3', 51000), length=41, local=False)
    >>> parse(b"PROXY TCP4 10.1")
    <NeedData.NEED_DATA: 'need data'>
    """
    if not data:
        return NEED_DATA
    if data[0] == V1_PREFIX[0]:
        return _parse_v1(data)
    if data[0] == V2_SIGNATURE[0]:
        return _parse_v2(data)
    raise ProxyError(f"not a PROXY header: {bytes(data[:16])!r}")


def _parse_v1(data: bytes) -> Header | NeedData:
    start = bytes(data[:len(V1_PREFIX)])
    if not V1_PREFIX.startswith(start):
        raise ProxyError(f"not a PROXY header: {bytes(data[:16])!r}")
    end = data.find(b"\r\n", 0, V1_MAX)
    if end == -1:
        if len(data) >= V1_MAX:
            raise ProxyError(f"PROXY line longer than {V1_MAX} bytes")
        if b"\n" in data or b"\r" in data[:-1]:
            raise ProxyError("PROXY line not ended by CR LF")
        return NEED_DATA
    try:
        line = bytes(data[:end]).decode("ascii")
    except UnicodeDecodeError:
        raise ProxyError("PROXY line is not ASCII") from None
    parts = line.split(" ")
    length = end + 2
    if len(parts) >= 2 and parts[1] == "UNKNOWN":
        return Header(None, length)
    if len(parts) != 6 or parts[1] not in ("TCP4", "TCP6"):
        raise ProxyError(f"malformed PROXY line: {line[:V1_MAX]!r}")
    version = ipaddress.IPv4Address if parts[1] == "TCP4" else ipaddress.IPv6Address
    try:
        source = version(parts[2])
        version(parts[3])   # the destination: checked, not kept
    except ValueError:
        raise ProxyError(f"bad address in PROXY line: {line!r}") from None
    port, _ = _port(parts[4], line), _port(parts[5], line)
    return Header((_text(source), port), length)


def _port(text: str, line: str) -> int:
    if not text.isdigit() or not text.isascii() or len(text) > 5 or int(text) > 65535 \
            or (len(text) > 1 and text[0] == "0"):
        raise ProxyError(f"bad port in PROXY line: {line!r}")
    return int(text)


def _parse_v2(data: bytes) -> Header | NeedData:
    head = bytes(data[:16])
    if not V2_SIGNATURE.startswith(head[:len(V2_SIGNATURE)]):
        raise ProxyError(f"not a PROXY header: {head!r}")
    if len(head) < 16:
        return NEED_DATA
    version_command, family, size = struct.unpack("!BBH", head[12:16])
    if version_command >> 4 != 2:
        raise ProxyError(f"PROXY v2 header of version {version_command >> 4}")
    command = version_command & 0x0F
    if command not in (0, 1):
        raise ProxyError(f"PROXY v2 header with command {command}")
    if 16 + size > V2_MAX:
        raise ProxyError(f"PROXY v2 header of {16 + size} bytes (at most {V2_MAX}: no TLVs)")
    if len(data) < 16 + size:
        return NEED_DATA
    length = 16 + size
    if command == 0:  # LOCAL: the proxy's own connection (a health check)
        return Header(None, length, local=True)
    if family not in _V2_ADDRESSES:
        raise ProxyError(f"PROXY v2 header of unknown family 0x{family:02x}")
    if size < _V2_ADDRESSES[family]:
        raise ProxyError(f"PROXY v2 address block of {size} bytes for family 0x{family:02x}")
    block = bytes(data[16:length])
    if family in (0x11, 0x12):
        source = ipaddress.IPv4Address(block[0:4])
        port = struct.unpack("!H", block[8:10])[0]
    elif family in (0x21, 0x22):
        source = ipaddress.IPv6Address(block[0:16])
        port = struct.unpack("!H", block[32:34])[0]
    else:  # unspecified or unix: no network address to use
        return Header(None, length)
    return Header((_text(source), port), length)


def _text(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    """An address as the rest of the server writes it: an IPv4 client proxied over IPv6
    (``::ffff:10.1.2.3``) is ``10.1.2.3``, so per-address counts see one address."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(address)


def v1(source: tuple[str, int], destination: tuple[str, int]) -> bytes:
    """The v1 header a proxy sends for a TCP connection (for tests and tools)."""
    family = "TCP6" if ":" in source[0] else "TCP4"
    return (f"PROXY {family} {source[0]} {destination[0]} {source[1]} {destination[1]}\r\n"
            .encode("ascii"))


def v2(source: tuple[str, int] | None, destination: tuple[str, int] | None = None,
       tlvs: bytes = b"") -> bytes:
    """The v2 header a proxy sends: PROXY for a TCP connection from ``source`` (to
    ``destination``, else the unspecified address of its family), or LOCAL when
    ``source`` is None (for tests and tools)."""
    if source is None:
        return V2_SIGNATURE + struct.pack("!BBH", 0x20, 0x00, len(tlvs)) + tlvs
    src = ipaddress.ip_address(source[0])
    if destination is None:
        destination = ("0.0.0.0" if src.version == 4 else "::", 0)
    dst = ipaddress.ip_address(destination[0])
    if src.version != dst.version:
        raise ValueError("source and destination of one family, please")
    family = 0x11 if src.version == 4 else 0x21
    block = src.packed + dst.packed + struct.pack("!HH", source[1], destination[1]) + tlvs
    return V2_SIGNATURE + struct.pack("!BBH", 0x21, family, len(block)) + block


def check_proxies(proxies: tuple[str, ...]) -> None:
    """Refuse (ValueError, one line) an entry of ``trusted_proxies`` that is not an
    address or a network."""
    for proxy in proxies:
        try:
            ipaddress.ip_network(proxy, strict=False)
        except ValueError:
            raise ValueError(f"{proxy!r} is not an IP address or network (such as "
                             "10.0.0.5 or 10.0.0.0/24)") from None


def trusted(proxies: tuple[str, ...]) -> Callable[[str], bool]:
    """Whether a peer's address is one of ``proxies`` (addresses or networks, already
    checked by :func:`check_proxies`); with none, nobody is."""
    networks = tuple(ipaddress.ip_network(p, strict=False) for p in proxies)
    if not networks:
        return lambda address: False

    def test(address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        return any(ip in network for network in networks)

    return test
