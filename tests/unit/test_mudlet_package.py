"""The Mudlet package as built from its source (server/mudlet.py, server/data/mudlet/):
a zip Mudlet installs, whose Lua is valid Lua 5.1 and whose window, run under a fake of
Mudlet's API, follows a game it watches; and where it is offered."""

from __future__ import annotations

import io
import re
import subprocess
import zipfile
from xml.etree import ElementTree

import pytest

from server.mudlet import NAME, PATH, MudletOffer, MudletPackage
from tests.conftest import require_program
from tests.support.mudlet import FakeMudlet, package_script

GAMES = ("Triad.Game", "Dice.Game", "Ttt.Game")


def test_the_package_is_a_zip_of_config_and_xml_as_mudlet_reads_it():
    package = MudletPackage.build(GAMES)
    archive = zipfile.ZipFile(io.BytesIO(package.data))
    # config.lua first, the XML (named after the package) last, nothing else
    assert archive.namelist() == ["config.lua", f"{NAME}.xml"]
    assert archive.testzip() is None
    config = archive.read("config.lua").decode("utf-8")
    assert re.search(r"^mpackage = \[\[(\w+)\]\]$", config, re.M).group(1) == NAME
    assert PATH.endswith(f"/{NAME}.mpackage")  # Mudlet names the package by the file
    root = ElementTree.fromstring(archive.read(f"{NAME}.xml"))
    assert root.tag == "MudletPackage" and root.get("version") == "1.001"
    scripts = list(root.iter("Script"))
    assert [s.findtext("name") for s in scripts] == ["Esterport board"]
    assert scripts[0].get("isActive") == "yes"
    # the script came in whole (escaped in the XML, read back as it was), with this
    # parlor's game packages written in; nothing that hides or rewrites the main text
    script = scripts[0].findtext("script")
    assert 'E.packages = {"Dice.Game", "Triad.Game", "Ttt.Game"}' in script
    assert "registerAnonymousEventHandler" in script
    for hiding in ("deleteLine", "Trigger", "selectString", "replace(", "moveCursor"):
        assert hiding not in script
    assert list(root.iter("Trigger")) == [] and list(root.iter("Alias")) == []


def test_the_same_source_builds_the_same_bytes_and_another_game_a_new_version():
    first, again = MudletPackage.build(GAMES), MudletPackage.build(reversed(GAMES))
    assert first.data == again.data and first.version == again.version
    more = MudletPackage.build((*GAMES, "Pyramid.Game"))
    assert more.version != first.version and len(first.version) == 12


def test_a_package_name_that_is_not_gmcp_is_refused():
    with pytest.raises(ValueError, match="is not a GMCP package name"):
        MudletPackage.build(['Dice.Game"}; os.exit() --'])


def test_the_lua_is_valid_lua_5_1(tmp_path):
    luac = require_program("luac5.1")
    package = MudletPackage.build(GAMES)
    archive = zipfile.ZipFile(io.BytesIO(package.data))
    for name, text in (("config.lua", archive.read("config.lua").decode()),
                       ("script.lua", package_script(package.data))):
        path = tmp_path / name
        path.write_text(text, "utf-8")
        done = subprocess.run([luac, "-p", str(path)], capture_output=True, text=True,
                              timeout=30)
        assert done.returncode == 0, done.stderr


def _watched(game: int, to_move: list[int], finished: bool = False) -> dict:
    return {"game": game, "title": "Triad Dice", "version": 3, "seat": None,
            "players": ["Ann", "Bob"], "to_move": to_move, "finished": finished,
            "result": "Ann wins." if finished else None, "view": {},
            "spoken": ["Ann has 3 dice left.", "Bob has 2."]}


async def test_a_watched_game_is_drawn_in_words_while_the_player_plays_none(tmp_path):
    lua = require_program("lua5.1")
    script = tmp_path / "script.lua"
    script.write_text(package_script(MudletPackage.build(GAMES).data), "utf-8")
    fake, loaded = await FakeMudlet.start(lua, script)
    try:
        assert loaded.text == ("No game in play.",)
        status = await fake.gmcp("Char.Status", {"room": "plaza", "area": "Esterport",
                                                 "game": None})
        assert status.text == ("No game in play.",)
        shown = await fake.gmcp("Dice.Game", _watched(7, [1]))
        assert shown.title == "Triad Dice #7"
        assert shown.text == ("Triad Dice #7", "Ann vs Bob", "Bob to move.", "",
                              "Ann has 3 dice left.", "Bob has 2.")
        # another game's package, not one this parlor listed: not heard
        other = await fake.gmcp("Chess.Game", _watched(8, [0]))
        assert other.text == shown.text
        # a room's Char.Status leaves the game alone; the end clears the window
        moved = await fake.gmcp("Char.Status", {"room": "hall", "area": "Esterport",
                                                "game": None})
        assert moved.text == shown.text
        ended = await fake.gmcp("Dice.Game", _watched(7, [], finished=True))
        assert ended.text == ("No game in play.",) and ended.title == "Esterport"
        assert fake.main == []
    finally:
        await fake.close()


@pytest.mark.parametrize("offer, reached, url", [
    # [web] hosts names the server: that name, whatever the player reached
    (MudletOffer("v1", "0.0.0.0", 8080, "http://games.example.org:8080"), ("10.0.0.1", 4000),
     "http://games.example.org:8080" + PATH),
    (MudletOffer("v1", "0.0.0.0", 8080, "https://games.example.org:8443"), None, None),
    # a door on every address: the address the player's connection reached
    (MudletOffer("v1", "0.0.0.0", 8080), ("192.0.2.7", 4000), "http://192.0.2.7:8080" + PATH),
    (MudletOffer("v1", "::", 8080), ("2001:db8::7", 4000, 0, 0),
     "http://[2001:db8::7]:8080" + PATH),
    # a door on this machine only: offered to a player on this machine, to no other
    (MudletOffer("v1", "127.0.0.1", 8080), ("127.0.0.1", 4000), "http://127.0.0.1:8080" + PATH),
    (MudletOffer("v1", "127.0.0.1", 8080), ("192.0.2.7", 4000), None),
    # a door on one address: that address
    (MudletOffer("v1", "192.0.2.9", 8080), ("10.0.0.1", 4000), "http://192.0.2.9:8080" + PATH),
    # no socket address (a browser's /play): nothing
    (MudletOffer("v1", "0.0.0.0", 8080), None, None),
])
def test_where_the_package_is_offered(offer, reached, url):
    assert offer.url(reached) == url
    assert offer.gmcp(reached) == (None if url is None else {"version": "v1", "url": url})
