"""Text hygiene and layout: strip what could drive a terminal, measure and wrap lines.

Everything a player typed passes through :func:`clean` before another player sees it.
Our own output may carry ANSI SGR colour codes; :func:`strip_sgr` removes them for a
player with colour off, and :func:`visible_len` measures a line as the terminal shows it.
"""

from __future__ import annotations

import functools
import itertools
import re
import textwrap
import unicodedata

from wcwidth import wcwidth

# CSI (ESC [ ... final), OSC/DCS/PM/APC/SOS strings (ESC ] ... BEL or ST), two-byte
# escapes, and the 8-bit C1 forms of the same.
_ESCAPES = re.compile(
    r"""
    (?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?              # CSI
  | (?:\x1b[\]P^_X]|[\x90\x98\x9d\x9e\x9f]).*?(?:\x07|\x1b\\|\x9c|$)  # OSC, DCS, SOS, PM, APC
  | \x1b[ -/]*[0-~]?                                # other ESC sequences
    """,
    re.VERBOSE | re.DOTALL,
)
_SGR = re.compile(r"\x1b\[[0-9;]*m")
# Characters that show as a blank (or nothing) but that ``str.split`` does not take for
# whitespace: the Hangul fillers, the blank Braille pattern, the Khmer inherent vowels,
# the combining grapheme joiner. Read as spaces, so padding made of them collapses like
# spaces do and cannot push a player's text onto a line of its own.
_BLANK_LOOKING = dict.fromkeys(map(ord, "\u115f\u1160\u3164\uffa0\u2800\u17b4\u17b5\u034f"),
                               " ")

RESET = "\x1b[0m"
BOLD = "\x1b[1m"
COLORS = {
    "black": 30, "red": 31, "green": 32, "yellow": 33,
    "blue": 34, "magenta": 35, "cyan": 36, "white": 37,
}


def clean(text: str, *, max_len: int | None = None) -> str:
    """Remove escape sequences and every control or format character from ``text``.

    What remains is printable text a terminal shows as-is: no colour changes, no cursor
    moves, no title changes, no bidi tricks. Tabs and blank-looking characters become
    spaces.
    """
    if text.isascii() and text.isprintable():  # what is typed, nearly always: as it is
        out = text
    else:
        text = _ESCAPES.sub("", text.replace("\t", " "))
        if not text.isascii():
            text = text.translate(_BLANK_LOOKING)
        out = "".join(
            ch for ch in text if unicodedata.category(ch)[0] != "C" and ch not in "\u2028\u2029"
        )
    if max_len is not None:
        out = out[:max_len]
    return out


def strip_sgr(text: str) -> str:
    """Remove our own colour codes (for a player with colour off)."""
    return _SGR.sub("", text)


def visible_len(text: str) -> int:
    """Columns ``text`` takes on a terminal: colour codes count 0, wide characters (CJK,
    most emoji) 2, combining marks 0 (``wcwidth``'s tables)."""
    plain = strip_sgr(text) if "\x1b" in text else text
    if plain.isascii():
        return len(plain)
    return sum(max(0, wcwidth(ch)) for ch in plain)


_SGR_OR_CHAR = re.compile(r"\x1b\[[0-9;]*m|.", re.DOTALL)


def fit(text: str, columns: int, mark: str = "~") -> str:
    """``text`` cut to at most ``columns`` terminal columns (``mark`` where it was cut).

    A colour code is never cut in two and takes no column; a character counts as
    :func:`visible_len` counts it (ASCII one column, control characters too), so the
    result always fits. It may be empty (a wide first character in one column)."""
    if visible_len(text) <= columns:
        return text
    out, used = [], visible_len(mark)
    for match in _SGR_OR_CHAR.finditer(text):
        token = match.group()
        if len(token) > 1:  # a colour code
            out.append(token)
            continue
        w = 1 if token.isascii() else max(0, wcwidth(token))
        if used + w > columns:
            break
        out.append(token)
        used += w
    return "".join(out) + mark


def collapse(text: str) -> str:
    """Runs of whitespace as one space: relayed text cannot be padded onto a line of its
    own at any width (an EMOTE followed by 70 spaces and a fake system line)."""
    return " ".join(text.split())


def paint(text: str, color: str, *, bold: bool = False) -> str:
    """``text`` in an ANSI colour (by name), reset after."""
    code = f"\x1b[{'1;' if bold else ''}{COLORS[color]}m"
    return f"{code}{text}{RESET}"


