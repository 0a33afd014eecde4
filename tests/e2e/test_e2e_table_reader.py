"""At the table, round four (issue 39, items 2, 3, 4, 6, 10 and 13), over real sockets:
a deal tells a player their own cards in every board style, with the screen reader on
or off; COMPACT Pyramid says which cards a move uncovered; SEEKS and TOURNEY <n>
standings are lists in screen-reader mode; a game's start says whose move it is in
every style; COMPACT Triad Dice says "Your move." once a turn; SEEKS fits 40 columns."""

from __future__ import annotations

import asyncio
import random
import re

import pytest

from games.dice import notation as dice_notation
from games.dice import rules as dice_rules
from games.pyramid import notation as pyr_notation
from games.pyramid import rules as pyr_rules
from games.triad.cards import long_name
from tests.e2e.test_e2e_screen_budgets import settle
from tests.support.client import Client

STYLES = ("full", "compact", "off")
READERS = ("off", "on")


async def player(clients, name: str, style: str, reader: str, width: int = 80) -> Client:  # noqa: ANN001
    client = await clients(name)
    await client.cmd(f"set width {width}", f"Width is now {width}")
    await client.cmd("set height 100", ">")
    await client.cmd(f"set board {style}", f"Board {style.upper()}")
    await client.cmd(f"set screenreader {reader}", f"Screen reader mode is now {reader.upper()}")
    await settle(client)
    return client


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("style", STYLES)
async def test_a_deal_tells_a_player_their_own_cards(parlor, clients, style, reader):
    alice = await player(clients, "Alice", style, reader)
    await alice.cmd("triad open 10", "You open Triad table")
    await alice.cmd("triad bot easy", "sits down")
    await settle(alice)
    mark = len(alice.seen)
    await alice.cmd("triad start", "Hand 1: ")
    game = next(iter(parlor.host.live.values()))
    for _ in range(20):
        await settle(alice)
    got = alice.seen[mark:]
    me = game.state.position(game.seat_of((await parlor.accounts.get("Alice")).id))
    cards = game.state.game.seats[me].cards
    if game.state.game.hand_no == 1:  # (the hand may be over already if the computer folds)
        for code in cards:  # by its code, or in words read out
            assert code in got or long_name(code) in got, (code, got)


async def play_pyramid_until(client: Client, game, seen: str, moves: int = 60) -> str:  # noqa: ANN001
    """Remove pairs (a pyramid card first), else draw, until ``seen`` is told."""
    mark = len(client.seen)
    for _ in range(moves):
        if game.outcome is not None or seen in client.seen[mark:]:
            break
        acts = list(pyr_rules.legal_actions(game.state.matches[0], 0))
        pairs = [a for a in acts if a.kind not in ("deal", "end")]
        deals = [a for a in acts if a.kind == "deal"]
        action = pairs[0] if pairs else deals[0] if deals else pyr_rules.END
        version = game.version
        client.send(f"pyr {pyr_notation.format_action(action)}")
        for _ in range(500):
            if game.version != version:
                break
            await asyncio.sleep(0.01)
        await settle(client)
    return client.seen[mark:]


@pytest.mark.parametrize("reader", READERS)
async def test_compact_pyramid_says_which_cards_a_move_uncovered(parlor, clients, reader,
                                                                 monkeypatch):
    from server.services import play
    deals = random.Random(27)
    monkeypatch.setattr(play.random, "SystemRandom", lambda: deals)
    alice = await player(clients, "Alice", "compact", reader)
    await alice.cmd("pyr new", r"Game #\d+: Pyramid, Alice begins")
    game = next(iter(parlor.host.live.values()))
    got = await play_pyramid_until(alice, game, "Uncovered: ")
    told = re.search(r"Uncovered: ([^\n]*)", got)
    assert told, got[-2000:]
    if reader == "on":
        assert re.search(r"\d,\d (ace|king|queen|jack|\d+) of \w+", told.group(1)), told.group(0)
    else:
        assert re.search(r"(10|[2-9AJQK])[CDHS] at \d,\d", told.group(1)), told.group(0)


RULE = re.compile(r"^-+( +-+)+\s*$", re.M)


