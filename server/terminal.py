"""What a session asks of the player's end of the connection: the seam between the
parlor's sessions and telnet.

A session (``server/session.py``) reads lines, sends text and GMCP, and asks the
window's size; how that travels is its terminal's business. The one terminal there is
is telnet's, :class:`server.telnet.TelnetProtocol` (telnetlib3 under Esterport's policy),
for a telnet client, a MUD client and a browser's /play socket alike (a /play socket is
a telnet stream in WebSocket frames). Nothing outside ``server/telnet.py`` touches
telnetlib3's objects, and a test's fake terminal implements this, not telnetlib3's
insides.

The parts of a held parlor (``server/holder/``) ask a terminal a little more: which
connection the holder keeps (``held``), what a new parlor carries on (``carried``) and
the transport under it; those are not part of what a session uses.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol


class Terminal(Protocol):
    """The player's end of a connection, as a session uses it."""

    #: the client's window, as it last said (NAWS), else the listener's default; None
    #: when nothing is known
    cols: int | None
    rows: int | None
    #: the session on it, once there is one: told of a lost connection, of the options
    #: the client agreed to (``agreed("gmcp")``), and of its GMCP messages
    session: Any

    # -- who and where ---------------------------------------------------------------------
    def get_extra_info(self, name: str, default: Any = None) -> Any:
        """What the connection knows of itself: ``peername`` (the player's address, a
        trusted proxy's word for it included), ``sockname`` (the port they reached),
        ``TERM`` (the terminal type the client announced)."""

    @property
    def logged_in(self) -> bool:
        """Set once the player is in: the pre-login bounds no longer apply."""

    @logged_in.setter
    def logged_in(self, value: bool) -> None: ...

    # -- input -----------------------------------------------------------------------------
    async def read(self) -> str:
        """Everything the player sent since the last read, decoded ("" at the end). The
        connection is read no faster than the session calls this."""

    def discard(self) -> bool | None:
        """Drop what was received and not read yet (a flood): whether it ended inside
        a line, None when nothing was waiting."""

    def unread(self) -> bytes:
        """What was received and not read yet (a hand-over carries it on)."""

    def when_input(self, wake: Callable[[Any], None]) -> bool:
        """Call ``wake(session)`` once when input arrives, or its end (a closed
        connection, an error), instead of a ``read`` that waits for it: a session waits
        for its next line with no task of its own. False, and nothing kept, when something was
        received and not read yet (``read`` returns at once)."""

    def wake(self) -> None:
        """Call the ``wake`` that ``when_input`` keeps now, if there is one (the parlor
        stops: the session's end need not wait for its connection's)."""

    # -- output ----------------------------------------------------------------------------
    def send(self, text: str, go_ahead: bool = False) -> None:
        """Send ``text``, CR LF line ends already in it; ``go_ahead``: it ends with a
        prompt, which a MUD client is told of (telnet's GA) unless it asked for none."""

    @property
    def backlog(self) -> int:
        """Bytes sent and not yet taken by the client (a client that stops reading)."""

    def abort(self) -> None:
        """Drop the connection at once, with whatever waits to be sent."""

    def close(self) -> None:
        """Close the connection once what is sent has gone."""

    def echo(self, on: bool) -> None:
        """Let the client show what the player types (``on``), or not (a password)."""

    def hand_over(self) -> None:
        """A reload's hand-over begins: what is sent from now on goes so that the next
        parlor can go on with it (server/telnet.py: a compressed stream ends)."""

    # -- MUD protocols ---------------------------------------------------------------------
    @property
    def gmcp_on(self) -> bool:
        """Whether the client agreed to GMCP."""

    def send_gmcp(self, package: str, data: Any) -> None:
        """Send one GMCP message (``data`` as JSON)."""

    def offer_mud_protocols(self, late: bool = False) -> bool:
        """Offer GMCP and MSSP, unless the client has not answered the options asked at
        connect (``late``: its answer has come since); whether they were offered."""

    @property
    def mssp_on(self) -> bool:
        """Whether the client agreed to MSSP (MUD clients agree before it is offered)."""

    def send_mssp(self, variables: dict[str, Any]) -> None:
        """Send the MSSP table."""

    def release(self) -> None:
        """The session is over: let go of it (its memory is freed at once)."""
