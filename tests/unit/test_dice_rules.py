"""Triad Dice rules, table by table from docs/rules/dice.md (boards drawn row 6 first:
``(n)`` a die of seat 0, ``[n]`` a die of seat 1, as the renderer draws them)."""

import random

import attrs
import pytest

from games.errors import IllegalAction
from games.dice import rules
from games.dice.notation import format_action, parse_action, parse_board
from games.dice.rules import Move, Remove, Resign, apply, legal_actions, new_game

EMPTY = "\n".join([" .  .  .  .  .  ."] * 6)


def make(picture: str, turn: int = 0, removed=(0, 0), **kw) -> rules.State:
    cells = parse_board(picture)
    return rules.State(cells=cells, turn=turn, starter=0, removed=removed,
                       history=(rules.position_key(cells, turn),), **kw)


def play(state, text, seat=None):
    seat = state.turn if seat is None else seat
    return apply(state, seat, parse_action(text), random.Random(0))


def names(cells):
    return [rules.cell_name(c) for c in cells]


# --------------------------------------------------------------------------- setup

@pytest.mark.parametrize("seed", range(20))
def test_setup_home_rows_sorted_from_each_players_left(seed):
    s = new_game({}, random.Random(seed))
    row1 = [rules.die_value(c) for c in s.cells[0:6]]
    row6 = [rules.die_value(c) for c in s.cells[30:36]]
    assert all(rules.die_owner(c) == 0 for c in s.cells[0:6])
    assert all(rules.die_owner(c) == 1 for c in s.cells[30:36])
    assert row1 == sorted(row1)                      # a1..f1 ascending
    assert row6 == sorted(row6, reverse=True)        # seat 1 faces us: f6..a6 ascending
    assert not any(s.cells[6:30])
    assert s.turn == s.starter in (0, 1)
    assert s.history == (rules.position_key(s.cells, s.turn),)


def test_starter_is_random_unless_fixed():
    starters = {new_game({}, random.Random(seed)).turn for seed in range(30)}
    assert starters == {0, 1}
    for seat in (0, 1):
        assert all(new_game({"starter": seat}, random.Random(k)).turn == seat for k in range(10))


# --------------------------------------------------------------------------- moves

def test_move_changes_value_and_goes_exact_distance():
    s = make("""
    .  .  .  .  .  .
    .  .  .  .  .  .
    .  .  .  .  .  .
    .  .  .  .  .  .
    .  .  .  .  .  .
    . (1)  .  .  .  .
    """)
    acts = set(legal_actions(s, 0))
    # b1 showing 1: new values 2 and 3, in N NE E NW W (W only 1 cell -> none)
    # b1 shows 1: new values 2 and 3 toward N, NE, E; W and NW have one cell only
    expected = {(v, d) for v in (2, 3) for d in ("N", "NE", "E")}
    assert {(a.value, a.direction) for a in acts} == expected
    s2, events = play(s, "MOVE b1 3 NE")
    assert s2.die_at(parse_board_cell("e4")) == (0, 3)
    assert s2.cells[1] == 0
    assert s2.turn == 1 and s2.turns == 1 and s2.quiet_turns == 1
    assert (s2.last_from, s2.last_to) == (1, parse_board_cell("e4"))
    assert str(events[0]) == "die moved from b1 to e4 showing 3"


def parse_board_cell(name):
    from games.dice.notation import parse_cell
    return parse_cell(name)


BLOCKING = """
 .   .   .   .   .   .
 .   .   .   .   .   .
 .   .   .   .   .   .
 .   .   .  [1]  .   .
 .   .   .  [2]  .   .
 .   .  (1) [3]  .   .
"""


@pytest.mark.parametrize("text, message", [
    ("MOVE c1 3 NE", "the path from c1 to f4 is blocked at d2"),
    ("MOVE c1 2 E", "the path from c1 to e1 is blocked at d1"),
    ("MOVE c1 2 SE", "2 cells SE from c1 is off the board"),
    ("MOVE c1 3 W", "3 cells W from c1 is off the board"),
    ("MOVE c1 1 E", "a die must change its value"),
    ("MOVE d1 2 N", "d1 is not your die"),
    ("MOVE e1 2 N", "there is no die on e1"),
    ("MOVE d2 1 N", "d2 is not your die"),
])
def test_illegal_moves_are_explained(text, message):
    s = make(BLOCKING)
    with pytest.raises(IllegalAction) as err:
        play(s, text)
    assert message in str(err.value)


