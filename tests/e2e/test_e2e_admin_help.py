"""HELP covers every command (issue 39, items 1 and 8), over real sockets.

Every word a player can type, walked from the command registry: each command of its own,
each word typed after another command (a game's prefix, TOURNEY, ITD), and each word typed
after SET has a HELP topic, and HELP's index (or, for a game's own words, HELP <game>,
which the index names) lists it. Admins have HELP ADMIN, and are pointed to it when they
log in; to anyone else HELP ADMIN is an unknown topic.
"""

from __future__ import annotations

import re

from commands import settings
from commands.basics import not_applying
from server.pacing import RateLimiter
from tests.support.client import ANSI, Client


async def reply(client: Client, line: str) -> str:
    client.send(line)
    return ANSI.sub("", (await client.expect(r"\n> ", 5.0)).replace("\r\n", "\n"))


def words_of(text: str) -> set[str]:
    return set(re.findall(r"[A-Z@+\-][A-Z0-9@]+", text))


async def test_every_command_a_player_can_type_has_help_and_is_in_the_index(parlor, clients):
    ann = await clients("Ann")
    # the walk types several hundred HELPs back to back: on a fast machine, past the
    # suite's rate limit (a burst of 400, then 50 a second), which would drop the rest
    session = next(s for s in parlor.connections if s.name == "Ann")
    session.limiter = RateLimiter(1e6, 10**6)
    index = words_of(await reply(ann, "help"))
    registry = parlor.registry
    kinds = {kind.prefix.lower(): kind for kind in parlor.host.kinds.values()}
    for cmd in registry.visible(admin=False):
        assert cmd.name.upper() in index, cmd.name
        for word in (cmd.name, *cmd.aliases):
            text = await reply(ann, f"help {word}")
            if cmd.name in kinds:  # a game: its summary, with its usage
                assert f"Usage: {cmd.usage.split()[0]}" in text, (word, text)
            else:
                assert text.startswith(f"Usage: {cmd.usage.split()[0]}"), (word, text)
        summary = words_of(await reply(ann, f"help {cmd.name}")) if cmd.name in kinds else set()
        skip = not_applying(kinds[cmd.name]) if cmd.name in kinds else {}
        for sub in cmd.subcommands:
            if sub.admin or sub.name in skip:
                continue
            # listed: in the index, or in HELP <game> (which the index points to), or in
            # the command's own HELP (TOURNEY, ITD list their words)
            listed = index | summary | words_of(await reply(ann, f"help {cmd.name}"))
            assert sub.name.upper() in listed, (cmd.name, sub.name)
            text = await reply(ann, f"help {cmd.name} {sub.name}")
            assert text.startswith("Usage: "), (cmd.name, sub.name, text)
            alone = await reply(ann, f"help {sub.name}")   # HELP CHALLENGE, HELP SEEK
            assert alone.startswith("Usage: ") and sub.name.upper() in alone, (sub.name, alone)
    set_help = await reply(ann, "help set")
    for word in settings.WORDS:
        assert word.upper() in words_of(set_help.split("\n", 1)[0] + set_help), word
        assert word.upper() in index, word
        alone = await reply(ann, f"help {word}")
        assert "Usage: SET" in alone or alone.startswith("Usage: "), (word, alone)
    # the words the issue named, each by itself
    for word, says in (("seek", "SEEK"), ("challenge", "CHALLENGE"), ("rematch", "REMATCH"),
                       ("note", "SET NOTE <1-10>"), ("screenreader", "SCREENREADER ON|OFF"),
                       ("formula", "FORMULA")):
        assert says in await reply(ann, f"help {word}"), word
    assert "There is no help on 'zzz'" in await reply(ann, "help zzz")


async def test_help_admin_lists_every_admin_command_for_admins_only(parlor, clients):
    ann = await clients("Ann")
    out = await reply(ann, "help admin")
    assert "There is no help on 'admin'" in out, out
    assert "HELP ADMIN" not in await reply(ann, "help")
    assert "@" not in await reply(ann, "help")
    root = await clients("Root")
    await parlor.accounts.set_admin("Root", True)
    await root.cmd("quit", "Goodbye")
    root = await clients("Root", new=False)
    assert "You are an admin: HELP ADMIN lists the admin commands." in root.seen
    assert "HELP ADMIN" not in ann.seen
    await root.cmd("help", r"HELP ADMIN: the admin commands, each with an example\.\r?\n> ")
    text = await reply(root, "help admin")
    admin_verbs = [c for c in parlor.registry.ordered if c.admin]
    assert {c.name for c in admin_verbs} >= {"@kick", "@ban", "@unban", "@shutdown", "@cubits",
                                             "@audit", "@collection", "@tile", "@grant",
                                             "@tileaudit"}
    flat = " ".join(text.split())
    for cmd in admin_verbs:
        assert cmd.example, f"{cmd.name} has no example"
        assert " ".join(cmd.usage.split()) in flat, cmd.usage
        assert f"Example: {cmd.example}" in flat, cmd.example
        detail = await reply(root, f"help {cmd.name}")
        assert f"Example: {cmd.example}" in detail, detail


async def test_admin_examples_run_as_written(parlor, clients):
    """Each example in HELP ADMIN is a command that works (a collection and a design
    made by @COLLECTION CREATE and @TILE first; @SHUTDOWN not run)."""
    bob = await clients("Bob")
    root = await clients("Root")
    await parlor.accounts.set_admin("Root", True)
    await root.cmd("@collection create Harbour", "Collection Harbour created")
    examples = {c.name: c.example for c in parlor.registry.ordered if c.admin}
    await root.cmd(examples["@tile"], r"Tile design #\d+ Gull .*: created")
    await root.cmd(examples["@collection"], "The shop sells Harbour discs for 100 cubits")
    await root.cmd(examples["@grant"], r"Bob is given 2 x Gull")
    await root.cmd(examples["@cubits"], "Bob now has 1500 cubits")
    await root.cmd(examples["@audit"], "Every balance equals its ledger")
    await root.cmd(examples["@tileaudit"], "Every tile has one owner and one place")
    await root.cmd(examples["@kick"], "Bob has been kicked")
    await bob.closed()
    await root.cmd(examples["@ban"], "Bob is banned")
    await root.cmd(examples["@unban"], "Bob may log in again")
    assert examples["@shutdown"].startswith("@SHUTDOWN ")
