"""Bugs of issue 12 (part 6), each seen as a player sees it over a real socket."""

from __future__ import annotations

import asyncio
import random
import re
import time

from games.dice import notation, rules
from server import cli
from tests.support.client import ANSI, Client


async def wait_for(check, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.01)


async def quiet_read(client: Client, settle: float = 0.3) -> str:
    """Everything that arrives until ``settle`` seconds pass with nothing more."""
    raw = ""
    while True:
        try:
            chunk = await asyncio.wait_for(client.reader.read(65536), settle)
        except asyncio.TimeoutError:
            return raw
        if not chunk:
            return raw
        raw += chunk


# -- 7. one prompt after a burst ------------------------------------------------------------
async def test_one_prompt_after_a_move_against_the_computer(parlor, clients):
    """A move announces itself and the server prompts once; the computer's answer comes
    with its own single prompt. Before: "(1) on b1 turns to 3 and moves to e4.\r\n> > "."""
    alice = await clients("Alice")
    parlor.host.computer_budget = 0.05
    await alice.cmd("dice challenge computer easy", "Alice vs Computer\\(easy\\)")
    game = next(g for g in parlor.host.live.values() if g.kind.key == "dice")
    rng = random.Random(3)
    await quiet_read(alice)
    for _ in range(4):
        await wait_for(lambda: game.outcome is not None or game.state.turn == 0)
        if game.outcome is not None:
            break
        version = game.version
        action = rng.choice(list(rules.legal_actions(game.state, 0)))
        alice.send(f"dice {notation.format_action(action)}")
        await wait_for(lambda: game.version >= version + 2 or game.outcome is not None)
        raw = ANSI.sub("", await quiet_read(alice))
        assert "(you)" in raw and raw.endswith("\r\n> ")
        assert not re.search(r"(^|\n)> +> ", raw), raw[-400:]
        # one prompt per burst: the player's answer and the computer's move
        assert raw.count("\n> ") <= 2, raw
    # an empty line still gets its prompt back
    alice.send("")
    assert ANSI.sub("", await quiet_read(alice)) == "> "


# -- 1. @COLLECTION: the usage line says what it accepts; no empty collection on sale ----------
async def test_collection_usage_and_an_empty_collection_is_not_priced(parlor, clients):
    await parlor.accounts.create("Warden", "secret")
    await parlor.accounts.set_admin("Warden", True)
    root = await (await Client.connect(parlor.port)).login("Warden")
    bob = await clients("Bob")
    try:
        usage = r"Usage: @COLLECTION \[<name>\|CREATE <name>\|PRICE <cubits> <name>\|PRICE OFF <name>\]"
        await root.cmd("@collection create Undercroft", "Collection Undercroft created")
        # the forms the old usage line offered but the parser never took
        await root.cmd("@collection price 40", "Name the collection after the price\\.  " + usage)
        await root.cmd("@collection off Undercroft", "@COLLECTION PRICE OFF <name>\\.  " + usage)
        # an empty collection cannot be sold: refused, not announced and then missing
        await root.cmd("@collection price 40 Undercroft",
                       "Undercroft has no tile designs yet, so the shop cannot sell its discs")
        await root.cmd("@collection", r"Undercroft +0 +- ")
        await root.cmd("@tile common 3 3 3 3 Undercroft/a damp tile", "created")
        await root.cmd("@collection undercroft", "Undercroft: 1 design; shop price none")
        await root.cmd("@collection price 40 Undercroft", "The shop sells Undercroft discs for 40")
        await bob.cmd("north", "Tile Shop")
        await bob.cmd("list", "an Undercroft disc")
        await root.cmd("@cubits bob -990", "Bob now has 10 cubits")
        await bob.cmd("buy undercroft", "An Undercroft disc costs 40 cubits; you have 10\\.")
        await root.cmd("@collection price off Undercroft", "no longer sells Undercroft discs")
    finally:
        await root.close()


# -- 2. a role granted on the command line reaches a connected player ----------------------------
async def test_admin_granted_on_the_command_line_reaches_a_connected_player(parlor, clients,
                                                                            capsys):
    opal = await clients("Opal")
    await opal.cmd("@audit", "Huh\\?")
    assert await cli.admin(parlor.config, "grant", ["Opal"]) == 0   # esterport admin grant
    assert "Opal is now an admin" in capsys.readouterr().out
    await opal.cmd("@audit", "Every balance equals its ledger")   # no new login
    assert await cli.admin(parlor.config, "revoke", ["Opal"]) == 0
    await opal.cmd("@audit", "Huh\\?")


# -- 5. grammar a player meets: "idle 1 second" ---------------------------------------------------
async def test_one_second_idle_is_one_second(parlor, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    account = await parlor.accounts.get("Bob")
    session = parlor.sessions[account.id]
    session.last_command_at = time.time() - 1.2
    await alice.cmd("look bob", "Bob is here, idle 1 second\\.")
    session.last_command_at = time.time() - 1.2
    await alice.cmd("finger bob", "Online now, idle 1 second, in ")
    assert bob is not None
