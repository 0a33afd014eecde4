"""The Pyramid solver shared fairly over real sockets (server/services/pyramid.py,
SolverDesk; server/workers.py, FairQueue).

An attack campaign had ten connections of one address loop ANALYSE: another player's
ANALYSE waited behind their whole queue (0.2-2.1 s became 11.3 and 20.7 s). Here the
solver is a stand-in that takes one search at a time in the order it is handed them, as
the one worker process does, and holds the first until the test lets it go: what is
asserted is the order and the number of searches, never a time."""

from __future__ import annotations

import asyncio
import re

import pytest

from games.pyramid import solver
from server.services import pyramid
from tests.support.client import Client

DEALS = 9  # the stored game: PYR NEW, D nine times, QUIT: positions 1..9 differ


class StandIn:
    """``pyramid.solve`` replaced: one search at a time, first come first served (an
    asyncio.Lock wakes its waiters in order), each recorded by the position it was
    asked about (how many cards the Waste Pile holds: the D's made)."""

    def __init__(self) -> None:
        self.order: list[int] = []
        self.gate = asyncio.Event()
        self.gate.set()
        self._one = asyncio.Lock()

    async def __call__(self, game, goal: str, time_limit: float) -> solver.Solution:  # noqa: ANN001
        async with self._one:
            self.order.append(len(game.waste))
            await asyncio.wait_for(self.gate.wait(), 20)
            return solver.Solution(goal, "lose", (), -20, True, 1, 0.0, -20, -20)


@pytest.fixture
async def stored(parlor, clients, monkeypatch):
    """A finished Pyramid game (#1) of DEALS moves, and the stand-in solver."""
    stand_in = StandIn()
    monkeypatch.setattr(pyramid, "solve", stand_in)
    alice = await clients("Alice")
    await alice.cmd("pyr new", "your move")
    for _ in range(DEALS):
        await alice.cmd("pyr d", r"Alice: D\r?\n")
    await alice.cmd("pyr quit yes", r"Game #1 is over")
    await alice.expect("The solver, seeing every card", timeout=10)  # its verdict is done
    await alice.close()
    stand_in.order.clear()
    return stand_in


async def _examining(port: int, name: str, move: int, source: str | None = None) -> Client:
    client = await Client.connect(port, source=source)
    await client.create(name)
    await client.cmd(f"examine 1 {move}", rf"Move {move} of")
    return client


async def test_a_looping_address_does_not_make_another_player_wait_behind_it(parlor, stored):
    # eight players of one address each ask about another position, the first search
    # held: the rest are queued (or refused) behind it
    stored.gate.clear()
    crowd = [await _examining(parlor.port, f"Loop{k}", k) for k in range(1, DEALS)]
    for client in crowd:
        await client.cmd("analyse", "The solver is looking")
    other = await _examining(parlor.port, "Other", DEALS, source="127.0.0.2")
    await other.cmd("analyse", "The solver is looking")
    stored.gate.set()
    await other.expect(r"best Par is -20", timeout=10)
    answers = [await c.expect(r"(best Par is -20|still analysing[^\n]*)", timeout=10)
               for c in crowd]
    # the other address's one search came second, before the crowd's queue
    assert DEALS in stored.order
    assert stored.order.index(DEALS) <= 1, stored.order
    # the crowd's address had at most SOLVES_PER_ADDRESS searches at once; the rest were
    # told at once, in one line, that the solver is still analysing theirs
    refused = [a for a in answers if "still analysing" in a]
    assert len(refused) == len(crowd) - pyramid.SOLVES_PER_ADDRESS, answers
    assert len(stored.order) == pyramid.SOLVES_PER_ADDRESS + 1
    for client in (*crowd, other):
        await client.close()


async def test_a_position_analysed_twice_is_solved_once(parlor, stored):
    alice = await _examining(parlor.port, "Ann", 3)
    bob = await _examining(parlor.port, "Bob", 3, source="127.0.0.2")
    first = await alice.cmd("analyse", r"best Par is[^\n]*", timeout=10)
    second = await bob.cmd("analyse", r"best Par is[^\n]*", timeout=10)
    assert re.search(r"best Par is -20", first) and second.endswith(first.split("\n")[-1])
    assert stored.order == [3]          # one search, the second answer remembered
    # asked at the same moment by two players: one search, both answered
    stored.gate.clear()
    await alice.cmd("goto 5", r"Move 5 of")
    await bob.cmd("goto 5", r"Move 5 of")
    alice.send("analyse")
    bob.send("analyse")
    await alice.expect("The solver is looking")
    await bob.expect("The solver is looking")
    stored.gate.set()
    await alice.expect(r"best Par is -20", timeout=10)
    await bob.expect(r"best Par is -20", timeout=10)
    assert stored.order == [3, 5]
    await alice.close()
    await bob.close()
