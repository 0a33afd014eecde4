"""Screen-reader mode over real sockets (issue 12, part 5): with SET SCREENREADER ON a
player plays a whole game of each of the four kinds against the computer, and no line
received from then on holds box drawing or an ASCII-art run; the boards are read out as
short lines ("Niche 5, up: yours, 3-3-3, primary 3.").

The test plays through the commands a player types; it reads the live game on the
server only to choose a legal move, as a player reading the lines would.

Blind first (issue 27): each game is played a second time with SET BOARD OFF, reading the
board only through the game's questions (TT NICHE, PYR ROW, DICE COLUMN, TRIAD BETS, TURN,
LAST ...) and the announcements; and no line holds a glyph either ("(2)", "<5>", "±").
"""

from __future__ import annotations

import asyncio
import random
import re

import pytest

from games.dice import notation as dice_notation
from games.dice import rules as dice_rules
from games.pyramid import notation as pyr_notation
from games.pyramid import rules as pyr_rules
from games.triad import rules as triad_rules
from games.triad import table as triad
from games.triptycha import notation as tt_notation
from games.triptycha import rules as tt_rules
from server.services.tiles import Tiles
from tests.e2e.test_e2e_triptycha import seed
from tests.integration.test_tiles import PROVING
from tests.support.client import ANSI, Client

BOX = re.compile("[\u2500-\u257f\u2580-\u259f]")
RUN = re.compile(r"([-=_|/\\+*#.])\1\1")
GLYPH = re.compile(r"[\[(<]\d+[\])>]|±|[▲▼]")
STYLES = pytest.mark.parametrize("board", ["full", "off"])
QUESTIONS = {"tt": ["tt niche 5", "tt hand", "tt score", "tt last", "turn"],
             "dice": ["dice die c1", "dice row 1", "dice column c", "dice last", "turn"],
             "triad": ["triad pot", "triad bets", "triad hand", "triad last", "turn"],
             "pyr": ["pyr available", "pyr pairs", "pyr row 7", "pyr waste", "last"]}


def art(text: str) -> list[str]:
    """The lines of ``text`` that hold box drawing, an ASCII-art run or a glyph."""
    return [line for line in text.replace("\r\n", "\n").split("\n")
            if BOX.search(line) or RUN.search(line) or GLYPH.search(line)]


async def ask(client: Client, board: str, game: str, turn: int) -> None:
    """With the board OFF, read it by the game's questions (every few turns: lean)."""
    if board == "off" and turn % 4 == 0:
        for line in QUESTIONS[game]:
            answer = await reply(client, line)
            assert "Huh?" not in answer and "Usage" not in answer, (line, answer)


async def drain(client: Client) -> None:
    """Read what has arrived into ``client.seen``."""
    while True:
        try:
            chunk = await asyncio.wait_for(client.reader.read(65536), 0.02)
        except asyncio.TimeoutError:
            return
        if not chunk:
            return
        client.seen += ANSI.sub("", chunk)
        client.buffer += chunk


async def reply(client: Client, line: str, timeout: float = 10.0) -> str:
    client.buffer = ""
    client.send(line)
    return await client.expect(r"\n> ", timeout)


async def reader(clients, name: str, board: str = "full") -> tuple[Client, int]:  # noqa: ANN001
    """A player in screen-reader mode; and where what they received from then on begins."""
    client = await clients(name)
    await reply(client, "set width 80")
    await reply(client, "set height 100")
    await reply(client, f"set board {board}")
    out = await reply(client, "set screenreader on")
    assert "Screen reader mode is now ON" in out
    return client, len(client.seen)


async def until(predicate, client: Client, timeout: float = 30.0) -> None:  # noqa: ANN001
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "the game did not move on"
        await drain(client)
        await asyncio.sleep(0.01)


async def act(client: Client, line: str, game) -> None:  # noqa: ANN001
    """Type a move and wait until the game has taken it."""
    version = game.version
    await drain(client)
    client.send(line)
    await until(lambda: game.version != version or game.outcome is not None, client)


