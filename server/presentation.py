"""What each viewer is shown of a game: the one presentation path.

A game reaches a screen as a *frame* (``Frame``, server/frames.py): one game as one
audience (a seat, or the watchers) sees it, with that audience's view, decided by the
game's own visibility rules when the frame was made. Every game event on the bus is a
frame with the lines its audience is told and the facts of the action
(``Play.publish``, server/services/play.py); asking for a board (the game's view command, OBSERVE, REPLAY, a
returning player) makes a frame of the game as it stands. This module draws frames and
nothing else: it never looks a game up, so a frame drawn on another node shows the same.

For a viewer and a frame, :func:`decide` says what to send (a board, its lines, or
nothing: docs/design.md, Screens, principles 2 and 4), and :func:`board_text` draws the
board in the viewer's form: the game's renderer at their width and colour, or, in
screen-reader mode, the game's spoken lines. GMCP gets the frame's view as JSON on every
change. The web door draws the same frames (``server/web/live.py``).
"""

from __future__ import annotations

import logging
import time
import weakref
from enum import Enum
from typing import TYPE_CHECKING, Any, Mapping

from server.bus import Event
from server.frames import Frame, OtherSchema, heard
from server.hosting import GameKind
from server.text import bold, strip_sgr, visible_len, wrap

if TYPE_CHECKING:
    from server.services.games import LiveGame
    from server.session import Session

log = logging.getLogger(__name__)

#: The version of the game stream's GMCP (docs/gmcp.md), in every ``<Game>.Game``
#: message: it rises when a field is renamed, removed or changes meaning.
GMCP_PROTOCOL = 1


class Shown(Enum):
    """What a viewer is sent of an event."""

    BOARD = "board"      # its lines, then the board (a game's end: the result after it)
    LINES = "lines"      # its lines alone
    NOTHING = "nothing"


def decide(frame: Frame, event_type: str = "game.update") -> Shown:
    """What the audience of ``frame`` (an event's) is sent.

    docs/design.md, Screens, principle 2, decided here and nowhere else. A board is drawn
    when the game starts or ends, when something begins that every player must look at
    (play after the draw, a Triad hand dealt, a new pass through the Pyramid Pack), and
    for a player when it becomes their move, or when they moved and move again on a
    board their move changed (Pyramid). A watcher gets one board per action that changed
    the shared board. Everything else (an opponent's move while it is not your turn, AUTO's
    moves) is its lines alone; an audience told no lines (another player's hidden
    action: principle 4) is sent nothing.
    """
    seat, facts = frame.seat, frame.facts
    if event_type != "game.update" or facts is None or facts.new_phase:
        board = True  # the start, the end, or an event without an action's facts
    elif seat is None:
        board = facts.board and not facts.auto
    elif seat not in frame.to_move:
        board = False
    elif seat not in facts.was_to_move:
        board = True  # your move now
    else:
        board = facts.actor == seat and facts.board and not facts.auto
    if board:
        return Shown.BOARD
    return Shown.LINES if frame.lines else Shown.NOTHING


def header(frame: Frame) -> str:
    """The board's first line: the game's title and whose move it is."""
    text = bold(frame.title)
    movers, seat = frame.to_move, frame.seat
    if seat is not None and seat in movers:
        text += "  [your move]"
    elif movers:
        names = [frame.seats[s].name for s in movers]
        text += f"  [to move: {', '.join(names)}]"
    return text


def board_text(kind: GameKind, frame: Frame, *, width: int, height: int,
               color: bool, screenreader: bool, titled: bool = True) -> str:
    """The header (if ``titled``) and the board drawn from the frame's view: read out as
    short lines, no drawing, for a screen reader (``PlaySpec.speak``), else the game's
    renderer."""
    names, view = frame.names, frame.view
    board = None
    if not screenreader:
        board = kind.spec.render(view, width=width, color=color, names=names,
                            height=height - 1)  # the header's row
        widest = max((visible_len(line) for line in board.split("\n")), default=0)
        if widest > width:  # no narrow layout fits: said plainly, then read out in lines
            board = "\n".join([*wrap(f"(This board needs {widest} columns and your screen "
                                      f"has {width}: SET WIDTH {widest} draws it; here it "
                                      "is in words.)", width), *_spoken(kind, view, names,
                                                                        width)])
    if board is None:
        board = "\n".join(_spoken(kind, view, names, width))
    return f"{header(frame)}\n{board}" if titled else board


