"""At the table, round four (issue 39): the words of items 10d, 10i and 11 that need no
parlor (a Triad table's last hand named after its players stand up, TT HAND's corner
legend, one-line refusals of bad moves)."""

from __future__ import annotations

import random

import pytest

from commands.dice import _reason
from commands.registry import refusal
from games.dice import notation as dice_notation
from games.errors import BadNotation, quoted
from games.pyramid import notation as pyr_notation
from games.pyramid.match import CLOSE_REFUSALS, COMMAND_REFUSALS, sentence
from games.triad import notation as triad_notation
from games.triad import table as triad
from games.triad import rules as triad_rules
from games.triad.spoken import speak as triad_speak
from games.triad.table import Player
from games.triptycha.spoken import ask_hand


def _computer_wins_and_stands_up() -> triad.Table:
    """Alice and a computer player; the computer raises, Alice folds, and then the
    computer player gets up (LEAVE for its seat)."""
    table = triad.new_table(triad.table_options(10, None, 2, 100), Player(1, "Alice"))
    table, _ = triad.apply(table, 1, triad.Sit(1, 100, 9, "Computer 1", "easy"),
                           random.Random(1))
    table, _ = triad.apply(table, 0, triad_rules.Action("DEAL"), random.Random(2))
    step = 3
    while table.game.phase != "hand_over":
        seat = triad.to_move(table)[0]
        pos = table.position(seat)
        owed = table.game.current_bet - table.game.seats[pos].bet
        if table.game.phase == "draw":
            action = triad_rules.Action("DRAW")
        elif seat == 1:
            action = triad_rules.Action("EQUAL") if owed else triad_rules.Action("RAISE", 10)
        else:
            action = triad_rules.Action("FOLD") if owed else triad_rules.Action("PASS")
        table, _ = triad.apply(table, seat, action, random.Random(step))
        step += 1
    table, _ = triad.apply(table, 1, triad.Leave(), random.Random(step))
    return table


def test_a_triad_table_names_the_computer_that_won_its_last_hand_after_it_left():
    """10d: the last hand's winnings name the computer player that won them (its name, as
    a computer seat's), though it no longer sits there, on the board and read out."""
    table = _computer_wins_and_stands_up()
    assert table.places[1] is None and table.game.winnings == ((1, 30),)
    view = triad.view_for(table, 0)
    assert view["names"] == ["Alice", None] and view["hand_names"] == ["Alice", "Computer 1"]
    board = triad.render_table(view, width=80, color=False)
    assert "Last hand: Computer 1 won 30." in board and "Seat 2 won" not in board
    assert "Last hand: Computer 1 won 30." in triad_speak(view)
    # and it is kept with the table (stored, restored)
    again = triad.state_from_json(triad.state_to_json(table))
    assert again == table and again.hand_names() == ["Alice", "Computer 1"]


def _tt_view(up_down: list[bool], laid: int = 0) -> dict:
    """A Triptycha seat's view with a hand of tiles pointing ``up_down``, the first
    ``laid`` of them laid."""
    hand = []
    for n, up in enumerate(up_down, 1):
        hand.append({"n": n, "up": up, "turn": 0, "corners": [5, 3, 4],
                     "niche": n if n <= laid else None, "sum": 14,
                     "tile": {"id": n, "name": "a clay tile of the Proving", "primary": 2,
                              "corners": [5, 3, 4]}})
    return {"seat": 0, "hands": [hand, None]}


def test_tt_hand_says_in_which_corner_order_the_numbers_are():
    """10i: TT HAND (in every mode) lists "5-3-4" with a one-line legend, in the rules'
    corner names (T, BL, BR pointing up; TL, TR, B pointing down), fitting 40 columns."""
    lines = ask_hand(_tt_view([True, False, True], laid=1), [])
    assert lines[0] == "Your hand: 2 tiles to lay, 1 laid."
    assert lines[1] == "Corners: T-BL-BR up, TL-TR-B down."
    assert len(lines[1]) <= 40
    assert lines[2].startswith("Tile 2, down: 5-3-4, primary 2")
    assert lines.count(lines[1]) == 1
    # nothing listed, nothing to explain
    assert not any(line.startswith("Corners") for line in ask_hand(_tt_view([True], 1), []))


# -- 11: one line for each refusal -------------------------------------------------------
def test_a_wrong_use_is_one_line_with_the_usage_when_it_fits():
    usage = "Usage: DICE MOVE <cell> <value> <direction>"
    assert refusal("", usage, 80) == usage
    assert refusal("Give one value, not two (2 and 3).", usage, 80) == \
        "Give one value, not two (2 and 3).  " + usage
    assert refusal("c9 is off the board (cells are a1..f6).", usage, 80) == \
        "c9 is off the board (cells are a1..f6)."  # with the usage: 85 columns
    assert refusal("c9 is off the board (cells are a1..f6).", usage, 120).endswith(usage)


def test_what_was_typed_is_quoted_short():
    assert quoted("7;1") == "'7;1'"
    assert quoted("x" * 70) == "'xxxxxxxxx\u2026'" and len(quoted("x" * 70)) == 12


BAD_MOVES = {
    "pyr": ["9,9", "8,1", "0,3", "x", "7;1", "-1,2", "7,1 6,3 5,5", "7,1 " + "9" * 70, "7",
            "7,8", "1,2", ",", "D D", "DISCARD 7,1", "x" * 70, "² 1", "7,1 6,3 5,5 4,4 3,3"],
    "dice": ["MOVE", "MOVE z9 3 NE", "MOVE c1 9 NE", "MOVE c1 3 xx", "MOVE 11 2 N",
             "MOVE c1 2 3", "MOVE c1 N S", "MOVE " + "x" * 70 + " 2 N", "MOVE c1 2 " + "x" * 70,
             "MOVE c1 " + "9" * 70 + " N", "MOVE z" + "9" * 70 + " 2 N", "REMOVE " + "x" * 70,
             "x" * 70],
    "triad": ["DRAW 9", "DRAW 1 2 3 4 5", "DRAW zz", "DRAW 15B", "DRAW " + "x" * 70,
              "DRAW " + "9" * 70, "x" * 70, "PASS 3"],
}


def test_the_engines_refusals_of_bad_moves_fit_one_line():
    """What each engine's notation says of a move it cannot read is one line of 80
    columns, as the commands show it (a sentence; the usage line only when it fits too)."""
    readers = {"pyr": (pyr_notation.parse_action, sentence),
               "dice": (dice_notation.parse_action, lambda text: _reason(BadNotation(text))),
               "triad": (triad_notation.parse_action, str)}
    for game, texts in BAD_MOVES.items():
        parse, shown = readers[game]
        for text in texts:
            with pytest.raises(BadNotation) as err:
                parse(text)
            said = shown(str(err.value))
            assert len(said) <= 80, (game, text, said)
    for said in [*CLOSE_REFUSALS.values(), *COMMAND_REFUSALS.values()]:
        assert len(said) <= 80, said
