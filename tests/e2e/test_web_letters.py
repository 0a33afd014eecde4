"""/play shows how many correspondence games wait for the player's move (GMCP
``Char.Status`` ``letters``), as a button that lists them (MYGAMES)."""

from __future__ import annotations

import re


from games.dice import notation, rules
from tests.e2e.test_web_browser import (browser, screen_has, type_line, until,  # noqa: F401
                                        web)
from tests.support.client import Client


async def test_the_page_counts_the_games_waiting_for_a_move(parlor, web, browser):  # noqa: F811
    base = web.url.rstrip("/")
    page = await browser.new_page(viewport={"width": 1100, "height": 800})
    await page.goto(base + "/play")
    await screen_has(page, "Name: ")
    for line, prompt in (("new", "Choose a name: "), ("Pia", "Choose a password: "),
                         ("secret1", "Type it again: "), ("secret1", "Welcome, Pia!")):
        await type_line(page, line)
        await screen_has(page, prompt)
    bob = await (await Client.connect(parlor.port)).create("Bob")
    try:
        await bob.cmd("dice challenge pia days 3", "by correspondence")
        await type_line(page, "dice accept")
        await screen_has(page, "Bob vs Pia begins")
        game = next(g for g in parlor.host.live.values() if g.days is not None)
        if game.state.turn == 0:   # Bob's move first: he makes it, and it is Pia's
            text = notation.format_action(next(iter(rules.legal_actions(game.state, 0))))
            await bob.cmd(f"dice {text}", re.escape(text))
        await until(page, "!document.getElementById('letters').hidden")
        label = await page.locator("#letters").text_content()
        assert label == "Your move in 1 game by correspondence (MYGAMES)", label
        await page.locator("#letters").click()
        await screen_has(page, "Your correspondence games")
        text = notation.format_action(next(iter(rules.legal_actions(game.state, 1))))
        await type_line(page, f"dice {text}")
        await until(page, "document.getElementById('letters').hidden")
    finally:
        await bob.close()
