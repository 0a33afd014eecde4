"""Triad table view: hidden cards stay hidden, lines fit, color is optional."""

from __future__ import annotations

import json
import random
import re

from games.triad import render, rules

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def dealt(seed=4):
    rng = random.Random(seed)
    state = rules.new_game({"opening": 2, "limit": 10, "stacks": [40, 40, None, 25]}, rng)
    state, _ = rules.apply(state, 0, rules.Action("DEAL"), rng)
    return state, rng


def test_view_hides_other_hands_until_showdown():
    state, rng = dealt()
    view = render.view_for(state, 1)
    json.dumps(view)
    mine = view["seats"][1]
    assert mine["cards"] == list(state.seats[1].cards) and mine["hand_name"]
    for i in (0, 3):
        assert view["seats"][i]["cards"] == [] and view["seats"][i]["hidden_cards"] == 6
    spectator = render.view_for(state, None)
    assert all(not s.get("cards") for s in spectator["seats"])
    text = json.dumps(spectator)
    for code in state.seats[0].cards:
        assert f'"{code}"' not in text
    assert '"stock": ' in text and str(state.stock[0]) not in json.dumps(spectator["seats"])


def test_showdown_shows_and_names_hands():
    state, rng = dealt()
    while state.phase != "hand_over":
        state, _ = rules.apply(state, state.to_act, rules.timeout_action(state, state.to_act), rng)
    view = render.view_for(state, None)
    shown = [s for s in view["seats"] if not s["empty"] and s["cards"]]
    assert len(shown) == 3 and all(s["hand_name"] for s in shown)
    text = render.render(view, color=False)
    assert "shows" in text and "won" in text


def test_render_fits_width_and_reads_without_color():
    state, rng = dealt()
    state, _ = rules.apply(state, 1, rules.Action("RAISE", 4), rng)
    names = ("Alice", "Bob with a very long name indeed", "", "Dora")
    for width in (60, 80):
        for seat in (None, 0, 1, 3):
            view = render.view_for(state, seat)
            plain = render.render(view, width=width, color=False, names=names)
            colored = render.render(view, width=width, color=True, names=names)
            assert "\x1b" not in plain
            assert ANSI.sub("", colored) == plain
            assert all(len(line) <= width for line in plain.split("\n"))
    plain = render.render(render.view_for(state, 3), color=False, names=names)
    assert "Your hand:" in plain and "Your turn: TRIAD FOLD, TRIAD EQUAL (4), TRIAD RAISE 4..10." in plain
    for code in state.seats[3].cards:
        assert code in plain
    colored = render.render(render.view_for(state, 3), color=True, names=names)
    assert "\x1b[" in colored


def test_equal_says_when_it_puts_you_all_in():
    """"EQUAL (10)" for a player with 10 cubits left reads "EQUAL (10, all in)"."""
    rng = random.Random(4)
    state = rules.new_game({"opening": 2, "limit": 30, "stacks": [12, 60]}, rng)
    state, _ = rules.apply(state, 0, rules.Action("DEAL"), rng)
    first = state.to_act
    _, most = rules.raise_bounds(state, first)
    state, _ = rules.apply(state, first, rules.Action("RAISE", amount=most), rng)
    other = state.to_act
    view = render.view_for(state, other)
    stack = state.seats[other].stack
    assert view["all_in"] and view["to_equal"] == stack
    assert f"EQUAL ({stack}, all in)" in ANSI.sub("", render.render(view, 80, False))
    view = render.view_for(dealt()[0], dealt()[0].to_act)
    if view.get("to_equal"):
        assert not view["all_in"]
