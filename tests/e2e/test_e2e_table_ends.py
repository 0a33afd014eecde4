"""At the table, round four (issue 39), items 7 and 10d: how a game ends on a small screen.

7: the winner of a ranked Triptycha game with a take sees the whole final screen on an
80x24 terminal (Debian's telnet in tmux, and telnetlib3's client): the last board, and
under it the result, the tile taken and both ratings, above the prompt.
10d: a closed Triad table names the players of its last hand, not "Seat 2".
"""

from __future__ import annotations

import asyncio
import re

import telnetlib3

from tests.conftest import require_program
from tests.e2e.test_e2e_triad import bets, drain, play_hand
from tests.e2e.test_e2e_triptycha import give_deck, lay_lines, seed
from tests.integration.test_tiles import CHAIN_ALICE, CHAIN_BOB, CHAIN_MOVES
from tests.support.client import Client
from tests.support.tmux import Screen


async def small(port: int, name: str) -> Client:
    """A player whose terminal is 80x24 (NAWS), as Debian's telnet in a fresh xterm."""
    reader, writer = await telnetlib3.open_connection(
        "127.0.0.1", port, cols=80, rows=24, term="xterm", connect_minwait=0.05,
        connect_maxwait=0.5, encoding="utf8", force_binary=True)
    return await Client(reader, writer).create(name)


async def moved_to(parlor, number: int, version: int, timeout: float = 10.0) -> None:
    """Wait (bounded) until game ``number`` has reached ``version`` or ended."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        game = parlor.host.live.get(number)
        if game is None or game.version >= version:
            return
        assert loop.time() < deadline, f"game #{number} stayed at version {game.version}"
        await asyncio.sleep(0.02)


def final_screen(text: str) -> list[str]:
    """The rows of the last reply before the prompt: from the winner's TAKE being told
    ("Alice takes tile 1.") to the end, without the prompt."""
    rows = text.replace("\r\n", "\n").split("\n")
    told = [i for i, row in enumerate(rows) if "Alice takes tile 1." in row]
    assert told, "the start of the final screen is gone:\n" + "\n".join(rows)
    rows = rows[told[-1]:]
    while rows and rows[-1].strip() in ("", ">"):
        rows.pop()
    return rows


def check_final(rows: list[str], number: int, who: str) -> None:
    """The whole burst fits 23 rows (the 24th holds the prompt), no row is wider than 80,
    and the last board comes before what ended the game."""
    assert len(rows) <= 23, f"{who}: {len(rows)} rows\n" + "\n".join(rows)
    assert all(len(row) <= 80 for row in rows), "\n".join(rows)
    text = "\n".join(rows)
    header = text.index(f"Game #{number}: Triptycha, Alice vs Bob")
    result = text.index(f"Game #{number}: Alice wins (more niches).")
    assert header < result, text
    assert re.search(r"Take: tile #\d+ \(a clay tile of the Proving\) goes from Bob to "
                     r"Alice\.", text[result:]), text
    assert re.search(r"Alice's Triptycha rating: 1500 -> 1[6-9]\d\d", text[result:]), text
    assert re.search(r"Bob's Triptycha rating: 1500 -> 1[0-4]\d\d", text[result:]), text
    assert "changes hands" not in text  # the Take line says it, once


async def _chain_game(parlor, tmp_path, alice_says, bob: Client) -> int:
    """The chain game of tests/e2e/test_e2e_triptycha.py (Take 1 Ranked; Alice wins 9-0),
    played up to Alice's TAKE; ``alice_says(line)`` types a line for Alice."""
    await give_deck(parlor, "Alice", CHAIN_ALICE)
    await give_deck(parlor, "Bob", CHAIN_BOB)
    await alice_says("tt challenge bob Take 1 Ranked")
    await bob.expect(r"Alice challenges you to Triptycha \(Take 1 Ranked\)")
    out = await bob.cmd("tt accept alice", r"Game #(\d+): Triptycha, Alice vs Bob begins")
    number = int(re.search(r"Game #(\d+)", out).group(1))
    await moved_to(parlor, number, 0)
    version = parlor.host.live[number].version
    for i in range(1, 6):
        await alice_says(f"tt draw {i}")
        version += 1
        await moved_to(parlor, number, version)
    for i in range(1, 7):
        await bob.cmd(f"tt draw {i}", f"Bob draws tile {i}")
        version += 1
    for seat, line in lay_lines(CHAIN_MOVES):
        await moved_to(parlor, number, version)
        if seat == 0:
            await alice_says(line)
        else:
            bob.send(line)
        version += 1
    await moved_to(parlor, number, version)
    assert parlor.host.live[number].state.phase == "trading"
    await asyncio.sleep(0.3)
    await drain(bob)
    return number


