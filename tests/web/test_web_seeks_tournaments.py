"""/seeks, /tournaments and /tournaments/<n> (pages, JSON twins and their live streams),
and a player's last games of each game: seeks posted over real telnet sockets, a Swiss
tournament created and run through the director (``parlor.host.tournaments``) while its
players, connected over telnet, play its games."""

from __future__ import annotations

import asyncio
import re

from server.hosting import Seat
from tests.web.test_web_door import read_events

GAME = re.compile(r"Game #(\d+): Noughts and Crosses, (\w+) vs (\w+)")


async def settle(predicate, timeout: float = 10.0) -> None:  # noqa: ANN001
    for _ in range(int(timeout / 0.02)):
        if predicate():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("timed out")


# -- seeks ---------------------------------------------------------------------------------
async def test_seeks_page_and_json_list_every_open_seek(parlor, door, http, clients):
    r = await http.get("/seeks")
    assert r.status_code == 200 and "Nobody is seeking a game right now." in r.text
    assert (await http.get("/api/seeks")).json() == {"seeks": []}
    alice = await clients("Alice")
    bob = await clients("Bob")
    await alice.cmd("ttt seek ranked 1400-1600", "Your seek 1 is posted")
    # a formula hides seeks from one player at the telnet; the anonymous page shows all
    await bob.cmd("set formula rating > 1600", "Your formula is now")
    await bob.cmd("dice seek", "Your seek 2 is posted: Triad Dice")
    api = (await http.get("/api/seeks")).json()["seeks"]
    assert [(s["id"], s["name"], s["kind"]) for s in api] == [(1, "Alice", "ttt"),
                                                              (2, "Bob", "dice")]
    first = api[0]
    assert (first["ranked"], first["range"], first["low"], first["high"]) == (
        True, "1400-1600", 1400, 1600)
    assert first["rating"] == 1500 and first["rating_text"] == "1500 ±350 provisional"
    assert first["title"] == "Noughts and Crosses" and "account_id" not in first
    assert first["describe"] == "Noughts and Crosses (ranked)"
    assert first["options"] == ""   # "ranked" has its own column
    assert api[1]["ranked"] is False and api[1]["range"] == "any"
    page = (await http.get("/seeks")).text
    assert "2 seeks are open." in page
    assert 'href="/players/Alice"' in page and "1400-1600" in page and "Triad Dice" in page
    assert 'data-events="/seeks/events"' in page
    home = (await http.get("/")).text
    assert 'href="/seeks"' in home and 'href="/tournaments"' in home and "2 seeks are open." in home


async def test_seeks_stream_follows_posts_and_withdrawals(parlor, door, http, clients):
    alice = await clients("Alice")
    async with http.stream("GET", "/seeks/events") as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        lines = response.aiter_lines()
        first = await read_events(lines, "update")
        assert first[-1][1]["status"] == "Nobody is seeking a game."
        assert door.watchers.open["seeks"] == 1
        await alice.cmd("ttt seek", "Your seek 1 is posted")
        update = (await read_events(lines, "update"))[-1][1]
        assert "Alice" in update["html"] and update["status"] == "1 seek is open."
        await alice.cmd("unseek", "You take back your seek 1")
        update = (await read_events(lines, "update"))[-1][1]
        assert "Alice" not in update["html"] and "Nobody is seeking" in update["html"]
    await settle(lambda: "seeks" not in door.watchers.open)


# -- tournaments ---------------------------------------------------------------------------
async def _round_started(parlor, number: int, k: int):  # noqa: ANN001, ANN202
    """Tournament ``number`` once round ``k`` is paired and its games started."""
    for _ in range(500):
        row = await parlor.host.tournaments.get(number)
        rounds = row.state["pairings"]
        if len(rounds) == k and all(p["game"] is not None or p["score"] is not None
                                    for p in rounds[-1]):
            return row
        await asyncio.sleep(0.02)
    raise AssertionError(f"round {k} of tournament {number} never started")


async def _finish_round(parlor, players: dict, number: int, k: int) -> None:  # noqa: ANN001
    """Round ``k``'s games: the second player of each resigns."""
    row = await _round_started(parlor, number, k)
    names = {e["id"]: e["name"] for e in row.state["entrants"]}
    for p in row.state["pairings"][-1]:
        if p["game"] is not None and p["score"] is None:
            await players[names[p["second"]]].cmd("ttt resign", "resign|wins")