def counted(n: int, noun: str) -> str:
    """'1 card', '0 cards', '23 cards'."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


_AN_NUMBER = re.compile(r"8|(?:11|18)(?:\d{3})*(?!\d)")  # eight…, eleven, eighteen (thousand)


def a(noun: str) -> str:
    """The noun with its indefinite article, as said aloud: "a number", "an amount", "an
    Ace", "an 8", "an 11", "a 10", "an Undercroft disc"."""
    first = noun[:1].lower()
    vowel = bool(_AN_NUMBER.match(noun)) if first.isdigit() else first in "aeiou"
    return f"{'an' if vowel else 'a'} {noun}"


def listing(items: list[str]) -> str:
    """'A', 'A and B', 'A, B and C'."""
    return " and ".join(items) if len(items) < 3 else f"{', '.join(items[:-1])} and {items[-1]}"


def bold(text: str) -> str:
    return f"{BOLD}{text}{RESET}"


def wrap(text: str, width: int, indent: str = "", *, cache: bool = True) -> list[str]:
    """Word-wrap plain text to ``width`` columns (lines keep their own breaks).
    ``cache=False`` for a text unlikely to come again (it would only push out others)."""
    return list((_wrap if cache else _wrap.__wrapped__)(text, width, indent))


@functools.lru_cache(maxsize=512)
def _wrap(text: str, width: int, indent: str) -> tuple[str, ...]:
    lines: list[str] = []
    width = max(width, 20)
    for para in text.split("\n"):
        if not para:
            lines.append("")
        elif para.isascii():
            lines.extend(_fill(para, width, indent)
                         or textwrap.wrap(para, width=width, subsequent_indent=indent,
                                          break_long_words=True, break_on_hyphens=False)
                         or [""])
        else:  # wide characters: measure columns, not characters
            lines.extend(_wrap_wide(para, width, indent))
    return tuple(lines)


_NOT_PLAIN = re.compile(r"[^ -~]|  |^ | $")  # not printable ASCII, or spaces run or lead or trail


def _fill(para: str, width: int, indent: str) -> list[str] | None:
    """The lines ``textwrap.wrap`` makes of ``para`` (as :func:`_wrap` calls it), for a
    plain paragraph: printable ASCII words no longer than a line, one space between
    each. None for any other paragraph (textwrap's rules for runs of spaces, tabs and
    words longer than a line then apply). The same greedy fill, without textwrap's
    regular expressions and chunk lists: a line takes the next word when it fits with
    the space before it."""
    if _NOT_PLAIN.search(para):
        return None
    words = para.split(" ")
    rest = width - len(indent)  # the room on every line after the first
    if max(map(len, words)) > min(width, rest):
        return None
    lines: list[str] = []
    line, room = words[0], width
    for word in itertools.islice(words, 1, None):
        if len(line) + 1 + len(word) <= room:
            line = f"{line} {word}"
        else:
            lines.append(line if not lines else indent + line)
            line, room = word, rest
    lines.append(line if not lines else indent + line)
    return lines


def _wrap_wide(para: str, width: int, indent: str) -> list[str]:
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
        while visible_len(line) > width:  # a word longer than the line: break it
            head = fit(line, width, mark="") or line[:1]  # a character wider than the line: alone
            lines.append(head)
            line = indent + line[len(head):]
    if line or not lines:
        lines.append(line)
    return lines


def fits(line: str, width: int) -> bool:
    """Whether ``line`` (one line, no \\n) takes at most ``width`` terminal columns.

    The same answer as ``visible_len(line) <= width``, without measuring a character when
    the length alone decides: an ASCII character takes at most one column (a colour code
    none), any character at most two (``wcwidth``'s widest)."""
    n = len(line)
    if (n <= width and line.isascii()) or 2 * n <= width:
        return True
    return visible_len(line) <= width


def wrap_wide_lines(text: str, width: int) -> str:
    """``text`` with every line wider than ``width`` columns wrapped on word boundaries
    (docs/design.md, Screens, principle 6: whatever the server sends, broadcasts included). Lines
    that fit, boards among them, are left as they are; colour codes count no columns.

    Every line it returns fits in ``width`` columns (so wrapping again changes nothing).
    This runs on every line the server writes: ASCII text that plainly fits is returned
    without a character being measured, and the answer for other text is remembered
    (replies repeat, and a broadcast reaches many listeners: wide text is measured once
    per message and width, not once per listener)."""
    if width <= 0:
        return text
    if text.isascii():  # one column a character at most (a colour code's none)
        if len(text) <= width or max(map(len, text.split("\n"))) <= width:
            return text
    elif 2 * len(text) <= width:
        return text
    if len(text) > 4096:
        return _wrap_lines(text, width)
    return _wrap_lines_cached(text, width)


