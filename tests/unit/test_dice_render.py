"""Triad Dice drawing and the GMCP view."""

import json
import random

import pytest

from games.dice import render, rules
from games.dice.notation import parse_action, parse_board


def game_after(plies, seed=1):
    rng = random.Random(seed)
    s = rules.new_game({"starter": 0}, rng)
    for _ in range(plies):
        if s.result is not None:
            break
        s, _ = rules.apply(s, s.turn, rng.choice(list(rules.legal_actions(s, s.turn))), rng)
    return s


def test_start_position_drawn_row_6_on_top_with_coordinates():
    s = rules.new_game({"starter": 1}, random.Random(2))
    text = render.render(render.view_for(s, 0), color=False, names=("Ann", "Ben"))
    lines = text.splitlines()
    assert lines[1].split() == list("abcdef") == lines[8].split()
    assert lines[2].split()[0] == "6" and lines[7].split()[0] == "1"
    assert lines[7].count("(") == 6 and lines[2].count("[") == 6
    assert "Ann (you), row 1: 0/3 removed" in text
    assert text.endswith("Ben to move.")


def test_the_same_board_for_both_players_and_watchers():
    s = game_after(10)
    boards = [render.render(render.view_for(s, seat), color=False).splitlines()[:9]
              for seat in (0, 1, None)]
    assert boards[0] == boards[1] == boards[2]


def test_last_move_and_removal_marked():
    s = rules.State(cells=parse_board("""
     .   .   .   .   .   .
     .   .   .   .   .   .
     .   .   .   .   .   .
     .   .  [2] [2]  .   .
     .   .   .   .   .   .
     .  (3)  .   .   .   .
    """), turn=0, starter=0)
    s, _ = rules.apply(s, 0, parse_action("MOVE b1 2 N"), random.Random(0))
    view = render.view_for(s, None)
    assert view["last_move"] == {"from": "b1", "to": "b3", "removed": "b3"}
    text = render.render(view, color=False)
    row3 = next(l for l in text.splitlines() if l.startswith("  3"))
    row1 = next(l for l in text.splitlines() if l.startswith("  1"))
    assert "x" in row3 and "+" in row1
    assert "removed b3" in text and "Alice, row 1: 1/3 removed" in text


def test_pending_removal_is_shown():
    rng = random.Random(1)
    s = rules.new_game({}, rng)
    while not s.pending:
        s, _ = rules.apply(s, s.turn, rng.choice(list(rules.legal_actions(s, s.turn))), rng)
        if s.result is not None:
            s = rules.new_game({}, rng)
    view = render.view_for(s, s.turn)
    assert view["legal"] == [f"REMOVE {c}" for c in view["pending"]]
    assert "removes one of" in render.render(view, color=False)


@pytest.mark.parametrize("plies", [0, 5, 29, 300])
@pytest.mark.parametrize("width", [60, 80])
def test_width_color_and_json(plies, width):
    s = game_after(plies)
    view = render.view_for(s, 0)
    assert json.loads(json.dumps(view)) == view
    plain = render.render(view, width=width, color=False, names=("A" * 40, "B" * 40))
    colored = render.render(view, width=width, color=True, names=("A" * 40, "B" * 40))
    assert "\x1b[" not in plain and "\x1b[" in colored
    assert render._ANSI.sub("", colored) == plain
    assert all(len(line) <= width for line in plain.splitlines())
    if s.result is not None:
        assert "Game over" in plain
