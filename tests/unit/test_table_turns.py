"""At the table, round four (issue 39, item 10): the Triad table's turn line names a raise
the way it is typed when only one amount is allowed ("TRIAD RAISE 10", not "10..10")."""

from __future__ import annotations

import random

from games.triad import render, rules


def to_act(limit: int | None) -> dict:
    """The view of the first player to act in a hand of opening bet 10."""
    rng = random.Random(4)
    state = rules.new_game({"opening": 10, "limit": limit, "stacks": [200, 200, None]}, rng)
    state, _ = rules.apply(state, 0, rules.Action("DEAL"), rng)
    return render.view_for(state, state.to_act)


def test_a_raise_of_one_allowed_amount_is_written_as_typed():
    view = to_act(limit=10)
    assert view["raise_range"] == [10, 10]
    text = render.render(view, width=80, color=False, names=["Alice", "Bob", ""])
    assert "Your turn: TRIAD PASS, TRIAD RAISE 10." in text, text
    assert "10..10" not in text


def test_a_raise_of_a_range_keeps_its_range():
    view = to_act(limit=None)
    low, high = view["raise_range"]
    assert low < high
    text = render.render(view, width=80, color=False, names=["Alice", "Bob", ""])
    assert f"TRIAD RAISE {low}..{high}." in text, text