def _wrap_lines(text: str, width: int) -> str:
    out: list[str] = []
    for line in text.split("\n"):
        if fits(line, width):
            out.append(line)
            continue
        indent = " " * min(len(line) - len(line.lstrip(" ")), width // 4)
        out.extend(_wrap_wide(line.strip(" "), width, "") if not indent else
                   [indent + part for part in _wrap_wide(line.strip(" "), width - len(indent), "")])
    return "\n".join(out)


_wrap_lines_cached = functools.lru_cache(maxsize=512)(_wrap_lines)


class Laid:
    """A text as a session sends it at one width (:func:`lay_out`): wrapped, its rows
    counted, and in the telnet form, CR LF after every line."""

    __slots__ = ("text", "rows", "wire", "_lines", "_heads")

    def __init__(self, text: str, rows: int, wire: str) -> None:
        self.text = text  # wrapped (every line fits), lines ended by \n, none after the last
        self.rows = rows  # its lines: the rows it takes on the screen
        self.wire = wire  # the same with CR LF after each line
        self._lines: tuple[str, ...] | None = None
        self._heads: dict[int, str] | None = None

    @property
    def lines(self) -> tuple[str, ...]:
        """Its lines (split when first asked: only a reply taller than a page asks)."""
        if self._lines is None:
            self._lines = tuple(self.text.split("\n"))
        return self._lines

    def head(self, rows: int) -> str:
        """The telnet form of its first ``rows`` lines (a page of it), kept per count:
        a tall reply that comes again (WHO in a crowd) is cut at the same row again."""
        heads = self._heads
        if heads is None:
            heads = self._heads = {}
        wire = heads.get(rows)
        if wire is None:
            if len(heads) >= 8:
                heads.clear()
            wire = heads[rows] = "".join(f"{line}\r\n" for line in self.lines[:rows])
        return wire


def lay_out(text: str, width: int) -> Laid:
    """``text`` (lines ended by \n or CR LF) as a session sends it to a ``width``-column
    screen: wrapped by :func:`wrap_wide_lines`, its rows counted, and in the telnet
    form, each in one pass.

    The answer for a text of up to 4 KB is remembered per text and width: replies
    repeat (WHO's listing, a room's LOOK, HELP) and a broadcast reaches many listeners
    with the same string, whose hash Python keeps, so the next time costs one lookup."""
    if len(text) > 4096:
        return _lay_out(text, width)
    return _lay_out_cached(text, width)


def _lay_out(text: str, width: int) -> Laid:
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    fitted = wrap_wide_lines(text, width)
    return Laid(fitted, fitted.count("\n") + 1, fitted.replace("\n", "\r\n") + "\r\n")


_lay_out_cached = functools.lru_cache(maxsize=256)(_lay_out)


def columns(items: list[str], width: int, gap: int = 2) -> list[str]:
    """Lay short items out in as many columns as fit in ``width``."""
    if not items:
        return []
    cell = max(visible_len(i) for i in items) + gap
    per_row = max(1, width // cell)
    rows = []
    for start in range(0, len(items), per_row):
        row = items[start:start + per_row]
        rows.append("".join(i + " " * (cell - visible_len(i)) for i in row).rstrip())
    return rows


def table(headers: list[str], rows: list[list[str]]) -> list[str]:
    """A left-aligned text table with a header underline."""
    widths = [visible_len(h) for h in headers]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], visible_len(cell))

    def fmt(cells: list[str]) -> str:
        return "  ".join(c + " " * (w - visible_len(c)) for c, w in zip(cells, widths)).rstrip()

    return [fmt(headers), fmt(["-" * w for w in widths]), *(fmt(r) for r in rows)]


def ago(seconds: float) -> str:
    """'3 minutes ago' style duration."""
    seconds = int(max(0, seconds))
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            n = seconds // size
            return f"{n} {unit}{'s' if n != 1 else ''} ago"
    return "just now"
