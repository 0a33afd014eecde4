"""A frame (server/frames.py) is a typed value in the process and JSON only on the bus:
every frame round-trips through JSON, and a frame of another schema is refused, not
misread."""

from __future__ import annotations

import json

import attrs
import pytest

from server.bus import Event, LocalBus
from server.frames import SCHEMA, Clock, Facts, Frame, OtherSchema, heard
from server.hosting import Seat
from tests.support.frames import a_frame


@pytest.mark.parametrize("frame", [
    a_frame(),
    a_frame(3, epoch=2, version=11, seat=1, legal=("DICE MOVE a1 N",), lines=("Bo: x",),
            facts=Facts(actor=0, was_to_move=(0,), board=True, new_phase=True),
            clock=Clock(1, 30.0, 1700000000.5)),
    a_frame(4, view=None, watchers=3, finished=True, to_move=(), result="Ann wins.",
            seats=(Seat(1, "Ann", left=True), Seat(2, "Bo"))),
])
def test_a_frame_round_trips_through_json(frame):
    data = json.loads(json.dumps(frame.to_json()))
    assert data["schema"] == SCHEMA
    assert Frame.from_json(data) == frame


def test_a_frame_of_another_schema_is_refused():
    data = a_frame().to_json()
    for schema in (SCHEMA + 1, None):
        with pytest.raises(OtherSchema):
            Frame.from_json({**data, "schema": schema})


def test_the_local_bus_carries_a_frame_as_json_as_another_node_would():
    bus, heard = LocalBus(), []
    bus.subscribe("game:7", lambda topic, event: heard.append(event))
    frame = a_frame(facts=Facts(actor=1, was_to_move=(1,), board=False))
    bus.publish("game:7", Event("game.update", frame.to_json()))
    assert Frame.from_json(heard[0].data) == frame
    with pytest.raises(TypeError):   # a live object cannot travel
        bus.publish("game:7", Event("game.update", attrs.asdict(frame, recurse=False)))


def test_left_is_the_audience_seat_having_left():
    seats = (Seat(1, "Ann", left=True), Seat(2, "Bo"))
    assert a_frame(seats=seats, seat=0).left
    assert not a_frame(seats=seats, seat=1).left and not a_frame(seats=seats).left


def test_an_event_heard_by_many_is_read_once():
    data = a_frame(version=3).to_json()
    first = heard(data)
    assert heard(data) is first                       # the same event's data: read once
    assert heard(dict(data)) == first and heard(dict(data)) is not first
