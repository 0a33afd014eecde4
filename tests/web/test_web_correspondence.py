"""A player's page lists their correspondence games, the one waiting longest for their
move first, with who is to move and the time left (``/players/<name>`` and its JSON)."""

from __future__ import annotations


async def test_the_players_page_lists_their_correspondence_games(parlor, door, http, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    await alice.cmd("dice challenge bob days 3", "by correspondence")
    await bob.cmd("dice accept alice", r"Game #1: Triad Dice, Alice vs Bob begins")
    mover = ("Alice", "Bob")[parlor.host.live[1].state.turn]
    me = (await http.get("/api/players/alice")).json()
    assert me["playing"] == []   # a game at a sitting would be here
    [letter] = me["correspondence"]
    assert letter["id"] == 1 and letter["opponent"] == "Bob" and letter["to_move"] == mover
    assert letter["your_move"] == (mover == "Alice")
    assert letter["clock"] == "3 days a move" and letter["left"].startswith("2 days 23 hours")
    page = (await http.get("/players/Bob")).text
    assert "Correspondence games" in page and 'href="/games/1"' in page
    assert "3 days a move" in page and 'href="/players/Alice"' in page
