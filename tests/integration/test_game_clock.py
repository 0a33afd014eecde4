"""A game's clock as the board shows it (``LiveGame.clock``, the frame's ``clock`` and the
GMCP payload's seconds left): Triptycha's trading, Triad's action clock; none in play."""

from __future__ import annotations

import time

from games.triad.table import NEXT_HAND_S
from games.triptycha.rules import Resign, Rules, apply
from server.hosting import Seat
from server.services.live import LiveGame
from tests.unit.test_triptycha_rules import position, uniform


def live(parlor, key: str, state) -> LiveGame:  # noqa: ANN001
    return LiveGame(id=1, kind=parlor.host.kinds[key], seats=(Seat(1, "Ann"), Seat(2, "Bo")),
                    options={}, ranked=False, seed=0, state=state, version=3)


async def test_triptycha_trading_has_a_clock_play_has_none(parlor):
    kind = parlor.host.kinds["tt"]
    s = position({5: (1, 1, uniform(1, 9))}, Rules(take=1), mover_hand=(uniform(2, 9),))
    game = live(parlor, "tt", s)
    assert game.clock() is None and game.frame(0).clock is None   # in play: no clock
    trading, _ = apply(s, 1, Resign())
    assert trading.phase == "trading"
    game = live(parlor, "tt", trading)
    game.since = time.time() - 10
    clock = game.frame(None).clock
    assert clock.seat == 0 and clock.seconds == kind.trade_timeout
    assert abs(clock.deadline - (game.since + kind.trade_timeout)) < 1e-6


async def test_the_gmcp_view_tells_the_seconds_left(parlor, clients):
    """A Triad table's action clock reaches a MUD client's GMCP with the seconds left."""
    from tests.support.client import Client

    alice = await Client.connect_mud(parlor.port)
    await alice.create("Alice")
    await alice.cmd("triad open", r"Table|table")
    await alice.cmd("triad bot easy", r"sits down")
    await alice.cmd("triad start", r"dealt|deals|hand 1")
    game = next(g for g in parlor.host.live.values() if g.kind.key == "triad")
    for _ in range(100):
        sent = [d for p, d in alice.gmcp if p.endswith(".Game") and d.get("version") == game.version]
        if sent:
            break
        await alice.expect(r"\S", timeout=1)
    clock = sent[-1].get("clock")
    assert clock is not None, sent[-1]
    act = parlor.host.kinds["triad"].action_timeout
    assert 0 < clock["left"] <= clock["seconds"] in (act, min(act, NEXT_HAND_S))
