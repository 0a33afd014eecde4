"""Triad Dice on the parlor: ``Dice``, the ``GameKind`` that hosts ``games/dice``.

Everything but the text comes from the engine (``games.dice.rules``, ``notation``,
``render``, ``ai``). This adapter adds what the engine leaves to the server:

- the challenge option ``RANKED`` (``DICE CHALLENGE <person> [RANKED]``);
- one-line sentences for the engine's events (a move, a Triad, a removal, a game's
  end), told to both players and every watcher;
- the engine's rule errors as sentences ("There is no die on c3.");
- the board as a player sees it: the engine's drawing, with its last line addressed to
  the player whose turn it is (what to type, which dice they may remove);
- the computer player (EASY random, NORMAL greedy, HARD an iterative-deepening search
  within the host's ``computer_budget``, 1 s a move by default, in a worker process so
  that it takes neither the event loop nor the GIL);
- (``DICE MOVE``, ``DICE REMOVE`` and the help text are ``commands/dice.py``'s.)

Triad Dice needs no tables of its own: the host stores the state, the moves and the
result like any game's.
"""

from __future__ import annotations

import functools
import logging
import os
import random
import time
from typing import Any, Callable

from games.dice import ai, notation, render, rules, spoken
from games.dice.rules import DieMoved, DieRemoved, GameEnded, RemovalRequired, TriadsFormed
from games.errors import BadOption, RuleError
from server.hosting import GameKind, StartContext
from server.text import bold, wrap
from server.workers import WorkerPool

LEVELS = ("easy", "normal", "hard")
MARKS = ("({})", "[{}]")  # how the board draws a die of seat 0 / seat 1
log = logging.getLogger(__name__)


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


def _sentences(fn: Callable) -> Callable:
    """``fn`` with the message of any RuleError it raises made a sentence."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except RuleError as err:
            raise type(err)(sentence(str(err))) from None
    return wrapper


# -- events ------------------------------------------------------------------------------
def _die(seat: int, value: int) -> str:
    return MARKS[seat].format(value)


def _cells(cells: tuple[int, ...]) -> str:
    return _names([rules.cell_name(c) for c in cells])


def describe_event(event: Any) -> str | None:
    """One line for each thing that happened, for the players and the watchers (the host
    writes the move itself, ``Alice: MOVE c1 3 NE``, and the result line)."""
    if isinstance(event, DieMoved):
        origin, target = rules.cell_name(event.origin), rules.cell_name(event.target)
        old = _die(event.seat, event.old_value)
        if event.origin == event.target:
            return f"{old} on {origin} turns to {event.new_value} where it stands."
        if event.old_value == event.new_value:
            return f"{old} moves from {origin} to {target} unchanged."
        return f"{old} on {origin} turns to {event.new_value} and moves to {target}."
    if isinstance(event, TriadsFormed):
        lines = ["-".join(rules.cell_name(c) for c in t) for t in event.triads]
        if len(lines) == 1:
            return f"Triad formed: {lines[0]}!"
        return f"{len(lines)} Triads formed: {', '.join(lines)}!"
    if isinstance(event, RemovalRequired):
        return (f"The mover chooses which of their dice to remove: {_cells(event.cells)} "
                "(DICE REMOVE <cell>).")
    if isinstance(event, DieRemoved):
        cell = rules.cell_name(event.cell)
        if event.chosen:
            return f"The die on {cell} is removed."
        return f"The die on {cell} is removed (the mover's only die in the Triad)."
    if isinstance(event, GameEnded):
        outcome = event.outcome
        if outcome.reason == "resignation":
            return None  # the host's result line says it all
        if outcome.winner is not None:
            first, second = outcome.scores
            return f"That is a third die removed. Removals: (n) {first}, [n] {second}."
        if "repetition" in outcome.reason:
            return ("The same position with the same player to move has come up a third "
                    "time: the game is drawn.")
        return (f"{rules.QUIET_TURN_LIMIT} turns in a row without a removal: the game is "
                "drawn.")
    return None


# -- the board as a player sees it -------------------------------------------------------
def _hint(view: dict) -> str | None:
    """What the player to act should do now, or None for a watcher or the other player."""
    you = view.get("you")
    if view.get("result") is not None or you is None or you != view.get("turn"):
        return None
    if view.get("pending"):
        cells = view["pending"]
        return (f"You formed a Triad: remove one of your dice, on {_names(cells)}, with "
                f"DICE REMOVE <cell> (e.g. DICE REMOVE {cells[0]}).")
    legal = view.get("legal") or []
    if legal and all(len(a.split()) == 3 for a in legal):
        return ("None of your dice can move: turn one to a new value where it stands "
                "(DICE MOVE <cell> <value>) or move one its current value "
                f"(DICE MOVE <cell> <direction>), e.g. DICE {legal[0]}.")
    example = f", e.g. DICE {legal[0]}" if legal else ""
    return f"Your move: DICE MOVE <cell> <value> <direction>{example}."


def _names(cells: list[str]) -> str:
    return cells[0] if len(cells) == 1 else ", ".join(cells[:-1]) + " or " + cells[-1]


def render_board(view: dict, width: int = 80, color: bool = True,
                 names: tuple[str, ...] = ("Alice", "Bob"), height: int = 24) -> str:  # noqa: ARG001 - it fits 24 rows
    """The engine's board; for the player to act, its last line says what to type."""
    text = render.render(view, width=width, color=color, names=tuple(names))
    hint = _hint(view)
    if hint is None:
        return text
    lines = text.split("\n")
    lines[-1:] = [bold(line) if color else line for line in wrap(hint, min(width, 80))]
    return "\n".join(lines)