async def test_the_winners_final_screen_fits_80x24(parlor, tmp_path):
    """telnetlib3's client at 80x24 for both players: each one's last burst (TAKE told,
    the last board, the result, the take and the ratings) fits 23 rows."""
    await seed(parlor, tmp_path)
    alice = await small(parlor.port, "Alice")
    bob = await small(parlor.port, "Bob")

    async def alice_says(line: str) -> None:
        await alice.cmd(line, r"\n> ")

    number = await _chain_game(parlor, tmp_path, alice_says, bob)
    await drain(alice)
    out = await alice.cmd("tt take 1", r"Bob's Triptycha rating:(.|\n)*?\n> ")
    check_final(final_screen(out), number, "Alice")
    out = await bob.expect(r"Bob's Triptycha rating:(.|\n)*?\n> ")
    check_final(final_screen(out), number, "Bob")
    # the result after the last board, not above it: the board's last row comes first
    assert out.index("---9----") < out.index(f"Game #{number}: Alice wins")


async def test_the_winners_final_screen_in_debian_telnet(parlor, tmp_path):
    """Debian's telnet in tmux at 80x24, what the player really sees: once the game is over,
    the screen holds the last board and, under it, the result, the tile taken and both
    ratings, down to the prompt."""
    require_program("tmux")
    telnet = require_program("telnet")
    await seed(parlor, tmp_path)
    screen = Screen(f"{telnet} 127.0.0.1 {parlor.port}")
    try:
        await asyncio.to_thread(screen.wait_for, "Name:")
        for line in ["NEW", "Alice", "secret1", "secret1"]:
            screen.type(line)
            await asyncio.sleep(0.3)
        await asyncio.to_thread(screen.wait_for, "Exits:")
        bob = await small(parlor.port, "Bob")

        async def alice_says(line: str) -> None:
            await asyncio.to_thread(screen.type, line)

        number = await _chain_game(parlor, tmp_path, alice_says, bob)
        screen.type("tt take 1")
        await asyncio.to_thread(screen.wait_for, "Bob's Triptycha rating")
        await asyncio.sleep(0.5)  # the prompt after it
        visible = await asyncio.to_thread(screen.lines, False)
        assert len(visible) <= 25, visible  # the pane's 24 rows (and the capture's end)
        while visible and not visible[-1]:
            visible.pop()
        assert visible[-1].strip() == ">", "\n".join(visible)
        rows = final_screen("\n".join(visible))
        check_final(rows, number, "Alice in telnet")
        print("\n".join(visible))  # the screen (pytest -s shows it)
        # and it is all on the screen at once: from what TAKE told to the prompt
        assert any("Alice takes tile 1." in row for row in visible), "\n".join(visible)
        await bob.close()
    finally:
        screen.close()


def _bob_wins(table, pos: int, name: str) -> tuple[str, str]:
    """Bob raises, Alice folds to it (or passes): Bob wins the hand uncontested."""
    if table.game.phase == "draw":
        return "triad stand", "DRAW"
    to_equal, _, lo, hi = bets(table, pos)
    if name == "Bob":
        return ("triad raise 10", "RAISE 10") if not to_equal and lo <= 10 <= hi else \
            ("triad equal", "EQUAL")
    return ("triad fold", "FOLD") if to_equal else ("triad pass", "PASS")


async def test_a_closed_triad_table_names_the_winner_of_its_last_hand(parlor, clients):
    """10d: Bob wins a hand and leaves; the table closes (Alice alone can pay the opening
    bet). The last board says "Last hand: Bob won 30." to Alice, to Bob and to a watcher
    reading by screen reader (the web's spoken lines are the same), not "Seat 2 won 30."."""
    alice = await clients("Alice")
    bob = await clients("Bob")
    carol = await clients("Carol")
    await carol.cmd("set screenreader on", r"\n> ")
    out = await alice.cmd("triad open 10 seats 2 buyin 100", r"table #(\d+)")
    number = int(re.search(r"table #(\d+)", out).group(1))
    await bob.cmd(f"triad join {number}", "Bob sits down in seat 2")
    await carol.cmd(f"triad watch {number}", "You are now watching")
    await alice.cmd("triad start", "Hand 1: Alice deals")
    await play_hand(parlor, number, {"Alice": alice, "Bob": bob}, _bob_wins)
    await carol.expect(r"The pot of \d+ goes to Bob: everyone else folded\.")
    won = parlor.host.live[number].state.game.winnings
    assert [(pos, n) for pos, n in won] == [(1, 30)], won
    for client in (alice, bob, carol):
        await drain(client)
    await bob.cmd("triad leave", "Bob leaves the table with")
    for client in (alice, bob, carol):
        out = await client.expect(r"Triad table #\d+ closes(.|\n)*?\n> ")
        assert "Last hand: Bob won 30." in out, (client.name, out)
        assert "Seat 2 won" not in out and "Seat 1 won" not in out, (client.name, out)
    assert number not in parlor.host.live
