"""The parlor in a real browser: headless Chromium (Debian's ``chromium``) driven by
Playwright's Python package.

A player opens ``/play``, creates an account (the password typed into a real password
field while the server has echo off) and plays Triad Dice against the computer to the
end, typing each move into the page; a second page watches the same game live on
``/games/<n>`` and sees every move arrive; the rankings page then shows the result and
the replay steps through the game. Screenshots of ``/play``, a live Triptycha board and
the rankings page are saved (``$ESTERPORT_ARTIFACTS`` or the test's tmp dir).

Chromium missing: skipped, or failed when ``ESTERPORT_REQUIRE_CLIENTS=1`` (CI).
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import time
from pathlib import Path

import pytest

from games.dice import notation, rules
from server.web import WebDoor
from tests.conftest import require_program

pytestmark = pytest.mark.e2e

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


async def wait_for(predicate, timeout: float = 15.0) -> None:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(0.02)


@pytest.fixture
def artifacts(tmp_path) -> Path:
    where = Path(os.environ.get("ESTERPORT_ARTIFACTS") or tmp_path / "artifacts")
    where.mkdir(parents=True, exist_ok=True)
    return where


@pytest.fixture
async def browser():
    chromium = require_program("chromium")
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        if os.environ.get("ESTERPORT_REQUIRE_CLIENTS") == "1":
            pytest.fail("playwright is required (ESTERPORT_REQUIRE_CLIENTS=1) but not installed")
        pytest.skip("playwright not installed")
    async with async_playwright() as p:
        b = await p.chromium.launch(executable_path=chromium, args=ARGS)
        yield b
        await b.close()


@pytest.fixture
async def web(parlor):
    door = WebDoor(parlor, host="127.0.0.1", port=0)
    await door.start()
    yield door
    await door.stop()


async def until(page, expression: str, arg=None, timeout: float = 30000) -> None:  # noqa: ANN001
    """Poll ``expression`` (a JS function of ``arg``, or an expression) until it is true.
    Not ``page.wait_for_function``: that evaluates its predicate with ``eval`` inside
    the page, which the door's Content-Security-Policy (script-src 'self') forbids."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout / 1000
    while not (await page.evaluate(expression, arg) if arg is not None
               else await page.evaluate(expression)):
        if loop.time() >= deadline:
            tail = await page.evaluate(
                "() => (document.getElementById('screen') || document.body).textContent.slice(-600)")
            from tests.e2e.test_web_pane import RECEIVED
            sent = [f[:160] for f in RECEIVED.get(id(page), ())]
            raise AssertionError(f"never true: {expression} ({arg!r}); the screen ends: "
                                 f"{tail!r}; the socket's last frames: {sent}")
        await asyncio.sleep(0.05)


async def screen_has(page, text: str, timeout: float = 15000) -> None:  # noqa: ANN001
    await until(page,
        "t => document.getElementById('screen').textContent.includes(t)", arg=text,
        timeout=timeout)


async def type_line(page, line: str) -> None:  # noqa: ANN001
    secret = page.locator("#secret")
    box = secret if await secret.is_visible() else page.locator("#line")
    await box.fill(line)
    await box.press("Enter")


