"""Triptycha views and pictures.

``view_for(state, seat)`` is the one place that decides what a seat may see (its own
hand and deck; the opponent's hand only with Truth, or for the winner while
trading).  ``render(view, ...)`` draws a view as text: a header, the board of 9
triangular niches (corners, primary, controller letter, niche number in the edge),
a side panel, and the viewer's hand with ``<n>``, ``Sum: N`` and name under each
tile.  Colour is ANSI SGR; with colour off the controller letter carries the meaning.
"""

from __future__ import annotations

import textwrap

from .board import CELLS, UP
from .notation import format_rules, rules_to_json, tile_to_json
from .rules import HAND_SIZE, State, may_view_opponent, result, takeable, to_move
from .tiles import short_name

SEAT_COLORS = ("1;36", "1;31")  # bold cyan for Player 1, bold red for Player 2
DIM = "2"
TILE_W = 10  # columns a tile glyph occupies
TILE_H = 5


# --------------------------------------------------------------------------- view


def _held_json(k: int, h) -> dict:
    return {"n": k, "tile": tile_to_json(h.tile), "up": h.up, "turn": h.turn,
            "corners": list(h.corners), "niche": h.niche, "sum": h.tile.sum}


def view_for(state: State, seat: int | None) -> dict:
    """What ``seat`` (None: a spectator) may see, as a JSON-able dict."""
    hands = [None, None]
    for s in (0, 1):
        if (seat == s or (seat is None and state.rules.truth)
                or (seat == 1 - s and may_view_opponent(state, seat))):
            hands[s] = [_held_json(k, h) for k, h in enumerate(state.hands[s], 1)]
    board = []
    for i in range(CELLS):
        c = state.cell(i)
        if c is None:
            board.append(None)
            continue
        owner, k, held = c
        board.append({"niche": i + 1, "owner": owner, "controller": state.control[i],
                      "n": k + 1, "up": held.up, "corners": list(held.corners),
                      "primary": held.tile.primary, "tile": tile_to_json(held.tile)})
    deck = None
    if seat is not None and state.phase == "draw":
        drawn = {h.tile.id for h in state.hands[seat]}
        deck = [{"pos": p, "tile": tile_to_json(t), "drawn": t.id in drawn}
                for p, t in enumerate(state.decks[seat], 1)]
    res = result(state)
    return {
        "game": "triptycha",
        "seat": seat,
        "phase": state.phase,
        "rules": rules_to_json(state.rules),
        "rules_text": format_rules(state.rules),
        "turn": state.turn,
        "to_move": list(to_move(state)),
        "board": board,
        "counts": list(state.counts()),
        "hand_sizes": [len(h) for h in state.hands],
        "hand_full": list(HAND_SIZE),
        "unplayed": [sum(h.niche is None for h in hand) for hand in state.hands],
        "hands": hands,
        "deck": deck,
        "result": res.to_json() if res else None,
        "take": state.rules.take,
        "taken": list(state.taken),
        "takeable": list(takeable(state)) if state.phase == "trading" else [],
        "may_view_opponent": may_view_opponent(state, seat),
        # the last lay: its niche, its player and the niches it took over
        "last_move": None if state.last_niche is None else {
            "niche": state.last_niche, "seat": state.cell(state.last_niche - 1)[0],
            "flipped": list(state.last_flipped)},
    }


# --------------------------------------------------------------------------- canvas


class _Canvas:
    """A grid of characters, each with an SGR style (or None)."""

    def __init__(self, width: int, height: int):
        self.w, self.h = width, height
        self.chars = [[" "] * width for _ in range(height)]
        self.style = [[None] * width for _ in range(height)]

    def put(self, x: int, y: int, text: str, style=None):
        for j, ch in enumerate(text):
            if 0 <= x + j < self.w and 0 <= y < self.h:
                self.chars[y][x + j] = ch
                self.style[y][x + j] = style

    def lines(self, color: bool) -> list[str]:
        out = []
        for y in range(self.h):
            chars = self.chars[y]
            end = len(chars)
            while end and chars[end - 1] == " ":
                end -= 1
            row, cur = [], None
            for ch, st in zip(chars[:end], self.style[y][:end]):
                if color and st != cur and ch != " ":
                    row.append("\x1b[0m" if st is None else f"\x1b[0;{st}m")
                    cur = st
                row.append(ch)
            if color and cur is not None:
                row.append("\x1b[0m")
            out.append("".join(row))
        return out


