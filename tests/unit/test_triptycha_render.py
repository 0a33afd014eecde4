"""Triptycha views and pictures."""

import json
import random

from games.triptycha.render import _visible_len, render, render_opponent, view_for
from games.triptycha.rules import (Lay, Options, Rules, apply, legal_actions, new_game,
                                   result)
from games.triptycha.tiles import random_deck


def game(rules=Rules(random=True), seed=3, lays=4):
    rng = random.Random(seed)
    s = new_game(Options((random_deck(rng, 8, 1), random_deck(rng, 8, 101)), rules), rng)
    while s.phase == "play" and s.laid < lays:
        acts = list(legal_actions(s, s.turn))
        pick = [a for a in acts if isinstance(a, Lay)] or [
            a for a in acts if type(a).__name__ == "Flip"]
        s, _ = apply(s, s.turn, rng.choice(pick), rng)
    return s


def test_view_hides_the_opponent_hand_without_truth():
    s = game()
    v = view_for(s, 0)
    assert v["hands"][0] is not None and v["hands"][1] is None
    assert view_for(s, None)["hands"] == [None, None]
    json.dumps(v)


def test_truth_shows_both_hands():
    s = game(Rules(random=True, truth=True))
    v = view_for(s, 0)
    assert v["hands"][1] is not None and v["may_view_opponent"]
    assert "Bob's hand" in render_opponent(v, color=False)
    assert view_for(s, None)["hands"][0] is not None


def test_winner_sees_loser_hand_while_trading():
    s = game(Rules(random=True, take=2), lays=9)
    w = result(s).winner
    assert s.phase == "trading"
    assert view_for(s, w)["hands"][1 - w] is not None
    assert view_for(s, 1 - w)["hands"][w] is None
    text = render(view_for(s, w), color=False, names=("Alice", "Bob"))
    assert "TT TAKE" in text and "Takeable" in text


def test_render_header_board_and_hand():
    s = game()
    text = render(view_for(s, 0), color=False, names=("Alice", "Bob"), game_no=7)
    lines = text.split("\n")
    assert lines[0].startswith("Game #7: Alice (A) vs Bob (B)")
    assert "Bob to lay" in lines[0] or "Alice to lay" in lines[0]
    assert lines[1] == "Rules: Random"
    for n in range(1, 10):
        assert f"-{n}-" in text  # niche numbers sit in the tile edges
    assert "<1>" in text and "Sum: " in text
    assert all(len(line) <= 80 for line in lines)
    assert "\x1b" not in text


def test_color_marks_controllers_and_stays_in_width():
    s = game(lays=6)
    text = render(view_for(s, 1), color=True, width=60)
    assert "\x1b[0;1;36m" in text or "\x1b[0;1;31m" in text
    assert all(_visible_len(line) <= 60 for line in text.split("\n"))


def test_same_initials_fall_back_to_numbers():
    s = game()
    text = render(view_for(s, 0), color=False, names=("Bea", "Bob"))
    assert "Bea (1) vs Bob (2)" in text


def test_draw_phase_shows_the_deck():
    s = game(Rules())
    text = render(view_for(s, 0), color=False)
    assert "Your deck (TT DRAW <tile>)" in text and "Drawing:" in text


def test_a_short_screen_gets_the_compact_drawing_with_the_hand_a_tile_a_line():
    s = game(lays=3)
    view = view_for(s, 0)
    full = render(view, width=80, color=False, names=("Alice", "Computer(normal)"))
    compact = render(view, width=80, color=False, names=("Alice", "Computer(normal)"),
                     height=23)
    assert len(full.split("\n")) > 23 >= len(compact.split("\n"))
    assert all(len(line) <= 80 for line in compact.split("\n"))
    hand = [t for t in view["hands"][0] if t["niche"] is None]
    for t in hand:  # each tile on a line: number, corners as they sit, primary, sum
        c = t["corners"]
        assert f"<{t['n']}> {'▲' if t['up'] else '▼'} {c[0]}/{c[1]}/{c[2]} " \
               f"·{t['tile']['primary']} ={t['sum']}" in compact
    assert "Sum:" not in compact  # no tile pictures
    # a tall screen keeps the pictures
    assert render(view, width=80, color=False, names=("Alice", "Computer(normal)"),
                  height=60) == full


def test_names_are_shortened_by_whole_words_never_cut():
    from games.triptycha.tiles import name_forms, short_name
    name = "a painted tile of the Ferryman"
    assert name_forms(name) == [name, "painted tile of the Ferryman", "painted (Ferryman)",
                                "painted"]
    assert short_name(name, 40) == name
    assert short_name(name, 20) == "painted (Ferryman)"
    assert short_name(name, 12) == "painted"
    assert short_name(name, 3) == "painted"  # the shortest form, whole
    assert short_name("Odd", 1) == "Odd"
