"""The computer's levels are rated against each other (bench/level_ratings.py), and a
player sees how strong each is where the rankings are: RANKINGS and /rankings/<game>."""

from __future__ import annotations


async def test_rankings_show_the_computer_levels_ratings(parlor, clients):
    alice = await clients("Alice")
    for key in ("dice", "pyr", "tt"):   # as the bench measured them (Triad is never ranked)
        kind = parlor.host.kinds[key]
        out = await alice.cmd(f"rankings {kind.prefix}", r"rated against each other: [^\n]*\.")
        assert kind.level_ratings   # every game's levels are rated
        assert ", ".join(f"{level.upper()} {rating}" for level, rating in
                         kind.level_ratings) in " ".join(out.split())   # however wrapped
    out = await alice.cmd("rankings ttt", r"\n> ")  # a game without rated levels says nothing
    assert "rated against each other" not in out
