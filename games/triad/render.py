"""Triad table view: ``view_for`` hides what a seat may not see; ``render`` draws it.

Others' cards stay hidden until the showdown shows them; the viewer's own hand is
listed with positions (for DRAW) and its named evaluation.  Cards are colored by
their Color when ``color=True``; the code letter (B, P, G, R) carries the same
information without color, so the text reads the same on a plain terminal.
"""

from __future__ import annotations

import textwrap

from . import hands
from .cards import parse_card, pips
from .rules import PHASE_NAMES, State, raise_bounds, side_pots

# ANSI SGR per Color letter; Black is drawn black on white so it shows on dark screens.
SGR = {"B": "30;47", "P": "35", "G": "32", "R": "31", "C": "1;33"}
RESET = "\x1b[0m"
STATUS_TEXT = {"in": "in", "allin": "ALL IN", "folded": "folded", "out": "out"}


def view_for(state: State, seat: int | None) -> dict:
    """A JSON-able view of the table for ``seat`` (None: a spectator)."""
    shown = dict(state.shown)
    seats = []
    for i, s in enumerate(state.seats):
        if s.stack is None:
            seats.append({"seat": i, "empty": True})
            continue
        visible = i == seat or i in shown
        cards = list(s.cards) if visible else []
        entry = {
            "seat": i, "empty": False, "stack": s.stack, "status": s.status, "bet": s.bet,
            "committed": s.committed, "drew": s.drew, "cards": cards,
            "hidden_cards": 0 if visible else len(s.cards),
            "hand_name": hands.evaluate(s.cards).name if visible and len(s.cards) == 6 else None,
        }
        seats.append(entry)
    view = {
        "game": "triad",
        "viewer": seat,
        "hand_no": state.hand_no,
        "phase": state.phase,
        "phase_name": PHASE_NAMES[state.phase],
        "dealer": state.dealer,
        "to_act": state.to_act,
        "opening": state.opening,
        "limit": state.limit,
        "current_bet": state.current_bet,
        "pot": state.pot,
        "pots": _pots(state),
        "seats": seats,
        "winnings": [list(w) for w in state.winnings],
        "stock": len(state.stock),
        # the last action (a seat's bet, fold or draw; a deal: the dealer's seat)
        "last_move": None if not state.last else dict(zip(
            ("seat", "kind", "amount", "all_in"), state.last)),
    }
    if seat is not None and state.to_act == seat and state.phase in ("bet1", "bet2"):
        s = state.seats[seat]
        lo, hi = raise_bounds(state, seat)
        view["to_equal"] = min(state.current_bet - s.bet, s.stack)
        view["all_in"] = view["to_equal"] == s.stack > 0  # equalling takes every cubit
        view["raise_range"] = [lo, hi] if lo <= hi else None
    return view


def _pots(state: State) -> list:
    """[amount, eligible seats] per pot; side pots only once someone is all in."""
    if not state.pot:
        return []
    if any(s.status == "allin" for s in state.seats):
        return [[amount, list(eligible)] for amount, eligible in side_pots(state)]
    return [[state.pot, [i for i, s in enumerate(state.seats) if s.live]]]


def _card(code: str, color: bool, pad: int = 0) -> str:
    """A card code, padded to ``pad`` columns, in its Color's SGR when ``color``."""
    text = f"{code:>{pad}}"
    if not color:
        return text
    letter = "C" if parse_card(code) is None else code[-1]
    return f"\x1b[{SGR[letter]}m{text}{RESET}"


def _fit(line: str, width: int) -> str:
    """A line that fits ``width``, or the line wrapped on words (never cut)."""
    if len(line) <= width or "\x1b" in line:
        return line
    return "\n".join(textwrap.wrap(line, width, subsequent_indent="      "))


NAME_W = 12


def winner_name(view: dict, names, position: int) -> str:  # noqa: ANN001
    """Who won at ``position`` in the last hand: the player who played it there (the
    view's ``hand_names``: a table remembers them after they stand up), else whoever
    sits there, else the seat's number."""
    for known in (view.get("hand_names") or (), names or ()):
        if position < len(known) and known[position]:
            return known[position]
    return f"Seat {position + 1}"


def _seat_lines(view: dict, entry: dict, names: list, width: int, color: bool) -> list[str]:
    """One seat's line as the table draws it (and the hand it shows at the showdown)."""
    i, me = entry["seat"], view["viewer"]
    label = names[i] if i < len(names) and names[i] else f"Seat {i + 1}"
    label = label[:NAME_W]
    if entry["empty"]:
        return [_fit(f"   {i + 1} {label:<{NAME_W}} (empty)", width)]
    marks = (("D" if i == view["dealer"] and view["hand_no"] else " ")
             + (">" if i == view["to_act"] else " "))
    you = "*" if i == me else " "
    status = STATUS_TEXT.get(entry["status"], entry["status"])
    text = f"{marks}{you}{i + 1} {label:<{NAME_W}} {entry['stack']:>6} cubits  {status:<6}"
    if entry["committed"]:
        text += f" in pot {entry['committed']:>4}"
    if entry["drew"] is not None:
        text += f" drew {entry['drew']}"
    if entry["cards"] and i != me:
        shown = " ".join(entry["cards"])
        if len(text) + 2 + len(shown) <= width:
            line = text + "  " + " ".join(_card(c, color) for c in entry["cards"])
        else:
            line = _fit(text, width)
    elif entry["hidden_cards"]:
        line = _fit(text + "  " + " ".join(["##"] * entry["hidden_cards"]), width)
    else:
        line = _fit(text, width)
    lines = [line]
    if entry["hand_name"] and i != me:
        lines.append(_fit(f"      shows {entry['hand_name']}", width))
    return lines


