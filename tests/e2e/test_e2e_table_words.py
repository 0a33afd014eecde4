"""Issue 39, round four, item 10: the words at the table that need a parlor (a stored
game and its replay, a player's record, the world's exits)."""

from __future__ import annotations

import asyncio

import sqlalchemy as sa

from server.models import GameMove
from tests.e2e.test_e2e_games import _start_ranked_game


async def test_a_claim_is_stored_and_replayed_as_the_claimants(parlor, clients):
    """10b: CLAIM is the claimant's move ("CLAIM 2" by Alice's seat), told and replayed
    as Alice claiming, never as Bob typing RESIGN."""
    alice = await clients("Alice")
    bob = await clients("Bob")
    number = await _start_ranked_game(alice, bob)
    await alice.cmd("ttt play 5", "PLAY 5")
    await bob.close()
    await alice.expect("If they are not back within 1 second you may TTT CLAIM")
    await asyncio.sleep(1.1)  # the reconnect grace is 1 s in tests
    out = await alice.cmd("claim", r"Alice wins \(resignation\)")
    assert "Alice claims the game: Bob did not come back in time." in out
    assert "Bob: RESIGN" not in out
    async with parlor.db.session() as tx:
        last = (await tx.scalars(sa.select(GameMove).where(GameMove.game_id == number)
                                 .order_by(GameMove.seq.desc()))).first()
    assert (last.seat, last.notation) == (0, "CLAIM 2")
    out = await alice.cmd(f"replay {number}", "shows the board(.|\n)*?> ")
    assert "2. Alice claims the game: Bob did not come back in time." in out
    assert "RESIGN" not in out and "Alice wins (resignation)" in out
    out = await alice.cmd(f"replay {number} 2", "After move 2 of 2(.|\n)*?> ")
    assert "(Alice claims the game: Bob did not come back in time.)" in out


async def test_examine_names_the_game_once(parlor, clients):
    """10e: "Examining game #1: Noughts and Crosses, Alice vs Bob", not the title twice."""
    alice = await clients("Alice")
    bob = await clients("Bob")
    number = await _start_ranked_game(alice, bob)
    await alice.cmd("ttt play 5", "PLAY 5")
    out = await bob.cmd(f"examine {number} 1", "UNEXAMINE(.|\n)*?> ")
    assert f"Examining game #{number}: Noughts and Crosses, Alice vs Bob\r\n" in out
    assert out[out.index("Examining"):].count(f"#{number}") == 1


async def test_a_direction_with_no_exit_is_answered_as_go_answers_it(parlor, clients):
    """10g: in the Plaza (exits north, east, south, west) a direction word with no exit
    says so, as GO does; a word that is no direction is still "Huh?"."""
    alice = await clients("Alice")
    for typed, said in [("up", "You can't go up from here."),
                        ("U", "You can't go up from here."),
                        ("go u", "You can't go up from here."),
                        ("ne", "You can't go northeast from here."),
                        ("southwest", "You can't go southwest from here."),
                        ("xyzzy", "Huh? (Type HELP for a list of commands.)")]:
        out = await alice.cmd(typed, r"\n> |^> |\r\n> ")
        assert said in out, (typed, out)