async def test_a_swiss_tournament_on_its_pages_and_json(parlor, door, http, clients):
    svc = parlor.host.tournaments
    names = ["Ann", "Bea", "Cal"]
    players = {n: await clients(n) for n in names}
    seats = {n: Seat((await parlor.accounts.get(n)).id, n) for n in names}
    assert (await http.get("/api/tournaments")).json() == {"open": [], "running": [],
                                                          "finished": [], "cancelled": []}
    assert "No tournament is open." in (await http.get("/tournaments")).text
    row = await svc.create("ttt", "swiss", 2, {}, seats["Ann"], admin=False)
    listing = (await http.get("/api/tournaments")).json()
    assert [t["id"] for t in listing["open"]] == [row.id]
    assert listing["open"][0]["href"] == f"/tournaments/{row.id}"
    for n in names:
        await svc.join(row.id, seats[n])
    page = (await http.get(f"/tournaments/{row.id}")).text
    assert "Open for entrants; 2 rounds." in page and "Entrants" in page
    for n in names:
        assert f'href="/players/{n}"' in page

    async with http.stream("GET", f"/tournaments/{row.id}/events") as response:
        lines = response.aiter_lines()
        first = (await read_events(lines, "update"))[-1][1]
        assert first["status"] == "Open for entrants; 2 rounds."
        await svc.begin(row.id, seats["Ann"], admin=False)
        paired = (await read_events(lines, "update"))[-1][1]
        while "/games/" not in paired["html"]:   # saved once paired, again as games start
            paired = (await read_events(lines, "update"))[-1][1]
        assert paired["status"] == "Running; round 1 of 2."
        assert "Round 1 (now)" in paired["html"] and "bye" in paired["html"]
        await _finish_round(parlor, players, row.id, 1)
        while "Round 2" not in (update := (await read_events(lines, "update"))[-1][1])["html"]:
            pass
        assert update["status"] == "Running; round 2 of 2."
        await _finish_round(parlor, players, row.id, 2)
        events = await read_events(lines, "end", timeout=20)
        assert events[-1] == ("end", {"reason": "finished"})
        assert events[-2][1]["status"] == "Finished; round 2 of 2."

    row = await svc.get(row.id)
    assert row.status == "finished"
    api = (await http.get(f"/api/tournaments/{row.id}")).json()
    assert (api["status"], api["round"], api["rounds"], api["system"]) == (
        "finished", 2, 2, "swiss")
    assert [c["title"] for c in api["standings"]["columns"]] == [
        "Points", "Buchholz", "Sonneborn-Berger"]
    table = svc.standings(row)
    assert [(r["name"], r["values"]["points"], r["values"]["buchholz"],
             r["values"]["sonneborn_berger"]) for r in api["standings"]["rows"]] == [
        (e["name"], pts, bh, sb) for e, pts, bh, sb in table]
    assert api["winner"] == table[0][0]["name"]
    assert [r["number"] for r in api["rounds_paired"]] == [2, 1]
    stored = [p for rnd in row.state["pairings"] for p in rnd]
    shown = [p for rnd in reversed(api["rounds_paired"]) for p in rnd["pairings"]]
    assert len(shown) == len(stored) == 4
    for s, p in zip(stored, shown):
        if s["second"] is None:
            assert p["bye"] and p["result"] == "bye" and p["href"] is None
        else:
            assert p["href"] == f"/games/{s['game']}"
            assert p["result"] == {1.0: "1-0", 0.0: "0-1", 0.5: "½-½"}[s["score"]]
    page = (await http.get(f"/tournaments/{row.id}")).text
    assert "Finished; round 2 of 2." in page and "Sonneborn-Berger" in page
    assert f"Won by <a href=\"/players/{api['winner']}\">" in page
    assert "data-events" not in page   # nothing more will change
    for p in shown:
        if p["href"]:
            assert f'href="{p["href"]}"' in page
            game = await http.get(p["href"])   # a finished game's page: its replay
            assert game.status_code == 200 and "Noughts and Crosses" in game.text
    listing = (await http.get("/api/tournaments")).json()
    assert [t["id"] for t in listing["finished"]] == [row.id]
    assert listing["finished"][0]["winner"] == api["winner"]
    assert api["winner"] in (await http.get("/tournaments")).text


async def test_tournament_addresses_that_are_not_one(parlor, door, http):
    cases = {"/tournaments/99": "There is no tournament 99.",
             "/tournaments/x9": "There is no tournament x9.",
             "/tournaments/99999999999999": "There is no tournament 9999"}
    for path, message in cases.items():
        r = await http.get(path)
        assert r.status_code == 404 and message in r.text, path
        assert 'href="/tournaments"' in r.text   # the nav, at least
        api = await http.get("/api" + path)
        assert api.status_code == 404 and message in api.json()["error"]
    assert (await http.get("/tournaments/99/events")).status_code == 404


