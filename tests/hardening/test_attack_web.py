"""The attack campaign's web findings (issue 23: the web door used up the descriptors;
Unicode digits, huge game numbers and a foreign Host), each on a real parlor and web
door over real sockets, and a fuzz of every route: no answer is ever a 500."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
from typing import AsyncIterator
from urllib.parse import quote, quote_from_bytes

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from commands.app import assemble
from server.app import Parlor
from server.hosting import Seat
from server.web import WebDoor
from tests.conftest import make_config
from tests.support.waits import until
from tests.web.wsclient import WsPlayer

UNICODE_DIGITS = ("²", "①", "٣", "߃", "１", "𝟗", "᧐")
HUGE = "9" * 4301   # past Python's 4,300-digit limit on int(str)


@contextlib.asynccontextmanager
async def running(url: str, *, server: dict | None = None,
                  web: dict | None = None) -> AsyncIterator[tuple[Parlor, WebDoor]]:
    """A parlor (``[server]`` and ``[web]`` settings as given) with its web door open."""
    config = make_config(url, **(server or {}))
    config = attrs.evolve(config, web=attrs.evolve(config.web, **(web or {})))
    parlor = assemble(config)
    await parlor.start()
    door = WebDoor(parlor, host="127.0.0.1", port=0)
    await door.start()
    try:
        yield parlor, door
    finally:
        await parlor.stop()


async def open_from(port: int, address: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))


async def answer(reader: asyncio.StreamReader, timeout: float = 10.0) -> bytes:
    """All the server sends until it closes the connection; ``b"<open>"`` when it has not
    closed it within ``timeout`` seconds."""
    data = b""
    try:
        async with asyncio.timeout(timeout):
            while chunk := await reader.read(65536):
                data += chunk
    except TimeoutError:
        return data + b"<open>"
    except ConnectionResetError:
        pass
    return data


async def get(port: int, path: str, address: str = "127.0.0.1") -> bytes:
    """A whole request for ``path`` from ``address``; the answer, up to the server's close."""
    reader, writer = await open_from(port, address)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
    try:
        return await answer(reader)
    finally:
        writer.close()


async def greeting(reader: asyncio.StreamReader) -> bytes:
    """What a telnet connection is told first: up to its Name: prompt, or all of it up to
    the close (a refusal)."""
    data = b""
    async with asyncio.timeout(10):
        while b"Name:" not in data:
            chunk = await reader.read(65536)
            if not chunk:
                break
            data += chunk
    return data


async def a_live_game(parlor: Parlor) -> int:
    """A game of the test game between two computer accounts, waiting for its first move
    (computers in tests move only when told)."""
    seats = []
    for name in ("Ada", "Bo"):
        account = await parlor.accounts.create(name, "", computer=True)
        seats.append(Seat(account.id, account.name))
    game = await parlor.host.start_game("ttt", tuple(seats), {})
    return game.id


# -- one budget of descriptors, a cap per address, silent connections ---------------------------
# The parlor's own web connections (``[web] front = false``, the HTTPS port, and what the
# front hands over) share its budget of descriptors with telnet; the front's bounds on
# the connections it holds itself are tested in tests/web/test_web_front.py.
IN_PARLOR = {"front": False}


async def test_web_connections_count_in_the_telnet_budget(sqlite_url):
    """Silent web connections (from many addresses) fill the budget the telnet door counts
    too, up to the web door's share of it; telnet keeps the rest."""
    async with running(sqlite_url, server={"max_connections": 8},
                       web={"request_timeout": 60.0, **IN_PARLOR}) as (parlor, door):
        held = [await open_from(door.port, f"127.0.1.{i}") for i in range(1, 11)]
        await until(lambda: parlor.counter["open"] == 6, "six web connections counted")
        telnet = [await open_from(parlor.port, "127.0.2.1") for _ in range(3)]
        first = [await greeting(r) for r, _ in telnet]
        assert sum(b"Name:" in text for text in first) == 2   # the telnet door's quarter
        assert sum(b"full" in text for text in first) == 1    # then the parlor is full
        for _, writer in held + telnet:
            writer.close()
        await until(lambda: parlor.counter["open"] == 0, "every connection released")