async def test_seeks_and_standings_are_lists_in_screen_reader_mode(parlor, clients):
    bob = await clients("Bob")
    await bob.cmd("dice seek", "Your seek 1 is posted")
    alice = await player(clients, "Alice", "full", "on")
    seeks = await alice.cmd("seeks", r"PLAY <n> takes a seek")
    assert not RULE.search(seeks), seeks
    assert re.search(r"#: 1, Player: Bob, Rating: \d+, Game: Triad Dice", seeks), seeks
    # a Swiss (the parlor's system) and a Par tournament (Pyramid's own)
    await bob.cmd("tourney create dice swiss 3", r"Tournament (\d+) is open")
    await bob.cmd("tourney join 1", "You enter tournament 1")
    await alice.cmd("tourney join 1", "You enter tournament 1")
    await bob.cmd("tourney start 1", "begins")
    await settle(alice, bob)
    standings = await alice.cmd("tourney 1", r"Round 1:")
    assert not RULE.search(standings), standings
    assert re.search(r"#: 1, Player: (Alice|Bob), Points: ", standings), standings
    carol = await clients("Carol")
    await carol.cmd("tourney create pyr par 2", r"Tournament 2 is open")
    await carol.cmd("tourney join 2", "You enter tournament 2")
    alice.buffer = ""
    alice.send("tourney 2")
    await asyncio.sleep(0.5)
    await settle(alice)
    par = alice.seen[-1500:]
    assert "Tournament 2" in par and "Carol" in par, par
    assert not RULE.search(par), par
    assert re.search(r"Player: Carol", par), par


async def test_seeks_fit_40_columns(parlor, clients):
    bob = await clients("Bob")
    await bob.cmd("dice seek 1400-1800", "Your seek 1 is posted")
    carol = await clients("Carol")
    await carol.cmd("tt seek", "Your seek 2 is posted")
    alice = await player(clients, "Alice", "full", "off", width=40)
    seeks = await alice.cmd("seeks", r"PLAY <n> takes a seek\.\)")
    lines = [line for line in seeks.replace("\r", "").split("\n") if line.strip("> ")]
    assert all(len(line) <= 40 for line in lines), lines
    assert not RULE.search(seeks), seeks  # no rule that wraps
    assert any(line.startswith("1. Bob (") and "Triad Dice" in line for line in lines), lines
    assert "ratings 1400-1800" in seeks.replace("\n  ", " "), seeks
    wide = await player(clients, "Dora", "full", "off")
    assert RULE.search(await wide.cmd("seeks", r"PLAY <n> takes a seek")), "80 columns: a table"


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("style", STYLES)
async def test_a_game_start_says_whose_move_it_is(parlor, clients, style, reader):
    alice = await player(clients, "Alice", style, reader)
    bob = await player(clients, "Bobby", style, reader)
    await alice.cmd("dice challenge bobby", "You challenge Bobby")
    await bob.cmd("dice accept alice", r"Game #\d+")
    game = next(iter(parlor.host.live.values()))
    for _ in range(10):
        await settle(alice, bob)
    first = game.seats[game.state.turn].name
    mover, other = (alice, bob) if first == "Alice" else (bob, alice)
    for client, words in ((mover, r"Your move\.|\[your move\]"),
                          (other, rf"{first} to move\.|\[to move: {first}\]")):
        told = client.seen[re.search(r"Game #\d+: Triad Dice.* begins", client.seen).start():]
        assert re.search(words, told), (style, reader, told)


@pytest.mark.parametrize("reader", READERS)
async def test_compact_dice_says_your_move_once_a_turn(parlor, clients, reader):
    alice = await player(clients, "Alice", "compact", reader)
    parlor.host.computer_delay = 0.0
    await alice.cmd("dice challenge computer easy", "begins")
    game = next(iter(parlor.host.live.values()))
    me = game.seat_of((await parlor.accounts.get("Alice")).id)
    rng = random.Random(3)
    turns = 0
    for _ in range(200):
        if game.outcome is not None or turns >= 6:
            break
        state = game.state
        if state.result is not None or state.turn != me:
            await asyncio.sleep(0.02)
            await settle(alice)
            continue
        await settle(alice)
        mark = len(alice.seen)
        action = rng.choice(list(dice_rules.legal_actions(state, state.turn)))
        version = game.version
        alice.send(f"dice {dice_notation.format_action(action).lower()}")
        for _ in range(500):  # until it is Alice's move again (or the game is over)
            if game.outcome is not None or (game.version > version + 1 and
                                            game.state.turn == me):
                break
            await asyncio.sleep(0.01)
        await settle(alice)
        await asyncio.sleep(0.1)
        await settle(alice)
        if game.outcome is None and game.state.turn == me and not game.state.pending:
            turn = alice.seen[mark:]
            # "Your move." or, read out, the game's turn line ("Your move: DICE MOVE ...")
            told = re.findall(r"^Your move\b", turn.replace("\r\n", "\n"), re.M)
            assert len(told) == 1, turn
            turns += 1
    assert turns >= 2
