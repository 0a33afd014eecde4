"""Triad Dice notation: the only place text becomes an Action and back, plus the JSON codec.

Actions (what follows the ``DICE`` prefix; case does not matter)::

    MOVE c1 3 NE    turn the die on c1 to 3 and move it 3 cells north-east
    MOVE c1 2       stalemate only: turn the die on c1 to 2 without moving it
    MOVE c1 NE      stalemate only: move the die on c1 its current value north-east
    REMOVE c3       after forming Triads, remove your own die on c3
    RESIGN

Cells are a1..f6 (column letter, row number; row 1 is the challenger's home row).
Directions are N NE E SE S SW W NW as the board is drawn, N toward row 6.
Values may be written 1 2 3 or I II III.

``state_to_json``/``state_from_json`` round-trip a State exactly; the board is a list
of 36 die codes (0 empty, 1..3 seat 0 showing 1..3, 4..6 seat 1 showing 1..3), cell
a1 first, row by row.
"""

from __future__ import annotations

from games.errors import BadNotation, quoted
from games.outcome import Outcome

from .rules import (CELLS, DIRECTIONS, SIZE, Action, Move, Remove, Resign, State, cell_name)

USAGE = ("DICE MOVE <cell> <value> <direction> (e.g. DICE MOVE c1 3 NE), DICE REMOVE <cell>,"
         " DICE RESIGN; only when no die can move: DICE MOVE c1 2 (change value in place)"
         " or DICE MOVE c1 NE (move its current value)")

_VALUE_WORDS = {"1": 1, "2": 2, "3": 3, "I": 1, "II": 2, "III": 3}


def parse_cell(text: str) -> int:
    """``"c3" -> 14``; raises BadNotation for anything that is not a1..f6."""
    t = text.strip().lower()
    if len(t) == 2 and t[0] in "abcdef" and t[1] in "123456":
        return (int(t[1]) - 1) * SIZE + "abcdef".index(t[0])
    if 2 <= len(t) <= 4 and t[0].isalpha() and t[1:].isdecimal():
        raise BadNotation(f"{text} is off the board (cells are a1..f6)")
    raise BadNotation(f"{quoted(text)} is not a cell (cells are a1..f6)")


def format_cell(cell: int) -> str:
    return cell_name(cell)


def _parse_value(word: str) -> int | None:
    return _VALUE_WORDS.get(word.upper())


def parse_action(text: str | list[str] | tuple[str, ...]) -> Action:
    """Read ``"MOVE c1 3 NE"``, ``"REMOVE c3"``, ``"RESIGN"`` (or their words as a list).

    :raises BadNotation: with the usage line when the text cannot be read.
    """
    words = text.split() if isinstance(text, str) else [w for part in text for w in str(part).split()]
    if not words:
        raise BadNotation("usage: " + USAGE)
    verb, args = words[0].upper(), words[1:]
    if verb == "RESIGN":
        if args:
            raise BadNotation("RESIGN takes no arguments")
        return Resign()
    if verb == "REMOVE":
        if len(args) != 1:
            raise BadNotation("usage: DICE REMOVE <cell>, e.g. DICE REMOVE c3")
        return Remove(parse_cell(args[0]))
    if verb == "MOVE":
        if not 2 <= len(args) <= 3:
            raise BadNotation("usage: " + USAGE)
        cell = parse_cell(args[0])
        value: int | None = None
        direction: str | None = None
        for word in args[1:]:
            v = _parse_value(word)
            compass = _direction(word)
            if v is not None and value is None:
                value = v
            elif compass is not None and direction is None:
                direction = compass
            elif v is not None:
                raise BadNotation(f"Give one value, not two ({value} and {v}); usage: " + USAGE)
            elif compass is not None:
                raise BadNotation(f"Give one direction, not two ({direction} and {compass}); "
                                  "usage: " + USAGE)
            elif word.isdecimal():
                shown = word if len(word) <= 4 else quoted(word)
                raise BadNotation(f"{shown} is not a die value (a die shows 1, 2 or 3)")
            else:  # one line of 80 columns with the word quoted (north, NE ... read too)
                raise BadNotation(f"{quoted(word)} is not a value (1, 2, 3) or a direction"
                                  " (N NE E SE S SW W NW)")
        return Move(cell, value, direction)
    raise BadNotation(f"{quoted(words[0])} is not a dice action; usage: " + USAGE)


