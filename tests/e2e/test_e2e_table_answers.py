"""At the table, round four (issue 39), items 10i and 11: short answers to what a player
types, over real sockets at 80 columns (40 for TT HAND).

10i: TT HAND, outside screen-reader mode, says in which corner order "5-3-4" is read.
11: every refusal of a bad move of PYR, TT, TRIAD and DICE (and of PYR's own commands)
is one line at 80 columns, and changes nothing in the game.
"""

from __future__ import annotations

import asyncio
import json
import random
import re

from games.pyramid.cards import rank
from tests.e2e.test_e2e_table_ends import small
from tests.e2e.test_e2e_triad import drain
from tests.e2e.test_e2e_triptycha import seed
from tests.integration.test_tiles import PROVING
from tests.support.client import Client

LONG = "x" * 70        # a word as long as a line: never echoed whole
DIGITS = "9" * 70


async def test_tt_hand_says_the_corner_order_at_40_columns(parlor, tmp_path):
    """10i: board style FULL, no screen reader, SET WIDTH 40: TT HAND's tiles ("5-3-4")
    come with "Corners: T-BL-BR up, TL-TR-B down." on one line of its own."""
    await seed(parlor, tmp_path, PROVING)  # a new account's starter set
    alice = await small(parlor.port, "Alice")
    await alice.cmd("set width 40", "Width is now 40")
    await alice.cmd("tt challenge computer easy Random", r"begins(.|\n)*?\n> ")
    await asyncio.sleep(0.3)
    await drain(alice)
    out = await alice.cmd("tt hand", r"Your hand: (.|\n)*?\n> ")
    rows = [row for row in out.split("\r\n") if row.strip() and row.strip() != ">"]
    assert "Corners: T-BL-BR up, TL-TR-B down." in rows, out
    assert re.search(r"Tile 1, (up|down): \d+-\d+-\d+, primary \d+", " ".join(out.split()))
    assert all(len(row) <= 40 for row in rows), out


# -- one line for each refusal --------------------------------------------------------------
def _snapshot(parlor, number: int) -> tuple[int, str]:
    game = parlor.host.live[number]
    return game.version, json.dumps(game.kind.spec.state_to_json(game.state), sort_keys=True)


async def _refusals(parlor, client: Client, number: int, lines: list[str]) -> list[str]:
    """Type each of ``lines``; what went wrong with each (more than one line before the
    prompt, or the game changed), as text, for one assertion over the whole table."""
    wrong = []
    await asyncio.sleep(0.2)
    await drain(client)
    for line in lines:
        before = _snapshot(parlor, number)
        out = await client.cmd(line, r"> $")
        rows = [row for row in out.split("\r\n") if row.strip() and row.strip() != ">"]
        if len(rows) != 1:
            wrong.append(f"{line!r}: {len(rows)} lines: {rows}")
        if _snapshot(parlor, number) != before:
            wrong.append(f"{line!r}: the game changed")
    return wrong


