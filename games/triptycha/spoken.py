"""Triptycha read out: the view as short lines for a screen reader
(docs/design.md, Screens, principle 8).

``speak(view, names)`` takes the view ``render`` takes (``view_for``) and returns lines,
one fact a line, in a fixed order, the most important first: whose turn and what to type,
the niches held, each niche ("Niche 5, down: yours, 4-7-7, primary 3."), then the
viewer's hand, the deck in the draw, and the opponent's hand when it may be seen. No
drawing, no colour: owners are words. ``speak_tiles`` reads tiles (ITD SHOW, BREAK DISC).
"""

from __future__ import annotations

from games.errors import BadNotation

from .board import NEIGHBOURS, UP
from .tiles import CORNER_NAMES

CORNER_WORDS = {"T": "top", "BL": "bottom left", "BR": "bottom right",
                "TL": "top left", "TR": "top right", "B": "bottom"}


def _shape(up: bool) -> str:
    return "up" if up else "down"


def _numbers(corners, primary: int) -> str:
    return f"{'-'.join(str(c) for c in corners)}, primary {primary}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _owner(seat: int | None, who: int, names) -> str:
    return "yours" if seat == who else f"{names[who]}'s"


def _status(view: dict, names) -> str:
    seat, phase = view["seat"], view["phase"]
    if phase == "draw":
        sizes, full = view["hand_sizes"], view["hand_full"]
        if seat is not None and seat in view["to_move"]:
            return (f"Your draw: {sizes[seat]} of {full[seat]} tiles in hand. "
                    "TT DRAW <deck number>.")
        return "Drawing: " + ", ".join(f"{names[s]} {sizes[s]} of {full[s]}" for s in (0, 1)) + "."
    if phase == "play":
        if seat is not None and view["turn"] == seat:
            return "Your turn: TT LAY <tile> IN <niche>."
        return f"{names[view['turn']]} to lay."
    res = view["result"] or {}
    winner = res.get("winner")
    reason = res.get("reason", "finished")
    if winner is None:
        return f"Game over: a draw ({reason})."
    if phase != "trading":  # who won is the result line's, told once
        c = view["counts"]
        return f"Game over: niches {c[0]} to {c[1]}."
    who = "You" if winner == seat else names[winner]
    if phase == "trading":
        line = f"{who} won; trading, {len(view['taken'])} of {view['take']} taken."
        if seat is not None and seat in view["to_move"]:
            takeable = ", ".join(str(n) for n in view["takeable"]) or "none"
            line += f" TT TAKE <number> or TT DONE. Takeable: {takeable}."
        return line
    return f"Game over: {who} won ({reason})."


def _hand_lines(view: dict, who: int, title: str, all_tiles: bool) -> list[str]:
    hand = view["hands"][who]
    listed = [t for t in hand if all_tiles or t["niche"] is None]
    laid = len(hand) - len(listed)
    if not hand:
        out = [f"{title}: no tiles yet."]
    elif all_tiles or not laid:
        out = [f"{title}: {_count(len(listed), 'tile')}."]
    else:
        out = [f"{title}: {_count(len(listed), 'tile')} to lay, {laid} laid."]
    for t in hand:
        if t["niche"] is not None and not all_tiles:
            continue
        where = f", laid in niche {t['niche']}" if t["niche"] is not None else ""
        numbers = _numbers(t["corners"], t["tile"]["primary"])
        out.append(f"Tile {t['n']}, {_shape(t['up'])}: {numbers}, sum {t['sum']}, "
                   f"{t['tile']['name']}{where}.")
    laid = [t for t in hand if t["niche"] is not None]
    if laid and not all_tiles:
        out.append("Laid: " + ", ".join(f"tile {t['n']} in niche {t['niche']}" for t in laid)
                   + ".")
    return out


def speak(view: dict, names=("Alice", "Bob")) -> list[str]:
    """The view as lines, one fact each, in a fixed order (see the module's docstring)."""
    seat = view["seat"]
    other = None if seat is None else 1 - seat
    counts = view["counts"]
    lines = [_status(view, names)]
    if seat is None:
        lines.append(f"Niches held: {names[0]} {counts[0]}, {names[1]} {counts[1]}.")
        lines.append(f"Tiles left in hand: {names[0]} {view['unplayed'][0]}, "
                     f"{names[1]} {view['unplayed'][1]}.")
    else:
        lines.append(f"Niches held: you {counts[seat]}, {names[other]} {counts[other]}.")
        lines.append(f"Tiles left in hand: you {view['unplayed'][seat]}, "
                     f"{names[other]} {view['unplayed'][other]}.")
    lines.append(f"Rules: {view['rules_text']}.")
    empty = all(cell is None for cell in view["board"])
    if empty:
        lines.append("All 9 niches are empty.")
    for i, cell in enumerate(() if empty else view["board"], 1):
        if cell is None:
            lines.append(f"Niche {i}, {_shape(UP[i - 1])}: empty.")
            continue
        held = _owner(seat, cell["controller"], names)
        owned = ""
        if cell["owner"] != cell["controller"]:
            owned = f", {_owner(seat, cell['owner'], names).replace('yours', 'your')} tile"
        lines.append(f"Niche {i}, {_shape(cell['up'])}: {held}{owned}, "
                     f"{_numbers(cell['corners'], cell['primary'])}.")
    lines.append("Corners: top, bottom left, bottom right (up); top left, top right, bottom "
                 "(down).")
    hands = view["hands"]
    over = view["phase"] in ("trading", "over")
    if seat is not None and hands[seat] is not None:
        lines.extend(_hand_lines(view, seat, "Your hand", False))
    show_other = view["phase"] == "trading" and seat in view["to_move"]
    if seat is not None and show_other and hands[other] is not None:
        lines.extend(_hand_lines(view, other, f"{names[other]}'s hand", over))
    if seat is None:
        for s in (0, 1):
            if hands[s] is not None:
                lines.extend(_hand_lines(view, s, f"{names[s]}'s hand", False))
    if view.get("deck") is not None:
        lines.append(f"Your deck: {len(view['deck'])} tiles; TT DRAW <number> takes one.")
        for d in view["deck"]:
            t = d["tile"]
            mark = " In your hand." if d["drawn"] else ""
            lines.append(f"Deck {d['pos']}: {_numbers(t['corners'], t['primary'])}, "
                         f"sum {sum(t['corners']) + t['primary']}, {t['name']}.{mark}")
    if view.get("may_view_opponent") and not show_other:
        lines.append("TT VIEW OPPONENT reads their hand.")
    return lines


