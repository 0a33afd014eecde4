"""The last move each game's view carries (for the browser's board and the replays): kept
in the state and its JSON, not part of the position (equality), and the terminal screens
do not change."""

from __future__ import annotations

import random

import attrs

from games.pyramid import notation as pyr_notation, render as pyr_render, rules as pyr
from games.triad import notation as triad_notation, render as triad_render, rules as triad
from games.triptycha import notation as tt_notation, render as tt_render
from tests.unit.test_pyramid_rules import make, state_of
from tests.unit.test_triptycha_rules import VARIANTS, lay, position, uniform


def test_triptycha_the_niche_laid_and_the_niches_it_took():
    tiles = [uniform(10 + k, sc) for k, sc in enumerate((20, 17, 14, 10, 2))]
    s = position({n: (1, 1, t) for n, t in zip((6, 7, 8, 9), tiles[1:])}, VARIANTS["normal"],
                 mover_hand=(tiles[0],))
    assert tt_render.view_for(s, 0)["last_move"] is None
    new, _ = lay(s, 0, tiles[0].id, 5)
    assert tt_render.view_for(new, 0)["last_move"] == {"niche": 5, "seat": 0, "flipped": [6, 7]}
    back = tt_notation.state_from_json(tt_notation.state_to_json(new))
    assert (back.last_niche, back.last_flipped) == (5, (6, 7))
    # not part of the position: the same board reached otherwise is the same state
    assert new == attrs.evolve(new, last_niche=None, last_flipped=())
    text = tt_render.render(tt_render.view_for(new, 0), width=80, color=False)
    assert text == tt_render.render({**tt_render.view_for(new, 0), "last_move": None},
                                    width=80, color=False)


def test_pyramid_the_cards_removed_or_turned_in_this_game():
    g = make({"7,1": "6H", "7,2": "KS", "7,3": "2C"}, pack=("7S", "9D", "4C"))
    s = state_of(g)
    assert pyr_render.view_for(s)["last_move"] is None
    s, _ = pyr.apply(s, 0, pyr.Action("remove", ("7,1", "P")))
    assert pyr_render.view_for(s)["last_move"] == {
        "kind": "remove", "game_no": 1, "spots": ["7,1", "P"], "cards": ["6H", "7S"]}
    s, _ = pyr.apply(s, 0, pyr.Action("deal"))
    assert pyr_render.view_for(s)["last_move"] == {
        "kind": "deal", "game_no": 1, "spots": [], "cards": ["9D"]}
    s, _ = pyr.apply(s, 0, pyr.Action("remove", ("7,2",)))
    assert pyr_render.view_for(s)["last_move"]["cards"] == ["KS"]
    back = pyr_notation.state_from_json(pyr_notation.state_to_json(s))
    assert back.last == s.last and back == s
    assert pyr_notation.state_from_json({**pyr_notation.state_to_json(s), "last": None}) == s


def test_triad_who_did_what():
    rng = random.Random(1)
    state = triad.new_game({"opening": 2, "limit": None, "stacks": [100, 100]}, rng)
    assert triad_render.view_for(state, 0)["last_move"] is None
    state, _ = triad.apply(state, 0, triad.Action("DEAL"), rng)
    assert triad_render.view_for(state, 0)["last_move"]["kind"] == "DEAL"
    actor = state.to_act
    state, _ = triad.apply(state, actor, triad.Action("RAISE", 5), rng)
    assert triad_render.view_for(state, None)["last_move"] == {
        "seat": actor, "kind": "RAISE", "amount": 5, "all_in": False}
    other = state.to_act
    state, _ = triad.apply(state, other, triad.Action("EQUAL"), rng)
    assert triad_render.view_for(state, None)["last_move"]["kind"] == "EQUAL"
    first = state.to_act
    state, _ = triad.apply(state, first, triad.Action("DRAW", discard=("1", "2")), rng)
    assert triad_render.view_for(state, None)["last_move"] == {
        "seat": first, "kind": "DRAW", "amount": 2, "all_in": False}
    back = triad_notation.state_from_json(triad_notation.state_to_json(state))
    assert back.last == state.last and back == state
