"""A test-only game for the parlor's hosting mechanism: noughts and crosses.

It follows the engine contract of ``games/__init__.py`` in one module (rules, notation,
renderer, spoken lines and a computer player), says how it is played in its ``SPEC``
(``games/spec.py``), and ``TicTacToe`` (``KIND``) hosts it under the prefix ``TTT``. Seat 0 plays X and moves first. ``PLAY <1..9>`` marks a cell;
``RESIGN`` gives up.

It is a plugin: the parlor hosts it because ``[games] extra`` names ``KIND``, and nothing
outside this module and its web board (``tictactoe_web/board.html``) names it. That it
still gets challenges, play, telnet and web boards, GMCP, OBSERVE, REPLAY and screen-reader
lines is what ``tests/e2e/test_plugin_game.py`` shows (docs/design.md, principle 9).
"""

from __future__ import annotations

import random
from pathlib import Path

import attrs

from games.errors import BadNotation, IllegalAction
from games.outcome import Outcome
from games.spec import PlaySpec
from server.hosting import GameKind

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
MARKS = "XO"


@attrs.frozen
class State:
    cells: tuple[int | None, ...] = (None,) * 9
    turn: int = 0
    resigned: int | None = None
    clock: float | None = None  # seconds a player may think before losing on time


@attrs.frozen
class Play:
    cell: int  # 0..8


@attrs.frozen
class Resign:
    pass


def new_game(options: dict, rng: random.Random) -> State:
    return State(clock=options.get("clock"))


def timeout(state: State):
    """The player to move loses on time after ``clock`` seconds (if the game has a clock)."""
    if state.clock is None or outcome(state) is not None:
        return None
    return state.clock, state.turn, Resign()


def to_move(state: State) -> tuple[int, ...]:
    return () if outcome(state) else (state.turn,)


def legal_actions(state: State, seat: int):
    if outcome(state) is None and seat == state.turn:
        for i, c in enumerate(state.cells):
            if c is None:
                yield Play(i)


def apply(state: State, seat: int, action, rng: random.Random):
    if outcome(state) is not None:
        raise IllegalAction("The game is over.")
    if isinstance(action, Resign):
        return attrs.evolve(state, resigned=seat), [("resign", seat)]
    if seat != state.turn:
        raise IllegalAction("It is not your turn.")
    if state.cells[action.cell] is not None:
        raise IllegalAction(f"Cell {action.cell + 1} is taken.")
    cells = list(state.cells)
    cells[action.cell] = seat
    return attrs.evolve(state, cells=tuple(cells), turn=1 - seat), [("mark", seat, action.cell)]


def outcome(state: State) -> Outcome | None:
    if state.resigned is not None:
        return Outcome(1 - state.resigned, "resignation")
    for a, b, c in LINES:
        if state.cells[a] is not None and state.cells[a] == state.cells[b] == state.cells[c]:
            return Outcome(state.cells[a], "three in a row")
    if all(c is not None for c in state.cells):
        return Outcome(None, "board full")
    return None


def parse_action(text: str):
    words = text.upper().split()
    if words == ["RESIGN"]:
        return Resign()
    if len(words) == 2 and words[0] == "PLAY" and words[1] in tuple("123456789"):
        return Play(int(words[1]) - 1)
    raise BadNotation(f"{text!r} is not a move; try PLAY <1-9>.")


def format_action(action) -> str:
    return "RESIGN" if isinstance(action, Resign) else f"PLAY {action.cell + 1}"


def state_to_json(state: State) -> dict:
    return {"cells": list(state.cells), "turn": state.turn, "resigned": state.resigned,
            "clock": state.clock}


def state_from_json(data: dict) -> State:
    return State(tuple(data["cells"]), data["turn"], data["resigned"], data["clock"])


def view_for(state: State, seat: int | None) -> dict:
    return state_to_json(state)


def render(view: dict, width: int = 80, color: bool = True, names=("X", "O"),
           height: int = 24) -> str:  # noqa: ARG001
    cells = [str(i + 1) if c is None else MARKS[c] for i, c in enumerate(view["cells"])]
    rows = [" | ".join(cells[r * 3:r * 3 + 3]) for r in range(3)]
    return "\n".join([f" {rows[0]}", "---+---+---", f" {rows[1]}", "---+---+---", f" {rows[2]}"])


def choose_action(state: State, seat: int, level: str, rng: random.Random, budget_s: float = 1.0):
    return rng.choice(list(legal_actions(state, seat)))


def describe_event(event, names: tuple[str, ...] = ()) -> str | None:  # noqa: ARG001
    if event[0] == "mark":
        return f"{MARKS[event[1]]} takes cell {event[2] + 1}."
    return None


def _options(words: list[str]) -> dict:
    if [w.lower() for w in words] not in ([], ["ranked"]):
        raise BadNotation("Options: RANKED (or nothing).")
    return {"ranked": bool(words)}


def speak(view: dict, names=("X", "O")) -> list[str]:  # noqa: ARG001
    """The board read out: one row a line."""
    cells = ["empty" if c is None else MARKS[c] for c in view["cells"]]
    return [f"Row {r + 1}: {', '.join(cells[r * 3:r * 3 + 3])}." for r in range(3)]


def _describe_options(options: dict) -> str:
    return "ranked" if options.get("ranked") else "unranked"


SPEC = PlaySpec(
    key="ttt", title="Noughts and Crosses", prefix="TTT", gmcp_package="Ttt.Game",
    resign_action=Resign(), new_game=new_game, apply=apply, outcome=outcome, to_move=to_move,
    parse_action=parse_action, format_action=format_action, state_to_json=state_to_json,
    state_from_json=state_from_json, view_for=view_for, render=render, speak=speak,
    choose_action=choose_action, describe_event=describe_event, parse_options=_options,
    describe_options=_describe_options, timeout=timeout, legal_actions=legal_actions)


class TicTacToe(GameKind):
    """The ``ttt`` kind: this module's game, with a clock when the options give one, and
    its own web board."""

    spec = SPEC
    web_templates = str(Path(__file__).with_name("tictactoe_web"))


KIND = TicTacToe  # ``[games] extra = ["tests.support.tictactoe:KIND"]``: a fresh one per parlor
