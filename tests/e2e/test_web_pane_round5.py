"""/play's board pane, round five (issue 39), in a real browser (Chromium, Playwright).

- The keyboard stays on the board: after a game starts and after every move the focus is
  on the Dice board, a grid with one tab stop whose cells the arrow keys, Home and End
  move among; Enter acts. The key presses a Dice game's moves take are counted.
- A phone (390x844) scrolls the page as a whole (the pane is no scroll box of its own),
  keeps the turn line and the action buttons in view, never breaks a word or a number of
  the Triad table, and every target on the page is at least 44x44 CSS px.
- Pointing does what typing does: a new account and a login from the pane's forms, the
  computer's level, a challenge to a player online, the open seeks (Take) and the open
  tournaments (Join); each shows in the scrollback as the command it typed.

Screenshots go to ``$ESTERPORT_ARTIFACTS`` (or the test's tmp dir).
"""

from __future__ import annotations

import random

import pytest

from tests.e2e.test_web_browser import artifacts, browser, until  # noqa: F401 (fixtures)
from tests.e2e.test_web_pane import (ERRORS, axe, caught_up, click, create, live_game,
                                     open_play, screen_has, web)  # noqa: F401 (fixtures)
from tests.e2e.test_web_pane_round4 import wait_for

pytestmark = pytest.mark.e2e

COLS = "abcdef"
DIRS = {"N": (0, 1), "NE": (1, 1), "E": (1, 0), "SE": (1, -1), "S": (0, -1), "SW": (-1, -1),
        "W": (-1, 0), "NW": (-1, 1)}

FOCUS_KEY = "document.activeElement && document.activeElement.dataset ? " \
            "(document.activeElement.dataset.key || null) : null"
ON_BOARD = "document.activeElement.closest('#pane table.board.dice') !== null"


class Keyboard:
    """A keyboard user who knows where they want to go: within the board, the arrow keys
    (while they move the focus); from anywhere else, or when they do not, Tab. Every
    press is counted."""

    def __init__(self, page) -> None:  # noqa: ANN001
        self.page = page
        self.presses = 0
        self.arrows = True

    async def press(self, key: str) -> None:
        await self.page.keyboard.press(key)
        self.presses += 1

    async def reach(self, key: str, bound: int = 300) -> None:
        """Bring the focus to the pane's element whose data-key is ``key``."""
        for _ in range(bound):
            at = await self.page.evaluate(FOCUS_KEY)
            if at == key:
                return
            if self.arrows and at and at.startswith("die:") and key.startswith("die:"):
                dc = COLS.index(key[4]) - COLS.index(at[4])
                dr = int(key[5]) - int(at[5])
                step = ("ArrowRight" if dc > 0 else "ArrowLeft") if dc else \
                    ("ArrowUp" if dr > 0 else "ArrowDown")
                await self.press(step)
                if await self.page.evaluate(FOCUS_KEY) == at:
                    self.arrows = False   # the arrows do nothing here: Tab from now on
                continue
            await self.press("Tab")
        raise AssertionError(f"{key} not reached in {bound} presses ({self.presses} in all)")


