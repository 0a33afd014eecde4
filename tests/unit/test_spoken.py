"""The screen-reader forms of the four games' views (``games/<game>/spoken.py``): short
lines in a fixed order, the most important first, one fact a line, and no drawing."""

from __future__ import annotations

import random
import re

from games.dice import render as dice_render
from games.dice import rules as dice_rules
from games.dice import spoken as dice_spoken
from games.pyramid import match as pyr
from games.pyramid import spoken as pyr_spoken
from games.triad import render as triad_render
from games.triad import rules as triad_rules
from games.triad import spoken as triad_spoken
from games.triptycha import spoken as tt_spoken
from games.triptycha.render import view_for as tt_view
from games.triptycha.rules import Options, Rules, apply, legal_actions, new_game, outcome
from games.triptycha.tiles import random_deck

BOX = re.compile("[\u2500-\u257f\u2580-\u259f]")
RUN = re.compile(r"([-=_|/\\+*#.])\1\1")
ANSI = re.compile("\x1b")


def assert_spoken(lines: list[str]) -> None:
    """Plain sentences: no box drawing, no art runs, no colour, nothing empty."""
    assert lines
    for line in lines:
        assert line.strip(), lines
        assert not BOX.search(line), line
        assert not RUN.search(line), line
        assert not ANSI.search(line), line
        assert not re.search(r"[\[(<]\d+[\])>]", line), line  # no glyphs: (2) [3] <1>


# -- Triptycha ------------------------------------------------------------------------------
def tt_games(seed: int, rules=Rules(take=1)):
    """Every state of one random game (draw, play, trading, over)."""
    rng = random.Random(seed)
    s = new_game(Options((random_deck(rng, 8, 1), random_deck(rng, 8, 101)), rules), rng)
    states = [s]
    while outcome(s) is None:
        mover = rules_to_move(s)
        s, _ = apply(s, mover, rng.choice(list(legal_actions(s, mover))), rng)
        states.append(s)
    return states


def rules_to_move(s):  # noqa: ANN001, ANN201
    from games.triptycha.rules import to_move
    return to_move(s)[0]


def test_triptycha_reads_every_niche_in_order_with_owner_numbers_and_primary():
    names = ("Ann", "Ben")
    for s in tt_games(5):
        for seat in (0, 1, None):
            lines = tt_spoken.speak(tt_view(s, seat), names)
            assert_spoken(lines)
            niches = [line for line in lines if line.startswith("Niche ")]
            if s.laid:
                assert [int(line.split()[1].rstrip(":,")) for line in niches] == \
                    list(range(1, 10))
            else:
                assert not niches and "All 9 niches are empty." in lines
    view = tt_view(tt_games(5)[-1], 0)
    lines = tt_spoken.speak(view, names)
    cell = next(c for c in view["board"] if c is not None)
    owner = "yours" if cell["controller"] == 0 else "Ben's"
    want = (f"Niche {cell['niche']}, {'up' if cell['up'] else 'down'}: {owner}"
            f"{'' if cell['owner'] == cell['controller'] else ', '}")
    assert any(line.startswith(want) for line in lines)
    text = "-".join(str(c) for c in cell["corners"]) + f", primary {cell['primary']}"
    assert any(text in line for line in lines if line.startswith(f"Niche {cell['niche']},"))


def test_triptycha_first_line_says_whose_turn_and_what_to_type():
    states = tt_games(7)
    draw = next(s for s in states if s.phase == "draw")
    mover = rules_to_move(draw)
    assert tt_spoken.speak(tt_view(draw, mover), ("A", "B"))[0].startswith("Your draw:")
    play = next(s for s in states if s.phase == "play")
    lines = tt_spoken.speak(tt_view(play, play.turn), ("A", "B"))
    assert lines[0] == "Your turn: TT LAY <tile> IN <niche>."
    assert any(line.startswith("Tile 1, ") for line in lines)  # the hand, tile by tile
    other = tt_spoken.speak(tt_view(play, 1 - play.turn), ("A", "B"))
    assert other[0] == f"{'AB'[play.turn]} to lay."
    assert tt_spoken.speak(tt_view(states[-1], None), ("A", "B"))[0].startswith("Game over:")
    drawn = dict(tt_view(states[-1], 0), phase="over", result={"winner": None, "reason": "5-5"})
    assert tt_spoken.speak(drawn, ("A", "B"))[0] == "Game over: a draw (5-5)."


def test_triptycha_deck_lines_in_the_draw_and_tiles_read_as_lines():
    draw = tt_games(3)[0]
    lines = tt_spoken.speak(tt_view(draw, 0), ("A", "B"))
    assert any(line.startswith("Deck 1: ") for line in lines)
    rng = random.Random(1)
    tiles = random_deck(rng, 3, 1)
    out = tt_spoken.speak_tiles(tiles)
    assert_spoken(out)
    assert out[0].startswith(f"Tile #{tiles[0].id}: ") and str(tiles[0].sum) in out[0]


