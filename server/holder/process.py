"""The holder process: listening sockets, every connection's descriptor, and the parlor
as a supervised child.

It is small on purpose and changes seldom: whatever restarts, it does not. It never reads
a byte a player sends (that is the parlor's, in order, exactly once): while no parlor
runs it only watches each socket for input, to tell a player who types in the gap, once,
that the parlor is restarting (:data:`GAP_NOTICE`).
"""

from __future__ import annotations

import asyncio
import ctypes
import json
import logging
import os
import signal
import socket
import sys
import time
from typing import Callable

from server.holder import messages
from server.holder.channel import Channel, pair
from server.holder.messages import (Carried, HandedOver, Hello, Hold, Release, Reload, Resume,
                                    Resumed, Stop, Update)

log = logging.getLogger("esterport.holder")

ENVIRON = "ESTERPORT_HELD"  # tells the child it is a held parlor, and its descriptors
GAP_NOTICE = b"\r\nThe parlor is restarting; what you typed runs in a moment.\r\n"
RELOAD_WAIT = 30.0   # a parlor told to hand over is killed after this long
STOP_WAIT = 30.0     # and one told to stop
BACKOFF = (0.2, 0.5, 1.0, 2.0, 5.0, 10.0)  # between restarts of a parlor that keeps failing
STEADY = 60.0        # a parlor that ran this long starts the backoff again from the top


