"""Triad notation: the only place text becomes an Action and back, card display
helpers, and the exact JSON codec of the State.

Actions (what follows ``TRIAD``): ``PASS``, ``EQUAL`` (alias ``CALL``),
``RAISE <n>``, ``FOLD``, ``DRAW <positions or codes>`` (alias ``DISCARD``; ``DRAW``
alone, or ``STAND``, keeps every card), ``DEAL`` (alias ``START``).
Positions are 1..6 as the hand is shown; codes are ``14B``, ``13P``, ``C``.
"""

from __future__ import annotations

from games.errors import BadNotation, quoted

from .cards import COLOR_LETTERS, COLOR_NAMES, long_name, normalize, parse_card, pips
from .rules import Action, Seat, State

ALIASES = {"CALL": "EQUAL", "CHECK": "PASS", "DISCARD": "DRAW", "STAND": "DRAW", "START": "DEAL"}
SIMPLE = ("PASS", "EQUAL", "FOLD", "DEAL")


def parse_action(text: str | list[str] | tuple[str, ...]) -> Action:
    """``"RAISE 5"`` -> Action("RAISE", 5); ``"DRAW 1 3 C"`` -> Action("DRAW", discard=("1", "3", "C")).

    :raises BadNotation: the text is not an action.
    """
    words = text.split() if isinstance(text, str) else [w for part in text for w in str(part).split()]
    if not words:
        raise BadNotation("Say PASS, EQUAL, RAISE <n>, FOLD or DRAW <cards>.")
    verb = words[0].upper()
    verb = ALIASES.get(verb, verb)
    rest = words[1:]
    if verb in SIMPLE:
        if rest:
            raise BadNotation(f"{verb} takes nothing after it.")
        return Action(verb)
    if verb == "RAISE":
        if len(rest) != 1 or not rest[0].isdecimal() or int(rest[0]) <= 0:
            raise BadNotation("Usage: RAISE <cubits>, e.g. RAISE 5.")
        return Action("RAISE", int(rest[0]))
    if verb == "DRAW":
        items = [w for word in rest for w in word.replace(",", " ").split()]
        out = []
        for item in items:
            if item.isdecimal():
                if not 1 <= int(item) <= 6:
                    shown = item if len(item) <= 4 else quoted(item)
                    raise BadNotation(f"No card position {shown}: positions run 1 to 6.")
                out.append(str(int(item)))
            else:
                try:
                    out.append(normalize(item))
                except ValueError:
                    raise BadNotation(f"{quoted(item)} is not a card: a position (1 to 6) or "
                                      "a code (14B, 13P, 2R, C).") from None
        if len(out) > 4:
            raise BadNotation("You may discard at most 4 cards.")
        return Action("DRAW", discard=tuple(out))
    raise BadNotation(f"Unknown Triad action {quoted(words[0])}: PASS, EQUAL, RAISE <n>, FOLD "
                      "or DRAW.")


def format_action(action: Action) -> str:
    if action.kind == "RAISE":
        return f"RAISE {action.amount}"
    if action.kind == "DRAW":
        return " ".join(("DRAW",) + tuple(action.discard))
    return action.kind


# ------------------------------------------------------------------ cards
def card_text(code: str) -> str:
    """The canonical code of a card: ``"13p"`` -> ``"13P"``, ``"c"`` -> ``"C"``."""
    return normalize(code)


def card_color(code: str) -> str | None:
    """The Color name of a card (None for a Capstone)."""
    card = parse_card(code)
    return None if card is None else COLOR_NAMES[COLOR_LETTERS[card[1]]]


def describe_card(code: str) -> str:
    """``13P`` -> ``"Purple Prince (——•••)"``."""
    card = parse_card(code)
    if card is None:
        return "Capstone"
    return f"{long_name(code)} ({pips(card[0])})"


# ------------------------------------------------------------------ JSON
def _seat_to_json(s: Seat) -> dict:
    return {
        "stack": s.stack, "cards": list(s.cards), "status": s.status, "bet": s.bet,
        "committed": s.committed, "acted": s.acted, "drew": s.drew,
    }


def _seat_from_json(d: dict) -> Seat:
    return Seat(d["stack"], tuple(d["cards"]), d["status"], d["bet"], d["committed"], d["acted"], d["drew"])


def state_to_json(state: State) -> dict:
    return {
        "opening": state.opening,
        "limit": state.limit,
        "seats": [_seat_to_json(s) for s in state.seats],
        "dealer": state.dealer,
        "hand_no": state.hand_no,
        "phase": state.phase,
        "to_act": state.to_act,
        "current_bet": state.current_bet,
        "last_raise": state.last_raise,
        "stock": list(state.stock),
        "discards": list(state.discards),
        "shown": [[seat, list(cards)] for seat, cards in state.shown],
        "winnings": [[seat, amount] for seat, amount in state.winnings],
        "last": list(state.last),
    }


def state_from_json(d: dict) -> State:
    return State(
        opening=d["opening"],
        limit=d["limit"],
        seats=tuple(_seat_from_json(s) for s in d["seats"]),
        dealer=d["dealer"],
        hand_no=d["hand_no"],
        phase=d["phase"],
        to_act=d["to_act"],
        current_bet=d["current_bet"],
        last_raise=d["last_raise"],
        stock=tuple(d["stock"]),
        discards=tuple(d["discards"]),
        shown=tuple((seat, tuple(cards)) for seat, cards in d["shown"]),
        winnings=tuple((seat, amount) for seat, amount in d["winnings"]),
        last=tuple(d.get("last", ())),
    )
