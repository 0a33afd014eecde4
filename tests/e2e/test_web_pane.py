"""/play's board pane in a real browser (Debian's Chromium, driven by Playwright).

Each of the four games is played to its end by clicks alone against the computer, at
1280×800 and at 390×844: after every move the pane's drawing is checked against the
server's own view of the game (the GMCP view the pane draws from, read from the live game),
every click's command is seen in the scrollback, and axe-core finds nothing wrong on /play
mid-game. Then: two pages play each other (the challenge accepted from its toast) while a
third watches; and the server restarts mid-game while /play reconnects by itself, logs in
again with its resume token (kept in the database, so it outlives the restart; the page
never keeps the password) and finishes the game; a token refused, the page asks for the
password. Pyramid is played to the deal's real end and HINT's cards are seen highlighted;
the last move is checked marked after every move; every game's replay is stepped.

axe-core (MPL-2.0) is vendored at ``tests/e2e/vendor/axe.min.js`` (4.14.1, from npm);
it runs through ``page.evaluate`` (the door's CSP forbids injected script tags).
Screenshots go to ``$ESTERPORT_ARTIFACTS`` (or the test's tmp dir).
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import tempfile
import time
from collections import deque
from pathlib import Path

import pytest
import sqlalchemy as sa

from commands.app import assemble
from games.pyramid.spoken import card_words
from server.models import ResumeToken
from server.web import WebDoor
from tests.conftest import make_config
from tests.e2e.test_web_browser import artifacts, browser, until  # noqa: F401 (fixtures)

# a failing check leaves a screenshot of the page here (the temporary folder exists)
FAILED_SHOT = os.path.join(tempfile.gettempdir(), "esterport-web-pane-failure.png")

pytestmark = pytest.mark.e2e

AXE = Path(__file__).parent / "vendor" / "axe.min.js"
ERRORS: list = []   # the last page's script errors, for a failure's message
LOG: list = []      # the moves made, likewise
MARK: dict = {}     # the game's version before a move's last click
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


@pytest.fixture
async def web(parlor):
    await parlor.load_default_data()
    door = WebDoor(parlor, host="127.0.0.1", port=0)
    await door.start()
    yield door
    await door.stop()


# the last frames each page was sent on its /play socket (by id of the page)
RECEIVED: dict[int, deque] = {}


async def open_play(browser, base: str, size: str, errors: list):  # noqa: ANN001
    w, h = SIZES[size]
    page = await browser.new_page(viewport={"width": w, "height": h},
                                  has_touch=size == "phone", is_mobile=size == "phone")
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    # what the page's socket was sent lately, for a wait that runs out to show
    page.on("websocket", lambda ws: ws.on(
        "framereceived", lambda frame: RECEIVED.setdefault(id(page), deque(maxlen=12)).append(
            frame if isinstance(frame, str) else f"<{len(frame)} bytes>")))
    await page.goto(base + "/play")
    return page


async def screen_has(page, text: str, timeout: float = 15000) -> None:  # noqa: ANN001
    await until(page, "t => document.getElementById('screen').textContent.includes(t)",
                arg=text, timeout=timeout)


async def type_line(page, line: str) -> None:  # noqa: ANN001
    secret = page.locator("#secret")
    box = secret if await secret.is_visible() else page.locator("#line")
    await box.fill(line)
    await box.press("Enter")


async def create(page, name: str) -> None:  # noqa: ANN001
    await screen_has(page, "Name: ")
    await type_line(page, "new")
    await screen_has(page, "Choose a name: ")
    await type_line(page, name)
    await screen_has(page, "Choose a password: ")
    assert await page.locator("#secret").get_attribute("autocomplete") == "new-password"
    await type_line(page, "hunter22")
    await screen_has(page, "Type it again: ")
    await type_line(page, "hunter22")
    await screen_has(page, f"Welcome, {name}!")


async def click(page, selector: str) -> str:  # noqa: ANN001
    """Click the pane's element; return the command it sent (its title, or '')."""
    from playwright.async_api import Error
    for attempt in range(10):   # the pane is redrawn on every version: an opponent's
        el = page.locator(selector).first   # hidden draw may replace what was found
        try:   # (bounds for a machine whose cores are busy with other work)
            await el.scroll_into_view_if_needed(timeout=30000)
            line = await el.get_attribute("title", timeout=30000) or ""
            await el.click(timeout=30000)
            return line
        except Error as err:
            if "not attached" not in str(err) or attempt == 9:
                await page.screenshot(path=FAILED_SHOT)
                html = await page.evaluate("document.getElementById('pane').outerHTML")
                raise AssertionError(f"{selector}: {err}\n{html[:300]}\n{ERRORS}\n{LOG}") from None
            await asyncio.sleep(0.05)
    return ""


