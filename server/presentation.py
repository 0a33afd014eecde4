"""What each viewer is shown of a game: the one presentation path.

Every game reaches a screen through here, whether a player asks to see it (the game's
view command, a returning player) or an event arrives from the bus (``game.start``,
``game.update``, ``game.end``: plain data naming the game, its version and the lines
the engine's events were worded into). For each viewer this module decides what to send:

- the telnet text: a board (the header, the engine's view rendered for that viewer's
  width and colour) followed by the event's lines, or the event's lines alone;
- the GMCP package: the same view as JSON, on every change, for MUD clients.

Games supply views (``GameKind.view_for``/``render``) and sentences
(``describe_event``); they do not decide when boards are sent. That decision is
:func:`wants_board`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from server.bus import Event
from server.services.games import GameHost, LiveGame
from server.text import bold, wrap

if TYPE_CHECKING:
    from server.session import Session


@attrs.frozen
class Viewer:
    """Who looks at a game: the seat they play (None for a watcher)."""

    seat: int | None

    @classmethod
    def of(cls, session: "Session", game: LiveGame) -> "Viewer":
        return cls(game.seat_of(session.account.id) if session.account else None)


def wants_board(viewer: Viewer, event: Event) -> bool:
    """Whether ``event`` redraws the board for ``viewer`` (else: its lines alone).

    docs/design.md, Screens, principle 2, decided here and nowhere else. A board is drawn when the
    game starts or ends, when something begins that every player must look at (play
    after the draw, a Triad hand dealt, a new pass through the Pyramid Pack), and for a
    player when it becomes their move, or when they moved and move again on a board
    their move changed (Pyramid). A watcher gets one board per action that changed the
    shared board. Everything else (an opponent's move while it is not your turn, a tile
    drawn or turned in hand, AUTO's moves) is its lines alone.
    """
    data = event.data
    if event.kind != "game.update" or "to_move" not in data:
        return True  # the start, the end, or an event without an action's facts
    if data["new_phase"]:
        return True
    if viewer.seat is None:
        return data["board"] and not data["auto"]
    if viewer.seat not in data["to_move"]:
        return False
    if viewer.seat not in data["was_to_move"]:
        return True  # your move now
    return data["seat"] == viewer.seat and data["board"] and not data["auto"]


def keeps_quiet(viewer: Viewer, event: Event) -> bool:
    """Whether ``event`` is nothing at all for ``viewer``: another player's hidden action
    (a tile drawn or turned in their hand: docs/design.md, Screens, principle 4); its player gets
    their line, and what it changed shows on the next board."""
    data = event.data
    return (event.kind == "game.update" and "board" in data and not data["board"]
            and not data["new_phase"] and viewer.seat != data["seat"])


class Presentation:
    """Draws games for sessions: asked for (:meth:`show`) or told (:meth:`on_event`)."""

    def __init__(self, host: GameHost) -> None:
        self.host = host

    def show(self, session: "Session", game: LiveGame) -> None:
        """The board, as the player asked for it (or found it on their return)."""
        viewer = Viewer.of(session, game)
        view = game.view(viewer.seat)
        session.write(self._board(session, game, viewer, view))
        self._gmcp(session, game, viewer, view)

    def on_event(self, session: "Session", event: Event) -> None:
        """A game event from the bus, for one session (a player's or a watcher's)."""
        game_id, lines = event.data["game"], list(event.data.get("lines", ()))
        game = self.host.lookup(game_id)
        if game is None:  # ended and forgotten: what happened is still worth its lines
            if lines:
                session.notify("\n".join(lines))
        else:
            viewer = Viewer.of(session, game)
            view = game.view(viewer.seat)
            if wants_board(viewer, event):
                session.notify("\n".join([*lines, self._board(session, game, viewer, view)]))
            elif lines and not keeps_quiet(viewer, event):
                session.notify("\n".join(lines))
            self._gmcp(session, game, viewer, view)
        if event.kind == "game.end" and game_id in session.watching:
            session.watching.discard(game_id)
            session.unsubscribe(f"game:{game_id}")

    # -- the two renderings of one view ----------------------------------------------------
    @staticmethod
    def _board(session: "Session", game: LiveGame, viewer: Viewer, view: dict) -> str:
        """The header (title, whose move) and the board drawn from this viewer's view (read
        out as short lines, no drawing, for a screen reader: ``GameKind.speak``)."""
        if session.screenreader:
            board = "\n".join(line for fact in game.kind.speak(view, names=game.names)
                              for line in wrap(fact, session.width))
        else:
            board = game.kind.render(view, width=session.width, color=session.color,
                                     height=session.height - 1,  # the header's row
                                     names=game.names)
        header = bold(game.title)
        if game.outcome is None:
            movers = game.kind.to_move(game.state)
            if viewer.seat is not None and viewer.seat in movers:
                header += "  [your move]"
            elif movers:
                header += f"  [to move: {', '.join(game.seats[s].name for s in movers)}]"
        return f"{header}\n{board}"

    @staticmethod
    def _gmcp(session: "Session", game: LiveGame, viewer: Viewer, view: dict) -> None:
        if game.kind.gmcp_package:
            session.gmcp(game.kind.gmcp_package, {
                "game": game.id, "version": game.version, "seat": viewer.seat,
                "players": list(game.names), "finished": game.outcome is not None,
                "view": view})


__all__ = ["Presentation", "Viewer", "keeps_quiet", "wants_board"]
