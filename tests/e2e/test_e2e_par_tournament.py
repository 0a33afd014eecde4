"""A Pyramid Par tournament of 20 entrants, played by scripted players over real sockets:
every entrant gets the same deals, nobody sees another's deal before the end (every
door is tried: OBSERVE, REPLAY, EXAMINE, the web pages, their JSON and the live stream),
and the totals recompute from the stored games."""

from __future__ import annotations

import asyncio
import re

import httpx
import pytest

from commands.app import assemble
from games.pyramid import match, notation, rules
from server.models import GameRecord
from server.web import WebDoor
from tests.conftest import make_config

DEALS = 2
YOURS = re.compile(r"your deals are game #(\d+)")
SEALED = "sealed until Par tournament 1 is over"


@pytest.fixture
async def parlor(sqlite_url):
    """The parlor, taking 20 players from one address (``clients`` uses this one)."""
    p = assemble(make_config(sqlite_url, max_connections_per_address=30))
    await p.start()
    yield p
    await p.stop()


async def _play(parlor, client, moves: int, go: asyncio.Event | None = None) -> int:
    """Wait for the deals, then in each deal make ``moves`` removals (the first one the
    board offers, as a player would pick), then PYR END; return the game's number."""
    out = await client.expect(r"your deals are game #\d+", timeout=30)
    game_id = int(YOURS.search(out).group(1))
    if go is not None:
        await go.wait()
    for deal in range(1, DEALS + 1):
        for _ in range(moves):
            game = parlor.host.live[game_id]
            table = game.state
            removal = next((a for a in rules.legal_actions(table.matches[0], 0)
                            if a.kind == "remove"), None)
            if removal is None:
                break
            version = game.version
            client.send(f"pyr {notation.format_action(removal)}")
            for _ in range(500):
                if game.version > version:
                    break
                await asyncio.sleep(0.01)
        await client.cmd("pyr end", f"Game {deal} of {DEALS} over", timeout=15)
    return game_id


async def _doors_refused(client, http, game_id: int) -> None:
    """Every door to another entrant's game, tried by ``client`` and the web: refused."""
    refused = rf"(may not be watched: its deals are {SEALED}|There is no game #\d+ in play)"
    await client.cmd(f"observe {game_id}", refused)
    await client.cmd(f"replay {game_id}", f"may not be shown: its deals are {SEALED}")
    await client.cmd(f"replay {game_id} 1", f"may not be shown: its deals are {SEALED}")
    await client.cmd(f"examine {game_id}", f"may not be shown: its deals are {SEALED}")
    for path in (f"/games/{game_id}", f"/games/{game_id}/replay",
                 f"/games/{game_id}/replay?move=1", f"/games/{game_id}/events",
                 f"/api/games/{game_id}", f"/api/games/{game_id}/replay"):
        response = await http.get(path)
        assert response.status_code in (403, 404), (path, response.status_code)
        assert SEALED in response.text or (
            path.endswith("/events") or path == f"/api/games/{game_id}"
        ) and "is not in play" in response.text, (path, response.text[:300])


async def test_a_par_tournament_of_twenty(parlor, clients):
    door = WebDoor(parlor, host="127.0.0.1", port=0)
    await door.start()
    try:
        async with httpx.AsyncClient(base_url=door.url.rstrip("/"), timeout=10) as http:
            await _par_tournament(parlor, clients, http)
    finally:
        await door.stop()