def speak_opponent(view: dict, names=("Alice", "Bob")) -> list[str]:
    """``TT VIEW OPPONENT`` read out."""
    seat = view["seat"]
    if seat is None or view["hands"][1 - seat] is None:
        return ["You can't see your opponent's hand."]
    return _hand_lines(view, 1 - seat, f"{names[1 - seat]}'s hand",
                       view["phase"] in ("trading", "over"))


def speak_tiles(tiles) -> list[str]:
    """Tiles (``Tile`` values, pointing up) as lines: ITD SHOW, BREAK DISC."""
    corner = ", ".join(CORNER_WORDS[c] for c in CORNER_NAMES[True])
    out = []
    for t in tiles:
        out.append(f"Tile #{t.id}: {_numbers(t.corners, t.primary)}, sum {t.sum}, {t.name}, "
                   f"{t.rarity}, {t.collection} collection.")
    if out:
        out.append(f"Corners are read {corner}.")
    return out




# -- questions (blind-first: TT NICHE 5, TT HAND, TT SCORE) --------------------------------
def ask_niche(view: dict, words: list[str], names=("Alice", "Bob")) -> list[str]:
    """TT NICHE <1-9>: one niche, its way, its holder, its numbers, and its neighbours."""
    if len(words) != 1 or not words[0].isdecimal() or not 1 <= int(words[0]) <= 9:
        raise BadNotation("TT NICHE <1-9>: which niche (1 at the top; 2 to 4; 5 to 9).")
    i = int(words[0])
    seat, cell = view["seat"], view["board"][i - 1]
    shape = _shape(UP[i - 1])
    if cell is None:
        line = f"Niche {i}, {shape}: empty."
    else:
        held = _owner(seat, cell["controller"], names)
        line = (f"Niche {i}, {shape}: {held}, "
                f"{_numbers(cell['corners'], cell['primary'])}.")
    near = ", ".join(f"{j + 1} ({_near(view, j, seat, names)})" for j, _, _ in NEIGHBOURS[i - 1])
    return [line, f"Next to: {near}."]


def _near(view: dict, j: int, seat, names) -> str:  # noqa: ANN001
    cell = view["board"][j]
    return "empty" if cell is None else _owner(seat, cell["controller"], names)


#: The order a tile's corner numbers are written in ("5-3-4"), as the rules name the
#: corners: one line, short enough for 40 columns.
CORNER_LEGEND = (f"Corners: {'-'.join(CORNER_NAMES[True])} up, "
                 f"{'-'.join(CORNER_NAMES[False])} down.")


def ask_hand(view: dict, words: list[str], names=("Alice", "Bob")) -> list[str]:  # noqa: ARG001
    """TT HAND: your tiles left to lay, a tile a line, the order of their corner
    numbers, and where the others went.

    The legend comes under the first line: the whole board read out says the order once,
    in words, but this answer stands alone, in every mode."""
    seat = view["seat"]
    if seat is None or view["hands"][seat] is None:
        raise BadNotation("You hold no tiles in this game.")
    lines = _hand_lines(view, seat, "Your hand", False)
    if any(t["niche"] is None for t in view["hands"][seat]):  # numbers are listed
        lines.insert(1, CORNER_LEGEND)
    return lines


def ask_score(view: dict, words: list[str], names=("Alice", "Bob")) -> list[str]:  # noqa: ARG001
    """TT SCORE: niches held and tiles left to lay, on each side."""
    c, left = view["counts"], view["unplayed"]
    return [f"Niches held: {names[0]} {c[0]}, {names[1]} {c[1]}.",
            f"Tiles left to lay: {names[0]} {left[0]}, {names[1]} {left[1]}.",
            _status(view, names)]


QUESTIONS = {"niche": ("TT NICHE <1-9>", ask_niche), "hand": ("TT HAND", ask_hand),
             "score": ("TT SCORE", ask_score)}

__all__ = ["QUESTIONS", "speak", "speak_opponent", "speak_tiles"]