def test_off_board_message_names_the_cell():
    s = make("""
    .  .  .  .  .  .
    .  .  .  . (2)  .
    .  .  .  .  .  .
    .  .  .  .  .  .
    .  .  .  .  .  .
    .  .  .  .  . [1]
    """)
    with pytest.raises(IllegalAction, match="e8 is off the board"):
        play(s, "MOVE e5 3 N")
    with pytest.raises(IllegalAction, match="h5 is off the board"):
        play(s, "MOVE e5 3 E")
    with pytest.raises(IllegalAction, match="it is not your turn"):
        play(s, "MOVE f1 2 N", seat=1)


def test_landing_on_a_die_is_refused():
    s = make(BLOCKING.replace("(1)", "(2)"))
    with pytest.raises(IllegalAction, match="d1 is occupied"):
        play(s, "MOVE c1 1 E")


def test_a_die_that_cannot_move_at_any_new_value_cannot_be_chosen():
    s = make("""
    .   .   .   .   .   .
    .   .   .   .   .   .
    .   .   .   .   .   .
    .   .   .   .   .  (2)
   [1] [2]  .   .   .   .
   (1) [3]  .   .   .   .
    """)
    # a1 shows 1: N, NE, E blocked at once; every other direction leaves the board
    assert all(a.cell != 0 for a in legal_actions(s, 0))
    assert any(True for a in legal_actions(s, 0))  # f3 can move, so no stalemate
    with pytest.raises(IllegalAction, match="a1 cannot move at any new value"):
        play(s, "MOVE a1 2 N")
    with pytest.raises(IllegalAction, match="you can still move a die"):
        play(s, "MOVE a1 2")


# --------------------------------------------------------------------------- stalemate

STALEMATE = """
 .   .   .   .   .   .
 .   .   .   .   .   .
[3]  .   .   .   .   .
 .   .  [1] [1] [1] [3]
[3]  .  (1) (2) (1) (1)
"""


def stalemate_state():
    return make(" .   .   .   .   .   .\n" + STALEMATE, removed=(2, 0))


def test_stalemate_offers_change_in_place_or_move_by_current_value():
    s = stalemate_state()
    assert not rules.has_ordinary_move(s.cells, 0)
    acts = {format_action(a) for a in legal_actions(s, 0)}
    changes = {f"MOVE {c} {v}" for c, old in (("c1", 1), ("d1", 2), ("e1", 1), ("f1", 1))
               for v in (1, 2, 3) if v != old}
    assert acts == changes | {"MOVE c1 W", "MOVE c1 NW"}
    s2, events = play(s, "MOVE d1 3")
    assert s2.die_at(3) == (0, 3) and s2.turn == 1
    assert str(events[0]) == "die at d1 turned from 2 to 3"
    s3, _ = play(s, "MOVE c1 W")
    assert s3.die_at(parse_board_cell("b1")) == (0, 1) and not s3.cells[2]
    s4, events = play(s, "MOVE c1 NW")  # b2 (1) with c2 [1], d2 [1]: a Triad
    assert str(events[1]) == "Triad formed: b2-c2-d2" and s4.result.winner == 0


def test_stalemate_actions_are_still_checked():
    s = stalemate_state()
    with pytest.raises(IllegalAction, match="a die must change its value"):
        play(s, "MOVE d1 2")
    with pytest.raises(IllegalAction, match="blocked at d2"):
        play(s, "MOVE d1 N")  # d1 shows 2
    with pytest.raises(IllegalAction, match="d1 is occupied"):
        play(s, "MOVE c1 E")
    with pytest.raises(IllegalAction, match="a die must change its value"):
        play(s, "MOVE c1 1 W")  # the ordinary form still needs a new value


def test_a_change_in_place_can_form_a_triad():
    s = make(" .   .   .   .   .   .\n" + STALEMATE.replace(
        "[3]  .   .   .   .   .", "[3]  .  [2]  .   .   ."), removed=(2, 0))
    assert not rules.has_ordinary_move(s.cells, 0) and not rules.all_triads(s.cells)
    s2, events = play(s, "MOVE e1 3")  # e1 3, d2 [1], c3 [2]: all different
    assert [str(e) for e in events] == [
        "die at e1 turned from 1 to 3", "Triad formed: e1-d2-c3", "die removed at e1",
        "seat 0 wins (three dice removed)"]
    assert s2.removed == (3, 0)
    assert s2.result == rules.Outcome(0, "three dice removed", (3, 0))


# --------------------------------------------------------------------------- triads