async def pane_version(page) -> int:  # noqa: ANN001
    v = await page.evaluate("document.getElementById('pane').dataset.version || '-1'")
    return int(v)


async def caught_up(page, game) -> None:  # noqa: ANN001
    """The pane draws the game's latest version (or its end)."""
    await until(page, "v => Number(document.getElementById('pane').dataset.version) >= v",
                arg=game.version, timeout=20000)


async def axe(page) -> list:  # noqa: ANN001
    if not await page.evaluate("typeof window.axe !== 'undefined'"):
        await page.evaluate(AXE.read_text())
    found = await page.evaluate("""async () => {
        const r = await axe.run(document, {resultTypes: ['violations']});
        return r.violations.map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ') + ' ' + (n.failureSummary || '')).slice(0, 4).join(' | '));
    }""")
    return found


# -- what the pane shows, against the server's view ----------------------------------------
DIGEST_JS = """() => {
  const pane = document.getElementById('pane');
  const kind = pane.dataset.kind;
  const out = {kind, version: Number(pane.dataset.version)};
  if (kind === 'dice') {
    out.dice = [...pane.querySelectorAll('table.board.dice .cell')].map(c => c.getAttribute('aria-label').split(',')[0]).filter(l => !l.endsWith('empty')).sort();
  } else if (kind === 'pyramid') {
    out.cards = [...pane.querySelectorAll('.board.pyramid .prow .card')].map(c => c.classList.contains('gone') ? '-' : (c.querySelector('[aria-hidden]') || c).textContent);
    out.last = [...pane.querySelectorAll('.board.pyramid .prow .card.last')].map(c => c.getAttribute('aria-label').split(':')[0]);
    out.said = (document.getElementById('lastmove') || {}).textContent || null;
  } else if (kind === 'triptycha') {
    out.niches = [...pane.querySelectorAll('svg.board.triptycha g.niche')].map(g => g.classList.contains('own0') ? 0 : g.classList.contains('own1') ? 1 : null);
    out.last = [...pane.querySelectorAll('svg.board.triptycha g.niche.last')].map(g => Number(g.dataset.key.split(':')[1]));
    out.flipped = [...pane.querySelectorAll('svg.board.triptycha g.niche.flipped')].map(g => Number(g.dataset.key.split(':')[1]));
    out.said = (document.getElementById('lastmove') || {}).textContent || null;
  } else if (kind === 'triad') {
    out.stacks = [...pane.querySelectorAll('table.board.triad tbody tr')].map(r => Number(r.children[2].textContent));
    out.last = [...pane.querySelectorAll('table.board.triad tbody tr.last')].map(r => parseInt(r.children[0].textContent) - 1);
    out.said = (document.getElementById('lastmove') || {}).textContent || null;
  }
  return out;
}"""


def digest(view: dict, seat: int, names: list[str]) -> dict:
    kind = view["game"]
    if kind == "dice":
        return {"dice": sorted(f"{d['cell']}: " + ("your " if d["seat"] == seat else
                                                     f"{names[d['seat']]}'s ") + str(d["value"])
                               for d in view["dice"])}
    if kind == "pyramid":
        # the last move marked where its cards were (this game's only), and said in a line
        last = view["last_move"] if view["last_move"] and \
            view["last_move"]["game_no"] == view["game_no"] else None
        said = None
        if last:
            where = {"P": "the Pack", "W": "the Waste Pile"}
            said = "Last move: " + {   # the cards in words, as the game's spoken lines say
                "remove": "removed the " + " and the ".join(
                    f"{card_words(c)} ({where.get(x, x)})"
                    for c, x in zip(last["cards"], last["spots"])),
                "deal": f"turned the {card_words(last['cards'][0]) if last['cards'] else ''} "
                        "from the Pack to the Waste Pile",
                "redeal": "redealt the Waste Pile", "end": "ended the game"}[last["kind"]] + "."
        return {"cards": [c["text"] if c else "-" for c in view["pyramid"]],
                "last": [x for x in (last["spots"] if last and last["kind"] == "remove" else [])
                         if x not in ("P", "W")],
                "said": said}
    if kind == "triptycha":
        last = view["last_move"]
        said = None
        if last:
            flipped = [str(n) for n in last["flipped"]]
            took = "" if not flipped else " and took " + (
                "niche " + flipped[0] if len(flipped) == 1 else
                "niches " + ", ".join(flipped[:-1]) + " and " + flipped[-1])
            said = f"Last move: {names[last['seat']]} laid a tile in niche {last['niche']}{took}."
        return {"niches": [c["controller"] if c else None for c in view["board"]],
                "last": [last["niche"]] if last else [],
                "flipped": sorted(last["flipped"]) if last else [],
                "said": said}
    if kind == "triad":
        last = view["last_move"]
        return {"stacks": [s["stack"] for s in view["seats"] if not s["empty"]],
                "last": [last["seat"]] if last and last["kind"] != "DEAL" else [],
                "said": bool(last)}
    return {}


