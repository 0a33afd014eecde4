"""No test waits for ever: what a test that overran its time was doing, then its failure.

pytest-timeout (``timeout`` in pyproject.toml, fixtures' setup and teardown included)
calls ``pytest_timeout_set_timer`` for every test. With ``timeout_method = "signal"`` this
plugin takes that over: when the time is up, SIGALRM interrupts the main thread (an
event loop waiting in ``select()`` included) and the test fails with the stack of every
thread *and of every asyncio task of the loop that was running*, since an async test
that hangs is one task awaiting another, and a thread's stack shows only the loop's
``select()``. The report goes to stderr at once (an xdist worker's stderr is the
terminal's) and into the failure itself.

The failure interrupts whatever waited, a fixture's teardown included, and pytest goes
on with the other finalizers. One that hangs again is interrupted again ``GRACE`` seconds
later, up to ``AGAIN`` times; then the stacks are written once more and the process ends
(xdist reports the test as crashed; it would run the test again on a new worker, which
is why the process is ended only as a last resort). The last backstop is pytest's own
``faulthandler_timeout`` with ``faulthandler_exit_on_timeout``, set above any test's
limit, for a process stuck in C code that never returns to Python to run a signal
handler: faulthandler's own thread dumps every thread's stack and ends it.
"""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import sys
import threading
import traceback
from types import FrameType
from typing import Any, Iterator

import pytest

GRACE = 30.0  # seconds what is left of a timed-out test's teardown has before it is cut
AGAIN = 3     # times it is cut again before its process ends
_terminal: int | None = None  # a copy of stderr's descriptor, taken before any capture


def pytest_configure(config: pytest.Config) -> None:
    global _terminal
    if _terminal is None:
        _terminal = os.dup(2)


def _say(text: str) -> None:
    """Write to the terminal's stderr, past pytest's capture of the test's output."""
    data = text.encode("utf-8", "replace")
    try:
        os.write(_terminal if _terminal is not None else 2, data)
    except OSError:
        pass


def _awaited(coro: Any) -> Iterator[tuple[FrameType | None, Any]]:
    """The frames of a coroutine and of what it awaits, innermost last; each with the
    object it awaits (at the bottom, a future or a task: what the chain waits for)."""
    seen = 0
    while coro is not None and seen < 200:
        seen += 1
        frame = (getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None)
                 or getattr(coro, "ag_frame", None))
        inner = (getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
                 or getattr(coro, "ag_await", None))
        if type(inner).__name__ in ("async_generator_asend", "async_generator_athrow",
                                    "FutureIter"):
            # ``await agen.__anext__()`` (an async fixture's teardown, ``async for``) and
            # ``await future``: the step object does not name its generator or future,
            # but refers to it
            inner = next((r for r in gc.get_referents(inner)
                          if hasattr(r, "ag_frame") or isinstance(r, asyncio.Future)),
                         inner)
        yield frame, inner
        if inner is None or not any(hasattr(inner, a) for a in
                                    ("cr_frame", "gi_frame", "ag_frame")):
            return
        coro = inner


def _task_stack(task: asyncio.Future, loop: asyncio.AbstractEventLoop, indent: str,
                seen: set[int], out: list[str]) -> None:
    """One task's stack down to what it awaits; what it awaits in turn, when that is a
    task or a gathering of tasks not listed already (another loop's, say)."""
    if id(task) in seen or len(seen) > 500:
        name = task.get_name() if isinstance(task, asyncio.Task) else type(task).__name__
        out.append(f"{indent}--- {name} (listed)\n")
        return
    seen.add(id(task))
    other = "" if asyncio.futures._get_loop(task) is loop else " OF ANOTHER LOOP"  # noqa: SLF001
    if not isinstance(task, asyncio.Task):
        out.append(f"{indent}--- {task!r}{other}\n")
        for child in getattr(task, "_children", ()):  # asyncio.gather's
            _task_stack(child, loop, indent + "    ", seen, out)
        return
    state = "done" if task.done() else "pending"
    if task.cancelling() and not task.done():  # a cancellation lost on its way
        state += f", cancelled {task.cancelling()} time(s) and still running"
    out.append(f"{indent}--- task {task.get_name()} ({state}){other}: {task.get_coro()!r}\n")
    last = None
    for frame, inner in _awaited(task.get_coro()):
        if frame is not None:
            out.extend(indent + line for line in
                       "".join(traceback.format_stack(frame, limit=1)).splitlines(True))
        last = inner
    if last is not None:
        out.append(f"{indent}    awaiting {last!r}\n")
        if isinstance(last, asyncio.Future) and (isinstance(last, asyncio.Task)
                                                 or hasattr(last, "_children")):
            _task_stack(last, loop, indent + "    ", seen, out)