# (board, move, triads formed, cells the mover may remove -- one means automatic)
TRIAD_TABLE = [
    pytest.param("""
     .   .   .   .   .   .
     .   .   .   .   .   .
     .   .   .   .   .   .
     .  [2] (3)  .   .   .
    (2)  .   .   .   .   .
     .   .   .   .   .   .
    """, "MOVE a2 1 N", ["a3-b3-c3"], ["a3", "c3"], id="row-all-different"),
    pytest.param("""
     .   .   .   .   .   .
     .   .  [2]  .   .   .
     .   .  [2]  .   .   .
     .   .   .   .   .   .
     .   .   .   .   .   .
     .   .  (3)  .   .   .
    """, "MOVE c1 2 N", ["c3-c4-c5"], ["c3"], id="column-all-equal"),
    pytest.param("""
     .   .   .   .   .   .
     .   .   .   .   .   .
     .  (3)  .  [3]  .   .
     .   .  [1]  .   .   .
     .   .   .   .   .   .
     .   .   .   .   .   .
    """, "MOVE b4 2 S", ["b2-c3-d4"], ["b2"], id="diagonal-all-different"),
    pytest.param("""
     .   .   .   .   .   .
     .   .   .   .   .   .
     .   .   .   .   .   .
     .   .   .   .   .   .
     .   .   .   .  [1]  .
     .   .   .  (1)  .  [3]
    """, "MOVE d1 2 N", ["f1-e2-d3"], ["d3"], id="anti-diagonal-all-different"),
    pytest.param("""
     .   .   .   .   .   .
     .   .   .   .   .   .
     .   .   .   .   .   .
     .  (2) (2)  .   .   .
     .   .   .   .   .   .
     .   .   .  (3)  .   .
    """, "MOVE d1 2 N", [], [], id="three-own-dice-no-triad"),
    pytest.param("""
     .   .   .   .   .   .
     .   .   .   .   .   .
     .   .   .   .   .   .
     .  [1] (2)  .   .   .
     .   .   .   .   .   .
     .   .   .  (3)  .   .
    """, "MOVE d1 2 N", [], [], id="two-equal-values-no-triad"),
    pytest.param("""
     .   .   .  (1)  .   .
     .   .   .   .   .   .
     .   .   .   .   .   .
    (1) (1) [2]  .   .   .
     .   .   .   .   .   .
     .   .   .   .   .   .
    """, "MOVE d6 3 S", ["b3-c3-d3"], ["b3", "d3"], id="triad-inside-a-line-of-four"),
]


@pytest.mark.parametrize("picture, text, triads, removable", TRIAD_TABLE)
def test_triads_formed_by_the_move(picture, text, triads, removable):
    s = attrs.evolve(make(picture), quiet_turns=57)
    assert not rules.all_triads(s.cells)
    s2, events = play(s, text)
    formed = [e for e in events if isinstance(e, rules.TriadsFormed)]
    got = ["-".join(names(t)) for t in formed[0].triads] if formed else []
    assert got == triads
    if len(removable) == 1:
        assert s2.removed == (1, 0) and s2.turn == 1 and not s2.pending
        assert isinstance(events[-1], rules.DieRemoved) and not events[-1].chosen
        assert names([events[-1].cell]) == removable
        assert s2.quiet_turns == 0 and len(s2.history) == 1
    elif removable:
        assert names(s2.pending) == removable and s2.turn == 0 and s2.removed == (0, 0)
        assert set(legal_actions(s2, 0)) == {Remove(c) for c in s2.pending}
    else:
        assert s2.removed == (0, 0) and s2.turn == 1 and s2.quiet_turns == 58


def test_two_triads_at_once_allow_one_removal_of_the_movers_choice():
    s = make("""
     .   .   .   .   .   .
     .   .  (2)  .   .   .
     .   .  [2]  .   .   .
     .  (2)  .  [2]  .   .
     .   .   .   .   .   .
     .   .  (3)  .   .   .
    """)
    assert not rules.all_triads(s.cells)
    s2, events = play(s, "MOVE c1 2 N")  # c3 shows 2: row b3-c3-d3 and column c3-c4-c5
    formed = next(e for e in events if isinstance(e, rules.TriadsFormed))
    assert ["-".join(names(t)) for t in formed.triads] == ["b3-c3-d3", "c3-c4-c5"]
    assert names(s2.pending) == ["b3", "c3", "c5"]
    assert str(events[-1]) == "a die to remove must be chosen: b3, c3, c5"
    with pytest.raises(IllegalAction, match="first remove one of your dice"):
        play(s2, "MOVE b3 1 N")
    with pytest.raises(IllegalAction, match="d4 is not one of the dice you may remove"):
        play(s2, "REMOVE d4")
    with pytest.raises(IllegalAction, match="it is not your turn"):
        play(s2, "REMOVE b3", seat=1)
    s3, events = play(s2, "REMOVE b3")
    assert [str(e) for e in events] == ["die removed at b3"]
    assert s3.removed == (1, 0) and s3.turn == 1 and not s3.pending and s3.turns == 1
    assert s3.last_removed == parse_board_cell("b3")
    with pytest.raises(IllegalAction, match="there is no die to remove now"):
        play(s3, "REMOVE d3")


