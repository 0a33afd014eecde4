"""The parlor over real sockets, as players use it (telnetlib3's client)."""

from __future__ import annotations

import asyncio

import pytest

from tests.support.client import Client
from tests.support.waits import until


async def test_two_players_create_login_talk_and_quit(parlor, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    await alice.expect("Bob has arrived")
    await alice.cmd("say Hello, Bob!", 'You say, "Hello, Bob!"')
    await bob.expect('Alice says, "Hello, Bob!"')
    await bob.cmd("tell alice psst", "You tell Alice: psst")
    await alice.expect("Bob tells you: psst")
    await alice.cmd("reply hi back", "You tell Bob: hi back")
    await bob.expect("Alice tells you: hi back")
    await alice.cmd("emote waves.", "Alice waves.")
    await bob.expect("Alice waves.")
    await bob.cmd("chat anyone for dice?", r"\[chat\] Bob: anyone for dice\?")
    await alice.expect(r"\[chat\] Bob: anyone for dice\?")
    out = await alice.cmd("who", "players? connected")
    assert "Alice" in out and "Bob" in out
    out = await alice.cmd("finger bob", "Cubits")
    assert "Online now" in out
    await bob.cmd("quit", "Goodbye")
    await bob.closed()
    await alice.expect("Bob has left")
    out = await alice.cmd("finger Bob", "Cubits")
    assert "Last seen" in out
    # Bob comes back with his password
    bob2 = await clients()
    await bob2.login("Bob")
    await alice.expect("Bob has arrived")


async def test_walking_between_rooms(parlor, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    out = await alice.cmd("north", "Exits:")
    assert "Tile Shop" in out
    await bob.expect("Alice leaves north")
    await alice.cmd("say in the shop", "You say")
    await alice.cmd("go south", "Plaza")
    out = await alice.cmd("go up", "can't go")
    out = await alice.cmd("look", "Here: Bob")
    await alice.cmd("s", "Undercroft")
    await alice.cmd("w", "Pyramid Room")
    assert 'in the shop' not in bob.seen


async def test_wrong_password_refused_then_throttled(parlor, clients):
    alice = await clients("Alice")
    await alice.cmd("quit", "Goodbye")
    c = await clients()
    await c.expect("Name: ")
    for _ in range(3):  # test config: 3 failures lock the name out
        c.send("Alice")
        await c.expect("Password: ")
        c.send("wrong")
        await c.expect("Wrong password")
    c.send("Alice")
    await c.expect("Too many failed logins")
    # even the right password is refused while locked out
    c.send("Alice")
    await c.expect("Too many failed logins")


async def test_logging_in_again_takes_over_the_old_connection(parlor, clients):
    first = await clients("Alice")
    await first.cmd("north", "Tile Shop")
    second = await clients()
    await second.login("Alice")
    out = await first.closed()
    assert "taken over" in out
    out = await second.cmd("look", "Exits:")
    assert "Tile Shop" in out  # the new connection stands where the old one was
    assert len(parlor.online.sessions) == 1 and parlor.online.names == ["alice"]


async def test_ignore_blocks_tells_and_challenges(parlor, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    await alice.cmd("ignore bob", "You now ignore Bob")
    await bob.cmd("tell alice hello?", "Alice is ignoring you")
    await bob.cmd("ttt challenge alice", "not accepting challenges from you")
    await bob.cmd("say hello room", "You say")
    await alice.cmd("ignore", "You are ignoring: Bob")
    await alice.cmd("unignore bob", "You no longer ignore Bob")
    await bob.cmd("tell alice now?", "You tell Alice")
    await alice.expect("Bob tells you: now")
    assert "hello room" not in alice.seen


async def test_escape_sequences_never_reach_other_players(parlor, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    evil = "\x1b[2J\x1b]0;pwned\x07\x1b[31mred\x9b1m \x07bell\u202eflip"
    await alice.cmd(f"say {evil}", "You say")
    await alice.cmd(f"chat {evil}", r"\[chat\]")
    await alice.cmd(f"tell bob {evil}", "You tell Bob")
    await alice.cmd(f"emote {evil}", "Alice ")
    await bob.expect("Alice tells you")
    await asyncio.sleep(0.3)
    raw = bob.buffer + bob.seen
    for bad in ("\x1b[2J", "\x1b]0", "pwned\x07", "\x07", "\x9b", "\u202e", "\x1b[31mred"):
        assert bad not in raw, repr(bad)
    assert "redbell" in raw.replace(" ", "") or "red bell" in raw


async def test_bad_input_gets_one_line_and_the_session_survives(parlor, clients):
    alice = await clients("Alice")
    await alice.cmd("xyzzy", r"Huh\?")
    await alice.cmd("tell", "Usage: TELL <person> <text>")
    await alice.cmd("tell nobody hi", "There is no player named nobody")  # as FINGER says
    await alice.cmd("set width 5", "The width must be 40 to 250")
    await alice.cmd("replay #x", "is not a game number")
    await alice.cmd("replay 999", "There is no game #999")
    await alice.cmd("observe 12", "There is no game #12")
    await alice.cmd("@shutdown", r"Huh\?")          # not an admin: nothing more than Huh?
    await alice.cmd("help @kick", "There is no help")
    alice.send("say " + "x" * 5000)
    await alice.expect("too long")
    alice.writer.write("\udcff\udcfe bad bytes\r\n")  # lone surrogates: replaced on the way
    await alice.cmd("look", "Exits:")
    await alice.cmd("help tell", "Usage: TELL")


async def test_help_has_a_topic_for_every_command(parlor, clients):
    alice = await clients("Alice")
    out = await alice.cmd("help", "General:(.|\n)*> ")
    for cmd in parlor.registry.visible(admin=False):
        assert cmd.name.upper() in out
        text = await alice.cmd(f"help {cmd.name}", "Usage: .*\n(.|\n)*?> ")
        assert cmd.usage.split()[0] in text
        for sub in cmd.subcommands:
            await alice.cmd(f"help {cmd.name} {sub.name}", f"Usage: {sub.usage.split()[0]}")


async def test_flood_is_rate_limited(parlor, clients):
    alice = await clients("Alice")
    alice.writer.write("who\r\n" * 1500)  # a paste: more than the burst allows
    await alice.expect("sending commands too fast")
    await asyncio.sleep(1.0)
    await alice.cmd("who", "players? connected")


async def test_connection_cap_per_address(parlor):
    cap = parlor.config.server.max_connections_per_address
    conns = [await Client.connect(parlor.port) for _ in range(cap)]
    extra = await Client.connect(parlor.port)
    out = await extra.closed()
    assert "Too many connections" in out
    for c in conns:
        await c.close()


async def test_set_color_off_and_width(parlor, clients):
    alice = await clients("Alice")
    await alice.cmd("set color off", "Color is now OFF")
    alice.buffer = ""
    await alice.cmd("look", "Exits:")
    await alice.cmd("set width 60", "Width is now 60")
    out = await alice.cmd("look", "Exits:")
    assert all(len(line) <= 60 for line in out.splitlines())
    await alice.cmd("quit", "Goodbye")
    again = await Client.connect(parlor.port)
    await again.login("Alice")
    again.buffer = ""
    again.send("look")
    await asyncio.sleep(0.5)
    chunk = await again.reader.read(65536)
    assert "\x1b[" not in chunk  # color stays off after logging in again
    await again.close()


@pytest.mark.parametrize("admin_cmd", ["@kick Bob being rude", "@ban Bob"])
async def test_admin_kick_and_ban(parlor, clients, admin_cmd):
    admin = await clients("Root")
    await parlor.accounts.set_admin("Root", True)
    await admin.cmd("quit", "Goodbye")
    admin = await clients("Root", new=False)
    bob = await clients("Bob")
    await admin.cmd(admin_cmd, "Bob (has been kicked|is banned)")
    await bob.closed()
    if "ban" in admin_cmd:
        c = await clients()
        await c.expect("Name: ")
        c.send("Bob")
        await c.expect("Password: ")
        c.send("secret")
        await c.closed()
        assert "banned" in c.seen + c.buffer


async def test_admin_shutdown_tells_everyone_and_stops(parlor, clients):
    await clients("Root")
    await parlor.accounts.set_admin("Root", True)
    bob = await clients("Bob")
    root = await clients("Root", new=False)
    await root.cmd("@shutdown maintenance", "Shutting down")
    await bob.expect("shutting Esterport down: maintenance")
    await asyncio.wait_for(parlor.stopped.wait(), 5)


async def test_idle_connections_are_closed(sqlite_url):
    from commands.app import assemble
    from tests.conftest import make_config

    parlor = assemble(make_config(sqlite_url, idle_timeout=1))
    await parlor.start()
    try:
        idle = await Client.connect(parlor.port)
        await idle.create("Sleepy")
        out = await idle.closed(timeout=5)
        assert "Timeout" in out
        await until(lambda: not parlor.online.sessions and not parlor.connections,
                    "the idle session gone")
    finally:
        await parlor.stop()


async def test_a_connection_that_never_logs_in_is_closed(sqlite_url):
    from commands.app import assemble
    from tests.conftest import make_config

    parlor = assemble(make_config(sqlite_url, login_timeout=1))
    await parlor.start()
    try:
        lurker = await Client.connect(parlor.port)
        await lurker.expect("Name: ")
        out = await lurker.closed(timeout=5)
        assert "took too long" in out
    finally:
        await parlor.stop()


async def test_leaving_by_an_abbreviated_exit_names_the_exit(parlor, clients):
    """ "Carol leaves n." was the typed word; the room is told the exit's name."""
    alice = await clients("Alice")
    bob = await clients("Bob")
    await alice.cmd("n", "Exits:")
    await bob.expect("Alice leaves north.")
    assert "leaves n." not in bob.seen
    await bob.cmd("go N", "Exits:")
    await alice.expect("Bob arrives.")


async def test_rankings_of_a_game_named_in_full_is_that_game(parlor, clients):
    """RANKINGS TRIAD is Triad, not Triad Dice (whose title also begins with "triad")."""
    alice = await clients("Alice")
    out = await alice.cmd("rankings triad", r"played for cubits[^\n]*\n")
    assert "Triad Dice" not in out and "Triad is never ranked" in out
    out = await alice.cmd("rankings dice", r"yet\.")
    assert "game of Triad Dice" in out
    out = await alice.cmd("rankings tri", r"more than one game.*\.")
    assert "Triptycha" in out and "Triad Dice" in out


async def test_tell_tells_an_unknown_name_from_an_absent_player(parlor, clients):
    """TELL to a name no account has says so (as FINGER does); to a player who is away,
    that they are not connected."""
    alice = await clients("Alice")
    bob = await clients("Bob")
    await bob.cmd("quit", "Goodbye")
    await alice.cmd("tell zed hi", "There is no player named zed")
    await alice.cmd("finger zed", "There is no player named zed")
    await alice.cmd("tell bob hi", "Bob is not connected")  # the name as it is spelled


async def test_your_own_finger_shows_your_balance_now(parlor, clients):
    """Bare FINGER showed the balance the session read at login; a buy-in since then
    (TRIAD OPEN) is shown at once, as FINGER <your name> and other players see it."""
    import re

    alice = await clients("Alice")
    bob = await clients("Bob")
    await alice.cmd("triad open", r"You open Triad table #")
    mine = re.search(r"Cubits: (\d+)", await alice.cmd("finger", r"Cubits: \d+")).group(1)
    theirs = re.search(r"Cubits: (\d+)", await bob.cmd("finger alice", r"Cubits: \d+")).group(1)
    assert mine == theirs and int(mine) < 1000


async def test_a_pasted_block_waits_its_turn_rather_than_being_dropped(sqlite_url):
    """At the default limits (8 commands a second, bursts of 20), 45 pasted lines are all
    answered, in order; a flood past the paste queue is still dropped with one warning."""
    from commands.app import assemble
    from tests.conftest import make_config

    parlor = assemble(make_config(sqlite_url, commands_per_second=8.0, command_burst=20))
    await parlor.start()
    try:
        alice = await (await Client.connect(parlor.port)).create("Alice")
        alice.writer.write("".join(f"say line {n}\r\n" for n in range(45)))
        await alice.expect('You say, "line 44"', timeout=15)
        said = [n for n in range(45) if f'You say, "line {n}"' in alice.seen]
        assert said == list(range(45)) and "too fast" not in alice.seen
        await asyncio.sleep(3)  # the bucket refills
        alice.writer.write("who\r\n" * 400)
        await alice.expect("sending commands too fast", timeout=15)
        await alice.close()
    finally:
        await parlor.stop()
