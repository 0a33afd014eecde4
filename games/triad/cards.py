"""Triad cards: the 56-card Colonial deck and its compact codes.

Rules page, "Deck": 4 Colors x 13 denominations plus 4 Capstones (wild). Colors,
highest first: Black, Purple, Green, Red. Denominations 2..14 (12 Princess,
13 Prince, 14 Pyramid). Code: denomination then Color letter (``14B``, ``2R``);
a Capstone is ``C``.

Internally a Color is an index 0..3 (Red, Green, Purple, Black: higher is better),
and a colour value in tie-break keys is index + 1, so 0 means "colorless".
"""

from __future__ import annotations

CAPSTONE = "C"
COLOR_LETTERS = "RGPB"  # index order: Red=0 (lowest) .. Black=3 (highest)
COLOR_NAMES = {"R": "Red", "G": "Green", "P": "Purple", "B": "Black"}
DENOMINATIONS = tuple(range(2, 15))
DENOM_NAMES = {12: "Princess", 13: "Prince", 14: "Pyramid"}
DENOM_PLURALS = {12: "Princesses", 13: "Princes", 14: "Pyramids"}

#: Every natural code, Black Pyramid first.
NATURAL_CODES = tuple(f"{d}{c}" for c in "BPGR" for d in range(14, 1, -1))
#: The full deck, as codes (four identical Capstones).
DECK = NATURAL_CODES + (CAPSTONE,) * 4


def parse_card(code: str) -> tuple[int, int] | None:
    """``"13P"`` -> (13, 2); ``"C"`` -> None.  Raises ValueError on a bad code."""
    if not isinstance(code, str):
        raise ValueError(f"not a card code: {code!r}")
    text = code.strip().upper()
    if text == CAPSTONE:
        return None
    if len(text) < 2 or text[-1] not in COLOR_LETTERS or not text[:-1].isdecimal():
        raise ValueError(f"not a card code: {code!r} (try 14B, 13P, 2R or C)")
    d = int(text[:-1])
    if d not in DENOMINATIONS:
        raise ValueError(f"not a card code: {code!r} (denominations run 2..14)")
    return d, COLOR_LETTERS.index(text[-1])


def normalize(code: str) -> str:
    """The canonical spelling of a code (``"14b"`` -> ``"14B"``, ``"c"`` -> ``"C"``)."""
    card = parse_card(code)
    return CAPSTONE if card is None else f"{card[0]}{COLOR_LETTERS[card[1]]}"


def denom_name(d: int) -> str:
    return DENOM_NAMES.get(d, str(d))


def denom_plural(d: int) -> str:
    return DENOM_PLURALS.get(d, f"{d}s")


def long_name(code: str) -> str:
    """``"13P"`` -> ``"Purple Prince"``; ``"C"`` -> ``"Capstone"``."""
    card = parse_card(code)
    if card is None:
        return "Capstone"
    return f"{COLOR_NAMES[COLOR_LETTERS[card[1]]]} {denom_name(card[0])}"


def pips(d: int) -> str:
    """The original cards' marks: dashes for five, dots for one; the Pyramid a triangle."""
    if d == 14:
        return "\u25b2"
    return "\u2014" * (d // 5) + "\u2022" * (d % 5)
