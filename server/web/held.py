"""What makes a browser's /play WebSocket holdable by the holder (server/holder), so
that a reload or a crash of the parlor does not close it.

The holder keeps a duplicate of each /play socket's descriptor, as it does a telnet
socket's. Two things make that possible for a WebSocket:

* *No state in the process between messages.* A held door does not compress /play
  (permessage-deflate keeps a dictionary across messages), and what the parlor has read
  of a frame not yet whole (:attr:`FrameTail.tail`) goes to the holder with the rest of
  the session's state.
* *A parlor that takes a socket already open.* The session's
  :class:`~server.web.play.PlaySocket` speaks WebSocket with the websockets library's
  sans-I/O protocol begun in its OPEN state: it takes a socket from uvicorn once the
  handshake is done, and a handed-over descriptor in the next parlor alike.

At a hand-over the parlor stops reading from the socket, lets the session take what was
read, sends its state, and lets the socket go without a word: no close frame, no end of
the session. A fragmented message cut by a hand-over, or a frame the parlor was writing
when it was killed, is not carried (browsers send each command in one small frame); the
page then reconnects by its token, as after any drop.
"""

from __future__ import annotations

from websockets.frames import Frame
from websockets.protocol import Protocol, State


def wire_size(frame: Frame) -> int:
    """The bytes a browser's (masked, uncompressed) frame took on the wire."""
    n = len(frame.data)
    return 2 + 4 + (0 if n < 126 else 2 if n < 65536 else 8) + n


class FrameTail:
    """The bytes read of a frame not yet whole (a mixin: the class provides ``conn``, a
    websockets sans-I/O protocol): ``_arrived`` before bytes are parsed, ``_parsed``
    after, ``tail`` what the next parlor must parse first."""

    __slots__ = ()

    conn: Protocol
    _tail: bytearray

    def _tail_init(self) -> None:
        self._tail = bytearray()

    def _arrived(self, data: bytes) -> None:
        """Bytes from the socket, before they are parsed (only of a socket that may be
        held: an open one, not compressed, whose frames' sizes are what they carry)."""
        if self.conn.state is State.OPEN and not self.conn.extensions:
            self._tail += data

    def _parsed(self) -> None:
        """The frames just parsed (still in ``conn.events``) are no longer a tail."""
        if self._tail:
            for event in self.conn.events:
                if isinstance(event, Frame):
                    del self._tail[:wire_size(event)]

    @property
    def tail(self) -> bytes:
        """The bytes of a frame not yet whole (the next parlor parses them first)."""
        return bytes(self._tail)
