"""Bugs of issue 12 (part 6), each seen as a player sees it over a real socket."""

from __future__ import annotations

import asyncio
import random
import re
import time

import attrs

from commands.app import assemble
from games.dice import notation, rules
from server import cli
from tests.conftest import make_config
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
    parlor.host.turns.computer_budget = 0.05
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
        # until Alice is to act again (the computer moved, or she has a removal to choose)
        await wait_for(lambda: game.outcome is not None or (
            game.version > version and game.state.turn == 0 and not game.thinking))
        raw = ANSI.sub("", await quiet_read(alice))
        if game.outcome is not None:
            break
        assert f"Alice: {notation.format_action(action)}" in raw and raw.endswith("\r\n> ")
        assert not re.search(r"(^|\n)> +> ", raw), raw[-400:]
        # one prompt per burst: one for each move (the player's, the computer's)
        assert raw.count("\n> ") <= game.version - version, raw
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
        usage = (r"Usage: @COLLECTION \[<name>\|CREATE <name>\|PRICE <cubits> <name>\|PRICE OFF "
                 r"<name>\]")
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
    session = parlor.online.sessions[account.id]
    session.last_command_at = time.time() - 1.2
    await alice.cmd("look bob", "Bob is here, idle 1 second\\.")
    session.last_command_at = time.time() - 1.2
    await alice.cmd("finger bob", "Online now, idle 1 second, in ")
    assert bob is not None


# -- 3 and 4. a Triad table closes for a reason HELP gives; REPLAY in player words --------------
async def test_a_triad_table_closes_in_words_and_replays_in_words(parlor, clients):
    alice = await clients("Alice")
    help_text = await alice.cmd("help triad rules", r"TRIAD BACK takes it\s+back")
    assert "no person is seated any more" in " ".join(help_text.split())
    out = await alice.cmd("triad open 10 seats 3 buyin 100", r"You open Triad table #(\d+)")
    number = int(re.search(r"table #(\d+)", out).group(1))
    await alice.cmd("triad bot 1 easy", "Computer 1 sits down in seat 2 with 100 cubits")
    await alice.cmd("triad start", "Hand 1: Alice deals")
    # Alice gets up in the middle of the hand: she folds at her turns, stands up when it
    # ends, and the computer alone does not keep the table open
    out = await alice.cmd("triad leave", f"Triad table #{number} closes: every person has left "
                          "it \\(computer players alone do not keep a table open\\)\\.",
                          timeout=15)
    assert "draw" not in out.split(f"Triad table #{number} closes")[1]
    out = await alice.cmd(f"replay {number}", r"shows the board after that move")
    assert "SIT" not in out and " - " not in out
    assert "Computer 1 (easy) sits down in seat 2 with 100 cubits." in out
    assert re.search(r"\n +\d+\. A new hand is dealt\.", out)        # the table's, not Alice's
    assert not re.search(r"\d+\. \w+: ", out)                            # no raw notation
    assert "Alice leaves the table." in out
    # what the table did for her once she was leaving says so
    assert re.search(r"Alice (passes|folds|keeps all six cards) \(automatically: leaving the "
                     r"table\)\.", out)
    assert not re.search(r"Alice (passes|folds|keeps all six cards)\.", out.split(
        "Alice leaves the table.")[1])
    assert f"Triad table #{number} closes: every person has left it" in out
    out = await alice.cmd(f"replay {number} 2", r"After move 2 of \d+ \(A new hand is dealt\.\):")


# -- 6. Triad's clock warns the player to act before "Time is up" ---------------------------------
async def test_the_triad_clock_warns_before_time_is_up(tmp_path):
    config = make_config(f"sqlite+aiosqlite:///{tmp_path}/triad.db")
    parlor = assemble(attrs.evolve(config, games=attrs.evolve(
        config.games, own={"triad": {"action_timeout": 2.0}})))
    await parlor.start()
    try:
        alice = await (await Client.connect(parlor.port)).create("Alice")
        bob = await (await Client.connect(parlor.port)).create("Bob")
        out = await alice.cmd("triad open 10 seats 2 buyin 100", r"table #(\d+)")
        number = int(re.search(r"table #(\d+)", out).group(1))
        await bob.cmd(f"triad join {number}", "Bob sits down")
        await alice.cmd("triad start", "Hand 1: Alice deals to Bob and Alice")
        # Bob, first to act, lets his time run out: warned once, a second before
        out = await bob.expect(r"Time is up for Bob\.", timeout=5)
        warning = (f"Hurry: 1 second left to act at Triad table #{number}, then you pass.")
        assert out.count(warning) == 1
        assert out.index(warning) < out.index("Time is up for Bob.")
        await alice.expect(r"Time is up for Bob\.")
        assert "Hurry" not in alice.seen                      # only the player to act
        # Alice acts in time: her warning comes, her action stops the clock
        await alice.expect(f"Hurry: 1 second left to act at Triad table #{number}, then "
                           "you pass", timeout=3)
        await alice.cmd("triad pass", "Alice: PASS")
        await asyncio.sleep(1.5)
        assert "Time is up for Alice" not in alice.seen + alice.buffer
    finally:
        await parlor.stop()


async def test_a_crowd_of_one_more_is_one_other(parlor, clients, monkeypatch):
    import server.world
    monkeypatch.setattr(server.world, "MAX_NAMES", 1)
    alice = await clients("Alice")
    await clients("Bob")
    await clients("Carol")
    await alice.cmd("look", r"Here: (Bob|Carol) and 1 other\.")


async def test_a_message_after_the_prompt_starts_on_a_fresh_line(parlor, clients):
    """docs/design.md, Screens, principle 7: output that interrupts (a tell while the
    player sits at "> ") starts on its own line, not after the prompt; a reply to what
    the player typed follows the prompt as before (their Enter already moved the
    cursor)."""
    alice = await clients("Alice")
    bob = await clients("Bob")
    await quiet_read(alice)
    await bob.cmd("tell alice psst", "You tell Alice")
    raw = ANSI.sub("", await quiet_read(alice))
    assert raw.startswith("\r\nBob tells you"), raw
    assert raw.endswith("\r\n> ") and raw.count("> ") == 1
    alice.send("look")
    raw = ANSI.sub("", await quiet_read(alice))
    assert not raw.startswith("\r\n") and raw.endswith("\r\n> ")