def check(client: Client, mark: int) -> str:
    received = client.seen[mark:]
    assert not art(received), art(received)[:10]
    return received


@STYLES
async def test_triptycha_against_the_computer_read_out(parlor, clients, tmp_path, board):
    await seed(parlor, tmp_path, PROVING)
    alice, mark = await reader(clients, "Alice", board)
    await Tiles(parlor.db).grant_disc((await parlor.accounts.get("Alice")).id, "Proving",
                                      by="test")
    broken = await reply(alice, "break disc")
    assert "You break open" in broken and re.search(r"#\d+: \d+-\d+-\d+, primary", broken)
    assert "sum" in await reply(alice, "itd")
    tile = re.search(r"#(\d+): ", broken).group(1)
    assert f"Tile #{tile}: " in await reply(alice, f"itd show #{tile}")
    alice.send("tt challenge computer easy Take 1")
    await until(lambda: parlor.host.live, alice)
    game = next(iter(parlor.host.live.values()))
    rng = random.Random(3)
    inspected = False
    for _ in range(400):
        if game.outcome is not None:
            break
        state = game.state
        if tt_rules.to_move(state) != (0,):
            await drain(alice)
            await asyncio.sleep(0.02)
            continue
        acts = list(tt_rules.legal_actions(state, 0))
        if state.phase == "play":
            acts = [a for a in acts if isinstance(a, tt_rules.Lay)] or \
                [a for a in acts if isinstance(a, tt_rules.Flip)]
        elif state.phase == "trading":
            acts = [a for a in acts if type(a).__name__ == "Done"] or acts
        if state.phase == "play":
            await ask(alice, board, "tt", state.laid // 2 * 4)  # each of Alice's lays
        await act(alice, f"tt {tt_notation.format_action(rng.choice(acts)).lower()}", game)
        if game.state.laid >= 2 and not inspected:
            await drain(alice)
            text = await alice.cmd("tt inspect", r"An edge scores its two corners .*\n> ")
            assert re.search(r"Niche \d, (up|down): held by ", text)
            inspected = True
    assert game.outcome is not None and inspected
    await asyncio.sleep(0.2)
    await drain(alice)
    received = check(alice, mark)
    assert re.search(r"Niche \d, (up|down): (yours|Computer\(easy\)'s|empty)", received)
    if board == "full":
        assert "Your draw:" in received and "Deck 1: " in received
        assert "Your turn: TT LAY <tile> IN <niche>." in received
        assert re.search(r"Game over: niches \d to \d\.", received)
    else:
        assert "Next to: " in received and "Niches held: " in received
        assert re.search(r"Game #\d+: (Alice|Computer\(easy\)) wins \(", received)
    assert "RESIGN" not in received  # played to the end


@STYLES
async def test_triad_dice_against_the_computer_read_out(parlor, clients, board):
    alice, mark = await reader(clients, "Alice", board)
    alice.send("dice challenge computer easy")
    await until(lambda: parlor.host.live, alice)
    game = next(iter(parlor.host.live.values()))
    rng = random.Random(5)
    for _ in range(600):
        if game.outcome is not None:
            break
        state = game.state
        if state.result is not None or state.turn != game.seat_of(
                (await parlor.accounts.get("Alice")).id):
            await drain(alice)
            await asyncio.sleep(0.02)
            continue
        action = rng.choice(list(dice_rules.legal_actions(state, state.turn)))
        await ask(alice, board, "dice", state.turns - state.turns % 2)  # Alice's, either side
        await act(alice, f"dice {dice_notation.format_action(action).lower()}", game)
    assert game.outcome is not None
    await asyncio.sleep(0.2)
    await drain(alice)
    received = check(alice, mark)
    if board == "full":
        assert "Row 6: " in received and "Row 1: " in received and "Removed: you " in received
        assert "Your move: DICE MOVE" in received or "formed a Triad" in received
    else:
        assert "Row 1: " in received and "Column c: " in received and "Your move." in received


async def play_triad_hand(game, alice: Client, me: int, board: str = "full") -> None:  # noqa: ANN001
    """Alice passes, equals and changes one card until the hand is over; with the board
    OFF she asks the questions at her first move of the hand and every fourth after it.
    They are counted by her own moves: the loop also turns while the computer thinks, as
    often as the load makes it, so counting its turns would skip every question of a hand
    at random."""
    mine = 0
    for _ in range(200):
        table = game.state
        if table.game.phase == "hand_over" or game.outcome is not None:
            return
        movers = triad.to_move(table)
        if not movers or table.position(movers[0]) != me:
            await drain(alice)
            await asyncio.sleep(0.02)
            continue
        g = table.game
        if g.phase == "draw":
            line = "triad discard 1"
        elif g.current_bet - g.seats[me].bet == 0:
            line = "triad pass"
        else:
            line = "triad equal"
        await ask(alice, board, "triad", mine)
        await act(alice, line, game)
        mine += 1
    raise AssertionError("the hand did not end")


@STYLES
async def test_triad_at_a_table_with_a_computer_player_read_out(parlor, clients, board,
                                                                monkeypatch):
    # the same deals every run (a table's seed is drawn from SystemRandom): a table the
    # luck of the deal closes early would leave nothing to read out
    from server.services import play
    deals = random.Random(5)
    monkeypatch.setattr(play.random, "SystemRandom", lambda: deals)
    alice, mark = await reader(clients, "Alice", board)
    await reply(alice, "triad open 10 limit 10")  # small raises: nobody goes broke soon
    await reply(alice, "triad bot easy")
    game = next(iter(parlor.host.live.values()))
    me = game.state.position(game.seat_of((await parlor.accounts.get("Alice")).id))
    for hand in range(1, 7):  # until Alice has bet and drawn in a hand (the computer may fold)
        if game.outcome is not None:  # the table closed (a player could not pay)
            break
        alice.send("triad start" if hand == 1 else "triad deal")
        await until(lambda: game.state.game.hand_no == hand or game.outcome is not None, alice)
        await play_triad_hand(game, alice, me, board)
        await asyncio.sleep(0.1)
        await drain(alice)
        if board == "off" and "Your hand now:" in alice.seen[mark:]:
            break
        if "Your turn to draw" in alice.seen[mark:] and "Your turn to bet" in alice.seen[mark:]:
            break
    if game.outcome is None:
        if board == "full":
            assert "Your cards: 1 " in await reply(alice, "triad")
        await reply(alice, "triad leave")
    await asyncio.sleep(0.2)
    await drain(alice)
    received = check(alice, mark)
    # on a failure, pytest shows this whole (an assertion message would be cut short)
    print(f"Alice received, from SET SCREENREADER ON on:\n{received}")
    if board == "off":
        assert "in the pot" in received and "Pot " in received and "Your hand now:" in received
        return
    assert "Your turn to draw" in received and "Your turn to bet" in received
    assert re.search(r"Seat 2, Computer 1: \d+ cubits", received)
    assert "Last hand: " in received and triad_rules.PHASE_NAMES["draw"] in received


@STYLES
async def test_pyramid_standard_game_read_out(parlor, clients, board):
    alice, mark = await reader(clients, "Alice", board)
    alice.send("pyr new")
    await until(lambda: parlor.host.live, alice)
    game = next(iter(parlor.host.live.values()))
    rng = random.Random(7)
    for turn in range(300):
        if game.outcome is not None:
            break
        await ask(alice, board, "pyr", turn)
        match = game.state.matches[0]
        acts = list(pyr_rules.legal_actions(match, 0))
        pairs = [a for a in acts if a.kind not in ("deal", "end")]
        deals = [a for a in acts if a.kind == "deal"]
        action = rng.choice(pairs) if pairs else (deals[0] if deals else pyr_rules.END)
        await act(alice, f"pyr {pyr_notation.format_action(action)}", game)
    assert game.outcome is not None
    await asyncio.sleep(0.3)
    await drain(alice)
    received = check(alice, mark)
    if board == "off":
        assert "Free: " in received and "Pack P: " in received and "Row 7: " in received
        return
    assert "Available: " in received and "Pack P: " in received and "Row 7: " in received
