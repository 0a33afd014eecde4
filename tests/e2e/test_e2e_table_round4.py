"""At the table, round four (issue 39): DECLINE alone, and ranked games too short to rate.

Played with the test-only game (tests/support/tictactoe.py) over real sockets.
"""

from __future__ import annotations

import re

from tests.support.client import Client


async def _ranked_game(alice: Client, bob: Client) -> None:
    await alice.cmd("ttt challenge bob ranked", "You challenge Bob")
    await bob.expect(r"Alice challenges you to Noughts and Crosses \(ranked\)")
    bob.send("ttt accept alice")
    await alice.expect("begins")
    await bob.expect("begins")


async def test_decline_alone_declines_the_one_offer(parlor, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    carol = await clients("Carol")
    await bob.cmd("decline", r"Nobody has challenged you\. PENDING lists the offers\.")
    await alice.cmd("ttt challenge bob", "You challenge Bob")
    await bob.cmd("decline", "You decline Alice's offer of Noughts and Crosses")
    await alice.expect("Bob declines your offer")
    await alice.cmd("ttt challenge bob", "You challenge Bob")
    await bob.cmd("ttt decline", "You decline Alice's offer")   # under the game's prefix
    await alice.expect("Bob declines your offer")
    # offers from two people: one line that says what to type, and nothing declined
    await alice.cmd("ttt challenge bob", "You challenge Bob")
    await carol.cmd("ttt challenge bob", "You challenge Bob")
    out = await bob.cmd("decline", r"DECLINE <person> declines one\.\r?\n> ")
    line = [row.removeprefix("> ") for row in out.splitlines() if "Offers from" in row]
    assert line == ["Offers from Alice, Carol: DECLINE <person> declines one."], out
    out = await bob.cmd("ttt decline", r"TTT DECLINE <person> declines one\.")
    await bob.cmd("pending", "from Alice(.|\n)*from Carol")
    await bob.cmd("decline carol", "You decline Carol's offer")
    await bob.cmd("decline", "You decline Alice's offer")        # now the one left
    await bob.cmd("help decline", r"Usage: DECLINE \[<person>\]")


async def test_a_ranked_game_resigned_before_two_moves_is_not_rated(parlor, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    await _ranked_game(alice, bob)
    out = await alice.cmd("ttt resign", r"Not rated: the game ended before move 2")
    assert "rating:" not in out, out
    await bob.expect("Not rated")
    out = await bob.cmd("ttt status", r"Unranked: \d+ won(.|\n)*?> ")
    assert "Ranked: 0 won, 0 lost, 0 drawn. Unranked: 1 won, 0 lost" in out, out
    await alice.cmd("rankings ttt", "Nobody has played a ranked game")
    # one move, then a resignation: still not rated
    await _ranked_game(alice, bob)
    await alice.cmd("ttt play 1", "Alice: PLAY 1")
    await bob.cmd("ttt resign", "Not rated")
    # two moves, then a resignation: rated, and told
    await _ranked_game(alice, bob)
    await alice.cmd("ttt play 1", "Alice: PLAY 1")
    await bob.cmd("ttt play 5", "Bob: PLAY 5")
    out = await alice.cmd("ttt resign", r"Bob's Noughts and Crosses rating: 1500 -> \d+")
    assert "Not rated" not in out, out
    out = await bob.cmd("ttt status", r"Unranked: \d+ won(.|\n)*?> ")
    assert re.search(r"Ranked: 1 won, 0 lost, 0 drawn\. Unranked: 1 won, 1 lost", out), out


async def test_help_says_a_short_ranked_game_is_not_rated(parlor, clients):
    ann = await clients("Ann")
    for line in ("help rankings", "help ttt challenge", "help ttt rankings"):
        out = await ann.cmd(line, r"Usage: (.|\n)*?\n> ")
        assert "ends before move 2" in " ".join(out.split()), (line, out)
