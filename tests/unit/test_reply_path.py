"""A reply's way out of a session (``Session._page``, ``_emit``, ``_send``) lays a text
out once (``server.text.lay_out``: wrapped, rows counted, CR LF line ends) and sends
that form: a reply that comes again, or reaches many listeners, is not scanned again,
and the bytes are those the plain path sent (the reference in test_wrap_fast)."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

import server.output
import server.text
from server.session import Session
from server.text import lay_out
from tests.unit.test_wrap_fast import RED, RESET, TEXTS, ReferenceSession, make, sent

WHO = "\n".join(f"Bench{i:05d}  The Plaza   0s    -" for i in range(50)) + \
    "\n... and 950 more (WHO <name prefix> narrows the list).\n1000 players connected."


def counting(monkeypatch) -> list[str]:  # noqa: ANN001
    """Every text wrapped (``wrap_wide_lines``), wherever it is called from."""
    calls: list[str] = []
    wrap = server.text.wrap_wide_lines

    def counted(text: str, width: int) -> str:
        calls.append(text)
        return wrap(text, width)

    monkeypatch.setattr(server.text, "wrap_wide_lines", counted)
    monkeypatch.setattr(server.output, "wrap_wide_lines", counted, raising=False)
    return calls


async def test_a_reply_that_comes_again_is_laid_out_once(monkeypatch):
    server.text._lay_out_cached.cache_clear()
    calls = counting(monkeypatch)
    listing = "\n".join(WHO.split("\n"))  # a string of its own: not in any cache yet
    s = make(Session, rows=24)
    pages = []
    for _ in range(3):  # WHO three times: a page of it each time, the rest held
        s.begin_reply()
        s.write(listing)
        s.end_reply()
        s.prompt()
        pages.append(sent(s))
        s._prompted = False  # the player typed the next command (read_line)
    assert pages[0] == pages[1] == pages[2]
    assert pages[0].startswith(b"Bench00000  The Plaza   0s    -\r\n") and b"-- More: 30" in pages[0]
    assert calls.count(listing) == 1


async def test_a_broadcast_is_laid_out_once_per_width(monkeypatch):
    server.text._lay_out_cached.cache_clear()
    calls = counting(monkeypatch)
    notice = "Alice arrives from the " + "north " * 20 + "."
    listeners = [make(Session, cols=cols) for cols in (80, 80, 80, 60, 60)]
    for s in listeners:
        s.notify(notice)
    assert calls.count(notice) == 2
    assert {sent(s) for s in listeners[:3]} == {sent(make_notified(80, notice))}


def make_notified(cols: int, text: str) -> Session:
    s = make(ReferenceSession, cols=cols)
    s.notify(text)
    return s


def test_the_laid_out_forms_agree():
    laid = lay_out(WHO, 80)
    assert laid.rows == 52 and laid.text == WHO
    assert laid.wire == WHO.replace("\n", "\r\n") + "\r\n"
    assert laid.lines == tuple(WHO.split("\n"))
    for rows in (0, 1, 22, 52, 60, 22):
        assert laid.head(rows) == "".join(f"{line}\r\n" for line in laid.lines[:rows])
    assert lay_out(WHO, 80) is laid  # remembered
    assert lay_out("a\r\nb", 80).wire == "a\r\nb\r\n"
    long = "word " * 2000  # over 4 KB: laid out, not remembered
    assert lay_out(long, 40) is not lay_out(long, 40)
    assert lay_out(long, 40).text == server.text.wrap_wide_lines(long, 40)


@settings(max_examples=300)
@given(st.lists(TEXTS, min_size=1, max_size=4), st.integers(min_value=40, max_value=100),
       st.booleans(), st.booleans())
async def test_notices_send_what_they_sent_before(texts, cols, color, prompted):
    new, old = make(Session, cols=cols, color=color), make(ReferenceSession, cols=cols,
                                                           color=color)
    for s in (new, old):
        s.account = object()  # logged in: a notice is followed by the prompt
        if prompted:
            s.prompt()
            s.flush()  # the prompt is on the screen
        for text in texts:
            s.notify(text)
        s.notify(RED + "x" * 90 + RESET)
    assert sent(new) == sent(old)


async def test_the_replies_of_a_turn_are_flushed_by_one_callback(monkeypatch):
    loop = asyncio.get_running_loop()
    scheduled = []
    call_soon = loop.call_soon

    def counted(cb, *a, **k):  # noqa: ANN001, ANN002, ANN003, ANN202
        if getattr(cb, "__name__", "") in ("flush", "run"):  # a session's, or the turn's
            scheduled.append(cb)
        return call_soon(cb, *a, **k)

    monkeypatch.setattr(loop, "call_soon", counted)
    sessions = [make(Session) for _ in range(5)]
    for i, s in enumerate(sessions):
        s.begin_reply()
        s.write(f"reply {i}")
        s.end_reply()
        s.prompt()
    assert len(scheduled) == 1 and all(s.terminal.data == b"" for s in sessions)
    await asyncio.sleep(0)  # the next turn
    assert [bytes(s.terminal.data) for s in sessions] == [
        f"reply {i}\r\n> ".encode() + bytes([255, 249]) for i in range(5)]
    sessions[0].notify("a tell")  # a later turn: a callback again
    assert len(scheduled) == 2
