"""A Swiss tournament run by the parlor, played by scripted players over real sockets
(scaled down: 5 players, 3 rounds of the test game; bench/pairing.py pairs 1,000)."""

from __future__ import annotations

import asyncio
import re

from server.models import GameRecord
from server.services.pairing import Result, swiss_standings

START = re.compile(r"Game #(\d+): Noughts and Crosses, (\w+) vs (\w+) begins")


async def _player(client, always: bool) -> None:
    """Plays by giving up: the second player resigns; a player ``always`` resigns."""
    while True:
        out = await client.expect(r"(Game #\d+: Noughts and Crosses, \w+ vs \w+ begins"
                                  r"|Tournament 1 \(.*\) is over)", timeout=30)
        if out.endswith("is over"):  # not "The game is over." after a late RESIGN
            return
        m = START.search(out)
        second = m.group(3) == client.name
        if second or always:
            client.send("ttt resign")


async def test_a_swiss_played_over_sockets(parlor, clients):
    names = ["Ann", "Bea", "Cal", "Dan", "Eve"]
    players = [await clients(n) for n in names]
    ann = players[0]
    await ann.cmd("tourney create ttt swiss 3 ranked", r"Tournament 1 is open: Noughts and "
                  r"Crosses Swiss, 3 rounds \(ranked\)")
    await ann.cmd("tourney create ttt swiss 2", "You may run 1 tournament at a time")
    await ann.cmd("tourney start 1", "needs two entrants")
    for p in players:
        await p.cmd("tourney join 1", "You enter tournament 1")
    await ann.cmd("tourney join 1", "already")
    await ann.cmd("tourney", r"Noughts and Crosses Swiss(.|\n)*open +5")
    await players[1].cmd("tourney start 1", "Only whoever made")
    ann.send("tourney start 1")
    tasks = [asyncio.create_task(_player(p, p.name == "Eve")) for p in players]
    await asyncio.wait_for(asyncio.gather(*tasks), 60)
    assert "Tournament 1 begins" in ann.seen
    row = await parlor.host.tournaments.get(1)
    assert row.status == "finished"
    rounds = row.state["pairings"]
    assert len(rounds) == 3
    met = [tuple(sorted((p["first"], p["second"]))) for r in rounds for p in r
           if p["second"] is not None]
    assert len(met) == len(set(met)), "a pairing repeated"
    byes = [p["first"] for r in rounds for p in r if p["second"] is None]
    assert len(byes) == 3 and len(set(byes)) == 3
    # the standings, recomputed from the stored games, are the director's
    results = []
    async with parlor.db.session() as tx:
        for r in rounds:
            for p in r:
                if p["second"] is None:
                    results.append(Result(p["first"], None, 1.0))
                    continue
                game = await tx.get(GameRecord, p["game"])
                assert game.ranked and game.status == "finished"
                assert [s["id"] for s in game.seats] == [p["first"], p["second"]]
                winner = game.result["winner"]
                results.append(Result(p["first"], p["second"],
                                      0.5 if winner is None else 1.0 - winner))
    ids = [e["id"] for e in row.state["entrants"]]
    assert swiss_standings(ids, results) == [
        (e["id"], pts, bh, sb) for e, pts, bh, sb in parlor.host.tournaments.standings(row)]
    out = await ann.cmd("tourney 1", r"Round 3:(.|\n)*?> ")
    assert "Finished; round 3 of 3." in out and "Buchholz" in out