async def test_a_request_evicts_the_oldest_silent_connection_when_the_door_is_full(sqlite_url):
    async with running(sqlite_url, server={"max_connections": 8},
                       web={"request_timeout": 60.0, **IN_PARLOR}) as (parlor, door):
        oldest = await open_from(door.port, "127.0.1.1")
        held = [await open_from(door.port, f"127.0.1.{i}") for i in range(2, 7)]
        await until(lambda: parlor.counter["open"] == 6, "the web door's share is taken")
        page = await get(door.port, "/api/who", "127.0.3.1")
        assert page.startswith(b"HTTP/1.1 200")
        assert (await answer(oldest[0], 10)) == b""   # closed, to make room
        for _, writer in [oldest, *held]:
            writer.close()


async def test_web_connections_per_address_are_capped(sqlite_url):
    async with running(sqlite_url, web={"max_connections_per_address": 3,
                                        "request_timeout": 60.0}) as (parlor, door):
        held = [await open_from(door.port, "127.0.4.1") for _ in range(3)]
        reader, writer = await open_from(door.port, "127.0.4.1")
        refused = await answer(reader, 10)
        assert refused.startswith(b"HTTP/1.1 503") and b"from your address" in refused
        writer.close()
        assert (await get(door.port, "/api/who", "127.0.4.2")).startswith(b"HTTP/1.1 200")
        for _, w in held:
            w.close()


async def test_a_trusted_proxy_is_not_capped_per_address(sqlite_url):
    async with running(sqlite_url, web={"max_connections_per_address": 2,
                                        "trusted_proxies": ("127.0.5.0/24",),
                                        "request_timeout": 60.0, **IN_PARLOR}) as (parlor, door):
        held = [await open_from(door.port, "127.0.5.1") for _ in range(4)]
        await until(lambda: parlor.counter["open"] == 4, "the proxy's four connections")
        for _, writer in held:
            writer.close()


@pytest.mark.parametrize("front", [True, False], ids=["front", "in-parlor"])
async def test_a_web_connection_that_sends_nothing_is_closed(sqlite_url, front):
    async with running(sqlite_url, web={"request_timeout": 0.3, "front": front}) as (parlor, door):
        reader, writer = await open_from(door.port, "127.0.0.1")
        assert await answer(reader, 10) == b""    # closed, and told nothing
        writer.close()
        await until(lambda: parlor.counter["open"] == 0, "the silent connection released")


async def test_play_is_counted_once_in_the_budget(sqlite_url):
    async with running(sqlite_url) as (parlor, door):
        player = await WsPlayer.connect(door.url.replace("http://", "ws://") + "play/ws")
        await player.expect("Name: ")
        assert parlor.counter["open"] == 1
        await player.close()
        await until(lambda: parlor.counter["open"] == 0, "the browser's connection released")


# -- live-board streams ---------------------------------------------------------------------------
async def read_event(reader: asyncio.StreamReader, kind: str) -> dict:
    """The data of the next server-sent event of ``kind`` (within 10 s)."""
    async with asyncio.timeout(10):
        while True:
            line = await reader.readline()
            if not line:
                raise AssertionError(f"the stream ended before an {kind!r} event")
            if line.strip() == f"event: {kind}".encode():
                return json.loads((await reader.readline())[6:])


