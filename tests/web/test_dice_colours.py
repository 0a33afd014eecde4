"""Triad Dice's seats wear the same hues on every door: the web board's dice
(its pane.css's --d0, --d1) take the hues of the terminal board's (games/dice/render.py's
COLORS: yellow for seat 0, cyan for seat 1), only darker, to be read on a light page."""

from __future__ import annotations

import colorsys
import re
from pathlib import Path

from games.dice import render

STYLE = (Path(__file__).resolve().parents[2] / "server" / "web" / "templates" / "games" / "dice"
         / "pane.css")
# the hue of each ANSI colour a terminal draws (degrees)
ANSI_HUES = {"31": 0, "32": 120, "33": 55, "34": 220, "35": 300, "36": 185}


def hue(hex_colour: str) -> float:
    r, g, b = (int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return colorsys.rgb_to_hls(r, g, b)[0] * 360


def test_the_web_dice_have_the_terminal_dices_hues():
    css = STYLE.read_text(encoding="utf-8")
    for seat in (0, 1):
        web = re.search(rf"--d{seat}: (#[0-9a-f]{{6}})", css).group(1)
        ansi = render.COLORS[seat].rsplit(";", 1)[-1].rstrip("m")
        gap = abs(hue(web) - ANSI_HUES[ansi]) % 360
        assert min(gap, 360 - gap) <= 25, (seat, web, ansi)
        assert re.search(rf"\.die\.s{seat} \{{[^}}]*var\(--d{seat}\)", css)
