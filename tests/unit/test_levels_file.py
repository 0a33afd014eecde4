"""The computer's levels are rated as bench/level_ratings.py measured them: its
``--write`` puts each game's ratings beside the game's spec (``levels.json``), and the
spec reads them from there (``games.spec.measured_ratings``), so no rating is typed by
hand. Every level a game plays is rated, from every pairing of its levels played, at the
budget the server gives the computer."""

from __future__ import annotations

import importlib
import itertools
import json
from pathlib import Path

import pytest

from games.spec import LEVELS_FILE

GAMES = ["dice", "pyramid", "triad", "triptycha"]


@pytest.mark.parametrize("game", GAMES)
def test_every_level_is_rated_as_the_bench_wrote(game):
    module = importlib.import_module(f"games.{game}.spec")
    spec = module.SPEC
    data = json.loads(Path(module.__file__).with_name(LEVELS_FILE).read_text("utf-8"))
    words = data["measured_by"].split()
    assert words[:3] == ["bench/level_ratings.py", "--games", game], data["measured_by"]
    assert words[words.index("--budget") + 1] == "1"       # the server's budget a move
    assert int(words[words.index("--rounds") + 1]) >= 30
    assert list(data["ratings"]) == list(spec.levels)     # every level, weakest first
    assert spec.level_ratings == tuple((level, round(r["rating"]))
                                       for level, r in data["ratings"].items())
    played = {f"{a}-{b}" for a, b in itertools.combinations(spec.levels, 2)}
    assert set(data["scores"]) == played
    assert all(s["games"] > 0 and 0 <= s["points"] <= s["games"]
               for s in data["scores"].values())
