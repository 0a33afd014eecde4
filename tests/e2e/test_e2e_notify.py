"""Notify lists, finger notes and last games, and news kept while away, over real sockets
with several players."""

from __future__ import annotations

import asyncio

from tests.support.client import Client


async def test_notify_on_and_off_with_free_to_play(parlor, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    await alice.cmd("+notify nobody", "There is no player named nobody")
    await alice.cmd("+notify alice", "no notice of your own")
    await alice.cmd("+notify bob", "Bob is on your notify list")
    await alice.cmd("+notify Bob", "on your notify list already")
    await alice.cmd("notify", "Bob: online, free to play")
    await bob.cmd("quit", "Goodbye")
    await alice.expect("Notify: Bob has logged off.")
    await alice.cmd("notify", "Bob: away")
    bob = await clients("Bob", new=False)
    await alice.expect("Notify: Bob has logged on; free to play.")
    await bob.cmd("ttt challenge computer", "begins")
    await alice.cmd("notify", r"Bob: online, playing Noughts and Crosses \(#\d+\)")
    await alice.cmd("-notify bob", "Bob is off your notify list")
    await alice.cmd("notify", "Your notify list is empty")
    await bob.close()
    await asyncio.sleep(0.3)
    assert "Bob has logged off" not in alice.buffer


async def test_finger_shows_notes_and_last_games(parlor, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    await alice.cmd("set note 1 Plays Triad Dice most evenings.", "Note 1 is now: Plays")
    await alice.cmd("set note 3 \x1b[31mred\x1b[0m and bold", "Note 3 is now: red and bold")
    await alice.cmd("set note 11 too far", "note number must be 1 to 10")
    for _ in range(2):
        await alice.cmd("ttt challenge bob", "You challenge Bob")
        await bob.cmd("ttt accept alice", "begins")
        await alice.cmd("ttt resign", "Bob wins")
    out = await bob.cmd("finger alice", r"REPLAY <game> shows one")
    assert " 1: Plays Triad Dice most evenings." in out and " 3: " in out
    assert "\x1b" not in out.split("Last")[0].split("Cubits")[1]
    assert out.count("lost v Bob") == 2 and "Last Noughts and Crosses: #2 lost v Bob; #1" in out
    await alice.cmd("set note 1", "Note 1 is removed")
    out = await bob.cmd("finger alice", r"REPLAY <game> shows one")
    assert "Plays Triad Dice" not in out and " 3: " in out


async def test_news_kept_while_away_is_told_at_login(parlor, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    await bob.cmd("quit", "Goodbye")
    await alice.cmd("ttt challenge bob", "Bob is not connected")
    await alice.cmd("@cubits bob 5", "Huh")  # not an admin: unknown to her
    # a gift while away (an admin's grant of cubits reaches ctx.tell)
    await parlor.accounts.set_admin("Alice")
    await alice.cmd("@cubits bob 5", "Bob now has")
    await asyncio.sleep(0.3)
    bob = await clients("Bob", new=False)
    out = await bob.expect(r"While you were away \(2\):(.|\n)*?grants you(.|\n)*?> ", timeout=5)
    assert "Alice wanted to challenge you to Noughts and Crosses." in out
    # told once
    await bob.close()
    bob2 = await clients("Bob", new=False)
    await bob2.cmd("look", "Exits")
    await asyncio.sleep(0.3)
    assert "While you were away" not in bob2.seen


async def test_gmcp_client_too(parlor, clients):
    mud = await Client.connect_mud(parlor.port)
    await mud.create("Mudder")
    await mud.cmd("+notify mudder", "no notice of your own")
