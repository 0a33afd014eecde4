"""Triad Dice views and drawing.

``view_for(state, seat)`` is the JSON-able view (also the GMCP ``Dice.Game`` payload);
nothing in Triad Dice is hidden, so every seat and every watcher sees the same board.
``render(view, ...)`` draws it the same way for both players (row 6 at the top) with
coordinates; a die of seat 0 is drawn ``(2)`` and a die of seat 1 ``[2]`` (the
brackets mark the owner, color only repeats it); the last move is marked ``>(2)<`` where
the die landed, ``+`` where it came from and ``x`` where a die was removed.
"""

from __future__ import annotations

import re
import textwrap

from .notation import format_action, format_board
from .rules import (REMOVALS_TO_WIN, SIZE, State, cell_name, die_owner, die_value,
                    legal_actions)

COLORS = ("\x1b[1;33m", "\x1b[1;36m")   # seat 0 orange/yellow, seat 1 cyan
MARK = "\x1b[1;31m"
DIM = "\x1b[2m"
RESET = "\x1b[0m"
BRACKETS = ("()", "[]")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def view_for(state: State, seat: int | None = None) -> dict:
    """Everything a player or watcher sees (Triad Dice hides nothing), JSON-able.

    This is the GMCP ``Dice.Game`` payload: ``dice`` (cell, seat, value), ``board`` (the
    picture rows, row 6 first), ``turn``/``to_move``, ``removed``, ``pending`` (cells the
    mover may remove), ``last_move``, ``result`` and, for the seat to act, ``legal``.
    """
    dice = [{"cell": cell_name(i), "seat": die_owner(c), "value": die_value(c)}
            for i, c in enumerate(state.cells) if c]
    last = None
    if state.last_to is not None:
        last = {"from": cell_name(state.last_from), "to": cell_name(state.last_to),
                "removed": None if state.last_removed is None else cell_name(state.last_removed)}
    result = None if state.result is None else state.result.to_json()
    view = {
        "game": "dice",
        "you": seat,
        "dice": dice,
        "board": format_board(state.cells).splitlines(),
        "turn": state.turn,
        "to_move": [] if state.result is not None else [state.turn],
        "removed": list(state.removed),
        "to_win": REMOVALS_TO_WIN,
        "pending": [cell_name(c) for c in state.pending],
        "last_move": last,
        "turns": state.turns,
        "quiet_turns": state.quiet_turns,
        "result": result,
        "legal": [],
    }
    if seat is not None and seat == state.turn and state.result is None:
        view["legal"] = [format_action(a) for a in legal_actions(state, seat)]
    return view


def visible_len(text: str) -> int:
    return len(_ANSI.sub("", text))


def _fit(text: str, width: int) -> str:
    """A plain line within ``width`` columns: wrapped on words, never cut."""
    return text if len(text) <= width else "\n".join(
        textwrap.wrap(text, width, subsequent_indent="  "))


def _short(name: str, n: int = 16) -> str:
    return name if len(name) <= n else name[: n - 1] + "."


def render(view: dict, width: int = 80, color: bool = True,
           names: tuple[str, str] = ("Alice", "Bob")) -> str:
    """The board with coordinates (row 6 on top), removals, last move and whose turn; the
    board is 38 columns, so it fits SET WIDTH 40, its words wrapped."""
    width = max(width, 40)
    names = tuple(_short(n) for n in names)

    def paint(text: str, code: str) -> str:
        return f"{code}{text}{RESET}" if color else text

    grid: dict[str, tuple[int, int]] = {d["cell"]: (d["seat"], d["value"]) for d in view["dice"]}
    last = view.get("last_move") or {}
    pending = set(view.get("pending") or ())
    lines = [_fit(f"Triad Dice - turn {view['turns'] + 1}", width)]
    header = "     " + "".join(f"  {c}  " for c in "abcdef")
    lines.append(header)
    for row in range(SIZE, 0, -1):
        parts = []
        for col in "abcdef":
            name = f"{col}{row}"
            if name in grid:
                seat, value = grid[name]
                o, c = BRACKETS[seat]
                die = paint(f"{o}{value}{c}", COLORS[seat])
                if name == last.get("to"):
                    parts.append(paint(">", MARK) + die + paint("<", MARK))
                elif name in pending:
                    parts.append(paint("?", MARK) + die + paint("?", MARK))
                else:
                    parts.append(f" {die} ")
            elif name == last.get("removed"):
                parts.append("  " + paint("x", MARK) + "  ")
            elif name == last.get("from"):
                parts.append("  " + paint("+", MARK) + "  ")
            else:
                parts.append("  " + (paint(".", DIM) if color else ".") + "  ")
        lines.append(f"  {row}  " + "".join(parts) + f"  {row}")
    lines.append(header)

    removed = view["removed"]
    for seat in (0, 1):
        o, c = BRACKETS[seat]
        you = " (you)" if view.get("you") == seat else ""
        home = "row 1" if seat == 0 else "row 6"
        label = paint(f"{o}n{c}", COLORS[seat])
        text = f"{names[seat]}{you}, {home}: {removed[seat]}/{view.get('to_win', 3)} removed"
        lines.append(f"  {label} " + _fit(text, width - 6))
    if last:
        who = names[1 - view["turn"]] if not view["pending"] else names[view["turn"]]
        text = f"Last move: {who} {last['from']}-{last['to']}"
        if last.get("removed"):
            text += f", removed {last['removed']}"
        lines.append(_fit(text + "   (>< moved, + from, x removed)", width))
    result = view.get("result")
    if result is not None:
        if result["winner"] is None:
            lines.append(_fit(f"Game over: drawn ({result['reason']}).", width))
        else:
            lines.append(_fit("Game over: removals " + " to ".join(map(str, view["removed"]))
                              + ".", width))  # who won: the result line, told once
    elif view["pending"]:
        lines.append(_fit(f"{names[view['turn']]} formed a Triad and removes one of: "
                          f"{', '.join(view['pending'])} (DICE REMOVE <cell>)", width))
    else:
        lines.append(_fit(f"{names[view['turn']]} to move.", width))
    return "\n".join(line.rstrip() for line in lines)


