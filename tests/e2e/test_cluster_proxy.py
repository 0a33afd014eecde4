"""A node behind HAProxy (issue 25): the PROXY protocol on the telnet port, X-Forwarded-For
on the web door, over real sockets.

A real parlor (telnet and web door) trusts 127.0.0.1 as its proxy. Raw sockets write
PROXY headers themselves (v1, v2, split, LOCAL, malformed, late, from an untrusted
address); then a HAProxy made from ``server/data/haproxy.cfg`` stands in front, and
players reach the node through it from 127.0.0.2 (loopback is all of 127/8): the node
must see 127.0.0.2, never HAProxy's 127.0.0.1. telnetlib3's client, Debian's telnet, an
HTTP client, a /play WebSocket and a live board's event stream all go through it.
"""

from __future__ import annotations

import asyncio
import logging
import re

import httpx
import pytest
import telnetlib3
from websockets.asyncio.client import connect as ws_connect

from commands.app import assemble
from server.proxy_protocol import v1, v2
from server.web import WebDoor
from tests.conftest import make_config, require_program
from tests.support.client import Client
from tests.support.teardown import cleanup
from tests.support.waits import until
# until tests/conftest.py loads the plugin (pytest_plugins), take its fixtures here
from tests.web.wsclient import SUBPROTOCOL, WsPlayer

PLAYER = "127.0.0.2"   # where players connect from (HAProxy itself is 127.0.0.1)


async def _node(url: str, proxies: tuple[str, ...], **server):
    config = make_config(url, trusted_proxies=proxies, **server)
    parlor = assemble(config)
    await parlor.start()
    assert parlor.telnet_protocol.proxies == config.server.trusted_proxies
    door = WebDoor(parlor, host="127.0.0.1", port=0)
    await door.start()
    return parlor, door


@pytest.fixture
async def node(sqlite_url):
    parlor, door = await _node(sqlite_url, ("127.0.0.1",), max_connections_per_address=2)
    yield parlor, door
    async with cleanup() as steps:  # the door stops first, as the parlor's before_stop
        await steps.run("stopping the parlor and its web door", parlor.stop(), 60)


