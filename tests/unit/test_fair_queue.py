"""FairQueue (server/workers.py): turns by address, then by player; bounds on what each
may have waiting; and SolverDesk's remembered answers (server/services/pyramid.py)."""

from __future__ import annotations

import asyncio

import pytest

from server.workers import Asker, Busy, FairQueue


class Worker:
    """Jobs that finish when told to, recording the order they started in."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.release: dict[str, asyncio.Event] = {}

    def job(self, label: str):  # noqa: ANN201
        self.release[label] = asyncio.Event()

        async def work() -> str:
            self.started.append(label)
            await asyncio.wait_for(self.release[label].wait(), 5)
            return label
        return work

    async def drain(self, tasks: list[asyncio.Task]) -> None:
        """Let every job finish, one at a time, in the order they start."""
        for _ in range(len(tasks)):
            for _ in range(100):
                await asyncio.sleep(0)
                waiting = [k for k in self.started if not self.release[k].is_set()]
                if waiting:
                    break
            else:
                break
            self.release[waiting[0]].set()
        await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 5)


async def test_turns_go_by_address_then_by_player():
    queue = FairQueue(slots=1, per_asker=5, per_address=10)
    worker = Worker()
    a1, a2, b = Asker(1, "10.0.0.1"), Asker(2, "10.0.0.1"), Asker(3, "10.0.0.2")
    tasks = [asyncio.create_task(queue.run(a1, worker.job(f"a1-{i}"))) for i in range(4)]
    tasks += [asyncio.create_task(queue.run(a2, worker.job(f"a2-{i}"))) for i in range(2)]
    await asyncio.sleep(0)
    tasks.append(asyncio.create_task(queue.run(b, worker.job("b-0"))))
    await worker.drain(tasks)
    # a1's first was running; then the other address; then the address's other player
    assert worker.started == ["a1-0", "b-0", "a2-0", "a1-1", "a2-1", "a1-2", "a1-3"]
    assert queue.running == 0 and queue.waiting() == 0


async def test_what_a_player_asks_for_goes_before_their_other_work():
    queue = FairQueue(slots=1, per_asker=1, per_address=2)
    worker = Worker()
    ann = Asker(1, "x")
    tasks = [asyncio.create_task(queue.run(ann, worker.job(f"verdict-{i}"), limited=False))
             for i in range(3)]
    await asyncio.sleep(0)
    tasks.append(asyncio.create_task(queue.run(ann, worker.job("hint"))))
    await worker.drain(tasks)
    assert worker.started == ["verdict-0", "hint", "verdict-1", "verdict-2"]


async def test_a_player_and_an_address_are_bounded():
    queue = FairQueue(slots=1, per_asker=1, per_address=2)
    worker = Worker()
    first = asyncio.create_task(queue.run(Asker(1, "x"), worker.job("1")))
    await asyncio.sleep(0)
    with pytest.raises(Busy) as refused:
        queue.enter(Asker(1, "x"))
    assert refused.value.why == "asker"
    second = asyncio.create_task(queue.run(Asker(2, "x"), worker.job("2")))
    await asyncio.sleep(0)
    with pytest.raises(Busy) as refused:
        queue.enter(Asker(3, "x"))
    assert refused.value.why == "address" and refused.value.limit == 2
    # unlimited work (a verdict, the server's) is never refused, and takes no place
    third = asyncio.create_task(queue.run(Asker(3, "x"), worker.job("3"), limited=False))
    await asyncio.sleep(0)
    await worker.drain([first, second, third])
    assert sorted(worker.started) == ["1", "2", "3"]
    queue.enter(Asker(1, "x"))  # room again once answered


async def test_a_job_given_up_while_waiting_leaves_no_trace():
    queue = FairQueue(slots=1, per_asker=1, per_address=1)
    worker = Worker()
    running = asyncio.create_task(queue.run(Asker(1, "x"), worker.job("1")))
    waiting = asyncio.create_task(queue.run(Asker(2, "y"), worker.job("2")))
    await asyncio.sleep(0)
    waiting.cancel()
    await asyncio.gather(waiting, return_exceptions=True)
    assert queue.waiting() == 0
    queue.enter(Asker(2, "y"))  # its place is free again
    worker.release["1"].set()
    assert await running == "1"


async def test_the_desk_remembers_answers_and_shares_one_in_progress(monkeypatch):
    from games.pyramid import rules, solver
    from server.services import pyramid

    calls: list[tuple[str, int]] = []
    gate = asyncio.Event()

    async def stand_in(game, goal, time_limit):  # noqa: ANN001
        calls.append((goal, len(game.waste)))
        await asyncio.wait_for(gate.wait(), 5)
        return solver.Solution(goal, "unknown", (), 0, False, 1, 0.0, -5, 5)

    monkeypatch.setattr(pyramid, "solve", stand_in)
    desk = pyramid.SolverDesk(size=2)
    game = rules.Game.dealt(7)
    ann, bob = Asker(1, "x"), Asker(2, "y")
    both = [asyncio.create_task(desk.solve(game, "par", 5.0, ann)),
            asyncio.create_task(desk.solve(game, "par", 5.0, bob))]
    await asyncio.sleep(0)
    with pytest.raises(pyramid.SolverBusy, match="still analysing for you"):
        await desk.solve(rules.play(game, rules.Action("deal"))[0], "par", 5.0, ann)
    gate.set()
    first, second = await asyncio.gather(*both)
    assert first is second and calls == [("par", 0)]
    assert await desk.solve(game, "par", 5.0, ann) is first  # remembered
    # bounded: the oldest answers go
    later = game
    for _ in range(3):
        later = rules.play(later, rules.Action("deal"))[0]
        await desk.solve(later, "par", 5.0, ann)
    await desk.solve(game, "par", 5.0, ann)
    assert calls.count(("par", 0)) == 2 and desk.searches == len(calls) == 5


async def test_hints_are_remembered_by_position(monkeypatch):
    from games.pyramid import rules
    from games.pyramid.rules import State
    from server.services import pyramid

    thought: list[int] = []

    async def stand_in(state, budget):  # noqa: ANN001
        thought.append(len(state.game.waste))
        return rules.Action("deal")

    monkeypatch.setattr(pyramid, "think_hint", stand_in)
    desk = pyramid.SolverDesk()
    state = State("standard", (7,), (rules.Game.dealt(7),))
    assert await desk.hint(state, Asker(1, "x")) == rules.Action("deal")
    assert await desk.hint(state, Asker(2, "y")) == rules.Action("deal")
    assert thought == [0]