# -- a player's last games -----------------------------------------------------------------
async def test_a_players_page_lists_the_last_ten_games_of_each_game(parlor, door, http, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    ttt = []
    for _ in range(11):   # eleven of one game: the page shows the last ten
        await alice.cmd("ttt challenge bob", "You challenge Bob")
        await bob.cmd("ttt accept alice", "begins")
        out = await alice.expect(GAME)
        ttt.append(int(GAME.search(out).group(1)))
        await bob.cmd("ttt resign", "resign|wins")
        await settle(lambda: ttt[-1] not in parlor.host.live)
    out = await alice.cmd("dice challenge computer easy",
                          r"Game #(\d+): Triad Dice, Alice vs Computer")
    dice = int(re.search(r"Game #(\d+): Triad Dice", out).group(1))
    await alice.cmd("dice resign", "resign|wins")
    await settle(lambda: dice not in parlor.host.live)
    data = (await http.get("/api/players/Alice")).json()
    by_kind = {k["kind"]: k for k in data["last_games"]}
    assert set(by_kind) == {"ttt", "dice"}
    assert [g["id"] for g in by_kind["ttt"]["games"]] == ttt[::-1][:10]
    assert {g["result"] for g in by_kind["ttt"]["games"]} == {"won"}
    assert by_kind["ttt"]["games"][0]["opponents"] == ["Bob"]
    assert [(g["id"], g["result"]) for g in by_kind["dice"]["games"]] == [(dice, "lost")]
    page = (await http.get("/players/Alice")).text
    assert "<h3" in page and "Noughts and Crosses</h3>" in page and "Triad Dice</h3>" in page
    for number in ttt[1:]:
        assert f'href="/games/{number}/replay"' in page
    assert f'href="/games/{ttt[0]}/replay"' not in page   # the eleventh back is not listed
    bob_page = (await http.get("/api/players/Bob")).json()
    assert [k["kind"] for k in bob_page["last_games"]] == ["ttt"]
    assert {g["result"] for g in bob_page["last_games"][0]["games"]} == {"lost"}
    computer = (await http.get("/api/players/Computer(easy)")).json()
    assert [(k["kind"], [(g["id"], g["result"]) for g in k["games"]])
            for k in computer["last_games"]] == [("dice", [(dice, "won")])]
    assert (await http.get("/api/players/Computer(hard)")).json()["last_games"] == []
    assert "No finished games yet." in (await http.get("/players/Computer(hard)")).text


async def test_readers_of_one_tournament_change_share_one_read(parlor, door, http, clients,
                                                               monkeypatch):
    from server.web import data

    svc = parlor.host.tournaments
    ann = await clients("Ann")
    seat = Seat((await parlor.accounts.get("Ann")).id, "Ann")
    row = await svc.create("ttt", "swiss", 2, {}, seat, admin=False)
    reads = []
    real = data.tournament

    async def counted(parlor_, number):  # noqa: ANN001, ANN202
        reads.append(number)
        await asyncio.sleep(0.05)   # slow enough that every stream asks while it runs
        return await real(parlor_, number)

    monkeypatch.setattr(data, "tournament", counted)
    async with http.stream("GET", f"/tournaments/{row.id}/events") as one, \
            http.stream("GET", f"/tournaments/{row.id}/events") as two, \
            http.stream("GET", f"/tournaments/{row.id}/events") as three:
        streams = [s.aiter_lines() for s in (one, two, three)]
        for lines in streams:
            await read_events(lines, "update")
        assert reads == [row.id]            # one read for the page's three streams
        await ann.cmd(f"tourney join {row.id}", "You enter tournament")
        for lines in streams:
            update = (await read_events(lines, "update"))[-1][1]
            assert 'href="/players/Ann"' in update["html"]
        assert reads == [row.id, row.id]    # and one for the change they all drew
        assert door.watchers.open[("tournament", row.id)] == 3
        await door.stop()                   # the door stopping ends them
        for lines in streams:
            [line async for line in lines]  # each has ended (else this would wait)
    assert not door.streams and ("tournament", row.id) not in door.watchers.open


async def test_a_par_tournament_and_a_sit_and_go_on_the_pages_seal_their_deals(
        parlor, door, http, clients):
    """A game's own systems on /tournaments and /tournaments/<n> (and JSON): standings from
    the system, and nothing of a Par tournament's sealed deals while it runs."""
    svc = parlor.host.tournaments
    alice = await clients("Alice")
    bob = await clients("Bob")
    me = Seat((await parlor.accounts.get("Alice")).id, "Alice")
    par = await svc.create("pyr", "par", 2, {}, me, True)
    sitgo = await svc.create("triad", "sitgo", 100, {}, me, True)
    for name in ("Alice", "Bob"):
        seat = Seat((await parlor.accounts.get(name)).id, name)
        await svc.join(par.id, seat)
        await svc.join(sitgo.id, seat)
    await svc.begin(par.id, me, True)
    seeds = (await svc.get(par.id)).state["sealed"]["seeds"]
    listing = await http.get("/tournaments")
    assert listing.status_code == 200 and "Pyramid Par" in listing.text
    for path in (f"/tournaments/{par.id}", f"/api/tournaments/{par.id}", "/api/tournaments",
                 f"/tournaments/{sitgo.id}", f"/api/tournaments/{sitgo.id}"):
        r = await http.get(path)
        assert r.status_code == 200, path
        assert not any(str(seed) in r.text for seed in seeds), path  # sealed
    page = (await http.get(f"/api/tournaments/{par.id}")).json()
    assert [row["name"] for row in page["standings"]["rows"]] == ["Alice", "Bob"]
    for c in (alice, bob):
        await c.close()
