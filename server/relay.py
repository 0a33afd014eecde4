"""Commands relayed between a cluster's nodes (``server/cluster/``).

Each game in play is driven by one node, its owner: the node that started it, or that
adopted it when its owner died. The owner alone applies its actions, runs its clocks and
its computer players. Ownership is fenced: every adoption raises the game's epoch in the
store, every write of the game is made under the epoch its writer holds
(``services/play.py``), and a node whose lease lapsed (it was paused) asks the store which
of its games are still its own before it acts on any (``Lease.fence``,
server/cluster/lease.py). Who plays which game on which node is in the Redis hash
``<prefix>games`` (game number -> owner, kind, players) and mirrored on every node by
``game`` events (server/cluster/games.py), so a node knows where to send a player's game
commands (server/cluster/routing.py).

A command about a game driven by another node is *relayed* there: the player's node
sends the line (and what the command needs of the player: name, screen, settings) on
the owner's topic ``node:<owner>``; the owner runs it for a stand-in session
(:class:`RelayedSession`) and sends back what it wrote, which the player's node shows
as the reply; a node asked about a game it no longer drives answers ``moved``, and the
asking node finds the one that does. The game's own events reach every player and watcher on every node by
the bus, drawn from the events alone.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from server.session import Session, Venue

log = logging.getLogger(__name__)

RELAY_TIMEOUT = 10.0  # seconds a relayed command may take before the player is told


class RelayedSession:
    """A player of another node, as a command run here for them sees them: what it
    writes is collected and sent back to their node, which shows it. Like a session, it
    holds the parlor, for the commands run for it."""

    closed = False
    flooding = False

    def __init__(self, parlor: "Venue", account: Any, view: dict[str, Any]) -> None:
        self.parlor = parlor
        self.account = account
        self.name = account.name
        self.id = -account.id
        self.room = view.get("room") or "plaza"
        self.width = view.get("width")
        self.height = view.get("height")
        self.color = bool(view.get("color", True))
        self.screenreader = bool(view.get("screenreader", False))
        self.board = view.get("board", "full")
        self.gmcp_supports = frozenset(view.get("gmcp_supports", ()))
        self.address = view.get("address", "")
        self.watching = frozenset(view.get("watching", ()))
        self.seen_versions: dict[int, int] = {int(k): v for k, v in view.get("seen", {}).items()}
        self.quit_warned_at = float(view.get("quit_warned_at", 0.0))
        self.reply_to = view.get("reply_to")
        self.ignoring: frozenset[int] = frozenset()
        self.last_command_at = time.time()
        self.log = log
        self.out: list[list[Any]] = []

    @property
    def account_id(self) -> int:
        return self.account.id

    @property
    def is_admin(self) -> bool:
        return bool(self.account.is_admin)

    def idle(self) -> float:
        return 0.0

    def write(self, text: str) -> None:
        self.out.append(["text", text])

    def notify(self, text: str) -> None:
        self.out.append(["notify", text])

    def gmcp(self, package: str, data: Any) -> None:
        self.out.append(["gmcp", package, data])

    def subscribe(self, topic: str) -> None:
        self.out.append(["subscribe", topic])

    def unsubscribe(self, topic: str) -> None:
        self.out.append(["unsubscribe", topic])

    def begin_reply(self) -> None:
        pass

    def end_reply(self) -> None:
        pass

    def prompt(self, text: str = "") -> None:
        pass

    def close(self, message: str | None = None) -> None:
        self.out.append(["close", message or ""])


def session_view(session: "Session") -> dict[str, Any]:
    """What a relayed command needs of the player who typed it."""
    return {"room": session.room, "width": session.width, "height": session.height,
            "color": session.color, "screenreader": session.screenreader,
            "board": session.board, "gmcp_supports": sorted(session.gmcp_supports),
            "address": session.address, "watching": sorted(session.watching),
            "seen": {str(k): v for k, v in session.seen_versions.items()},
            "quit_warned_at": session.quit_warned_at, "reply_to": session.reply_to}


def apply_relayed(session: "Session", out: list[list[Any]], view: dict[str, Any]) -> None:
    """Show on ``session`` what a command run on another node wrote for it."""
    for item in out:
        what = item[0]
        if what == "text":
            session.write(item[1])
        elif what == "notify":
            session.notify(item[1])
        elif what == "gmcp":
            session.gmcp(item[1], item[2])
        elif what == "subscribe":
            session.subscribe(item[1])
        elif what == "unsubscribe":
            session.unsubscribe(item[1])
        elif what == "close":
            session.close(item[1] or None)
    session.watching = frozenset(view.get("watching", session.watching))
    session.seen_versions.update({int(k): v for k, v in view.get("seen", {}).items()})
    session.quit_warned_at = float(view.get("quit_warned_at", session.quit_warned_at))