def _glyph(cv: _Canvas, x: int, y: int, up: bool, corners, primary, mark="", label="",
           style=None):
    """Draw one tile (or an empty niche when ``corners`` is None) in the 10x5 box at x, y.

    Up:   apex "/\\" at x+4; row 1 T, row 2 primary, row 3 BL mark BR, row 4 base.
    Down: top edge row 0, row 1 TL mark TR, row 2 primary, row 3 B, row 4 "\\/".
    """
    a = x + 4
    num = (lambda v: "" if corners is None else str(v))
    bold = None if style is None else style
    for i in range(TILE_H):
        r = i if up else TILE_H - 1 - i
        yy = y + i
        left, right = (a - r, a + 1 + r)
        cv.put(left, yy, "/" if up else "\\", style)
        cv.put(right, yy, "\\" if up else "/", style)
        if r == TILE_H - 1:
            cv.put(left + 1, yy, f"{label:-^8}", style)
    if corners is None:
        return
    c0, c1, c2 = (num(v) for v in corners)
    if up:  # (T, BL, BR)
        cv.put(a, y + 1, f"{c0:<2}", bold)
        cv.put(a - 1, y + 2, f"{primary:^4}", bold)
        cv.put(a - 2, y + 3, f"{c1:<2}", bold)
        cv.put(a + 2, y + 3, f"{c2:>2}", bold)
        if mark:
            cv.put(a, y + 3, mark, bold)
    else:  # (TL, TR, B)
        cv.put(a - 2, y + 1, f"{c0:<2}", bold)
        cv.put(a + 2, y + 1, f"{c1:>2}", bold)
        if mark:
            cv.put(a, y + 1, mark, bold)
        cv.put(a - 1, y + 2, f"{primary:^4}", bold)
        cv.put(a, y + 3, f"{c2:<2}", bold)


def _marks(names) -> tuple[str, str]:
    """Controller letters: the players' initials, or 1 and 2 when those clash."""
    a = (names[0][:1] or "1").upper()
    b = (names[1][:1] or "2").upper()
    return (a, b) if a != b else ("1", "2")


def _board_lines(view, color, marks) -> list[str]:
    cv = _Canvas(40, 3 * TILE_H)
    x0 = 19  # apex column of niche 1
    niche = 0
    for band in range(3):
        for k in range(2 * band + 1):
            niche += 1
            cell = view["board"][niche - 1]
            apex = x0 - 7 * band + 7 * k
            y = band * TILE_H
            if cell is None:
                _glyph(cv, apex - 4, y, UP[niche - 1], None, 0, label=str(niche), style=DIM)
            else:
                ctl = cell["controller"]
                _glyph(cv, apex - 4, y, cell["up"], cell["corners"], cell["primary"],
                       mark=marks[ctl], label=str(niche), style=SEAT_COLORS[ctl])
    return cv.lines(color)


