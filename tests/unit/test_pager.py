"""The pager of a session (``Session.begin_reply``/``end_reply``/``more``): a command's
reply taller than the screen stops after a page; Enter or MORE turns it, another line
drops the rest; notices are never held; what is held is bounded."""

from __future__ import annotations

import re
from types import SimpleNamespace

from server.output import MAX_HELD_LINES
from server.session import Session
from tests.hardening.harness import FakeTerminal

MORE = re.compile(r"-- More: (\d+) lines left\. Enter or MORE: next page; anything else: stop --")


def session(rows: int = 24) -> Session:
    config = SimpleNamespace(
        login=SimpleNamespace(lines_per_second=10.0),
        server=SimpleNamespace(commands_per_second=10.0, command_burst=10, max_line=2000))
    parlor = SimpleNamespace(world=SimpleNamespace(start="plaza"), config=config)
    s = Session(parlor, FakeTerminal())
    s.height = rows
    return s


def out(s: Session) -> list[str]:
    """What the session sent since the last call, as lines."""
    s.flush()
    text = s.terminal.data.decode()
    s.terminal.data.clear()
    return text.split("\r\n")[:-1]


def numbered(n: int) -> str:
    return "\n".join(f"line {i}" for i in range(1, n + 1))


async def test_a_tall_reply_pages_and_enter_turns_the_page():
    s = session()
    s.begin_reply()
    s.write(numbered(50))
    s.end_reply()
    first = out(s)
    assert first[:22] == [f"line {i}" for i in range(1, 23)]
    assert MORE.fullmatch(first[22]).group(1) == "28" and len(first) == 23
    s._feed("\r\n", 2000)  # Enter
    assert await s.read_line() == ""
    second = out(s)
    assert second[0] == "line 23" and MORE.fullmatch(second[-1]).group(1) == "6"
    s._feed("more\r\n", 2000)
    assert await s.read_line() == ""
    assert out(s) == [f"line {i}" for i in range(45, 51)] and not s.paging
    s._feed("more\r\n", 2000)  # nothing held: MORE is a command like any other
    assert await s.read_line() == "more"


async def test_another_command_drops_the_rest_and_runs():
    s = session()
    s.begin_reply()
    s.write(numbered(30))
    s.end_reply()
    out(s)
    s._feed("look\r\n", 2000)
    assert await s.read_line() == "look" and not s.paging
    assert out(s) == []


async def test_a_reply_that_fits_with_the_prompt_is_not_paged():
    s = session()
    s.begin_reply()
    for i in range(1, 24):  # 23 lines and the prompt fill 24 rows
        s.write(f"line {i}")
    s.end_reply()
    assert out(s) == [f"line {i}" for i in range(1, 24)] and not s.paging


async def test_long_lines_count_the_rows_they_wrap_to():
    s = session()
    s.begin_reply()
    s.write("\n".join(["x" * 200] * 10))  # 3 rows each at 80 columns
    s.end_reply()
    shown = out(s)
    # wrapped to the width first (Session.write), then paged: 22 rows and the pager
    assert len(shown) == 23 and MORE.fullmatch(shown[-1])
    assert all(len(line) <= 80 for line in shown[:-1])


async def test_notices_are_not_held_and_what_is_held_is_bounded():
    s = session()
    s.begin_reply()
    s.write(numbered(MAX_HELD_LINES + 500))
    s.notify("Bob says, \"hi\"")  # a notice during the reply goes out at once
    s.end_reply()
    shown = out(s)
    assert 'Bob says, "hi"' in shown
    assert int(MORE.fullmatch(shown[-1]).group(1)) == MAX_HELD_LINES + 500 - 22
    assert len(s._held) == MAX_HELD_LINES
    while s.paging:
        s.more()
    assert out(s)[-1] == f"({500 - 22} more lines were too many to keep.)"
    s.write("after")  # outside a reply nothing is paged
    assert out(s) == ["after"]


async def test_a_cr_lf_split_over_two_reads_is_not_an_enter():
    s = session()
    s.begin_reply()
    s.write(numbered(40))
    s._feed("help\r", 2000)
    s._feed("\n", 2000)
    s.end_reply()
    out(s)
    assert list(s._lines or ()) == ["help"]
