"""Pyramid notation: the keyboard grammar of the original game as typed lines, and the
JSON codec of the State.

Grammar (docs/rules/pyramid.md, "Commands"): a card is "r,c" or "rc" (row then column,
1..7), ``P`` (or keypad ``8``) the Pack's top, ``W`` (or keypad ``9``) the Waste top;
``D`` (or keypad ``0``, ``DEAL``, ``DISCARD``) is Pack-to-Waste or a redeal;
``END`` ends the game.  Two cards make a pair, one card a King:

    7,1 6,3    71 63    7163    P 7,2    W P    98    7,4    D    0
"""

from __future__ import annotations

import re

from games.errors import BadNotation, quoted
from games.pyramid.rules import (
    DEAL,
    END,
    PACK,
    WASTE,
    Action,
    Game,
    LastMove,
    State,
)

_WORDS = {"D": DEAL, "DEAL": DEAL, "DISCARD": DEAL, "0": DEAL, "END": END}
# How a move is typed, in every refusal of one that cannot be read: short enough that the
# refusal, quoting what was typed, is one line of 80 columns (the board labels P and W).
USAGE = "type two cards (7,1 6,3 or 71 63, P, W), one King, or D"
KEYPAD = {"8": "P, the Pack", "9": "W, the Waste", "0": "D, the deal"}
LISTED = 4  # the most cards a refusal of too many lists


def _spot(row: int, col: int) -> str:
    if not 1 <= row <= 7:
        raise BadNotation(f"there is no row {row}: rows are 1 to 7")
    if not 1 <= col <= row:
        raise BadNotation(f"there is no card {row},{col}: "
                          + ("row 1 has only card 1,1" if row == 1 else
                             f"row {row} has columns 1 to {row}"))
    return f"{row},{col}"


def _is_digit(ch: str) -> bool:
    """An ASCII digit 0-9: the keypad grammar reads no other digits ("²", "①" or the
    Arabic-Indic "٣" are refused like any other unknown character)."""
    return ch.isdecimal() and ch.isascii()


def _scan(token: str) -> list[str]:
    """Read one whitespace-free token: a run of 'r,c' / 'rc' / keypad symbols."""
    out, i = [], 0
    while i < len(token):
        ch = token[i]
        if ch in "089" and token[i + 1:i + 2] == ",":  # "9,9": a row, not the keypad
            raise BadNotation(f"there is no row {ch}: rows are 1 to 7 ({ch} alone is "
                              f"{KEYPAD[ch]})")
        if ch in "P8":
            out.append(PACK)
            i += 1
        elif ch in "W9":
            out.append(WASTE)
            i += 1
        elif ch in "1234567":
            j = i + 1
            if j < len(token) and token[j] == ",":
                j += 1
            if j >= len(token):
                raise BadNotation(f"row {ch} needs a column too, like {ch},1")
            if not _is_digit(token[j]):
                raise BadNotation(f"cannot read {quoted(token, 8)}: {USAGE}")
            out.append(_spot(int(ch), int(token[j])))
            i = j + 1
        elif ch == ",":
            i += 1
        else:
            raise BadNotation(f"cannot read {quoted(token, 8)}: {USAGE}")
    return out


def parse_action(text) -> Action:
    """Text (or a list of words) after ``PYR`` -> Action; raises BadNotation."""
    if not isinstance(text, str):
        text = " ".join(text)
    text = " ".join(text.upper().split())
    if not text:
        raise BadNotation(USAGE)
    if text in _WORDS:
        return _WORDS[text]
    text = re.sub(r"\s*,\s*", ",", text)
    spots: list[str] = []
    for token in text.split():
        if token in _WORDS:
            raise BadNotation(f"{token} stands alone: {USAGE}")
        spots.extend(_scan(token))
    if not spots:
        raise BadNotation(USAGE)
    if len(spots) > 2:
        listed = f": {' '.join(spots)}" if len(spots) <= LISTED else ""
        raise BadNotation(f"pick one King or two cards at a time (that is {len(spots)}"
                          f"{listed})")
    return Action("remove", tuple(spots))


def format_action(action: Action) -> str:
    """Action -> the text ``parse_action`` reads back ('7,1 6,3', 'P 7,2', 'D', 'END')."""
    if action.kind == "deal":
        return "D"
    if action.kind == "end":
        return "END"
    return " ".join(action.spots)


def _game_to_json(game: Game) -> dict:
    return {
        "pyramid": list(game.pyramid),
        "pack": list(game.pack),
        "waste": list(game.waste),
        "deal": game.deal,
        "cleared_in": game.cleared_in,
        "over": game.over,
        "how": game.how,
        "score": game.score,
    }


def _game_from_json(d: dict) -> Game:
    return Game(
        pyramid=tuple(None if c is None else int(c) for c in d["pyramid"]),
        pack=tuple(int(c) for c in d["pack"]),
        waste=tuple(int(c) for c in d["waste"]),
        deal=int(d["deal"]),
        cleared_in=int(d["cleared_in"]),
        over=bool(d["over"]),
        how=str(d["how"]),
        score=None if d["score"] is None else int(d["score"]),
    )


def state_to_json(state: State) -> dict:
    return {
        "game": "pyramid",
        "mode": state.mode,
        "seeds": list(state.seeds),
        "games": [_game_to_json(g) for g in state.games],
        "last": None if state.last is None else state.last.to_json(),
    }


def state_from_json(d: dict) -> State:
    return State(
        mode=str(d["mode"]),
        seeds=tuple(int(s) for s in d["seeds"]),
        games=tuple(_game_from_json(g) for g in d["games"]),
        last=None if d.get("last") is None else LastMove.from_json(d["last"]),
    )
