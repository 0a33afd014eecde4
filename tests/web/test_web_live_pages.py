"""The fourth campaign's live pages: 300 streams of /seeks drew the page 300 times on
every change (a player's LOOK waited 2.7 s at the median). Now a page is drawn once per
change for all its streams, changes that come together are drawn together (the last
always shown), and one address holds at most ``[web] streams_per_address`` streams
(429, one line of JSON, past it)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import AsyncIterator

import httpx

from server.hosting import Seat
from tests.hardening.test_attack_web import running
from tests.web.test_web_door import read_events

STREAMS = 3
NOBODY = "Nobody is seeking a game."


async def seekers(parlor, count: int) -> list[Seat]:  # noqa: ANN001
    """``count`` players, each with a seek of Triad Dice nobody may take (ratings
    3000-3100), so no two of them start a game."""
    seats = []
    for i in range(count):
        account = await parlor.accounts.create(f"Seeker{i}", "", computer=True)
        seat = Seat(account.id, account.name)
        await parlor.host.seeks.post("dice", seat, {}, 3000, 3100)
        seats.append(seat)
    return seats


def counted_drawings(door, monkeypatch) -> list[int]:  # noqa: ANN001
    """Count every drawing of the seeks page's changing part."""
    pages = door.app.state.pages
    drawn = []
    real = pages._seeks_update

    def counting():  # noqa: ANN202
        drawn.append(1)
        return real()

    monkeypatch.setattr(pages, "_seeks_update", counting)
    return drawn


@contextlib.asynccontextmanager
async def streams(http: httpx.AsyncClient, path: str, count: int) -> AsyncIterator[list]:
    """``count`` streams of ``path``, each as its lines, once each has its first update."""
    async with contextlib.AsyncExitStack() as stack:
        opened = [await stack.enter_async_context(http.stream("GET", path))
                  for _ in range(count)]
        lines = [r.aiter_lines() for r in opened]
        yield lines


async def test_one_drawing_per_change_for_every_stream_of_a_page(parlor, door, http,
                                                                 monkeypatch):
    drawn = counted_drawings(door, monkeypatch)
    seat, = await seekers(parlor, 1)
    async with streams(http, "/seeks/events", STREAMS) as lines:
        firsts = [(await read_events(one, "update"))[-1][1] for one in lines]
        assert all(f["status"] == "1 seek is open." for f in firsts)
        assert len(drawn) == 1                       # not one per stream
        parlor.host.seeks.withdraw(seat.account_id)
        updates = [(await read_events(one, "update"))[-1][1] for one in lines]
        assert all(u == {"html": updates[0]["html"], "status": NOBODY} for u in updates)
        assert len(drawn) == 2                       # one for the change, for all three
        assert door.watchers.open["seeks"] == STREAMS


async def test_changes_that_come_together_are_drawn_together_and_the_last_is_shown(
        parlor, door, http, monkeypatch):
    drawn = counted_drawings(door, monkeypatch)
    seats = await seekers(parlor, 10)
    async with streams(http, "/seeks/events", STREAMS) as lines:
        for one in lines:
            assert (await read_events(one, "update"))[-1][1]["status"] == "10 seeks are open."
        for seat in seats[:5]:                       # five changes at once
            parlor.host.seeks.withdraw(seat.account_id)
        for one in lines:
            assert (await read_events(one, "update"))[-1][1]["status"] == "5 seeks are open."
        for seat in seats[5:]:                       # five more, just after that drawing
            parlor.host.seeks.withdraw(seat.account_id)
        for one in lines:
            last = (await read_events(one, "update"))[-1][1]
            assert last["status"] == NOBODY and "Seeker" not in last["html"]
        assert len(drawn) == 3                       # the first, and one for each burst


async def test_a_page_followed_again_is_drawn_afresh(parlor, door, http, monkeypatch):
    drawn = counted_drawings(door, monkeypatch)
    seat, = await seekers(parlor, 1)
    async with streams(http, "/seeks/events", 1) as lines:
        await read_events(lines[0], "update")
    for _ in range(250):   # the stream is gone: nobody follows the page, nothing hears it
        if "seeks" not in door.app.state.pages.live_pages.pages:
            break
        await asyncio.sleep(0.02)
    assert "seeks" not in door.app.state.pages.live_pages.pages
    parlor.host.seeks.withdraw(seat.account_id)      # unseen: no one follows the page
    async with streams(http, "/seeks/events", 1) as lines:
        first = (await read_events(lines[0], "update"))[-1][1]
        assert first["status"] == NOBODY
    assert len(drawn) == 2


async def test_streams_per_address_are_capped_with_a_429_in_json(sqlite_url):
    async with running(sqlite_url, web={"streams_per_address": 2,
                                        "trusted_proxies": ("127.0.0.2",)}) as (parlor, door):
        base = door.url.rstrip("/")
        async with httpx.AsyncClient(base_url=base, timeout=10) as http:
            async with streams(http, "/seeks/events", 2) as lines:
                for one in lines:
                    await read_events(one, "update")
                for path in ("/seeks/events", "/tournaments/events"):
                    refused = await http.get(path)
                    assert refused.status_code == 429, path
                    assert refused.headers["content-type"] == "application/json"
                    assert "\n" not in refused.text
                    assert refused.json() == {"error": "Too many live pages are open from "
                                                       "your address; close one and reload."}
                assert (await http.get("/api/seeks")).status_code == 200  # pages still are
                # another address may, and a trusted proxy's clients count one by one
                other = httpx.AsyncHTTPTransport(local_address="127.0.0.3")
                async with httpx.AsyncClient(base_url=base, timeout=10,
                                             transport=other) as elsewhere:
                    async with elsewhere.stream("GET", "/seeks/events") as response:
                        assert response.status_code == 200
                proxy = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
                async with httpx.AsyncClient(base_url=base, timeout=10,
                                             transport=proxy) as proxied:
                    forwarded = {"x-forwarded-for": "10.0.0.1"}
                    async with proxied.stream("GET", "/seeks/events", headers=forwarded) as a, \
                            proxied.stream("GET", "/seeks/events", headers=forwarded) as b:
                        assert (a.status_code, b.status_code) == (200, 200)
                        third = await proxied.get("/seeks/events", headers=forwarded)
                        assert third.status_code == 429
                        other_client = await proxied.get(
                            "/api/seeks", headers={"x-forwarded-for": "10.0.0.2"})
                        assert other_client.status_code == 200
                        async with proxied.stream("GET", "/seeks/events", headers={
                                "x-forwarded-for": "10.0.0.2"}) as c:
                            assert c.status_code == 200
            # the two ended: their address may open two again, one after another
            for _ in range(3):
                async with streams(http, "/seeks/events", 2) as lines:
                    for one in lines:
                        await read_events(one, "update")
        for _ in range(250):
            if not door.watchers.addresses:
                break
            await asyncio.sleep(0.02)
        assert not door.watchers.addresses and not door.watchers.open
