"""The Pyramid solver's worker process, and its budgets: the solver's searches and HINT's
thinking run there, off the event loop. Players share it through Pyramid's
``SolverDesk`` (``server/services/pyramid.py``); the Par tournament's best Par of each
deal (``server/services/pyramid_par.py``) is asked of it directly.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, TypeVar

from games.pyramid import ai, rules, solver
from server.workers import WorkerPool

log = logging.getLogger("server.services.pyramid")  # its records are Pyramid's, by name

T = TypeVar("T")

# The solver's budgets, in seconds read as nodes at its fixed rate (solver.nodes_for), so
# a verdict is the same on a busy server; CPU time is only its last guard.
VERDICT_LIMIT = 3.0    # to say whether a deal could be won
SOLUTION_LIMIT = 5.0   # ... to find the best Par line for PYR SOLUTION
HINT_BUDGET = 0.5      # ... the engine may think for a HINT
AUTO_BUDGET = 0.5      # ... and for each AUTO move

# The solver's searches (up to seconds, compiled or not: see setup.py) run in one worker
# *process*: in a thread they would hold the GIL and slow every connection (measured: a
# command's reply went from 3 ms to 85 ms at the median, 370 ms at worst, while a Par
# search ran in a thread). One worker, so searches queue rather than take both cores. It
# is spawned (a fresh interpreter that imports only the engine), and exits when its parent
# does, even after a SIGKILL. Should no process be available, the search runs in a thread.
# HINT's thinking (the computer player's, which calls the solver) runs there too.
_SOLVER = WorkerPool(1)  # spawned processes (server/workers.py)
_threads = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pyramid-solver")


async def _in_worker(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in the solver's worker process (in a thread should none start)."""
    pool = None
    try:
        pool = _SOLVER.get()
        return await asyncio.wrap_future(pool.submit(fn, *args))
    except (OSError, RuntimeError):  # no process could start, or it died
        log.warning("the solver process failed; solving in a thread", exc_info=True)
        if pool is not None:
            _SOLVER.drop(pool)
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_threads, functools.partial(fn, *args))


async def solve(game: rules.Game, goal: str, time_limit: float) -> solver.Solution:
    """``solver.solve`` off the event loop, in the solver's worker process: one search,
    not queued and not remembered (players go through Pyramid's ``SolverDesk``)."""
    return await _in_worker(solver.solve_for, game, goal, time_limit)


async def think_hint(state: rules.State, budget: float) -> rules.Action | None:
    """``ai.hint`` off the event loop, in the solver's worker process."""
    return await _in_worker(ai.hint, state, 0, budget)
