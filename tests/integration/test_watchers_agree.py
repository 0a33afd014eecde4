"""Telnet and web watchers of one game are told the same: a whole game of each kind (at a
Triad table, two hands), watched at once by a telnet session (OBSERVE) and by a web live
stream, each drawing only from the watchers' events. Every line the web stream shows,
the telnet watcher reads, in the same order; and a player's hidden action (a Triptycha
tile drawn) reaches neither (it once reached the web page alone: "Alice draws a tile
<1>."), but for the draw that starts play, which everyone is told."""

from __future__ import annotations

import asyncio
import random
import re

import pytest

from server.hosting import Seat
from server.text import strip_sgr
from server.web.live import GameStream
from tests.hardening.conftest import quiet_config
from tests.hardening.harness import Harness
from tests.integration.test_events_as_data import _play_out


class WebWatcher:
    """A web live stream's consumer of the game topic, keeping every line it shows."""

    def __init__(self, parlor, game_id: int) -> None:  # noqa: ANN001
        self.stream = GameStream(parlor, game_id, lambda: None, lambda frame: {},
                                 asyncio.Event())
        self.seen: list[str] = []
        self.topic = f"game:{game_id}"
        self.parlor = parlor
        parlor.bus.subscribe(self.topic, self.on_event)

    def on_event(self, topic: str, event) -> None:  # noqa: ANN001
        self.stream.on_event(topic, event)
        self.seen.extend(self.stream.lines)
        self.stream.lines.clear()


def _in_order(lines: list[str], text: str) -> list[str]:
    """The lines of ``lines`` not found in ``text`` in their order (empty: all were)."""
    flat = re.sub(r"\s+", " ", strip_sgr(text))
    at, missing = 0, []
    for line in lines:
        found = flat.find(re.sub(r"\s+", " ", line), at)
        if found < 0:
            missing.append(line)
        else:
            at = found + len(line)
    return missing


@pytest.mark.parametrize("key", ["tt", "dice", "pyr"])
async def test_telnet_and_web_watchers_are_told_the_same(sqlite_url, key):
    harness = await Harness.start(quiet_config(sqlite_url, computer_delay=0.0))
    parlor = harness.parlor
    try:
        alice = await harness.player("Alice")
        watcher = await harness.player("Walter")
        me = Seat(alice.session.account.id, "Alice")
        kind = parlor.host.kinds[key]
        game = await parlor.host.play_computer(key, me, "easy", kind.spec.parse_options([]))
        await watcher.cmd(f"observe {game.id}")
        web = WebWatcher(parlor, game.id)
        await _play_out(parlor, game, game.seat_of(me.account_id), random.Random(7))
        for _ in range(200):
            if game.id not in watcher.session.watching:
                break  # told of the end
            await asyncio.sleep(0.01)
        told = watcher.new_output()
        assert web.seen, "the web stream was told nothing"
        assert not _in_order(web.seen, told)
        # a draw is the drawer's alone, but the one that fills the hands starts play
        assert sum("draws tile" in line for line in web.seen) <= 1
        assert told.count("draws tile") <= 1
    finally:
        await harness.stop()


async def test_telnet_and_web_watchers_of_a_triad_table_are_told_the_same(sqlite_url):
    """A table with a computer player: two hands played out, then Alice leaves and the
    table closes; no watcher is told a card of a hand before its showdown."""
    from games.triad import table as triad

    harness = await Harness.start(quiet_config(sqlite_url, computer_delay=0.0))
    parlor = harness.parlor
    try:
        alice = await harness.player("Alice")
        watcher = await harness.player("Walter")
        me = alice.session.account.id
        tables, host, rng = parlor.host.kind("triad"), parlor.host, random.Random(3)
        game = await tables.open(me, "Alice", triad.table_options(1, None, 2, 40))
        await tables.add_bots(me, 1, "easy")
        await watcher.cmd(f"observe {game.id}")
        web = WebWatcher(parlor, game.id)
        await host.act_text(me, "triad", "DEAL")
        for _ in range(3000):
            if game.outcome is not None:  # the table closed (a busy machine: a seat
                break                     # timed out): what both watchers saw is compared
            if game.state.game.phase == "hand_over" and game.state.game.hand_no >= 2:
                break
            if game.state.game.phase == "hand_over":
                await host.act_text(me, "triad", "DEAL")
            seat = game.seat_of(me)
            if seat in triad.to_move(game.state):
                try:
                    await host.act(me, "triad", game.kind.spec.choose_action(
                        game.state, seat, "easy", rng))
                except Exception:  # noqa: BLE001 - the state moved on under the choice
                    pass
            await asyncio.sleep(0.01)
        if game.outcome is None:
            await host.act_text(me, "triad", "LEAVE")
        for _ in range(300):
            if game.id not in watcher.session.watching:
                break
            await asyncio.sleep(0.01)
        told = watcher.new_output()
        assert web.seen, "the web stream was told nothing"
        assert not _in_order(web.seen, told)
    finally:
        await harness.stop()
