"""Bugs of issue 12 (part 6) that are pure: words the engines and helpers get right."""

from __future__ import annotations

import attrs
import pytest

from games.errors import IllegalAction
from games.pyramid import notation as pyr_notation, rules as pyr_rules
from games.triad import rules as triad_rules, table as triad
from games.triad.table import Player
from server.services.tiles import a_or_an
from server.text import a
from tests.unit.test_dice_rules import make as dice_position, play as dice_play
from tests.unit.test_pyramid_rules import make as pyramid_deal
from tests.unit.test_triad_table import _with_stacks, act


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
    assert [s.text for s in triad._describe(table, [triad_rules.Reshuffled(1)])] == [
        "The stock has run out: the one card of the discard pile is shuffled into a new stock."]
    assert "the 7 cards of the discard pile are" in triad._describe(
        table, [triad_rules.Reshuffled(7)])[0].text


# -- 3. every way a Triad table closes, in words (and never "a draw") ----------------------------


@pytest.mark.parametrize(("computers", "stacks", "leavers", "said"), [
    ((), {0: 100, 1: 5, 2: 5}, (),
     "Triad table #7 closes: Alice is the only player left who can pay the opening bet of 10 "
     "cubits, and wins the table."),
    ((), {0: 5, 1: 5, 2: 5}, (),
     "Triad table #7 closes: nobody can pay the opening bet of 10 cubits any more."),
    ((1, 2), {0: 5, 1: 100, 2: 100}, (),
     "Triad table #7 closes: only computer players can still pay the opening bet of 10 cubits."),
    ((2,), {0: 100, 1: 100, 2: 100}, (0, 1),
     "Triad table #7 closes: every person has left it (computer players alone do not keep a "
     "table open)."),
])
def test_every_way_a_table_closes_is_said_in_words(computers, stacks, leavers, said):
    table = triad.new_table(triad.table_options(10, None, 3, 100), Player(1, "Alice"))
    for pos in (1, 2):
        level = "easy" if pos in computers else "-"
        table, _ = act(table, pos, f"SIT {pos + 1} 100 {pos + 1} {level} P{pos}")
    table = attrs.evolve(_with_stacks(table, stacks), started=True)
    for seat in leavers:
        table, _ = act(table, seat, "LEAVE")
    result = triad.outcome(table)
    assert result is not None and result.reason in triad.CLOSING_WORDS
    assert triad.closing_text(table, 7, result) == said


# -- 4. REPLAY's words for a Triad table's moves -------------------------------------------------
def test_triad_moves_in_replay_words():
    table = triad.new_table(triad.table_options(10, None, 3, 100), Player(1, "Alice"))
    describe = triad.describe_move
    assert describe(table, 1, "SIT 2 100 2 - Walker", "Walker") == \
        "Walker sits down in seat 2 with 100 cubits."
    assert describe(table, 1, "SIT 2 100 9 hard Computer 1", "Computer 1") == \
        "Computer 1 (hard) sits down in seat 2 with 100 cubits."
    assert describe(table, 0, "DEAL", "Alice") == "A new hand is dealt."      # the table's
    assert describe(table, 0, "RAISE 20", "Alice") == "Alice raises 20."
    assert describe(table, 0, "DRAW 13P C", "Alice") == "Alice discards 2 and draws 2."
    assert describe(table, 0, "DRAW", "Alice") == "Alice keeps all six cards."
    assert describe(table, 0, "LEAVE", "Alice") == "Alice leaves the table."
    away = attrs.evolve(table, away=frozenset({0}))
    assert describe(away, 0, "FOLD", "Alice") == "Alice folds (automatically: away)."
    assert describe(None, 0, "nonsense", "Alice") is None
