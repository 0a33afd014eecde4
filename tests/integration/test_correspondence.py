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
from server.services.correspondence import Correspondence, time_left
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


async def test_pending_is_read_once_and_forgotten_on_any_nodes_change(parlor, monkeypatch):
    """PENDING reads a player's correspondence challenges from the store once and keeps
    them until a change is told on the bus, by this node or another (here a second
    ``Correspondence`` on the same store and bus, as another node's); while the bus
    cannot hear the others, and after it comes back, it reads the store again."""
    here = parlor.host.correspondence
    there = Correspondence(here.db, here.bus, here.kinds, here.games, here.accounts,
                           here.play, here.turns, here.is_online, here.start, here.keep)
    parlor.host.turns.after.remove(there.changed)
    alice = await parlor.accounts.create("Alice", "secret")
    bob = await parlor.accounts.create("Bob", "secret")
    carol = await parlor.accounts.create("Carol", "secret")
    ann, bo = Seat(alice.id, "Alice"), Seat(bob.id, "Bob")
    reads = []
    maker = parlor.db.session
    monkeypatch.setattr(parlor.db, "session", lambda: (reads.append(1), maker())[1])

    def names(pending):
        return [[o.challenger.name + ">" + o.target.name for o in side] for side in pending]

    assert names(await here.pending(bob.id)) == [[], []] and len(reads) == 1
    assert names(await here.pending(bob.id)) == [[], []] and len(reads) == 1  # kept
    await there.offer("dice", ann, "Bob", {"ranked": False, "days": 2})   # another node
    reads.clear()
    assert names(await here.pending(bob.id)) == [["Alice>Bob"], []] and len(reads) == 1
    assert names(await here.pending(alice.id)) == [[], ["Alice>Bob"]] and len(reads) == 2
    assert names(await here.pending(bob.id)) == [["Alice>Bob"], []] and len(reads) == 2
    # a change for other players leaves Bob's kept
    await there.offer("dice", Seat(carol.id, "Carol"), "Alice", {"ranked": False, "days": 3})
    reads.clear()
    assert names(await here.pending(bob.id)) == [["Alice>Bob"], []] and reads == []
    assert names(await here.pending(alice.id)) == [["Carol>Alice"], ["Alice>Bob"]]
    assert len(reads) == 1
    # the bus cannot hear the other nodes: every PENDING reads the store
    monkeypatch.setattr(here.bus, "connected", False, raising=False)
    reads.clear()
    await here.pending(bob.id)
    await here.pending(bob.id)
    assert len(reads) == 2
    # back: what was kept before the loss is forgotten once, then kept again
    monkeypatch.setattr(here.bus, "connected", True, raising=False)
    monkeypatch.setattr(here.bus, "heals", here.bus.heals + 1, raising=False)
    reads.clear()
    await here.pending(bob.id)
    await here.pending(bob.id)
    assert len(reads) == 1
    # taken here (Bob declines): both players' kept lists are forgotten on every node
    assert names(await there.pending(alice.id)) == names(await here.pending(alice.id))
    await here.decline("dice", bo, "Alice")
    assert names(await there.pending(alice.id)) == [["Carol>Alice"], []]
    assert names(await here.pending(bob.id)) == [[], []]


def test_time_left_in_the_clocks_days():
    assert time_left(2 * 86400 - 3600 * 19) == "1 day 5 hours"
    assert time_left(59) == "59 seconds" and time_left(0) == "no time"
    assert time_left(30.0, day=60.0) == "12 hours"   # half a shortened day
