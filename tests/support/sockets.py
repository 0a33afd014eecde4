"""Ways a client's connection dies, done for real to a real socket (Linux).

* ``fin``: the client closes politely (FIN).
* ``reset``: the client's host resets the connection (RST, as SO_LINGER 0 sends).
* ``vanish``: the network between them goes dead. A socket filter makes the client's
  kernel drop every segment that reaches it, so it never answers again: not the server's
  data, not its keepalive probes. The server sees an established, silent connection (a
  half-open socket) that only its TCP keepalive or user timeout can detect.
* ``reboot``: the client's host forgets the connection without a word (TCP_REPAIR lets a
  socket be closed without FIN or RST). The server learns of it only when it next sends
  something (a keepalive probe) and the client's kernel answers with a reset.

``vanish`` and ``reboot`` need CAP_NET_ADMIN (root) and Linux; ``half_open_supported()``
says whether this machine allows them.
"""

from __future__ import annotations

import ctypes
import socket
import struct

SO_ATTACH_FILTER = getattr(socket, "SO_ATTACH_FILTER", 26)
TCP_REPAIR = getattr(socket, "TCP_REPAIR", 19)

# one classic BPF instruction: BPF_RET | BPF_K with k = 0, "keep 0 bytes", i.e. drop
_DROP_ALL = ctypes.create_string_buffer(struct.pack("HBBI", 0x06, 0, 0, 0))


def _sock(conn) -> socket.socket:  # noqa: ANN001
    """The socket of a socket, a StreamWriter or a transport."""
    if isinstance(conn, socket.socket):
        return conn
    return conn.get_extra_info("socket")


def fin(conn) -> None:  # noqa: ANN001
    _sock(conn).shutdown(socket.SHUT_RDWR)


def reset(conn) -> None:  # noqa: ANN001
    _sock(conn).setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    _sock(conn).close() if isinstance(conn, socket.socket) else _close_transport(conn)


def vanish(conn) -> None:  # noqa: ANN001
    """Drop every segment arriving for this socket from now on; send nothing."""
    prog = struct.pack("HL", 1, ctypes.addressof(_DROP_ALL))
    _sock(conn).setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, prog)


def reboot(conn) -> None:  # noqa: ANN001
    """Forget the connection without telling the peer."""
    _sock(conn).setsockopt(socket.IPPROTO_TCP, TCP_REPAIR, 1)
    _sock(conn).close() if isinstance(conn, socket.socket) else _close_transport(conn)


def _close_transport(writer) -> None:  # noqa: ANN001
    transport = getattr(writer, "transport", writer)
    transport.abort()


def half_open_supported() -> bool:
    try:
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER,
                         struct.pack("HL", 1, ctypes.addressof(_DROP_ALL)))
            s.setsockopt(socket.IPPROTO_TCP, TCP_REPAIR, 1)
        return True
    except OSError:
        return False
