"""Pyramid polish: the keypad grammar reads ASCII digits only (a clean BadNotation for
"²", "①" or an Arabic-Indic digit, never a ValueError), and counts on screen are
singular for one card."""

import random
import re

import attrs
import pytest

from commands.pyramid import _standing
from games.errors import BadNotation, RuleError
from games.pyramid import render, rules
from games.pyramid.notation import USAGE, parse_action
from games.pyramid.rules import Action, Game

NOT_DIGITS = [
    ("² 1", "cannot read '²'"),
    ("PYR ² 1", "cannot read 'PYR'"),   # the whole line, prefix and all: still one line
    ("①", "cannot read '①'"),
    ("٣,1", "cannot read '٣,1'"),       # Arabic-Indic 3: int("٣") == 3, but not keypad
    ("7,²", "cannot read '7,²'"),       # these passed isdigit() and crashed int()
    ("7²", "cannot read '7²'"),
    ("1,①", "cannot read '1,①'"),
    ("7,٣", "cannot read '7,٣'"),       # isdecimal() alone would read this as 7,3
    ("7٣ 6,3", "cannot read '7٣'"),
    ("７,１", "cannot read '７,１'"),    # fullwidth digits
]


@pytest.mark.parametrize("text,msg", NOT_DIGITS)
def test_digits_other_than_ascii_are_refused_in_one_line(text, msg):
    with pytest.raises(BadNotation) as err:
        parse_action(text)
    assert isinstance(err.value, RuleError)
    assert str(err.value) == f"{msg}: {USAGE}"
    assert "\n" not in str(err.value)


def test_ascii_digits_still_read():
    assert parse_action("7,3") == Action.remove("7,3")
    assert parse_action("73 62") == Action.remove("7,3", "6,2")
    with pytest.raises(BadNotation, match="needs a column too"):
        parse_action("7,")


def _state_with(waste: int, pack_left: int | None = None) -> rules.State:
    state = rules.new_game({}, random.Random(4))
    game = state.game
    pack = game.pack if pack_left is None else game.pack[:pack_left]
    game = attrs.evolve(game, pack=pack[waste:], waste=pack[:waste])
    return attrs.evolve(state, games=(game,))


def _pile_line(state: rules.State) -> str:
    text = render.render(render.view_for(state, 0), color=False)
    return next(line for line in text.splitlines() if "Waste (W)" in line)


@pytest.mark.parametrize("waste,words", [(0, " 0 cards"), (1, " 1 card"), (2, " 2 cards"),
                                         (17, "17 cards")])
def test_waste_count_is_singular_for_one_card(waste, words):
    line = _pile_line(_state_with(waste))
    assert line.endswith(words)
    assert not re.search(r"\b1 cards\b", line)


def test_no_count_on_the_board_says_1_cards():
    for waste in range(0, 5):
        for pack_left in (waste, waste + 1, waste + 2):
            state = _state_with(waste, pack_left)
            for color in (False, True):
                text = render.render(render.view_for(state, 0), color=color)
                assert not re.search(r"\b1 cards\b", text), text


def test_standing_counts_one_card_left():
    one = Game(pyramid=(None,) * 27 + (5,), pack=(), waste=())
    assert one.cards_left == 1
    state = attrs.evolve(rules.new_game({}, random.Random(1)), games=(one,))
    assert _standing(state).startswith("1 card left, Par score")
    two = attrs.evolve(one, waste=(7,))
    state = attrs.evolve(state, games=(two,))
    assert _standing(state).startswith("2 cards left, Par score")