def _spoken(kind: GameKind, view: Mapping[str, Any], names: tuple, width: int) -> list[str]:
    return [line for fact in kind.spec.speak(view, names=names) for line in wrap(fact, width)]


def around_board(lines: list[str], frame: Frame,
                 event_type: str = "game.update") -> tuple[list[str], list[str]]:
    """An event's lines split in two: those told before its board, and those told after
    it. The end of a game is told after its last board (the result, then what follows
    it: tiles changing hands, ratings), so it is what the player reads last, just above
    the prompt, however tall the board; everything else comes before the board."""
    result = frame.result
    if event_type == "game.end" and result and result in lines:
        at = len(lines) - 1 - lines[::-1].index(result)
        return lines[:at], lines[at:]
    return lines, []


def rows(lines: list[str], width: int) -> int:
    """The screen rows ``lines`` take at ``width`` columns, each wrapped on words."""
    return sum(len(wrap(part, width)) for line in lines for part in line.split("\n"))


def your_move(frame: Frame) -> bool:
    """Whether the frame's action made it its audience's move (it was not before)."""
    seat, facts = frame.seat, frame.facts
    return (seat is not None and seat in frame.to_move
            and seat not in (frame.to_move if facts is None else facts.was_to_move))


def fold(lines: list[str], width: int) -> list[str]:
    """An event's short lines run together, each joined to the one before while the two
    fit the width ("Bob: 5,2 7,1; QH + AD removed."): COMPACT's few lines a move."""
    out: list[str] = []
    for line in lines:
        if out and "\n" not in out[-1] and "\n" not in line and \
                len(out[-1]) + 2 + len(line) <= width:
            out[-1] = f"{out[-1]}{'' if out[-1].endswith(('.', '!', '?', ':')) else ';'} {line}"
        else:
            out.append(line)
    return out


#: How a fact of a board read out about the viewer's own things begins ("Your cards:
#: ...", "Your hand: ..."); what the viewer may do now begins the same way, and is not one:
#: it is the game's turn line ("Your move: DICE MOVE ...", "Your turn to bet: ...").
OWN, NOT_OWN = "Your ", ("Your turn", "Your move", "Your draw")


def spoken_changes(kind: GameKind, old: Mapping[str, Any], new: Mapping[str, Any],
                   names: tuple, width: int) -> list[str]:
    """COMPACT read out: the facts of the board read out (``PlaySpec.speak``) that are new
    since the last board read for this viewer (``old``), in the board's order; a fact that
    did not change is not read again, except the viewer's turn line (what they may do
    now), which is read at each of their turns in its place (the first)."""
    before = set(kind.spec.speak(old, names=names))
    return [line for fact in kind.spec.speak(new, names=names)
            if fact not in before or fact.startswith(NOT_OWN)
            for line in wrap(fact, width)]


def tells_move(lines: list[str]) -> bool:
    """Whether ``lines`` (each may hold several rows) already tell the viewer it is their
    move: the game's turn line, drawn or read out, or "Your move."."""
    return any(strip_sgr(row).lstrip().startswith(NOT_OWN) for line in lines
               for row in line.split("\n"))


def own_lines(kind: GameKind, view: Mapping[str, Any], names: tuple) -> list[str]:
    """The facts of the board read out that are the viewer's own (their cards, their hand,
    their stack): what a deal tells a player in board style OFF."""
    return [fact for fact in kind.spec.speak(view, names=names)
            if fact.startswith(OWN) and not fact.startswith(NOT_OWN)]