# -- Triad Dice -----------------------------------------------------------------------------
def test_dice_reads_the_board_by_rows_from_6_to_1_and_each_die_with_its_owner():
    rng = random.Random(2)
    s = dice_rules.new_game({"starter": 0}, rng)
    first = dice_spoken.speak(dice_render.view_for(s, 0), ("Ann", "Ben"))
    assert first[0].startswith("Your move: DICE MOVE")
    rows = [line for line in first if line.startswith("Row ")]
    assert [line.split()[1] for line in rows] == ["6:", "5:", "4:", "3:", "2:", "1:"]
    assert rows[-1] == "Row 1: a1 yours 1, b1 yours 2, c1 yours 3, d1 yours 1, e1 yours 2, " \
                       "f1 yours 3." or rows[-1].count("yours") == 6
    assert rows[0].count("Ben") == 6 and rows[2] == "Row 4: empty."
    while s.result is None:
        view = dice_render.view_for(s, s.turn)
        assert_spoken(dice_spoken.speak(view, ("Ann", "Ben")))
        s, _ = dice_rules.apply(s, s.turn, rng.choice(list(dice_rules.legal_actions(s, s.turn))),
                                rng)
    end = dice_spoken.speak(dice_render.view_for(s, None), ("Ann", "Ben"))
    assert_spoken(end)
    assert end[0] == "Game over." and end[1].startswith("Removed: Ann ")


# -- Triad ------------------------------------------------------------------------------------
def test_triad_reads_your_cards_first_then_the_table_seat_by_seat():
    rng = random.Random(4)
    state = triad_rules.new_game({"opening": 2, "limit": 10, "stacks": [40, 40, None, 25]}, rng)
    state, _ = triad_rules.apply(state, 0, triad_rules.Action("DEAL"), rng)
    names = ["Ann", "Ben", None, "Cy"]
    seen_turn = False
    while state.phase != "hand_over":
        for seat in (0, 1, 3, None):
            lines = triad_spoken.speak(triad_render.view_for(state, seat), names)
            assert_spoken(lines)
            assert any(line.startswith("Seat 3: empty") for line in lines)
            if seat is not None:
                cards = next(line for line in lines if line.startswith("Your cards: "))
                assert cards.startswith("Your cards: 1 ")
                assert lines.index(cards) < lines.index(next(
                    line for line in lines if line.startswith("Seat 1")))
            if seat == state.to_act:
                seen_turn = True
                assert lines[0].startswith("Your turn to ")
        state, _ = triad_rules.apply(state, state.to_act,
                                     triad_rules.timeout_action(state, state.to_act), rng)
    assert seen_turn
    end = triad_spoken.speak(triad_render.view_for(state, None), names)
    assert_spoken(end)
    assert any(line.startswith("Last hand: ") for line in end)
    assert not any("##" in line for line in end)


# -- Pyramid ----------------------------------------------------------------------------------
def test_pyramid_reads_available_cards_first_then_pack_waste_and_rows():
    rng = random.Random(9)
    table = pyr.new_table({}, (False,), False, rng)
    lines = pyr_spoken.speak(pyr.view_for(table, 0), ("Ann",))
    assert_spoken(lines)
    assert lines[0] == "Pyramid."
    assert lines[1].startswith("Available: 7,1 ") and lines[1].count(",") >= 7
    assert lines[2].startswith("Pack P: ") and "24 left" in lines[2]
    assert lines[3] == "Waste W: empty."
    rows = [line for line in lines if line.startswith("Row ")]
    assert len(rows) == 7 and rows[0].endswith("covered.") and "covered" not in rows[6]
    moves = 0
    while pyr.outcome(table) is None and moves < 200:
        acts = [a for a in pyr.legal_actions(table, 0) if not isinstance(a, pyr.Close)]
        if not acts:
            break
        table, _ = pyr.apply(table, 0, rng.choice(acts), rng)
        assert_spoken(pyr_spoken.speak(pyr.view_for(table, 0), ("Ann",)))
        moves += 1
    view = pyr.view_for(table, 0)
    if view["over"]:
        assert pyr_spoken.speak(view, ("Ann",))[1].startswith("Game over")


def test_pyramid_tournament_names_the_board_and_reads_the_other_players():
    table = pyr.new_table({"mode": "tournament"}, (False, True), False, random.Random(1))
    lines = pyr_spoken.speak(pyr.view_for(table, 0), ("Ann", "Computer"))
    assert_spoken(lines)
    assert lines[0] == "Ann's Pyramid, tournament game 1 of 6."
    assert lines[-1].startswith("Computer: game 1 of 6, 28 cards left") or \
        any(line.startswith("Computer: game 1 of 6") for line in lines)