def listener(host: str, port: int, backlog: int) -> socket.socket:
    """A listening TCP socket the parlor inherits (as asyncio would make it)."""
    infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM,
                               flags=socket.AI_PASSIVE)
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(backlog)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def _die_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    """The parlor gets SIGTERM (and stops as it would) if the holder dies first."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class Holder:
    """Run the parlor (``argv``: ``python -m commands.app`` and the operator's arguments)
    as a child over ``listeners`` (name -> socket), restart it when it ends, and keep
    every connection it hands over. ``check`` validates the configuration on disk before
    a reload (it raises with the reason)."""

    def __init__(self, argv: list[str], listeners: dict[str, socket.socket],
                 check: Callable[[], None], pid_file: str | None = None) -> None:
        self.argv = argv
        self.listeners = listeners
        self.check = check
        self.pid_file = pid_file
        self.held: dict[int, tuple[int, Carried]] = {}   # conn -> (descriptor, state)
        self.next_conn = 1
        self.child: asyncio.subprocess.Process | None = None
        self.channel: Channel | None = None
        self.attached = asyncio.Event()   # the child said Hello
        self.handed_over = False          # the child said HandedOver (a reload)
        self.reloading = False
        self.stopping = False
        self.reloads = 0
        self.restarts = 0
        self._watching: set[int] = set()  # descriptors watched for input in a gap
        self._exit = asyncio.Event()
        self._code = 0

    # -- the child ---------------------------------------------------------------------------
    async def run(self) -> int:
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGHUP, self.reload)
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.stop)
        if self.pid_file:
            with open(self.pid_file, "w") as out:
                out.write(f"{os.getpid()}\n")
        try:
            failures, started = 0, 0.0
            while not self.stopping:
                started = time.monotonic()
                code = await self._run_child()
                if self.stopping:
                    break
                if self.handed_over:
                    self.reloads += 1
                    failures = 0
                    log.info("the parlor handed over its connections; starting the new one")
                    continue
                if code == 0:   # it stopped for good (@SHUTDOWN): so does the holder
                    self._code = 0
                    break
                self.restarts += 1
                failures = 0 if time.monotonic() - started > STEADY else failures + 1
                delay = BACKOFF[min(failures, len(BACKOFF) - 1)]
                log.error("the parlor ended (exit %s); starting it again in %.1f s, with its "
                          "%d connection(s)", code, delay, len(self.held))
                try:
                    async with asyncio.timeout(delay):
                        await self._exit.wait()
                except TimeoutError:
                    pass
        finally:
            self._stop_watching()
            for fd, _ in self.held.values():
                os.close(fd)
            self.held.clear()
            for sock in self.listeners.values():
                sock.close()
            if self.pid_file:
                try:
                    os.unlink(self.pid_file)
                except OSError:
                    pass
        return self._code

    async def _run_child(self) -> int:
        ours, theirs = pair()
        self.attached.clear()
        self.handed_over = False
        self.reloading = False
        self.channel = Channel(ours, self._on_message, self._on_closed)
        environ = dict(os.environ)
        environ[ENVIRON] = json.dumps({
            "v": messages.VERSION, "control": theirs.fileno(),
            **{name: sock.fileno() for name, sock in self.listeners.items()}})
        self.child = await asyncio.create_subprocess_exec(
            *self.argv, env=environ, preexec_fn=_die_with_parent,
            pass_fds=[theirs.fileno(), *(s.fileno() for s in self.listeners.values())])
        theirs.close()
        log.info("parlor started (pid %d)", self.child.pid)
        code = await self.child.wait()
        self.channel.close()
        self.channel = None
        self.child = None
        self._watch_gap()   # until the next parlor says Hello
        return code

    def reload(self) -> None:
        """SIGHUP: check the configuration on disk, then have the parlor hand over."""
        if self.stopping or self.reloading:
            return
        try:
            self.check()
        except Exception as err:  # noqa: BLE001 - any reason, in one line
            log.error("reload refused: %s; the parlor keeps running", err)
            print(f"esterport: reload refused: {err}; the parlor keeps running",
                  file=sys.stderr, flush=True)
            return
        if self.channel is None or not self.attached.is_set():
            log.warning("reload asked while the parlor starts; ignored")
            return
        self.reloading = True
        log.info("reloading the parlor")
        self.channel.send(Reload())
        asyncio.get_running_loop().create_task(self._bound_child(RELOAD_WAIT, "hand over"))

    def stop(self) -> None:
        """SIGTERM: the parlor stops (closing every connection), then the holder."""
        if self.stopping:
            return
        self.stopping = True
        self._exit.set()
        if self.channel is not None:
            self.channel.send(Stop())
            asyncio.get_running_loop().create_task(self._bound_child(STOP_WAIT, "stop"))

    async def _bound_child(self, limit: float, what: str) -> None:
        child = self.child
        if child is None:
            return
        try:
            async with asyncio.timeout(limit):
                await child.wait()
        except TimeoutError:
            log.error("the parlor did not %s within %.0f s; killing it", what, limit)
            child.kill()

    # -- messages --------------------------------------------------------------------------
    def _on_message(self, message: object, fd: int | None) -> None:
        if isinstance(message, Hold) and fd is not None:
            conn = message.carried.conn
            old = self.held.pop(conn, None)
            if old is not None:
                os.close(old[0])
            self.held[conn] = (fd, message.carried)
            self.next_conn = max(self.next_conn, conn + 1)
            return
        if fd is not None:
            os.close(fd)  # no other message carries one
        if isinstance(message, Update):
            entry = self.held.get(message.carried.conn)
            if entry is not None:
                self.held[message.carried.conn] = (entry[0], message.carried)
        elif isinstance(message, Release):
            entry = self.held.pop(message.conn, None)
            if entry is not None:
                self._unwatch(entry[0])
                os.close(entry[0])
        elif isinstance(message, Hello):
            self._attach(message)
        elif isinstance(message, HandedOver):
            self.handed_over = True
        else:
            log.warning("ignored %s from the parlor", type(message).__name__)

    def _attach(self, hello: Hello) -> None:
        """A parlor is up: stop watching for the gap and hand it every connection."""
        assert self.channel is not None
        self._stop_watching()
        for conn, (fd, carried) in sorted(self.held.items()):
            self.channel.send(Resume(carried), fd)
        self.channel.send(Resumed(count=len(self.held), next_conn=self.next_conn))
        self.attached.set()
        log.info("parlor %d attached; %d connection(s) handed to it", hello.pid, len(self.held))

    def _on_closed(self) -> None:
        pass  # the child's exit is what counts (``_run_child``)

    # -- the gap ---------------------------------------------------------------------------
    def _watch_gap(self) -> None:
        loop = asyncio.get_running_loop()
        for fd, _ in self.held.values():
            if fd not in self._watching:
                loop.add_reader(fd, self._typed_in_gap, fd)
                self._watching.add(fd)

    def _typed_in_gap(self, fd: int) -> None:
        """Input waits for the next parlor; the player hears why, once per gap."""
        self._unwatch(fd)
        try:
            os.write(fd, GAP_NOTICE)
        except OSError:
            pass  # full, or gone: the next parlor finds out

    def _unwatch(self, fd: int) -> None:
        if fd in self._watching:
            self._watching.discard(fd)
            try:
                asyncio.get_running_loop().remove_reader(fd)
            except (ValueError, RuntimeError):
                pass

    def _stop_watching(self) -> None:
        for fd in list(self._watching):
            self._unwatch(fd)