class Presentation:
    """Draws frames for sessions: asked for (:meth:`show`) or told (:meth:`on_event`).

    ``kinds`` are the hosted games by key: their code (renderers, spoken lines), not their
    live games.

    A player's board style (``SET BOARD``, ``session.board``; FICS's board styles are the
    anchor) says what a board that :func:`decide` sends becomes: FULL, the whole board;
    COMPACT, what changed since the last board drawn for them (the game's
    ``render_changes``: a few lines), the whole board only at the start, after a gap or
    when they ask; OFF, nothing but the lines (and "Your move." when it becomes theirs).
    A game's end is told by its lines alone in COMPACT and OFF: the result once."""

    def __init__(self, kinds: Mapping[str, GameKind]) -> None:
        self.kinds = kinds
        # the last view drawn for each session, by game (what COMPACT draws changes from)
        self._drawn: "weakref.WeakKeyDictionary[Session, dict[int, dict]]" = (
            weakref.WeakKeyDictionary())
        # the newest epoch seen of each game in play that has one (once adopted by a
        # node): a frame of an older one comes from a node that has lost the game
        self._epochs: dict[int, int] = {}

    def current(self, frame: Frame, ending: bool = False) -> bool:
        """Whether ``frame`` is of the newest epoch seen of its game (then it may be
        drawn); ``ending``: the game's last frame (its epoch is forgotten after it)."""
        game_id, epoch = frame.game, frame.epoch
        newest = self._epochs.get(game_id, 0)
        if epoch < newest:
            return False
        if ending:
            self._epochs.pop(game_id, None)
        elif epoch > newest:
            self._epochs[game_id] = epoch
        return True

    def _remember(self, session: "Session", frame: Frame) -> None:
        drawn = self._drawn.setdefault(session, {})
        if frame.finished:
            drawn.pop(frame.game, None)
        elif frame.view is not None:
            drawn[frame.game] = frame.view

    def board(self, session: "Session", frame: Frame, titled: bool = True,
              told: int = 0) -> str:
        """The frame's board as ``session`` reads it, in the rows its screen has left
        (docs/design.md, Screens, principle 1) once ``told`` rows (the event's own lines)
        and the prompt after it all are on the screen."""
        return board_text(self.kinds[frame.kind_key], frame, width=session.width,
                          height=session.height - 1 - told, color=session.color,
                          screenreader=session.screenreader, titled=titled)

    def show(self, session: "Session", game: "LiveGame") -> None:
        """The board of a game as it stands, as the player asked for it (or found it on
        their return): the frame of their seat, or the watchers'."""
        seat = game.seat_of(session.account.id) if session.account else None
        self.show_frame(session, game.frame(seat))

    def show_frame(self, session: "Session", frame: Frame) -> None:
        """A board the player asked for (a game as it stands, a replayed position)."""
        session.write(self.board(session, frame))
        self._gmcp(session, frame)
        if not frame.finished:
            session.seen_versions[frame.game] = frame.version
            if frame.seat is not None or frame.game in session.watching:
                self._remember(session, frame)

    def on_event(self, session: "Session", event: Event) -> None:
        """A game event from the bus (a frame with its lines, as JSON), for one session."""
        try:
            frame = heard(event.data)
        except OtherSchema as err:  # a node of another release, during a rolling reload
            log.warning("game event dropped: %s", err)
            return
        if not self.current(frame, ending=event.type == "game.end"):
            return  # from a node that has lost the game (server/cluster/)
        game_id, version = frame.game, frame.version
        last = session.seen_versions.get(game_id)
        shown = decide(frame, event.type)
        if last is not None and version > last + 1 and shown is not Shown.BOARD:
            shown = Shown.BOARD  # events were missed: the board as it stands, once
        missed = last is not None and version > last + 1
        session.seen_versions[game_id] = max(version, last or 0)
        lines = list(frame.lines)
        style = getattr(session, "board", "full")
        if shown is Shown.BOARD and style != "full":
            if style == "compact" and not session.screenreader:
                lines = fold(lines, session.width or 80)
            lines.extend(self._quiet(session, frame, event.type, style, missed))
            shown = Shown.LINES if lines else Shown.NOTHING
        if shown is Shown.BOARD:
            before, after = around_board(lines, frame, event.type)
            told = rows(lines, session.width or 80)
            session.notify("\n".join([*before, self.board(session, frame, told=told),
                                      *after]))
            self._remember(session, frame)
        elif shown is Shown.LINES:
            session.notify("\n".join(lines))
        self._gmcp(session, frame)
        if event.type == "game.end":
            self._drawn.get(session, {}).pop(game_id, None)
            session.seen_versions.pop(game_id, None)
            if game_id in session.watching:
                session.watching = session.watching - {game_id}
                session.unsubscribe(f"game:{game_id}")

    def _quiet(self, session: "Session", frame: Frame, event_type: str, style: str,
               missed: bool) -> list[str]:
        """What a board becomes in COMPACT or OFF (``style``): the lines added to the
        event's own. The end: nothing (its lines tell the result).

        COMPACT draws the whole board at the start, after a gap, and when the game's
        ``render_changes`` says so (a new Triad hand), else what changed; in screen-reader
        mode the same, read out: the whole board's lines, or the facts that are new since
        the last board read (:func:`spoken_changes`). OFF draws nothing: at the start it
        says how to see the board, and when something begins that every player must look
        at (a deal) it tells the viewer their own things (:func:`own_lines`: their cards).
        Whose move it is, is said when it becomes the viewer's ("Your move."), and at the
        start or a new phase whoever it is ("Bob to move.") when no board's header says
        it."""
        game_kind = self.kinds[frame.kind_key]
        if event_type == "game.end" or frame.finished:
            return []
        old = self._drawn.get(session, {}).get(frame.game)
        begins = event_type == "game.start" or (frame.facts is not None and frame.facts.new_phase)
        names = frame.names
        added: list[str] = []
        if style == "compact":
            changes = None
            if event_type != "game.start" and old is not None and not missed:
                changes = game_kind.spec.render_changes(
                    old, frame.view, width=session.width,
                    color=session.color and not session.screenreader, names=names)
            if changes is None:  # the whole board, its header saying whose move it is
                self._remember(session, frame)
                board = self.board(session, frame)
                return [board, *(["Your move."] if your_move(frame) and len(frame.seats) > 1
                                 and not tells_move([board]) else [])]
            if session.screenreader:
                changes = "\n".join(spoken_changes(game_kind, old, frame.view, names,
                                                    session.width or 80))
            self._remember(session, frame)
            if changes:
                added.append(changes)
        elif event_type == "game.start":
            added.append(f"(Board {style.upper()}: {game_kind.prefix} DISPLAY shows the board.)")
        elif begins and frame.seat is not None:
            added.extend(line for fact in own_lines(game_kind, frame.view, names)
                         for line in wrap(fact, session.width or 80))
        if len(frame.seats) > 1 and not tells_move(added):
            if your_move(frame) or (begins and frame.seat in frame.to_move):
                added.append("Your move.")
            elif begins and frame.to_move and frame.seat not in frame.to_move:
                movers = [frame.seats[s].name for s in frame.to_move]
                added.append(f"{', '.join(movers)} to move.")
        return added

    def _gmcp(self, session: "Session", frame: Frame) -> None:
        """The frame as the game's GMCP message (docs/gmcp.md: its own protocol, with
        its own version), and the player's ``Char.Status``."""
        if not getattr(session, "gmcp_on", True):  # a plain telnet client: nothing to build
            return
        kind = self.kinds[frame.kind_key]
        if kind.gmcp_package:
            names = list(frame.names)
            data = {"protocol": GMCP_PROTOCOL, "game": frame.game,
                    "title": frame.kind_title, "version": frame.version,
                    "seat": frame.seat, "players": names, "to_move": list(frame.to_move),
                    "finished": frame.finished, "result": frame.result,
                    "left": frame.left, "view": frame.view}
            if frame.legal is not None:
                # the moves the player may make, for a game that lists them
                data["legal"] = list(frame.legal)
            clock = frame.clock
            if clock:
                # the seconds left as sent (a browser counts down from when it reads them)
                data["clock"] = {"seat": clock.seat, "seconds": clock.seconds,
                                 "left": round(max(0.0, clock.deadline - time.time()), 1)}
            supports = getattr(session, "gmcp_supports", ())
            if "esterport.spoken" in supports:
                # the board in words (SET SCREENREADER's lines): a browser's text alternative
                data["spoken"] = list(kind.spec.speak(frame.view, names=tuple(names)))
            if "esterport.board" in supports:
                # the board as the game draws it, without colour, at the player's width:
                # the Mudlet package's window (server/mudlet.py)
                data["board"] = board_text(
                    kind, frame, width=session.width or 80, height=session.height or 24,
                    color=False, screenreader=False, titled=False).split("\n")
            session.gmcp(kind.gmcp_package, data)
        if frame.seat is not None:  # their own game: what a status bar shows of it
            session.gmcp("Char.Status", {"game": game_status(frame)})


def game_status(frame: Frame) -> dict[str, Any] | None:
    """GMCP ``Char.Status``'s ``game`` for a player's own frame: which game, who moves,
    and whether it is their move; None once it is over for them (it ended, or they left
    its table)."""
    if frame.finished or frame.left:
        return None
    return {"id": frame.game, "title": frame.kind_title, "players": list(frame.names),
            "to_move": [frame.seats[s].name for s in frame.to_move],
            "your_move": frame.seat in frame.to_move}


__all__ = ["Presentation", "Shown", "around_board", "board_text", "decide", "game_status",
           "header", "own_lines", "rows", "spoken_changes", "your_move"]
