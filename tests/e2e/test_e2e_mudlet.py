"""The Mudlet package (issue 41): offered at login to a client that agreed to GMCP
(``Client.GUI``), served by the web door, and, run as Mudlet runs it (its script under a
fake of Mudlet's API, fed the GMCP a real client received from a real game), a window
that draws the game, says whose move it is, and clears at the end, writing nothing to
the main window."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
import telnetlib3
from telnetlib3.telopt import GMCP

from server.mudlet import PATH
from tests.conftest import require_program
from tests.support.client import Client
from tests.support.mudlet import FakeMudlet, Report, package_script
from tests.web.conftest import door  # noqa: F401 - the web door fixture

pytestmark = pytest.mark.e2e

SUPPORTS = 'Core.Supports.Add ["Esterport.Board 1", "Esterport.Spoken 1"]'


async def _mudlet_client(port: int) -> Client:
    """A MUD client that, as Mudlet does once GMCP is on, says hello and what it takes."""
    mud = await Client.connect_mud(port)
    mud.writer.send_gmcp("Core.Hello", {"client": "Mudlet", "version": "4.19.1"})
    mud.writer.send_gmcp("Core.Supports.Set", ["Char 1", "Room 1", "External.Discord 1"])
    return mud


async def _gmcp(mud: Client, package: str, start: int = 0, within: float = 5.0):
    """The first ``package`` message from index ``start`` of what ``mud`` received."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while True:
        for p, d in mud.gmcp[start:]:
            if p == package:
                return d
        assert loop.time() < deadline, f"no {package}; got {[p for p, _ in mud.gmcp]}"
        await asyncio.sleep(0.02)


