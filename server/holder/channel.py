"""One end of the holder's socket pair: messages with at most one descriptor each.

A ``SOCK_SEQPACKET`` Unix socket pair keeps each message whole (one ``sendmsg``, one
``recvmsg``) and carries descriptors as ``SCM_RIGHTS``. Both ends are non-blocking and
served by the event loop: what cannot be sent at once waits in order, so a parlor that
accepts a thousand connections in one turn never blocks on the holder.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections import deque
from typing import Any, Callable

from server.holder import messages

log = logging.getLogger(__name__)

LARGEST = 1 << 20  # a message is at most this (a Carried's pending input is bounded)


def pair() -> tuple[socket.socket, socket.socket]:
    """The holder's end and the parlor's (inheritable: the parlor is a child process)."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    theirs.set_inheritable(True)
    return ours, theirs


def receive_one(sock: socket.socket, most: int) -> tuple[bytes, int | None, bool]:
    """One message of a ``SOCK_SEQPACKET`` socket and the descriptor that came with it (or
    None; the caller owns it): ``(data, fd, whole)``. ``whole`` is False for a message
    longer than ``most``, whose descriptor is then closed (a cut message is dropped);
    ``(b"", None, True)`` is the end of the stream. Raises what ``recv_fds`` raises
    (``BlockingIOError``: nothing to read now)."""
    data, fds, flags, _ = socket.recv_fds(sock, most, 1)
    fd = fds[0] if fds else None
    for extra in fds[1:]:
        os.close(extra)
    if flags & socket.MSG_TRUNC:
        if fd is not None:
            os.close(fd)
        return data, None, False
    return data, fd, True


class Channel:
    """Send and receive messages on one end of the pair.

    ``on_message(message, fd)`` is called for each message read (``fd`` is the descriptor
    that came with it, now owned by the callee, or None); ``on_closed()`` once, when the
    other end is gone."""

    def __init__(self, sock: socket.socket, on_message: Callable[[Any, int | None], None],
                 on_closed: Callable[[], None]) -> None:
        sock.setblocking(False)
        self.sock = sock
        self.on_message = on_message
        self.on_closed = on_closed
        self.closed = False
        self._out: deque[tuple[bytes, int | None]] = deque()  # descriptors are our dups
        self._writing = False
        self._drained: asyncio.Future | None = None
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(sock.fileno(), self._readable)

    def send(self, message: Any, fd: int | None = None) -> None:
        """Queue ``message`` (with a duplicate of ``fd``, taken now: the caller may close
        its own before the message leaves)."""
        if self.closed:
            return
        self._out.append((messages.encode(message), os.dup(fd) if fd is not None else None))
        if not self._writing:
            self._flush()

    async def drained(self, timeout: float) -> bool:
        """Wait until everything queued has been sent; False if it has not within
        ``timeout`` seconds (or the other end is gone)."""
        if not self._out:
            return not self.closed
        self._drained = self._loop.create_future()
        try:
            async with asyncio.timeout(timeout):
                await self._drained
        except TimeoutError:
            return False
        return not self.closed

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            self._loop.remove_reader(self.sock.fileno())
            if self._writing:
                self._loop.remove_writer(self.sock.fileno())
        except (ValueError, RuntimeError):
            pass  # the loop is closing
        for _, fd in self._out:
            if fd is not None:
                os.close(fd)
        self._out.clear()
        self.sock.close()
        if self._drained is not None and not self._drained.done():
            self._drained.set_result(None)

    # -- the loop's callbacks --------------------------------------------------------------
    def _flush(self) -> None:
        while self._out:
            data, fd = self._out[0]
            try:
                if fd is None:
                    self.sock.send(data)
                else:
                    socket.send_fds(self.sock, [data], [fd])
            except (BlockingIOError, InterruptedError):
                if not self._writing:
                    self._writing = True
                    self._loop.add_writer(self.sock.fileno(), self._flush)
                return
            except OSError as err:
                log.warning("the holder's socket failed on send: %s", err)
                self._gone()
                return
            self._out.popleft()
            if fd is not None:
                os.close(fd)
        if self._writing:
            self._writing = False
            self._loop.remove_writer(self.sock.fileno())
        if self._drained is not None and not self._drained.done():
            self._drained.set_result(None)

    def _readable(self) -> None:
        while not self.closed:
            try:
                data, fd, whole = receive_one(self.sock, LARGEST)
            except (BlockingIOError, InterruptedError):
                return
            except OSError as err:
                log.warning("the holder's socket failed on receive: %s", err)
                self._gone()
                return
            if not data and fd is None and whole:
                self._gone()
                return
            if not whole:
                log.warning("a holder message longer than %d bytes was dropped", LARGEST)
                continue
            try:
                version, message = messages.decode(data)
            except messages.Unknown as err:
                log.warning("ignored %s", err)
                if fd is not None:
                    os.close(fd)
                continue
            try:
                self.on_message(message, fd)
            except Exception:
                log.exception("handling %s failed", type(message).__name__)

    def _gone(self) -> None:
        if not self.closed:
            self.close()
            self.on_closed()
