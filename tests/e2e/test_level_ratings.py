"""The computer's levels are rated against each other (bench/level_ratings.py), and a
player sees how strong each is where the rankings are: RANKINGS and /rankings/<game>."""

from __future__ import annotations


async def test_rankings_show_the_computer_levels_ratings(parlor, clients):
    alice = await clients("Alice")
    out = await alice.cmd("rankings dice", r"rated against each other: [^\n]*\.")
    assert "EASY 915, NORMAL 1548, HARD 2009" in out
    out = await alice.cmd("rankings pyr", r"rated against each other: [^\n]*\.")
    assert "HARD 1704" in out
    out = await alice.cmd("rankings triptycha", r"rated against each other: [^\n]*\.")
    assert "HARD 1715, EXPERT 1869" in out
    out = await alice.cmd("rankings ttt", r"\n> ")  # a game without rated levels says nothing
    assert "rated against each other" not in out
