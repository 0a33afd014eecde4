"""The parlor a node runs, as every part of the cluster reads it (docs/design.md,
principle 7)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from server.session import Commands, Venue

if TYPE_CHECKING:
    from server.online import Online
    from server.services.accounts import Accounts
    from server.services.games import GameHost
    from server.throttle import LoginThrottle, Sliding


class LocalParlor(Venue, Protocol):
    """The parlor this node runs, as the cluster reads it: its games and players, the
    accounts and the command table (a command relayed here runs for a stand-in
    session, which holds the parlor as a session does: :class:`~server.session.Venue`),
    the login throttles the nodes share, whether it is stopping, a notice to a player,
    and a reload or a shutdown that reached this node."""

    host: "GameHost"
    online: "Online"
    accounts: "Accounts"
    registry: Commands
    draining: bool
    throttle: "LoginThrottle"
    name_throttle: "LoginThrottle"
    logins: "Sliding"
    creations: "Sliding"
    creations_everywhere: "Sliding"

    def tell(self, account_id: int, text: str) -> None: ...

    def request_reload(self) -> None: ...

    def request_shutdown(self, message: str, *, everywhere: bool = True,
                         node: str | None = None, hand_over: bool = False) -> None: ...
