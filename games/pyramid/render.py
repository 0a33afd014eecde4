"""Pyramid on screen: ``view_for`` (what a seat may see; also the GMCP
``Pyramid.Game`` payload) and ``render`` (ANSI text, readable with color off).

The original game's screen: row numbers at the left of the pyramid (light green), column
numbers on top of the cards (yellow), the Pack, the Waste Pile, redeals left and
the score.  Hidden: the order of the face-down Pack and the match's deal seeds.

A deal that may not be shown at all (Use Same Deck, to anyone but its player until
every player has finished it: ``match.view_for`` decides) has its own view,
``hidden_view``: how far its player is and the scores, not one card.
"""

from __future__ import annotations

import textwrap

from games.pyramid.cards import ROWS, card_text, index_of, is_red
from games.pyramid.rules import State, par_score

RESET = "\x1b[0m"
RED = "\x1b[31;1m"
BLACK = "\x1b[37;1m"  # "black" suits drawn bright white on a dark terminal
GREEN = "\x1b[92m"
YELLOW = "\x1b[93m"
DIM = "\x1b[2m"
CELL = 6  # each card drawn as "[10H]" plus a space

#: The ``"game"`` of a view whose cards are hidden: its own word, so that whatever draws
#: views by that word never takes it for a board with cards.
HIDDEN = "pyramid-hidden"
HIDDEN_NOTE = "Use Same Deck: this deal's cards stay hidden until both players have played it."


def _card(card: int | None) -> dict | None:
    if card is None:
        return None
    return {"text": card_text(card), "red": is_red(card)}


def view_for(state: State, seat: int | None = None) -> dict:
    """JSON-able view: everything face up, the Pack's size but not its order."""
    game = state.game
    pyramid = []
    for i, card in enumerate(game.pyramid):
        entry = _card(card)
        if entry is not None:
            entry["available"] = game.is_available(i)
        pyramid.append(entry)
    return {
        "game": "pyramid",
        "mode": state.mode,
        "game_no": state.game_no,
        "games": state.n_games,
        "pyramid": pyramid,
        "pack_top": _card(game.pack[0]) if game.pack else None,
        "pack_count": len(game.pack),
        "waste_top": _card(game.waste[-1]) if game.waste else None,
        "waste_count": len(game.waste),
        "deal": game.deal,
        "redeals_left": game.redeals_left,
        "cleared_in": game.cleared_in,
        "over": game.over,
        "how": game.how,
        "score": game.score,
        "par_now": par_score(game),  # what ending the game now would score
        "cards_left": game.cards_left,
        "scores": list(state.scores),
        "total": state.total,
        "match_over": state.over,
        # the last action in this game: the cards it removed (gone, so no secret) and
        # their spots, or the card it turned up (the Waste's top); none in a new deal
        "last_move": None if state.last is None or state.last.game_no != state.game_no
        else state.last.to_json(),
    }


def hidden_view(state: State, note: str = HIDDEN_NOTE) -> dict:
    """JSON-able view of a match whose current deal may not be shown: which game it is,
    the cards left and the scores (the running score is everyone's to see), no card."""
    return {
        "game": HIDDEN,
        "mode": state.mode,
        "game_no": state.game_no,
        "games": state.n_games,
        "cards_left": state.game.cards_left,
        "scores": list(state.scores),
        "total": state.total,
        "match_over": state.over,
        "note": note,
    }


def _plural(n: int, noun: str, pad: int = 0) -> str:
    """'1 card', '0 cards', '23 cards' (the number right-aligned in ``pad`` columns)."""
    return f"{n:>{pad}} {noun}{'' if n == 1 else 's'}"


def _paint(text: str, code: str, color: bool) -> str:
    return f"{code}{text}{RESET}" if color else text


def _cell(entry: dict | None, color: bool) -> str:
    """A 5-wide card: '[10H]', '[ QS]'; a removed card is blank, a covered one is
    in round brackets so availability reads without color."""
    if entry is None:
        return "  .  "
    text = entry["text"].rjust(3)
    left, right = ("[", "]") if entry.get("available", True) else ("(", ")")
    return left + _paint(text, RED if entry["red"] else BLACK, color) + right


#: The narrowest screen the wide drawing fits (row 7: its number and seven spaced cards).
WIDE = 4 + ROWS * CELL


