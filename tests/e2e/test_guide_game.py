"""docs/adding-a-game.md, followed to the letter: its files written into an empty folder,
the folder named in the config, and Connect Four played over telnet (against the
computer, and a ranked game between two players that RANKINGS then lists) and in
Chromium, by its pane's buttons.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import attrs
import pytest

from commands.app import assemble
from server.web import WebDoor
from tests.conftest import make_config
from tests.e2e.test_web_browser import artifacts, browser, until  # noqa: F401 (fixtures)
from tests.e2e.test_web_pane import (ERRORS, caught_up, click, create, live_game,
                                     open_play, type_line)
from tests.e2e.test_web_pane_round4 import wait_for
from tests.support.client import Client
from tests.support.teardown import cleanup

pytestmark = pytest.mark.e2e

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "adding-a-game.md"
# a file of the guide: its path in backticks, a colon, and the fenced block after it
FILE = re.compile(r"^`(connect_four/[\w/.]+)`:\n\n```\w*\n(.*?)\n```$", re.MULTILINE | re.DOTALL)
LISTED = ("connect_four/__init__.py", "connect_four/game.py", "connect_four/web/board.html",
          "connect_four/web/pane.js", "connect_four/web/pane.css")


def write_the_guides_files(folder: Path) -> list[str]:
    written = []
    for path, text in FILE.findall(GUIDE.read_text(encoding="utf-8")):
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text + "\n", encoding="utf-8")
        written.append(path)
    return written


@pytest.fixture
async def c4_parlor(sqlite_url, tmp_path, monkeypatch):
    """A parlor whose config names the guide's plugin, and only the config."""
    assert sorted(write_the_guides_files(tmp_path)) == sorted(LISTED)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [m for m in sys.modules if m == "connect_four" or m.startswith("connect_four.")]:
        monkeypatch.delitem(sys.modules, name)
    config = make_config(sqlite_url)
    config = attrs.evolve(config, games=attrs.evolve(
        config.games, extra=(*config.games.extra, "connect_four:KIND")))
    parlor = assemble(config)
    await parlor.start()
    door = WebDoor(parlor, host="127.0.0.1", port=0)
    await door.start()
    yield parlor, door
    async with cleanup() as steps:
        await steps.run("stopping the web door", door.stop(), 30)
        await steps.run("stopping the parlor", parlor.stop(), 60)


async def test_the_guides_game_is_played_on_telnet_against_the_computer_and_ranked(c4_parlor):
    parlor, _ = c4_parlor
    alba = await Client.connect(parlor.port, cols=80)
    brio = await Client.connect(parlor.port, cols=80)
    await alba.create("Alba")
    await brio.create("Brio")

    # against the computer, to the end: every move told, the board drawn
    await alba.cmd("c4 challenge computer normal", r"Connect Four")
    game, seat = live_game(parlor, "c4", "Alba")
    spec = game.kind.spec
    while game.outcome is None:
        await wait_for(lambda: game.outcome is not None or seat in spec.to_move(game.state))
        if game.outcome is not None:
            break
        move = spec.legal_moves(game.state, seat)[0]
        version = game.version
        await alba.cmd(f"c4 {move.lower()}", r"Alba drops a disc in column \d")
        await wait_for(lambda: game.version > version)
    await alba.expect(rf"Game #{game.id}")
    # each move told once, in the event's words (tells_action), not echoed as typed too
    assert ": DROP" not in alba.seen
    await alba.cmd(f"replay {game.id}", r"1\. Alba: DROP \d")

    # a rule is one line, and a ranked game between two players
    await alba.cmd("c4 challenge brio ranked", "You challenge Brio")
    await brio.expect("Alba challenges you to Connect Four")
    brio.send("c4 accept alba")
    await brio.expect(r"1  2  3  4  5  6  7")
    game, a_seat = live_game(parlor, "c4", "Alba")
    assert game.ranked
    first, second = (alba, brio) if a_seat == 0 else (brio, alba)
    await second.cmd("c4 drop 2", "It is not your turn.")
    await first.cmd("c4 drop 9", "is not a move; try DROP <1-7>.")
    for _ in range(3):
        await first.cmd("c4 drop 1", "drops a disc in column 1")
        await second.cmd("c4 drop 2", "drops a disc in column 2")
    await first.cmd("c4 drop 1", r"wins \(four in a row\)")
    assert ": DROP" not in brio.seen
    winner = "Alba" if first is alba else "Brio"
    ranked = await alba.cmd("rankings c4", r"Connect Four")
    assert winner in ranked, ranked
    await alba.close()
    await brio.close()


async def test_the_guides_game_is_played_in_a_browser_by_its_pane(c4_parlor, browser,  # noqa: F811
                                                                   artifacts):  # noqa: F811
    parlor, door = c4_parlor
    ERRORS.clear()
    page = await open_play(browser, door.url.rstrip("/"), "desktop", ERRORS)
    await create(page, "Cato")
    await type_line(page, "c4 challenge computer easy")
    await until(page, "document.getElementById('pane').dataset.kind === 'c4'")
    game, seat = live_game(parlor, "c4", "Cato")
    spec = game.kind.spec
    # the guide's own pane, loaded from its web folder
    assert await page.locator("#pane table.board.c4.play").count() == 1
    moves = 0
    while game.outcome is None and moves < 30:
        await wait_for(lambda: game.outcome is not None or seat in spec.to_move(game.state))
        if game.outcome is not None:
            break
        await caught_up(page, game)
        open_columns = [m.split()[1] for m in spec.legal_moves(game.state, seat)]
        shown = await page.evaluate(
            "[...document.querySelectorAll('#pane button.drop')].map(b => b.title)")
        assert shown == [f"C4 DROP {c}" for c in open_columns], shown
        version = game.version
        await click(page, f'#pane button.drop[title="C4 DROP {open_columns[0]}"]')
        await wait_for(lambda: game.version > version)
        moves += 1
    assert game.outcome is not None
    await until(page, "document.getElementById('pane').dataset.finished === '1'")
    cells = await page.locator("#pane td.cell .disc").count()
    assert cells == sum(c is not None for c in game.state.cells)
    await page.screenshot(path=str(artifacts / "pane-guide-c4.png"))
    assert ERRORS == []