async def test_a_stream_of_a_game_that_does_not_change_ends(sqlite_url):
    async with running(sqlite_url, web={"stream_idle": 0.5}) as (parlor, door):
        number = await a_live_game(parlor)
        reader, writer = await open_from(door.port, "127.0.0.1")
        writer.write(f"GET /games/{number}/events HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        await read_event(reader, "update")
        assert (await read_event(reader, "end"))["reason"] == "idle"
        writer.close()
        await until(lambda: not door.streams, "the stream forgotten")


async def test_live_streams_are_bounded_in_total(sqlite_url):
    async with running(sqlite_url, web={"max_streams": 2}) as (parlor, door):
        number = await a_live_game(parlor)
        streams = []
        for _ in range(2):
            reader, writer = await open_from(door.port, "127.0.0.1")
            writer.write(f"GET /games/{number}/events HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            await read_event(reader, "update")
            streams.append(writer)
        third = await get(door.port, f"/games/{number}/events")
        assert third.startswith(b"HTTP/1.1 503") and b"live" in third
        assert (await get(door.port, "/games")).startswith(b"HTTP/1.1 200")
        for writer in streams:
            writer.close()


# -- what a request may hold ----------------------------------------------------------------------
async def test_unicode_digits_and_huge_numbers_are_refused_not_500(sqlite_url):
    async with running(sqlite_url) as (parlor, door):
        number = await a_live_game(parlor)
        paths = [f"/games/{number}/replay?move={quote(d)}" for d in UNICODE_DIGITS]
        paths += [f"/api/games/{number}/replay?move={quote(d)}" for d in UNICODE_DIGITS]
        paths += [f"{p}/{HUGE}{rest}" for p in ("/games", "/api/games")
                  for rest in ("", "/replay", "/events")]
        paths += [f"/games/{quote(d)}" for d in UNICODE_DIGITS]
        for path in paths:
            status = (await get(door.port, path))[9:12]
            assert status in (b"400", b"404"), (path[:60], status)


async def handshake(port: int, host: str, origin: str | None) -> bytes:
    """A WebSocket handshake for /play naming ``host`` and ``origin``: the status line."""
    reader, writer = await open_from(port, "127.0.0.1")
    head = (f"GET /play/ws HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: telnet.mudstandards.org\r\n")
    if origin is not None:
        head += f"Origin: {origin}\r\n"
    writer.write(head.encode() + b"\r\n")
    try:
        async with asyncio.timeout(10):
            return (await reader.readline()).strip()
    finally:
        writer.close()


async def test_play_refuses_a_foreign_host_dns_rebinding(sqlite_url):
    async with running(sqlite_url) as (parlor, door):
        port = door.port
        rebound = await handshake(port, f"evil.example:{port}", f"http://evil.example:{port}")
        assert rebound.startswith(b"HTTP/1.1 403"), rebound
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"):
            ok = await handshake(port, host, f"http://{host}")
            assert ok.startswith(b"HTTP/1.1 101"), (host, ok)
        assert (await handshake(port, "evil.example", None)).startswith(b"HTTP/1.1 403")


async def test_play_accepts_the_hosts_it_is_told_of(sqlite_url):
    async with running(sqlite_url, web={"hosts": ("games.example.org",),
                                        "origins": ("https://www.example.org",)}) as (_, door):
        for host, origin in (("games.example.org", "https://games.example.org"),
                             ("www.example.org", "https://www.example.org")):
            ok = await handshake(door.port, host, origin)
            assert ok.startswith(b"HTTP/1.1 101"), (host, ok)


# -- fuzz: no 500 anywhere ------------------------------------------------------------------------
class DoorThread:
    """A parlor and its web door in an event loop of their own, on a thread, so that a
    synchronous hypothesis test can ask them (and shrink what it finds)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.parlor: Parlor | None = None
        self.door: WebDoor | None = None
        self.games: list[int] = []

    def call(self, coro):  # noqa: ANN001, ANN201
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(60)

    async def _start(self) -> None:
        self.parlor = assemble(make_config(self.url))
        await self.parlor.start()
        self.door = WebDoor(self.parlor, host="127.0.0.1", port=0)
        await self.door.start()
        accounts = [await self.parlor.accounts.create(n, "", computer=True) for n in ("Ada", "Bo")]
        seats = tuple(Seat(a.id, a.name) for a in accounts)
        finished = await self.parlor.host.start_game("ttt", seats, {"ranked": True})
        for seat, cell in ((0, 1), (1, 4), (0, 2), (1, 5), (0, 3)):
            await self.parlor.host.act_text(seats[seat].account_id, "ttt", f"PLAY {cell}")
        live = await self.parlor.host.start_game("ttt", seats, {})
        self.games = [finished.id, live.id]

    def __enter__(self) -> "DoorThread":
        self.thread.start()
        self.call(self._start())
        return self

    def __exit__(self, *exc: object) -> None:
        self.call(self.parlor.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def door_thread(request, tmp_path_factory):
    """A door on SQLite and one on PostgreSQL (which refuses what SQLite takes, a NUL)."""
    if request.param == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('fuzz')}/esterport.db"
    else:
        url = asyncio.run(request.getfixturevalue("postgres").new_database())
    with DoorThread(url) as running_door:
        yield running_door


TEMPLATES = ("/", "/play", "/play/ws", "/games", "/games/{}", "/games/{}/events",
             "/games/{}/replay", "/rankings", "/rankings/{}", "/players/{}", "/pyramid/top10",
             "/api/who", "/api/games", "/api/games/{}", "/api/games/{}/replay",
             "/api/rankings/{}", "/api/players/{}", "/api/pyramid/top10", "/static/{}",
             "/seeks", "/seeks/events", "/api/seeks", "/tournaments", "/tournaments/events",
             "/tournaments/{}", "/tournaments/{}/events", "/api/tournaments",
             "/api/tournaments/{}",
             "/{}", "/api/{}", "/games/{}/{}", "/{}/{}/{}")
def numbers(games: list[int]) -> st.SearchStrategy[str]:
    """What may stand for a number in a path or a query: the games there are, small and
    large numbers, numbers of thousands of digits, Unicode digits (percent-encoded)."""
    return st.one_of(
        st.sampled_from([str(g) for g in games]),
        st.integers(-5, 10**6).map(str),
        st.sampled_from((2**31 - 1, 2**31, 2**63, 10**20)).map(str),
        st.one_of(st.sampled_from((4300, 4301, 6000)), st.integers(1, 5000)).map(lambda n: "9" * n),
        st.sampled_from(UNICODE_DIGITS).map(quote),
        st.lists(st.sampled_from(("1", "²", "0", "①", "+", "-", "_", " ", "٣")),
                 min_size=1, max_size=8).map(lambda s: quote("".join(s))))


WORDS = st.sampled_from(("dice", "ttt", "PYR", "Triad Dice", "Ada", "..", "%", "%zz", "%00",
                         "%ff", "%C2", "x%2F..%2Fy", "%2e%2e", "live.js", "%E2%80%AE"))


def segments(games: list[int]) -> st.SearchStrategy[str]:
    return st.one_of(numbers(games), WORDS, st.text(max_size=30).map(lambda t: quote(t, safe="")),
                     st.binary(max_size=20).map(lambda b: quote_from_bytes(b, safe="")))


def queries(games: list[int]) -> st.SearchStrategy[str]:
    return st.one_of(st.just(""), numbers(games).map(lambda n: f"move={n}"),
                     st.lists(st.tuples(st.sampled_from(("move", "x", "")), segments(games)),
                              max_size=3).map(lambda kv: "&".join(f"{k}={v}" for k, v in kv)),
                     st.binary(max_size=20).map(lambda b: quote_from_bytes(b, safe="=&")))


@st.composite
def targets(draw: st.DrawFn, games: list[int]) -> str:
    """A path of the door (or near one) and a query string."""
    template = draw(st.sampled_from(TEMPLATES))
    path = template.format(*(draw(segments(games)) for _ in range(template.count("{}"))))
    query = draw(queries(games))
    return f"{path}?{query}" if query else path


def status_of(port: int, target: str) -> int:
    """The status the door answers ``GET target`` (sent byte for byte as given)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     "Connection: close\r\n\r\n".encode())
        with sock.makefile("rb") as answer:   # the status line only: a live stream is left
            line = answer.readline()
    assert line.startswith(b"HTTP/1.1 "), (target, line)
    return int(line.split()[1])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fuzzed_routes_never_answer_500(door_thread, data):
    target = data.draw(targets(door_thread.games))
    assert status_of(door_thread.door.port, target) < 500, target[:200]