async def test_a_browser_player_plays_dice_to_the_end_while_another_watches(
        parlor, web, browser, artifacts, clients):
    base = web.url.rstrip("/")
    player = await browser.new_page(viewport={"width": 1100, "height": 800})
    await player.goto(base + "/play")
    await screen_has(player, "Name: ")
    await type_line(player, "new")
    await screen_has(player, "Choose a name: ")
    await type_line(player, "Wanda")
    await screen_has(player, "Choose a password: ")
    # echo is off: the page shows a real password field instead of the command line
    assert await player.locator("#secret").is_visible()
    assert await player.locator("#secret").get_attribute("type") == "password"
    assert not await player.locator("#line").is_visible()
    await type_line(player, "hunter22")
    await screen_has(player, "Type it again: ")
    await type_line(player, "hunter22")
    await screen_has(player, "Welcome, Wanda!")
    await screen_has(player, "The Plaza of Esterport")  # drawn once she is listed
    await player.locator("#line").wait_for(state="visible")
    assert "hunter22" not in await player.locator("#screen").text_content()
    session = parlor.online.named("Wanda")
    assert session is not None and session.address == "127.0.0.1"
    assert 60 <= session.width <= 250      # the page's width in columns, sent as NAWS
    # colours arrive as styled text, not escape codes
    assert "\x1b" not in await player.locator("#screen").text_content()

    await type_line(player, "dice challenge computer easy")
    await screen_has(player, "Wanda vs Computer(easy) begins")
    game = next(g for g in parlor.host.live.values() if g.kind.key == "dice")
    assert game.seats[0].name == "Wanda"
    link = player.locator("#gamelink a")   # from the game's GMCP view
    await link.wait_for(state="visible")
    assert await link.get_attribute("href") == f"/games/{game.id}"

    watcher = await browser.new_page(viewport={"width": 900, "height": 900})
    await watcher.goto(f"{base}/games/{game.id}")
    await until(watcher, "document.getElementById('live').dataset.version !== ''")
    assert await watcher.locator("table.board.dice").count() == 1
    await player.screenshot(path=str(artifacts / "play.png"))

    rng = random.Random(5)
    seen_by_watcher = 0
    for _ in range(300):
        await wait_for(lambda: game.outcome is not None or game.state.turn == 0)
        if game.outcome is not None:
            break
        action = rng.choice(list(rules.legal_actions(game.state, 0)))
        version = game.version
        await type_line(player, f"dice {notation.format_action(action)}")
        await wait_for(lambda: game.version > version or game.outcome is not None)
        # the watching page receives the move (its board and log update without a reload)
        target = game.version
        await until(watcher,
            "v => Number(document.getElementById('live').dataset.version) >= v || "
            "document.getElementById('live').dataset.ended === '1'", arg=target)
        seen_by_watcher += 1
    assert game.outcome is not None and seen_by_watcher >= 3
    await screen_has(player, f"Game #{game.id}: ")
    await until(watcher, "document.getElementById('live').dataset.ended === '1'")
    status = await watcher.locator("#status").text_content()
    assert re.search(r"wins|draw|over", status), status
    assert await watcher.locator("#log li").count() >= seen_by_watcher
    # the log numbers moves, not lines: one item a move, each numbered by its move
    numbers = await watcher.eval_on_selector_all(
        "#log li:not(.note)", "items => items.map(li => li.value)")
    assert numbers == sorted(set(numbers)) and numbers[-1] == game.version, numbers
    await watcher.screenshot(path=str(artifacts / "dice-watched.png"), full_page=True)

    rankings = await browser.new_page(viewport={"width": 900, "height": 700})
    await rankings.goto(f"{base}/rankings/dice")
    row = rankings.locator("table.records tr", has_text="Wanda")
    assert await row.count() == 1
    assert re.search(r"0-0-0\s*(1-0-0|0-1-0|0-0-1)", await row.text_content())
    await rankings.screenshot(path=str(artifacts / "rankings.png"), full_page=True)

    total = game.version
    replay = await browser.new_page()
    await replay.goto(f"{base}/games/{game.id}/replay?move=0")
    assert f"After move 0 of {total}" in await replay.locator("#position").text_content()
    for step in (1, 2, 3):
        async with replay.expect_navigation():
            await replay.locator("#next").click()
        assert f"After move {step} of {total}" in await replay.locator("#position").text_content()
        assert await replay.locator("table.board.dice").count() == 1
    await replay.screenshot(path=str(artifacts / "dice-replay.png"), full_page=True)
    async with replay.expect_navigation():
        await replay.locator("#prev").click()
    assert "After move 2 of" in await replay.locator("#position").text_content()

async def test_a_live_triptycha_board_in_the_browser(parlor, web, browser, artifacts, clients):
    await parlor.load_default_data()
    alice = await clients("Alice")
    await alice.cmd("tt challenge computer easy Random",
                    r"Alice vs Computer\(easy\) begins \(Random\)")
    game = next(g for g in parlor.host.live.values() if g.kind.key == "tt")
    page = await browser.new_page(viewport={"width": 900, "height": 900})
    await page.goto(f"{web.url.rstrip('/')}/games/{game.id}")
    await until(page, "document.getElementById('live').dataset.version !== ''")
    assert await page.locator("svg.board.triptycha polygon").count() == 9
    rng = random.Random(1)
    from games.triptycha import notation as tt_notation
    from tests.e2e.test_e2e_triptycha import announced
    from games.triptycha import rules as tt_rules
    for _ in range(300):   # a few lays, so the board has tiles on it
        if game.outcome is not None or game.state.laid >= 4:
            break
        if game.kind.spec.to_move(game.state) == (0,) and game.state.phase == "play":
            acts = list(tt_rules.legal_actions(game.state, 0))
            pick = [a for a in acts if isinstance(a, tt_rules.Lay)] or \
                [a for a in acts if isinstance(a, tt_rules.Flip)]
            text = tt_notation.format_action(rng.choice(pick))
            await alice.cmd(f"tt {text}", announced("Alice", text))
        else:
            await asyncio.sleep(0.02)
    await until(page,
        "v => Number(document.getElementById('live').dataset.version) >= v", arg=game.version)
    await page.screenshot(path=str(artifacts / "triptycha-live.png"), full_page=True)
    assert await page.locator("svg.board.triptycha g.own0, svg.board.triptycha g.own1").count() >= 1