def _hint(view: dict) -> str | None:
    """What the player to act should type now, or None for a watcher or the other player."""
    you = view.get("you")
    if view.get("result") is not None or you is None or you != view.get("turn"):
        return None
    if view.get("pending"):
        cells = view["pending"]
        named = cells[0] if len(cells) == 1 else ", ".join(cells[:-1]) + " or " + cells[-1]
        return (f"You formed a Triad: remove one of your dice, on {named}, with "
                f"DICE REMOVE <cell> (e.g. DICE REMOVE {cells[0]}).")
    legal = view.get("legal") or []
    if legal and all(len(a.split()) == 3 for a in legal):
        return ("None of your dice can move: turn one to a new value where it stands "
                "(DICE MOVE <cell> <value>) or move one its current value "
                f"(DICE MOVE <cell> <direction>), e.g. DICE {legal[0]}.")
    example = f", e.g. DICE {legal[0]}" if legal else ""
    return f"Your move: DICE MOVE <cell> <value> <direction>{example}."


def board(view: dict, width: int = 80, color: bool = True,
          names: tuple[str, ...] = ("Alice", "Bob"), height: int = 24) -> str:  # noqa: ARG001 - it fits 24 rows
    """The board as a player sees it (the game's ``render``): ``render``'s drawing, whose
    last line, for the player to act, says what to type."""
    text = render(view, width=width, color=color, names=tuple(names))
    hint = _hint(view)
    if hint is None:
        return text
    lines = text.split("\n")
    lines[-1:] = [f"\x1b[1m{line}{RESET}" if color else line
                  for line in textwrap.wrap(hint, min(width, 80), break_on_hyphens=False)]
    return "\n".join(lines)


def _die_words(die: dict | None, names) -> str:  # noqa: ANN001
    if die is None:
        return "empty"
    return f"{names[die['seat']]}'s {die['value']}"


def render_changes(old: dict, new: dict, width: int = 80, color: bool = True,  # noqa: ARG001
                   names: tuple[str, str] = ("Alice", "Bob")) -> str | None:
    """SET BOARD COMPACT: the squares that changed, in words ("c1 empty, d2 Alice's 3"),
    the removals if they changed, and whose move it is. None (the whole board) at the end."""
    if old.get("game") != "dice" or new.get("result") is not None:
        return None
    before = {d["cell"]: d for d in old["dice"]}
    after = {d["cell"]: d for d in new["dice"]}
    cells = sorted((c for c in set(before) | set(after) if before.get(c) != after.get(c)),
                   key=lambda c: (c[0], c[1:]))
    lines = []
    if cells:
        lines.append("Changed: " + ", ".join(f"{c} {_die_words(after.get(c), names)}"
                                             for c in cells) + ".")
    if old["removed"] != new["removed"]:
        lines.append(f"Removed: {names[0]} {new['removed'][0]}, {names[1]} "
                     f"{new['removed'][1]} (of {new.get('to_win', 3)}).")
    if new["pending"]:
        lines.append(f"{names[new['turn']]} formed a Triad and removes one of: "
                     f"{', '.join(new['pending'])} (DICE REMOVE <cell>).")
    else:
        lines.append("Your move." if new.get("you") == new["turn"]
                     else f"{names[new['turn']]} to move.")
    return "\n".join(_fit_words(line, width) for line in lines)


def _fit_words(line: str, width: int) -> str:
    return "\n".join(textwrap.wrap(line, max(width, 20), subsequent_indent="  ")) or line
