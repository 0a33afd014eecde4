"""Secure connections (issue 41): telnet over TLS on ``[server] tls_port`` and the web
door over HTTPS on ``[web] tls_port``, with the clients a player would use: ``openssl
s_client``, TinTin++'s ``#ssl`` in tmux, and Chromium; a certificate or key that cannot
serve is refused in one line; a held parlor's TLS players, telnet and /play over
HTTPS, stay connected through a reload and a crash of the parlor (the holder ends TLS).

The certificate is self-signed, made here by ``openssl req`` (CN localhost, two days).
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path

import attrs
import httpx
import pexpect
import pytest
import telnetlib3

from commands.app import assemble
from server.holder.process import serving_parlor
from server.config import WebSection
from server.web import WebDoor
from tests.conftest import (make_config, require_program, start_server, stop_process,
                            write_config)
from tests.e2e.test_restarts import Held
from tests.e2e.test_web_browser import browser, screen_has, type_line  # noqa: F401 (a fixture)
from tests.support.client import Client
from tests.support.teardown import cleanup
from tests.support.tmux import Screen

pytestmark = pytest.mark.e2e


@attrs.frozen
class Pair:
    certificate: Path
    key: Path


def make_pair(where: Path, name: str) -> Pair:
    openssl = require_program("openssl")
    pair = Pair(where / f"{name}.crt", where / f"{name}.key")
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                    "-subj", "/CN=localhost", "-days", "2",
                    "-keyout", str(pair.key), "-out", str(pair.certificate)],
                   check=True, capture_output=True, timeout=60)
    return pair


@pytest.fixture(scope="module")
def pairs(tmp_path_factory) -> tuple[Pair, Pair]:
    """Two self-signed certificates with their keys (the second: a key of another)."""
    where = tmp_path_factory.mktemp("tls")
    return make_pair(where, "parlor"), make_pair(where, "other")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tls_config(tmp_path: Path, certificate: Path | str, key: Path | str = "", *,
               https: int = 0, more: str = "") -> tuple[str, int]:
    """``write_config``'s file with a TLS telnet port (and an HTTPS one when ``https``);
    the file and the TLS port."""
    port = free_port()
    path = Path(write_config(tmp_path))
    text = path.read_text().replace("[server]\n", (
        f'[server]\ntls_port = {port}\ntls_certificate = "{certificate}"\n'
        f'tls_key = "{key}"\n{more}'), 1)
    if https:
        text = text.replace("[web]\n", f"[web]\ntls_port = {https}\n", 1)
    path.write_text(text)
    return str(path), port


def s_client(port: int) -> pexpect.spawn:
    """``openssl s_client`` as a player's terminal: it prints what the server says
    (telnet's option bytes included) and sends each line typed."""
    openssl = require_program("openssl")
    return pexpect.spawn(f"{openssl} s_client -connect 127.0.0.1:{port} -quiet",
                         encoding="utf-8", codec_errors="replace", timeout=15,
                         dimensions=(40, 100))


def new_account(term: pexpect.spawn, name: str, password: str) -> None:
    term.expect("Name: ")
    term.sendline("NEW")
    term.expect("Choose a name: ")
    term.sendline(name)
    term.expect("Choose a password: ")
    term.sendline(password)
    term.expect("Type it again: ")
    term.sendline(password)
    term.expect(f"Welcome, {name}!")
    term.expect("Exits:")


def logged(log: list[str], text: str, within: float = 15.0) -> None:
    """Wait until a line of the parlor's ``log`` (read by another thread) says ``text``:
    a player may be welcomed before the parlor logs the login."""
    deadline = time.monotonic() + within
    while not any(text in line for line in log):
        assert time.monotonic() < deadline, "".join(log)
        time.sleep(0.05)


@pytest.fixture
def tls_server(tmp_path, pairs):
    """``esterport serve`` with a TLS telnet port: (plain port, TLS port)."""
    config, tls_port = tls_config(tmp_path, pairs[0].certificate, pairs[0].key)
    proc, port = start_server(config)
    yield port, tls_port
    stop_process(proc)


def test_openssl_s_client_makes_an_account_beside_a_plain_telnet_player(tls_server):
    """A player over TLS makes an account and talks with one on the plain port: one
    parlor, two doors. The TLS port answers no clear text to a client that speaks none."""
    port, tls_port = tls_server
    with socket.create_connection(("127.0.0.1", tls_port), timeout=10) as raw:
        raw.sendall(b"NEW\r\n")      # what a plain telnet client would send
        raw.settimeout(10)
        heard = b""
        try:
            while chunk := raw.recv(4096):
                heard += chunk
        except (ConnectionResetError, TimeoutError):
            pass
    assert b"Name" not in heard and b"Esterport" not in heard, heard

    secure = s_client(tls_port)
    new_account(secure, "Tess", "hunter22")
    assert "hunter22" not in secure.before
    plain = pexpect.spawn(f"{require_program('telnet')} 127.0.0.1 {port}", encoding="utf-8",
                          timeout=15, dimensions=(40, 100))
    new_account(plain, "Pat", "sesame1")
    secure.sendline("say hello over TLS")
    secure.expect('You say, "hello over TLS"')
    plain.expect('Tess says, "hello over TLS"')
    plain.sendline("who")
    plain.expect("2 players connected")
    secure.sendline("quit")
    secure.expect("Goodbye")
    secure.expect(pexpect.EOF)
    plain.sendline("quit")
    plain.expect(pexpect.EOF)


def test_tintin_connects_with_ssl_and_logs_in(tls_server, tmp_path):
    """TinTin++'s ``#ssl``, as a player types it: a new account, then a login. (TinTin++
    keeps each server's certificate under ``$HOME/.tintin/ssl``: here, the test's.)"""
    tintin = require_program("tt++")
    _, tls_port = tls_server
    screen = Screen(f"env HOME={tmp_path} {tintin} -e '#ssl esterport 127.0.0.1 {tls_port}'",
                    cols=100, rows=30)
    try:
        screen.wait_for("Name:", timeout=20)
        for line in ("NEW", "Tinny", "tintin1", "tintin1"):
            screen.type(line)
            time.sleep(0.3)
        screen.wait_for("Welcome, Tinny!", timeout=20)
        screen.type("quit")
        screen.wait_for("Goodbye", timeout=20)
        screen.type("#ssl again 127.0.0.1 " + str(tls_port))
        screen.wait_for("#SESSION 'again' CONNECTED", timeout=20)
        screen.type("Tinny")
        time.sleep(0.3)
        screen.type("tintin1")
        lines = screen.wait_for("Exits:", timeout=20)
        assert not any("tintin1" in line for line in lines)  # the password never shows
        screen.type("finger")
        screen.wait_for("Cubits: 1000", timeout=20)
    finally:
        screen.close()


@pytest.mark.parametrize("case, expected", [
    ("missing", "tls_certificate {dir}/nowhere.crt: No such file or directory"),
    ("not a certificate", "tls_certificate {key} is not a PEM certificate"),
    ("another's key", "tls_key {other_key} is not the key of the certificate in {cert}"),
])
def test_a_certificate_that_cannot_serve_is_refused_in_one_line(tmp_path, pairs, case,
                                                                 expected):
    mine, other = pairs
    cert, key = {"missing": (tmp_path / "nowhere.crt", mine.key),
                 "not a certificate": (mine.key, mine.key),
                 "another's key": (mine.certificate, other.key)}[case]
    config, _ = tls_config(tmp_path, cert, key)
    done = subprocess.run([sys.executable, "-m", "commands.app", "serve", "--config", config],
                          capture_output=True, text=True, timeout=60, cwd=os.getcwd())
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("esterport: config: [server] "), done.stderr
    assert expected.format(dir=tmp_path, key=mine.key, other_key=other.key,
                           cert=mine.certificate) in done.stderr


def test_a_held_https_port_that_is_taken_is_said_in_one_line_and_leaves_nothing(
        tmp_path, pairs):
    """The holder opens both TLS ports before it starts a parlor: when the second is
    taken, it says so in one line, and the first relay's private folder is removed."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        config, _ = tls_config(tmp_path, pairs[0].certificate, pairs[0].key,
                               https=taken.getsockname()[1])
        temp = tmp_path / "temp"
        temp.mkdir()
        done = subprocess.run([sys.executable, "-m", "commands.app", "serve", "--hold",
                               "--config", config], capture_output=True, text=True,
                              timeout=60, cwd=os.getcwd(), env={**os.environ, "TMPDIR": str(temp)})
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("\n") == 1 and "esterport: cannot listen" in done.stderr, \
        done.stderr
    assert not list(temp.iterdir())


def test_a_held_parlors_tls_players_stay_through_a_reload_and_a_crash(tmp_path, pairs):
    """With ``--hold`` the holder makes the TLS handshake and relays the plain bytes to
    the parlor (server/holder/tls_relay.py): at a reload, and when the parlor is killed,
    a TLS player stays connected and carries on, as a plain telnet player does; the
    parlor knows the player's own address."""
    config, tls_port = tls_config(
        tmp_path, pairs[0].certificate, pairs[0].key,
        more=f'pid_file = "{tmp_path}/esterport.pid"\nhold_spare = false\n')
    held = Held(tmp_path, Path(config))
    proc, log, port = held.proc, held.log, held.port
    try:
        secure = s_client(tls_port)
        new_account(secure, "Tess", "hunter22")
        plain = pexpect.spawn(f"{require_program('telnet')} 127.0.0.1 {port}",
                              encoding="utf-8", timeout=15, dimensions=(40, 100))
        new_account(plain, "Pat", "sesame1")
        # her own address, told by the holder's PROXY line (a Unix socket's is empty)
        logged(log, "Tess logged in from 127.0.0.1")
        proc.send_signal(signal.SIGHUP)   # a reload
        secure.expect("The parlor has restarted; carry on.", timeout=60)
        plain.expect("The parlor has restarted; carry on.", timeout=60)
        secure.sendline("say through a reload")
        plain.expect('Tess says, "through a reload"', timeout=30)
        first = serving_parlor(proc.pid)
        assert first is not None
        os.kill(first, signal.SIGKILL)    # a crash: the spare or a new parlor takes over
        secure.expect("The parlor has restarted; carry on.", timeout=90)
        secure.sendline("say through a crash")
        plain.expect('Tess says, "through a crash"', timeout=30)
        secure.sendline("quit")
        secure.expect(pexpect.EOF)
        plain.sendline("quit")
        plain.expect(pexpect.EOF)
    finally:
        held.stop()


async def test_a_held_parlors_https_play_stays_through_a_reload_and_a_crash(tmp_path, pairs):
    """With ``--hold`` the holder also ends the web door's HTTPS (``[web] tls_port``) and
    relays it (server/holder/tls_relay.py): a browser's /play over wss stays connected
    through a reload and a kill -9 of the parlor, is told of each, and what it says in
    between is heard once; the parlor knows the browser's own address."""
    from tests.web.wsclient import WsPlayer

    https = free_port()
    config, _ = tls_config(tmp_path, pairs[0].certificate, pairs[0].key, https=https,
                           more=f'pid_file = "{tmp_path}/esterport.pid"\nhold_spare = false\n')
    # its pages served by the web door's front (the default), which reads the holder's relay
    held = await asyncio.to_thread(Held, tmp_path, Path(config))
    proc, log = held.proc, held.log

    async def told(player: Client | WsPlayer, text: str, times: int) -> None:
        deadline = time.monotonic() + 90
        while player.seen.count(text) < times:
            assert time.monotonic() < deadline, player.seen[-2000:] + "".join(log[-20:])
            await player.expect(text, timeout=max(1.0, deadline - time.monotonic()))

    wanda = listener = None
    try:
        assert any("HTTPS over TLS on port" in line for line in log), "".join(log)
        # its pages are served by the web door's front, which reads the holder's relay
        assert any("served by the front" in line for line in log), "".join(log)
        async with httpx.AsyncClient(verify=trusting(), timeout=10) as http:
            page = await http.get(f"https://127.0.0.1:{https}/api/who")
            assert page.status_code == 200 and page.json()["players"] == []
        wanda = await WsPlayer.connect(f"wss://127.0.0.1:{https}/play/ws", ssl=trusting())
        await wanda.create("Wanda")
        # her own address, told by the holder's PROXY line (a Unix socket's is empty)
        await asyncio.to_thread(logged, log, "Wanda logged in from 127.0.0.1")
        listener = await Client.connect(held.port)
        await listener.create("Lou")
        for number, stop in enumerate((signal.SIGHUP, signal.SIGKILL), 1):
            if stop == signal.SIGHUP:
                proc.send_signal(stop)    # a reload
            else:
                first = serving_parlor(proc.pid)
                assert first is not None
                os.kill(first, stop)      # a crash: a new parlor takes over
            await told(wanda, "The parlor has restarted; carry on.", number)
            wanda.send(f"say through {number}")
            await told(listener, f'Wanda says, "through {number}"', 1)
        assert not wanda.closed
        assert listener.seen.count('Wanda says, "through 1"') == 1
        await wanda.cmd("who", "Lou")
    finally:
        for player in (wanda, listener):
            if player is not None:
                await player.close()
        await asyncio.to_thread(held.stop)


async def test_chromium_on_a_held_https_door_stays_through_a_reload(tmp_path, pairs,
                                                                  browser):  # noqa: F811
    """Chromium on /play over the holder's HTTPS (its TLS ended in the holder, relayed
    to the parlor): through a reload its one wss socket stays open, the page says the
    parlor restarted, and the game it then types is answered."""
    https = free_port()
    config, _ = tls_config(tmp_path, pairs[0].certificate, pairs[0].key, https=https,
                           more=f'pid_file = "{tmp_path}/esterport.pid"\nhold_spare = false\n')
    held = await asyncio.to_thread(Held, tmp_path, Path(config))
    try:
        context = await browser.new_context(ignore_https_errors=True)
        page = await context.new_page()
        sockets: list[str] = []
        page.on("websocket", lambda ws: sockets.append(ws.url))
        await open_play_as_wanda(page, https)
        held.proc.send_signal(signal.SIGHUP)   # a reload
        await screen_has(page, "The parlor has restarted; carry on.")
        await type_line(page, "dice challenge computer easy")
        await screen_has(page, "Wanda vs Computer")
        assert len(sockets) == 1 and sockets[0].startswith("wss://"), sockets
        await context.close()
    finally:
        await asyncio.to_thread(held.stop)


async def open_play_as_wanda(page, port: int) -> None:  # noqa: ANN001
    """Open /play over https on ``port`` and make the account Wanda, as a player types it."""
    await page.goto(f"https://127.0.0.1:{port}/play")
    await screen_has(page, "Name: ")
    for line, then in (("new", "Choose a name: "), ("Wanda", "Choose a password: "),
                       ("hunter22", "Type it again: "), ("hunter22", "Welcome, Wanda!")):
        await type_line(page, line)
        await screen_has(page, then)


def trusting() -> ssl.SSLContext:
    """A client's context that takes any certificate (the test's own self-signed one)."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


async def tls_client(port: int) -> Client:
    """telnetlib3's client over TLS."""
    reader, writer = await telnetlib3.open_connection(
        "127.0.0.1", port, cols=120, rows=40, term="xterm", connect_minwait=0.05,
        connect_maxwait=0.5, encoding="utf8", force_binary=True, ssl=trusting())
    return Client(reader, writer)


async def heard_until_closed(port: int, within: float = 10.0) -> bytes:
    """Connect over TLS and read what the parlor says until it closes the connection."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=trusting())
    heard = b""
    try:
        async with asyncio.timeout(within):
            while chunk := await reader.read(4096):
                heard += chunk
    except (ConnectionError, ssl.SSLError):
        pass
    finally:
        writer.close()
    return heard


@pytest.fixture
async def secure_parlor(sqlite_url, pairs):
    """A parlor in this process with a TLS telnet port and a web door with HTTPS."""
    config = make_config(sqlite_url, tls_port=free_port(),
                         tls_certificate=str(pairs[0].certificate),
                         tls_key=str(pairs[0].key), max_connections_per_address=1)
    config = attrs.evolve(config, web=WebSection(port=0, tls_port=free_port()))
    parlor = assemble(config)
    await parlor.start()
    door = WebDoor(parlor, host="127.0.0.1", port=0)
    await door.start()
    yield parlor, door
    async with cleanup() as steps:
        await steps.run("stopping the parlor", parlor.stop(), 60)


async def test_the_tls_port_shares_the_plain_ports_caps(secure_parlor):
    """One connection an address (``max_connections_per_address = 1``) counts both
    ports: with one plain connection open, a TLS one from the same address is turned
    away, and is let in once the plain one is gone."""
    parlor, _ = secure_parlor
    tls_port = parlor.config.server.tls_port
    plain = await Client.connect(parlor.port)
    await plain.expect("Name: ")
    said = await heard_until_closed(tls_port)
    assert b"Too many connections from your address (at most 1)" in said, said
    await plain.close()
    for _ in range(100):  # the plain connection's end reaches the parlor
        if not parlor.connections:
            break
        await asyncio.sleep(0.05)
    secure = await tls_client(tls_port)
    await secure.create("Tess")
    session = parlor.online.named("Tess")
    assert session.terminal.get_extra_info("ssl_object").version() in ("TLSv1.2", "TLSv1.3")
    await secure.close()


async def test_chromium_plays_on_the_https_web_door(secure_parlor, browser):  # noqa: F811
    """The web door over HTTPS with the same certificate: Chromium (told to accept the
    self-signed certificate, as a player would click through) opens ``/play`` over
    https, its WebSocket over wss, and makes an account."""
    parlor, door = secure_parlor
    assert door.https_port == parlor.config.web.tls_port
    context = await browser.new_context(ignore_https_errors=True)
    page = await context.new_page()
    sockets: list[str] = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    await open_play_as_wanda(page, door.https_port)
    await screen_has(page, "The Plaza of Esterport")   # drawn once she is listed
    assert sockets and all(url.startswith("wss://") for url in sockets), sockets
    assert parlor.online.named("Wanda") is not None
    await context.close()
