"""Triptycha notation: actions, rules words, tiles' ROTATE/FLIP, the JSON codec."""

import pytest

from games.errors import BadNotation
from games.triptycha.notation import format_action, format_rules, parse_action, parse_rules
from games.triptycha.rules import Done, Draw, Flip, Lay, Resign, Rotate, Rules, Take
from games.triptycha.tiles import Held, Tile, flip_corners, rotate_corners

ACTIONS = [
    ("LAY 2 IN 5", Lay(2, 5)),
    ("lay <2> in 5", Lay(2, 5)),
    ("Lay 3 7", Lay(3, 7)),
    ("ROTATE 4", Rotate(4)),
    ("flip <1>", Flip(1)),
    ("DRAW 12", Draw(12)),
    ("take 3", Take(3)),
    ("DONE", Done()),
    ("resign", Resign()),
]


@pytest.mark.parametrize("text, action", ACTIONS)
def test_parse_and_format(text, action):
    assert parse_action(text) == action
    assert parse_action(format_action(action)) == action
    assert parse_action(text.split()) == action


@pytest.mark.parametrize("text, usage", [
    ("LAY 2", "TT LAY <tile> [IN] <niche>"),
    ("LAY two IN 5", "TT LAY <tile> [IN] <niche>"),
    ("LAY 2 ON 5", "TT LAY <tile> [IN] <niche>"),
    ("ROTATE", "TT ROTATE <tile>"),
    ("TAKE 1 2", "TT TAKE <number>"),
    ("DONE now", "TT DONE"),
    ("JUMP 3", "Unknown Triptycha action"),
    ("", "Usage"),
])
def test_bad_notation_gives_usage(text, usage):
    with pytest.raises(BadNotation, match=usage.replace("[", r"\[").replace("]", r"\]")):
        parse_action(text)


RULES = [
    ("", Rules(), "Standard"),
    ("truth", Rules(truth=True), "Truth"),
    ("Random Plunder", Rules(random=True, plunder=True), "Random Plunder"),
    ("confusion", Rules(inversion=True, undercut=True), "Confusion"),
    ("inversion", Rules(inversion=True), "Inversion"),
    ("UNDERCUT take 3 ranked", Rules(undercut=True, take=3, ranked=True),
     "Undercut Take 3 Ranked"),
    ("disc Sea Creatures truth", Rules(disc="Sea Creatures", truth=True),
     "Truth Disc Sea Creatures"),
]


@pytest.mark.parametrize("words, rules, text", RULES)
def test_rules_words(words, rules, text):
    assert parse_rules(words) == rules
    assert format_rules(rules) == text
    assert parse_rules(format_rules(rules).replace("Standard", "")) == rules


@pytest.mark.parametrize("words, message", [
    ("inversion undercut", "use Confusion"),
    ("undercut truth inversion", "use Confusion"),
    ("take", "Take needs"),
    ("take 6", "Take needs"),
    ("take 0", "Take needs"),
    ("disc", "Disc needs"),
    ("chess", "Unknown rule"),
])
def test_rules_refusals(words, message):
    with pytest.raises(BadNotation, match=message):
        parse_rules(words)


# ----------------------------------------------------------------- ROTATE and FLIP


def test_rotate_positions_from_the_rules_page():
    # up (T, BL, BR): T->BR->BL->T
    assert rotate_corners((1, 2, 3), up=True) == (2, 3, 1)
    # down (TL, TR, B): TL->TR->B->TL
    assert rotate_corners((1, 2, 3), up=False) == (3, 1, 2)


def test_flip_positions_from_the_rules_page():
    # up (T, BL, BR) -> down (TL, TR, B): T<->B, BL<->TL, BR<->TR
    assert flip_corners((1, 2, 3), up=True) == (2, 3, 1)
    assert flip_corners((2, 3, 1), up=False) == (1, 2, 3)


@pytest.mark.parametrize("up", [True, False])
def test_rotate_and_flip_cycles(up):
    h = Held(Tile(1, (1, 2, 3), 4), up=True)
    if not up:
        h = h.flipped()
    seen = [h.corners]
    r = h
    for _ in range(3):
        rotated = r.rotated()
        assert rotated.corners == rotate_corners(r.corners, r.up)
        r = rotated
        seen.append(r.corners)
    assert r == h and len(set(seen[:3])) == 3
    assert h.flipped().flipped() == h
    assert h.flipped().corners == flip_corners(h.corners, h.up)
    assert h.flipped().up != h.up
    # flip then rotate stays consistent with the positional rules
    f = h.flipped().rotated()
    assert f.corners == rotate_corners(flip_corners(h.corners, h.up), not h.up)


def test_tile_validation():
    with pytest.raises(ValueError):
        Tile(1, (1, 2, 11), 3)
    with pytest.raises(ValueError):
        Tile(1, (1, 2), 3)
    with pytest.raises(ValueError):
        Tile(1, (1, 2, 3), 3, rarity="mythic")
    assert Tile(1, [1, 2, 3], 4).sum == 10