def task_stack(task: asyncio.Future) -> str:
    """One task's stack down to what it awaits (and the tasks it awaits)."""
    out: list[str] = []
    _task_stack(task, asyncio.futures._get_loop(task), "", set(), out)  # noqa: SLF001
    return "".join(out)


def task_stacks(loop: asyncio.AbstractEventLoop) -> str:
    """Every task of ``loop`` that is not done, each with the stack of its coroutine down
    to what it awaits (and, nested, the tasks it awaits that are not listed)."""
    for _ in range(3):
        try:
            tasks = sorted(asyncio.all_tasks(loop), key=lambda t: t.get_name())
            break
        except RuntimeError:  # the set changed while it was read
            tasks = []
    out = [f"--- {len(tasks)} asyncio task(s) of {loop!r}\n"]
    listed = {id(t) for t in tasks}
    for task in tasks:
        seen = listed - {id(task)}
        _task_stack(task, loop, "", seen, out)
    return "".join(out)


def thread_stacks(current: FrameType | None = None) -> str:
    """Every thread's stack (``current``: the main thread's, as the signal found it)."""
    names = {t.ident: t.name for t in threading.enumerate()}
    out: list[str] = []
    me = threading.get_ident()
    for ident, frame in sys._current_frames().items():  # noqa: SLF001
        if ident == me and current is not None:
            frame = current
        out.append(f"--- thread {names.get(ident, '?')} ({ident})\n")
        out.append("".join(traceback.format_stack(frame)))
    return "".join(out)


def report(nodeid: str, timeout: float, frame: FrameType | None) -> str:
    """What a test that overran ``timeout`` seconds was doing."""
    parts = [f"Timeout: {nodeid} ran over {timeout:g} s (fixtures included)\n",
             thread_stacks(frame)]
    loop = asyncio._get_running_loop()  # noqa: SLF001 (the loop the signal interrupted)
    if loop is not None:
        parts.append(task_stacks(loop))
    else:
        parts.append("--- no event loop was running\n")
    return "".join(parts)


@pytest.hookimpl(tryfirst=True)
def pytest_timeout_set_timer(item: pytest.Item, settings: Any) -> bool | None:
    """The signal method of pytest-timeout, with the asyncio tasks in its report."""
    if settings.method != "signal" or threading.current_thread() is not threading.main_thread():
        return None  # pytest-timeout's own timer (a thread that dumps and exits)

    alarms = [0]

    def on_alarm(_signum: int, frame: FrameType | None) -> None:
        __tracebackhide__ = True
        alarms[0] += 1
        late = settings.timeout + (alarms[0] - 1) * GRACE
        text = report(item.nodeid, late, frame)
        if alarms[0] > AGAIN:
            _say(f"\n{'+' * 30} Timeout: the test's teardown hung {AGAIN} more times; this "
                 f"process ends (exit status 1) {'+' * 30}\n{text}")
            os._exit(1)
        _say(f"\n{'+' * 30} Timeout {'+' * 30}\n{text}")
        # the failure interrupts whatever waited (a fixture's teardown too); what is left
        # of the test's teardown gets GRACE seconds before it is interrupted again
        signal.setitimer(signal.ITIMER_REAL, GRACE)
        pytest.fail(text, pytrace=False)

    def cancel() -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)

    item.cancel_timeout = cancel  # type: ignore[attr-defined]  (pytest-timeout calls it)
    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, settings.timeout)
    return True