async def check_pane(page, game, seat: int) -> dict:  # noqa: ANN001
    """The pane draws what the server's view of this version holds (the computer may move
    meanwhile: then the next version is compared)."""
    for _ in range(50):
        frame = game.frame(seat)
        await until(page, "v => Number(document.getElementById('pane').dataset.version) >= v",
                    arg=frame.version, timeout=20000)
        shown = await page.evaluate(DIGEST_JS)
        if shown["version"] != frame.version:
            continue
        want = digest(frame.view, seat, list(frame.names))
        got = {k: v for k, v in shown.items() if k in want}
        if isinstance(want.get("said"), bool):   # Triad: a line or none, whatever its words
            got["said"] = bool(got["said"])
        if got != want:
            await page.screenshot(path=FAILED_SHOT)
            html = await page.evaluate("document.getElementById('pane').outerHTML")
            raise AssertionError(f"{got} != {want}\n{html[:3000]}\n{ERRORS}")
        return frame
    raise AssertionError("the pane never caught up with the game")


# -- one move by clicks, per game ----------------------------------------------------------
async def dice_move(page, view: dict, rng: random.Random) -> str:  # noqa: ANN001
    legal = view["legal"]
    line = rng.choice(legal)
    w = line.split()
    if w[0] == "REMOVE":
        return await click(page, f'#pane [data-key="die:{w[1]}"]')
    await click(page, f'#pane [data-key="die:{w[1]}"]')
    if len(w) == 4:
        await page.locator("#pane button.cell.target").first.wait_for()
        return await click(page, f'#pane button.cell.target[title="DICE {line}"]')
    return await click(page, f'#pane button.act[title="DICE {line}"]')


def _rank(text: str) -> int:
    return {"A": 1, "J": 11, "Q": 12, "K": 13}.get(text[:-1]) or int(text[:-1])


