"""Triad read out: the table as short lines for a screen reader
(docs/design.md, Screens, principle 8).

``speak(view, names)`` takes the view the kind's ``render`` takes (``table.view_for``:
the hand's view with the table's names and notes) and returns lines in a fixed order,
the most important first: what the viewer may do now (or who acts), the viewer's cards
by position with their codes and names and the hand they make, the pot and the bet,
then each seat ("Seat 2, Bob: 180 cubits, in, 20 in the pot, 4 cards hidden."), the
last hand's winnings and the table's notes. No drawing: no ``##`` for hidden cards, no
pip marks, no colour.
"""

from __future__ import annotations

from .cards import long_name
from .render import winner_name

STATUS_WORDS = {"in": "in the hand", "allin": "all in", "folded": "folded", "out": "out"}


def _name(names, i: int) -> str:
    return names[i] if i < len(names) and names[i] else f"Seat {i + 1}"


def _cards(cards) -> str:
    return ", ".join(f"{long_name(code)} ({code})" for code in cards)


def _turn(view: dict, names) -> str:
    me, to_act, phase = view["viewer"], view["to_act"], view["phase"]
    if "to_equal" in view:
        equal = f"EQUAL {view['to_equal']}{', all in' if view.get('all_in') else ''}"
        options = ["PASS"] if view["to_equal"] == 0 else ["FOLD", equal]
        if view.get("raise_range"):
            lo, hi = view["raise_range"]
            options.append(f"RAISE {lo}" if lo == hi else f"RAISE {lo} to {hi}")
        return "Your turn to bet: " + ", ".join(options) + "."
    if me is not None and to_act == me and phase == "draw":
        return "Your turn to draw: TRIAD DISCARD <positions, up to four>, or TRIAD STAND."
    if to_act is not None and phase in ("bet1", "bet2", "draw"):
        return f"{_name(names, to_act)} to act in {view['phase_name']}."
    return f"Hand {view['hand_no']}: {view['phase_name']}." if view["hand_no"] else \
        "No hand dealt yet."


def speak(view: dict, names=None) -> list[str]:
    """The table as lines, one fact each (see the module's docstring)."""
    names = list(view.get("names") or names or ())
    me = view["viewer"]
    lines = [_turn(view, names)]
    mine = next((e for e in view["seats"] if e["seat"] == me and not e["empty"]), None) \
        if me is not None else None
    if mine and mine["cards"]:
        lines.append("Your cards: " + ", ".join(
            f"{k} {long_name(code)} ({code})" for k, code in enumerate(mine["cards"], 1)) + ".")
        if mine["hand_name"]:
            lines.append(f"Your hand: {mine['hand_name']}.")
    if mine:
        lines.append(f"Your stack: {mine['stack']} cubits.")
    limit = "no limit" if view["limit"] is None else f"limit {view['limit']}"
    head = f"Hand {view['hand_no']}, {view['phase_name']}. " if view["hand_no"] else ""
    lines.append(f"{head}Pot {view['pot']}"
                 + (f", bet to equal {view['current_bet']}" if view["current_bet"] else "")
                 + f". Opening bet {view['opening']}, {limit}.")
    if len(view["pots"]) > 1:
        lines.append("Pots: " + ", ".join(
            f"{'main' if k == 0 else f'side {k}'} {amount}"
            for k, (amount, _) in enumerate(view["pots"])) + ".")
    for entry in view["seats"]:
        i = entry["seat"]
        if entry["empty"]:
            lines.append(f"Seat {i + 1}: empty.")
            continue
        who = "you" if i == me else _name(names, i)
        facts = [f"{entry['stack']} cubits", STATUS_WORDS.get(entry["status"], entry["status"])]
        if view["hand_no"] and i == view["dealer"]:
            facts.append("dealer")
        if i == view["to_act"]:
            facts.append("to act")
        if entry["committed"]:
            facts.append(f"{entry['committed']} in the pot")
        if entry["drew"] is not None:
            facts.append(f"drew {entry['drew']}")
        if entry["cards"] and i != me:
            facts.append(f"shows {_cards(entry['cards'])}")
            if entry["hand_name"]:
                facts.append(entry["hand_name"])
        elif entry["hidden_cards"]:
            facts.append(f"{entry['hidden_cards']} cards hidden")
        lines.append(f"Seat {i + 1}, {who}: {', '.join(facts)}.")
    if view["winnings"]:
        lines.append("Last hand: " + ", ".join(
            f"{winner_name(view, names, s)} won {n}" for s, n in view["winnings"]) + ".")
    info = view.get("table")
    if info:
        if info["away"]:
            lines.append("Away: " + ", ".join(_name(names, p) for p in info["away"]) + ".")
        if info["leaving"]:
            lines.append("Leaving after this hand: "
                         + ", ".join(_name(names, p) for p in info["leaving"]) + ".")
        taken = sum(1 for n in names if n)
        if not info["started"]:
            lines.append(f"The table is open: {taken} of {len(names)} seats taken, buy-in "
                         f"{info['buyin']}. TRIAD START deals; TRIAD BOT seats a computer "
                         "player.")
        elif info.get("closed"):
            lines.append("The table is closed.")
        elif view["phase"] == "hand_over":
            lines.append("Between hands: TRIAD DEAL deals the next hand now.")
    return lines




# -- questions (blind-first: TRIAD POT, TRIAD BETS) -----------------------------------------
def ask_pot(view: dict, words: list[str], names=None) -> list[str]:  # noqa: ARG001
    """TRIAD POT: the pot (and side pots), the bet to equal, whose turn."""
    names = list(view.get("names") or names or ())
    line = f"Pot {view['pot']}" + (f", bet to equal {view['current_bet']}"
                                   if view["current_bet"] else "") + "."
    lines = [line]
    if len(view["pots"]) > 1:
        lines.append("Pots: " + ", ".join(
            f"{'main' if k == 0 else f'side {k}'} {amount}"
            for k, (amount, _) in enumerate(view["pots"])) + ".")
    lines.append(_turn(view, names))
    return lines


def ask_bets(view: dict, words: list[str], names=None) -> list[str]:  # noqa: ARG001
    """TRIAD BETS: each player in the hand, what they put in and where they stand."""
    names = list(view.get("names") or names or ())
    me, lines = view["viewer"], []
    for entry in view["seats"]:
        if entry["empty"] or entry["status"] == "out":
            continue
        i = entry["seat"]
        who = "You" if i == me else _name(names, i)
        status = STATUS_WORDS.get(entry["status"], entry["status"])
        drew = f", drew {entry['drew']}" if entry["drew"] is not None else ""
        lines.append(f"{who}: {entry['committed']} in the pot, {status}{drew}, "
                     f"{entry['stack']} left.")
    return lines or ["No hand is in play."]


def ask_hand(view: dict, words: list[str], names=None) -> list[str]:  # noqa: ARG001
    """TRIAD HAND: your cards by position, in words, and the hand they make."""
    me = view["viewer"]
    mine = next((e for e in view["seats"] if e["seat"] == me and not e["empty"]), None) \
        if me is not None else None
    if mine is None or not mine["cards"]:
        return ["You hold no cards now."]
    lines = [f"{k}: {long_name(code)} ({code})" for k, code in enumerate(mine["cards"], 1)]
    if mine["hand_name"]:
        lines.append(f"You hold {mine['hand_name']}.")
    lines.append(f"Your stack: {mine['stack']} cubits.")
    return lines


QUESTIONS = {"pot": ("TRIAD POT", ask_pot), "bets": ("TRIAD BETS", ask_bets)}

__all__ = ["QUESTIONS", "ask_hand", "speak"]
