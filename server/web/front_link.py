"""The parlor's end of the web door's front (``server/web/front.py``, its own process).

:class:`FrontLink` starts the front with the door's listening socket and two socket
pairs, and serves what comes back on them:

* **questions** (the stream pair): a request the front read whole. It is run through the
  door's own ASGI app (uvicorn's app, proxy headers included) as uvicorn would run it,
  with the same scope, and its answer (status, headers, body) is sent back to be written.
* **handed connections** (the ``SOCK_SEQPACKET`` pair): a live stream or a WebSocket's
  socket, with the bytes the front read of it. The door's uvicorn takes it as if it had
  accepted it (:meth:`FrontLink.adopt`), counted in the door's budget.

A front that does not say it is ready within :data:`READY_TIMEOUT` seconds is an error of
the door's start; one that dies later is started again (its listening socket is the
door's, so connections wait in the kernel meanwhile).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import sys
import urllib.parse
from pathlib import Path
from typing import Any, Callable

import httptools

from server.changes import Changes
from server.holder.channel import receive_one
from server.web.front import HANDED_MOST, RELAYED, frame, read_frame

log = logging.getLogger(__name__)

READY_TIMEOUT = 20.0     # seconds a new front has to say it is ready
RESTART_AFTER = 1.0      # seconds before a front that died is started again
ROOT = Path(__file__).resolve().parents[2]   # where ``server`` is imported from


class FrontError(OSError):
    """The front did not start."""


class FrontLink:
    """The front process of one listening socket, and what it asks of the parlor.

    ``app`` is the ASGI app a question is put to, ``server_address`` the door's
    (host, port) for the scope, ``adopt(sock, data)`` takes a handed connection, and
    ``changes`` is the parlor's count of changes, which the front reads to know when a
    copy it keeps is out of date."""

    def __init__(self, listener: socket.socket, settings: dict[str, Any], app: Any,
                 server_address: tuple[str, int],
                 adopt: Callable[[socket.socket, bytes, bool], Any], changes: Changes,
                 relay: socket.socket | None = None) -> None:
        self.listener = listener
        self.relay = relay     # the holder's relay of the HTTPS port, served by the front too
        self.changes = changes
        self.settings = settings
        self.app = app
        self.server_address = server_address
        self.adopt = adopt
        self.process: asyncio.subprocess.Process | None = None
        self.stopping = False
        self.answered = 0          # questions answered since the start (the tests count)
        self._writer: asyncio.StreamWriter | None = None
        self._hand: socket.socket | None = None
        self._task: asyncio.Task | None = None
        self._answers: set[asyncio.Task] = set()

    async def start(self) -> None:
        """Start the front and wait until it says it is ready. :class:`FrontError` if it
        does not."""
        reader = await self._spawn()
        try:
            async with asyncio.timeout(READY_TIMEOUT):
                header, _ = await read_frame(reader)
        except (TimeoutError, asyncio.IncompleteReadError, ConnectionError, ValueError):
            await self._end_process()
            raise FrontError("its front process did not start") from None
        log.debug("web front %s ready", header.get("ready"))
        self._task = asyncio.create_task(self._serve(reader))

    async def _spawn(self) -> asyncio.StreamReader:
        loop = asyncio.get_running_loop()
        pages, their_pages = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        hand, their_hand = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        shared = self.changes.share()
        settings = {**self.settings, "listen": self.listener.fileno(),
                    "pages": their_pages.fileno(), "hand": their_hand.fileno(),
                    "changes": shared,
                    "relay": self.relay.fileno() if self.relay is not None else None}
        passed = [self.listener.fileno(), their_pages.fileno(), their_hand.fileno(), shared]
        if self.relay is not None:
            passed.append(self.relay.fileno())
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)}
        try:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "server.web.front", json.dumps(settings),
                pass_fds=passed, stdin=asyncio.subprocess.DEVNULL, env=env)
        except OSError as err:
            pages.close()
            hand.close()
            raise FrontError(f"could not start its front process ({err})") from None
        finally:
            their_pages.close()
            their_hand.close()
            os.close(shared)
        hand.setblocking(False)
        self._hand = hand
        loop.add_reader(hand.fileno(), self._handed)
        reader, self._writer = await asyncio.open_unix_connection(sock=pages,
                                                                  limit=HANDED_MOST)
        return reader

    async def _serve(self, reader: asyncio.StreamReader) -> None:
        """Answer the front's questions until it is gone; then start another (unless the
        door is stopping)."""
        while True:
            try:
                header, body = await read_frame(reader)
            except (asyncio.IncompleteReadError, ConnectionError, ValueError):
                break
            task = asyncio.create_task(self._answer(header, body, self._writer))
            self._answers.add(task)
            task.add_done_callback(self._answers.discard)
        if self.stopping:
            return
        code = await self._end_process()
        log.warning("the web door's front process ended (%s); starting another", code)
        await asyncio.sleep(RESTART_AFTER)
        while not self.stopping:
            try:
                await self.start()
                return
            except FrontError as err:
                log.warning("the web door %s; trying again", err)
                await asyncio.sleep(RESTART_AFTER * 5)

    async def _answer(self, question: dict[str, Any], body: bytes,
                      writer: asyncio.StreamWriter | None) -> None:
        """Put one question to the app and send its answer back to the front that asked
        (``writer``; not to another started since, whose questions are numbered anew)."""
        status, headers, chunks, keep = 500, [], [], None
        try:
            scope = self._scope(question)
        except (httptools.HttpParserInvalidURLError, KeyError, TypeError, ValueError,
                UnicodeError):
            status, headers, chunks = 400, [(b"content-type", b"text/plain; charset=utf-8")], \
                [b"Bad request."]
        else:
            given = False
            finished = asyncio.Event()

            async def receive() -> dict[str, Any]:
                nonlocal given
                if not given:
                    given = True
                    return {"type": "http.request", "body": body, "more_body": False}
                await finished.wait()
                return {"type": "http.disconnect"}

            async def send(message: dict[str, Any]) -> None:
                nonlocal status, headers
                if message["type"] == "http.response.start":
                    status, headers = message["status"], list(message.get("headers", ()))
                elif message["type"] == "http.response.body":
                    chunks.append(message.get("body", b""))

            try:
                await self.app(scope, receive, send)
                # a page drawn from the parlor's copies: the front may keep it so long
                keep = scope["state"].get("keep")
            except Exception:   # the app's error page was sent, or none could be
                log.exception("a page failed")
                if not headers:
                    status, headers, chunks = 500, [
                        (b"content-type", b"text/plain; charset=utf-8")], [b"Something went wrong."]
            finally:
                finished.set()
        answer = b"".join(chunks)
        if status != 304 and not any(name.lower() == b"content-length" for name, _ in headers):
            headers.append((b"content-length", str(len(answer)).encode()))
        self.answered += 1
        if writer is not None and not writer.is_closing():
            answer_header = {
                "id": question["id"], "status": status,
                "headers": [[n.decode("latin-1"), v.decode("latin-1")] for n, v in headers]}
            if keep:   # seconds (the front keeps a copy far less long: front.KEEP_MOST)
                answer_header["keep"] = min(float(keep), 3600.0)
            writer.write(frame(answer_header, answer))

    def _scope(self, question: dict[str, Any]) -> dict[str, Any]:
        """The ASGI scope uvicorn would have made of the request (its httptools
        protocol's: the same path, raw path and query)."""
        target = question["target"].encode("latin-1")
        url = httptools.parse_url(target)
        raw_path = url.path
        path = raw_path.decode("ascii")
        if "%" in path:
            path = urllib.parse.unquote(path)
        version = question.get("version", "1.1")
        client = question["client"]
        return {
            "type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": version if version in ("1.0", "1.1") else "1.1",
            "server": self.server_address, "client": (str(client[0]), int(client[1])),
            "scheme": "https" if question.get("scheme") == "https" else "http",
            "method": question["method"], "root_path": "",
            "path": path, "raw_path": raw_path, "query_string": url.query or b"",
            "headers": [(n.lower().encode("latin-1"), v.encode("latin-1"))
                        for n, v in question["headers"]],
            "state": {},
        }

    def _handed(self) -> None:
        """Connections the front handed over: each to the door's uvicorn."""
        assert self._hand is not None
        while True:
            try:
                data, fd, whole = receive_one(self._hand, HANDED_MOST)
            except (BlockingIOError, InterruptedError):
                return
            except OSError as err:
                log.warning("the web front's socket failed: %s", err)
                self._close_hand()
                return
            if not data and fd is None and whole:
                self._close_hand()
                return
            if fd is None or not data:   # (a cut message's descriptor is closed already)
                if fd is not None:
                    os.close(fd)
                continue
            sock = socket.socket(fileno=fd)
            asyncio.ensure_future(self._adopt(sock, data[1:], data[:1] == RELAYED))

    async def _adopt(self, sock: socket.socket, data: bytes, relayed: bool) -> None:
        try:
            await self.adopt(sock, data, relayed)
        except OSError as err:   # the browser left in the meantime
            log.debug("a handed connection could not be taken: %s", err)
            sock.close()

    def _close_hand(self) -> None:
        if self._hand is not None:
            try:
                asyncio.get_running_loop().remove_reader(self._hand.fileno())
            except (ValueError, RuntimeError):
                pass
            self._hand.close()
            self._hand = None

    async def _end_process(self, wait: bool = True) -> int | None:
        """Close the links, so that the front ends, and wait until it has (killed if it
        lingers); without ``wait``, let it end by itself (this process is about to)."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        self._close_hand()
        process, self.process = self.process, None
        if process is None or not wait:
            return None
        try:
            async with asyncio.timeout(3):
                return await process.wait()
        except TimeoutError:
            process.kill()
            return await process.wait()

    async def stop(self, wait: bool = True) -> None:
        """Stop the front: it answers what it was asking 503 and closes its
        connections. ``wait``: until it has ended (not at a reload, whose gap it would
        lengthen: the front ends on its own in a moment)."""
        self.stopping = True
        if self._task is not None:
            self._task.cancel()
        for task in list(self._answers):
            task.cancel()
        await self._end_process(wait)