class Raw:
    """A raw TCP client that writes what it likes (a PROXY header) and reads text."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer, self.seen = reader, writer, b""

    @classmethod
    async def connect(cls, port: int, first: bytes = b"") -> "Raw":
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        raw = cls(reader, writer)
        if first:
            writer.write(first)
        return raw

    def send(self, data: bytes) -> None:
        self.writer.write(data)

    async def expect(self, text: str, timeout: float = 5.0) -> str:
        async def reading() -> None:
            while text.encode() not in self.seen:
                chunk = await self.reader.read(4096)
                if not chunk:
                    raise AssertionError(f"closed before {text!r}: {self.seen[-500:]!r}")
                self.seen += chunk
        try:
            await asyncio.wait_for(reading(), timeout)
        except asyncio.TimeoutError:
            raise AssertionError(f"no {text!r} in {self.seen[-500:]!r}") from None
        return self.seen.decode("utf-8", "replace")

    async def closed(self, timeout: float = 8.0) -> bytes:
        """Wait for the server to close the connection; what it sent before."""
        async def reading() -> None:
            while chunk := await self.reader.read(4096):
                self.seen += chunk
        await asyncio.wait_for(reading(), timeout)
        return self.seen

    async def close(self) -> None:
        self.writer.close()


def addresses(parlor) -> list[str]:  # noqa: ANN001
    return sorted(s.address for s in parlor.connections)


# -- PROXY headers written by hand, straight to the node ---------------------------------
async def test_a_trusted_proxys_v1_header_names_the_player(node, caplog):
    parlor, _ = node
    caplog.set_level(logging.INFO)
    raw = await Raw.connect(parlor.port, v1(("10.1.2.3", 51000), ("10.0.0.1", 4000)))
    await raw.expect("Name: ")
    assert addresses(parlor) == ["10.1.2.3"]
    for line in (b"NEW\r\n", b"Proxied\r\n", b"secret\r\n", b"secret\r\n"):
        raw.send(line)
        await asyncio.sleep(0.05)
    await raw.expect("Exits:")
    assert "Proxied logged in from 10.1.2.3" in caplog.text
    assert [s.terminal.get_extra_info("proxy")[0] for s in parlor.connections] == ["127.0.0.1"]
    await raw.close()


async def test_the_per_address_cap_counts_the_player_not_the_proxy(node):
    parlor, _ = node   # max_connections_per_address = 2
    same = [await Raw.connect(parlor.port, v1(("10.1.2.3", 50000 + i), ("10.0.0.1", 4000)))
            for i in range(3)]
    third = await same[2].closed()
    assert b"Too many connections from your address (at most 2)." in third
    other = await Raw.connect(parlor.port, v2(("2001:db8::7", 4242), ("2001:db8::1", 4000)))
    await other.expect("Name: ")
    await same[0].expect("Name: ")
    assert addresses(parlor) == ["10.1.2.3", "10.1.2.3", "2001:db8::7"]
    for raw in (*same[:2], other):
        await raw.close()


async def test_a_header_split_across_segments_with_the_first_line_behind_it(node):
    parlor, _ = node
    header = v2(("10.9.8.7", 1234), ("10.0.0.1", 4000))
    raw = await Raw.connect(parlor.port)
    for i in range(len(header)):
        raw.send(header[i:i + 1])
        await raw.writer.drain()
        await asyncio.sleep(0.005)
    await raw.expect("Name: ")
    assert addresses(parlor) == ["10.9.8.7"]
    raw.send(b"Nobody\r\n")
    await raw.expect("Password: ")
    await raw.close()
    # and a header with telnet bytes in the same segment: they are the telnet stream
    raw = await Raw.connect(parlor.port, v1(("10.9.8.6", 1), ("10.0.0.1", 4000)) + b"QUIT\r\n")
    assert b"Goodbye." in await raw.closed()


async def test_local_health_checks_close_quietly(node, caplog):
    parlor, _ = node
    caplog.set_level(logging.DEBUG)
    raw = await Raw.connect(parlor.port, v2(None))
    assert await raw.closed() == b""   # not even telnet negotiation: telnet never started
    raw = await Raw.connect(parlor.port)   # a bare TCP check: connects, closes
    await raw.close()
    await until(lambda: parlor.counter["open"] == 0 and not parlor.connections,
                "every connection closed and uncounted")
    noisy = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert noisy == []


@pytest.mark.parametrize("first, why", [
    (b"NEW\r\n", "not a PROXY header"),
    (b"PROXY TCP4 10.1.2.3 10.0.0.1 99999 4000\r\n", "bad port"),
    (b"PROXY " + b"x" * 200, "PROXY line longer than 107 bytes"),
    (b"\xff\xfd\x18", "not a PROXY header"),
])
async def test_a_trusted_proxy_without_a_valid_header_is_cut(node, caplog, first, why):
    parlor, _ = node
    raw = await Raw.connect(parlor.port, first)
    assert await raw.closed() == b""
    assert f"closing 127.0.0.1: bad PROXY header from a trusted proxy: {why}" in caplog.text
    assert not parlor.connections and parlor.counter["open"] == 0


async def test_a_trusted_proxy_that_says_nothing_is_cut_after_a_while(node, caplog):
    parlor, _ = node
    parlor.telnet_protocol.proxy_wait = 0.3
    raw = await Raw.connect(parlor.port, b"PROXY TCP4 10.1")
    assert await raw.closed() == b""
    assert "closing 127.0.0.1: no PROXY header within 0.3 s" in caplog.text
    assert parlor.counter["open"] == 0


@pytest.mark.parametrize("header", [
    v1(("10.1.2.3", 51000), ("10.0.0.1", 4000)),
    v2(("10.1.2.3", 51000), ("10.0.0.1", 4000)),
], ids=["v1", "v2"])
async def test_from_an_untrusted_address_a_proxy_header_is_refused(sqlite_url, caplog, header):
    """A balancer left out of ``trusted_proxies``: its header used to be read as a name
    (v2's signature as empty lines and QUIT: "Name: Name: Name: Goodbye."); the
    connection is closed, with one line in the log saying why."""
    parlor, _ = await _node(sqlite_url, ("10.0.0.0/8",))   # 127.0.0.1 is not a proxy
    try:
        with caplog.at_level(logging.WARNING, logger="server.telnet"):
            raw = await Raw.connect(parlor.port, header + b"bob\r\n")
            seen = (await raw.closed()).decode("utf-8", "replace")
        assert "PROXY" not in seen and "Password" not in seen and "Goodbye" not in seen
        assert seen.count("Name:") <= 1
        assert [r.getMessage() for r in caplog.records if "trusted_proxies" in r.getMessage()] \
            == ["closing 127.0.0.1: sent a PROXY header but is not in [server] trusted_proxies"]
        await until(lambda: not parlor.connections)
    finally:
        await parlor.stop()


async def test_with_no_trusted_proxies_nothing_changes(sqlite_url):
    parlor, _ = await _node(sqlite_url, ())
    try:
        client = await Client.connect(parlor.port)
        await client.create("Plain")
        assert addresses(parlor) == ["127.0.0.1"]
        assert [s.terminal.get_extra_info("proxy") for s in parlor.connections] == [None]
        await client.close()
    finally:
        await parlor.stop()


async def test_a_browser_session_from_a_trusted_address_needs_no_header(node):
    parlor, door = node   # /play hands the telnet protocol a WebSocket, never a PROXY header
    player = await WsPlayer.connect(f"ws://127.0.0.1:{door.port}/play/ws")
    await player.create("Direct")
    assert addresses(parlor) == ["127.0.0.1"]
    await player.close()


# -- through a real HAProxy ---------------------------------------------------------------
@pytest.fixture
async def proxied(node, haproxy):  # noqa: F811
    parlor, door = node
    proxy = await asyncio.to_thread(haproxy, [f"127.0.0.1:{parlor.port}"],
                                    [f"127.0.0.1:{door.port}"])
    await asyncio.to_thread(proxy.wait_up)
    return parlor, door, proxy


async def _player(port: int) -> Client:
    reader, writer = await telnetlib3.open_connection(
        "127.0.0.1", port, local_addr=(PLAYER, 0), cols=250, rows=40, term="xterm",
        connect_minwait=0.05, connect_maxwait=0.5, encoding="utf8", force_binary=True)
    return Client(reader, writer)


async def test_telnet_players_through_haproxy_are_seen_at_their_address(proxied, caplog):
    parlor, _, proxy = proxied
    caplog.set_level(logging.INFO)
    alice = await (await _player(proxy.telnet_port)).create("Alice")
    bob = await (await _player(proxy.telnet_port)).create("Bob")
    assert addresses(parlor) == [PLAYER, PLAYER]
    ports = sorted(c.writer.get_extra_info("sockname")[1] for c in (alice, bob))
    assert sorted(s.terminal.get_extra_info("peername")[1] for s in parlor.connections) == ports
    assert f"Alice logged in from {PLAYER}" in caplog.text
    await alice.cmd("say through the proxy", 'You say, "through the proxy"')
    await bob.expect('Alice says, "through the proxy"')
    await alice.cmd("finger bob", "Bob")
    for client in (alice, bob):
        await client.close()


async def test_debian_telnet_through_haproxy(proxied):
    telnet = require_program("telnet")
    parlor, _, proxy = proxied

    def play() -> str:
        import pexpect

        child = pexpect.spawn(f"{telnet} -b {PLAYER} 127.0.0.1 {proxy.telnet_port}",
                              encoding="utf-8", timeout=10, dimensions=(40, 100))
        child.expect("Name: ")
        for ask, answer in (("Name: ", "NEW"), ("Choose a name: ", "Telly"),
                            ("Choose a password: ", "hunter22"), ("Type it again: ", "hunter22")):
            if ask != "Name: ":
                child.expect(ask)
            child.sendline(answer)
        child.expect("Exits:")
        seen = child.before
        child.sendline("quit")
        child.expect(pexpect.EOF)
        return seen

    play_task = asyncio.create_task(asyncio.to_thread(play))
    await until(lambda: parlor.connections, "a connection reached the parlor")
    assert addresses(parlor) == [PLAYER]
    assert "hunter22" not in await play_task


async def test_the_web_door_through_haproxy(proxied):
    parlor, door, proxy = proxied
    transport = httpx.AsyncHTTPTransport(local_address=PLAYER)
    async with httpx.AsyncClient(transport=transport, timeout=10) as web:
        page = await web.get(proxy.url("/"))
        assert page.status_code == 200 and "Esterport" in page.text
        who = await web.get(proxy.url("/api/who"))
        assert who.status_code == 200
    # /play: the telnet stream over a WebSocket, upgraded through HAProxy
    ws = await ws_connect(f"ws://127.0.0.1:{proxy.web_port}/play/ws", subprotocols=[SUBPROTOCOL],
                          max_size=1 << 22, open_timeout=10, local_addr=(PLAYER, 0))
    player = WsPlayer(ws, 100)
    await player.create("Webby")
    assert addresses(parlor) == [PLAYER]
    await player.cmd("say hello from a browser", 'You say, "hello from a browser"')
    await player.close()


async def test_a_live_board_streams_through_haproxy(proxied):
    parlor, _, proxy = proxied
    alice = await (await _player(proxy.telnet_port)).create("Alice")
    bob = await (await _player(proxy.telnet_port)).create("Bob")
    await alice.cmd("ttt challenge bob", "You challenge Bob")
    await bob.expect("Alice challenges you to Noughts and Crosses")
    started = await bob.cmd("ttt accept alice", r"Game #(\d+)")
    number = int(re.search(r"Game #(\d+)", started).group(1))
    async with httpx.AsyncClient(timeout=10) as web:
        async with web.stream("GET", proxy.url(f"/games/{number}/events")) as stream:
            assert stream.status_code == 200
            assert stream.headers["content-type"].startswith("text/event-stream")
            lines = stream.aiter_lines()

            async def next_event() -> str:
                async for line in lines:
                    if line.startswith("data: "):
                        return line
                return ""

            assert await asyncio.wait_for(next_event(), 10)
            # a move reaches the browser at once: HAProxy passes the stream unbuffered
            await alice.cmd("ttt play 5", "Alice: PLAY 5")
            assert "PLAY 5" in await asyncio.wait_for(next_event(), 5)
    for client in (alice, bob):
        await client.close()


async def test_haproxy_health_checks_keep_the_nodes_up_and_the_log_quiet(proxied, caplog):
    parlor, _, proxy = proxied
    caplog.set_level(logging.DEBUG)
    await asyncio.sleep(1.6)   # three rounds of checks, every 500 ms
    states = await asyncio.to_thread(proxy.states)
    assert states[("telnet_nodes", "node1")] == "UP L4OK"
    assert states[("web_nodes", "node1")] == "UP L7OK"
    assert not parlor.connections and parlor.counter["open"] == 0
    noisy = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert noisy == []
