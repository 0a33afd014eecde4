"""/play's pane per game, in a real browser (Chromium, Playwright).

- The plugin game of ``tests/e2e/test_plugin_game.py`` (noughts and crosses, one folder
  outside the tree, no pane of its own) gets the generic pane: its view as text and its
  legal moves as buttons; it is started from the lobby and played to its end by them.
- A game's own pane (its script and styles, from its web folder) is loaded when a frame
  of that game first arrives, once, and no other game's is.
- A game whose pane cannot be loaded is still drawn, by the generic pane.

Screenshots go to ``$ESTERPORT_ARTIFACTS`` (or the test's tmp dir).
"""

from __future__ import annotations

import pytest

from tests.e2e.test_web_browser import artifacts, browser, until  # noqa: F401 (fixtures)
from tests.e2e.test_web_pane import (ERRORS, caught_up, click, create, live_game, open_play,
                                     screen_has, web)  # noqa: F401 (fixtures)
from tests.e2e.test_web_pane_round4 import in_lobby, wait_for

pytestmark = pytest.mark.e2e

LOADED = "[...document.querySelectorAll('script[src*=\"/static/games/\"], " \
         "link[href*=\"/static/games/\"]')].map(e => (e.src || e.href).split('?')[0]" \
         ".replace(location.origin, ''))"


async def test_the_plugin_game_gets_the_generic_pane_and_is_played_by_its_buttons(  # noqa: F811
        parlor, web, browser, artifacts):  # noqa: F811
    ERRORS.clear()
    page = await open_play(browser, web.url.rstrip("/"), "desktop", ERRORS)
    await create(page, "Nell")
    # its button in the lobby, the one every game gets
    await click(page, '#pane button.act[title="TTT CHALLENGE COMPUTER EASY"]')
    await screen_has(page, "TTT CHALLENGE COMPUTER EASY")
    await until(page, "document.getElementById('pane').dataset.game !== undefined")
    game, seat = live_game(parlor, "ttt", "Nell")
    assert await page.evaluate("document.getElementById('pane').dataset.kind") == "ttt"
    moves = 0
    while game.outcome is None and moves < 9:
        await wait_for(lambda: game.state.turn == seat or game.outcome is not None)
        if game.outcome is not None:
            break
        await caught_up(page, game)
        # the view as text: every fact of it, the nine cells in order
        cells = await page.evaluate(
            "[...document.querySelectorAll('#pane .board.generic dd:first-of-type > ol > li')]"
            ".map(li => li.textContent)")
        assert cells == ["—" if c is None else str(c) for c in game.state.cells], cells
        # the legal moves as buttons, each sending its command
        shown = await page.evaluate(
            "[...document.querySelectorAll('#pane button.act[title^=\"TTT PLAY \"]')]"
            ".map(b => [b.textContent, b.title])")
        free = [i + 1 for i, c in enumerate(game.state.cells) if c is None]
        assert shown == [[f"PLAY {n}", f"TTT PLAY {n}"] for n in free], shown
        if moves == 1:
            await page.screenshot(path=str(artifacts / "pane-generic-ttt.png"))
        version = game.version
        line = await click(page, f'#pane button.act[title="TTT PLAY {free[0]}"]')
        assert line == f"TTT PLAY {free[0]}"
        await screen_has(page, line)   # the click's command, in the scrollback
        await wait_for(lambda: game.version > version)
        assert game.state.cells[free[0] - 1] == seat
        moves += 1
    assert game.outcome is not None and moves >= 3
    await until(page, "document.getElementById('pane').dataset.finished === '1'")
    assert await page.locator('#pane button[title^="TTT PLAY"]').count() == 0
    await page.screenshot(path=str(artifacts / "pane-generic-ttt-end.png"))
    # it has no pane of its own, and no other game's was loaded
    assert await page.evaluate(LOADED) == []
    # the rematch a game for two offers
    assert await page.locator('#pane button[title="TTT REMATCH"]').count() == 1
    assert ERRORS == []


async def test_a_game_s_own_pane_is_loaded_when_its_first_frame_arrives(  # noqa: F811
        parlor, web, browser):  # noqa: F811
    ERRORS.clear()
    page = await open_play(browser, web.url.rstrip("/"), "desktop", ERRORS)
    await create(page, "Lotte")
    assert await page.evaluate(LOADED) == []   # the lobby needs no game's pane
    for round_ in range(2):
        await click(page, '#pane button.act[title="DICE CHALLENGE COMPUTER EASY"]')
        await until(page, "document.getElementById('pane').dataset.game !== undefined")
        assert await page.locator("#pane table.board.dice").count() == 1
        # its script and its styles, once however many games
        assert sorted(await page.evaluate(LOADED)) == ["/static/games/dice/pane.css",
                                                       "/static/games/dice/pane.js"]
        await click(page, '#pane button.act[title="DICE RESIGN"]')   # it asks first
        await click(page, '#pane button.act.asking[title="DICE RESIGN"]')
        await until(page, "document.getElementById('pane').dataset.finished === '1'")
        await page.get_by_role("button", name="Close the board").click()
        await in_lobby(page)
    assert ERRORS == []


async def test_a_game_whose_pane_cannot_load_is_drawn_by_the_generic_pane(  # noqa: F811
        parlor, web, browser):  # noqa: F811
    ERRORS.clear()
    page = await open_play(browser, web.url.rstrip("/"), "desktop", [])
    await page.route("**/static/games/dice/pane.js*", lambda route: route.abort())
    await create(page, "Ugo")
    await click(page, '#pane button.act[title="DICE CHALLENGE COMPUTER EASY"]')
    await until(page, "document.getElementById('pane').dataset.game !== undefined")
    game, _ = live_game(parlor, "dice", "Ugo")
    assert await page.locator("#pane table.board.dice").count() == 0
    text = await page.locator("#pane .board.generic").text_content()
    assert "removed" in text and "to_win" in text   # the view's facts, as text
    # Dice does not list its moves in the frame (its view has them): typed, and said so
    assert await page.locator('#pane button[title="DICE RESIGN"]').count() == 1
    await until(page, "document.getElementById('turn').textContent.includes('Your move')")
    assert "DICE HELP lists the commands" in await page.locator("#pane .tip").first.text_content()
    assert game.outcome is None