def render(view: dict, width: int = 80, color: bool = True,
           names: tuple[str, ...] = ("Alice", "Bob")) -> str:
    """Draw the view within ``width`` columns: below ``WIDE`` (SET WIDTH 40), the narrow
    layout, whose cards touch ("[10D]( 3C)") and whose words wrap; no card is cut."""
    if view["game"] == HIDDEN:
        return _render_hidden(view, width)
    narrow = width < WIDE
    lines = [_title(view)]
    cell = CELL - 1 if narrow else CELL
    heads = "".join(f"{c:^{cell}}" for c in range(1, ROWS + 1))
    lines.append(" " * (3 if narrow else 4) + _paint(heads.rstrip(), YELLOW, color))
    for row in range(1, ROWS + 1):
        lines.append(_row(view, row, color, narrow))
    lines.append("")
    lines.extend(_pack_and_waste(view, color, width))
    lines.append(f"Deal {view['deal']} of 3, redeals left: {view['redeals_left']}")
    if view["over"] and not view["match_over"]:  # a finished match: its result says it
        how = {"won": "all cards removed", "stuck": "no move left",
               "ended": "ended"}.get(view["how"], view["how"])
        lines.append(f"Game over ({how}): Par score {view['score']:+d}")
    elif view["cleared_in"]:
        lines.append(f"Pyramid cleared in deal {view['cleared_in']}: play the Pack out")
    if view["mode"] == "tournament":
        lines.append(_scores(view))
    if not view["over"]:  # how to move, not a hint: no cell is named
        how = "Pair to 13: PYR <row,col> <row,col>; a King alone; P Pack, W Waste, D draws"
        if len(how) > width:
            how = "Pair to 13: PYR <r,c> <r,c>; a King alone; P W D"
        lines.extend(_paint(part, DIM, color) for part in textwrap.wrap(how, width))
    return "\n".join(_fit(line, width) for line in lines)


def _row(view: dict, row: int, color: bool, narrow: bool = False) -> str:
    """Row ``row`` of the pyramid as the board draws it: its number, then its cards (in
    the narrow layout, touching)."""
    step = CELL - 1 if narrow else CELL
    indent = (ROWS - row) * step // 2
    cells = ("" if narrow else " ").join(_cell(view["pyramid"][index_of(row, c)], color)
                                         for c in range(1, row + 1))
    return _paint(f"{row:>2}", GREEN, color) + (" " if narrow else "  ") + " " * indent + cells


def _pack_and_waste(view: dict, color: bool, width: int = 80) -> list[str]:
    """The Pack and the Waste Pile: one line, or one each when the screen is narrow."""
    pack = _cell(view["pack_top"], color) if view["pack_top"] else "[---]"
    waste = _cell(view["waste_top"], color) if view["waste_top"] else "[   ]"
    both = [f"Pack (P) {pack} {view['pack_count']:>2} left",
            f"Waste (W) {waste} {_plural(view['waste_count'], 'card', 2)}"]
    return [f"{both[0]}   {both[1]}"] if 51 <= width else both


def render_changes(old: dict, new: dict, width: int = 80, color: bool = True) -> str | None:
    """SET BOARD COMPACT: the rows that changed (a card removed, a card uncovered), as
    the board draws them, the cards the move uncovered in words ("Uncovered: 9H at 6,2."),
    then one line with the Pack, the Waste, the deal and the score
    were the game to end now. None (the whole board) for another deal or game, a hidden
    deal, or a game over."""
    if old.get("game") != "pyramid" or new.get("game") != "pyramid" or new["over"] \
            or old["game_no"] != new["game_no"] or old.get("board_of") != new.get("board_of") \
            or "par_now" not in old:
        return None
    rows = [r for r in range(1, ROWS + 1)
            if any(old["pyramid"][index_of(r, c)] != new["pyramid"][index_of(r, c)]
                   for c in range(1, r + 1))]
    lines = [_row(new, r, color, width < WIDE) for r in rows]
    uncovered = [f"{after['text']} at {r},{c}" for r in range(1, ROWS + 1)
                 for c in range(1, r + 1)
                 for before, after in [(old["pyramid"][index_of(r, c)],
                                        new["pyramid"][index_of(r, c)])]
                 if before is not None and after is not None
                 and not before.get("available") and after.get("available")]
    if uncovered:
        lines.extend(textwrap.wrap(f"Uncovered: {', '.join(uncovered)}.", width))
    status = f"Deal {new['deal']} of 3, Par {new['par_now']:+d} now"
    if new["cleared_in"]:
        status = f"Pyramid cleared, Par {new['par_now']:+d} now"
    pack = _pack_and_waste(new, color, width)
    both = f"{pack[0]}   {status}"
    if len(pack) == 1 and _visible_len(both) <= width:
        lines.append(both)
    else:
        lines.extend([*pack, status])
    return "\n".join(lines)


def _title(view: dict) -> str:
    if view["mode"] == "tournament":
        return f"Pyramid -- tournament game {view['game_no']} of {view['games']}"
    return "Pyramid"


def _scores(view: dict) -> str:
    scores = " ".join(f"{s:+d}" for s in view["scores"]) or "-"
    return f"Scores: {scores}   running total {view['total']:+d}"


def _render_hidden(view: dict, width: int) -> str:
    """A hidden deal: the title with the cards left, why no card shows, the scores."""
    left = (f"all {view['games']} games played" if view["match_over"]
            else f"{_plural(view['cards_left'], 'card')} left")
    lines = [f"{_title(view)}: {left}", *textwrap.wrap(view["note"], min(width, 80)),
             _scores(view)]
    return "\n".join(_fit(line, width) for line in lines)


def _visible_len(text: str) -> int:
    out, skip = 0, False
    for ch in text:
        if ch == "\x1b":
            skip = True
        elif skip:
            skip = ch != "m"
        else:
            out += 1
    return out


def _fit(line: str, width: int) -> str:
    """Cut plain lines that would pass ``width`` (colored lines are laid out to fit)."""
    if _visible_len(line) <= width or "\x1b" in line:
        return line
    return line[:width]
