"""After a storm of logins and disconnects, every session is freed as its player goes.

A session, its telnet protocol, writer, reader and option tables referred to one another
(a reference cycle); a connection lost with an error kept the error's traceback and
through it the shell's frames; and one lost mid-login left the login's task and its
error referring to each other (``asyncio.wait_for`` on Python 3.11), the session in its
frames. Only the garbage collector could free such a session,
and the parlor runs its full collections seldom (server/collector.py moves what lives a
while out of the collector's sight): after three storms a lone server kept every session
of each in memory until the next one, and its memory grew round after round. Here the
collector is off throughout, so only reference counting can free anything: every
session of every way of leaving must be gone once its connection is.
"""

from __future__ import annotations

import asyncio
import gc
import weakref

import pytest

from tests.support.client import Client


@pytest.fixture
def no_collector():
    """The cycle collector off for the test (reference counting alone frees memory)."""
    was = gc.isenabled()
    gc.collect()
    gc.disable()
    yield
    if was:
        gc.enable()


def _refs(parlor) -> list[tuple[str, weakref.ref]]:
    """Weak references to every open connection's session and its telnet objects."""
    out = []
    for session in list(parlor.connections):
        terminal = session.terminal
        for what, obj in (("session", session), ("protocol", terminal),
                          ("writer", terminal.writer), ("reader", terminal.reader)):
            out.append((f"{what} of {session.name or 'a newcomer'}", weakref.ref(obj)))
    return out


async def _freed(refs: list[tuple[str, weakref.ref]], timeout: float = 15.0) -> list[str]:
    """What is still in memory of ``refs`` once every one is freed or ``timeout`` seconds
    have passed (a shell ends a little after its connection: it records the player's
    last visit first)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        alive = [what for what, ref in refs if ref() is not None]
        if not alive:
            break
        await asyncio.sleep(0.05)
    return alive


async def test_sessions_are_freed_as_their_players_leave_with_no_collector(
        parlor, no_collector):
    for storm in range(3):
        names = [f"Storm{storm}x{i}" for i in range(8)]
        players = [await (await Client.connect(parlor.port)).create(name) for name in names]
        if storm == 0:
            await players[0].cmd("ttt challenge " + names[1], "You challenge")
        newcomers = []
        for _ in range(2):  # stopped half-way through logging in
            newcomer = await Client.connect(parlor.port)
            await newcomer.expect("Name: ")
            newcomer.send("Storm0x0" if storm else "NEW")
            newcomers.append(newcomer)
        await asyncio.sleep(0.2)
        refs = _refs(parlor)
        assert len(refs) == 4 * (len(players) + len(newcomers))
        for i, client in enumerate(players + newcomers):
            if i % 3 == 0 and client.name:  # logged in
                await client.cmd("quit", "Goodbye")
                client.writer.close()
            elif i % 3 == 1:
                client.writer.close()                 # FIN
            else:
                client.writer.transport.abort()       # RST
        del players, newcomers, client
        alive = await _freed(refs)
        assert not alive, f"storm {storm}: still in memory: {alive}"
        assert not parlor.connections