def _tile_row(tiles, color, width, owner_style=None) -> list[str]:
    """Hand tiles side by side: glyph, ``<n>``, ``Sum: N``, name; wrapped to ``width``."""
    slot = 13
    per_row = max(1, (width + 3) // slot)
    out = []
    for start in range(0, len(tiles), per_row):
        chunk = tiles[start:start + per_row]
        cv = _Canvas(slot * len(chunk), TILE_H + 3)
        for j, t in enumerate(chunk):
            x = j * slot
            _glyph(cv, x, 0, t["up"], t["corners"], t["tile"]["primary"], style=owner_style)
            cv.put(x, TILE_H, f"{'<%d>' % t['n']:^10}", owner_style)
            cv.put(x, TILE_H + 1, f"{'Sum: %d' % t['sum']:^10}")
            cv.put(x, TILE_H + 2, f"{short_name(t['tile']['name'], 12):^10}")
        out += cv.lines(color)
        out.append("")
    return out


def _who(view, names) -> str:
    phase = view["phase"]
    if phase == "draw":
        parts = [f"{names[s]} {view['hand_sizes'][s]}/{view['hand_full'][s]}" for s in (0, 1)]
        return "Drawing: " + ", ".join(parts)
    if phase == "play":
        return f"{names[view['turn']]} to lay"
    res = view["result"]
    win = names[res["winner"]]
    if phase == "trading":
        return f"{win} won; trading ({len(view['taken'])}/{view['take']} taken)"
    c = view["counts"]
    return f"game over, niches {c[0]}-{c[1]}"  # who won: the result line, told once


def _heading(view, names, tag, title, width) -> list[str]:
    """The title (whose turn on the same line when it fits, else the next) and the rules,
    wrapped on words, never cut."""
    who = _who(view, names)
    first = f"{title}: {tag[0]} vs {tag[1]}"
    plain = f"{title}: {names[0]} (x) vs {names[1]} (x)"
    lines = [f"{first}  --  {who}"] if len(plain) + 6 + len(who) <= width else [first, who]
    return lines + textwrap.wrap(f"Rules: {view['rules_text']}", width, subsequent_indent="  ")


def render(view: dict, width: int = 80, color: bool = True, names=("Alice", "Bob"),
           game_no: int | None = None, show_opponent: bool | None = None,
           height: int | None = None) -> str:
    """Draw ``view`` (from ``view_for``) as text no wider than ``width`` (>= 60) columns.

    ``game_no`` fills the ``Game #N`` header.  ``show_opponent`` draws the opponent's
    hand when the view holds it (default: only for the winner while trading).
    ``height``: the rows the drawing may take; when the full drawing (hand tiles as
    pictures) is taller, the compact one is drawn (docs/design.md, Screens, principle
    1): the board with the hand listed beside it, a tile a line.
    """
    full = _render(view, width, color, names, game_no, show_opponent, compact=False)
    if height is None or full.count("\n") + 1 <= height:
        return full
    return _render(view, width, color, names, game_no, show_opponent, compact=True)


def _entry(t: dict, room: int) -> str:
    """A hand tile on one line: ``<1> ▲ 4/7/7 ·3 =21 painted (Ferryman)`` (up or down,
    the corners as they sit, the primary, the sum, the name as long as it fits)."""
    c = t["corners"]
    head = (f"<{t['n']}> {'▲' if t['up'] else '▼'} {c[0]}/{c[1]}/{c[2]} "
            f"·{t['tile']['primary']} ={t['sum']}")
    return f"{head} {short_name(t['tile']['name'], room - len(head) - 1)}"


def _hand_entries(view, seat, title, room, all_tiles=False) -> list[str]:
    hand = view["hands"][seat]
    shown = [t for t in hand if all_tiles or t["niche"] is None]
    return [f"{title}:"] + ([_entry(t, room) for t in shown] or ["  (none)"])


def _render(view: dict, width: int, color: bool, names, game_no, show_opponent,
            compact: bool) -> str:
    width = max(60, width)
    marks = _marks(names)
    seat = view["seat"]
    sgr = (lambda s, t: f"\x1b[{s}m{t}\x1b[0m" if color else t)
    tag = [sgr(SEAT_COLORS[s], f"{names[s]} ({marks[s]})") for s in (0, 1)]
    title = f"Game #{game_no}" if game_no is not None else "Triptycha"
    lines = _heading(view, names, tag, title, width)
    if compact:
        return _compact(view, width, color, names, tag, marks, lines, show_opponent)
    lines.append("")

    board = _board_lines(view, color, marks)
    c = view["counts"]
    panel = [f"Niches held:",
             f"  {tag[0]}: {c[0]}",
             f"  {tag[1]}: {c[1]}",
             "",
             "Tiles left in hand:",
             f"  {names[0]}: {view['unplayed'][0]}",
             f"  {names[1]}: {view['unplayed'][1]}",
             ""]
    panel += _what_to_type(view, "Your turn: ")
    if view["may_view_opponent"]:
        panel.append("TT VIEW OPPONENT shows their hand")
    plain_w = 40
    if width >= plain_w + 2 + 30:
        for i, bl in enumerate(board):
            vis = _visible_len(bl)
            side = panel[i] if i < len(panel) else ""
            lines.append(bl + " " * (plain_w + 2 - vis) + side if side else bl)
    else:
        lines += board + [""] + panel

    lines.append("")
    if seat is not None and view["hands"][seat] is not None:
        lines += _hand_section(view, seat, "Your hand", color, width)
    show = show_opponent
    if show is None:
        show = view["phase"] == "trading" and seat in view["to_move"]
    if seat is not None and show and view["hands"][1 - seat] is not None:
        lines += _hand_section(view, 1 - seat, f"{names[1 - seat]}'s hand", color, width,
                               all_tiles=view["phase"] in ("trading", "over"))
    if seat is None:
        for s in (0, 1):
            if view["hands"][s] is not None:
                lines += _hand_section(view, s, f"{names[s]}'s hand", color, width)
    if view["deck"] is not None:
        lines += _deck_section(view, width, colw=min(60, max(38, width // 2)))
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(_clip(line, width) for line in lines)


def _what_to_type(view, lead: str = "") -> list[str]:
    """The panel's lines that say what the viewing seat may type now."""
    seat = view["seat"]
    if view["phase"] == "play" and seat is not None:
        return [lead + "TT LAY <tile> IN <niche>" if view["turn"] == seat
                else "Waiting for your opponent.", "TT ROTATE / TT FLIP <tile>"]
    if view["phase"] == "trading" and seat in view["to_move"]:
        return ["TT TAKE <number>, TT DONE",
                "Takeable: " + " ".join(f"<{n}>" for n in view["takeable"])]
    return []


def _compact(view, width, color, names, tag, marks, lines, show_opponent) -> str:
    """The drawing for a short screen: the board with a side panel that lists the hand a
    tile a line (or, in the draw, no board: the hand and the deck). At the end, no "Laid:"
    line under it: the board shows where every tile went, and the rows go to the result
    told under the last board."""
    seat = view["seat"]
    c = view["counts"]
    plain_w = 40
    room = width - plain_w - 2 if width >= plain_w + 2 + 30 else width
    panel = [f"Niches: {tag[0]} {c[0]}, {tag[1]} {c[1]}"
             if len(names[0]) + len(names[1]) + 20 <= room else
             f"Niches: {marks[0]} {c[0]}, {marks[1]} {c[1]}"]
    left = view["unplayed"]
    panel.append(f"In hand: {names[0]} {left[0]}, {names[1]} {left[1]}"
                 if len(names[0]) + len(names[1]) + 16 <= room else
                 f"In hand: {marks[0]} {left[0]}, {marks[1]} {left[1]}")
    if seat is not None and view["hands"][seat] is not None:
        panel += _hand_entries(view, seat, "Your hand", room)
    panel += _what_to_type(view)
    show = show_opponent
    if show is None:
        show = view["phase"] == "trading" and seat in view["to_move"]
    for s in (0, 1):
        mine = s == seat
        if view["hands"][s] is not None and not mine and (seat is None or show):
            panel += _hand_entries(view, s, f"{names[s]}'s hand", room,
                                   all_tiles=view["phase"] in ("trading", "over"))
    if view["phase"] == "draw":
        lines += [""] + panel
        if view["deck"] is not None:
            lines += _deck_section(view, width, colw=width // 2 if width >= 76 else width)
    else:
        board = _board_lines(view, color, marks)
        if room < width:
            for i, bl in enumerate(board):
                side = panel[i] if i < len(panel) else ""
                lines.append(bl + " " * (plain_w + 2 - _visible_len(bl)) + side if side else bl)
            lines += panel[len(board):]
        else:
            lines += board + panel
        if seat is not None and view["hands"][seat] is not None and view["phase"] != "over":
            # where each tile went, while it may matter (at the end the board says it)
            laid = [t for t in view["hands"][seat] if t["niche"] is not None]
            if laid:
                lines += textwrap.wrap("Laid: " + ", ".join(
                    f"<{t['n']}> in {t['niche']}" for t in laid), width, subsequent_indent="  ")
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(_clip(line, width) for line in lines)


def _niche_words(i: int, cell: dict | None, seat: int | None, names) -> str:
    """A niche in words, no drawing: "Niche 6, down: Alice's, 4-7-7, primary 3"."""
    shape = "up" if UP[i - 1] else "down"
    if cell is None:
        return f"Niche {i}, {shape}: empty"
    who = "yours" if cell["controller"] == seat else f"{names[cell['controller']]}'s"
    return (f"Niche {i}, {shape}: {who}, {'-'.join(str(c) for c in cell['corners'])}, "
            f"primary {cell['primary']}")


def render_changes(old: dict, new: dict, width: int = 80, color: bool = True,  # noqa: ARG001
                   names=("Alice", "Bob")) -> str | None:
    """SET BOARD COMPACT: the niches that changed (laid, or taken in a battle), a niche a
    line in words, the niches held, and at your turn what to type and the tiles you have
    left. Nothing during the draw (it changes hands only); None (the whole board) when play
    begins, in the trading and at the end."""
    if old.get("game") != "triptycha" or new["phase"] != old["phase"] \
            or new["phase"] not in ("draw", "play"):
        return None
    if new["phase"] == "draw":
        return ""
    seat = new["seat"]
    lines = [_niche_words(i, cell, seat, names) + "."
             for i, (was, cell) in enumerate(zip(old["board"], new["board"]), 1) if was != cell]
    c = new["counts"]
    lines.append(f"Niches held: {names[0]} {c[0]}, {names[1]} {c[1]}.")
    if seat is not None and new["turn"] == seat and new["hands"][seat] is not None:
        left = [str(t["n"]) for t in new["hands"][seat] if t["niche"] is None]
        lines.append(f"Your turn: TT LAY <tile> IN <niche>; tiles {', '.join(left)} left "
                     "(TT HAND reads them).")
    out: list[str] = []
    for line in lines:
        out.extend(textwrap.wrap(line, max(width, 20), subsequent_indent="  ") or [line])
    return "\n".join(out)


def render_opponent(view: dict, width: int = 80, color: bool = True,
                    names=("Alice", "Bob")) -> str:
    """``TT VIEW OPPONENT``: the opponent's hand, if the view holds it."""
    seat = view["seat"]
    if seat is None or view["hands"][1 - seat] is None:
        return "You can't see your opponent's hand."
    lines = _hand_section(view, 1 - seat, f"{names[1 - seat]}'s hand", color, max(60, width),
                          all_tiles=view["phase"] in ("trading", "over"))
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(_clip(line, max(60, width)) for line in lines)


RARITY_COLORS = {"common": None, "uncommon": "1;32", "rare": "1;34", "legendary": "1;33"}


def render_tiles(tiles, width: int = 80, color: bool = True) -> str:
    """Tiles (``Tile`` values) pointing up side by side, each with ``<id>``, ``Sum: N``
    and its name, drawn in its rarity's colour (ITD SHOW, BREAK DISC)."""
    out = []
    for t in tiles:
        row = {"n": t.id, "tile": tile_to_json(t), "up": True, "turn": 0,
               "corners": list(t.corners), "niche": None, "sum": t.sum}
        out.append((row, RARITY_COLORS.get(t.rarity)))
    lines = []
    per_row = max(1, (max(20, width) + 3) // 13)
    for start in range(0, len(out), per_row):
        chunk = out[start:start + per_row]
        # one row per rarity colour would break the row; colour the glyphs one by one
        rows = [_tile_row([row], color, 13, owner_style=style) for row, style in chunk]
        height = max(len(r) for r in rows)
        for y in range(height):
            parts = []
            for r in rows:
                piece = r[y] if y < len(r) else ""
                parts.append(piece + " " * (13 - _visible_len(piece)))
            lines.append("".join(parts).rstrip())
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def _hand_section(view, seat, title, color, width, all_tiles=False) -> list[str]:
    hand = view["hands"][seat]
    unplayed = [t for t in hand if all_tiles or t["niche"] is None]
    laid = [t for t in hand if t["niche"] is not None]
    out = [f"{title}:"]
    if unplayed:
        out += _tile_row(unplayed, color, width)
    if laid:
        out += textwrap.wrap("Laid: " + ", ".join(f"<{t['n']}> in niche {t['niche']}"
                                                  for t in laid), width, subsequent_indent="  ")
    if not hand:
        out.append("  (no tiles yet)")
    if out[-1]:
        out.append("")
    return out


def _deck_section(view, width, colw: int = 38) -> list[str]:
    out = ["Your deck (TT DRAW <tile>):"]
    cells = []
    for d in view["deck"]:
        t = d["tile"]
        c = t["corners"]
        mark = "*" if d["drawn"] else " "
        cells.append(f"{mark}{d['pos']:>3}. {c[0]:>2} {c[1]:>2} {c[2]:>2} /{t['primary']:>2} "
                     f"={sum(c) + t['primary']:>2} {short_name(t['name'], colw - 25)}")
    per = max(1, width // colw)
    for i in range(0, len(cells), per):
        out.append("".join(f"{cell:<{colw}}" for cell in cells[i:i + per]).rstrip())
    out.append("(* = in your hand; numbers: T BL BR / primary = sum)")
    return out


def _visible_len(s: str) -> int:
    n, i = 0, 0
    while i < len(s):
        if s[i] == "\x1b":
            j = s.find("m", i)
            i = j + 1 if j >= 0 else len(s)
        else:
            n += 1
            i += 1
    return n


def _clip(s: str, width: int) -> str:
    """Cut a line to ``width`` visible columns, keeping escape sequences whole."""
    if _visible_len(s) <= width:
        return s
    out, n, i = [], 0, 0
    while i < len(s) and n < width:
        if s[i] == "\x1b":
            j = s.find("m", i)
            out.append(s[i:j + 1])
            i = j + 1
        else:
            out.append(s[i])
            n += 1
            i += 1
    return "".join(out) + ("\x1b[0m" if "\x1b" in s else "")
