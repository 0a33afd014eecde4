"""The web door's front (``server/web/front.py``): a process of its own that speaks HTTP
to page readers, asks the parlor for each page and hands it live streams and /play.

Each test runs a real parlor with its door and front, over real sockets."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal

import httpx
import pytest

from tests.hardening.test_attack_web import (a_live_game, answer, get, greeting, open_from,
                                             read_event, running, until)
from server.web import WebDoor
from tests.web.wsclient import WsPlayer

FRONT = {"front": True}   # [web] front (the default; named, as these tests are of it)


@pytest.fixture
async def door(parlor):
    """The parlor's web door with its front."""
    import attrs

    parlor.config = attrs.evolve(parlor.config, web=attrs.evolve(parlor.config.web, front=True))
    d = WebDoor(parlor, host="127.0.0.1", port=0)
    await d.start()
    yield d
    await d.stop()


async def test_a_page_is_asked_of_the_parlor_and_written_by_the_front(sqlite_url):
    async with running(sqlite_url, web=FRONT) as (parlor, door):
        link = door._front
        assert link is not None and link.process is not None
        before = link.answered
        page = await get(door.port, "/api/who")
        assert page.startswith(b"HTTP/1.1 200") and b'"players"' in page
        assert b"\r\ndate: " in page.lower()
        assert link.answered == before + 1
        # the page's headers are the parlor's (its security headers among them)
        assert b"x-content-type-options: nosniff" in page.lower()