async def test_the_keyboard_stays_on_the_dice_board(parlor, web, browser, artifacts):  # noqa: F811
    """Up to 20 moves of a Dice game by keyboard alone (the computer's dice are the
    server's, so a game may end after a handful): the focus is on the board when the game
    starts and after every move, the arrows move it, and the presses are counted."""
    ERRORS.clear()
    page = await open_play(browser, web.url.rstrip("/"), "desktop", ERRORS)
    await create(page, "Kira")
    start = page.locator('#pane button.act[title="DICE CHALLENGE COMPUTER EASY"]')
    await start.focus()
    await page.keyboard.press("Enter")
    await until(page, "document.getElementById('pane').dataset.game !== undefined")
    game, seat = live_game(parlor, "dice", "Kira")
    await caught_up(page, game)
    kb = Keyboard(page)
    rng = random.Random(11)
    lost = []          # where the focus was when it was not on the board
    moves = 0
    while moves < 20 and game.outcome is None:
        await wait_for(lambda: game.state.turn == seat or game.outcome is not None)
        if game.outcome is not None:
            break
        await caught_up(page, game)
        if not await page.evaluate(ON_BOARD):
            lost.append((moves, await page.evaluate("document.activeElement.tagName")))
        line = rng.choice(game.frame(seat).view["legal"])
        w = line.split()
        version = game.version
        await kb.reach(f"die:{w[1]}")
        await kb.press("Enter")
        if len(w) == 4:
            await until(page, "document.querySelector('#pane button.cell.picked') !== null")
            dc, dr = DIRS[w[3]]
            n = int(w[2])
            to = COLS[COLS.index(w[1][0]) + dc * n] + str(int(w[1][1]) + dr * n)
            await kb.reach(f"die:{to}")
            await kb.press("Enter")
        elif w[0] == "MOVE":   # a die that moves nowhere: its button below the board
            while await page.evaluate("document.activeElement.title") != f"DICE {line}":
                await kb.press("Tab")
                assert kb.presses < 5000
            await kb.press("Enter")
        await wait_for(lambda: game.version > version)
        await screen_has(page, f"DICE {line}")   # the command, in the scrollback
        moves += 1
    figure = f"{kb.presses} key presses for {moves} Dice moves"
    print(figure)
    (artifacts / "round5-keyboard.txt").write_text(figure + "\n")
    await page.screenshot(path=str(artifacts / "round5-keyboard.png"))
    assert moves >= 3, figure   # (a whole run saw the computer win after 5)
    assert lost == [], f"{figure}; the focus left the board: {lost}"
    assert kb.arrows, figure
    assert kb.presses <= moves * 10, figure
    assert ERRORS == []


async def test_the_dice_board_is_a_grid_with_one_tab_stop(parlor, web, browser):  # noqa: F811
    """Arrows, Home and End (with Ctrl: the board's corners) move among the cells; one
    cell is in the tab order; a redraw keeps the focus where it was."""
    ERRORS.clear()
    page = await open_play(browser, web.url.rstrip("/"), "desktop", ERRORS)
    await create(page, "Gita")
    await click(page, '#pane button.act[title="DICE CHALLENGE COMPUTER EASY"]')
    await until(page, "document.getElementById('pane').dataset.game !== undefined")
    stops = "document.querySelectorAll('#pane table.board.dice [tabindex=\"0\"]').length"
    assert await page.evaluate(stops) == 1
    cells = "document.querySelectorAll('#pane table.board.dice [data-key^=\"die:\"]').length"
    assert await page.evaluate(cells) == 36
    await page.locator('#pane table.board.dice [tabindex="0"]').focus()
    await page.keyboard.press("Control+Home")
    assert await page.evaluate(FOCUS_KEY) == "die:a6"
    for key, want in (("ArrowRight", "b6"), ("ArrowDown", "b5"), ("End", "f5"),
                      ("ArrowRight", "f5"), ("Home", "a5"), ("ArrowLeft", "a5"),
                      ("ArrowUp", "a6"), ("ArrowUp", "a6"), ("Control+End", "f1")):
        await page.keyboard.press(key)
        assert await page.evaluate(FOCUS_KEY) == f"die:{want}", key
        assert await page.evaluate(stops) == 1
    # Tab leaves the board, Shift+Tab comes back to the cell it left
    await page.keyboard.press("Tab")
    assert not await page.evaluate(ON_BOARD)
    await page.keyboard.press("Shift+Tab")
    assert await page.evaluate(FOCUS_KEY) == "die:f1"
    assert ERRORS == []


