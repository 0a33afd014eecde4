"""A frame (server/frames.py) made up for a test: a two-player game of Triad Dice."""

from __future__ import annotations

from server.frames import Frame
from server.hosting import Seat


def a_frame(game: int = 7, *, epoch: int = 0, version: int = 0,
            lines: tuple[str, ...] = (), **more) -> Frame:  # noqa: ANN003
    """A frame of a two-player game, for tests."""
    fields = dict(game=game, kind_key="dice", kind_title="Triad Dice",
                  title=f"Game #{game}: Triad Dice, Ann vs Bo", version=version, epoch=epoch,
                  seat=None, seats=(Seat(1, "Ann"), Seat(2, "Bo", "easy")), ranked=False,
                  to_move=(0,), finished=False, adjourned=False, result=None,
                  withheld=None, clock=None, view={"board": [1, 2]}, legal=None, lines=lines)
    fields.update(more)
    return Frame(**fields)
