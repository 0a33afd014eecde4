"""The parlor's end of the holder: what a held parlor tells its holder, and what it is
handed when it starts (:mod:`server.holder`)."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import os
import socket
from typing import TYPE_CHECKING, Any, Callable

from server.holder import messages
from server.holder.channel import Channel
from server.holder.messages import (Carried, HandedOver, Hello, Hold, Release, Reload, ReloadMe,
                                    Resume, Resumed, Stop, Update, Window)
from server.holder.process import ENVIRON, SERVING, WAITING, name_process

if TYPE_CHECKING:
    from server.session import Session

log = logging.getLogger(__name__)


class HolderError(RuntimeError):
    """The holder's word is missing or not understood."""


class HolderLink:
    """The parlor's side: hold each connection it accepts, keep its state current,
    release it when closed; take the connections of the parlor before it."""

    def __init__(self, control: socket.socket, listeners: dict[str, socket.socket],
                 version: int) -> None:
        self.version = version
        self.listeners = listeners
        self._control = control
        self.channel: Channel | None = None
        self.next_conn = 1
        self.handing_over = False   # a reload: closing a connection now keeps it held
        self.on_reload: Callable[[], None] | None = None
        self.on_stop: Callable[[], None] | None = None
        self._resumes: list[tuple[Carried, int]] = []
        self._resumed: asyncio.Future | None = None

    @classmethod
    def from_environ(cls) -> "HolderLink | None":
        """The link a held parlor's environment describes, or None when not held."""
        raw = os.environ.pop(ENVIRON, None)
        if raw is None:
            return None
        try:
            spec = json.loads(raw)
            version = int(spec.pop("v"))
            control = socket.socket(fileno=int(spec.pop("control")))
            listeners = {name: socket.socket(fileno=int(fd)) for name, fd in spec.items()}
        except (ValueError, KeyError, TypeError, OSError) as err:
            raise HolderError(f"{ENVIRON} is not a holder's ({err})") from None
        if version not in messages.SUPPORTED and version < messages.VERSION:
            log.warning("the holder speaks version %d, this parlor %d: fields it does not "
                        "know are ignored", version, messages.VERSION)
        return cls(control, listeners, version)

    async def connect(self) -> list[tuple[Carried, int]]:
        """Say Hello and take every connection the holder holds: ``(state, descriptor)``."""
        self._resumed = asyncio.get_running_loop().create_future()
        self.channel = Channel(self._control, self._on_message, self._on_closed)
        name_process(WAITING)
        self.channel.send(Hello(pid=os.getpid()))
        # no bound: a spare waits for as long as the parlor it stands in for serves, and
        # a holder that is gone closes the channel (``_on_closed``)
        await self._resumed
        name_process(SERVING)
        resumes, self._resumes = self._resumes, []
        return resumes

    # -- what the parlor says ----------------------------------------------------------------
    @property
    def holds_websockets(self) -> bool:
        """Whether the holder keeps /play WebSockets too (protocol version 2)."""
        return self.version >= 2

    def hold(self, transport: asyncio.BaseTransport, *, websocket: bool = False,
             peer: tuple | None = None) -> int | None:
        """A new connection (``websocket``: a /play socket; ``peer``: the player's
        address, when not the socket's): the holder keeps a duplicate of its socket.
        Its number."""
        sock = transport.get_extra_info("socket")
        if self.channel is None or self.handing_over or sock is None:
            return None
        if websocket and not self.holds_websockets:
            return None
        conn = self.next_conn
        self.next_conn += 1
        peer = peer or transport.get_extra_info("peername") or ("", 0)
        self.channel.send(Hold(Carried(conn, address=str(peer[0]), port=int(peer[1]),
                                       websocket=websocket)), sock.fileno())
        return conn

    def update(self, conn: int, session: "Session", pending: str = "") -> None:
        if self.channel is not None:
            self.channel.send(Update(carried(conn, session, pending)))

    def release(self, conn: int) -> None:
        if self.channel is not None and not self.handing_over:
            self.channel.send(Release(conn))

    def ask_reload(self) -> None:
        """Have the holder reload this parlor (as SIGHUP to it would)."""
        if self.channel is not None and not self.handing_over:
            self.channel.send(ReloadMe())

    async def handed_over(self, timeout: float = 10.0) -> bool:
        """Every state is sent: say so, and wait until the holder has it all."""
        if self.channel is None:
            return False
        self.channel.send(HandedOver())
        return await self.channel.drained(timeout)

    # -- what the holder says --------------------------------------------------------------
    def _on_message(self, message: Any, fd: int | None) -> None:
        if isinstance(message, Resume) and fd is not None:
            self._resumes.append((message.carried, fd))
            return
        if fd is not None:
            os.close(fd)
        if isinstance(message, Resumed):
            self.next_conn = max(self.next_conn, message.next_conn)
            if self._resumed is not None and not self._resumed.done():
                self._resumed.set_result(None)
        elif isinstance(message, Reload):
            if self.on_reload is not None:
                self.on_reload()
        elif isinstance(message, Stop):
            if self.on_stop is not None:
                self.on_stop()
        else:
            log.warning("ignored %s from the holder", type(message).__name__)

    def _on_closed(self) -> None:
        """The holder is gone (it would have stopped us first): stop as SIGTERM would."""
        log.error("the holder closed its end")
        if self._resumed is not None and not self._resumed.done():
            self._resumed.set_exception(HolderError("the holder closed its end"))
        if self.on_stop is not None and not self.handing_over:
            self.on_stop()


def carried(conn: int, session: "Session", pending: str = "") -> Carried:
    """What a new parlor needs of ``session`` to carry it on."""
    terminal = session.terminal
    peer = terminal.get_extra_info("peername") or ("", 0)
    side = getattr(getattr(terminal, "transport", None), "side", None)  # a /play socket's
    return Carried(
        conn=conn, address=str(peer[0]), port=int(peer[1]),
        account=session.account.id if session.account is not None else None,
        window=Window(cols=int(terminal.cols or 80), rows=int(terminal.rows or 24)),
        terminal=session.terminal_type, gmcp=terminal.gmcp_on,
        supports=tuple(sorted(session.gmcp_supports)),
        client=session.client_name, pending=pending[-16384:],
        room=session.room or "", watching=tuple(sorted(session.watching)),
        websocket=side is not None,
        compressing=bool(getattr(terminal, "compressing", False)),
        resume_digest=session.resume_digest or "",
        stream=base64.b64encode(side.tail).decode() if side is not None else "")
