"""Frames carry their game's epoch (the fencing token of the node that drives it): a
consumer drops a frame of an older epoch than it has seen, which can only come from a
node that has lost the game (server/cluster/)."""

from __future__ import annotations

from server.bus import Event
from server.presentation import Presentation
from server.web.live import GameStream
from tests.support.frames import a_frame


def test_the_presentation_draws_no_frame_of_an_older_epoch():
    shown = Presentation({})
    assert shown.current(a_frame(7, epoch=0))
    assert shown.current(a_frame(7, epoch=2))      # adopted twice since
    assert not shown.current(a_frame(7, epoch=1))  # the node that lost it
    assert shown.current(a_frame(8, epoch=1))      # each game on its own
    assert shown.current(a_frame(7, epoch=2), ending=True)
    assert shown.current(a_frame(7, epoch=0))      # forgotten once it ended


class _Parlor:
    class config:  # noqa: N801 - the attribute path GameStream reads
        class web:  # noqa: N801
            stream_idle = 60.0


def test_a_live_board_keeps_the_newest_epoch_then_version():
    stream = GameStream(_Parlor(), 7, None, None, None)  # type: ignore[arg-type]
    frame = a_frame(7, epoch=2, version=5, lines=("new",))
    stream.on_event("game:7", Event("game.update", frame.to_json()))
    stale = a_frame(7, epoch=1, version=9, lines=("stale",))
    stream.on_event("game:7", Event("game.update", stale.to_json()))
    assert stream.frame == frame and stream.lines == ["new"]
    newer = a_frame(7, epoch=3, version=5)
    stream.on_event("game:7", Event("game.update", newer.to_json()))
    assert stream.frame == newer
