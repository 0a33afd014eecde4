"""Disconnect storms: hundreds of clients drop at once, mid-game and mid-login, some
with a reset, some by simply going silent (half-open, as a dead network would leave
them). The server frees every session within its login/idle limits, the games wait for
their players, and the parlor's bookkeeping returns to what it was before the storm."""

from __future__ import annotations

import asyncio
import gc
import os
import time

import pytest

from commands.app import assemble
from server.app import Parlor
from server.session import Session
from server.telnet import TelnetProtocol
from tests.conftest import make_config
from tests.support import sockets
from tests.support.client import Client

SOAK = os.environ.get("ESTERPORT_SOAK") == "1"


def _sessions_alive(parlor: Parlor) -> int:
    """This parlor's Session objects and telnet protocols still in memory (not those of
    other tests in the same worker process, which are freed on their own schedule)."""
    gc.collect()
    return sum(1 for o in gc.get_objects()
               if isinstance(o, Session) and o.parlor is parlor
               or isinstance(o, TelnetProtocol) and o.counter is parlor.counter)


def _holders(parlor: Parlor) -> list[str]:
    """What still refers to this parlor's surviving sessions (for a failure's message)."""
    found = []
    for o in gc.get_objects():
        if isinstance(o, Session) and o.parlor is parlor:
            where = []
            for r in gc.get_referrers(o):
                if asyncio.iscoroutine(r) and r.cr_frame is not None:
                    stack, c = [], r
                    while c is not None and getattr(c, "cr_frame", None) is not None:
                        stack.append(f"{c.cr_code.co_name}:{c.cr_frame.f_lineno}")
                        c = c.cr_await
                    where.append(" > ".join(stack))
            found.append(f"{o.name or o.address}: " + "; ".join(where))
    return found[:4]


def _subscriptions(parlor: Parlor) -> int:
    return sum(len(fns) for fns in parlor.bus._subs.values())


async def _raw(port: int) -> asyncio.StreamWriter:
    _, writer = await asyncio.open_connection("127.0.0.1", port)
    return writer


async def _pairs_in_games(parlor: Parlor, prefix: str, players: int) -> list[Client]:
    """``players`` logged-in clients, in pairs, each pair in a game one move in."""
    clients = []
    for i in range(players):
        c = await Client.connect(parlor.port)
        await c.create(f"{prefix}{i:02d}")
        clients.append(c)
    for a, b in zip(clients[::2], clients[1::2]):
        await a.cmd(f"ttt challenge {b.name}", "You challenge")
        await b.expect("TTT ACCEPT")
        await b.cmd(f"ttt accept {a.name}", "begins")
        await a.cmd("ttt play 5", f"{a.name}: PLAY 5")
    return clients


async def _games_wait_for(parlor: Parlor, games: dict, returning: str) -> None:
    """Every game of ``games`` still waits, both seats marked absent, and ``returning``
    logs in again to find theirs."""
    assert set(parlor.host.live) == set(games)
    for game in parlor.host.live.values():
        assert len(game.absent) == 2
    back = await Client.connect(parlor.port)
    await back.login(returning)
    await back.expect("You have a game in progress")
    await back.close()


