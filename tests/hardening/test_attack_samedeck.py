"""The third attack campaign's tournament leak, one test per door: in a Pyramid
tournament between two people with Use Same Deck, the deal one player is already playing
showed, before the other had played it, through REPLAY, OBSERVE, PYR DISPLAY, the web
page and its JSON twin, and the live stream told every watcher each draw.

The reproduction of the finding: Bob (Use Same Deck on) challenges Carol, who accepts;
Bob ends deal 1 (PYR END) and draws once in deal 2 (PYR D). Carol is still on deal 1,
so no one but Bob may see deal 2: not Carol, not a watcher (Dave), not the web. A board
is recognised by its row 7, seven cards in order, which no other board repeats by chance.
"""

from __future__ import annotations

import asyncio
import json
import re

import httpx
import pytest

from games.pyramid.cards import card_text
from server.web import WebDoor
from tests.support.client import Client

KEY = "pyr"
HIDDEN = "stay hidden until both players have played it"
CARD = re.compile(r"(?<![0-9A-Za-z])(10|[2-9AJQK])([SHDC])(?![0-9A-Za-z])")


# -- helpers --------------------------------------------------------------------------------
def row7(parlor, number: int, seat: int) -> list[str]:  # noqa: ANN001
    """The cards of row 7 of ``seat``'s current deal, in order."""
    game = parlor.host.live[number].state.matches[seat].game
    return [card_text(c) for c in game.pyramid[21:28] if c is not None]


def shows(text: str, cards: list[str]) -> bool:
    """Whether ``text`` (telnet text, HTML or JSON) names ``cards`` one after another."""
    found = ["".join(m.groups()) for m in CARD.finditer(text)]
    return any(found[i:i + len(cards)] == cards for i in range(len(found) - len(cards) + 1))


async def reproduce(clients) -> tuple[Client, Client, int]:  # noqa: ANN001
    """Bob and Carol's Same Deck tournament, Bob one deal ahead: (Bob, Carol, number)."""
    bob = await clients("Bob")
    carol = await clients("Carol")
    await bob.cmd("pyr config samedeck yes", "Config saved:")
    await bob.cmd("pyr tour human carol", r"You offer Carol Pyramid")
    await carol.expect(r"Type PYR\s+ACCEPT Bob")  # wrapped at 80 if her window came late
    out = await carol.cmd("pyr accept bob", r"Game #(\d+): Pyramid, Bob vs Carol begins")
    number = int(re.search(r"Game #(\d+)", out).group(1))
    await bob.cmd("pyr end", "Game 2 of 6 is dealt")
    await bob.cmd("pyr d", r"Bob: D\r?\n")
    return bob, carol, number


async def carol_finishes_deal_1(carol: Client, watcher: Client) -> None:
    """Carol ends deal 1, which both have then played: a watcher hears of it (and so has
    been told whatever came before)."""
    await carol.cmd("pyr end", "Game 1 of 6 over")
    await watcher.expect(r"Carol: END(.|\n)*?Game 1 of 6 over")


@pytest.fixture
async def web(parlor):
    """The parlor's web door and an HTTP client for it (a real socket, through uvicorn)."""
    door = WebDoor(parlor, host="127.0.0.1", port=0)
    await door.start()
    try:
        async with httpx.AsyncClient(base_url=door.url.rstrip("/"), timeout=10) as http:
            yield http
    finally:
        await door.stop()


async def next_update(lines) -> dict:  # noqa: ANN001
    """The next ``update`` of a live stream (``aiter_lines()`` of its response)."""
    kind = None

    async def reading() -> dict:
        nonlocal kind
        async for line in lines:
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: ") and kind == "update":
                return json.loads(line[6:])
        raise AssertionError("the stream ended")

    return await asyncio.wait_for(reading(), 10)


# -- the telnet doors -----------------------------------------------------------------------
async def test_replay_of_a_tournament_in_play_hides_the_deal_ahead(parlor, clients):
    bob, carol, number = await reproduce(clients)
    ahead = row7(parlor, number, 0)
    out = await carol.cmd(f"replay {number}", r"Carol: game 1 of 6[^\n]*\n")
    assert not shows(out, ahead), out
    assert "Bob: D" not in out and HIDDEN in re.sub(r"\s+", " ", out), out
    out = await carol.cmd(f"replay {number} 2", r"(Carol: game 1 of 6[^\n]*|moves 0 to \d+[^\n]*)\r?\n")
    assert not shows(out, ahead), out
    # Once the game is over, its replay shows everything.
    await bob.cmd("pyr exit yes", r"Game #\d+: Carol wins \(resignation\)")
    out = await carol.cmd(f"replay {number} 2", r"After move 2 of \d+(.|\n)*?Carol: ")
    assert shows(out, ahead) and "Bob: D" in out, out


async def test_observe_hides_the_deal_ahead_and_its_draws(parlor, clients):
    bob, carol, number = await reproduce(clients)
    ahead = row7(parlor, number, 0)
    dave = await clients("Dave")
    out = await dave.cmd(f"observe {number}", r"Carol: game 1 of 6[^\n]*\n")
    assert not shows(out, ahead) and HIDDEN in re.sub(r"\s+", " ", out), out
    out = await carol.cmd(f"observe {number}", r"Bob: game 2 of 6[^\n]*\n")
    assert not shows(out, ahead), out
    await bob.cmd("pyr d", r"Bob: D\r?\n")
    await carol_finishes_deal_1(carol, dave)
    assert "Bob: D" not in dave.seen and "to the Waste Pile" not in dave.seen, dave.seen
    assert not shows(dave.seen, ahead)


async def test_pyr_display_hides_the_deal_ahead(parlor, clients):
    _, carol, number = await reproduce(clients)
    ahead = row7(parlor, number, 0)
    dave = await clients("Dave")
    out = await dave.cmd(f"pyr display {number}", r"Carol: game 1 of 6[^\n]*\n")
    assert not shows(out, ahead) and HIDDEN in re.sub(r"\s+", " ", out), out
    out = await carol.cmd(f"pyr display {number}", r"Bob: game 2 of 6[^\n]*\n")
    assert not shows(out, ahead), out


# -- the web door ---------------------------------------------------------------------------
async def test_the_game_page_hides_the_deal_ahead(parlor, clients, web):
    _, _, number = await reproduce(clients)
    page = await web.get(f"/games/{number}")
    assert page.status_code == 200
    assert not shows(page.text, row7(parlor, number, 0)), page.text
    assert HIDDEN in page.text


async def test_the_game_api_hides_the_deal_ahead(parlor, clients, web):
    _, _, number = await reproduce(clients)
    answer = await web.get(f"/api/games/{number}")
    assert answer.status_code == 200
    view = answer.json()["view"]
    assert not shows(answer.text, row7(parlor, number, 0)), view
    assert "pyramid" not in view and "pack_top" not in view and "waste_top" not in view
    assert HIDDEN in view["note"]


async def test_the_live_stream_hides_the_deal_ahead_and_its_draws(parlor, clients, web):
    bob, _, number = await reproduce(clients)
    ahead = row7(parlor, number, 0)
    async with web.stream("GET", f"/games/{number}/events") as response:
        lines = response.aiter_lines()
        first = await next_update(lines)
        assert not shows(first["board"], ahead), first
        await bob.cmd("pyr d", r"Bob: D\r?\n")
        drawn = await next_update(lines)
    assert not shows(json.dumps(drawn), ahead), drawn
    assert not any("Bob: D" in line or "Waste Pile" in line for line in drawn["lines"]), drawn
