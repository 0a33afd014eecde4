"""<PREFIX> REMATCH over real sockets (SQLite): the last finished game played again with
the same options and the sides swapped, offered to a person like a CHALLENGE (with its
checks) or started at once against the computer; with the test game (TTT), Triad Dice
and Triptycha. Tables (Triad) and the solitaire (Pyramid) have no REMATCH."""

from __future__ import annotations

import asyncio

from tests.e2e.test_e2e_triptycha import give_deck, seed
from tests.integration.test_tiles import CHAIN_ALICE, CHAIN_BOB
from tests.support.client import Client


async def _offer_and_accept(challenger: Client, target: Client, line: str, prefix: str,
                            title: str) -> None:
    await challenger.cmd(line, f"You challenge {target.name}")
    await target.expect(f"{challenger.name} challenges you to {title}")
    await target.cmd(f"{prefix} accept {challenger.name}", "begins")


async def _ttt_win_for_seat0(parlor, first: Client, second: Client) -> int:
    """Play the live TTT game between ``first`` (seat 0) and ``second`` to a win for seat 0."""
    game = _live(parlor, "ttt")
    for client, cell in ((first, 1), (second, 4), (first, 2), (second, 5)):
        await client.cmd(f"ttt play {cell}", f"PLAY {cell}")
    await first.cmd("ttt play 3", "wins \\(three in a row\\)")
    await second.expect("wins")
    return game.id


def _live(parlor, kind: str):
    return next(g for g in parlor.host.live.values() if g.kind.key == kind)


