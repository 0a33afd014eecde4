"""Pyramid notation: the keyboard grammar of docs/rules/pyramid.md."""

import pytest

from games.errors import BadNotation
from games.pyramid.notation import format_action, parse_action
from games.pyramid.rules import DEAL, END, Action

PARSE = [
    ("7,1 6,3", Action.remove("7,1", "6,3")),
    ("71 63", Action.remove("7,1", "6,3")),
    ("7163", Action.remove("7,1", "6,3")),
    ("6,3 7,1", Action.remove("7,1", "6,3")),
    ("7,4", Action.remove("7,4")),
    ("P 7,2", Action.remove("P", "7,2")),
    ("p 72", Action.remove("P", "7,2")),
    ("W P", Action.remove("P", "W")),
    ("98", Action.remove("P", "W")),  # keypad: 9 = Waste, 8 = Pack
    ("8 72", Action.remove("P", "7,2")),
    ("D", DEAL),
    ("0", DEAL),  # keypad: 0 = Discard
    ("deal", DEAL),
    ("END", END),
]


@pytest.mark.parametrize("text,action", PARSE)
def test_parse(text, action):
    assert parse_action(text) == action
    assert parse_action(format_action(action)) == action


@pytest.mark.parametrize("text,msg", [
    ("", "type two cards"),
    ("7,8", "row 7 has columns 1 to 7"),
    ("3,5", "row 3 has columns 1 to 3"),
    ("7", "needs a column"),
    ("71 72 73", "one King or two cards"),
    ("X", "cannot read"),
    ("D 7,1", "stands alone"),
])
def test_bad_notation(text, msg):
    with pytest.raises(BadNotation, match=msg):
        parse_action(text)


def test_words_list():
    assert parse_action(["7,1", "6,3"]) == Action.remove("7,1", "6,3")


@pytest.mark.parametrize("text, reason", [
    ("9,9 7,2", "there is no row 9: rows are 1 to 7"),   # was "pick one King or two cards"
    ("8,1", "there is no row 8: rows are 1 to 7"),        # was "row 1 needs a column too"
    ("7,1 7,2 7,3", r"two cards at a time \(that is 3: 7,1 7,2 7,3\)"),
])
def test_refusals_say_what_is_wrong(text, reason):
    with pytest.raises(BadNotation, match=reason):
        parse_action(text)


def test_row_one_has_one_card():
    with pytest.raises(BadNotation, match="row 1 has only card 1,1"):   # not "columns 1 to 1"
        parse_action("1,2")
