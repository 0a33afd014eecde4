"""At the table, round four (issue 39, item 10), over real sockets: with SET BOARD COMPACT a
player is told once a turn that it is their move, with the screen reader on as well as off.

Read out, what changed on the board may hold the game's own turn line ("Your move: DICE
MOVE <cell> <value> <direction>, e.g. DICE MOVE c1 2 N.", "Your turn to bet: PASS, RAISE
10 to 190."); "Your move." is then not said after it as well. Each of Alice's turns is
counted from what she received between her last move and her next one.
"""

from __future__ import annotations

import asyncio
import random
import re

import pytest

from games.dice import notation as dice_notation
from games.dice import rules as dice_rules
from games.triad import table as triad
from tests.e2e.test_e2e_screen_budgets import settle
from tests.e2e.test_e2e_table_reader import player

READERS = ("off", "on")
#: a line that tells the reader it is their move (the game's own turn line, or the bare one)
TURN = re.compile(r"^(Your move\b|Your turn\b|Your draw:)", re.M)


def told(text: str) -> list[str]:
    """The lines of ``text`` that say it is the reader's move."""
    return TURN.findall(text.replace("\r\n", "\n"))


def check(turns: list[str]) -> None:
    """Each turn says once that it is the reader's move (pytest shows what is printed on
    a failure in whole; an assertion message would be cut short)."""
    wrong = [text for text in turns if len(told(text)) != 1]
    for text in wrong:
        print(f"A turn that tells the move {len(told(text))} times:\n{text}")
    assert not wrong, f"{len(wrong)} of {len(turns)} turns"


async def wait_for(predicate, client, tries: int = 500) -> None:  # noqa: ANN001
    """Until ``predicate()`` holds (bounded: about ``tries`` hundredths of a second)."""
    for _ in range(tries):
        if predicate():
            return
        await asyncio.sleep(0.01)
    await settle(client)
    raise AssertionError("the game did not move on")


def same_seed(monkeypatch) -> None:  # noqa: ANN001
    """The same game every run: a game's seed is drawn from SystemRandom."""
    from server.services import play
    seeds = random.Random(11)
    monkeypatch.setattr(play.random, "SystemRandom", lambda: seeds)


@pytest.mark.parametrize("reader", READERS)
async def test_compact_dice_tells_each_turn_once(parlor, clients, reader, monkeypatch):
    same_seed(monkeypatch)
    alice = await player(clients, "Alice", "compact", reader)
    parlor.host.computer_delay = 0.0
    await alice.cmd("dice challenge computer easy", "begins")
    game = next(iter(parlor.host.live.values()))
    me = game.seat_of((await parlor.accounts.get("Alice")).id)
    rng = random.Random(3)
    turns: list[str] = []
    mark = None
    for _ in range(8):
        await wait_for(lambda: game.outcome is not None or (
            game.state.turn == me and not game.state.pending), alice)
        await settle(alice)
        if game.outcome is not None:
            break
        if mark is not None:
            turns.append(alice.seen[mark:])
        mark = len(alice.seen)
        state = game.state
        action = rng.choice(list(dice_rules.legal_actions(state, state.turn)))
        version = game.version
        alice.send(f"dice {dice_notation.format_action(action).lower()}")
        await wait_for(lambda: game.version > version, alice)
    assert len(turns) >= 4, turns
    check(turns)


@pytest.mark.parametrize("reader", READERS)
async def test_compact_triad_tells_each_turn_once(parlor, clients, reader, monkeypatch):
    same_seed(monkeypatch)
    alice = await player(clients, "Alice", "compact", reader)
    parlor.host.computer_delay = 0.0
    await alice.cmd("triad open 10 limit 10", "You open Triad table")
    await alice.cmd("triad bot easy", "sits down")
    game = next(iter(parlor.host.live.values()))
    me = game.state.position(game.seat_of((await parlor.accounts.get("Alice")).id))
    turns: list[str] = []
    mark = None
    for hand in range(1, 4):
        if game.outcome is not None:
            break
        alice.send("triad start" if hand == 1 else "triad deal")
        await wait_for(lambda: game.state.game.hand_no == hand, alice)
        mark = None  # a deal draws the whole table: its turn is not one of these
        for _ in range(12):
            await wait_for(lambda: game.outcome is not None or game.state.game.phase ==
                           "hand_over" or triad.to_move(game.state) and
                           game.state.position(triad.to_move(game.state)[0]) == me, alice)
            await settle(alice)
            g = game.state.game
            if game.outcome is not None or g.phase == "hand_over":
                break
            if mark is not None:
                turns.append(alice.seen[mark:])
            mark = len(alice.seen)
            line = ("triad discard 1" if g.phase == "draw" else "triad pass"
                    if g.current_bet == g.seats[me].bet else "triad equal")
            version = game.version
            alice.send(line)
            await wait_for(lambda: game.version > version, alice)
    assert len(turns) >= 3, turns
    check(turns)