async def test_ttt_rematch_swaps_the_sides_and_keeps_the_options(parlor, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    await alice.cmd("ttt rematch", "You have no finished game of Noughts and Crosses to play "
                    "again")
    await _offer_and_accept(alice, bob, "ttt challenge bob ranked", "ttt",
                            "Noughts and Crosses \\(ranked\\)")
    first = _live(parlor, "ttt")
    assert [s.name for s in first.seats] == ["Alice", "Bob"]
    number = await _ttt_win_for_seat0(parlor, alice, bob)
    assert number == first.id

    # Alice had seat 0 (X, first to move): in the rematch Bob has it
    out = await alice.cmd("ttt rematch", f"a rematch of game #{number}\\. \\(TTT WITHDRAW")
    assert "You challenge Bob to Noughts and Crosses (ranked)" in out
    await bob.expect(f"Alice challenges you to Noughts and Crosses \\(ranked\\), a rematch of "
                     f"game #{number}\\. Type TTT ACCEPT Alice")
    await bob.cmd("pending", "from Alice")
    await bob.cmd("ttt accept alice", "Noughts and Crosses, Bob vs Alice")
    await alice.expect("Bob vs Alice begins")
    second = _live(parlor, "ttt")
    assert [s.name for s in second.seats] == ["Bob", "Alice"]
    assert second.options == first.options and second.ranked
    await alice.cmd("ttt play 1", "It is not your turn")       # Bob moves first now
    second_number = await _ttt_win_for_seat0(parlor, bob, alice)

    # Bob had seat 0 this time: Bob's REMATCH gives it back to Alice; naming her works too
    await bob.cmd("ttt rematch alice", f"a rematch of game #{second_number}")
    await alice.expect("Bob challenges you to Noughts and Crosses \\(ranked\\), a rematch")
    await alice.cmd("ttt accept bob", "Noughts and Crosses, Alice vs Bob")
    third = _live(parlor, "ttt")
    assert [s.name for s in third.seats] == ["Alice", "Bob"]
    await alice.cmd("ttt resign", "Bob wins \\(resignation\\)")


async def test_rematch_refusals_reuse_the_challenge_checks(parlor, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    carol = await clients("Carol")
    await _offer_and_accept(alice, bob, "ttt challenge bob", "ttt", "Noughts and Crosses")
    # not finished yet: nothing to play again, and Alice is busy anyway
    await alice.cmd("ttt rematch", "You have no finished game of Noughts and Crosses to play")
    await bob.cmd("ttt resign", "Alice wins \\(resignation\\)")
    await alice.expect("Alice wins")

    await alice.cmd("ttt rematch carol", "You have no finished game of Noughts and Crosses "
                    "with carol to play again\\.")
    await carol.cmd("ttt rematch", "You have no finished game of Noughts and Crosses")
    await alice.cmd("ttt rematch bob extra", "Usage: TTT REMATCH")
    await alice.cmd("dice rematch bob", "You have no finished game of Triad Dice with bob")

    # Bob busy with Carol
    await _offer_and_accept(carol, bob, "ttt challenge bob", "ttt", "Noughts and Crosses")
    await alice.cmd("ttt rematch", "Bob is already playing Noughts and Crosses\\.")
    await carol.cmd("ttt resign", "Bob wins")
    # Alice busy herself
    await _offer_and_accept(alice, carol, "ttt challenge carol", "ttt", "Noughts and Crosses")
    await alice.cmd("ttt rematch bob", "You are already playing Noughts and Crosses\\.")
    await carol.cmd("ttt resign", "Alice wins")
    await alice.expect("Alice wins")
    # the last game with anyone is now the one with Carol; with Bob, the first one
    await alice.cmd("ttt rematch", "You challenge Carol .*a rematch")
    await alice.cmd("ttt withdraw", "You withdraw your offer")

    # Bob ignoring Alice
    await bob.cmd("ignore alice", "You now ignore Alice")
    await alice.cmd("ttt rematch bob", "Bob is not accepting challenges from you\\.")
    await bob.cmd("unignore alice", "You no longer ignore Alice")
    # Bob gone
    await bob.cmd("quit", "Goodbye")
    await alice.expect("Bob has left")
    await alice.cmd("ttt rematch bob", "Bob is not connected; challenges are offered to "
                    "players who are online\\.")
    assert not parlor.host.offers.by_id
    # the search pages back through the finished games of the kind, newest first
    alice_id = (await parlor.accounts.get("Alice")).id
    ids = {}
    for batch in (1, 2, 200):
        found = [await parlor.host.records.last_finished(alice_id, "ttt", who, batch=batch)
                 for who in (None, "BOB", "carol", "computer")]
        assert found[3] is None and found[0].id == found[2].id > found[1].id
        assert {s["name"] for s in found[1].seats} == {"Alice", "Bob"}
        ids[batch] = [r.id for r in found[:3]]
    assert ids[1] == ids[2] == ids[200]


async def test_rematch_against_the_computer_starts_at_once(parlor, clients):
    alice = await clients("Alice")
    await alice.cmd("ttt challenge computer easy", "Alice vs Computer\\(easy\\) begins")
    await alice.cmd("ttt resign", "Computer\\(easy\\) wins \\(resignation\\)")
    await alice.cmd("ttt rematch computer", "Computer\\(easy\\) vs Alice begins")
    game = _live(parlor, "ttt")
    assert game.seats[0].computer == "easy" and game.seats[1].name == "Alice"
    for _ in range(100):                                    # the computer moves first
        if game.version or game.id not in parlor.host.live:
            break
        await asyncio.sleep(0.05)
    assert game.version >= 1
    await alice.cmd("ttt rematch", "You are already playing Noughts and Crosses\\.")
    await alice.cmd("ttt resign", "Computer\\(easy\\) wins")
    await alice.cmd("ttt rematch", "Alice vs Computer\\(easy\\) begins")   # swapped back
    assert _live(parlor, "ttt").seats[0].name == "Alice"


async def test_dice_rematch_swaps_sides_and_alternates_the_starter(parlor, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    await _offer_and_accept(alice, bob, "dice challenge bob ranked", "dice",
                            "Triad Dice \\(ranked\\)")
    first = _live(parlor, "dice")
    first_starter = first.seats[first.state.starter].name
    await bob.cmd("dice resign", f"Game #{first.id}: Alice wins \\(resignation\\)")
    await alice.expect("Alice wins")

    # Bob had seat 1: his REMATCH is his CHALLENGE (Bob seat 0), the options kept
    await bob.cmd("dice rematch", f"You challenge Alice to Triad Dice \\(ranked\\), a rematch "
                  f"of game #{first.id}")
    await alice.expect(f"Bob challenges you to Triad Dice \\(ranked\\), a rematch of game "
                       f"#{first.id}\\. Type DICE ACCEPT Bob")
    await alice.cmd("dice accept bob", "Triad Dice, Bob vs Alice")
    second = _live(parlor, "dice")
    assert [s.name for s in second.seats] == ["Bob", "Alice"] and second.ranked
    assert second.seats[second.state.starter].name != first_starter   # alternates
    await alice.cmd("dice resign", "Bob wins \\(resignation\\)")
    await bob.expect("Bob wins")

    # and again, from the other side
    await bob.cmd("dice rematch alice", f"a rematch of game #{second.id}")
    await alice.cmd("dice accept bob", "Triad Dice, Alice vs Bob")
    third = _live(parlor, "dice")
    assert third.seats[third.state.starter].name == first_starter
    await alice.cmd("dice resign", "Bob wins")


async def test_tables_and_solitaire_have_no_rematch(parlor, clients):
    for prefix in ("triad", "pyr"):
        assert parlor.registry.find(prefix).sub("rematch") is None
    for prefix in ("ttt", "dice", "tt"):
        assert parlor.registry.find(prefix).sub("rematch") is not None
    alice = await clients("Alice")
    await alice.cmd("help ttt rematch", "Usage: TTT REMATCH \\[<person>\\|COMPUTER\\]")
    await alice.cmd("triad rematch", "TRIAD REMATCH: there is no such TRIAD command")


async def test_triptycha_swapped_rematch_checks_the_decks_for_the_new_seats(parlor, clients,
                                                                           tmp_path):
    """Triptycha's challenger is Player 1 (5 tiles), the other Player 2 (6 tiles): in a
    rematch whose sides are swapped the decks are checked for the new seats, on ACCEPT."""
    await seed(parlor, tmp_path)
    alice = await clients("Alice")
    bob = await clients("Bob")
    await give_deck(parlor, "Alice", CHAIN_ALICE)          # 5 tiles: enough for Player 1 only
    await give_deck(parlor, "Bob", CHAIN_BOB)              # 6 tiles
    await _offer_and_accept(alice, bob, "tt challenge bob random", "tt",
                            "Triptycha \\(Random\\)")
    first = _live(parlor, "tt")
    await alice.cmd("tt resign", f"Game #{first.id}: Bob wins \\(resignation\\)")
    await bob.expect("Bob wins")
    await alice.cmd("tt rematch", f"You challenge Bob to Triptycha \\(Random\\), a rematch of "
                    f"game #{first.id}")
    await bob.expect("Alice challenges you to Triptycha \\(Random\\), a rematch")
    await bob.cmd("tt accept alice", r"Alice's deck has 5 tiles; as Player 2 Alice needs 6\.")
    assert not any(g.kind.key == "tt" for g in parlor.host.live.values())
    await give_deck(parlor, "Alice", ["a clay"])
    await alice.cmd("tt rematch bob", "a rematch")
    await bob.cmd("tt accept alice", "Triptycha, Bob vs Alice begins \\(Random\\)")
    second = _live(parlor, "tt")
    assert [s.name for s in second.seats] == ["Bob", "Alice"]
    assert second.options == first.options
    assert [len(h) for h in second.state.hands] == [5, 6]
    await bob.cmd("tt resign", "Alice wins \\(resignation\\)")