# -- a phone ----------------------------------------------------------------------------------
#: Every target on the page that is shown: its size (a checkbox's or a radio button's is its
#: label's, which takes the tap), less than 44x44 CSS px.
SMALL_TARGETS = """() => {
  const found = [];
  const all = 'a[href], button, input:not([type=hidden]), select, textarea, summary, ' +
              '[role=button], [tabindex]:not([tabindex="-1"])';
  for (const el of document.querySelectorAll(all)) {
    if (el.id === 'screen') continue;   // the terminal's scrollback, the size of the screen
    const box = el.matches('input[type=checkbox], input[type=radio]') && el.closest('label')
      ? el.closest('label') : el;
    const r = box.getBoundingClientRect();
    if (!r.width || !r.height || r.right <= 0 || r.bottom + window.scrollY <= 0) continue;
    if (getComputedStyle(el).visibility === 'hidden') continue;
    if (r.width < 43.5 || r.height < 43.5) {
      found.push((el.getAttribute('title') || el.textContent.trim().slice(0, 30) ||
                  el.getAttribute('aria-label') || el.tagName) +
                 ' ' + Math.round(r.width) + 'x' + Math.round(r.height));
    }
  }
  return found;
}"""

#: Where the page's layout fails a phone: the pane a scroll box of its own, the page not
#: scrolling, anything wider than the window.
LAYOUT = """() => {
  const pane = document.getElementById('pane');
  return {nested: pane.scrollHeight > pane.clientHeight + 1,
          scrolls: document.documentElement.scrollHeight > window.innerHeight,
          wide: document.documentElement.scrollWidth > window.innerWidth};
}"""

#: Whether an element is wholly within the window.
IN_VIEW = """sel => {
  const el = document.querySelector(sel);
  if (!el) return false;
  const r = el.getBoundingClientRect();
  return r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight &&
         r.right <= window.innerWidth;
}"""

#: The words of the Triad table broken over two lines: a word whose text takes more than
#: one line box.
BROKEN_WORDS = """() => {
  const broken = [];
  const table = document.querySelector('#pane table.board.triad');
  const walk = document.createTreeWalker(table, NodeFilter.SHOW_TEXT);
  for (let node = walk.nextNode(); node; node = walk.nextNode()) {
    if (node.parentElement.closest('.sr')) continue;
    const rx = /\\S+/g;
    let m;
    while ((m = rx.exec(node.textContent)) !== null) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
      if (tops.size > 1) broken.push(m[0]);
    }
  }
  return broken;
}"""


async def test_a_phone_scrolls_the_page_and_keeps_the_turn_and_buttons_in_view(  # noqa: F811
        parlor, web, browser, artifacts):  # noqa: F811
    """Triptycha at 390x844: the page scrolls (the pane is no scroll box); after a tap on a
    tile, the turn line and Rotate, Flip and Resign are on screen wherever the board is
    scrolled to; every target is 44x44 or more; axe finds nothing."""
    ERRORS.clear()
    page = await open_play(browser, web.url.rstrip("/"), "phone", ERRORS)
    small = await page.evaluate(SMALL_TARGETS)   # (checked at the end)
    await create(page, "Pia")
    await click(page, '#pane button.act[title="TT CHALLENGE COMPUTER EASY"]')
    await until(page, "document.getElementById('pane').dataset.game !== undefined")
    game, seat = live_game(parlor, "tt", "Pia")
    await wait_for(lambda: len(game.state.hands[1 - seat]) == 6)   # the computer's draw
    await caught_up(page, game)
    await page.screenshot(path=str(artifacts / "round5-phone-tt-draw.png"))
    small += await page.evaluate(SMALL_TARGETS)
    await page.locator("#pane button[data-key=drawall]").tap()
    await wait_for(lambda: game.state.phase == "play" and game.state.turn == seat, 30)
    await caught_up(page, game)
    layout = await page.evaluate(LAYOUT)
    assert layout == {"nested": False, "scrolls": True, "wide": False}, layout
    tile = page.locator('#pane [data-key="tile:1"]')
    await tile.scroll_into_view_if_needed()
    await tile.tap()
    await page.locator('#pane [data-key="tile:1"][aria-pressed="true"]').wait_for()
    await page.screenshot(path=str(artifacts / "round5-phone-tt-picked.png"))
    shown = ["#turn", '#pane button[data-key="rotate"]', '#pane button[data-key="flip"]',
             '#pane button[title="TT RESIGN"]']
    assert await page.locator("#turn").text_content() == "Your move."
    for where in ("tile", "board", "legend"):
        if where == "board":
            await page.evaluate("document.querySelector('#pane svg.board').scrollIntoView()")
        elif where == "legend":
            await page.evaluate("document.querySelector('#pane .game-tt .facts')"
                                ".scrollIntoView({block: 'center'})")
        for sel in shown:
            assert await page.evaluate(IN_VIEW, sel), (where, sel)
    await page.screenshot(path=str(artifacts / "round5-phone-tt-board.png"))
    assert small + await page.evaluate(SMALL_TARGETS) == []
    assert await axe(page) == []
    assert ERRORS == []