async def _par_tournament(parlor, clients, http):
    names = ["Anna", "Boris", "Chloe", "Dmitri", "Elena", "Fabio", "Greta", "Hugo", "Ines",
             "Jonas", "Karen", "Mateo", "Nadia", "Oscar", "Paula", "Quentin", "Rosa", "Stefan",
             "Tomas", "Vera"]
    players = await asyncio.gather(*(clients(n) for n in names))
    first = players[0]
    await first.cmd("tourney create pyr par 0", "number of deals")
    await first.cmd("tourney create pyr par 13", "A Par tournament has 1 to 12 deals")
    await first.cmd("tourney create pyr par 2 day", "A Par tournament takes no options")
    await first.cmd(f"tourney create pyr par {DEALS}",
                    rf"Tournament 1 is open: Pyramid Par, {DEALS} deals")
    await asyncio.gather(*(p.cmd("tourney join 1", "You enter tournament 1") for p in players))
    await first.cmd("tourney 1", r"Open: 2 deals, the same for every entrant")
    # A 21st entrant who is gone when it starts: a no-show, ranked last.
    gone = await clients("Wanda")
    await gone.cmd("tourney join 1", "You enter tournament 1")
    await gone.close()
    for _ in range(200):
        if not any(s.account.name == "Wanda" for s in parlor.online.sessions.values()):
            break
        await asyncio.sleep(0.02)

    # The first entrant plays both deals at once; the others wait for ``go``.
    go = asyncio.Event()
    first.send("tourney start 1")
    leader = asyncio.create_task(_play(parlor, first, moves=3))
    rest = [asyncio.create_task(_play(parlor, p, moves=i % 4, go=go))
            for i, p in enumerate(players[1:], 1)]
    first_game = await asyncio.wait_for(leader, 30)
    await first.expect(r"Your deals of Par tournament 1 are over", timeout=10)
    row = await parlor.host.tournaments.get(1)
    games = {int(k): r["game"] for k, r in row.state["results"].items() if r["game"]}
    assert len(games) == 20 and len(row.state["results"]) == 21
    # Before the end: nobody (an entrant yet to play, nor the one who has) sees a deal.
    watcher, second = players[1], players[2]
    second_game = games[parlor_id(parlor, second.name)]
    assert second_game in parlor.host.live
    await _doors_refused(watcher, http, first_game)    # finished, stored, sealed
    await _doors_refused(watcher, http, second_game)   # in play, sealed
    await _doors_refused(first, http, second_game)     # nor the one who has played them
    out = await watcher.cmd("tourney 1", r"Running: scores are shown when(.|\n)*?> ")
    assert re.search(r"[+-]\d+", out.split("Running")[0].split("Scores")[1]) is None
    listing = (await http.get("/api/games")).json()["games"]
    assert all("view" not in g for g in listing)
    out = await watcher.cmd(f"finger {first.name}", r"Last Pyramid: [^\n]*")
    assert f"#{first_game} played (sealed)" in out

    go.set()
    await asyncio.wait_for(asyncio.gather(*rest), 60)
    for p in players:
        await p.expect(r"Tournament 1 \(Pyramid Par, 2 deals\) is over", timeout=20)
    row = await parlor.host.tournaments.get(1)
    assert row.status == "finished"
    seeds = row.state["sealed"]["seeds"]

    # The same deals for all; the totals recompute from the stored games.
    own = parlor.host.tournaments.system_of("pyr", "par")
    standings = own.standings(row)
    assert standings[-1]["name"] == "Wanda" and standings[-1]["forfeit"]
    assert standings[-1]["total"] is None and standings[-1]["place"] is None
    standings = standings[:-1]
    async with parlor.db.session() as tx:
        for entry in standings:
            record = await tx.get(GameRecord, entry["game"])
            assert record.status == "finished"
            table = match.state_from_json(record.state)
            assert list(table.matches[0].seeds) == seeds
            assert not table.sealed
            assert list(match.deal_scores(table)) == entry["scores"]
            assert sum(match.deal_scores(table)) == entry["total"]
    totals = [e["total"] for e in standings]
    assert totals == sorted(totals, reverse=True) and standings[0]["place"] == 1
    assert len(set(totals)) > 1  # the entrants played differently

    # After the end: every door shows the deals.
    await watcher.cmd(f"replay {first_game}", r"REPLAY \d+ <move> shows")
    await watcher.cmd(f"examine {first_game} 1", r"Examining game #")
    response = await http.get(f"/api/games/{first_game}/replay?move=1")
    assert response.status_code == 200 and response.json()["view"]["game"] != "pyramid-hidden"
    assert (await http.get(f"/games/{first_game}/replay")).status_code == 200

    # The solver's best Par per deal, next to each entrant's scores.
    for _ in range(600):
        row = await parlor.host.tournaments.get(1)
        if row.state.get("best"):
            break
        await asyncio.sleep(0.1)
    assert len(row.state["best"]) == DEALS
    for entry in own.standings(row):
        for score, best in zip(entry["scores"] or (), row.state["best"]):
            assert score <= best["upper"]
    out = await first.cmd("tourney 1", r"The solver's best Par, deal by deal:(.|\n)*?> ")
    assert "Scores" in out and first.name in out
    assert all(len(line) <= 80 for line in out.splitlines())


def parlor_id(parlor, name: str) -> int:
    for game in parlor.host.live.values():
        if game.seats[0].name == name:
            return game.seats[0].account_id
    raise AssertionError(f"{name} has no game in play")


async def test_a_par_tournament_survives_a_restart(tmp_path):
    """The server stops while the entrants are playing: after the restart their games
    wait for them, still sealed, and the tournament finishes when they are played."""
    from tests.support.client import Client

    url = f"sqlite+aiosqlite:///{tmp_path}/par.db"
    parlor = assemble(make_config(url, max_connections_per_address=30))
    await parlor.start()
    try:
        ann = await (await Client.connect(parlor.port)).create("Annika")
        bo = await (await Client.connect(parlor.port)).create("Bodo")
        await ann.cmd("tourney create pyr par 2", "Tournament 1 is open")
        for p in (ann, bo):
            await p.cmd("tourney join 1", "You enter tournament 1")
        ann.send("tourney start 1")
        out = await ann.expect(r"your deals are game #\d+")
        ann_game = int(YOURS.search(out).group(1))
        out = await bo.expect(r"your deals are game #\d+")
        bo_game = int(YOURS.search(out).group(1))
        await ann.cmd("pyr end", "Game 1 of 2 over")
        await ann.cmd("pyr save", "A Par tournament's deals cannot be saved")
        await ann.cmd("pyr new yes", "A Par tournament's deals are dealt once")
    finally:
        await parlor.stop()

    parlor = assemble(make_config(url, max_connections_per_address=30))
    await parlor.start()
    try:
        assert parlor.host.live[ann_game].state.sealed == "Par tournament 1"
        ann = await (await Client.connect(parlor.port)).login("Annika")
        bo = await (await Client.connect(parlor.port)).login("Bodo")
        await bo.cmd(f"replay {ann_game}", f"may not be shown: its deals are {SEALED}")
        await bo.cmd(f"observe {ann_game}", f"may not be watched: its deals are {SEALED}")
        await ann.cmd("pyr end", "Game 2 of 2 over")
        await bo.cmd("pyr exit yes", r"Game #\d+ is over")   # gives up both deals
        await ann.expect(r"Tournament 1 \(Pyramid Par, 2 deals\) is over", timeout=10)
        row = await parlor.host.tournaments.get(1)
        assert row.status == "finished"
        standings = parlor.host.tournaments.system_of("pyr", "par").standings(row)
        by_name = {e["name"]: e for e in standings}
        assert by_name["Bodo"]["scores"] == [-52, -52] and by_name["Bodo"]["game"] == bo_game
        assert by_name["Annika"]["total"] == sum(by_name["Annika"]["scores"])
        await bo.cmd(f"replay {ann_game}", r"REPLAY \d+ <move> shows")
    finally:
        await parlor.stop()
