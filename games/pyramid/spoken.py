"""Pyramid read out: the view as short lines for a screen reader (docs/design.md, Screens, principle 8).

``speak(view, names)`` takes the view the kind's ``render`` takes (``match.view_for``:
the board of ``render.view_for`` and the other seats' running scores) and returns lines
in a fixed order, the most important first: the result if the game is over, the cards
that may be played now (the exposed pyramid cards, the Pack and Waste tops), those the
last move uncovered, the Pack
and the Waste, the deal, then the pyramid row by row (a card still covered says so), the
scores, and the other players. No drawing: "7,1 king of spades", not ``[ KS]``. A deal whose
cards are hidden (``render.hidden_view``) is read as the title, the cards left, why no
card is read, the scores and the other players.
"""

from __future__ import annotations

from games.errors import BadNotation

from .cards import ROWS, SUIT_NAMES, SUITS, index_of
from .render import HIDDEN

_HOW = {"won": "all cards removed", "stuck": "no move left", "ended": "ended"}


RANK_WORDS = {"A": "ace", "J": "jack", "Q": "queen", "K": "king"}


def card_words(entry: dict | str) -> str:
    """'10H' -> '10 of hearts', 'KS' -> 'king of spades', 'AD' -> 'ace of diamonds'."""
    text = entry if isinstance(entry, str) else entry["text"]
    rank = RANK_WORDS.get(text[:-1], text[:-1])
    return f"{rank} of {SUIT_NAMES[SUITS.index(text[-1])]}"


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def speak(view: dict, names=("Alice", "Bob")) -> list[str]:
    """The view as lines, one fact each (see the module's docstring)."""
    lines = []
    owner = view.get("board_of", 0)
    title = "Pyramid"
    if view.get("others") and owner < len(names):
        title = f"{names[owner]}'s Pyramid"
    if view["mode"] == "tournament":
        title += f", tournament game {view['game_no']} of {view['games']}"
    lines.append(title + ".")
    if view["game"] == HIDDEN:
        return [*lines, *_hidden(view), *_others(view, names)]
    if view["over"]:
        how = _HOW.get(view["how"], view["how"])
        lines.append(f"Game over ({how}): Par score {view['score']:+d}.")
    elif view["cleared_in"]:
        lines.append(f"Pyramid cleared in deal {view['cleared_in']}: play the Pack out.")
    pyramid = view["pyramid"]
    free = [f"{r},{c} {card_words(pyramid[index_of(r, c)])}"
            for r in range(ROWS, 0, -1) for c in range(1, r + 1)
            if pyramid[index_of(r, c)] is not None and pyramid[index_of(r, c)].get("available")]
    if not view["over"]:
        lines.append("Available: " + (", ".join(free) if free else "no pyramid card") + ".")
        uncovered = _uncovered(view)
        if uncovered:
            lines.append("Uncovered: " + ", ".join(uncovered) + ".")
    pack, waste = view["pack_top"], view["waste_top"]
    lines.append(f"Pack P: {card_words(pack)} on top, {view['pack_count']} left."
                 if pack else "Pack P: empty.")
    lines.append(f"Waste W: {card_words(waste)} on top, {_plural(view['waste_count'], 'card')}."
                 if waste else "Waste W: empty.")
    lines.append(f"Deal {view['deal']} of 3, {_plural(view['redeals_left'], 'redeal')} left.")
    for r in range(1, ROWS + 1):
        cards = []
        for c in range(1, r + 1):
            entry = pyramid[index_of(r, c)]
            if entry is not None:
                covered = "" if entry.get("available") else " covered"
                cards.append(f"{r},{c} {card_words(entry)}{covered}")
        lines.append(f"Row {r}: {', '.join(cards)}." if cards else f"Row {r}: cleared.")
    if view["mode"] == "tournament" or view["scores"]:
        lines.append(_scores(view))
    lines.extend(_others(view, names))
    return lines


def _uncovered(view: dict) -> list[str]:
    """The cards the last move uncovered ("6,2 9 of hearts"): those under a card it
    removed that are free now."""
    last = view.get("last_move")
    if not last or last["kind"] != "remove":
        return []
    pyramid, found = view["pyramid"], []
    for spot in last["spots"]:
        if "," not in spot:
            continue  # the Pack's or the Waste's top
        r, c = map(int, spot.split(","))
        for col in (c - 1, c):
            if r > 1 and 1 <= col <= r - 1:
                entry = pyramid[index_of(r - 1, col)]
                words = f"{r - 1},{col} {card_words(entry)}" if entry else None
                if entry and entry.get("available") and words not in found:
                    found.append(words)
    return sorted(found)


def _scores(view: dict) -> str:
    scores = ", ".join(f"{s:+d}" for s in view["scores"]) or "none yet"
    return f"Scores: {scores}; running total {view['total']:+d}."