class Bridge:
    """The fake Mudlet beside a real client: what the client receives is fed to the
    script, and what the script sends goes to the server."""

    def __init__(self, mud: Client, fake: FakeMudlet) -> None:
        self.mud, self.fake, self.fed = mud, fake, 0

    def forward(self, report: Report) -> None:
        for message in report.sent:
            package, _, data = message.partition(" ")
            self.mud.writer.send_gmcp(package, json.loads(data) if data else None)

    async def pump(self) -> Report | None:
        """Feed what arrived since the last pump; the last report (None: nothing new)."""
        report = None
        while self.fed < len(self.mud.gmcp):
            package, data = self.mud.gmcp[self.fed]
            self.fed += 1
            report = await self.fake.gmcp(package, data)
            self.forward(report)
        return report

    async def until(self, wanted, within: float = 5.0) -> Report:
        """Pump until the window's report satisfies ``wanted``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within
        last = None
        while True:
            report = await self.pump()
            last = report or last
            if last is not None and wanted(last):
                return last
            assert loop.time() < deadline, f"the window never showed it: {last}"
            await asyncio.sleep(0.02)


async def test_mudlet_installs_the_offered_package_and_its_window_follows_the_game(
        parlor, door, clients, tmp_path):
    lua = require_program("lua5.1")
    mud = await _mudlet_client(parlor.port)
    fake = None
    try:
        await mud.create("Mudder")
        offer = await _gmcp(mud, "Client.GUI")
        url = f"http://127.0.0.1:{door.port}{PATH}"
        assert offer == {"version": door.mudlet.version, "url": url}
        assert [p for p, _ in mud.gmcp].count("Client.GUI") == 1
        # Mudlet downloads the package from that address: the very zip the door built
        async with httpx.AsyncClient(timeout=10) as http:
            got = await http.get(offer["url"])
        assert got.status_code == 200 and got.content == door.mudlet.data
        script = tmp_path / "esterport.lua"
        script.write_text(package_script(got.content), "utf-8")

        fake, loaded = await FakeMudlet.start(lua, script)
        bridge = Bridge(mud, fake)
        # installed mid-session: it asks for the boards at once, and shows no game yet
        assert loaded.sent == (SUPPORTS,) and loaded.text == ("No game in play.",)
        bridge.forward(loaded)
        bridge.fed = len(mud.gmcp)
        # a later connection: GMCP comes on, and it asks again
        again = await fake.event("sysProtocolEnabled", "GMCP")
        assert again.sent == (SUPPORTS,)
        bridge.forward(again)

        bob = await clients("Bob")
        await mud.cmd("ttt challenge bob", "You challenge Bob")
        bob.send("ttt accept mudder")
        shown = await bridge.until(lambda r: "Your move." in r.text)
        game = next(d for p, d in reversed(mud.gmcp) if p == "Ttt.Game")
        assert shown.title == f"Noughts and Crosses #{game['game']}"
        assert shown.text[:4] == (f"Noughts and Crosses #{game['game']}", "Mudder vs Bob",
                                  "Your move.", "")
        # the board as the game draws it, sent because the script asked for it
        assert shown.text[4:] == tuple(game["board"]) and " 1 | 2 | 3" in shown.text
        assert game["spoken"][0] == "Row 1: empty, empty, empty."

        await mud.cmd("ttt play 5", "PLAY 5")
        shown = await bridge.until(lambda r: "Bob to move." in r.text)
        assert " 4 | X | 6" in shown.text

        await mud.cmd("ttt resign", "wins")
        shown = await bridge.until(lambda r: r.text == ("No game in play.",))
        assert shown.title == "Esterport"
        # the main window was never written to: the text is the player's, whole
        assert fake.main == []
    finally:
        if fake is not None:
            await fake.close()
        await mud.close()


async def test_a_plain_telnet_client_is_offered_no_package(parlor, door):
    """A telnet client that refuses GMCP (telnetlib3's own takes it unless told not to)
    gets no GMCP at all, so no Client.GUI; what would have come is recorded."""
    heard: list = []

    class Plain(telnetlib3.TelnetClient):
        def connection_made(self, transport) -> None:  # noqa: ANN001
            super().connection_made(transport)
            self.writer.passive_do.discard(GMCP)
            self.writer.always_dont.add(GMCP)
            self.writer.set_ext_callback(GMCP, lambda package, data: heard.append(package))

    reader, writer = await telnetlib3.open_connection(
        "127.0.0.1", parlor.port, client_factory=Plain, cols=120, rows=40,
        connect_minwait=0.05, connect_maxwait=0.5, encoding="utf8", force_binary=True)
    plain = Client(reader, writer)
    try:
        await plain.create("Plain")
        await plain.cmd("look", "Exits:")
        await asyncio.sleep(0.2)
        assert heard == [] and "mpackage" not in plain.seen
    finally:
        await plain.close()


async def test_no_package_is_offered_without_a_web_door(parlor):
    mud = await _mudlet_client(parlor.port)
    try:
        await mud.create("Doorless")
        await _gmcp(mud, "Char.Status")
        await mud.cmd("look", "Exits:")
        assert "Client.GUI" not in [p for p, _ in mud.gmcp]
    finally:
        await mud.close()


async def test_core_supports_add_and_remove_change_what_a_client_takes(parlor):
    """Mudlet sends Core.Supports.Set itself; a package adds its own with Add (the
    Esterport package's Esterport.Board and Esterport.Spoken) and may Remove them."""
    mud = await _mudlet_client(parlor.port)
    try:
        await mud.create("Adder")
        session = parlor.online.named("Adder")
        # (telnetlib3's client sends a Set of its own when GMCP comes on: this one is last)
        mud.writer.send_gmcp("Core.Supports.Set", ["Char 1", "Room 1", "External.Discord 1"])
        mud.writer.send_gmcp("Core.Supports.Add", ["Esterport.Board 1", "Esterport.Spoken 1"])
        await mud.cmd("look", "Exits:")
        assert session.gmcp_supports == {"char", "room", "external.discord",
                                         "esterport.board", "esterport.spoken"}
        mud.writer.send_gmcp("Core.Supports.Remove", ["Esterport.Board"])
        await mud.cmd("look", "Exits:")
        assert session.gmcp_supports == {"char", "room", "external.discord",
                                         "esterport.spoken"}
    finally:
        await mud.close()


async def test_mudlet_gives_the_address_and_help_mudlet_what_it_shows(parlor, door, clients):
    player = await clients("Reader")
    out = await player.cmd("mudlet", "Package\\s+Manager")
    assert f"The Mudlet package: http://127.0.0.1:{door.port}{PATH}" in out
    out = await player.cmd("help mudlet", "install it by\\s+hand")
    assert "Usage: MUDLET" in out and "never hidden" in out
    await door.stop()
    await player.cmd("mudlet", "offers no Mudlet package")
