"""Cards and pyramid geometry for Pyramid.

A card is an int 0..51: ``rank = card % 13 + 1`` (A=1 .. K=13, the values the
seed gives for pairing) and ``suit = card // 13`` in the order clubs, diamonds,
hearts, spades.  A pyramid position is an index 0..27 in row-major order; row r
(1..7) holds r cards, so ``index = r*(r-1)//2 + (c-1)`` for "r,c".  The card at
"r,c" is covered by "r+1,c" and "r+1,c+1" (docs/rules/pyramid.md, "Deal and play":
every card above row 7 lies under two cards of the row below).
"""

from __future__ import annotations

from typing import Final

SUITS = "CDHS"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RANK_TEXT = {1: "A", 11: "J", 12: "Q", 13: "K"}
KING = 13
ROWS = 7
PYRAMID_SIZE: Final = 28
DECK_SIZE = 52


def rank(card: int) -> int:
    """Pairing value: A=1, 2..10, J=11, Q=12, K=13."""
    return card % 13 + 1


def suit(card: int) -> str:
    return SUITS[card // 13]


def is_red(card: int) -> bool:
    return card // 13 in (1, 2)


def rank_text(value: int) -> str:
    return RANK_TEXT.get(value, str(value))


def card_text(card: int) -> str:
    """'AS', '10H', 'QD' -- readable without color."""
    return rank_text(rank(card)) + suit(card)


def parse_card(text: str) -> int:
    text = text.strip().upper()
    ranks = {v: k for k, v in RANK_TEXT.items()}
    r_text, s_text = text[:-1], text[-1:]
    value = ranks.get(r_text) or int(r_text)
    return (SUITS.index(s_text)) * 13 + value - 1


def index_of(row: int, col: int) -> int:
    return row * (row - 1) // 2 + (col - 1)


def _row_col(index: int) -> tuple[int, int]:
    row = 1
    while index >= row:
        index -= row
        row += 1
    return row, index + 1


ROW_COL: tuple[tuple[int, int], ...] = tuple(_row_col(i) for i in range(PYRAMID_SIZE))


def spot_name(index: int) -> str:
    row, col = ROW_COL[index]
    return f"{row},{col}"


def _covers(index: int) -> tuple[int, ...]:
    row, col = ROW_COL[index]
    if row == ROWS:
        return ()
    return (index_of(row + 1, col), index_of(row + 1, col + 1))


#: COVERED_BY[i] -- the two pyramid indices lying on card i (empty for row 7).
COVERED_BY: tuple[tuple[int, ...], ...] = tuple(_covers(i) for i in range(PYRAMID_SIZE))


def _below(index: int) -> frozenset[int]:
    """Every pyramid index that (directly or through others) covers ``index``."""
    out: set[int] = set()
    todo = list(COVERED_BY[index])
    while todo:
        j = todo.pop()
        if j not in out:
            out.add(j)
            todo.extend(COVERED_BY[j])
    return frozenset(out)


#: SHADOW[i] -- all cards that must go before card i can become available.
SHADOW: tuple[frozenset[int], ...] = tuple(_below(i) for i in range(PYRAMID_SIZE))


def new_deck_order(rng) -> list[int]:
    """A shuffled deck from the injected rng (``random.Random``)."""
    deck = list(range(DECK_SIZE))
    rng.shuffle(deck)
    return deck