async def test_requests_sent_together_on_one_connection_are_answered_in_order(sqlite_url):
    async with running(sqlite_url, web=FRONT) as (parlor, door):
        reader, writer = await open_from(door.port, "127.0.0.1")
        writer.write(b"GET /api/who HTTP/1.1\r\nHost: x\r\n\r\n"
                     b"HEAD / HTTP/1.1\r\nHost: x\r\n\r\n"
                     b"GET /no/such/page HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                     b"GET /api/who HTTP/1.1\r\nHost: x\r\n\r\n")   # after the close: none
        text = await answer(reader)
        writer.close()
        assert re.findall(rb"HTTP/1\.1 (\d{3}) ", text) == [b"200", b"200", b"404"]
        assert b"There is no page here." in text
        assert text.lower().count(b"<!doctype html>") == 1   # the 404's: HEAD has no body


async def test_a_bad_request_and_a_huge_head_are_told_in_one_line(sqlite_url):
    async with running(sqlite_url, web=FRONT) as (parlor, door):
        reader, writer = await open_from(door.port, "127.0.0.1")
        writer.write(b"NOT HTTP AT ALL\r\n\r\n")
        bad = await answer(reader)
        writer.close()
        assert bad.startswith(b"HTTP/1.1 400") and bad.endswith(b"Bad request.")
        reader, writer = await open_from(door.port, "127.0.0.1")
        writer.write(b"GET / HTTP/1.1\r\nHost: x\r\nX-Long: " + b"a" * 40_000 + b"\r\n\r\n")
        huge = await answer(reader)
        writer.close()
        assert huge.startswith((b"HTTP/1.1 400", b"HTTP/1.1 431", b"HTTP/1.1 413")), huge[:80]
        assert (await get(door.port, "/api/who")).startswith(b"HTTP/1.1 200")


async def test_what_http_asks_of_a_connection_is_kept(sqlite_url):
    """HTTP/1.0 is answered and closed; a body past the bound is refused; a WebSocket's
    handshake sent behind another request in one breath is refused, not handed over; a
    head that grows past its bound in pieces is refused before it is whole."""
    async with running(sqlite_url, web=FRONT) as (parlor, door):
        reader, writer = await open_from(door.port, "127.0.0.1")
        writer.write(b"GET /api/who HTTP/1.0\r\n\r\n")
        old = await answer(reader)
        writer.close()
        assert old.startswith(b"HTTP/1.1 200") and b"connection: close" in old.lower()
        assert not old.endswith(b"<open>")

        reader, writer = await open_from(door.port, "127.0.0.1")
        writer.write(b"POST /api/who HTTP/1.1\r\nHost: x\r\nContent-Length: 200000\r\n\r\n"
                     + b"x" * 70_000)
        big = await answer(reader)
        writer.close()
        assert big.startswith(b"HTTP/1.1 413") and big.endswith(b"Request too large.")

        reader, writer = await open_from(door.port, "127.0.0.1")
        writer.write(b"GET /api/who HTTP/1.1\r\nHost: x\r\n\r\n"
                     b"GET /play/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                     b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                     b"Sec-WebSocket-Version: 13\r\n\r\n")
        behind = await answer(reader)
        writer.close()
        assert behind.startswith(b"HTTP/1.1 400") and b"101" not in behind.split(b"\r\n")[0]

        reader, writer = await open_from(door.port, "127.0.0.1")
        writer.write(b"GET / HTTP/1.1\r\nHost: x\r\nX-Long: ")
        for _ in range(5):
            writer.write(b"a" * 4_000)
            await asyncio.sleep(0.05)
        long = await answer(reader)
        writer.close()
        assert long.startswith(b"HTTP/1.1 431"), long[:80]
        assert (await get(door.port, "/api/who")).startswith(b"HTTP/1.1 200")


async def test_page_readers_held_by_the_front_leave_telnet_its_whole_budget(sqlite_url):
    """Silent page connections are the front's descriptors, not the parlor's: they fill the
    front's share (the oldest waiting one closed to make room), and telnet keeps all of its
    budget."""
    async with running(sqlite_url, server={"max_connections": 8},
                       web={"request_timeout": 60.0, **FRONT}) as (parlor, door):
        held = [await open_from(door.port, f"127.0.1.{i}") for i in range(1, 11)]
        # the web door's share is 6: the four oldest were closed to make room
        closed = [await answer(reader, 0.2 if i >= 4 else 10) for i, (reader, _) in
                  enumerate(held)]
        assert closed[:4] == [b""] * 4 and closed[4:] == [b"<open>"] * 6
        assert parlor.counter["open"] == 0
        telnet = [await open_from(parlor.port, "127.0.2.1") for _ in range(3)]
        assert all(b"Name:" in text for text in [await greeting(r) for r, _ in telnet])
        page = await get(door.port, "/api/who", "127.0.3.1")
        assert page.startswith(b"HTTP/1.1 200")
        for _, writer in held + telnet:
            writer.close()


async def test_the_front_caps_an_address_but_not_a_trusted_proxy(sqlite_url):
    async with running(sqlite_url, web={"max_connections_per_address": 2,
                                        "trusted_proxies": ("127.0.5.0/24",),
                                        "request_timeout": 60.0, **FRONT}) as (parlor, door):
        proxy = [await open_from(door.port, "127.0.5.1") for _ in range(4)]
        assert [await answer(r, 0.2) for r, _ in proxy] == [b"<open>"] * 4
        other = [await open_from(door.port, "127.0.6.1") for _ in range(3)]
        third = await answer(other[2][0], 10)
        assert third.startswith(b"HTTP/1.1 503") and b"from your address" in third
        for _, writer in proxy + other:
            writer.close()


async def test_a_live_stream_is_handed_to_the_parlor_and_counted_there(sqlite_url):
    async with running(sqlite_url, web=FRONT) as (parlor, door):
        number = await a_live_game(parlor)
        reader, writer = await open_from(door.port, "127.0.0.1")
        # a page first, then the stream, on one keep-alive connection (as a browser may)
        writer.write(b"GET /api/who HTTP/1.1\r\nHost: x\r\n\r\n")
        head = await reader.readuntil(b"\r\n\r\n")
        length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length")))
        await reader.readexactly(length)
        writer.write(f"GET /games/{number}/events HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        update = await read_event(reader, "update")
        assert update["number"] == number if "number" in update else update
        await until(lambda: len(door.streams) == 1, "the stream followed in the parlor")
        assert parlor.counter["open"] == 1   # the parlor holds the stream's descriptor now
        writer.close()
        await until(lambda: parlor.counter["open"] == 0, "the stream's connection released")


async def test_play_through_the_front_is_a_session(sqlite_url):
    async with running(sqlite_url, web=FRONT) as (parlor, door):
        player = await WsPlayer.connect(door.url.replace("http://", "ws://") + "play/ws")
        await player.create("Fronted")
        await player.cmd("who", "Fronted")
        assert parlor.online.named("Fronted") is not None
        await player.close()


async def test_a_front_that_dies_is_started_again(sqlite_url):
    async with running(sqlite_url, web=FRONT) as (parlor, door):
        link = door._front
        first = link.process.pid
        os.kill(first, signal.SIGKILL)
        await until(lambda: link.process is not None and link.process.pid != first,
                    "another front started")
        for _ in range(100):   # it says it is ready a moment after it starts
            page = await get(door.port, "/api/who")
            if page.startswith(b"HTTP/1.1 200"):
                break
            await asyncio.sleep(0.1)
        assert page.startswith(b"HTTP/1.1 200")


async def test_a_page_asked_when_the_parlor_stops_is_told_so_in_one_answer(sqlite_url,
                                                                         monkeypatch):
    """The parlor stops while a page is being made: the front answers it 503, with one
    Connection header (the answer says close; the front does not say it again)."""
    from server.web import data

    asked = asyncio.Event()

    async def never(*_args, **_kwargs):   # a page the parlor is still making when it stops
        asked.set()
        await asyncio.Event().wait()

    monkeypatch.setattr(data, "rankings", never)
    async with running(sqlite_url, web=FRONT) as (parlor, door):
        reader, writer = await open_from(door.port, "127.0.0.1")
        writer.write(b"GET /api/rankings/dice HTTP/1.1\r\nHost: x\r\n\r\n")
        async with asyncio.timeout(10):
            await asked.wait()
        await door.stop()
        text = await answer(reader)
        writer.close()
    head, _, body = text.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 503"), text[:200]
    assert body == b"The parlor is restarting; please try again."
    assert [line.lower() for line in head.split(b"\r\n")
            if line.lower().startswith(b"connection:")] == [b"connection: close"]
    assert b"\r\nretry-after: 2\r\n" in head.lower() + b"\r\n"


# -- the copies the front keeps -------------------------------------------------------------
async def test_a_page_read_again_is_sent_by_the_front_without_asking_the_parlor(door, http):
    link = door._front
    first = await http.get("/api/who")
    asked = link.answered
    again = await http.get("/api/who")
    assert again.content == first.content and link.answered == asked
    tag = again.headers["etag"]
    unchanged = await http.get("/api/who", headers={"if-none-match": tag})
    assert unchanged.status_code == 304 and unchanged.headers["etag"] == tag
    assert unchanged.content == b"" and link.answered == asked


async def test_what_a_player_does_shows_at_once_on_a_kept_page(door, http, clients):
    """A login, a new game and its end change the count of changes before the player is
    answered, so a page read after the answer is the parlor's new one, not the front's
    copy."""
    await http.get("/api/who")
    await http.get("/api/who")                       # kept
    alice = await clients("Alice")
    who = (await http.get("/api/who")).json()
    assert "Alice" in json.dumps(who)
    games = "/api/games"
    assert (await http.get(games)).json() == (await http.get(games)).json() == {"games": []}
    out = await alice.cmd("dice challenge computer easy", r"Game #(\d+): Triad Dice")
    number = int(re.search(r"Game #(\d+)", out).group(1))
    assert [g["id"] for g in (await http.get(games)).json()["games"]] == [number]
    await http.get(games)                            # kept
    await alice.cmd("dice resign", "resign|wins")
    assert (await http.get(games)).json() == {"games": []}


async def test_readers_of_one_change_share_one_question(door):
    """After a change, the readers who ask for a page while the parlor draws it wait for
    that one answer (each told 304 or the page, as it asks), rather than asking again."""
    link = door._front
    url = door.url.rstrip("/") + "/api/who"
    async with httpx.AsyncClient(timeout=10) as first:
        tag = (await first.get(url)).headers["etag"]
    door.parlor.changes()   # what the page shows changed (as a login would count it)
    asked = link.answered
    clients = [httpx.AsyncClient(timeout=10) for _ in range(8)]   # a connection each
    try:
        answers = await asyncio.gather(*(
            c.get(url, headers={"if-none-match": tag} if i % 2 else {})
            for i, c in enumerate(clients)))
    finally:
        await asyncio.gather(*(c.aclose() for c in clients))
    assert [a.status_code for a in answers] == [200, 304] * 4
    assert link.answered - asked == 1
