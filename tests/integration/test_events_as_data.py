"""Events are data: everything published on the bus during a whole game of each kind
is plain JSON (a frame of the game as its audience sees it, and the lines it is told,
never a live object), so a bus between several server nodes could carry it unchanged and
a consumer there could draw it alone."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

from server.bus import Event, LocalBus
from server.frames import Frame
from server.hosting import Seat
from server.presentation import board_text


class Recorder:
    """Subscribes to a game's topic and to its players' topics; keeps every event."""

    def __init__(self, bus: LocalBus) -> None:
        self.bus = bus
        self.events: list[tuple[str, Event]] = []

    def watch(self, topic: str) -> None:
        self.bus.subscribe(topic, lambda t, e: self.events.append((t, e)))

    def assert_plain_data(self) -> None:
        """Every event was published and ended (``game.end``), and each is plain data
        that JSON carries unchanged."""
        types = {e.type for _, e in self.events}
        assert {"game.update", "game.end"} <= types, types
        for topic, event in self.events:
            wire = json.loads(json.dumps({"type": event.type, "data": event.data}))
            assert wire == {"type": event.type, "data": event.data}, (topic, event)


def test_the_bus_refuses_a_live_object_and_delivers_a_copy():
    bus, got = LocalBus(), []
    bus.subscribe("t", lambda topic, event: got.append(event))
    data = {"game": 7, "lines": ["a"]}
    bus.publish("t", Event("game.update", data))
    assert got[0].data == data and got[0].data is not data
    with pytest.raises(TypeError):
        bus.publish("t", Event("game.update", {"game": object()}))


async def _play_out(parlor, game, human: int, rng: random.Random) -> None:
    """Play the human seat with the kind's own computer player until the game ends
    (the computer seats move by themselves, in the host's workers)."""
    kind, host = game.kind, parlor.host
    account = game.seats[human].account_id
    for _ in range(3000):
        if game.outcome is not None:
            return
        if human in kind.spec.to_move(game.state):
            action = kind.spec.choose_action(game.state, human, "easy", rng)
            try:
                await host.act(account, kind.key, action)
            except Exception:  # noqa: BLE001 - the state moved on under the choice
                await asyncio.sleep(0.01)
        else:
            await asyncio.sleep(0.01)
    raise AssertionError(f"{kind.key}: the game did not end")


@pytest.mark.parametrize("key", ["dice", "tt", "pyr"])
async def test_every_event_of_a_whole_game_round_trips_through_json(parlor, key):
    await parlor.seed()  # the default collections: a new account gets its starter tiles
    alice = await parlor.accounts.create("Alice", "secret")
    me = Seat(alice.id, alice.name)
    recorder = Recorder(parlor.bus)
    recorder.watch(f"account:{alice.id}")
    options = parlor.host.kinds[key].spec.parse_options([])
    game = await parlor.host.play_computer(key, me, "easy", options)
    recorder.watch(f"game:{game.id}")
    await _play_out(parlor, game, game.seat_of(alice.id), random.Random(5))
    for _ in range(200):  # the last computer moves and the end are told
        if any(e.type == "game.end" for _, e in recorder.events):
            break
        await asyncio.sleep(0.01)
    recorder.assert_plain_data()
    seat = game.seat_of(alice.id)
    for topic, event in recorder.events:
        if event.type.startswith("game."):
            frame = Frame.from_json(event.data)   # of this release's schema
            assert frame.to_json() == event.data   # and it round-trips
            assert frame.game == game.id and isinstance(frame.version, int)
            # self-contained: the audience's own frame, drawn with no look-up of the game
            assert frame.seat == (None if topic.startswith("game:") else seat)
            assert board_text(parlor.host.kinds[frame.kind_key], frame, width=80,
                              height=24, color=False, screenreader=True)
            assert board_text(parlor.host.kinds[frame.kind_key], frame, width=80,
                              height=24, color=True, screenreader=False)


async def test_every_event_of_a_triad_table_round_trips_through_json(parlor):
    """A table with a computer player: a hand played out, then Alice leaves and the
    table closes."""
    from games.triad import table as triad
    from server.services.triad import KEY

    alice = await parlor.accounts.create("Alice", "secret")
    tables, host, rng = parlor.host.kind(KEY), parlor.host, random.Random(3)
    game = await tables.open(alice.id, alice.name, triad.table_options(1, None, 2, 40))
    await tables.add_bots(alice.id, 1, "easy")
    recorder = Recorder(parlor.bus)
    recorder.watch(f"account:{alice.id}")
    recorder.watch(f"game:{game.id}")
    await host.act_text(alice.id, KEY, "DEAL")
    for _ in range(3000):
        table = game.state
        if table.game.phase == "hand_over" and table.game.hand_no >= 1:
            break
        seat = game.seat_of(alice.id)
        if seat in triad.to_move(table):
            action = game.kind.spec.choose_action(table, seat, "easy", rng)
            try:
                await host.act(alice.id, KEY, action)
            except Exception:  # noqa: BLE001 - the state moved on under the choice
                pass
        await asyncio.sleep(0.01)
    if game.outcome is None:  # not closed already (Alice may have lost her whole stack)
        await host.act_text(alice.id, KEY, "LEAVE")
    for _ in range(300):
        if game.outcome is not None:
            break
        await asyncio.sleep(0.01)
    recorder.assert_plain_data()