def _hand_lines(mine: dict, color: bool, width: int) -> list[str]:
    """The viewer's own cards, by position, with their pips and the hand they make."""
    lines = ["Your hand: " + " ".join(f"{k + 1:>5}" for k in range(len(mine["cards"]))),
             "           " + " ".join(_card(c, color, 5) for c in mine["cards"])]
    marks = [("cap" if parse_card(c) is None else pips(parse_card(c)[0])) for c in mine["cards"]]
    lines.append("           " + " ".join(f"{m:>5}" for m in marks))
    if mine["hand_name"]:
        lines.append(_fit(f"           {mine['hand_name']}", width))
    return lines


def _turn_line(view: dict, width: int) -> str | None:
    """What the viewer may type now, when it is their turn."""
    me = view["viewer"]
    if "to_equal" in view:
        equal = f"EQUAL ({view['to_equal']}{', all in' if view.get('all_in') else ''})"
        options = ["PASS"] if view["to_equal"] == 0 else ["FOLD", equal]
        if view["raise_range"]:
            lo, hi = view["raise_range"]
            options.append(f"RAISE {lo}" if lo == hi else f"RAISE {lo}..{hi}")
        return _fit("Your turn: TRIAD " + ", TRIAD ".join(options) + ".", width)
    if me is not None and view["to_act"] == me and view["phase"] == "draw":
        return _fit("Your turn: TRIAD DISCARD <positions 1-6, up to four>, or TRIAD STAND "
                    "to keep all.", width)
    return None


def render_changes(old: dict, new: dict, width: int = 80, color: bool = True,
                   names=None) -> str | None:  # noqa: ANN001
    """SET BOARD COMPACT: the seats whose line changed (the one that acted), the pot, the
    viewer's hand if it changed, and what they may type when it is their turn. None (the
    whole table) for a new hand or the showdown."""
    if old.get("game") != "triad" or old["hand_no"] != new["hand_no"] \
            or new["phase"] in ("hand_over", "showdown") or len(old["seats"]) != len(new["seats"]):
        return None
    width = max(60, width)
    names = list(names or ())
    me = new["viewer"]
    lines = []
    if old["phase"] != new["phase"]:
        lines.append(f"Hand {new['hand_no']}: {new['phase_name']}.")
    for was, entry in zip(old["seats"], new["seats"]):
        keys = ("empty", "stack", "status", "committed", "drew", "hidden_cards")
        if any(was.get(k) != entry.get(k) for k in keys) and entry["seat"] != me:
            lines.extend(_seat_lines(new, entry, names, width, color))
    if old["pot"] != new["pot"] or old["current_bet"] != new["current_bet"]:
        lines.append(f"Pot {new['pot']}"
                     + (f", bet to equal {new['current_bet']}." if new["current_bet"] else "."))
    mine = next((e for e in new["seats"] if e["seat"] == me and not e["empty"]), None) \
        if me is not None else None
    before = next((e for e in old["seats"] if e["seat"] == me and not e["empty"]), None) \
        if me is not None else None
    if mine and mine["cards"] and (before is None or before["cards"] != mine["cards"]):
        lines.extend(_hand_lines(mine, color, width))
    turn = _turn_line(new, width)
    if turn:
        lines.append(turn)
    return "\n".join(lines)


def render(view: dict, width: int = 80, color: bool = True, names=None) -> str:
    """The table as text lines no wider than ``width`` (>= 60) visible columns."""
    width = max(60, width)
    names = list(names or ())
    lines = []
    limit = "no limit" if view["limit"] is None else f"limit {view['limit']}"
    head = f"Triad, hand {view['hand_no']}: {view['phase_name']}."
    lines.append(_fit(head, width))
    lines.append(_fit(f"Opening bet {view['opening']}, {limit}. Pot {view['pot']}"
                      + (f", bet to equal {view['current_bet']}." if view["current_bet"] else "."), width))
    if len(view["pots"]) > 1:
        parts = [f"{'main' if k == 0 else f'side {k}'} {amount}" for k, (amount, _) in enumerate(view["pots"])]
        lines.append(_fit("Pots: " + ", ".join(parts) + ".", width))
    lines.append("")
    me = view["viewer"]
    for entry in view["seats"]:
        lines.extend(_seat_lines(view, entry, names, width, color))
    mine = next((e for e in view["seats"] if e["seat"] == me and not e["empty"]), None) if me is not None else None
    if mine and mine["cards"]:
        lines.append("")
        lines.extend(_hand_lines(mine, color, width))
    if view["winnings"]:
        won = ", ".join(f"{winner_name(view, names, s)} won {n}" for s, n in view["winnings"])
        lines.append("")
        lines.append(_fit(f"Last hand: {won}.", width))
    turn = _turn_line(view, width)
    if turn:
        lines.append("")
        lines.append(turn)
    return "\n".join(lines)
