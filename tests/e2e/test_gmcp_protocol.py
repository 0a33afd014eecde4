"""docs/gmcp.md is the GMCP contract a client relies on: a GMCP client plays each game and
every field it receives must be listed there, and every field listed as "always" must
arrive in every message. Core.Supports.Add and .Remove change what a client gets."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from server.presentation import GMCP_PROTOCOL
from tests.support.client import Client

DOC = Path(__file__).resolve().parents[2] / "docs" / "gmcp.md"


def documented() -> dict[str, dict[str, bool]]:
    """Each table of the page, by the heading above it: field name -> listed as always.
    A row naming several fields (`` `a`, `b` ``) lists each."""
    tables: dict[str, dict[str, bool]] = {}
    heading = ""
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        elif line.startswith("| `") and heading:
            cells = [c.strip() for c in line.strip("|").split("|")]
            for name in re.findall(r"`([a-z_]+)`", cells[0]):
                tables.setdefault(heading, {})[name] = cells[1] == "yes"
    return tables


def check(fields: dict[str, bool], messages: list[dict], what: str) -> None:
    assert messages, f"no {what} arrived"
    for data in messages:
        unlisted = set(data) - set(fields)
        assert not unlisted, f"{what} sends fields docs/gmcp.md does not list: {unlisted}"
        missing = {name for name, always in fields.items() if always} - set(data)
        assert not missing, f"{what} lacks fields docs/gmcp.md says always arrive: {missing}"


async def _settle(mud: Client, package: str, count: int) -> list[dict]:
    for _ in range(100):
        got = [d for p, d in mud.gmcp if p == package]
        if len(got) >= count:
            return got
        await asyncio.sleep(0.05)
    return [d for p, d in mud.gmcp if p == package]


async def test_every_game_message_is_as_documented(parlor):
    await parlor.load_default_data()  # Triptycha's collections and starter sets
    parlor.host.computer_delay = 0.0
    tables = documented()
    mud = await Client.connect_mud(parlor.port)
    mud.writer.send_gmcp("Core.Supports.Set", ["Char 1"])
    await mud.create("Mudder")
    mud.writer.send_gmcp("Core.Supports.Add", ["Esterport.Spoken 1"])
    await mud.cmd("dice challenge computer easy", "begins")
    await mud.cmd("dice resign", "wins")
    mud.writer.send_gmcp("Core.Supports.Remove", ["Esterport.Spoken"])
    await mud.cmd("tt challenge computer easy", "begins")
    await _settle(mud, "Triptycha.Game", 2)
    await mud.cmd("tt resign", "wins")
    await mud.cmd("pyr new", "your move")
    await mud.cmd("pyr resign", "over")
    await mud.cmd("triad open 10 seats 2 buyin 100", "table")
    await mud.cmd("triad bot 1 easy", "sits down")
    await mud.cmd("triad start", "Hand 1")
    await _settle(mud, "Triad.Game", 3)

    spoken = [d for p, d in mud.gmcp if p == "Dice.Game"]
    assert spoken and all("spoken" in d for d in spoken)          # added after Set
    assert not any("spoken" in d for p, d in mud.gmcp if p == "Triptycha.Game")  # removed
    assert any("clock" in d for p, d in mud.gmcp if p == "Triad.Game")
    envelope = tables["`<Game>.Game`: a game the player plays or watches"]
    views = {"Dice.Game": "`Dice.Game` view (Triad Dice)",
             "Triptycha.Game": "`Triptycha.Game` view", "Pyramid.Game": "`Pyramid.Game` view",
             "Triad.Game": "`Triad.Game` view"}
    for package, heading in views.items():
        messages = [d for p, d in mud.gmcp if p == package]
        check(envelope, messages, package)
        assert {d["protocol"] for d in messages} == {GMCP_PROTOCOL}
        check(tables[heading], [d["view"] for d in messages], f"{package}'s view")
    check(tables["`Room.Info`"], [d for p, d in mud.gmcp if p == "Room.Info"], "Room.Info")
    games = [d["game"] for p, d in mud.gmcp if p == "Char.Status" and d.get("game")]
    check(tables["`Char.Status`"], games, "Char.Status's game")
    await mud.close()