def _hidden(view: dict) -> list[str]:
    """A deal no card of which may be read: how far it is, why, the scores."""
    left = (f"All {view['games']} games played." if view["match_over"]
            else f"{_plural(view['cards_left'], 'card')} left.")
    return [left, view["note"], _scores(view)]


def _others(view: dict, names) -> list[str]:  # noqa: ANN001
    """The other players' running scores, and whether the computer waits for a deal."""
    lines = []
    for o in view.get("others") or ():
        who = names[o["seat"]] if o["seat"] < len(names) else f"Seat {o['seat'] + 1}"
        if o["over"]:
            lines.append(f"{who}: all {o['games']} games played, net {o['total']:+d}.")
        else:
            lines.append(f"{who}: game {o['game_no']} of {o['games']}, "
                         f"{_plural(o['cards_left'], 'card')} left, net {o['total']:+d}.")
    if view.get("waiting"):
        lines.append("Use Same Deck: the computer plays each deal after you.")
    return lines


__all__ = ["QUESTIONS", "card_words", "speak"]


# -- questions (blind-first: PYR ROW 7, PYR AVAILABLE, PYR WASTE, PYR PAIRS) -----------------
def _board(view: dict) -> dict:
    if view["game"] == HIDDEN:
        raise BadNotation("This deal's cards stay hidden until both players have played it.")
    return view


def ask_row(view: dict, words: list[str], names=()) -> list[str]:  # noqa: ARG001
    """PYR ROW <1-7>: the cards of one row, left to right, each free or covered."""
    if len(words) != 1 or not words[0].isdecimal() or not 1 <= int(words[0]) <= ROWS:
        raise BadNotation(f"PYR ROW <1-{ROWS}>: which row (1 at the top, {ROWS} at the bottom).")
    r = int(words[0])
    pyramid = _board(view)["pyramid"]
    cards = []
    for c in range(1, r + 1):
        entry = pyramid[index_of(r, c)]
        if entry is None:
            cards.append(f"{r},{c} gone")
        else:
            cards.append(f"{r},{c} {card_words(entry)}"
                         + ("" if entry.get("available") else " covered"))
    return [f"Row {r}: {', '.join(cards)}."]


def _free(view: dict) -> list[tuple[str, dict]]:
    pyramid = _board(view)["pyramid"]
    free = [(f"{r},{c}", pyramid[index_of(r, c)]) for r in range(ROWS, 0, -1)
            for c in range(1, r + 1)
            if pyramid[index_of(r, c)] is not None and pyramid[index_of(r, c)].get("available")]
    for spot, key in (("P", "pack_top"), ("W", "waste_top")):
        if view[key]:
            free.append((spot, view[key]))
    return free


def ask_available(view: dict, words: list[str], names=()) -> list[str]:  # noqa: ARG001
    """PYR AVAILABLE: every card that may be played now, the Pack and Waste tops too."""
    free = _free(view)
    if not free:
        return ["No card is free."]
    return ["Free: " + ", ".join(f"{spot} {card_words(e)}" for spot, e in free) + "."]


def ask_waste(view: dict, words: list[str], names=()) -> list[str]:  # noqa: ARG001
    """PYR WASTE: the Waste Pile's top and size, the Pack's, the deal."""
    _board(view)
    waste, pack = view["waste_top"], view["pack_top"]
    return [(f"Waste W: {card_words(waste)} on top, {_plural(view['waste_count'], 'card')}."
             if waste else "Waste W: empty."),
            (f"Pack P: {card_words(pack)} on top, {view['pack_count']} left."
             if pack else "Pack P: empty."),
            f"Deal {view['deal']} of 3, {_plural(view['redeals_left'], 'redeal')} left."]


def _rank(entry: dict) -> int:
    text = entry["text"][:-1]
    return {"A": 1, "J": 11, "Q": 12, "K": 13}.get(text) or int(text)


def ask_pairs(view: dict, words: list[str], names=()) -> list[str]:  # noqa: ARG001
    """PYR PAIRS: the free cards that pair to 13 now, and the free Kings (no card is told
    that could not be seen)."""
    free = _free(view)
    kings = [f"{spot} {card_words(e)}" for spot, e in free if _rank(e) == 13]
    pairs = [f"{a} {b} ({card_words(x)} and {card_words(y)})"
             for i, (a, x) in enumerate(free) for b, y in free[i + 1:]
             if _rank(x) + _rank(y) == 13]
    lines = [("Pairs to 13: " + "; ".join(pairs) + ".") if pairs else "No free pair makes 13."]
    if kings:
        lines.append("Kings, removed alone: " + ", ".join(kings) + ".")
    if not pairs and not kings:
        lines.append("PYR D turns the next Pack card.")
    return lines


QUESTIONS = {"row": ("PYR ROW <1-7>", ask_row), "available": ("PYR AVAILABLE", ask_available),
             "waste": ("PYR WASTE", ask_waste), "pairs": ("PYR PAIRS", ask_pairs)}
