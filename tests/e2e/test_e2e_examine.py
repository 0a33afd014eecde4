"""EXAMINE over real sockets: stepping through a stored game; ANALYSE on Pyramid."""

from __future__ import annotations

import re


async def test_examine_steps_through_a_finished_game(parlor, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    await alice.cmd("ttt challenge bob", "You challenge Bob")
    await bob.cmd("ttt accept alice", "begins")
    for who, cell in ((alice, 1), (bob, 4), (alice, 2), (bob, 5), (alice, 3)):
        await who.cmd(f"ttt play {cell}", f"PLAY {cell}")
    await alice.expect("Alice wins")
    await bob.cmd("forward", "You are not examining a game")
    await bob.cmd("examine 99", "no game #99|There is no game")
    out = await bob.cmd("examine 1", r"Move 0 of 5\.(.|\n)*?UNEXAMINE")
    assert " 1 | 2 | 3" in out
    out = await bob.cmd("forward", r"Move 1 of 5 \(Alice: PLAY 1\)(.|\n)*?UNEXAMINE")
    assert " X | 2 | 3" in out
    await bob.cmd("forward 3", r"Move 4 of 5 \(Bob: PLAY 5\)")
    await bob.cmd("forward 9", r"Move 5 of 5")
    await bob.cmd("forward", "last move shown")
    await bob.cmd("back 2", r"Move 3 of 5")
    await bob.cmd("goto 0", r"Move 0 of 5")
    await bob.cmd("back", "start of the game")
    await bob.cmd("goto 9", "has moves 0 to 5")
    await bob.cmd("analyse", "has no analysis")
    await bob.cmd("unexamine", "You stop examining game #1")


async def test_analyse_a_finished_pyramid_game(parlor, clients):
    alice = await clients("Alice")
    await alice.cmd("pyr new", "your move")
    await alice.cmd("pyr d", r"Alice: D\r?\n")
    await alice.cmd("pyr examine 1", "no such PYR command|PYR EXAMINE")  # not a PYR word
    await alice.cmd("examine 1 1", r"Move 1 of 1")
    await alice.cmd("analyse", "not over")
    await alice.cmd("pyr quit yes", r"Game #1 is over")
    await alice.cmd("examine 1 1", r"Move 1 of \d+")
    out = await alice.cmd("analyse", r"(best Par is [^\n]*|deal is over[^\n]*)", timeout=30)
    assert re.search(r"best Par is (at least )?[+-]\d+", out) or "deal is over" in out
