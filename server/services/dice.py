"""Triad Dice on the parlor: ``Dice``, the ``GameKind`` that hosts ``games/dice``.

The game is its spec (``games/dice/spec.py``: the engine, its notation and option words,
its errors as sentences, one line for each event, the board). This kind adds what needs
the parlor:

- the computer player's HARD search in a worker process (EASY random, NORMAL greedy,
  HARD an iterative-deepening search within the host's ``computer_budget``, 1 s a move
  by default, read as nodes at the engine's fixed rate so a busy server plays the same
  moves, so that it takes neither the event loop nor the GIL);
- (``DICE MOVE``, ``DICE REMOVE`` and the help text are ``commands/dice.py``'s.)

Triad Dice needs no tables of its own: the host stores the state, the moves and the
result like any game's.
"""

from __future__ import annotations

import logging
import os
import random

from games.dice import ai, rules
from games.dice.spec import SPEC
from server.hosting import GameKind, StartContext
from server.workers import WorkerPool

log = logging.getLogger(__name__)


# -- the computer ------------------------------------------------------------------------
# HARD searches for its whole budget (1 s a move by default), EXPERT for
# ``ai.EXPERT_FACTOR`` times it; a budget is a count of search nodes, so a queued search
# gets the same move as one that ran at once. The host already calls ``choose_action``
# in a worker thread, but a thread busy in pure Python holds the GIL: measured with four
# HARD games at once, another player's LOOK took up to 155 ms (26 ms with processes), and
# all the searches shared one core. So their searches run in a pool of worker processes
# (started when needed, up to twice the cores, so that a few games at once share the
# cores rather than queue); the host's thread only waits for the answer. EASY and NORMAL
# take milliseconds and stay in the thread. If no process can be used the search runs in
# the thread as before.
#
# The workers are spawned processes (server/workers.py).
_SEARCH = WorkerPool(2 * (os.cpu_count() or 1))
SEARCHING = ("hard", "expert")  # the levels whose search runs in a worker process


def _search(state: rules.State, seat: int, level: str, rng: random.Random,
            budget_s: float) -> rules.Action:
    """HARD's or EXPERT's search, in a worker process: ``budget_s`` is read as nodes (the
    engine's fixed rate), so a busy server gets the same move as a quiet one."""
    return ai.choose_action(state, seat, level, rng, budget_s)


def choose_action(state: rules.State, seat: int, level: str, rng: random.Random,
                  budget_s: float = 1.0) -> rules.Action:
    """The engine's computer player. The host calls this in a worker thread; HARD's
    and EXPERT's search goes on in a worker process (same arguments, same answer). An error of the
    engine itself is raised as it is."""
    level = (level or "normal").lower()
    if level not in SEARCHING:
        return ai.choose_action(state, seat, level, rng, budget_s)
    pool = None
    try:
        pool = _SEARCH.get()
        return pool.submit(_search, state, seat, level, rng, budget_s).result(
            timeout=budget_s * ai.EXPERT_FACTOR + 30)
    except (OSError, RuntimeError):  # no process could start, one died, or it timed out
        log.warning("the search process failed; searching in this thread", exc_info=True)
        if pool is not None:
            _SEARCH.drop(pool)
    return ai.choose_action(state, seat, level, rng, budget_s)


class Dice(GameKind):
    """The ``dice`` kind: the game's spec, and a search process for HARD and EXPERT."""

    spec = SPEC

    def computer_move(self, state: rules.State, seat: int, level: str, rng: random.Random,
                      budget_s: float = 1.0) -> rules.Action:
        return choose_action(state, seat, level, rng, budget_s)

    async def on_start(self, ctx: StartContext) -> rules.State:
        """The first position (the engine's); a game against HARD or EXPERT also starts a
        search process now, while the first move is thought over, rather than at the
        computer's first turn (a new worker imports its program before it can search)."""
        if any(seat.computer in SEARCHING for seat in ctx.seats):
            try:
                _SEARCH.get().submit(int)
            except (OSError, RuntimeError):
                log.warning("could not start a search process", exc_info=True)
        return await super().on_start(ctx)


__all__ = ["Dice"]