async def _when(parlor, test, timeout: float = 15.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not test():
        assert loop.time() < deadline, "the game never got there"
        await asyncio.sleep(0.05)


PYR = ["pyr 9,9", "pyr 8,1", "pyr 0,3", "pyr 7,1 9,9", "pyr x", "pyr 7;1", "pyr -1,2",
       "pyr 7,1 6,3 5,5", "pyr 7,1 6,3 5,5 4,4 3,3 2,2 1,1 7,2 7,3 7,4", "pyr p p", "pyr 71 7",
       "pyr 7", "pyr 7 1", "pyr 7,8", "pyr 7,0", "pyr 1,2", "pyr 123456789", "pyr ,",
       "pyr d d", "pyr deal 7,1", "pyr end 7,1", "pyr p 7,1 6,3", "pyr 1,1", "pyr 1,1 2,1",
       "pyr w", "pyr 7,", "pyr 77", f"pyr {LONG}", f"pyr 7,1 {DIGITS}", "pyr ² 1",
       f"pyr z{LONG}", "pyr config speed warp", "pyr config sideways", "pyr config speed",
       f"pyr config {LONG} fast", "pyr config errors maybe", "pyr config mouse",
       "pyr new now", "pyr hint x", "pyr auto x", "pyr quit x", "pyr save x", "pyr score x",
       "pyr top10 x", "pyr info x", "pyr solution x", "pyr exit x", "pyr tour x",
       f"pyr tour {LONG}", "pyr restore x y z", "pyr save"]
# (PYR NEW and PYR QUIT in a game begun are no refusals: they ask, in two lines, to confirm)


async def test_pyramid_refusals_are_one_line(parlor, monkeypatch):
    # the same deal every run: "pyr 77" and "pyr w" are moves when that card is a King
    from server.services import play
    seeds = random.Random(11)
    monkeypatch.setattr(play.random, "SystemRandom", lambda: seeds)
    alice = await small(parlor.port, "Alice")
    out = await alice.cmd("pyr new", r"Game #(\d+): Pyramid, Alice begins(.|\n)*?\n> ")
    number = int(re.search(r"Game #(\d+)", out).group(1))
    await alice.cmd("pyr d", r"Alice: D(.|\n)*?\n> ")  # a game begun: NEW and QUIT ask first
    deal = parlor.host.live[number].state.matches[0].game
    assert all(rank(deal.card_at(spot)) != 13 for spot in ("7,7", "W")), "a King: pick a seed"
    wrong = await _refusals(parlor, alice, number, PYR)
    assert wrong == [], "\n".join(wrong)


DICE = ["dice move", "dice move c1", "dice move z9 3 ne", "dice move c9 3 n",
        "dice move c1 9 ne", "dice move c1 3 xx", "dice move c1 3 ne extra",
        "dice move c3 2 n", "dice move c6 2 s", "dice move 11 2 n", "dice move c1 c2 n",
        "dice move c1 2 3", "dice move c1 n s", "dice move c1 0 n", "dice move c1 3 northish",
        "dice move c1 2", "dice move c1 ne", f"dice move {LONG} 2 n", f"dice move c1 2 {LONG}",
        f"dice move c1 {DIGITS} n", f"dice move z{DIGITS} 2 n", "dice remove",
        "dice remove c1", "dice remove z9", "dice remove c1 c2", f"dice remove {LONG}",
        "dice resign now"]


async def test_dice_refusals_are_one_line(parlor):
    bob = await small(parlor.port, "Bob")
    out = await bob.cmd("dice challenge computer easy", r"Game #(\d+): (.|\n)*?\n> ")
    number = int(re.search(r"Game #(\d+)", out).group(1))
    game = parlor.host.live[number]
    await _when(parlor, lambda: game.kind.spec.to_move(game.state) == (0,))
    # a die of Bob's that can move: "c1 2" (turn it where it stands) is refused while any can
    wrong = await _refusals(parlor, bob, number, DICE)
    assert wrong == [], "\n".join(wrong)


TT_PLAY = ["tt lay", "tt lay x", "tt lay 9 in 5", "tt lay 1 in 10", "tt lay 1 5 6",
           "tt lay 1 on 5", "tt lay 0 in 0", "tt lay 1 in 0", f"tt lay {DIGITS} in 5",
           f"tt lay {LONG}", "tt rotate", "tt rotate x", "tt rotate 9", "tt flip 0", "tt flip",
           "tt flip 1 2", "tt draw 1", "tt draw", "tt take 1", "tt take", "tt done",
           "tt done now", "tt view", "tt view opponent"]
TT_DRAW = ["tt draw 99", "tt draw 0", "tt draw x", f"tt draw {DIGITS}", "tt draw 1 2",
           "tt lay 1 in 5", "tt rotate 1", "tt take 1", "tt done"]


async def test_triptycha_refusals_are_one_line(parlor, tmp_path):
    await seed(parlor, tmp_path, PROVING)
    carol = await small(parlor.port, "Carol")
    out = await carol.cmd("tt challenge computer easy", r"Game #(\d+): (.|\n)*?\n> ")
    number = int(re.search(r"Game #(\d+)", out).group(1))
    game = parlor.host.live[number]
    await _when(parlor, lambda: len(game.state.hands[1]) == 6)  # the computer has drawn
    wrong = await _refusals(parlor, carol, number, TT_DRAW)
    for i in range(1, 6):
        await carol.cmd(f"tt draw {i}", f"Carol draws tile {i}")
    await _when(parlor, lambda: game.state.phase == "play" and
                game.kind.spec.to_move(game.state) == (0,))
    wrong += await _refusals(parlor, carol, number, TT_PLAY)
    assert wrong == [], "\n".join(wrong)


TRIAD_ALONE = ["triad start", "triad deal", "triad pass", "triad raise 10", "triad bot 9",
               "triad bot genius", f"triad bot {LONG}", "triad open 10"]
TRIAD_BET = ["triad raise", "triad raise ten", "triad raise 5", "triad raise 0",
             "triad raise -5", f"triad raise {DIGITS}", "triad raise 100000",
             "triad raise 10 20", "triad pass pass", "triad equal 5", "triad fold now",
             "triad stand", "triad discard 1 2", "triad discard", "triad discard 1 9",
             "triad discard x", "triad deal", "triad start", "triad back"]
TRIAD_DRAW = ["triad discard", "triad discard 1 2 3 4 5", "triad discard 0",
              "triad discard 7", "triad discard zz", "triad discard 2X", "triad discard 15B",
              "triad discard 1 1", "triad discard 1,2,3,4,5,6", f"triad discard {LONG}",
              f"triad discard {DIGITS}", "triad discard 1 2 3 4 5 6 7", "triad raise 10",
              "triad pass", "triad equal", "triad fold", "triad stand now"]


async def test_triad_refusals_are_one_line(parlor):
    alice = await small(parlor.port, "Alice")
    bob = await small(parlor.port, "Bob")
    out = await alice.cmd("triad open 10 seats 2 buyin 100", r"table #(\d+)(.|\n)*?\n> ")
    number = int(re.search(r"table #(\d+)", out).group(1))
    wrong = await _refusals(parlor, alice, number, TRIAD_ALONE)
    await bob.cmd(f"triad join {number}", r"Bob sits down(.|\n)*?\n> ")
    await alice.cmd("triad start", r"Hand 1(.|\n)*?\n> ")
    game = parlor.host.live[number]
    table = game.state

    def mover() -> Client:
        t = game.state
        return alice if t.seats[t.places[t.game.to_act]].name == "Alice" else bob

    await asyncio.sleep(0.3)
    wrong += await _refusals(parlor, mover(), number, TRIAD_BET)
    waiting = bob if mover() is alice else alice
    wrong += await _refusals(parlor, waiting, number, ["triad pass", "triad raise 10"])
    first = mover()
    await first.cmd("triad raise 10", r"RAISE 10(.|\n)*?\n> ")
    await (bob if first is alice else alice).cmd("triad equal", r"EQUAL(.|\n)*?\n> ")
    await _when(parlor, lambda: game.state.game.phase == "draw")
    assert table is not game.state
    wrong += await _refusals(parlor, mover(), number, TRIAD_DRAW)
    assert wrong == [], "\n".join(wrong)
