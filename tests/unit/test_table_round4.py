"""At the table, round four (issue 39): the words of items 10d, 10i and 11 that need no
parlor (a Triad table's last hand named after its players stand up, TT HAND's corner
legend, one-line refusals of bad moves)."""

from __future__ import annotations

import random

from games.triad import table as triad
from games.triad import rules as triad_rules
from games.triad.spoken import speak as triad_speak
from games.triad.table import Player


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
    from games.triptycha.spoken import ask_hand
    lines = ask_hand(_tt_view([True, False, True], laid=1), [])
    assert lines[0] == "Your hand: 2 tiles to lay, 1 laid."
    assert lines[1] == "Corners: T-BL-BR up, TL-TR-B down."
    assert len(lines[1]) <= 40
    assert lines[2].startswith("Tile 2, down: 5-3-4, primary 2")
    assert lines.count(lines[1]) == 1
    # nothing listed, nothing to explain
    assert not any(line.startswith("Corners") for line in ask_hand(_tt_view([True], 1), []))
