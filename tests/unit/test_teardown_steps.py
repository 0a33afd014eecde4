"""A fixture's teardown (tests/support/teardown.py): a step that hangs is cut at its bound,
named with what it awaits, and the steps after it still run."""

from __future__ import annotations

import asyncio

import pytest

from tests.support.teardown import cleanup, sync_cleanup


async def test_a_hung_step_is_named_and_the_rest_still_run(caplog):
    ran = []

    async def hangs() -> None:
        await asyncio.Event().wait()

    async def fails() -> None:
        raise RuntimeError("no such node")

    async def closes() -> None:
        ran.append("closed")

    with pytest.raises(AssertionError) as failed:
        async with cleanup() as steps:
            assert not await steps.run("stopping node alpha", hangs(), 0.2)
            assert not await steps.run("stopping node beta", fails(), 5)
            assert await steps.run("closing the database", closes(), 5)
    assert ran == ["closed"]
    message = str(failed.value)
    assert "stopping node alpha: still running after 0.2 s" in message
    assert "stopping node beta: RuntimeError: no such node" in message
    assert "closing the database" not in message
    assert "in hangs" in caplog.text  # where the hung step waited


async def test_a_step_that_ignores_its_cancellation_is_left_behind():
    release = asyncio.Event()

    async def stubborn() -> None:
        while not release.is_set():
            try:
                await asyncio.sleep(0.01)
            except asyncio.CancelledError:
                pass

    with pytest.raises(AssertionError, match="stubborn step: still running"):
        async with cleanup() as steps:
            await asyncio.wait_for(steps.run("stubborn step", stubborn(), 0.1), 30)
    release.set()


def test_synchronous_steps_go_on_after_one_fails():
    ran = []
    with pytest.raises(AssertionError, match="stopping HAProxy: OSError: gone"):
        with sync_cleanup() as steps:
            steps.call("stopping HAProxy", lambda: (_ for _ in ()).throw(OSError("gone")))
            steps.call("stopping Redis", ran.append, "redis")
    assert ran == ["redis"]
