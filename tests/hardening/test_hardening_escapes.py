"""Escape injection: nothing another player sees can drive their terminal, whatever
field it came through (typed text, names and descriptions from an admin's data file)."""

from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st

from server.text import clean
from tests.hardening.harness import Harness, unsafe, unsafe_json

SOAK = os.environ.get("ESTERPORT_SOAK") == "1"

PIECES = ["\x1b", "[", "]", "0;", "2J", "31m", "\x07", "\x9b", "\x9d", "\x9c", "\x1b\\",
          "P", "^", "_", "X", "\u202e", "\u2066", "\u200f", "\x00", "\x7f", "\r", "\n",
          "\t", "\u2028", "\x85", "a", "é", "\U0001f600", ";", "?", "1"]


@settings(max_examples=2000 if SOAK else 300, deadline=None, database=None)
@given(st.one_of(st.text(), st.lists(st.sampled_from(PIECES), max_size=30).map("".join)))
def test_clean_leaves_nothing_that_drives_a_terminal(text):
    out = clean(text)
    assert unsafe(out) == [] and "\x1b" not in out and "\x07" not in out, repr(out)


HOSTILE_SEED = '''
[[collections]]
name = "Evil\\u001b[2J\\u001b]0;pwned\\u0007 Set"
description = "desc \\u001b[31mred\\u009b1m \\u202eflip\\u0000"
price = 10
disc_size = [5, 5]
tiles = [
  { name = "a \\u001b]8;;http://x\\u001b\\\\link\\u001b]8;;\\u001b\\\\ tile", rarity = "common", corners = [1, 2, 3], primary = 4 },
  { name = "a \\u009d0;title\\u009c tile\\u2066", rarity = "common", corners = [3, 2, 1], primary = 5 },
  { name = "a bell\\u0007 tile", rarity = "rare", corners = [9, 9, 9], primary = 9 },
]
'''


async def test_tile_and_collection_names_from_an_admin_file_are_cleaned(harness, tmp_path):
    h: Harness = harness
    if "tt" not in h.parlor.host.kinds:
        return
    path = tmp_path / "evil.toml"
    path.write_text(HOSTILE_SEED)
    await h.parlor.seed([path])
    alice = await h.player("Alice")
    bob = await h.player("Bob", address="10.0.0.2")
    root = await h.player("Root", admin=True, address="10.0.0.9")
    seen = []
    out = await root.cmd("@collection")
    seen.append(out)
    name = next(line.split("  ")[0] for line in out.splitlines() if line.startswith("Evil"))
    seen.append(await root.cmd(f"@grant disc alice {name}"))
    seen.append(await alice.cmd("north"))
    seen.append(await alice.cmd("list"))
    seen.append(await alice.cmd("itd inventory"))
    seen.append(await alice.cmd("break disc"))
    seen.append(await alice.cmd("itd"))
    tiles = [line.split()[0] for line in seen[-1].splitlines() if line.startswith("#")]
    for tile in tiles:
        seen.append(await alice.cmd(f"itd show {tile}"))
    seen.append(await alice.cmd(f"outtd {tiles[-1]}"))
    seen.append(await alice.cmd(f"give {tiles[-1]} to bob"))
    seen.append(bob.new_output())
    seen.append(await bob.cmd("itd inventory"))
    seen.append(await alice.cmd("tt challenge bob"))
    seen.append(await bob.cmd("tt accept alice"))
    seen.append(await alice.cmd("tt"))
    seen.append(alice.new_output() + bob.new_output())
    text = "\n".join(seen).replace("\xff\xf9", "")
    assert "Evil" in text and "tile" in text
    assert "pwned" not in text  # an OSC title string goes whole, its text with it
    assert "Evil Set" in text and "desc red" in text
    assert unsafe(text.replace("\x07", "")) == [], unsafe(text)
    assert "\x07 tile" not in text and "bell\x07" not in text
    for player in (alice, bob, root):
        for package, data in player.new_gmcp():
            assert unsafe_json(data) == [], package
