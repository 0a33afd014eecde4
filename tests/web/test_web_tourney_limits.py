"""/tournaments and /api/tournaments list every live tournament, however many are newer,
and show a cancelled one as cancelled (its page, its JSON, "Lately cancelled")."""

from __future__ import annotations

import re

from server.hosting import Seat

NEWER = 31  # more than the 30 newest the lists used to show


async def test_an_old_running_tournament_is_listed(parlor, door, http, clients):
    svc = parlor.host.tournaments
    ann, bea = await clients("Ann"), await clients("Bea")
    await ann.cmd("tourney create ttt swiss 2", "Tournament 1 is open")
    await bea.cmd("tourney join 1", "You enter")
    await ann.cmd("tourney join 1", "You enter")
    await ann.cmd("tourney start 1", r"Game #1: Noughts and Crosses, \w+ vs \w+ begins")
    for _ in range(NEWER):
        await svc.create("ttt", "arena", 30, {}, None, True)
    listing = (await http.get("/api/tournaments")).json()
    assert [t["id"] for t in listing["running"]] == [1]
    assert len(listing["open"]) == NEWER
    page = (await http.get("/tournaments")).text
    assert re.search(r'<a href="/tournaments/1">Noughts and Crosses Swiss, 2 rounds', page)
    assert f"{NEWER} open, 1 running, 0 lately finished." in page


async def test_a_cancelled_tournament_on_the_pages(parlor, door, http, clients):
    svc = parlor.host.tournaments
    ann = await clients("Ann")
    seat = Seat((await parlor.accounts.get("Ann")).id, "Ann")
    row = await svc.create("ttt", "swiss", 2, {}, seat, admin=False)
    await ann.cmd(f"tourney cancel {row.id}", f"You cancel tournament {row.id}")
    listing = (await http.get("/api/tournaments")).json()
    assert listing["open"] == [] and [t["id"] for t in listing["cancelled"]] == [row.id]
    assert listing["cancelled"][0]["progress"] == "Cancelled; Ann cancelled it."
    page = (await http.get("/tournaments")).text
    assert "Lately cancelled" in page and "1 lately cancelled" in page
    api = (await http.get(f"/api/tournaments/{row.id}")).json()
    assert api["status"] == "cancelled" and api["progress"] == "Cancelled; Ann cancelled it."
    page = (await http.get(f"/tournaments/{row.id}")).text
    assert "Cancelled; Ann cancelled it." in page and "data-events" not in page
