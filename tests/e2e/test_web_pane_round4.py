"""/play's board pane, round four (issue 39), in a real browser (Chromium, Playwright).

- Leaving a Triad table (with others still seated, or as its last person, which closes
  it) takes the pane back to the lobby, saying so; a finished game shows its result and
  closes back to the lobby.
- Triptycha: one button draws the draws still owed (one TT DRAW each, as the rules
  draw), and says how many are left; a picked tile stays picked through Flip and Rotate,
  by mouse and by keyboard.
- Resign (and Pyramid's End) asks first: a second press within a few seconds, said in the
  pane's live region; Escape or waiting carries on; it works from the keyboard.
- Cards are words for a screen reader (Pyramid's "queen of hearts", Triad's "Red
  Princess", Triptycha's corners), and the pane's live region says what its turn line
  shows.
- At a table, the pane finds the viewer's place by the view's ``viewer`` (a newcomer who
  takes a place someone left sees her own hand).

Screenshots go to ``$ESTERPORT_ARTIFACTS`` (or the test's tmp dir).
"""

from __future__ import annotations

import asyncio
import re

import pytest

from tests.e2e.test_web_browser import artifacts, browser, until  # noqa: F401 (fixtures)
from tests.e2e.test_web_pane import (ERRORS, click, create, live_game, open_play,
                                     screen_has, type_line, web)  # noqa: F401 (fixtures)

pytestmark = pytest.mark.e2e

#: A card's code read out as letters: Pyramid's (rank and suit) and Triad's (denomination
#: and Color).
PYRAMID_CODE = re.compile(r"\b(10|[2-9AJQK])[CDHS]\b")
TRIAD_CODE = re.compile(r"\b(1[0-4]|[2-9])[RGPB]\b")


