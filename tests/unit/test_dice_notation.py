"""Triad Dice notation: parsing, printing, board pictures and the JSON codec."""

import json
import random

import pytest

from games.errors import BadNotation
from games.dice import notation, rules
from games.dice.notation import format_action, parse_action, parse_cell
from games.dice.rules import Move, Remove, Resign


@pytest.mark.parametrize("text, action", [
    ("MOVE c1 3 NE", Move(2, 3, "NE")),
    ("move C1 3 ne", Move(2, 3, "NE")),
    ("MOVE f6 1 SW", Move(35, 1, "SW")),
    ("MOVE a1 II N", Move(0, 2, "N")),
    ("MOVE c1 NE 3", Move(2, 3, "NE")),
    ("MOVE c1 2", Move(2, 2, None)),
    ("MOVE c1 NE", Move(2, None, "NE")),
    ("REMOVE c3", Remove(14)),
    ("RESIGN", Resign()),
    (["MOVE", "c1", "3", "NE"], Move(2, 3, "NE")),
])
def test_parse(text, action):
    assert parse_action(text) == action


@pytest.mark.parametrize("action", [Move(2, 3, "NE"), Move(2, 2, None), Move(2, None, "NE"),
                                    Remove(14), Resign()])
def test_format_round_trips(action):
    assert parse_action(format_action(action)) == action
    assert format_action(Move(2, 3, "NE")) == "MOVE c1 3 NE"


@pytest.mark.parametrize("text, message", [
    ("", "usage: DICE MOVE"),
    ("MOVE e7 2 N", "e7 is off the board"),
    ("MOVE zz 2 N", "is not a cell"),
    ("MOVE c1 4 NE", "4 is not a die value"),
    ("MOVE c1 3 UP", "'UP' is not a value"),
    ("MOVE c1 N S", "Give one direction, not two (N and S)"),
    ("MOVE c1 2 3", "Give one value, not two (2 and 3)"),
    ("MOVE c1 3 N S", "usage"),
    ("MOVE c1", "usage"),
    ("REMOVE", "usage: DICE REMOVE <cell>"),
    ("RESIGN now", "RESIGN takes no arguments"),
    ("JUMP c1", "is not a dice action"),
])
def test_bad_notation(text, message):
    with pytest.raises(BadNotation) as err:
        parse_action(text)
    assert message in str(err.value)


def test_usage_documents_the_stalemate_forms():
    assert "MOVE c1 2" in notation.USAGE and "MOVE c1 NE" in notation.USAGE
    assert "MOVE c1 2" in notation.__doc__ and "MOVE c1 NE" in notation.__doc__


def test_cells():
    assert [parse_cell(n) for n in ("a1", "f1", "a6", "F6")] == [0, 5, 30, 35]
    assert all(rules.cell_name(parse_cell(rules.cell_name(c))) == rules.cell_name(c)
               for c in range(36))


def test_board_picture_round_trips():
    s = rules.new_game({}, random.Random(4))
    assert notation.parse_board(notation.format_board(s.cells)) == s.cells
    with pytest.raises(BadNotation):
        notation.parse_board("(1)")


def test_json_round_trip_mid_game():
    rng = random.Random(11)
    s = rules.new_game({}, rng)
    for _ in range(40):
        if s.result is not None:
            break
        s, _ = rules.apply(s, s.turn, rng.choice(list(rules.legal_actions(s, s.turn))), rng)
        d = notation.state_to_json(s)
        assert notation.state_from_json(json.loads(json.dumps(d))) == s


@pytest.mark.parametrize("text, expected", [
    ("MOVE c1 3 north", "MOVE c1 3 N"),
    ("MOVE c1 3 North-East", "MOVE c1 3 NE"),
    ("move c1 northwest 2", "MOVE c1 2 NW"),
    ("MOVE c1 3 south-west", "MOVE c1 3 SW"),
    ("MOVE c1 3 EAST", "MOVE c1 3 E"),
    ("MOVE c1 west", "MOVE c1 W"),
])
def test_directions_in_words(text, expected):
    """DICE accepts north, north-east, northeast as well as N and NE."""
    assert notation.format_action(notation.parse_action(text)) == expected


@pytest.mark.parametrize("text", ["MOVE c1 3 up", "MOVE c1 3 northsouth", "MOVE c1 3 eastnorth"])
def test_words_that_are_no_direction(text):
    with pytest.raises(BadNotation, match="is not a value"):
        notation.parse_action(text)
