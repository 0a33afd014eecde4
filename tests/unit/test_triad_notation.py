"""Triad notation: actions parse and print in one place; the state JSON round-trips."""

from __future__ import annotations

import json
import random

import pytest

from games.errors import BadNotation
from games.triad import rules
from games.triad.notation import (
    card_color, card_text, describe_card, format_action, parse_action, state_from_json, state_to_json,
)
from games.triad.rules import Action


@pytest.mark.parametrize("text,action,canonical", [
    ("PASS", Action("PASS"), "PASS"),
    ("pass", Action("PASS"), "PASS"),
    ("CHECK", Action("PASS"), "PASS"),
    ("EQUAL", Action("EQUAL"), "EQUAL"),
    ("call", Action("EQUAL"), "EQUAL"),
    ("RAISE 5", Action("RAISE", 5), "RAISE 5"),
    ("raise   12", Action("RAISE", 12), "RAISE 12"),
    ("FOLD", Action("FOLD"), "FOLD"),
    ("DRAW", Action("DRAW"), "DRAW"),
    ("STAND", Action("DRAW"), "DRAW"),
    ("DRAW 1 3", Action("DRAW", discard=("1", "3")), "DRAW 1 3"),
    ("DISCARD 1,3,6", Action("DRAW", discard=("1", "3", "6")), "DRAW 1 3 6"),
    ("DRAW 14b c 2R", Action("DRAW", discard=("14B", "C", "2R")), "DRAW 14B C 2R"),
    ("DEAL", Action("DEAL"), "DEAL"),
    ("START", Action("DEAL"), "DEAL"),
])
def test_parse_and_format(text, action, canonical):
    assert parse_action(text) == action
    assert format_action(action) == canonical
    assert parse_action(format_action(action)) == action


def test_parse_accepts_pieces():
    assert parse_action(["RAISE", "5"]) == Action("RAISE", 5)


@pytest.mark.parametrize("text,message", [
    ("", "Say PASS"),
    ("RAISE", "Usage: RAISE"),
    ("RAISE five", "Usage: RAISE"),
    ("RAISE 0", "Usage: RAISE"),
    ("PASS 3", "takes nothing"),
    ("DRAW 7", "positions run 1 to 6"),
    ("DRAW 1 2 3 4 5", "at most 4"),
    ("DRAW 15B", "'15B' is not a card: a position \\(1 to 6\\) or a code"),
    ("BET 5", "Unknown Triad action"),
])
def test_bad_notation(text, message):
    with pytest.raises(BadNotation, match=message):
        parse_action(text)


def test_card_helpers():
    assert card_text("13p") == "13P" and card_text("c") == "C"
    assert card_color("13P") == "Purple" and card_color("C") is None
    assert describe_card("14B") == "Black Pyramid (\u25b2)"
    assert describe_card("8R") == "Red 8 (\u2014\u2022\u2022\u2022)"
    assert describe_card("C") == "Capstone"


def test_state_json_round_trip_through_a_game():
    rng = random.Random(9)
    state = rules.new_game({"opening": 2, "limit": None, "stacks": [30, None, 12, 50]}, rng)
    for _ in range(200):
        data = json.loads(json.dumps(state_to_json(state)))
        assert state_from_json(data) == state
        movers = rules.to_move(state)
        if not movers:
            break
        actions = list(rules.legal_actions(state, movers[0]))
        state, _ = rules.apply(state, movers[0], rng.choice(actions), rng)