async def wait_for(predicate, timeout: float = 20.0) -> None:  # noqa: ANN001
    """Until ``predicate()`` holds (the server's side of the game), within ``timeout``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "timed out waiting"
        await asyncio.sleep(0.02)


def heard(tree: str) -> str:
    """An ARIA snapshot as a screen reader reads it: a named button or image by its name
    alone (the snapshot adds its text after the name; a button's and an image's children
    are presentational, not read)."""
    return "\n".join(re.sub(r"^(\s*- )'?((?:button|img) \"[^\"]*\")'?: .*$", r"\1\2", line)
                     for line in tree.splitlines())


async def says(page) -> str:  # noqa: ANN001
    return await page.locator("#pane-says").text_content() or ""


async def in_lobby(page) -> None:  # noqa: ANN001
    await until(page, "document.querySelector('#pane .lobby') !== null", timeout=15000)


@pytest.mark.parametrize("size", ["desktop", "phone"])
async def test_leaving_a_table_goes_back_to_the_lobby(parlor, web, browser, artifacts,  # noqa: F811
                                                      clients, size):
    ERRORS.clear()
    page = await open_play(browser, web.url.rstrip("/"), size, ERRORS)
    await create(page, "Lea")
    # a table others stay at: Bob and a computer player
    await click(page, '#pane button.act[title="TRIAD OPEN"]')
    await until(page, "document.getElementById('pane').dataset.game !== undefined")
    game, _ = live_game(parlor, "triad", "Lea")
    bob = await clients("Bob")
    await bob.cmd(f"triad join {game.id}", "sits down")
    await click(page, '#pane button.act[title="TRIAD BOT EASY"]')
    await until(page, "document.querySelectorAll('#pane table.board.triad tbody tr').length === 3")
    await click(page, '#pane button.act[title="TRIAD LEAVE"]')
    await in_lobby(page)
    note = await page.locator("#lobby-note").text_content()
    assert note == f"You have left game #{game.id} (Triad).", note
    assert await says(page) == note
    assert await page.locator('#pane button[title="TRIAD LEAVE"]').count() == 0
    assert await page.locator("#gamelink").is_hidden()
    assert game.outcome is None   # the table goes on without her
    await page.screenshot(path=str(artifacts / f"round4-left-{size}.png"))
    # the lobby works: a new table, and she is its last person; leaving closes it
    await click(page, '#pane button.act[title="TRIAD OPEN"]')
    await until(page, "document.getElementById('pane').dataset.game !== undefined")
    assert await page.locator("#lobby-note").count() == 0
    number = await page.evaluate("document.getElementById('pane').dataset.game")
    second = parlor.host.live[int(number)]
    await click(page, '#pane button.act[title="TRIAD BOT EASY"]')
    await until(page, "document.querySelectorAll('#pane table.board.triad tbody tr').length === 2")
    await click(page, '#pane button.act[title="TRIAD LEAVE"]')
    await in_lobby(page)
    await wait_for(lambda: second.outcome is not None)
    note = await page.locator("#lobby-note").text_content()
    result = second.describe(second.outcome)
    assert note == f"You have left game #{second.id} (Triad). {result}", note
    assert ERRORS == []


async def test_resign_asks_first_and_the_result_closes_to_the_lobby(  # noqa: F811
        parlor, web, browser, artifacts):  # noqa: F811
    """Resigning: the result stays on the pane with Replay and a way back to the lobby;
    Resign asks first, by mouse (and the question lapses), then by keyboard."""
    ERRORS.clear()
    page = await open_play(browser, web.url.rstrip("/"), "desktop", ERRORS)
    await create(page, "Rhea")
    await click(page, '#pane button.act[title="DICE CHALLENGE COMPUTER EASY"]')
    await until(page, "document.getElementById('pane').dataset.game !== undefined")
    game, _ = live_game(parlor, "dice", "Rhea")
    resign = page.locator('#pane button[title="DICE RESIGN"]')
    await resign.click()
    await until(page, "document.querySelector('#pane button.asking') !== null")
    assert (await resign.text_content()).startswith("Really resign?")
    assert (await says(page)).startswith("Really resign? Press the button again")
    assert game.outcome is None
    assert "DICE RESIGN" not in await page.locator("#screen").text_content()
    await page.screenshot(path=str(artifacts / "round4-resign-asks.png"))
    # unanswered, the question lapses and the game goes on
    await until(page, "document.querySelector('#pane button.asking') === null", timeout=15000)
    assert await resign.text_content() == "Resign"
    assert "not confirmed" in await says(page)
    assert game.outcome is None
    # by keyboard: Enter asks, Escape carries on, Enter twice resigns
    await resign.focus()
    await page.keyboard.press("Enter")
    await until(page, "document.activeElement.classList.contains('asking')")
    await page.keyboard.press("Escape")
    await until(page, "document.querySelector('#pane button.asking') === null")
    assert "cancelled" in await says(page) and game.outcome is None
    await page.keyboard.press("Enter")
    await until(page, "document.activeElement.classList.contains('asking')")
    await page.keyboard.press("Enter")
    await until(page, "document.getElementById('pane').dataset.finished === '1'")
    assert game.outcome is not None
    result = game.describe(game.outcome)
    assert await page.locator("#turn").text_content() == result
    assert await says(page) == result    # the live region, in step with the turn line
    assert await page.locator(f'#pane a[href="/games/{game.id}/replay"]').count() == 1
    await page.get_by_role("button", name="Close the board").click()
    await in_lobby(page)
    assert ERRORS == []



@pytest.mark.parametrize("size", ["desktop", "phone"])
async def test_triptycha_draws_at_once_and_keeps_the_tile_picked(  # noqa: F811
        parlor, web, browser, artifacts, size):  # noqa: F811
    ERRORS.clear()
    page = await open_play(browser, web.url.rstrip("/"), size, ERRORS)
    await create(page, "Tia")
    await click(page, '#pane button.act[title="TT CHALLENGE COMPUTER EASY"]')
    await until(page, "document.getElementById('pane').dataset.game !== undefined")
    game, seat = live_game(parlor, "tt", "Tia")
    await wait_for(lambda: len(game.state.hands[1 - seat]) == 6)   # the computer's draw
    await until(page, "v => Number(document.getElementById('pane').dataset.version) >= v",
                arg=game.version)
    everything = page.locator("#pane button[data-key=drawall]")
    assert await everything.text_content() == "Draw all 5 at once (deck order)"
    assert "Choose your hand: 5 draws left" in await page.locator("#pane .tip").first.text_content()
    # a deck tile's name says its corners in words, and what is left to draw
    name = await page.locator('#pane [data-key="deck:1"] .sr').text_content()
    assert re.search(r"corners top \d+, bottom left \d+, bottom right \d+", name), name
    assert "draw it (5 draws left)" in name
    await everything.scroll_into_view_if_needed()
    await page.screenshot(path=str(artifacts / f"round4-tt-draw-{size}.png"))
    await click(page, "#pane button[data-key=drawall]")   # one press: five TT DRAWs
    await wait_for(lambda: len(game.state.hands[seat]) == 5)
    for n in range(1, 6):
        await screen_has(page, f"TT DRAW {n}")
    await wait_for(lambda: game.state.phase == "play" and game.state.turn == seat)
    await until(page, "document.querySelector('#pane [data-key=\"tile:1\"]') !== null")
    # a tile picked stays picked through Flip and Rotate
    await click(page, '#pane [data-key="tile:1"]')
    picked = '#pane [data-key="tile:1"][aria-pressed="true"]'
    await page.locator(picked).wait_for()
    up = game.state.hands[seat][0].up
    version = game.version
    await click(page, '#pane button[data-key="flip"]')
    await wait_for(lambda: game.version > version)
    await until(page, "v => Number(document.getElementById('pane').dataset.version) >= v",
                arg=game.version)
    assert game.state.hands[seat][0].up != up
    assert await page.locator(picked).count() == 1
    assert await page.locator("#pane svg g.niche.target").count() > 0
    # by keyboard: Rotate keeps the tile picked and the focus on Rotate
    corners = game.state.hands[seat][0].corners
    version = game.version
    await page.locator('#pane button[data-key="rotate"]').focus()
    await page.keyboard.press("Enter")
    await wait_for(lambda: game.version > version)
    await until(page, "v => Number(document.getElementById('pane').dataset.version) >= v",
                arg=game.version)
    assert game.state.hands[seat][0].corners != corners
    assert await page.locator(picked).count() == 1
    assert await page.evaluate("document.activeElement.dataset.key") == "rotate"
    await page.screenshot(path=str(artifacts / f"round4-tt-picked-{size}.png"))
    # a niche laid: the tile is no longer picked
    target = page.locator("#pane svg g.niche.target").first
    version = game.version
    await target.click()
    await wait_for(lambda: game.version > version)
    await until(page, "document.querySelector('#pane [aria-pressed=\"true\"]') === null")
    assert game.state.hands[seat][0].niche is not None
    assert ERRORS == []


async def test_cards_are_words_and_the_live_region_follows_the_turn(  # noqa: F811
        parlor, web, browser, artifacts):  # noqa: F811
    ERRORS.clear()
    page = await open_play(browser, web.url.rstrip("/"), "desktop", ERRORS)
    await create(page, "Cora")
    # Pyramid: every card's name is words ("queen of hearts"), never its code
    await click(page, '#pane button.act[title="PYR NEW"]')
    await until(page, "document.querySelectorAll('#pane .board.pyramid .card').length >= 28")
    labels = await page.evaluate(   # a card's name: its label, or its text for a reader
        "[...document.querySelectorAll('#pane .board.pyramid .card, #pane .stock .card')]"
        ".filter(c => !c.classList.contains('gone'))"
        ".map(c => c.getAttribute('aria-label') || c.querySelector('.sr').textContent)")
    assert len(labels) >= 29, labels
    for label in labels:
        assert not PYRAMID_CODE.search(label), label
    words = [x for x in labels if re.search(r"(ace|king|queen|jack|\d+) of "
                                             r"(clubs|diamonds|hearts|spades)", x)]
    assert len(words) >= 29, labels
    tree = heard(await page.locator("#pane .game-pyramid").aria_snapshot())
    assert not PYRAMID_CODE.search(tree), tree
    await until(page, "document.getElementById('pane-says').textContent === "
                      "document.getElementById('turn').textContent")
    await page.locator('#pane button[title="PYR D"]').click()
    await until(page, "document.getElementById('lastmove') !== null")
    said = await page.locator("#lastmove").text_content()
    assert re.fullmatch(r"Last move: turned the \S+ of \S+ from the Pack to the Waste Pile\.",
                        said), said
    await page.screenshot(path=str(artifacts / "round4-pyramid-words.png"))
    # Triad: the cards of a hand dealt, by name ("Red Princess"), in the hand and the table
    await type_line(page, "pyr end")
    await until(page, "document.getElementById('pane').dataset.finished === '1'")
    await page.get_by_role("button", name="Close the board").click()
    await click(page, '#pane button.act[title="TRIAD OPEN"]')
    await until(page, "document.getElementById('pane').dataset.kind === 'triad'")
    await click(page, '#pane button.act[title="TRIAD BOT EASY"]')
    await until(page, "document.querySelectorAll('#pane table.board.triad tbody tr').length === 2")
    await click(page, '#pane button.act[title="TRIAD START"]')
    await until(page, "document.querySelectorAll('#pane .tcardbtn').length === 6")
    named = r"\b(Red|Green|Purple|Black) \w+|Capstone"
    for _ in range(50):  # the pane may be redrawn (the computer acts) while it is read
        tree = heard(await page.locator("#pane .game-triad").aria_snapshot())
        if len(re.findall(named, tree)) >= 6:
            break
        await asyncio.sleep(0.2)
    assert not TRIAD_CODE.search(tree), tree
    assert len(re.findall(named, tree)) >= 6, tree
    await until(page, "document.getElementById('pane-says').textContent === "
                      "document.getElementById('turn').textContent")
    await page.screenshot(path=str(artifacts / "round4-triad-words.png"))
    assert ERRORS == []


async def test_a_newcomer_in_an_earlier_players_place_sees_her_own_hand(  # noqa: F811
        parlor, web, browser, clients):  # noqa: F811
    """Seats at a table are numbered as people came (the game's list) and places as they
    sit (the table's): Lea leaves place 1, Carol takes it as the game's third seat, and her
    pane shows her place's hand and buttons, not the third place's."""
    ERRORS.clear()
    lea = await clients("Lea")
    bob = await clients("Bob")
    await lea.cmd("triad open", "You open Triad table")
    game, _ = live_game(parlor, "triad", "Lea")
    await bob.cmd(f"triad join {game.id}", "sits down")
    await lea.cmd("triad leave", "leaves the table")
    page = await open_play(browser, web.url.rstrip("/"), "desktop", ERRORS)
    await create(page, "Carol")
    await type_line(page, f"triad join {game.id}")
    await until(page, "v => document.getElementById('pane').dataset.game === v", str(game.id))
    assert [s.name for s in game.seats][2] == "Carol"
    await bob.cmd("triad start", "deals")
    await until(page, "document.querySelectorAll('#pane .tcardbtn').length === 6")
    row = page.locator("#pane table.board.triad tbody tr", has_text="Carol")
    assert "your hand below" in await row.text_content()
    assert ERRORS == []
