"""Bugs of issue 12 (part 6) that are pure: words the engines and helpers get right."""

from __future__ import annotations

import pytest

from games.errors import IllegalAction
from games.pyramid import notation as pyr_notation, rules as pyr_rules
from games.triad import rules as triad_rules, table as triad
from games.triad.table import Player
from server.services.tiles import a_or_an
from server.text import a
from tests.unit.test_dice_rules import make as dice_position, play as dice_play
from tests.unit.test_pyramid_rules import make as pyramid_deal


# -- 5. grammar: "an A", "1 cell", "an Undercroft" -----------------------------------------------
@pytest.mark.parametrize(("noun", "said"), [
    ("A", "an A"), ("Ace", "an Ace"), ("8", "an 8"), ("80 cubits", "an 80 cubits"),
    ("11", "an 11"), ("18", "an 18"), ("11000", "an 11000"), ("110", "a 110"), ("10", "a 10"),
    ("1", "a 1"), ("amount", "an amount"), ("number", "a number"),
    ("Undercroft disc", "an Undercroft disc"), ("Harbour disc", "a Harbour disc"),
])
def test_a_gives_the_article_as_said_aloud(noun, said):
    assert a(noun) == said
    assert f"{a_or_an(noun)} {noun}" == said


@pytest.mark.parametrize(("card", "pair"), [("QH", "an A"), ("5S", "an 8"), ("9H", "a 4"),
                                            ("2C", "a J")])
def test_a_lone_pyramid_card_names_its_partner_with_the_right_article(card, pair):
    game = pyramid_deal(pyramid={"7,1": card}, pack=["2C", "3C"])
    with pytest.raises(IllegalAction, match=f"\\(pair it with {pair}\\)"):
        pyr_rules.play(game, pyr_notation.parse_action("7,1"))


def test_one_cell_off_the_board_is_one_cell():
    state = dice_position("""
     .   .   .   .   .   .
     .   .   .   .   .   .
     .   .   .  [1]  .   .
     .   .   .  [2]  .   .
     .   .   .  [3]  .   .
     .   .  (2)  .   .   .
    """)
    with pytest.raises(IllegalAction) as err:
        dice_play(state, "MOVE c1 1 S")
    assert "1 cell S from c1 is off the board" in str(err.value)


def test_a_one_card_reshuffle_is_one_card():
    table = triad.new_table(triad.table_options(10, None, 3, 100), Player(1, "Alice"))
    assert triad._describe(table, [triad_rules.Reshuffled(1)]) == [
        "The stock has run out: the one card of the discard pile is shuffled into a new stock."]
    assert "the 7 cards of the discard pile are" in triad._describe(
        table, [triad_rules.Reshuffled(7)])[0]
