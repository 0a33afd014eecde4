"""Seeks, PLAY <n>, matching, the GMCP seek stream and SET FORMULA, over real sockets with
several players (the test game ``ttt``, and Triad Dice)."""

from __future__ import annotations

import asyncio

from tests.support.client import Client


async def _gmcp(client: Client, package: str, timeout: float = 3.0) -> list:
    for _ in range(int(timeout / 0.05)):
        found = [data for pkg, data in client.gmcp if pkg == package]
        if found:
            return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"no GMCP {package}: {client.gmcp[-5:]}")


async def test_seek_list_take_and_stream(parlor, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    mud = await Client.connect_mud(parlor.port)
    await mud.create("Mudder")
    assert await _gmcp(mud, "Seek.List") == [[]]
    await alice.cmd("ttt seek ranked", r"Your seek (\d+) is posted: Noughts and Crosses \(ranked\)")
    added = await _gmcp(mud, "Seek.Add")
    assert added[0]["name"] == "Alice" and added[0]["ranked"] is True
    out = await bob.cmd("seeks", r"PLAY <n> takes a seek")
    assert "Alice" in out and "1500" in out
    await alice.cmd("seeks", "Alice")  # one's own seek is listed too
    await bob.cmd("play 9", "There is no seek 9")
    await alice.cmd(f"play {added[0]['id']}", "your own seek")
    await bob.cmd(f"play {added[0]['id']}", r"Game #\d+: Noughts and Crosses, Alice vs Bob")
    await alice.expect("begins")
    removed = await _gmcp(mud, "Seek.Remove")
    assert removed[0] == {"id": added[0]["id"]}
    await bob.cmd("seeks", "Nobody is seeking")
    assert not parlor.host.seeks.by_id


async def test_two_compatible_seeks_match_and_others_do_not(parlor, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    carol = await clients("Carol")
    await alice.cmd("ttt seek ranked", "Your seek 1 is posted")
    await bob.cmd("ttt seek", "Your seek 2 is posted")            # unranked: no match
    await carol.cmd("ttt seek 1600-2000", "Your seek 3 is posted")  # nobody is 1600
    await carol.cmd("dice seek ranked", "Your seek 4 is posted: Triad Dice")
    out = (await bob.cmd("seeks", "PLAY <n>")).split("Player", 1)[1]
    assert out.count("Noughts and Crosses") == 3 and "Triad Dice" in out
    await bob.cmd("ttt seek ranked", "Your seek of Noughts and Crosses \\(ranked\\) is met by "
                  "Alice")
    await alice.expect("is met by Bob")
    await alice.expect(r"Game #\d+: Noughts and Crosses, Alice vs Bob")
    # both players' seeks went when their game began (Bob's unranked one was replaced)
    assert sorted(parlor.host.seeks.by_id) == [3, 4]
    await carol.cmd("unseek ttt", "You take back your seek 3")
    await carol.cmd("seeks", "Triad Dice")
    await carol.cmd("quit", "Goodbye")
    for _ in range(40):
        if not parlor.host.seeks.by_id:
            break
        await asyncio.sleep(0.05)
    assert not parlor.host.seeks.by_id  # a seek goes when its owner leaves


async def test_formula_hides_seeks_declines_challenges_and_is_rechecked(parlor, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    carol = await clients("Carol")
    await alice.cmd("set formula rating >", "not a formula")
    await alice.cmd("set formula __import__('os')", "nothing else")
    await alice.cmd("set formula elo > 3", "A formula knows")
    await alice.cmd("set formula rating > 1600 || !ranked",
                    "Your formula is now: rating > 1600 \\|\\| !ranked")
    await alice.cmd("set formula", "Your formula: rating > 1600")
    # a ranked challenge from a 1500 player is declined, both told why
    await bob.cmd("ttt challenge alice ranked",
                  r"Alice's formula declines your challenge \(rating 1500, rd 350, ranked\)")
    await alice.expect("Your formula declined Bob's challenge to Noughts and Crosses")
    await bob.cmd("ttt challenge alice", "You challenge Alice")   # unranked passes
    await alice.expect("Bob challenges you")
    # seeks: Alice's ranked seek is hidden from Bob (her formula refuses him)
    await alice.cmd("ttt seek ranked", "Your seek 1 is posted")
    out = await bob.cmd("seeks", r"hidden by formulas|PLAY <n>")
    assert "1 seek hidden by formulas" in out
    await bob.cmd("play 1", r"Alice's formula declines you \(rating 1500")
    await alice.expect("Your formula declined Bob's taking your seek 1")
    # Carol's seek would match but Alice's formula refuses: no game
    await carol.cmd("ttt seek ranked", "Your seek 2 is posted")
    assert len(parlor.host.live) == 0
    # tightening the formula declines the pending unranked offer (re-checked)
    await alice.cmd("set formula rating > 1600", "Your formula declines Bob's offer")
    await bob.expect("Alice's formula declines your offer")
    # loosening it lets Alice's and Carol's seeks meet at once
    await alice.cmd("set formula off", "You have no formula now")
    await carol.expect(r"Game #\d+: Noughts and Crosses, Alice vs Carol")
    assert not parlor.host.seeks.by_id
