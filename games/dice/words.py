"""Triad Dice in words: the challenge's option words, the engine's rule errors as
sentences, and one line for each thing that happens (told to both players and every
watcher; the parlor writes the move itself, ``Alice: MOVE c1 3 NE``, and the result).
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from games.errors import BadOption, RuleError

from . import rules
from .ai import LEVELS
from .rules import DieMoved, DieRemoved, GameEnded, RemovalRequired, TriadsFormed

MARKS = ("({})", "[{}]")  # how the board draws a die of seat 0 / seat 1


# -- options ------------------------------------------------------------------------------
def parse_options(words: list[str]) -> dict[str, Any]:
    """``[]`` or ``["RANKED"]`` (``UNRANKED`` is accepted for the default)."""
    ranked = False
    for word in words:
        w = word.lower()
        if w == "ranked":
            ranked = True
        elif w == "unranked":
            ranked = False
        elif w in LEVELS:
            raise BadOption(f"{word.upper()} is a level for the computer: "
                            f"DICE CHALLENGE COMPUTER {word.upper()}.")
        else:
            raise BadOption(f"{word!r} is not an option (RANKED, or nothing; the computer "
                            "takes EASY, NORMAL or HARD).")
    return {"ranked": ranked}


def describe_options(options: dict[str, Any]) -> str:
    return "ranked" if options.get("ranked") else "unranked"


# -- rule errors as sentences ------------------------------------------------------------
def sentence(text: str) -> str:
    """``"there is no die on c3"`` -> ``"There is no die on c3."`` (a cell name at the
    start keeps its lower case: ``"c3 is not your die."``)."""
    text = text.strip()
    if not text:
        return text
    if not (text[0].isalpha() and text[1:2].isdigit()):
        text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def sentences(fn: Callable) -> Callable:
    """``fn`` with the message of any RuleError it raises made a sentence."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except RuleError as err:
            raise type(err)(sentence(str(err))) from None
    return wrapper


# -- events ------------------------------------------------------------------------------
def cells_in_words(cells: list[str]) -> str:
    """``["c1"]`` -> "c1"; ``["c1", "d2", "e3"]`` -> "c1, d2 or e3"."""
    return cells[0] if len(cells) == 1 else ", ".join(cells[:-1]) + " or " + cells[-1]


def _who(seat: int, names: tuple[str, ...]) -> str:
    """The seat's player by name ("Alice"); without names, "The mover"."""
    return names[seat] if 0 <= seat < len(names) else "The mover"


def _cells(cells: tuple[int, ...]) -> str:
    return cells_in_words([rules.cell_name(c) for c in cells])


def describe_event(event: Any, names: tuple[str, ...] = ()) -> str | None:
    """One line for each thing that happened, for the players and the watchers, with the
    players' ``names`` (in seat order). A move's sentence and a removal's go on the line
    of the move as typed (``continues``): "Alice: MOVE a1 2 N. The 1 on a1 turns to 2
    and moves to a3." """
    if isinstance(event, DieMoved):
        origin, target = rules.cell_name(event.origin), rules.cell_name(event.target)
        die = f"The {event.old_value}"  # in words, no glyph: a screen reader reads it
        if event.origin == event.target:
            return f"{die} on {origin} turns to {event.new_value} where it stands."
        if event.old_value == event.new_value:
            return f"{die} moves from {origin} to {target} unchanged."
        return f"{die} on {origin} turns to {event.new_value} and moves to {target}."
    if isinstance(event, TriadsFormed):
        lines = ["-".join(rules.cell_name(c) for c in t) for t in event.triads]
        if len(lines) == 1:
            return f"Triad formed: {lines[0]}!"
        return f"{len(lines)} Triads formed: {', '.join(lines)}!"
    if isinstance(event, RemovalRequired):
        return (f"{_who(event.seat, names)} chooses which of their dice to remove: "
                f"{_cells(event.cells)} (DICE REMOVE <cell>).")
    if isinstance(event, DieRemoved):
        cell = rules.cell_name(event.cell)
        if event.chosen:
            return f"The die on {cell} is removed."
        return f"The die on {cell} is removed (the mover's only die in the Triad)."
    if isinstance(event, GameEnded):
        outcome = event.outcome
        if outcome.reason == "resignation":
            return None  # the parlor's result line says it all
        if outcome.winner is not None:
            return "That is a third die removed."  # the result line says who won
        if "repetition" in outcome.reason:
            return ("The same position with the same player to move has come up a third "
                    "time: the game is drawn.")
        return (f"{rules.QUIET_TURN_LIMIT} turns in a row without a removal: the game is "
                "drawn.")
    return None
