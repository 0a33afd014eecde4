"""GMCP and MSSP, the MUD protocols a session offers over telnet: offered once the
client has shown it speaks telnet, GMCP sent only to a client that agreed."""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING, Any

from telnetlib3.telopt import DO, GMCP, MSSP, TTYPE, WILL

from server.text import clean

if TYPE_CHECKING:
    from server.app import Parlor
    from server.services.accounts import Member

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


class MudProtocols:
    """A session's GMCP and MSSP (a part of :class:`~server.session.Session`, whose slots
    hold its state)."""

    __slots__ = ()
    parlor: "Parlor"
    writer: Any
    protocol: Any
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
        writer = self.writer
        local = getattr(writer, "local_option", None)
        if local is None:  # a writer of another kind: its send_gmcp decides
            return True
        remote = getattr(writer, "remote_option", None)
        return bool(local.enabled(GMCP) or (remote is not None and remote.enabled(GMCP)))

    def gmcp(self, package: str, data: Any) -> None:
        if self.closed or not self.gmcp_on:
            return
        self.flush()  # keep the order: text queued before this goes first
        try:
            self.writer.send_gmcp(package, data)
        except Exception:
            self.log.debug("GMCP %s not sent", package, exc_info=True)

    def offer_mud_protocols(self, late: bool = False) -> None:
        """Offer GMCP and MSSP; MSSP data goes out once the client agrees. A client that
        has not answered the telnet options asked at connect is offered nothing yet: nc
        never answers, and would print the option bytes (MSSP's is "F"); one that answers
        later is offered them then (``late``: its answer came, and nothing was offered)."""
        writer = self.writer
        if self.closed or not late and getattr(writer, "pending_option", {}).get(DO + TTYPE):
            return
        if late and (writer.pending_option.get(WILL + GMCP)
                     or writer.local_option.get(GMCP) is not None):
            return  # offered already (or carried on with it agreed)
        try:
            writer.iac(WILL, GMCP)
            writer.iac(WILL, MSSP)
            if not hasattr(self.protocol, "on_gmcp"):  # telnet's protocol wires its own
                writer.set_ext_callback(GMCP, self.on_gmcp)
        except Exception:
            self.log.debug("could not offer MUD protocols", exc_info=True)
            return
        local = getattr(writer, "local_option", None)
        if local is not None and local.enabled(MSSP):  # the client agreed before it was
            self.agreed(MSSP)                            # offered (MUD clients ask first)

    def agreed(self, option: bytes) -> None:
        """The client agreed to an option offered: MSSP's data goes out then; GMCP agreed
        only after login (the client answered late) gets what a login sends."""
        if self.closed:
            return
        if option == MSSP:
            try:
                self.writer.send_mssp(self.parlor.mssp())
            except Exception:
                self.log.debug("MSSP not sent", exc_info=True)
        elif option == GMCP and self.account is not None:  # agreed only after login
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
