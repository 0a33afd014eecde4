"""Tournaments played to the end over real sockets by scripted players: a 64-player
Swiss of 6 rounds of Triad Dice, and a 32-player Triptycha arena (its 10 minutes made
10 seconds here by ``[tournaments] minute_seconds``; ``bench/tournament.py`` plays the
full length). Each game is decided at once: a player resigns it when a coin seeded by
the game's number says they lose (the loser of the Swiss's first game withdraws after
it, so the later rounds have byes). Checked: no pairing repeated (arena: no immediate
rematch), byes and first moves balanced, and the director's standings equal the ones
recomputed from the stored games."""

from __future__ import annotations

import asyncio
import time

import attrs

from commands.app import assemble
from server.config import TournamentsSection
from server.services.pairing import Result, arena_points, swiss_standings
from tests.conftest import make_config
from tests.e2e.test_e2e_triptycha import give_deck, seed
from tests.integration.test_tiles import CHAIN_BOB
from tests.support.client import Client
from tests.support.tournament_players import (connect, first_move_spread, names, player,
                                              stored)


async def _parlor(sqlite_url: str, **tournaments):  # noqa: ANN202
    config = attrs.evolve(make_config(sqlite_url, max_connections_per_address=100),
                          tournaments=TournamentsSection(tick=0.2, **tournaments))
    parlor = assemble(config)
    await parlor.start()
    return parlor


async def test_a_64_player_swiss_of_triad_dice(sqlite_url):
    began = time.perf_counter()
    parlor = await _parlor(sqlite_url)
    players: list[Client] = []
    try:
        players = await connect(parlor, names("Sw", 64))
        made = time.perf_counter()
        await players[0].cmd("tourney create dice swiss 6", "Tournament 1 is open")
        for p in players:
            await p.cmd("tourney join 1", "You enter tournament 1")
        players[0].send("tourney start 1")
        await asyncio.wait_for(asyncio.gather(  # game #1's loser withdraws: byes follow
            *(player(p, "Triad Dice", "dice", withdraw_losing=1) for p in players)), 120)
        played = time.perf_counter()
        row = await parlor.host.tournaments.get(1)
        assert row.status == "finished"
        rounds = row.state["pairings"]
        assert len(rounds) == 6
        gone = [e["id"] for e in row.state["entrants"] if e.get("withdrawn")]
        assert len(gone) == 1
        met = [frozenset((p["first"], p["second"])) for r in rounds for p in r
               if p["second"] is not None]
        assert len(met) == 32 + 5 * 31 and len(met) == len(set(met)), "a pairing repeated"
        byes = [p["first"] for r in rounds for p in r if p["second"] is None]
        assert len(byes) == 5 and len(set(byes)) == 5 and gone[0] not in byes
        assert not any(gone[0] in pair for pair in met[32:]), "the withdrawn was paired"
        assert first_move_spread(rounds) <= 1
        results = [Result(i, None, 1.0) for i in byes]
        for p, game in await stored(parlor, rounds):
            winner = game.result["winner"]
            results.append(Result(p["first"], p["second"], 0.5 if winner is None else 1.0 - winner))
        ids = [e["id"] for e in row.state["entrants"]]
        assert swiss_standings(ids, results) == [
            (e["id"], pts, bh, sb) for e, pts, bh, sb in parlor.host.tournaments.standings(row)]
        print(f"\n64-player Swiss of Triad Dice, 6 rounds over sockets: connecting "
              f"{made - began:.1f} s, playing {played - made:.1f} s")
    finally:
        for p in players:
            await p.close()
        await parlor.stop()


async def test_a_32_player_triptycha_arena(sqlite_url, tmp_path):
    began = time.perf_counter()
    parlor = await _parlor(sqlite_url, minute_seconds=1.0)  # 10 "minutes": 10 seconds
    players: list[Client] = []
    try:
        await seed(parlor, tmp_path)
        players = await connect(parlor, names("Ar", 32))
        await players[0].cmd("tourney join 0", "There is no tournament 0")
        await players[0].cmd("tourney create tt arena 10", "Tournament 1 is open")
        await players[1].cmd("tourney join 1", r"deck has 0 tiles")  # no deck, no entry
        await players[0].cmd("tourney withdraw 1", "You are not in tournament 1")
        for p in players:
            await give_deck(parlor, p.name, CHAIN_BOB)  # enough for either seat
        made = time.perf_counter()
        await players[2].cmd("tourney create tt arena 10", "Tournament 2 is open: Triptycha "
                             "Arena, 10 minutes")
        for p in players[:30]:
            await p.cmd("tourney join 2", "You enter tournament 2")
        players[2].send("tourney start 2")
        tasks = [asyncio.create_task(player(p, "Triptycha", "tt", 2)) for p in players[:30]]
        await asyncio.sleep(1)
        for p in players[30:]:  # late entrants are welcome in an arena
            await p.cmd("tourney join 2", "You enter tournament 2")
            tasks.append(asyncio.create_task(player(p, "Triptycha", "tt", 2)))
        await asyncio.wait_for(asyncio.gather(*tasks), 60)
        played = time.perf_counter()
        row = await parlor.host.tournaments.get(2)
        assert row.status == "finished"
        waves = row.state["pairings"]
        assert all(p["second"] is not None for w in waves for p in w), "an arena has no byes"
        last: dict[int, int] = {}
        order: dict[int, list[float]] = {}
        for p, game in await stored(parlor, waves):
            a, b = p["first"], p["second"]
            assert last.get(a) != b and last.get(b) != a, "an immediate rematch"
            last[a], last[b] = b, a
            winner = game.result["winner"]
            score = 0.5 if winner is None else 1.0 - winner
            order.setdefault(a, []).append(score)
            order.setdefault(b, []).append(1 - score)
        assert sum(len(v) for v in order.values()) >= 32 * 3, "few games were played"
        assert first_move_spread(waves) <= 2
        recomputed = {i: arena_points(s)[0] for i, s in order.items()}
        table = parlor.host.tournaments.standings(row)
        assert {t["entrant"]["id"]: t["points"] for t in table if t["games"]} == recomputed
        points = [t["points"] for t in table]
        assert points == sorted(points, reverse=True)
        print(f"\n32-player Triptycha arena of 10 s over sockets: connecting "
              f"{made - began:.1f} s, playing {played - made:.1f} s, "
              f"{sum(len(v) for v in order.values()) // 2} games")
    finally:
        for p in players:
            await p.close()
        await parlor.stop()