async def test_seeks_and_tournament_pages_follow_changes_live(parlor, web, browser, artifacts,
                                                              clients):
    """/seeks shows a seek posted over telnet, and its going, without a reload; a
    tournament's page and the list show its pairing and then its result as they come."""
    from server.hosting import Seat

    base = web.url.rstrip("/")
    errors: list = []
    follow = "document.getElementById('follow')"
    seeks = await browser.new_page(viewport={"width": 900, "height": 700})
    seeks.on("pageerror", lambda exc: errors.append(str(exc)))
    await seeks.goto(base + "/seeks")
    assert "Nobody is seeking a game right now." in await seeks.locator("#follow").text_content()
    await until(seeks, f"{follow}.dataset.updates === '1'")   # following
    alice = await clients("Alice")
    bob = await clients("Bob")
    await alice.cmd("ttt seek ranked", "Your seek 1 is posted")
    await until(seeks, f"{follow}.textContent.includes('Alice')")
    row = seeks.locator("#follow table.seeks tbody tr")
    assert await row.count() == 1
    assert re.search(r"Noughts and Crosses\s*Alice\s*1500 ±350 provisional\s*any\s*ranked",
                     await row.text_content())
    assert await seeks.locator("#follow-status").text_content() == "1 seek is open."
    await seeks.screenshot(path=str(artifacts / "seeks-live.png"), full_page=True)

    svc = parlor.host.tournaments
    ids = {n: (await parlor.accounts.get(n)).id for n in ("Alice", "Bob")}
    t = await svc.create("ttt", "swiss", 1, {}, Seat(ids["Alice"], "Alice"), admin=False)
    for n in ("Alice", "Bob"):
        await svc.join(t.id, Seat(ids[n], n))
    listing = await browser.new_page(viewport={"width": 900, "height": 700})
    listing.on("pageerror", lambda exc: errors.append(str(exc)))
    await listing.goto(base + "/tournaments")
    await until(listing, f"{follow}.dataset.updates === '1'")
    assert await listing.locator("#t-open + .wide table a", has_text=t.title).count() == 1
    page = await browser.new_page(viewport={"width": 900, "height": 800})
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    await page.goto(f"{base}/tournaments/{t.id}")
    await until(page, f"{follow}.dataset.updates === '1'")
    assert await page.locator("#follow-status").text_content() == "Open for entrants; 1 round."

    await svc.begin(t.id, Seat(ids["Alice"], "Alice"), admin=False)
    await until(page, f"{follow}.querySelector('table.pairings a[href^=\"/games/\"]') !== null")
    assert await page.locator("#follow-status").text_content() == "Running; round 1 of 1."
    pairing = page.locator("table.pairings tbody tr")
    assert "playing" in await pairing.text_content()
    await until(listing, "document.querySelector('#t-running + .wide table') !== null")
    # the players' game began, so Alice's seek went: the seeks page says so
    await until(seeks, f"{follow}.textContent.includes('Nobody is seeking')")

    row = await svc.get(t.id)
    [p] = row.state["pairings"][-1]
    second = bob if p["second"] == ids["Bob"] else alice
    await second.cmd("ttt resign", "resign|wins")
    await until(page, f"{follow}.dataset.ended === '1'")   # finished: the stream ends
    assert await page.locator("#follow-status").text_content() == "Finished; round 1 of 1."
    assert re.search(r"(1-0|0-1)", await pairing.text_content())
    winner = "Alice" if second is bob else "Bob"
    assert f"Won by {winner}." in await page.locator("#follow").text_content()
    link = page.locator("table.pairings a[href^='/games/']")
    assert await link.get_attribute("href") == f"/games/{p['game']}"
    await page.screenshot(path=str(artifacts / "tournament-live.png"), full_page=True)
    await until(listing, "document.querySelector('#t-finished + .wide table') !== null")
    assert winner in await listing.locator("#t-finished + .wide table").text_content()
    async with page.expect_navigation():
        await link.click()
    assert "Noughts and Crosses" in await page.locator("h1").text_content()
    assert errors == []
