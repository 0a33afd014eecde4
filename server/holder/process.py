"""The holder process: listening sockets, every connection's descriptor, and the parlor
as a supervised child.

It is small on purpose and changes seldom: whatever restarts, it does not. It never reads
a byte a player sends (that is the parlor's, in order, exactly once): while no parlor
runs it only watches each socket for input, to tell a player who types in the gap, once,
that the parlor is restarting (:data:`GAP_NOTICE`; to a browser's /play WebSocket, in a
frame). The one exception is TLS (telnet's and the web door's HTTPS),
whose handshakes it makes and whose plain bytes it copies to the parlor
(``server/holder/tls_relay.py``), so that those players stay too.

A reload starts the next parlor first and lets it load its code and configuration (the
slow part: seconds of imports) while the old one still serves; only once it says Hello is
the old one told to hand over, so the gap players see is the hand-over and the new
parlor's start on the database, not its imports. After a crash there is nobody to wait
for, so the holder keeps a spare: a parlor that has loaded and waits, unseen, for
connections (``spare``; ``[server] hold_spare``). A crash hands every connection to it at
once, and the gap is only its start on the database; a new spare then loads. A reload
does not use it (it was loaded with the code before): it is replaced after.
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
from typing import TYPE_CHECKING, Callable

from server.collector import give_back
from server.holder import messages
from server.holder.channel import Channel, pair
from server.holder.messages import (Carried, HandedOver, Hello, Hold, Release, Reload, ReloadMe,
                                    Resume, Resumed, Stop, Update)

if TYPE_CHECKING:
    from server.holder.tls_relay import TLSRelay

log = logging.getLogger("esterport.holder")

ENVIRON = "ESTERPORT_HELD"  # tells the child it is a held parlor, and its descriptors
GAP_NOTICE = b"\r\nThe parlor is restarting; what you typed runs in a moment.\r\n"
# to a /play WebSocket: the same words in one binary frame (FIN, a length under 126)
GAP_FRAME = bytes([0x82, len(GAP_NOTICE)]) + GAP_NOTICE
RELOAD_WAIT = 30.0   # a parlor told to hand over is killed after this long
READY_WAIT = 120.0   # the next parlor has this long to load before a reload is given up
STOP_WAIT = 30.0     # and one told to stop
BACKOFF = (0.2, 0.5, 1.0, 2.0, 5.0, 10.0)  # between restarts of a parlor that keeps failing
STEADY = 60.0        # a parlor that ran this long starts the backoff again from the top
SPARE_AFTER = 2.0    # seconds after a parlor is given its connections before a spare loads


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


SERVING, WAITING = "esterport:serve", "esterport:spare"  # a parlor's process name


def name_process(name: str) -> None:
    """Name this process as ``ps`` and ``/proc/<pid>/comm`` show it (15 bytes at most):
    a parlor that serves, or one loaded and waiting (a spare, a reload's next)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(15, name.encode()[:15], 0, 0, 0)  # PR_SET_NAME
    except (OSError, AttributeError):
        pass


def parlors(holder: int) -> dict[int, str]:
    """The parlors under holder ``holder``: process id -> name (:data:`SERVING`, or
    :data:`WAITING` for a spare or a reload's next), for operators' scripts and tests."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdecimal():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                stat = fh.read()
        except OSError:
            continue
        name, _, rest = stat.partition("(")[2].rpartition(")")
        if int(rest.split()[1]) == holder:
            found[int(entry)] = name
    return found


def serving_parlor(holder: int) -> int | None:
    """The process id of the parlor that serves under holder ``holder``, if any."""
    return next((pid for pid, name in parlors(holder).items() if name == SERVING), None)


def _die_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    """The parlor gets SIGTERM (and stops as it would) if the holder dies first."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class Child:
    """One parlor process, and its end of the socket pair."""

    def __init__(self, holder: "Holder") -> None:
        self.holder = holder
        self.proc: asyncio.subprocess.Process | None = None
        self.channel: Channel | None = None
        self.hello = asyncio.Event()   # it said Hello: loaded, waiting for its connections
        self.given = False             # its connections were handed to it
        self.handed_over = False       # it said HandedOver (a reload)

    async def start(self) -> None:
        ours, theirs = pair()
        self.channel = Channel(ours, lambda m, fd: self.holder._on_message(self, m, fd),
                               lambda: None)
        environ = dict(os.environ)
        environ[ENVIRON] = json.dumps({
            "v": messages.VERSION, "control": theirs.fileno(),
            **{name: sock.fileno() for name, sock in self.holder.listeners.items()}})
        try:
            self.proc = await asyncio.create_subprocess_exec(
                *self.holder.argv, env=environ, preexec_fn=_die_with_parent,
                pass_fds=[theirs.fileno(), *(s.fileno() for s in self.holder.listeners.values())])
        finally:
            theirs.close()
        log.info("parlor started (pid %d)", self.proc.pid)

    async def ready(self, within: float) -> bool:
        """Wait until it says Hello; False if it ends or is silent ``within`` seconds."""
        assert self.proc is not None
        ended = asyncio.ensure_future(self.proc.wait())
        hello = asyncio.ensure_future(self.hello.wait())
        try:
            await asyncio.wait({ended, hello}, timeout=within,
                               return_when=asyncio.FIRST_COMPLETED)
        finally:
            ended.cancel()
            hello.cancel()
        return self.hello.is_set() and self.proc.returncode is None

    def send(self, message: object, fd: int | None = None) -> None:
        if self.channel is not None:
            self.channel.send(message, fd)

    async def end(self, limit: float, why: str) -> int:
        """Wait for it to exit; killed past ``limit`` seconds. Its exit status."""
        assert self.proc is not None
        try:
            async with asyncio.timeout(limit):
                return await self.proc.wait()
        except TimeoutError:
            log.error("the parlor (pid %d) did not %s within %.0f s; killing it",
                      self.proc.pid, why, limit)
            self.proc.kill()
            return await self.proc.wait()

    def close(self) -> None:
        if self.channel is not None:
            self.channel.close()
            self.channel = None


class Holder:
    """Run the parlor (``argv``: ``python -m commands.app`` and the operator's arguments)
    as a child over ``listeners`` (name -> socket), restart it when it ends, and keep
    every connection it hands over. ``check`` validates the configuration on disk before
    a reload (it raises with the reason)."""

    def __init__(self, argv: list[str], listeners: dict[str, socket.socket],
                 check: Callable[[], None], pid_file: str | None = None,
                 spare: bool = True, relays: "list[TLSRelay] | None" = None) -> None:
        self.argv = argv
        # TLS ports, ended here and relayed to listeners ("tls": telnet, "https": the web)
        self.relays = relays or []
        self.keep_spare = spare
        self.listeners = listeners
        self.check = check
        self.pid_file = pid_file
        self.held: dict[int, tuple[int, Carried]] = {}   # conn -> (descriptor, state)
        self.next_conn = 1
        self.current: Child | None = None   # the parlor that serves (or is starting to)
        self.successor: Child | None = None  # a reload's next parlor, loading
        self.spare: Child | None = None      # loaded, waiting for a crash (keep_spare)
        self._sparing: asyncio.Task | None = None
        self.stopping = False
        self.reloads = 0
        self.restarts = 0
        self._reload: asyncio.Task | None = None
        self._watching: set[int] = set()  # descriptors watched for input in a gap
        self._stop = asyncio.Event()
        self._code = 0

    # -- the children ----------------------------------------------------------------------
    async def run(self) -> int:
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGHUP, self.reload)
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.stop)
        if self.pid_file:
            with open(self.pid_file, "w") as out:
                out.write(f"{os.getpid()}\n")
        try:
            for relay in self.relays:
                await relay.start()
            failures = 0
            self.current = await self._spawn()
            while not self.stopping:
                child = self.current
                assert child is not None and child.proc is not None
                started = time.monotonic()
                code = await child.proc.wait()
                child.close()
                if self.stopping:
                    break
                if self.current is child:   # (not replaced by a reload already)
                    self._watch_gap()   # until the next parlor has its connections
                if self._reload is not None:   # a reload under way puts its successor in
                    await asyncio.wait({self._reload})
                    if self.current is not child:
                        # it loaded and took every connection: whatever ends it next is
                        # no crash loop (a kill soon after a reload is served by the spare)
                        failures = 0
                        continue
                if child.handed_over:   # (the reload gave up on its successor)
                    code = -1
                if code == 0:   # it stopped for good (@SHUTDOWN): so does the holder
                    break
                self.restarts += 1
                failures = 0 if time.monotonic() - started > STEADY else failures + 1
                # the spare, unless the parlor keeps failing (then the backoff below)
                spare = await self._take_spare() if failures <= 2 else None
                if spare is not None and not self.stopping:  # loaded: it serves at once
                    log.error("the parlor ended (exit %s); its spare (pid %d) takes its %d "
                              "connection(s)", code, spare.proc.pid, len(self.held))
                    self.current = spare
                    self._give(spare)
                    continue
                delay = BACKOFF[min(failures, len(BACKOFF) - 1)]
                log.error("the parlor ended (exit %s); starting it again in %.1f s, with its "
                          "%d connection(s)", code, delay, len(self.held))
                try:
                    async with asyncio.timeout(delay):
                        await self._stop.wait()
                except TimeoutError:
                    pass
                if not self.stopping:
                    self.current = await self._spawn()
            if self.current is not None and self.current.proc is not None:
                self._code = self.current.proc.returncode or 0
        finally:
            for relay in self.relays:
                await relay.close()
            if self._sparing is not None:
                self._sparing.cancel()
            for child in (self.current, self.successor, self.spare):
                if child is not None:
                    if child.proc is not None and child.proc.returncode is None:
                        child.proc.kill()
                        await child.proc.wait()
                    child.close()
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

    async def _spawn(self) -> Child:
        child = Child(self)
        await child.start()
        return child

    # -- the spare ---------------------------------------------------------------------------
    def _spare_later(self) -> None:
        """A parlor has its connections: load a spare beside it, once it has started."""
        if self.keep_spare and not self.stopping and self._sparing is None \
                and self.spare is None:
            self._sparing = asyncio.get_running_loop().create_task(self._load_spare())

    async def _load_spare(self) -> None:
        try:
            await asyncio.sleep(SPARE_AFTER)  # the serving parlor's start comes first
            if self.stopping or self._reload is not None:
                return
            spare = self.spare = await self._spawn()
            if await spare.ready(READY_WAIT):
                assert spare.proc is not None
                log.info("a spare parlor (pid %d) is loaded", spare.proc.pid)
            elif self.spare is spare:  # (not taken meanwhile by a crash)
                log.error("the spare parlor did not load; none is kept")
                self.spare = None
                await self._drop(spare)
        finally:
            self._sparing = None

    async def _take_spare(self) -> Child | None:
        """The spare, once it has loaded (it may be loading still: it began before any
        new parlor would), to serve now; None if there is none or it failed."""
        spare, self.spare = self.spare, None
        if spare is None:
            return None
        if await spare.ready(READY_WAIT) and not self.stopping:
            return spare
        await self._drop(spare)
        return None

    async def _drop(self, child: Child | None) -> None:
        if child is None:
            return
        if child.proc is not None and child.proc.returncode is None:
            child.proc.kill()
            await child.proc.wait()
        child.close()

    def reload(self) -> None:
        """SIGHUP: check the configuration on disk, start the next parlor, and once it
        has loaded, have the old one hand over to it."""
        if self.stopping or self._reload is not None:
            return
        if self.current is None or not self.current.given:
            log.warning("reload asked while the parlor starts; ignored")
            return
        try:
            self.check()
        except Exception as err:  # noqa: BLE001 - any reason, in one line
            log.error("reload refused: %s; the parlor keeps running", err)
            print(f"esterport: reload refused: {err}; the parlor keeps running",
                  file=sys.stderr, flush=True)
            return
        self._reload = asyncio.get_running_loop().create_task(self._reloading())

    async def _reloading(self) -> None:
        try:
            log.info("reloading the parlor: the next one loads")
            if self._sparing is not None:  # a spare has the code before: replaced after
                self._sparing.cancel()
            spare, self.spare = self.spare, None
            await self._drop(spare)
            successor = self.successor = await self._spawn()
            if not await successor.ready(READY_WAIT):
                log.error("reload given up: the next parlor did not start; the parlor "
                          "keeps running")
                if successor.proc is not None and successor.proc.returncode is None:
                    successor.proc.kill()
                    await successor.proc.wait()
                successor.close()
                self._spare_later()
                return
            old = self.current
            assert old is not None
            old.send(Reload())
            await old.end(RELOAD_WAIT, "hand over")
            self.current, self.successor = successor, None
            self.reloads += 1
            self._give(successor)
        finally:
            self.successor = None
            self._reload = None

    def stop(self) -> None:
        """SIGTERM: the parlor stops (closing every connection), then the holder."""
        if self.stopping:
            return
        self.stopping = True
        self._stop.set()
        for waiting in (self.successor, self.spare):
            if waiting is not None and waiting.proc is not None \
                    and waiting.proc.returncode is None:
                waiting.proc.kill()
        if self.current is not None:
            self.current.send(Stop())
            child = self.current
            asyncio.get_running_loop().create_task(child.end(STOP_WAIT, "stop"))

    # -- messages --------------------------------------------------------------------------
    def _on_message(self, child: Child, message: object, fd: int | None) -> None:
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
            log.info("parlor %d loaded", message.pid)
            child.hello.set()
            if child is self.current and not child.given:
                self._give(child)
        elif isinstance(message, HandedOver):
            child.handed_over = True
        elif isinstance(message, ReloadMe):
            if child is self.current:
                self.reload()
        else:
            log.warning("ignored %s from the parlor", type(message).__name__)

    def _give(self, child: Child) -> None:
        """Hand the parlor every connection (it is the one that serves now)."""
        self._stop_watching()
        child.given = True
        for conn, (fd, carried) in sorted(self.held.items()):
            child.send(Resume(carried), fd)
        child.send(Resumed(count=len(self.held), next_conn=self.next_conn))
        log.info("parlor attached; %d connection(s) handed to it", len(self.held))
        # once the messages have gone, what they took goes back to the system (thousands
        # of states and the buffers that carried them: the heap would keep those pages)
        asyncio.get_running_loop().call_later(SPARE_AFTER, give_back)
        self._spare_later()

    # -- the gap ---------------------------------------------------------------------------
    def _watch_gap(self) -> None:
        loop = asyncio.get_running_loop()
        for fd, carried in self.held.values():
            # (not a client inside an MCCP2 stream: plain words would corrupt it)
            if fd not in self._watching and not carried.compressing:
                loop.add_reader(fd, self._typed_in_gap, fd, carried.websocket)
                self._watching.add(fd)

    def _typed_in_gap(self, fd: int, websocket: bool) -> None:
        """Input waits for the next parlor; the player hears why, once per gap."""
        self._unwatch(fd)
        try:
            os.write(fd, GAP_FRAME if websocket else GAP_NOTICE)
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
