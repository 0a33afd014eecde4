"""TLS that outlives the parlor: the holder ends TLS and relays the plain bytes.

A TLS session's keys live in the process that made the handshake, so a connection the
parlor served over TLS itself would end with it. In a held parlor the holder makes the
handshakes instead, of telnet over TLS (``[server] tls_port``) and of the web door's HTTPS
(``[web] tls_port``), with ``[server] tls_certificate`` and ``tls_key``, and relays each
connection's plain bytes over a Unix socket to the parlor's relay listener for that port,
the player's address first as a PROXY v1 line. To the parlor that is a plain connection
like any other: the holder keeps its descriptor through a reload or a crash (a browser's
/play socket too), and the TLS side, here, never notices.

The relay socket's folder is private to the user who runs the server (0700): only the
holder connects to it, so the parlor reads the PROXY line of every connection there.
Each relay copies at most ``CHUNK`` bytes at a time and waits for the other side to take
them (``drain``), so a slow reader holds back its writer rather than memory.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import socket
import ssl
import tempfile

log = logging.getLogger("esterport.holder")

CHUNK = 16384


def relay_listener(backlog: int) -> tuple[socket.socket, str]:
    """The parlor's relay listener: a Unix socket in a new private folder. Returns the
    socket (inherited by every parlor) and its path."""
    folder = tempfile.mkdtemp(prefix="esterport-tls-")  # mode 0700
    path = os.path.join(folder, "relay")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(path)
        sock.listen(backlog)
    except OSError:
        sock.close()
        shutil.rmtree(folder, ignore_errors=True)
        raise
    sock.set_inheritable(True)
    return sock, path


def proxy_line(peer: object, local: object) -> bytes:
    """The PROXY v1 line that tells the parlor who the player is."""
    try:
        source, source_port = peer[0], int(peer[1])  # type: ignore[index]
        target, target_port = local[0], int(local[1])  # type: ignore[index]
    except (TypeError, IndexError, ValueError):
        return b"PROXY UNKNOWN\r\n"
    family = "TCP6" if ":" in source else "TCP4"
    if (":" in target) != (":" in source):
        target = "::" if family == "TCP6" else "0.0.0.0"
    return f"PROXY {family} {source} {target} {source_port} {target_port}\r\n".encode()


class TLSRelay:
    """Accept TLS on ``listener`` with ``context``; relay each connection to ``path``.
    ``what`` names the port's protocol in the log ("telnet", "HTTPS")."""

    def __init__(self, what: str, listener: socket.socket, context: ssl.SSLContext,
                 path: str, handshake_timeout: float) -> None:
        self.what = what
        self.listener = listener
        self.context = context
        self.path = path
        self.handshake_timeout = handshake_timeout
        self.server: asyncio.Server | None = None
        self.relays: set[asyncio.Task] = set()

    async def start(self) -> None:
        self.server = await asyncio.start_server(
            self._relay, sock=self.listener, ssl=self.context,
            ssl_handshake_timeout=self.handshake_timeout, limit=CHUNK)
        log.info("%s over TLS on port %d, relayed to the parlor", self.what,
                 self.listener.getsockname()[1])

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
        for task in list(self.relays):
            task.cancel()
        if self.relays:
            await asyncio.wait(self.relays, timeout=2.0)
        self.discard()

    def discard(self) -> None:
        """Close the public listener and remove the relay's folder (also of a relay
        never started: the holder could not open another of its ports)."""
        self.listener.close()
        shutil.rmtree(os.path.dirname(self.path), ignore_errors=True)

    @property
    def count(self) -> int:
        return len(self.relays)

    async def _relay(self, tls_in: asyncio.StreamReader, tls_out: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self.relays.add(task)
        plain_out: asyncio.StreamWriter | None = None
        try:
            _keepalive(tls_out.get_extra_info("socket"))
            # while no parlor runs (a gap), the connection waits in the listener's queue
            plain_in, plain_out = await asyncio.open_unix_connection(self.path, limit=CHUNK)
            plain_out.write(proxy_line(tls_out.get_extra_info("peername"),
                                       tls_out.get_extra_info("sockname")))
            up = asyncio.ensure_future(_pump(tls_in, plain_out))
            down = asyncio.ensure_future(_pump(plain_in, tls_out))
            try:
                await asyncio.wait({up, down}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                up.cancel()
                down.cancel()
                await asyncio.gather(up, down, return_exceptions=True)
        except (OSError, ssl.SSLError, asyncio.IncompleteReadError) as err:
            log.debug("a TLS relay ended: %s", err)
        finally:
            for writer in (plain_out, tls_out):
                if writer is not None:
                    writer.close()
            self.relays.discard(task)


async def _pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    """Copy until ``source`` ends; then end ``sink``'s writing side if it can."""
    while chunk := await source.read(CHUNK):
        sink.write(chunk)
        await sink.drain()
    if sink.can_write_eof():
        sink.write_eof()


def _keepalive(sock: socket.socket | None, idle: int = 60) -> None:
    """A dead player's TLS connection is found and closed as a plain one is."""
    if sock is None:
        return
    for level, option, value in (
        (socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1),
        (socket.IPPROTO_TCP, getattr(socket, "TCP_KEEPIDLE", None), idle),
        (socket.IPPROTO_TCP, getattr(socket, "TCP_KEEPINTVL", None), max(1, idle // 3)),
        (socket.IPPROTO_TCP, getattr(socket, "TCP_KEEPCNT", None), 3),
    ):
        if option is not None:
            try:
                sock.setsockopt(level, option, value)
            except OSError:
                pass