# Directions in words ("north", "north-east", "northeast") as well as letters ("NE").
_WORDS = {"NORTH": "N", "SOUTH": "S", "EAST": "E", "WEST": "W"}


def _direction(word: str) -> str | None:
    """``NE``, ``ne``, ``north-east``, ``northeast`` or ``north east`` -> ``"NE"``; None
    if ``word`` names no direction."""
    w = word.upper().replace("-", "").replace("_", "")
    if w in DIRECTIONS:
        return w
    for first in ("NORTH", "SOUTH"):
        if w.startswith(first) and w != first:
            rest = _WORDS.get(w[len(first):])
            if rest in ("E", "W"):
                return _WORDS[first] + rest
    return _WORDS.get(w)


def format_action(action: Action) -> str:
    """The inverse of ``parse_action``: ``Move(c1 3 NE) -> "MOVE c1 3 NE"``."""
    if isinstance(action, Resign):
        return "RESIGN"
    if isinstance(action, Remove):
        return f"REMOVE {cell_name(action.cell)}"
    parts = ["MOVE", cell_name(action.cell)]
    if action.value is not None:
        parts.append(str(action.value))
    if action.direction is not None:
        parts.append(action.direction)
    return " ".join(parts)


def state_to_json(state: State) -> dict:
    """A JSON-able dict of every field of ``state``."""
    return {
        "cells": list(state.cells),
        "turn": state.turn,
        "starter": state.starter,
        "removed": list(state.removed),
        "pending": list(state.pending),
        "turns": state.turns,
        "quiet_turns": state.quiet_turns,
        "history": list(state.history),
        "last_from": state.last_from,
        "last_to": state.last_to,
        "last_removed": state.last_removed,
        "result": None if state.result is None else state.result.to_json(),
    }


def state_from_json(d: dict) -> State:
    """The inverse of ``state_to_json``."""
    cells = tuple(int(c) for c in d["cells"])
    if len(cells) != CELLS:
        raise ValueError("a Triad Dice board has 36 cells")
    result = d.get("result")
    return State(
        cells=cells,
        turn=int(d["turn"]),
        starter=int(d["starter"]),
        removed=tuple(int(x) for x in d["removed"]),
        pending=tuple(int(x) for x in d["pending"]),
        turns=int(d["turns"]),
        quiet_turns=int(d["quiet_turns"]),
        history=tuple(str(k) for k in d["history"]),
        last_from=d.get("last_from"),
        last_to=d.get("last_to"),
        last_removed=d.get("last_removed"),
        result=None if result is None else Outcome.from_json(result),
    )


def parse_board(picture: str) -> tuple[int, ...]:
    """A board drawn as text, row 6 first, six tokens a row: ``.`` empty, ``(2)`` a die
    of seat 0 showing 2, ``[2]`` a die of seat 1 showing 2 (as ``render`` draws them)."""
    rows = [line.split() for line in picture.strip().splitlines() if line.strip()]
    if len(rows) != SIZE or any(len(r) != SIZE for r in rows):
        raise BadNotation("a board picture has 6 rows of 6 tokens")
    cells = [0] * CELLS
    for i, row in enumerate(rows):
        for col, token in enumerate(row):
            if token == ".":
                continue
            if len(token) == 3 and token[1] in "123" and token[0] + token[2] in ("()", "[]"):
                seat = 0 if token[0] == "(" else 1
                cells[(SIZE - 1 - i) * SIZE + col] = seat * 3 + int(token[1])
            else:
                raise BadNotation(f"{token!r} is not '.', '(n)' or '[n]'")
    return tuple(cells)


def format_board(cells) -> str:
    """The inverse of ``parse_board``."""
    lines = []
    for row in range(SIZE - 1, -1, -1):
        tokens = []
        for col in range(SIZE):
            c = cells[row * SIZE + col]
            if not c:
                tokens.append(" . ")
            else:
                v = (c - 1) % 3 + 1
                tokens.append(f"({v})" if c <= 3 else f"[{v}]")
        lines.append(" ".join(tokens))
    return "\n".join(lines)
