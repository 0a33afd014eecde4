"""ADJOURN and RESUME over real sockets (server/services/adjourn.py): a Triad Dice game
put aside by both players, who play another game meanwhile; kept across a restart with
nobody away from it; taken up again where it stood when both agree.
"""

from __future__ import annotations

import asyncio
import re

from commands.app import assemble
from games.dice import notation, rules
from tests.conftest import make_config
from tests.support.client import Client
from tests.support.teardown import cleanup


async def start(url: str):  # noqa: ANN201
    parlor = assemble(make_config(url))
    await parlor.start()
    return parlor


def mover_of(parlor, number: int) -> int:  # noqa: ANN001
    game = parlor.host.live[number]
    return game.kind.spec.to_move(game.state)[0]


async def move(parlor, players: dict[int, Client], number: int) -> None:  # noqa: ANN001
    game = parlor.host.live[number]
    seat = mover_of(parlor, number)
    version = game.version
    line = notation.format_action(next(iter(rules.legal_actions(game.state, seat))))
    players[seat].send(f"dice {line.lower()}")
    for _ in range(250):
        if game.version > version:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"the move {line} was not played")


async def test_a_game_adjourned_by_both_waits_across_a_restart_and_resumes(sqlite_url):
    parlor = await start(sqlite_url)
    try:
        alice = await (await Client.connect(parlor.port)).create("Alice")
        bob = await (await Client.connect(parlor.port)).create("Bob")
        await alice.cmd("dice challenge bob", "You challenge Bob")
        await bob.expect("Alice challenges you")
        out = await bob.cmd("dice accept alice", r"Game #(\d+): Triad Dice, Alice vs Bob")
        number = int(re.search(r"Game #(\d+): Triad Dice", out).group(1))
        game = parlor.host.live[number]
        seats = {game.seat_of(a.id): c for a, c in (
            (await parlor.accounts.get("Alice"), alice),
            (await parlor.accounts.get("Bob"), bob))}
        await move(parlor, seats, number)
        version = game.version

        # asked by one (asking again changes nothing), agreed by the other
        await alice.cmd("adjourn", rf"You ask Bob to adjourn game #{number}")
        await bob.expect(rf"Alice asks to adjourn game #{number} \(Triad Dice\)\. Type "
                         rf"ADJOURN {number} to agree")
        await alice.cmd("adjourn", rf"You ask Bob to adjourn game #{number}")
        await bob.cmd(f"adjourn {number}", rf"Game #{number}: Triad Dice, Alice vs Bob is "
                                           rf"adjourned\. RESUME {number} takes it up again")
        await alice.expect("is adjourned")
        assert game.adjourned and game.version == version
        await bob.cmd("dice resign", "You are not playing Triad Dice")
        await alice.cmd("games", r"\(adjourned\)")
        await alice.cmd("mygames", rf"Your adjourned games(.|\n)*#{number} +Triad Dice +Bob "
                                   rf"+RESUME {number}")
        await alice.cmd(f"adjourn {number}", "is adjourned already")

        # meanwhile both may play another game of the kind; not resume while they do
        await alice.cmd("dice challenge computer easy", "Alice vs Computer")
        await bob.cmd(f"resume {number}", r"Alice plays game #\d+ of Triad Dice; finish it "
                                          "first")
        await alice.cmd("adjourn", "Only a game between two people is adjourned")
        await alice.cmd("dice resign", "Computer")
        await alice.cmd("resume 99999", "There is no adjourned game #99999")
        await bob.close()
    finally:
        async with cleanup() as steps:
            await steps.run("stopping the parlor", parlor.stop(), 60)

    # a restart: the game is still adjourned, and nobody is away from it
    parlor = await start(sqlite_url)
    try:
        alice = await (await Client.connect(parlor.port)).login("Alice")
        game = parlor.host.live[number]
        assert game.adjourned and game.version == version and not game.absent
        await alice.cmd(f"resume {number}", "Bob is not connected")
        bob = await (await Client.connect(parlor.port)).login("Bob")
        await alice.cmd(f"resume {number}", rf"You ask Bob to resume game #{number}")
        await bob.expect(rf"Alice would take up adjourned game #{number} \(Triad Dice\) "
                         rf"again\. Type RESUME {number} to agree")
        await bob.cmd(f"resume {number}", rf"Game #{number}: Triad Dice, Alice vs Bob resumes")
        await alice.expect("resumes")
        assert not game.adjourned
        seats = {game.seat_of(a.id): c for a, c in (
            (await parlor.accounts.get("Alice"), alice),
            (await parlor.accounts.get("Bob"), bob))}
        await move(parlor, seats, number)   # it goes on where it stood
        assert game.version == version + 1
        await alice.cmd("mygames", "You have no correspondence games")
    finally:
        async with cleanup() as steps:
            await steps.run("stopping the parlor", parlor.stop(), 60)
