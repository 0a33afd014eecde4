"""The fast paths of the output path (``server.text.wrap_wide_lines``, ``fits`` and the
pager in ``Session._page``) give exactly what the plain algorithm gives.

Each reference below is the code as it was before the fast paths (every line measured
with ``visible_len``, every line of a reply counted with ``_rows_of``, every emitted reply
wrapped again): the new code must send the same bytes for every text, width, height and
colour setting, ASCII, colour-coded or wide (CJK, emoji, combining marks)."""

from __future__ import annotations

from types import SimpleNamespace

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st
from wcwidth import wcwidth

from server.output import MAX_HELD_LINES, PROMPT
from server.session import Session
from server.telnet import TelnetProtocol
from server.text import _wrap_wide, fits, strip_sgr, visible_len, wrap_wide_lines
from tests.hardening.harness import FakeTerminal

RED, RESET = "\x1b[31m", "\x1b[0m"


# -- the references (the code before the fast paths) ------------------------------------------
def reference_wrap(text: str, width: int, wrap_wide=_wrap_wide) -> str:  # noqa: ANN001
    if width <= 0 or all(visible_len(line) <= width for line in text.split("\n")):
        return text
    out: list[str] = []
    for line in text.split("\n"):
        if visible_len(line) <= width:
            out.append(line)
            continue
        indent = " " * min(len(line) - len(line.lstrip(" ")), width // 4)
        out.extend(wrap_wide(line.strip(" "), width, "") if not indent else
                   [indent + part for part in wrap_wide(line.strip(" "), width - len(indent), "")])
    return "\n".join(out)


def old_fit(text: str, columns: int) -> str:
    """``fit(text, columns, mark="")`` as it was: every character measured by ``wcwidth``,
    a colour code's characters among them."""
    if visible_len(text) <= columns:
        return text
    out, used = [], 0
    for ch in text:
        w = max(0, wcwidth(ch))
        if used + w > columns:
            break
        out.append(ch)
        used += w
    return "".join(out)


def old_wrap_wide(para: str, width: int, indent: str) -> list[str]:
    """``_wrap_wide`` as it was, breaking a long word with ``fit``: that counted a colour
    code's characters as columns and could cut one in two."""
    lines: list[str] = []
    line = ""
    for word in para.split():
        candidate = f"{line} {word}" if line else (indent if lines else "") + word
        if visible_len(candidate) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
        line = (indent if lines else "") + word
        while visible_len(line) > width:
            head = old_fit(line, width)
            lines.append(head)
            line = indent + line[len(head):]
    if line or not lines:
        lines.append(line)
    return lines


class ReferenceSession(Session):
    """A session whose output path is the one before the fast paths."""

    def _emit(self, text: str) -> None:
        if self.closed:
            return
        if not self.color:
            text = strip_sgr(text)
        text = reference_wrap(text.replace("\r\n", "\n"), self.width)
        lead = ""
        if self._prompted:
            if self._out and self._out[-1] == PROMPT:
                self._out.pop()
            else:
                lead = "\r\n"
            self._prompted = False
        self._queue(lead + text.replace("\n", "\r\n") + "\r\n")

    def end_reply(self) -> None:
        self._replying = False
        if not self._held:
            return
        if not self._dropped and \
                self._rows + sum(self._rows_of(line) for line in self._held) <= self.height - 1:
            held, self._held = self._held, []
            self._emit("\n".join(held))
            return
        self._emit(f"-- More: {len(self._held) + self._dropped} lines left. Enter or MORE: "
                   "next page; anything else: stop --")

    def _page(self, text: str) -> None:
        room = self.height - 2
        lines = reference_wrap(text.replace("\r\n", "\n"), self.width).split("\n")
        shown = []
        self._held = list(self._held)  # the session keeps an empty tuple while none is held
        for line in lines:
            if not self._held and self._rows + self._rows_of(line) <= room:
                shown.append(line)
                self._rows += self._rows_of(line)
            elif len(self._held) < MAX_HELD_LINES:
                self._held.append(line)
            else:
                self._dropped += 1
        if shown:
            self._emit("\n".join(shown))


def make(cls: type[Session], *, cols: int = 80, rows: int = 24, color: bool = True) -> Session:
    config = SimpleNamespace(
        login=SimpleNamespace(lines_per_second=10.0),
        server=SimpleNamespace(commands_per_second=10.0, command_burst=10, max_line=2000))
    parlor = SimpleNamespace(world=SimpleNamespace(start="plaza"), config=config)
    s = cls(parlor, FakeTerminal(cols=cols))
    s.height = rows
    s.color = color
    return s


def sent(s: Session) -> bytes:
    s.flush()
    data = bytes(s.terminal.data)
    s.terminal.data.clear()
    return data


# -- text: what is drawn ----------------------------------------------------------------------
PIECES = st.sampled_from([
    "a", "b", "word", "x" * 13, " ", " ", "  ", "\n", "\n", "\r", "\r\n", "-",
    RED, RESET, "\x1b[1;32m", "日本", "漢", "字", "🎲", "e\u0301", "\u200b", "é", "ü",
])
TEXTS = st.lists(PIECES, max_size=60).map("".join)


# -- wrap_wide_lines ---------------------------------------------------------------------------
def test_short_ascii_is_returned_as_it_is():
    text = "You are in the plaza."
    assert wrap_wide_lines(text, 80) is text
    board = "\n".join(["+---+---+---+"] * 5)
    assert wrap_wide_lines(board, 40) is board


def test_exactly_the_width_fits_and_one_more_wraps():
    assert wrap_wide_lines("x" * 40, 40) == "x" * 40
    assert wrap_wide_lines("ab " * 13 + "a", 40) == "ab " * 13 + "a"  # 40 columns
    assert wrap_wide_lines("ab " * 13 + "ab", 40) == ("ab " * 13).rstrip() + "\nab"
    assert wrap_wide_lines("x" * 41, 40) == "x" * 40 + "\nx"
    assert wrap_wide_lines("x" * 39, 40) == "x" * 39


def test_a_width_one_line_and_empty_lines():
    assert wrap_wide_lines("x", 1) == "x"
    # a character wider than the whole line goes on a line of its own (it used to hang)
    assert wrap_wide_lines("漢字", 1) == "漢\n字"
    assert wrap_wide_lines("a漢", 1) == "a\n漢"
    assert wrap_wide_lines("xy", 1) == "x\ny"
    assert wrap_wide_lines("", 40) == ""
    assert wrap_wide_lines("\n\n", 40) == "\n\n"
    assert wrap_wide_lines("a b c", 1) == "a\nb\nc"


def test_colour_codes_count_no_columns():
    line = RED + "x" * 40 + RESET  # 49 characters, 40 columns
    assert len(line) > 40 and wrap_wide_lines(line, 40) == line
    long = RED + "word " * 10 + RESET  # 50 columns: wrapped, codes kept
    wrapped = wrap_wide_lines(long, 40)
    assert wrapped == reference_wrap(long, 40)
    assert all(visible_len(part) <= 40 for part in wrapped.split("\n"))
    assert strip_sgr(wrapped).split() == strip_sgr(long).split()


def test_wide_characters_count_two_columns():
    cjk = "漢字" * 10  # 20 characters, 40 columns: fits 40, not 39
    assert wrap_wide_lines(cjk, 40) == cjk
    assert wrap_wide_lines(cjk, 39) == reference_wrap(cjk, 39) != cjk
    emoji = "🎲 " * 14  # 28 characters, 42 columns with the spaces
    assert wrap_wide_lines(emoji, 40) == reference_wrap(emoji, 40) != emoji
    short = "日本" * 5  # 10 characters, at most 20 columns: fits 20 without measuring
    assert wrap_wide_lines(short, 20) == short


def test_leading_spaces_indent_the_pieces():
    line = "    " + "word " * 20
    assert wrap_wide_lines(line, 40) == reference_wrap(line, 40)
    assert all(part.startswith("    ") for part in wrap_wide_lines(line, 40).split("\n"))


@settings(max_examples=400)
@given(TEXTS, st.integers(min_value=2, max_value=60))  # at 1 the reference hangs on a wide character
def test_wrap_wide_lines_is_the_plain_algorithm(text, width):
    wrapped = wrap_wide_lines(text, width)
    assert wrapped == reference_wrap(text, width)


@settings(max_examples=300)
@given(TEXTS.filter(lambda t: "\x1b" not in t and "\r" not in t),
       st.integers(min_value=2, max_value=60))
def test_without_colour_codes_the_wrapping_is_what_it_was(text, width):
    assert wrap_wide_lines(text, width) == reference_wrap(text, width, old_wrap_wide)


def test_a_long_coloured_word_is_cut_between_codes_not_inside_one():
    word = RED + "x" * 50 + RESET
    assert wrap_wide_lines(word, 40) == RED + "x" * 40 + "\n" + "x" * 10 + RESET
    # before: 36 x's (the code's 4 characters were counted as columns)
    assert reference_wrap(word, 40, old_wrap_wide).split("\n")[0] == RED + "x" * 36
    # before: "aa\x1b" and "[31ma", a code cut in two and shown as text
    assert wrap_wide_lines("aa" + RED + "a", 2) == "aa" + RED + "\na"


@settings(max_examples=300)
@given(TEXTS, st.integers(min_value=2, max_value=60))
def test_every_wrapped_line_fits_so_wrapping_again_changes_nothing(text, width):
    wrapped = wrap_wide_lines(text, width)
    assert all(visible_len(line) <= width for line in wrapped.split("\n"))
    assert wrap_wide_lines(wrapped, width) == wrapped
    plain = strip_sgr(wrapped).replace("\r\n", "\n")
    assert wrap_wide_lines(plain, width) == plain


@settings(max_examples=400)
@given(TEXTS.map(lambda t: t.replace("\n", "")), st.integers(min_value=0, max_value=60))
def test_fits_is_visible_len_within_the_width(line, width):
    assert fits(line, width) == (visible_len(line) <= width)


def test_fits_on_the_edges():
    assert fits("x" * 10, 10) and not fits("x" * 11, 10)
    assert fits(RED + "x" * 10 + RESET, 10) and not fits(RED + "x" * 11 + RESET, 10)
    assert fits("漢" * 5, 10) and not fits("漢" * 6, 10)
    assert fits("e\u0301" * 10, 10)  # combining accents take no column
    assert fits("", 0) and not fits("x", 0)


# -- the pager ---------------------------------------------------------------------------------
WRITES = st.lists(st.one_of(TEXTS, st.integers(min_value=1, max_value=60).map(
    lambda n: "\n".join(f"line {i}" for i in range(n)))), min_size=1, max_size=6)


@settings(max_examples=300)
@given(WRITES, st.integers(min_value=40, max_value=100), st.integers(min_value=10, max_value=30),
       st.booleans(), st.booleans())
async def test_the_pager_sends_what_it_sent_before(writes, cols, rows, color, page_on):
    new, old = make(Session, cols=cols, rows=rows, color=color), \
        make(ReferenceSession, cols=cols, rows=rows, color=color)
    for s in (new, old):
        s.prompt()  # a prompt on screen: the reply's first line starts below it
        s.begin_reply()
        for text in writes:
            s.write(text)
        s.end_reply()
        s.prompt()
    assert sent(new) == sent(old)
    assert list(new._held) == list(old._held) and new._dropped == old._dropped \
        and new._rows == old._rows
    while page_on and old.paging:
        assert new.more() and old.more()
        assert sent(new) == sent(old) and list(new._held) == list(old._held)
    assert new.paging == old.paging


async def test_a_reply_that_fits_goes_out_whole():
    s = make(Session)
    s.begin_reply()
    s.write("one\ntwo")
    s.write(RED + "three" + RESET)
    s.end_reply()
    assert sent(s) == f"one\r\ntwo\r\n{RED}three{RESET}\r\n".encode()
    assert s._rows == 3 and not s.paging


async def test_an_empty_line_on_a_cut_page_is_still_sent():
    new, old = make(Session, rows=10), make(ReferenceSession, rows=10)
    for s in (new, old):
        s.begin_reply()
        s.write("\n".join(["x"] * 7))
        s.write("\n" + "\n".join(["y"] * 5))  # an empty line is the last row of the page
        s.end_reply()
    assert sent(new) == sent(old)
    assert new._held == old._held == ["y"] * 5


async def test_colour_off_strips_after_the_page_is_wrapped():
    new, old = make(Session, cols=40, color=False), make(ReferenceSession, cols=40, color=False)
    text = RED + "a" * 45 + RESET + "\n    " + RED + "word " * 12 + RESET
    for s in (new, old):
        s.begin_reply()
        s.write(text)
        s.end_reply()
    assert sent(new) == sent(old)


# -- the window: width and height as the telnet protocol keeps them (NAWS) ---------------------
class _Transport(asyncio.Transport):
    def get_extra_info(self, name, default=None):  # noqa: ANN001, ANN201
        return {"peername": ("10.0.0.1", 4000)}.get(name, default)

    def write(self, data: bytes) -> None:
        pass

    def is_closing(self) -> bool:
        return False

    def close(self) -> None:
        pass


async def test_width_and_height_follow_the_telnet_window():
    protocol = TelnetProtocol(cols=100, rows=30, shell=None, connect_maxwait=0.1)
    protocol.connection_made(_Transport())
    config = SimpleNamespace(
        login=SimpleNamespace(lines_per_second=10.0),
        server=SimpleNamespace(commands_per_second=10.0, command_burst=10, max_line=2000))
    parlor = SimpleNamespace(world=SimpleNamespace(start="plaza"), config=config)
    s = Session(parlor, protocol)  # the telnet protocol is the session's terminal
    assert (s.width, s.height) == (100, 30) == (protocol.writer.get_extra_info("cols"),
                                                protocol.writer.get_extra_info("rows"))
    protocol.on_naws(50, 120)  # the client's window changed
    assert (s.width, s.height) == (120, 50)
    protocol.on_naws(5, 1000)  # out of bounds: clamped as before
    assert (s.width, s.height) == (250, 10)
    s.width, s.height = 60, 20  # SET WIDTH / SET HEIGHT win
    assert (s.width, s.height) == (60, 20)
    s.width = s.height = None
    assert (s.width, s.height) == (250, 10)
    protocol.connection_lost(None)
    await asyncio.sleep(0.2)  # telnetlib3's negotiation timer runs out with the test


def test_a_terminal_that_knows_no_window_is_taken_as_80_by_24():
    s = make(Session, cols=90)
    s.height = None  # make() sets a height; FakeTerminal's window has 40 rows
    assert (s.width, s.height) == (90, 40)
    s.terminal.cols = s.terminal.rows = None
    assert (s.width, s.height) == (80, 24)
