"""The third attack campaign's findings about what players say: blank-looking padding
that forged a line of its own, and wide text measured once per listener."""

from __future__ import annotations

import asyncio

import pytest

import server.text
from tests.hardening.conftest import quiet_config
from tests.hardening.harness import Harness
from tests.support.client import Client
from commands.app import assemble
from tests.conftest import make_config

FAKE = "*** Esterport is shutting down now. Reconnect at evil.example ***"


@pytest.mark.parametrize("blank", ["\u2800", "\u115f", "\u3164", "\uffa0", "\u2800\u1160"])
async def test_blank_looking_padding_cannot_fake_a_line(sqlite_url, blank):
    """Characters that show as blanks but are not whitespace (the blank Braille pattern,
    the Hangul fillers) pushed an EMOTE's tail onto a line of its own at any width."""
    parlor = assemble(make_config(sqlite_url))
    await parlor.start()
    try:
        alice = await Client.connect(parlor.port, cols=80)
        await alice.create("Alice")
        bob = await Client.connect(parlor.port, cols=80)
        await bob.create("Bob")
        await alice.cmd("emote grins." + blank * 70 + FAKE, "grins.")
        seen = await bob.expect("evil.example")
        await asyncio.sleep(0.2)
        lines = (seen + bob.buffer).replace("\r", "").split("\n")
        assert not any(line.strip().startswith("***") for line in lines), lines
        assert "grins. *** Esterport" in seen
    finally:
        await parlor.stop()


async def test_wide_chat_is_measured_once_per_message_not_per_listener(sqlite_url, monkeypatch):
    """1,000 characters of non-ASCII CHAT to 100 listeners took 12-13 s of CPU in 20 s:
    every listener measured every character again. Count the measuring."""
    harness = await Harness.start(quiet_config(sqlite_url))
    try:
        talker = await harness.player("Talker")
        listeners = [await harness.player(f"Ear{i:02d}") for i in range(30)]
        for p in (talker, *listeners):
            p.new_output()
        measured = 0
        real = server.text.wcwidth

        def counting(ch: str) -> int:
            nonlocal measured
            measured += 1
            return real(ch)

        monkeypatch.setattr(server.text, "wcwidth", counting)
        server.text.wrap_wide_lines(server.text.paint(f"[chat] Talker: {'è' * 999}", "yellow"),
                                    80)  # what measuring one such message costs
        once, measured = measured, 0
        text = "é" * 999
        await talker.cmd(f"chat {text}")
        for p in listeners:
            assert text[:50] in p.new_output().replace("\r\n", "")
        # every listener has the same width: the text is measured once, not 30 times
        assert measured <= 1.5 * once, (measured, once)
    finally:
        await harness.stop()
