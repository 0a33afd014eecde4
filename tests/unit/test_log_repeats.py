"""LogRepeats (server/logs.py): the first records of a kind pass, the rest become one line."""

from __future__ import annotations

import logging

from server.logs import LogRepeats


class Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.levelname} {record.name}: {record.getMessage()}")


def _handler(repeats: int = 3, window: float = 10.0) -> tuple[Kept, LogRepeats]:
    kept = Kept()
    repeats_filter = LogRepeats(kept, repeats=repeats, window=window, timer=False)
    kept.addFilter(repeats_filter)
    return kept, repeats_filter


def _log(kept: Kept, name: str, msg: str, args: tuple, at: float,
         level: int = logging.WARNING) -> None:
    record = logging.LogRecord(name, level, __file__, 1, msg, args, None)
    record.created = at
    kept.handle(record)


def test_the_first_of_a_kind_pass_then_one_line_sums_up_the_rest():
    kept, repeats = _handler(repeats=3, window=10.0)
    for i in range(100):
        _log(kept, "server.login", "failed login for %s from %s", (f"n{i}", "10.0.0.1"),
             100 + i / 100)
    assert kept.lines == [f"WARNING server.login: failed login for n{i} from 10.0.0.1"
                          for i in range(3)]
    repeats.flush(now=109.9)              # the window is not over: nothing yet
    assert len(kept.lines) == 3
    repeats.flush(now=110.0)
    assert kept.lines[3] == ("WARNING server.login: failed login for n3 from 10.0.0.1 ... "
                             "(96 more like this in the last 10 s)")
    repeats.flush(now=200.0)              # said once
    assert len(kept.lines) == 4
    _log(kept, "server.login", "failed login for %s from %s", ("again", "x"), 201)
    assert kept.lines[-1].endswith("failed login for again from x")   # a new window


def test_a_summary_reads_as_its_record_did_when_held_back():
    class Peer:
        state = "127.0.0.1 4000"

        def __str__(self) -> str:
            return self.state

    kept, repeats = _handler(repeats=1)
    peers = [Peer() for _ in range(3)]
    for peer in peers:
        _log(kept, "telnetlib3.server_base", "Connection from %s", (peer,), 100)
    for peer in peers:
        peer.state = "- closing"
    repeats.flush(now=111)
    assert kept.lines[-1].endswith("Connection from 127.0.0.1 4000 ... (1 more like this in "
                                   "the last 10 s)")


def test_a_flood_of_one_kind_hides_no_other():
    kept, _ = _handler(repeats=2)
    for i in range(50):
        _log(kept, "server.login", "login delayed: %s", (f"addr:{i}",), 100)
    _log(kept, "server.login", "failed login for %s from %s", ("bob", "x"), 100)
    _log(kept, "server.app", "login delayed: %s", ("addr:1",), 100)  # another logger
    assert kept.lines[2:] == ["WARNING server.login: failed login for bob from x",
                              "WARNING server.app: login delayed: addr:1"]


def test_numbers_in_a_template_make_no_new_kind():
    """A session's logger puts its number in the message: "[session 12] ..."."""
    kept, _ = _handler(repeats=2)
    for i in range(10):
        _log(kept, "server.session", f"[session {i}] %s logged in from %s", ("a", "b"), 100,
             logging.INFO)
    assert len(kept.lines) == 2


def test_the_next_record_writes_a_summary_that_is_due():
    kept, _ = _handler(repeats=1, window=5.0)
    for i in range(4):
        _log(kept, "telnetlib3.server_base", "Connection from %s", (f"p{i}",), 100)
    _log(kept, "server.app", "something else", (), 106)   # the first window is over
    assert kept.lines == ["WARNING telnetlib3.server_base: Connection from p0",
                          "WARNING telnetlib3.server_base: Connection from p1 ... "
                          "(2 more like this in the last 5 s)",
                          "WARNING server.app: something else"]


def test_zero_lets_everything_through_and_kinds_are_bounded():
    kept, _ = _handler(repeats=0)
    for _ in range(100):
        _log(kept, "x", "same", (), 100)
    assert len(kept.lines) == 100
    kept = Kept()
    repeats = LogRepeats(kept, repeats=1, window=10.0, kinds=8, timer=False)
    kept.addFilter(repeats)
    for i in range(100):
        _log(kept, f"logger{i}", "twice", (), 100)
        _log(kept, f"logger{i}", "twice", (), 100)
    assert len(repeats._kinds) <= 8
    # the kinds forgotten early wrote what they held as they went (one record: as it was)
    assert len(kept.lines) >= 200 - 8 and not any("more like this" in x for x in kept.lines)


def test_the_timer_writes_the_summary_when_the_log_falls_silent():
    import time

    kept = Kept()
    repeats = LogRepeats(kept, repeats=1, window=0.2, timer=True)
    kept.addFilter(repeats)
    now = time.time()
    for i in range(5):
        _log(kept, "server.login", "failed login for %s", (f"n{i}",), now)
    for _ in range(100):
        if len(kept.lines) == 2:
            break
        time.sleep(0.02)
    assert kept.lines[-1].endswith("failed login for n1 ... (3 more like this in the last 0.2 s)")
