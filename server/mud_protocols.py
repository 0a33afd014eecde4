"""GMCP and MSSP, the MUD protocols a session offers over telnet: offered once the
client has shown it speaks telnet, GMCP sent only to a client that agreed."""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING, Any, Protocol

from server.text import clean

if TYPE_CHECKING:
    from server.services.accounts import Member
    from server.terminal import Terminal

# GMCP Core.Supports messages heard, and the packages a client may name (a bound on
# what one connection keeps)
SUPPORTS = ("core.supports.set", "core.supports.add", "core.supports.remove")
MAX_SUPPORTS = 20
# The GMCP packages clients support, one set for every session that names the same ones
# (a kind of client always sends the same list): a session's own copy cost 1.2 KB
_SHARED_SUPPORTS: dict[frozenset[str], frozenset[str]] = {}


def shared_supports(names: frozenset[str]) -> frozenset[str]:
    found = _SHARED_SUPPORTS.get(names)
    if found is None:
        if len(_SHARED_SUPPORTS) >= 256:  # many kinds of lists: start afresh
            _SHARED_SUPPORTS.clear()
        found = _SHARED_SUPPORTS[names] = frozenset(sys.intern(name) for name in names)
    return found


class Greeter(Protocol):
    """The parlor's connections (``Connections``), as a session's GMCP asks them: to send
    a login's GMCP greeting, and a resume token to a client that asks after its login."""

    def greet_by_gmcp(self, session: Any) -> None: ...

    def issue_resume_token(self, session: Any) -> None: ...


class Listed(Protocol):
    """What MSSP and GMCP read of the parlor: what MUD listings are told of it, and its
    connections (:class:`Greeter`)."""

    connections: Greeter

    def mssp(self) -> dict[str, str]: ...


class MudProtocols:
    """A session's GMCP and MSSP (a part of :class:`~server.session.Session`, whose slots
    hold its state)."""

    __slots__ = ()
    parlor: Listed
    terminal: "Terminal"
    account: "Member | None"
    closed: bool
    log: logging.LoggerAdapter
    resume_digest: str | None
    client_name: str | None
    gmcp_supports: frozenset[str]

    @property
    def gmcp_on(self) -> bool:
        """Whether the client agreed to GMCP: for one that did not, nothing is built or
        sent (and queued text is not flushed early)."""
        return self.terminal.gmcp_on

    def gmcp(self, package: str, data: Any) -> None:
        if self.closed or not self.gmcp_on:
            return
        self.flush()  # keep the order: text queued before this goes first
        try:
            self.terminal.send_gmcp(package, data)
        except Exception:
            self.log.debug("GMCP %s not sent", package, exc_info=True)

    def offer_mud_protocols(self, late: bool = False) -> None:
        """Offer GMCP and MSSP (``Terminal.offer_mud_protocols``: not to a client that has
        not answered the options asked at connect; ``late``: its answer came since); MSSP's
        data goes out once the client agrees."""
        if self.closed:
            return
        try:
            offered = self.terminal.offer_mud_protocols(late)
        except Exception:
            self.log.debug("could not offer MUD protocols", exc_info=True)
            return
        if offered and self.terminal.mssp_on:  # the client agreed before it was offered
            self.agreed("mssp")                 # (MUD clients ask first)

    def agreed(self, option: str) -> None:
        """The client agreed to an option offered (``"gmcp"``, ``"mssp"``): MSSP's data goes
        out then; GMCP agreed only after login (the client answered late) gets what a
        login sends."""
        if self.closed:
            return
        if option == "mssp":
            try:
                self.terminal.send_mssp(self.parlor.mssp())
            except Exception:
                self.log.debug("MSSP not sent", exc_info=True)
        elif option == "gmcp" and self.account is not None:  # agreed only after login
            self.parlor.connections.greet_by_gmcp(self)

    def on_gmcp(self, package: str, data: Any) -> None:
        verb = str(package).lower()
        if verb in SUPPORTS and isinstance(data, list):
            # "Esterport.Spoken 1": game views carry their screen-reader lines too;
            # Set replaces the list, Add (a Mudlet package's own) and Remove change it
            named = frozenset(str(item).split()[0].lower() for item in data[:MAX_SUPPORTS]
                              if str(item).strip())
            if verb == "core.supports.set":
                self.gmcp_supports = shared_supports(named)
            elif verb == "core.supports.add":
                if len(self.gmcp_supports | named) <= MAX_SUPPORTS:  # past it: ignored
                    self.gmcp_supports = shared_supports(self.gmcp_supports | named)
            else:
                self.gmcp_supports = shared_supports(self.gmcp_supports - named)
            if "esterport.resume" in self.gmcp_supports and self.account is not None \
                    and not self.resume_digest:
                self.parlor.connections.issue_resume_token(self)  # declared after login
        elif verb == "core.hello" and isinstance(data, dict):
            self.client_name = clean(f"{data.get('client', '')} {data.get('version', '')}",
                                     max_len=60).strip() or None
