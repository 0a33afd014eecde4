"""Triad Dice read out: the view as short lines for a screen reader
(docs/design.md, Screens, principle 8).

``speak(view, names)`` takes the view ``render`` takes and returns lines in a fixed
order, the most important first: the result or whose move (and the cells to remove
from after a Triad), the removals, the last move, then the board row by row from row 6
down, each die as its cell, owner and value ("Row 1: a1 yours 2, c1 yours 1."). No
drawing: owners are words, not brackets or colours.
"""

from __future__ import annotations

from games.errors import BadNotation

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
            lines.append("Game over.")  # who won: the result line, told once
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




# -- questions (blind-first: DICE DIE c1, DICE ROW 3, DICE COLUMN e) -------------------------
def _grid(view: dict) -> dict:
    return {d["cell"]: (d["seat"], d["value"]) for d in view["dice"]}


def _cell_words(cell: str, grid: dict, you, names) -> str:  # noqa: ANN001
    if cell not in grid:
        return f"{cell} empty"
    seat, value = grid[cell]
    return f"{cell} {_owner(seat, you, names)} {value}"


def ask_die(view: dict, words: list[str], names=("Alice", "Bob")) -> list[str]:
    """DICE DIE <cell>: what stands on one cell (and whether it is to be removed)."""
    cell = words[0].lower() if len(words) == 1 else ""
    if len(cell) != 2 or cell[0] not in COLUMNS or not cell[1].isdecimal() \
            or not 1 <= int(cell[1]) <= SIZE:
        raise BadNotation("DICE DIE <cell>: a cell, a1 to f6.")
    grid = _grid(view)
    if cell in grid:
        seat, value = grid[cell]
        line = f"On {cell}: {_owner(seat, view.get('you'), names)}, {value}."
    else:
        line = f"On {cell}: nothing."
    if cell in (view.get("pending") or ()):
        line += " It may be removed (DICE REMOVE)."
    return [line]


def ask_row(view: dict, words: list[str], names=("Alice", "Bob")) -> list[str]:
    """DICE ROW <1-6>: the six cells of a row, a to f."""
    if len(words) != 1 or not words[0].isdecimal() or not 1 <= int(words[0]) <= SIZE:
        raise BadNotation(f"DICE ROW <1-{SIZE}>: row 1 is {names[0]}'s home, row 6 {names[1]}'s.")
    grid, row = _grid(view), int(words[0])
    return [f"Row {row}: " + ", ".join(_cell_words(f"{c}{row}", grid, view.get("you"), names)
                                       for c in COLUMNS) + "."]


def ask_column(view: dict, words: list[str], names=("Alice", "Bob")) -> list[str]:
    """DICE COLUMN <a-f>: the six cells of a column, row 1 to 6."""
    if len(words) != 1 or words[0].lower() not in tuple(COLUMNS):
        raise BadNotation("DICE COLUMN <a-f>: which column.")
    grid, col = _grid(view), words[0].lower()
    return [f"Column {col}: " + ", ".join(_cell_words(f"{col}{r}", grid, view.get("you"), names)
                                          for r in range(1, SIZE + 1)) + "."]


QUESTIONS = {"die": ("DICE DIE <cell>", ask_die), "row": ("DICE ROW <1-6>", ask_row),
             "column": ("DICE COLUMN <a-f>", ask_column)}

__all__ = ["QUESTIONS", "speak"]
