"""Issue 27, round three: what a new player still tripped on, each over a real socket."""

from __future__ import annotations

import re

from tests.e2e.test_e2e_screen_budgets import settle
from tests.e2e.test_e2e_triad import play_hand, steady_policy


async def test_quit_at_a_table_or_alone_promises_only_what_happens(parlor, clients):
    alice = await clients("Alice")
    await alice.cmd("pyr new", "begins")
    out = await alice.cmd("quit", "QUIT again")
    assert "a person you play" not in out and "CLAIM" not in out
    bob = await clients("Bob")  # (a second QUIT within a minute would leave)
    await bob.cmd("triad open 10", "You open Triad table")
    await bob.cmd("triad bot easy", "sits down")
    out = await bob.cmd("quit", "QUIT again")
    assert "CLAIM" not in out and "waits for you" not in out


async def test_talk_says_names_as_they_are_spelled(parlor, clients):
    bob = await clients("Bob")
    dave = await clients("Dave")
    await dave.close()
    await settle(bob)
    out = await bob.cmd("tell dave hi", r"not connected")
    assert "Dave is not connected" in out
    out = await bob.cmd("emote 's hat is on fire", "fire")
    assert "Bob's hat" in out


async def test_an_arrival_says_where_from(parlor, clients):
    alice = await clients("Alice")
    carol = await clients("Carol")
    await alice.cmd("north", "Exits:")
    await settle(alice)
    await carol.cmd("north", "Exits:")
    await alice.expect(r"Carol arrives from the south\.")


async def test_accept_with_one_offer_needs_no_name(parlor, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    await alice.cmd("dice challenge bob", "You challenge Bob")
    await bob.cmd("accept", r"Game #\d+: Triad Dice")


async def test_observe_a_game_that_never_was(parlor, clients):
    alice = await clients("Alice")
    out = await alice.cmd("observe 99", r"> $")
    assert "REPLAY 99" not in out and "no game #99" in out.lower()


async def test_triad_status_and_rankings_say_what_triad_counts(parlor, clients):
    alice = await clients("Alice")
    out = await alice.cmd("triad open 10 seats 3", r"You open Triad table #(\d+)")
    number = int(re.search(r"table #(\d+)", out).group(1))
    await alice.cmd("triad bot easy", "sits down")
    await alice.cmd("triad start", "Hand 1: ")
    await play_hand(parlor, number, {"Alice": alice}, steady_policy)
    await settle(alice)
    out = await alice.cmd("triad status", r"> $")
    assert "No games played yet" not in out and "hand" in out.lower()
    out = await alice.cmd("rankings triad", r"> $")
    assert "Nobody has played a ranked game" not in out and "cubits" in out


async def test_help_tt_rules_explains_battles_and_each_variant(parlor, clients):
    alice = await clients("Alice")
    await alice.cmd("set height 200", ">")
    out = await alice.cmd("help tt rules", r"TT commands")
    flat = " ".join(out.split())
    for words in ("edge score", "strictly greater", "Inversion", "Undercut", "Confusion",
                  "Plunder", "Take", "Truth", "Random"):
        assert words in flat, words
    assert re.search(r"Undercut[^.]*lower", flat)


async def test_buy_by_number_buys_the_disc_listed_under_it(parlor, clients, tmp_path):
    from tests.e2e.test_e2e_triptycha import seed
    from tests.integration.test_tiles import PROVING
    await seed(parlor, tmp_path, PROVING)
    alice = await clients("Alice")
    await alice.cmd("north", "The Tile Shop")
    out = await alice.cmd("list", "You have 1000 cubits")
    first = re.search(r"1\s+a[n]? ([A-Z][\w ]+?) disc", out).group(1)
    others = [c for c in ("Second Sight", "Proving") if c != first]
    await parlor.host.kind("tt").tiles.set_price(others[0], 1)  # a new price: it sorts first
    out = await alice.cmd("buy 1", "cubits left")
    assert f"a{'n' if first[0] in 'AEIOU' else ''} {first} disc" in out, out


async def test_a_client_that_speaks_no_telnet_sees_no_stray_option_byte(parlor):
    """nc answers no telnet option: the parlor offers it no MUD protocol, whose option
    byte (MSSP is 70, "F") nc would print before the logo."""
    import asyncio
    reader, writer = await asyncio.open_connection("127.0.0.1", parlor.port)
    data = b""
    try:
        while b"Name:" not in data:
            data += await asyncio.wait_for(reader.read(4096), 5)
    finally:
        writer.close()
    assert b"\xff\xfbF" not in data and b"\xff\xfb\xc9" not in data


async def test_a_banned_player_is_told_why(parlor, clients):
    admin = await clients("Root")
    await parlor.accounts.set_admin("Root", True)
    await admin.cmd("quit", "Goodbye")
    admin = await clients("Root", new=False)
    bob = await clients("Bob")
    await admin.cmd("@ban Bob cheating at dice", "Bob is banned")
    assert "cheating at dice" in await bob.closed()
    again = await clients()
    await again.expect("Name: ")
    again.send("Bob")
    await again.expect("Password: ")
    again.send("secret")
    assert "cheating at dice" in await again.closed()


async def test_a_gift_received_while_offline_is_told_at_login(parlor, clients, tmp_path):
    from tests.e2e.test_e2e_triptycha import seed
    from tests.integration.test_tiles import PROVING
    await seed(parlor, tmp_path, PROVING)
    alice = await clients("Alice")
    bob = await clients("Bob")
    await bob.cmd("quit", "Goodbye")
    out = await alice.cmd("outtd iron", "it is in your inventory")
    tile = re.search(r"#(\d+) an iron tile", out).group(1)
    await alice.cmd(f"give #{tile} to bob", "You give")
    again = await clients("Bob", new=False)
    await again.expect(r"While you were away \(1\):\s+\S+ \S+ Alice gives you "
                       f"#{tile} an iron tile")