def test_a_triad_that_stood_before_the_move_does_not_count():
    s = make("""
     .   .   .   .   .   .
     .   .   .   .   .   .
     .   .   .   .   .   .
    (1) [2] (3)  .   .   .
     .   .   .   .   .   .
     .   .   .  (3)  .   .
    """)
    assert names(rules.all_triads(s.cells)[0]) == ["a3", "b3", "c3"]
    # d1 -> d3 extends the line to four; b3-c3-d3 (2,3,2) is no Triad
    s2, events = play(s, "MOVE d1 2 N")
    assert not any(isinstance(e, rules.TriadsFormed) for e in events)
    assert s2.removed == (0, 0) and s2.turn == 1
    # nor does a move elsewhere
    s3, events = play(s, "MOVE d1 1 E")
    assert s3.removed == (0, 0) and len(events) == 1


def test_third_removal_wins():
    s = make("""
     .   .   .   .   .   .
     .   .   .   .   .   .
     .   .   .   .   .   .
     .   .  [2] [2]  .   .
     .   .   .   .   .   .
     .  (3)  .   .   .   .
    """, removed=(2, 2))
    s2, events = play(s, "MOVE b1 2 N")  # b3 2, c3 [2], d3 [2]
    assert s2.removed == (3, 2)
    assert s2.result.winner == 0 and s2.result.reason == "three dice removed"
    assert rules.outcome(s2) == s2.result and rules.to_move(s2) == ()
    assert str(events[-1]) == "seat 0 wins (three dice removed)"
    assert list(legal_actions(s2, 1)) == []
    with pytest.raises(IllegalAction, match="the game is over"):
        play(s2, "MOVE c3 1 N", seat=1)


# --------------------------------------------------------------------------- endings

def test_resign_by_either_seat_at_any_time():
    s = new_game({"starter": 0}, random.Random(3))
    for seat in (0, 1):
        s2, events = apply(s, seat, Resign(), random.Random(0))
        assert s2.result == rules.Outcome(1 - seat, "resignation", (0, 0))
        assert rules.to_move(s2) == ()
    with pytest.raises(IllegalAction, match="the game is over"):
        apply(s2, 0, Resign(), random.Random(0))


CYCLE = """
 .   .   .  [1] [1] [1]
[3]  .   .   .   .   .
 .   .   .   .   .   .
(3)  .   .   .   .   .
 .   .   .   .   .   .
 .   .   .  (1) (1) (1)
"""


def test_threefold_repetition_is_a_draw():
    s = make(CYCLE, removed=(2, 2))
    cycle = ["MOVE a3 1 E", "MOVE a5 1 E", "MOVE b3 2 E", "MOVE b5 2 E",
             "MOVE d3 3 W", "MOVE d5 3 W"]
    for lap in range(2):
        for i, text in enumerate(cycle):
            assert s.result is None
            s, _ = play(s, text)
        assert s.cells == make(CYCLE).cells and s.turn == 0
        assert s.history.count(s.history[0]) == lap + 2
    assert s.result == rules.Outcome(None, "threefold repetition", (2, 2))
    assert s.turns == 12 and s.quiet_turns == 12


def test_two_hundred_turns_without_removal_is_a_draw():
    base = make(CYCLE, removed=(2, 2))
    s = attrs.evolve(base, quiet_turns=199)
    s2, events = play(s, "MOVE a3 1 E")
    assert s2.result == rules.Outcome(None, "200 turns without a removal", (2, 2))
    assert isinstance(events[-1], rules.GameEnded)
    s = attrs.evolve(base, quiet_turns=198)
    s2, _ = play(s, "MOVE a3 1 E")
    assert s2.result is None and s2.quiet_turns == 199
