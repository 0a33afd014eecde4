"""Correspondence games as a service, on SQLite and on PostgreSQL: a challenge kept in
the store for a player who is not connected, the games read back from the store in
Yucata's order (the JSON query on ``games.options``), and the clock that ends a game on
time (``server/services/correspondence.py``)."""

from __future__ import annotations

import asyncio
import time

import attrs
import pytest

from commands.app import assemble
from games.dice import rules
from server.hosting import Seat
from server.models import GameRecord
from server.services.correspondence import time_left
from server.services.live import GameError
from tests.conftest import make_config
from tests.support.teardown import cleanup


@pytest.fixture
async def parlor(db_url):
    config = make_config(db_url)
    parlor = assemble(attrs.evolve(config, games=attrs.evolve(config.games,
                                                              correspondence_day=3600.0)))
    await parlor.start()
    yield parlor
    async with cleanup() as steps:
        await steps.run("stopping the parlor", parlor.stop(), 60)


async def test_offer_accept_letters_and_a_loss_on_time(parlor):
    host = parlor.host
    alice = await parlor.accounts.create("Alice", "secret")
    bob = await parlor.accounts.create("Bob", "secret")
    ann, bo = Seat(alice.id, "Alice"), Seat(bob.id, "Bob")
    with pytest.raises(GameError, match="1 to 14 days"):
        await host.offer("dice", ann, "Bob", {"ranked": False, "days": 15})
    offer = await host.offer("dice", ann, "Bob", {"ranked": False, "days": 2})
    assert offer.describe() == "Triad Dice (unranked, 2 days a move)"
    to_bob, _ = await host.all_pending(bob.id)
    assert [o.challenger.name for o in to_bob] == ["Alice"]   # Bob is not connected
    game = await host.accept("dice", bo, "alice")
    assert game.days == 2 and (await host.all_pending(bob.id)) == ([], [])
    mover = game.state.turn
    players = (alice, bob)
    letters = await host.correspondence.letters(players[mover].id)
    assert [(g.game, g.mine, g.opponent) for g in letters] == \
        [(game.id, True, ("Alice", "Bob")[1 - mover])]
    assert letters[0].deadline == pytest.approx(letters[0].since + 2 * 3600.0)
    assert letters[0].left(letters[0].since) == "2 days"
    action = next(iter(rules.legal_actions(game.state, mover)))
    await host.act(players[mover].id, "dice", action)
    theirs = await host.correspondence.letters(players[mover].id)
    assert [g.mine for g in theirs] == [False] and theirs[0].last.startswith(
        ("Alice", "Bob")[mover] + ": MOVE")
    # a day of a millisecond: the clock, armed again, ends the game on time
    host.correspondence.day = 0.001
    host.turns.schedule(game)
    deadline = time.monotonic() + 10
    while game.outcome is None:
        assert time.monotonic() < deadline, "the game was not lost on time"
        await asyncio.sleep(0.02)
    assert game.outcome.winner == mover  # the other player did not move in time
    async with parlor.db.session() as tx:
        record = await tx.get(GameRecord, game.id)
    assert record.status == "finished"
    assert await host.correspondence.letters(alice.id) == []


def test_time_left_in_the_clocks_days():
    assert time_left(2 * 86400 - 3600 * 19) == "1 day 5 hours"
    assert time_left(59) == "59 seconds" and time_left(0) == "no time"
    assert time_left(30.0, day=60.0) == "12 hours"   # half a shortened day
