"""Repeated log lines, summed up: the server's log stays readable under a flood.

A flood of logins wrote 1,450 lines in 36 s ("failed login for ...", "login delayed: ...",
connects and disconnects), burying what an operator needs and filling the disk at the
attacker's pace. :class:`LogRepeats` is a filter on every handler of the server's log
(installed by ``server/cli.py``): of each *kind* of record (its logger and its message
template, numbers aside, so "[session 12] ..." and "[session 13] ..." are one kind) it
lets the first ``repeats`` through in a ``window`` of seconds, counts the rest, and when
the window is over writes one line in their place: the first of them, then "... (N more
like this in the last S s)". Kinds are counted apart, so one flood hides no other record.
"""

from __future__ import annotations

import logging
import re
import threading
import time

_NUMBERS = re.compile(r"\d+")
SUMMARY = "%s ... (%d more like this in the last %s s)"


class _Kind:
    __slots__ = ("started", "seen", "dropped", "first")

    def __init__(self, started: float) -> None:
        self.started = started
        self.seen = 0
        self.dropped = 0
        self.first: logging.LogRecord | None = None  # the first held back, as it read then


def _as_read(record: logging.LogRecord) -> logging.LogRecord:
    """``record`` with its message formatted now (its arguments may change later: a
    connection's peer reads "closing" once it is gone)."""
    try:
        message = record.getMessage()
    except Exception:  # a broken format string: its template will do
        message = str(record.msg)
    held = logging.makeLogRecord(record.__dict__)
    held.msg, held.args, held.exc_info, held.exc_text = message, (), None, None
    return held


class LogRepeats(logging.Filter):
    """At most ``repeats`` records of a kind a ``window`` (seconds) reach ``handler``;
    then one summary line for the rest (see the module docstring). ``repeats`` 0 lets
    everything through. At most ``kinds`` kinds are followed at once (past that the
    oldest are summed up at once and forgotten). ``timer``: a summary is written when its
    window ends even if the log falls silent (a daemon thread's timer); without it, at
    the next record of any kind, or :meth:`flush`."""

    def __init__(self, handler: logging.Handler, repeats: int = 20, window: float = 10.0,
                 kinds: int = 512, timer: bool = True) -> None:
        super().__init__()
        self.handler = handler
        self.repeats, self.window, self.kinds, self.timer = repeats, window, kinds, timer
        self._kinds: dict[tuple[str, str], _Kind] = {}
        self._due = float("inf")  # the end of the first window with records held back
        self._lock = threading.Lock()
        self._alarm: threading.Timer | None = None

    def filter(self, record: logging.LogRecord) -> bool:
        if self.repeats <= 0 or getattr(record, "repeats_summary", False):
            return True
        now = record.created
        with self._lock:
            summaries = self._take_due(now)
            key = (record.name, _NUMBERS.sub("#", str(record.msg))[:160])
            kind = self._kinds.get(key)
            if kind is None or now - kind.started >= self.window:
                if kind is not None and kind.dropped:
                    summaries.append(self._summary(kind))
                kind = self._kinds[key] = _Kind(now)
                if len(self._kinds) > self.kinds:
                    summaries += self._forget_oldest()
            kind.seen += 1
            passed = kind.seen <= self.repeats
            if not passed:
                kind.dropped += 1
                if kind.first is None:
                    kind.first = _as_read(record)
                self._due = min(self._due, kind.started + self.window)
                self._arm(now)
        self._write(summaries)
        return passed

    def flush(self, now: float | None = None) -> None:
        """Write the summaries of the windows over by ``now`` (the clock's time)."""
        with self._lock:
            self._alarm = None
            summaries = self._take_due(time.time() if now is None else now)
            if self._due != float("inf"):
                self._arm(time.time() if now is None else now)
        self._write(summaries)

    # -- inside the lock ------------------------------------------------------------------
    def _take_due(self, now: float) -> list[logging.LogRecord]:
        if now < self._due:
            return []
        summaries, due = [], float("inf")
        for key, kind in list(self._kinds.items()):
            ends = kind.started + self.window
            if now >= ends:
                if kind.dropped:
                    summaries.append(self._summary(kind))
                del self._kinds[key]
            elif kind.dropped:
                due = min(due, ends)
        self._due = due
        return summaries

    def _forget_oldest(self) -> list[logging.LogRecord]:
        summaries = []
        for key in list(self._kinds)[: max(1, self.kinds // 4)]:
            kind = self._kinds.pop(key)
            if kind.dropped:
                summaries.append(self._summary(kind))
        return summaries

    def _summary(self, kind: _Kind) -> logging.LogRecord:
        """The first record held back, and how many more there were (alone: as it was)."""
        first = kind.first
        assert first is not None
        more, kind.dropped, kind.first = kind.dropped - 1, 0, None
        if more:
            first.msg, first.args = SUMMARY, (first.msg, more, f"{self.window:g}")
        first.repeats_summary = True
        return first

    def _arm(self, now: float) -> None:
        if not self.timer or self._alarm is not None or self._due == float("inf"):
            return
        self._alarm = threading.Timer(max(0.0, self._due - now) + 0.05, self.flush)
        self._alarm.daemon = True
        self._alarm.start()

    # -- outside it -----------------------------------------------------------------------
    def _write(self, summaries: list[logging.LogRecord]) -> None:
        for summary in summaries:
            summary.created = now = time.time()  # written now: the log stays in order
            summary.msecs = (now - int(now)) * 1000
            self.handler.handle(summary)


__all__ = ["SUMMARY", "LogRepeats"]
