"""A node that stops hands its games over first: three parlors in this process share one
PostgreSQL and one Redis; the node driving a game is stopped (``@SHUTDOWN NODE``, or what
SIGTERM does: ``Parlor.stop``) and another node drives it before the stopping node's
sessions are closed, so a move typed at once is played at once, and stored once."""

from __future__ import annotations

import asyncio
import re

import pytest
import sqlalchemy as sa

from server.hosting import Seat
from server.models import GameMove
from tests.e2e.test_cluster_parlor import _player, _settle, run_nodes


@pytest.fixture
async def three(postgres, redis_server):
    async for made in run_nodes(postgres, redis_server, ("alpha", "beta", "gamma")):
        yield made


def _drivers(parlors, number: int) -> list[str]:
    return [p.node for p in parlors if number in p.host.live]


async def test_a_node_shut_down_hands_its_game_over_before_closing_its_sessions(three):
    alpha, beta, gamma = three
    root = await _player(gamma, "Root")
    await gamma.accounts.set_admin("Root")
    await root.close()
    root = await _player(gamma, "Root", new=False)
    alice = await _player(alpha, "Alice")  # alpha will drive the game
    bob = await _player(beta, "Bob")
    await _settle(lambda: all(p.online.count == 3 for p in three))
    await alice.cmd("ttt challenge bob", "You challenge Bob")
    await bob.expect("Alice challenges you")
    bob.send("ttt accept alice")
    number = int(re.search(r"Game #(\d+)", await alice.expect(
        r"Game #\d+: Noughts and Crosses, Alice vs Bob begins")).group(1))
    await alice.cmd("ttt play 1", "Alice: PLAY 1")
    await bob.cmd("ttt play 4", "Bob: PLAY 4")
    await alice.cmd("ttt play 2", "Alice: PLAY 2")
    await bob.expect("Alice: PLAY 2")
    assert _drivers(three, number) == ["alpha"]

    drain, seen = alpha.cluster.games.drain, {}

    async def drain_and_look() -> bool:  # where the game is once alpha has handed it over
        handed = await drain()
        seen.update(handed=handed, drivers=_drivers(three, number),
                    open=sorted(s.name for s in alpha.online.sessions.values()))
        return handed

    alpha.cluster.games.drain = drain_and_look
    await root.cmd("@shutdown node alpha upgrade", "Shutting down node alpha")
    await alice.expect("restarting this part of Esterport", timeout=10)  # after the hand-over
    await bob.cmd("ttt play 5", "Bob: PLAY 5", timeout=4)  # at once: no lease (6 s) to lapse
    assert seen == {"handed": True, "drivers": ["beta"], "open": ["Alice"]}, seen
    assert "Connect again" in await alice.closed()
    await asyncio.wait_for(alpha.stopped.wait(), 10)

    alice = await _player(beta, "Alice", new=False)  # her reconnect reaches another node
    await alice.cmd("ttt play 3", r"Alice wins \(three in a row\)", timeout=5)
    await bob.expect("Alice wins")
    async with beta.db.session() as tx:
        moves = (await tx.execute(sa.select(GameMove.notation).where(
            GameMove.game_id == number).order_by(GameMove.seq))).scalars().all()
    assert moves == ["PLAY 1", "PLAY 4", "PLAY 2", "PLAY 5", "PLAY 3"]  # each once
    for c in (alice, bob, root):
        await c.close()


async def test_a_stopping_node_s_clocks_and_computer_play_on_where_its_games_went(three):
    """What SIGTERM does (``Parlor.stop``): alpha's two games, one with a clock and one
    against the computer, are driven elsewhere when it returns; the clock runs out there,
    and the computer answers there."""
    alpha, beta, gamma = three
    alice = await _player(beta, "Alice")
    bob = await _player(gamma, "Bob")
    carol = await _player(beta, "Carol")
    await _settle(lambda: alpha.online.count == 3)
    ids = {s.name: s.account_id for s in alpha.online.remote.values()}
    timed = await alpha.host.start_game("ttt", (Seat(ids["Alice"], "Alice"),
                                                Seat(ids["Bob"], "Bob")),
                                        {"ranked": False, "clock": 3.0})
    computer = await alpha.host.play_computer("ttt", Seat(ids["Carol"], "Carol"), "easy", {})
    await alpha.stop()
    taken = {n: _drivers(three, n) for n in (timed.id, computer.id)}
    assert sorted(taken.values()) == [["beta"], ["gamma"]], taken  # one each: the fewest
    await alice.expect("Time is up for Alice", timeout=8)  # on beta, her clock re-armed
    await bob.expect(rf"Game #{timed.id}: Bob wins", timeout=5)
    await carol.cmd("ttt play 5", "Carol: PLAY 5", timeout=5)
    await carol.expect(r"Computer\(easy\): PLAY \d", timeout=5)  # answered on gamma
    for c in (alice, bob, carol):
        await c.close()


async def test_the_last_node_that_stops_keeps_its_games_in_the_store(three):
    """No other node to take them (the others have stopped): the game waits in the store,
    as after a kill, and the players hear goodbye as from a lone server."""
    alpha, beta, gamma = three
    alice = await _player(alpha, "Alice")
    await alice.cmd("ttt challenge computer", r"Game #\d+")
    for other in (beta, gamma):
        await other.stop()
    await alpha.stop()
    assert "Esterport is shutting down. Your games are saved." in await alice.closed()
