"""Lines typed ahead (several in one packet, or during a restart's gap) were typed
before the prompts drawn since: their answers never start on a prompt's line."""

from __future__ import annotations

import re

from tests.support.client import ANSI


async def test_an_answer_to_a_line_typed_ahead_starts_on_its_own_line(parlor, clients):
    alice = await clients("Alice")
    await alice.cmd("set color off", "Color is now OFF")
    alice.writer.write("look\r\nlook\r\nwho\r\n")   # one packet: typed before any answer
    out = await alice.expect(r"(?s)The Plaza.*The Plaza.*Alice.*> ")
    out = ANSI.sub("", out)
    assert out.count("A wide square of pale ester-stone") == 2
    # (the first answer follows the prompt its line was typed at, which the player's own
    # client moved past); the answers to the lines typed ahead never begin on a prompt's line
    ahead = out.split("A wide square of pale ester-stone", 1)[1]
    assert not re.search(r"> +\S", ahead), ahead
