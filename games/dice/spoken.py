"""Triad Dice read out: the view as short lines for a screen reader
(docs/design.md, Screens, principle 8).

``speak(view, names)`` takes the view ``render`` takes and returns lines in a fixed
order, the most important first: the result or whose move (and the cells to remove
from after a Triad), the removals, the last move, then the board row by row from row 6
down, each die as its cell, owner and value ("Row 1: a1 yours 2, c1 yours 1."). No
drawing: owners are words, not brackets or colours.
"""

from __future__ import annotations

from .rules import SIZE

COLUMNS = "abcdef"


def _who(seat: int, you: int | None, names) -> str:
    return "you" if seat == you else names[seat]


def _owner(seat: int, you: int | None, names) -> str:
    return "yours" if seat == you else names[seat]


def speak(view: dict, names=("Alice", "Bob")) -> list[str]:
    """The view as lines, one fact each (see the module's docstring)."""
    you = view.get("you")
    lines = []
    result = view.get("result")
    turn = view["turn"]
    if result is not None:
        if result["winner"] is None:
            lines.append(f"Game over: drawn ({result['reason']}).")
        else:
            winner = "You win" if result["winner"] == you else f"{names[result['winner']]} wins"
            lines.append(f"Game over: {winner} ({result['reason']}).")
    elif view["pending"]:
        mover = "You formed" if turn == you else f"{names[turn]} formed"
        lines.append(f"{mover} a Triad and remove{'' if turn == you else 's'} one of "
                     f"{', '.join(view['pending'])} (DICE REMOVE <cell>).")
    elif turn == you:
        legal = view.get("legal") or []
        if legal and all(len(a.split()) == 3 for a in legal):
            lines.append("None of your dice can move: turn one where it stands (DICE MOVE "
                         "<cell> <value>) or move one its value (DICE MOVE <cell> "
                         f"<direction>), e.g. DICE {legal[0]}.")
        else:
            example = f", e.g. DICE {legal[0]}" if legal else ""
            lines.append(f"Your move: DICE MOVE <cell> <value> <direction>{example}.")
    else:
        lines.append(f"{names[turn]} to move.")
    removed, to_win = view["removed"], view.get("to_win", 3)
    lines.append("Removed: " + ", ".join(
        f"{_who(s, you, names)} {removed[s]} of {to_win}" for s in (0, 1)) + ".")
    last = view.get("last_move")
    if last:
        mover = turn if view["pending"] else 1 - turn
        text = f"Last move: {_who(mover, you, names)}, {last['from']} to {last['to']}"
        if last.get("removed"):
            text += f", removed {last['removed']}"
        lines.append(text + ".")
    lines.append(f"Turn {view['turns'] + 1}. Row 1 is {names[0]}'s home, row 6 {names[1]}'s; "
                 "north is toward row 6.")
    grid = {d["cell"]: (d["seat"], d["value"]) for d in view["dice"]}
    for row in range(SIZE, 0, -1):
        dice = [f"{col}{row} {_owner(grid[f'{col}{row}'][0], you, names)} "
                f"{grid[f'{col}{row}'][1]}" for col in COLUMNS if f"{col}{row}" in grid]
        lines.append(f"Row {row}: {', '.join(dice)}." if dice else f"Row {row}: empty.")
    return lines


__all__ = ["speak"]