async def test_a_phone_shows_the_triad_table_whole(parlor, web, browser, artifacts):  # noqa: F811
    """The Triad table at 390x844 breaks no word and no number, fits the window, and
    every target on the page is 44x44 or more."""
    ERRORS.clear()
    page = await open_play(browser, web.url.rstrip("/"), "phone", ERRORS)
    await create(page, "Tallulah")
    await click(page, '#pane button.act[title="TRIAD OPEN"]')
    await until(page, "document.getElementById('pane').dataset.kind === 'triad'")
    await click(page, '#pane button.act[title="TRIAD BOT EASY"]')
    await until(page, "document.querySelectorAll('#pane table.board.triad tbody tr').length === 2")
    await click(page, '#pane button.act[title="TRIAD START"]')
    await until(page, "document.querySelectorAll('#pane .tcardbtn').length === 6")
    await page.evaluate("window.scrollTo(0, 0)")
    await page.screenshot(path=str(artifacts / "round5-phone-triad.png"))
    assert await page.evaluate(BROKEN_WORDS) == []
    layout = await page.evaluate(LAYOUT)
    assert not layout["nested"] and not layout["wide"], layout
    assert await page.evaluate(SMALL_TARGETS) == []
    assert await axe(page) == []
    assert ERRORS == []


# -- pointing does what typing does -------------------------------------------------------------
async def lobby_of(page) -> None:  # noqa: ANN001
    await until(page, "document.querySelector('#pane .lobby #challenge-name') !== null")


async def test_an_account_is_made_and_logged_in_by_pointing(parlor, web, browser,  # noqa: F811
                                                             artifacts):  # noqa: F811
    """The login screen's forms: a new account (NEW and the name typed for you, the
    password never shown), a name taken and a wrong password said in the pane, a login."""
    ERRORS.clear()
    base = web.url.rstrip("/")
    page = await open_play(browser, base, "phone", ERRORS)
    await screen_has(page, "Name: ")
    await page.screenshot(path=str(artifacts / "round5-login-phone.png"), full_page=True)
    assert await page.evaluate(SMALL_TARGETS) == []
    assert await axe(page) == []
    await page.locator("#new-name").fill("Nell")
    await page.locator("#new-password").fill("hunter22")
    await page.locator("#new-again").fill("hunter22")
    await page.get_by_role("button", name="Make the account").tap()
    await screen_has(page, "Welcome, Nell!")
    await lobby_of(page)
    lines = await page.evaluate(
        "[...document.querySelectorAll('#screen .line')].map(l => l.textContent)")
    assert "Name: NEW" in lines and "Choose a name: Nell" in lines, lines
    assert "hunter22" not in await page.locator("#screen").text_content()
    assert await parlor.accounts.get("Nell") is not None
    # a second page: the name is taken; then a wrong password; then the right one
    other = await open_play(browser, base, "desktop", ERRORS)
    await screen_has(other, "Name: ")
    await other.locator("#new-name").fill("Nell")
    await other.locator("#new-password").fill("whatever1")
    await other.locator("#new-again").fill("whatever1")
    await other.get_by_role("button", name="Make the account").click()
    await until(other, "document.getElementById('lobby-note') !== null")
    assert await other.locator("#lobby-note").text_content() == "The name Nell is taken."
    assert await other.locator("#pane-says").text_content() == "The name Nell is taken."
    await other.locator("#login-name").fill("Nell")
    await other.locator("#login-password").fill("hunter2")
    await other.locator("#login-password").press("Enter")
    await until(other, "document.getElementById('lobby-note').textContent === "
                       "'Wrong password.'")
    await other.locator("#login-password").fill("hunter22")
    await other.get_by_role("button", name="Log in").click()
    await lobby_of(other)   # logged in (GMCP Char.Name)
    await other.screenshot(path=str(artifacts / "round5-lobby-desktop.png"))
    assert "hunter2" not in await other.locator("#screen").text_content()
    assert await axe(other) == []
    assert [e for e in ERRORS if "WebSocket" not in e] == []