async def test_hundreds_drop_at_once_and_everything_is_freed(sqlite_url):
    players = 40 if SOAK else 16          # logged in, in games (pairs)
    logging_in = 300 if SOAK else 150     # mid-login: name typed, no password yet
    silent = 100 if SOAK else 40          # connected and silent: only the timeout frees them
    parlor = assemble(make_config(sqlite_url, login_timeout=5, idle_timeout=6,
                                max_connections_per_address=2000))
    await parlor.start()
    try:
        baseline = (_sessions_alive(parlor), _subscriptions(parlor), len(asyncio.all_tasks()))
        clients = await _pairs_in_games(parlor, "Storm", players)  # each game mid-way
        games = dict(parlor.host.live)
        assert len(games) == players // 2

        raws = []
        t_connect = time.monotonic()
        for i in range(logging_in):
            s = await _raw(parlor.port)
            s.write(b"Storm99\r\n" if i % 2 else b"NEW\r\nNewbie\r\n")
            raws.append(s)
        quiet = [await _raw(parlor.port) for _ in range(silent)]
        expected = players + logging_in + silent
        while len(parlor.connections) < expected and time.monotonic() - t_connect < 30:
            await asyncio.sleep(0.05)
        peak = len(parlor.connections)
        assert peak == expected

        # the storm: everyone goes at once
        t0 = time.monotonic()
        for i, c in enumerate(clients):
            if i % 2:
                sockets.reset(c.writer)
            else:
                c.writer.close()                   # FIN
        for i, s in enumerate(raws):
            sockets.reset(s) if i % 2 else s.close()
        # the silent ones stay connected and say nothing: the login timeout frees them
        limit = parlor.config.server.login_timeout + 3
        while parlor.connections and time.monotonic() - t0 < limit:
            await asyncio.sleep(0.1)
        freed_after = time.monotonic() - t0
        assert not parlor.connections, f"{len(parlor.connections)} still open"
        assert not parlor.online.sessions and not parlor.connections.per_address and not parlor.online._rooms
        for s in quiet:
            s.close()

        await _games_wait_for(parlor, games, "Storm00")
        await asyncio.sleep(0.3)

        # the bookkeeping and the memory are back to where they were: no Session object or
        # telnetlib3 protocol survives (telnetlib3's own list would keep them until the
        # next connection: the parlor prunes it), no subscription, no task
        await asyncio.sleep(0.2)
        sessions, subs, tasks = (_sessions_alive(parlor), _subscriptions(parlor),
                                 len(asyncio.all_tasks()))
        assert sessions == baseline[0], (sessions, baseline, _holders(parlor))
        assert subs <= baseline[1], (subs, baseline)
        assert tasks <= baseline[2] + 2, (tasks, baseline)
        print(f"storm: {peak} connections, all freed in {freed_after:.1f} s "
              f"(login timeout {parlor.config.server.login_timeout} s)")
    finally:
        await parlor.stop()


@pytest.mark.skipif(not sockets.half_open_supported(),
                    reason="needs Linux socket filters and TCP_REPAIR (root)")
async def test_half_open_sockets_are_dropped_by_keepalive(sqlite_url):
    """Clients whose network vanishes (they never answer again) or whose host forgets
    the connection (it answers only a probe, with a reset) leave half-open sockets.
    Neither the idle nor the login timeout is allowed to help here: TCP keepalive and
    the user timeout must find them, within about twice the keepalive setting, while
    other players are still writing to them."""
    keepalive = 1
    parlor = assemble(make_config(sqlite_url, keepalive=keepalive, idle_timeout=0,
                                login_timeout=3600, max_connections_per_address=500))
    await parlor.start()
    try:
        players = await _pairs_in_games(parlor, "Half", 8)
        games = dict(parlor.host.live)
        watcher = await Client.connect(parlor.port)
        await watcher.create("Watcher")
        logging_in = []
        for i in range(20):
            _, w = await asyncio.open_connection("127.0.0.1", parlor.port)
            w.write(b"Half00\r\n")
            logging_in.append(w)
        while len(parlor.connections) < 8 + 1 + 20:
            await asyncio.sleep(0.05)

        t0 = time.monotonic()
        for i, c in enumerate(players):
            (sockets.vanish if i % 2 else sockets.reboot)(c.writer)
        for i, w in enumerate(logging_in):
            (sockets.vanish if i % 2 else sockets.reboot)(w)
        # the living keep talking to the dead: output the vanished never acknowledge
        for n in range(3):
            await watcher.cmd(f"chat still there {n}?", f"still there {n}")
        while len(parlor.connections) > 1 and time.monotonic() - t0 < 2 * keepalive + 8:
            await asyncio.sleep(0.1)
        freed_after = time.monotonic() - t0
        assert [s.name for s in parlor.connections] == ["Watcher"], \
            f"{len(parlor.connections) - 1} half-open connections survived"
        assert [s.name for s in parlor.online.sessions.values()] == ["Watcher"]
        await _games_wait_for(parlor, games, "Half03")
        await watcher.close()
        for c in players:
            c.writer.transport.abort()
        for w in logging_in:
            w.transport.abort()
        print(f"half-open: 28 connections freed by keepalive in {freed_after:.1f} s "
              f"(keepalive {keepalive} s)")
    finally:
        await parlor.stop()