def pyramid_spots(view: dict) -> list[tuple[str, str]]:
    """The cards that may be taken now: (spot, card)."""
    spots = []
    for i, c in enumerate(view["pyramid"]):
        if c and c["available"]:
            row = next(r for r in range(1, 8) if r * (r + 1) // 2 > i)
            spots.append((f"{row},{i - row * (row - 1) // 2 + 1}", c["text"]))
    for key, top in (("P", view["pack_top"]), ("W", view["waste_top"])):
        if top:
            spots.append((key, top["text"]))
    return spots


def pyramid_removable(view: dict) -> bool:
    spots = pyramid_spots(view)
    return any(_rank(t) == 13 for _, t in spots) or any(
        _rank(ta) + _rank(tb) == 13 for a, (_, ta) in enumerate(spots) for _, tb in spots[a + 1:])


async def pyramid_move(page, view: dict, rng: random.Random, moves: int) -> str:  # noqa: ANN001
    """Kings, then pairs, then the Pack: played until the game ends by itself (every card
    gone, or no move left after the last redeal)."""
    spots = pyramid_spots(view)
    for spot, text in spots:
        if _rank(text) == 13:
            return await click(page, f'#pane [data-key="card:{spot}"]')
    for a, (sa, ta) in enumerate(spots):
        for sb, tb in spots[a + 1:]:
            if _rank(ta) + _rank(tb) == 13 and not {sa, sb} == {"P", "W"} or \
                    _rank(ta) + _rank(tb) == 13:
                await click(page, f'#pane [data-key="card:{sa}"]')
                return await click(page, f'#pane [data-key="card:{sb}"]')
    if view["pack_count"] or view["redeals_left"]:
        return await click(page, '#pane button.act[title="PYR D"]')
    await click(page, '#pane button.act[title="PYR END"]')   # it asks first
    return await click(page, '#pane button.act.asking[title="PYR END"]')


async def tt_move(page, view: dict, seat: int, rng: random.Random) -> str:  # noqa: ANN001
    if view["phase"] == "draw":
        # the tiles the pane offers now (a tile drawn is no button): the view checked
        # before this move can be a version behind the pane when a draw of ours was
        # still on its way, as a player clicks what is on the screen
        free = await page.evaluate("""Array.from(document.querySelectorAll(
            '#pane button[data-key^="deck:"]'), b => b.dataset.key)""")
        if not free:
            free = [f'deck:{d["pos"]}' for d in view["deck"] if not d["drawn"]]
        return await click(page, f'#pane [data-key="{rng.choice(sorted(free))}"]')
    if view["phase"] == "trading":   # the trading clock, shown while the winner takes
        await page.locator("#clock").wait_for()
        assert re.match(r"Trading ends in \d+:\d\d", await page.locator("#clock").text_content())
        return await click(page, '#pane button.act[title="TT DONE"]')
    hand = [t for t in view["hands"][seat] if t["niche"] is None]
    tile = rng.choice(hand)
    await click(page, f'#pane [data-key="tile:{tile["n"]}"]')
    try:
        await page.locator(f'#pane [data-key="tile:{tile["n"]}"][aria-pressed="true"]').wait_for(timeout=5000)
    except Exception:
        await page.screenshot(path=FAILED_SHOT)
        html = await page.evaluate("document.getElementById('pane').outerHTML")
        g = await page.evaluate("JSON.stringify(window.esterport.gmcp.slice(-3).map(x => [x[0], x[1] && x[1].version]))")
        raise AssertionError(f"{html[:5000]}\n{g}\n{view}")
    if not await page.locator("#pane svg g.niche.target").count():
        version = await pane_version(page)
        await click(page, f'#pane button.act[title="TT FLIP {tile["n"]}"]')
        await until(page, "v => Number(document.getElementById('pane').dataset.version) > v",
                    arg=version)   # the tile stays picked through its flip
    MARK["version"] = await pane_version(page)   # the flip was a move of its own
    targets = page.locator("#pane svg g.niche.target")
    await targets.first.wait_for()
    n = rng.randrange(await targets.count())
    key = await targets.nth(n).get_attribute("data-key")
    await targets.nth(n).click()
    return f"TT LAY {tile['n']} IN {key.split(':')[1]}"


async def triad_move(page, view: dict, seat: int, rng: random.Random, hands: list) -> str:  # noqa: ANN001
    phase = view["phase"]
    if phase == "hand_over":
        if view["hand_no"] >= 1:
            hands.append(view["hand_no"])
            return await click(page, '#pane button.act[title="TRIAD LEAVE"]')
        if len([s for s in view["seats"] if not s["empty"]]) < 2:
            return await click(page, '#pane button.act[title="TRIAD BOT EASY"]')
        return await click(page, '#pane button.act[title="TRIAD START"]')
    if phase == "draw":
        picks = rng.sample(range(1, 7), rng.randint(0, 2))
        for pos in picks:
            await click(page, f'#pane [data-key="tcard:{pos}"]')
        if picks:
            return await click(page, '#pane button.act[title^="TRIAD DISCARD"]')
        return await click(page, '#pane button.act[title="TRIAD STAND"]')
    if view.get("to_equal"):
        return await click(page, '#pane button.act[title="TRIAD EQUAL"]')
    if view.get("raise_range") and rng.random() < 0.3:
        lo = view["raise_range"][0]
        await page.locator("#raise-amount").fill(str(lo))
        await page.locator("#pane .raise button").click()
        return f"TRIAD RAISE {lo}"
    return await click(page, '#pane button.act[title="TRIAD PASS"]')


START = {"dice": "DICE CHALLENGE COMPUTER EASY", "tt": "TT CHALLENGE COMPUTER EASY",
         "pyr": "PYR NEW", "triad": "TRIAD OPEN"}


async def move(page, kind: str, view: dict, seat: int, rng: random.Random, moves: int,  # noqa: ANN001
               hands: list) -> str:
    if kind == "dice":
        return await dice_move(page, view, rng)
    if kind == "pyr":
        return await pyramid_move(page, view, rng, moves)
    if kind == "tt":
        return await tt_move(page, view, seat, rng)
    return await triad_move(page, view, seat, rng, hands)


async def play_out(page, parlor, game, seat: int, kind: str, *, limit: int = 400,  # noqa: ANN001
                   at=None) -> int:
    """Play ``game`` by clicks until it ends (or ``limit`` moves), checking the pane against
    the server's view before each move; ``at(moves)`` runs before a move of ours."""
    rng = random.Random(7)
    moves, hands = 0, []
    for _ in range(2000):
        if game.outcome is not None or game.id not in parlor.host.live or moves >= limit:
            break
        frame = await check_pane(page, game, seat)
        view = frame.view
        mine = seat in frame.to_move or (kind == "triad" and view["phase"] == "hand_over")
        if not mine:
            await asyncio.sleep(0.05)
            continue
        if at is not None:
            await at(moves)
        version = MARK["version"] = game.version
        line = await move(page, kind, view, seat, rng, moves, hands)
        LOG.append((view.get("phase"), frame.version, frame.to_move, line, game.version))
        await screen_has(page, line.split(" IN ")[0])   # the click's command, in the scrollback
        moves += 1
        version = MARK["version"]
        for _ in range(250):   # the move took (or the game ended)
            if game.version > version or game.outcome is not None \
                    or game.id not in parlor.host.live:
                break
            await asyncio.sleep(0.02)
        else:
            raise AssertionError(f"{line} changed nothing:\n"
                                 + (await page.locator("#screen").text_content())[-1500:])
    return moves


def live_game(parlor, kind: str, name: str):  # noqa: ANN001, ANN201
    game = next(g for g in parlor.host.live.values() if g.kind.key == kind
                and any(s.name == name for s in g.seats))
    return game, next(i for i, s in enumerate(game.seats) if s.name == name)


async def hint_highlighted(page, shot, hinted: list) -> None:  # noqa: ANN001
    """HINT: its suggested cards are highlighted in the pane, and only they (when the
    best move is to draw, HINT says so and names no card: asked again at a later move)."""
    answers = "(Hint: PYR |No cards can be removed now)"
    before = len(re.findall(answers, await page.locator("#screen").text_content()))
    await click(page, '#pane button.act[title="PYR HINT"]')
    await until(page, "([rx, n]) => (document.getElementById('screen').textContent"
                      ".match(new RegExp(rx, 'g')) || []).length > n", arg=[answers, before])
    text = await page.locator("#screen").text_content()
    if re.findall(answers, text)[-1] != "Hint: PYR ":
        return
    said = re.findall(r"Hint: PYR ([^()]+?) \(", text)[-1].split()
    await until(page, "n => document.querySelectorAll('#pane .card.hint').length === n",
                arg=len(said))
    keys = await page.evaluate(
        "[...document.querySelectorAll('#pane .card.hint')].map(c => c.dataset.key)")
    assert sorted(keys) == sorted(f"card:{x}" for x in said), (keys, said)
    await page.screenshot(path=str(shot))
    hinted.append(said)


@pytest.mark.parametrize("size", ["desktop", "phone"])
@pytest.mark.parametrize("kind", ["dice", "pyr", "tt", "triad"])
async def test_a_whole_game_by_clicks(parlor, web, browser, artifacts, kind, size):  # noqa: F811
    base = web.url.rstrip("/")
    errors: list = ERRORS
    errors.clear()
    LOG.clear()
    page = await open_play(browser, base, size, errors)
    name = f"{kind.title()}{size[0]}"
    await create(page, name)
    await click(page, f'#pane button.act[title="{START[kind]}"]')
    await screen_has(page, START[kind])   # the click's command, in the scrollback
    await until(page, "document.getElementById('pane').dataset.game !== undefined")
    game, seat = live_game(parlor, kind, name)
    checked, hinted, clocks, keyed = [], [], [], []

    async def look(moves: int) -> None:
        if kind == "pyr" and not hinted and pyramid_removable(game.frame(seat).view):
            await hint_highlighted(page, artifacts / f"pane-pyr-{size}-hint.png", hinted)
        if kind == "triad" and moves == 3:
            # the clock: whose it is and the time left, counting down between updates
            clock = page.locator("#clock")
            await clock.wait_for()
            first = await clock.text_content()
            assert re.search(r"\d+:\d\d", first), first
            await until(page, "t => { const c = document.getElementById('clock'); "
                              "return !c || c.textContent !== t; }", arg=first, timeout=5000)
            clocks.append(first)
        if moves == {"tt": 7}.get(kind, 3):
            await page.screenshot(path=str(artifacts / f"pane-{kind}-{size}.png"))
            assert await axe(page) == []
            if size == "phone":
                await phone_fits(page)
            # the board in words: the game's own screen-reader lines, kept current
            assert await page.locator("#spoken li").count() >= 3
            checked.append(moves)
        # the keyboard alone picks a die, on a turn from the third on where a die may move
        # (not one where a Triad's removal is all there is to do)
        if kind == "dice" and size == "desktop" and moves >= 3 and not keyed and any(
                not line.startswith("REMOVE") for line in game.frame(seat).view["legal"]):
            die = page.locator("#pane button.cell.movable").first
            key = await die.get_attribute("data-key")
            await die.focus()
            await page.keyboard.press("Enter")
            await until(page, "k => document.activeElement.dataset.key === k && "
                              "document.activeElement.classList.contains('picked') && "
                              "document.querySelectorAll('#pane button.cell.target').length > 0",
                        arg=key)
            await page.keyboard.press("Enter")   # and drops it again
            await until(page, "!document.querySelector('#pane button.cell.picked')")
            keyed.append(moves)

    moves = await play_out(page, parlor, game, seat, kind, at=look)
    assert game.outcome is not None or game.id not in parlor.host.live
    # the end drawn; at Triad, when she left the table (which closed it), the lobby
    await until(page, "document.getElementById('pane').dataset.finished === '1' || "
                      "document.getElementById('lobby-note') !== null")
    await page.screenshot(path=str(artifacts / f"pane-{kind}-{size}-end.png"))
    assert moves >= 2 and checked
    if kind == "dice" and size == "desktop":
        assert keyed, "no turn from the third on let a die move"
    if kind == "pyr":   # played to its real end, and HINT was seen highlighted
        assert game.state.matches[seat].game.how in ("won", "stuck"), game.state.matches[seat].game
        assert hinted
    if kind == "triad":
        assert clocks
    # its replay: the last move highlighted at every step, stepped with the arrow keys
    replay = await browser.new_page(viewport={"width": SIZES[size][0], "height": SIZES[size][1]})
    await replay.goto(f"{base}/games/{game.id}/replay?move=2")
    marks = {"dice": "#board .cell.last", "pyr": "#board .lastmove",
             "tt": "#board .lastmove", "triad": "#board .lastmove"}[kind]
    total = len(await replay.locator("ol.moves li").all())
    await replay.keyboard.press("End")
    await replay.wait_for_url(re.compile(rf"move={total}$"))
    for step in range(2):
        await replay.wait_for_load_state()
        assert await replay.locator(marks).count() >= 1, (replay.url, kind)
        await replay.keyboard.press("ArrowLeft")
        await replay.wait_for_url(re.compile(rf"move={total - step - 1}$"))
    await replay.screenshot(path=str(artifacts / f"replay-{kind}-{size}.png"))
    await replay.close()
    assert errors == []


async def test_two_pages_play_while_a_third_watches(parlor, web, browser, artifacts):  # noqa: F811
    base = web.url.rstrip("/")
    ERRORS.clear()
    alba = await open_play(browser, base, "desktop", ERRORS)
    brio = await open_play(browser, base, "phone", ERRORS)
    cato = await open_play(browser, base, "desktop", ERRORS)
    await create(alba, "Alba")
    await create(brio, "Brio")
    await create(cato, "Cato")
    # Brio's command line at the foot of his screen, as when he types
    await brio.evaluate("document.getElementById('inputbar').scrollIntoView({block: 'end'})")
    await type_line(alba, "dice challenge brio")
    toast = brio.locator(".toast", has_text="Alba challenges you to")
    await toast.wait_for()
    # the notice stands clear of the command line and Send (on a phone too)
    bar, box = (await brio.locator("#inputbar").bounding_box(), await toast.bounding_box())
    assert box["y"] + box["height"] <= bar["y"] or box["y"] >= bar["y"] + bar["height"], \
        (box, bar)
    await toast.get_by_role("button", name="Accept").click()   # accepted from the toast
    await screen_has(brio, "ACCEPT Alba")
    await until(alba, "document.getElementById('pane').dataset.game !== undefined")
    game, a_seat = live_game(parlor, "dice", "Alba")
    await type_line(cato, f"observe {game.id}")
    await screen_has(cato, f"You are now watching game #{game.id}.")
    await until(cato, "v => document.getElementById('pane').dataset.game === v", str(game.id))
    assert "watching" in await cato.locator("#turn").text_content()
    pages = {a_seat: alba, 1 - a_seat: brio}
    rng = random.Random(3)
    for _ in range(6):
        seat = game.state.turn
        page = pages[seat]
        frame = await check_pane(page, game, seat)
        assert "Your move" in await page.locator("#turn").text_content()
        assert (await page.evaluate("document.title")).startswith("● Your move")
        version = game.version
        await dice_move(page, frame.view, rng)
        for _ in range(250):
            if game.version > version:
                break
            await asyncio.sleep(0.02)
        await check_pane(cato, game, None)   # the watcher's pane follows every move
    await alba.screenshot(path=str(artifacts / "pane-two-alba.png"))
    await cato.screenshot(path=str(artifacts / "pane-two-watcher.png"))
    await click(alba, '#pane button.act[title="DICE RESIGN"]')   # it asks first
    await click(alba, '#pane button.act.asking[title="DICE RESIGN"]')
    for page in (alba, brio, cato):
        await until(page, "document.getElementById('pane').dataset.finished === '1'")
    assert game.outcome is not None
    assert ERRORS == []


async def test_play_reconnects_after_a_restart_and_finishes_the_game(
        sqlite_url, browser, artifacts):  # noqa: F811
    ERRORS.clear()
    LOG.clear()
    parlor = assemble(make_config(sqlite_url))
    await parlor.start()
    door = WebDoor(parlor, host="127.0.0.1", port=0)
    await door.start()
    port = door.port
    try:
        page = await open_play(browser, door.url.rstrip("/"), "desktop", ERRORS)
        await create(page, "Resto")
        await click(page, '#pane button.act[title="DICE CHALLENGE COMPUTER EASY"]')
        await until(page, "document.getElementById('pane').dataset.game !== undefined")
        game, seat = live_game(parlor, "dice", "Resto")
        await play_out(page, parlor, game, seat, "dice", limit=2)
        number = game.id
        # what the page keeps to come back: the server's resume token, not the password
        first = await page.evaluate("sessionStorage.getItem('esterport.resume')")
        assert first and len(first) >= 43 and "hunter22" not in first
        # as if issued long ago: only its drop (the shutdown) makes it good again, for a while
        async with parlor.db.session() as tx:
            await tx.execute(sa.update(ResumeToken).values(expires_at=time.time() - 1))
            await tx.commit()
    finally:
        await door.stop()
        await parlor.stop()
    await until(page, "document.getElementById('state').textContent.includes('Reconnecting')")
    # the token is kept (as its digest) in the database, so it outlives the restart
    parlor = assemble(make_config(sqlite_url))
    await parlor.start()
    door = WebDoor(parlor, host="127.0.0.1", port=port)
    await door.start()
    try:
        await screen_has(page, "(reconnecting as Resto)", timeout=30000)
        await until(page, "document.getElementById('client').dataset.connected === '1'")
        # while the parlor was down, what the page asked of it was refused, or answered
        # 503 by the front if asked as it went (the icon of "your move", say)
        down, ERRORS[:] = list(ERRORS), []
        assert not [e for e in down if "WebSocket" not in e and "ERR_CONNECTION_REFUSED" not in e
                    and "status of 503" not in e], down
        for _ in range(500):   # logged in again, by the page itself
            if parlor.online.named("Resto") is not None:
                break
            await asyncio.sleep(0.02)
        assert parlor.online.named("Resto") is not None
        assert await page.locator("#secret").is_hidden()   # no password asked, none typed
        # used once, and a new one given for the next drop
        await until(page, "t => (sessionStorage.getItem('esterport.resume') || t) !== t", first)
        assert await parlor.resume.redeem(first) is None
        await until(page, "v => document.getElementById('pane').dataset.game === v", str(number))
        game = parlor.host.live[number]
        await page.screenshot(path=str(artifacts / "pane-restarted.png"))
        await play_out(page, parlor, game, seat, "dice")
        assert game.outcome is not None
        await until(page, "document.getElementById('pane').dataset.finished === '1'")
        assert ERRORS == []   # once it is back, nothing fails
    finally:
        await door.stop()
        await parlor.stop()


async def test_play_asks_for_the_password_when_its_token_is_refused(parlor, web, browser):  # noqa: F811
    """A drop after the token ended (expired, or QUIT elsewhere): the page types the name
    and asks for the password, which it never kept; the game is found waiting."""
    ERRORS.clear()
    page = await open_play(browser, web.url.rstrip("/"), "desktop", ERRORS)
    await create(page, "Tokyo")
    await click(page, '#pane button.act[title="DICE CHALLENGE COMPUTER EASY"]')
    await until(page, "document.getElementById('pane').dataset.game !== undefined")
    game, seat = live_game(parlor, "dice", "Tokyo")
    account = await parlor.accounts.get("Tokyo")
    await until(page, "sessionStorage.getItem('esterport.resume') !== null")
    await parlor.resume.revoke(account.id)   # as if it had expired
    parlor.online.named("Tokyo").close("Dropped for the test.")
    await screen_has(page, "cannot be resumed", timeout=30000)
    await until(page, "document.getElementById('secret').offsetParent !== null")
    await type_line(page, "hunter22")
    await screen_has(page, "You have a game in progress")
    assert parlor.online.named("Tokyo") is not None
    await until(page, "v => document.getElementById('pane').dataset.game === v", str(game.id))
    await play_out(page, parlor, game, seat, "dice", limit=2)


async def phone_fits(page) -> None:  # noqa: ANN001
    """At 390 px: nothing wider than the window, the terminal's width in columns is what it
    shows (no line of the board the server drew wraps), the touch targets are 44 px."""
    info = await page.evaluate("""() => {
        const screen = document.getElementById('screen');
        const probe = document.createElement('span');
        probe.textContent = '0'.repeat(10); probe.style.visibility = 'hidden';
        screen.appendChild(probe);
        const ch = probe.getBoundingClientRect().width / 10;
        const lh = probe.getBoundingClientRect().height;
        screen.removeChild(probe);
        const lines = [...screen.querySelectorAll('.line')];
        const wrapped = lines.filter(l => l.getBoundingClientRect().height > lh * 1.5).map(l => l.textContent);
        const small = [...document.querySelectorAll('#pane button, #pane [role=button]')]
            .filter(b => b.offsetParent !== null || b.getBBox)
            .map(b => [b, b.getBoundingClientRect()])
            .filter(([b, r]) => r.width > 0 && (r.width < 43.5 || r.height < 43.5))
            .map(([b, r]) => (b.getAttribute('title') || b.textContent) + ' ' + Math.round(r.width) + 'x' + Math.round(r.height));
        return {page: document.documentElement.scrollWidth, width: window.innerWidth,
                cols: Math.floor((screen.clientWidth - 8) / ch), wrapped, small};
    }""")
    assert info["page"] <= info["width"], info
    assert info["cols"] >= 60, info
    assert info["wrapped"] == [], info
    assert info["small"] == [], info


async def test_every_page_passes_axe(parlor, web, browser, artifacts, clients):  # noqa: F811
    """axe-core on each page of the door (a game in play, its replay, a player's page,
    rankings, the Top 10, the seeks, the tournaments (one running, one open), an error)
    at both sizes: no violation, contrast included."""
    from server.hosting import Seat

    alice = await clients("Alice")
    await alice.cmd("dice challenge computer easy", r"begins")
    game = next(g for g in parlor.host.live.values() if g.kind.key == "dice")
    await clients("Bob")   # online, so paired (a no-show forfeits)
    carol = await clients("Carol")
    await carol.cmd("dice seek ranked 1400-1700", "Your seek 1 is posted")
    svc = parlor.host.tournaments
    seats = {n: Seat((await parlor.accounts.get(n)).id, n) for n in ("Alice", "Bob", "Carol")}
    running = await svc.create("ttt", "swiss", 3, {}, seats["Alice"], admin=False)
    for n in ("Alice", "Bob"):
        await svc.join(running.id, seats[n])
    await svc.begin(running.id, seats["Alice"], admin=False)
    waiting = await svc.create("dice", "swiss", 2, {}, seats["Carol"], admin=False)
    base = web.url.rstrip("/")
    paths = ["/", "/games", f"/games/{game.id}", "/rankings", "/rankings/dice",
             "/players/Alice", "/players/Computer%28easy%29", "/pyramid/top10", "/nowhere",
             "/seeks", "/tournaments", f"/tournaments/{running.id}",
             f"/tournaments/{waiting.id}", "/tournaments/99"]
    await alice.cmd("dice resign", r"wins|resign")
    paths.append(f"/games/{game.id}/replay?move=1")
    found = {}
    for size, (w, h) in SIZES.items():
        page = await browser.new_page(viewport={"width": w, "height": h})
        for path in paths:
            await page.goto(base + path)
            if await page.locator("#follow[data-events]").count():
                # a live page: checked once its first update has been drawn in
                await until(page, "document.getElementById('follow').dataset.updates")
            violations = await axe(page)
            if violations:
                found[f"{size} {path}"] = violations
            if size == "phone":
                assert await page.evaluate(
                    "document.documentElement.scrollWidth <= window.innerWidth"), path
        await page.close()
    assert found == {}