async def test_the_lobby_offers_levels_challenges_seeks_and_tournaments(  # noqa: F811
        parlor, web, browser, artifacts, clients):  # noqa: F811
    """After login: the computer's level, a challenge to a player online (listed), the
    open seeks with Take and the open tournaments with Join, each typed as its command."""
    from server.hosting import Seat

    ERRORS.clear()
    bob = await clients("Bob")
    carol = await clients("Carol")
    await carol.cmd("dice seek", "Your seek 1 is posted")
    svc = parlor.host.tournaments
    cup = await svc.create("dice", "swiss", 2, {},
                           Seat((await parlor.accounts.get("Carol")).id, "Carol"), admin=False)
    page = await open_play(browser, web.url.rstrip("/"), "phone", ERRORS)
    await create(page, "Ada")
    await lobby_of(page)
    await until(page, "(document.getElementById('lobby-online').textContent || '')"
                      ".includes('Carol')")
    assert "Bob" in await page.locator("#lobby-online").text_content()
    assert await page.evaluate(
        "[...document.querySelectorAll('#online option')].map(o => o.value).sort()") == \
        ["Bob", "Carol"]
    take = page.locator('#pane button[title="PLAY 1"]')
    await take.wait_for()
    join = page.locator(f'#pane button[title="TOURNEY JOIN {cup.id}"]')
    await join.wait_for()
    await page.screenshot(path=str(artifacts / "round5-lobby-phone.png"), full_page=True)
    assert await page.evaluate(SMALL_TARGETS) == []
    assert await axe(page) == []
    # a tournament joined
    await join.tap()
    await screen_has(page, f"TOURNEY JOIN {cup.id}")
    await screen_has(page, f"You enter tournament {cup.id}")
    # a challenge to Bob, at Triptycha
    await page.locator("#challenge-name").fill("Bob")
    await page.locator("#challenge-game").select_option(label="Triptycha")
    await page.get_by_role("button", name="Challenge", exact=True).tap()
    await screen_has(page, "TT CHALLENGE Bob")
    await bob.expect("Ada challenges you", timeout=10)
    # and at Pyramid, whose challenge is a tournament offered
    await page.locator("#challenge-game").select_option(label="Pyramid")
    await page.get_by_role("button", name="Challenge", exact=True).tap()
    await screen_has(page, "PYR TOUR HUMAN Bob")
    await bob.expect("Ada challenges you to Pyramid", timeout=10)
    # the computer at the level chosen
    await page.get_by_role("radio", name="Hard").check()
    vs = page.locator('#pane button[data-level="DICE CHALLENGE COMPUTER"]')
    assert await vs.get_attribute("title") == "DICE CHALLENGE COMPUTER HARD"
    await vs.tap()
    await screen_has(page, "DICE CHALLENGE COMPUTER HARD")
    await until(page, "document.getElementById('pane').dataset.game !== undefined")
    game, seat = live_game(parlor, "dice", "Ada")
    assert game.seats[1 - seat].name == "Computer(hard)", game.seats
    await click(page, '#pane button.act[title="DICE RESIGN"]')   # it asks first
    await click(page, '#pane button.act.asking[title="DICE RESIGN"]')
    await until(page, "document.getElementById('pane').dataset.finished === '1'")
    await page.get_by_role("button", name="Close the board").tap()
    await lobby_of(page)
    # Carol's seek taken
    await page.locator('#pane button[title="PLAY 1"]').tap()
    await screen_has(page, "PLAY 1")
    await until(page, "document.getElementById('pane').dataset.game !== undefined")
    game, _ = live_game(parlor, "dice", "Carol")
    assert sorted(s.name for s in game.seats) == ["Ada", "Carol"]
    assert ERRORS == []