# -- the computer ------------------------------------------------------------------------
# HARD searches for its whole budget (1 s a move by default). The host already calls
# ``choose_action`` in a worker thread, but a thread busy in pure Python holds the GIL:
# measured with four HARD games at once, another player's LOOK took up to 155 ms (26 ms
# with processes), and all the searches shared one core. So HARD's search runs in a
# pool of worker processes (started when needed, up to twice the cores, so that a few
# games at once share the cores rather than queue); the host's thread only waits for the
# answer. The budget is a deadline: a search that had to queue searches for what is
# left (at least one full ply), so every reply comes within about the budget. EASY and
# NORMAL take milliseconds and stay in the thread. If no process can be used the search
# runs in the thread as before.
#
# The workers are spawned processes (server/workers.py).
_SEARCH = WorkerPool(2 * (os.cpu_count() or 1))


def _search_until(state: rules.State, seat: int, rng: random.Random,
                  deadline: float) -> rules.Action:
    """HARD's search, in a worker process, for the time left before ``deadline``."""
    return ai.choose_action(state, seat, "hard", rng, max(0.0, deadline - time.time()))


def choose_action(state: rules.State, seat: int, level: str, rng: random.Random,
                  budget_s: float = 1.0) -> rules.Action:
    """The engine's computer player. The host calls this in a worker thread; HARD's
    search goes on in a worker process (same arguments, same answer). An error of the
    engine itself is raised as it is."""
    level = (level or "normal").lower()
    if level != "hard":
        return ai.choose_action(state, seat, level, rng, budget_s)
    pool = None
    deadline = time.time() + budget_s
    try:
        pool = _SEARCH.get()
        return pool.submit(_search_until, state, seat, rng, deadline).result(
            timeout=budget_s + 30)
    except (OSError, RuntimeError):  # no process could start, one died, or it timed out
        log.warning("the search process failed; searching in this thread", exc_info=True)
        if pool is not None:
            _SEARCH.drop(pool)
    return ai.choose_action(state, seat, level, rng, max(0.0, deadline - time.time()))


class Dice(GameKind):
    """The ``dice`` kind: the engine as it is, its errors as sentences, the board with a
    hint, and a search process for HARD."""

    key, title, prefix, gmcp_package = "dice", "Triad Dice", "DICE", "Dice.Game"
    resign_action = rules.Resign()
    parse_options = staticmethod(parse_options)
    describe_options = staticmethod(describe_options)
    apply = staticmethod(_sentences(rules.apply))
    outcome = staticmethod(rules.outcome)
    to_move = staticmethod(rules.to_move)
    parse_action = staticmethod(_sentences(notation.parse_action))
    format_action = staticmethod(notation.format_action)
    state_to_json = staticmethod(notation.state_to_json)
    state_from_json = staticmethod(notation.state_from_json)
    view_for = staticmethod(render.view_for)
    render = staticmethod(render_board)
    speak = staticmethod(spoken.speak)
    choose_action = staticmethod(choose_action)
    describe_event = staticmethod(describe_event)

    async def on_start(self, ctx: StartContext) -> rules.State:
        """The first position (the engine's); a game against HARD also starts a search
        process now, while the first move is thought over, rather than at HARD's first turn
        (a new worker imports its program before it can search)."""
        if any(seat.computer == "hard" for seat in ctx.seats):
            try:
                _SEARCH.get().submit(int)
            except (OSError, RuntimeError):
                log.warning("could not start a search process", exc_info=True)
        return rules.new_game(ctx.options, ctx.rng)


__all__ = ["Dice", "describe_event", "parse_options", "render_board"]
