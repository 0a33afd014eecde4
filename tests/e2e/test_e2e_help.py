"""HELP that fits a screen, and the pager (MORE), over real sockets (issue 12, part 4).

Each player sets an 80-column, 24-row screen. ``HELP <game>`` must fit it with the
prompt (23 lines of at most 80 columns) and list only the commands that apply to that
game; a reply taller than the screen stops after a page with a "-- More" line; Enter or
MORE shows the next page, another command drops the rest and runs.
"""

from __future__ import annotations

import re

from tests.support.client import ANSI, Client

PROMPT = re.compile(r"\r?\n> ")
MORE = r"-- More: (\d+) lines left\. Enter or MORE: next page; anything else: stop --"


async def reply(client: Client, line: str, timeout: float = 5.0) -> list[str]:
    """The lines ``line`` answers with, up to its prompt."""
    client.send(line)
    text = await client.expect(r"\n> ", timeout)
    return [ANSI.sub("", row) for row in text.replace("\r\n", "\n").split("\n")[:-1]]


async def screen(clients, name: str) -> Client:  # noqa: ANN001
    player = await clients(name)
    await reply(player, "set width 80")
    await reply(player, "set height 24")
    return player


def fits(lines: list[str]) -> None:
    assert len(lines) <= 23, f"{len(lines)} lines:\n" + "\n".join(lines)
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    assert not any(line.startswith("-- More") for line in lines), lines


def words_of(lines: list[str]) -> set[str]:
    return set(re.findall(r"[A-Z][A-Z0-9]+", " ".join(lines)))


async def test_help_and_each_game_s_help_fit_80x24(clients):
    ann = await screen(clients, "Ann")
    fits(await reply(ann, "help"))
    for game in ("tt", "triptycha", "triad", "pyr", "pyramid", "dice", "triad dice",
                 "TT HELP", "PYR ?"):
        lines = await reply(ann, game if game.isupper() else f"help {game}")
        fits(lines)
        assert lines[0].strip(), lines


async def test_each_game_lists_only_its_own_commands(clients):
    ann = await screen(clients, "Ann")
    tt = words_of(await reply(ann, "help triptycha"))
    assert {"CHALLENGE", "REMATCH", "ACCEPT", "LAY", "DRAW", "FLIP", "TAKE", "RESIGN",
            "CLAIM", "RANKINGS", "ITD", "BREAK"} <= tt
    assert not {"DISCARD", "RAISE", "TOUR", "MOVE"} & tt
    triad = words_of(await reply(ann, "help triad"))
    assert {"TABLES", "OPEN", "JOIN", "LEAVE", "BOT", "PASS", "EQUAL", "RAISE", "FOLD",
            "DISCARD", "STAND", "HAND", "STATUS"} <= triad
    assert not {"CHALLENGE", "ACCEPT", "DECLINE", "WITHDRAW", "RESIGN", "CLAIM", "RANKINGS",
                "REMATCH", "LAY", "MOVE"} & triad
    pyr = words_of(await reply(ann, "help pyr"))
    assert {"NEW", "HINT", "AUTO", "TOUR", "SAVE", "EXIT", "SCORE", "TOP10", "SOLUTION",
            "ACCEPT"} <= pyr
    assert not {"RESIGN", "CLAIM", "RANKINGS", "REMATCH", "RAISE", "LAY"} & pyr
    dice = words_of(await reply(ann, "help triad dice"))
    assert {"MOVE", "REMOVE", "CHALLENGE", "RESIGN", "CLAIM", "RANKINGS"} <= dice
    assert not {"TABLES", "LAY", "TOUR"} & dice
    assert "Triad Dice (DICE)" in "\n".join(await reply(ann, "help dice"))


async def test_help_game_command_gives_the_detail(clients):
    ann = await screen(clients, "Ann")
    lay = "\n".join(await reply(ann, "help tt lay"))
    assert "Usage: TT LAY <tile> [IN] <niche>" in lay
    move = "\n".join(await reply(ann, "help triad dice move"))
    assert "Usage: DICE MOVE <cell> <value> <direction>" in move
    assert "does not apply to Triad" in "\n".join(await reply(ann, "help triad challenge"))
    assert "does not apply to Pyramid" in "\n".join(await reply(ann, "help pyr resign"))
    assert "TRIAD has no command 'jump'" in "\n".join(await reply(ann, "help triad jump"))
    rules = await reply(ann, "help tt rules")
    assert "Triptycha: the rules" in rules[0]


async def test_help_on_a_game_command_names_what_to_type(clients):
    """HELP <game> RESIGN for a game without RESIGN names the command a player types
    instead (the game's own notation of its resign action), never an engine value; a
    move of the game's notation (PYR END) is explained, not called "no such command"."""
    ann = await screen(clients, "Ann")
    triad = "\n".join(await reply(ann, "help triad resign"))
    assert "TRIAD LEAVE leaves your seat" in triad, triad
    pyr = "\n".join(await reply(ann, "help pyr resign"))
    assert "does not apply to Pyramid" in pyr and "its own commands end a game" in pyr, pyr
    for text in (triad, pyr):
        assert not re.search(r"\w\(", text), text  # no Leave(), no Close(what=...)
    end = " ".join(await reply(ann, "help pyr end"))
    assert "no command" not in end and "PYR END ends the game" in end, end
    deal = "\n".join(await reply(ann, "help pyr d"))
    assert "is a move" in deal, deal
    assert "TRIAD has no command 'jump'" in "\n".join(await reply(ann, "help triad jump"))


async def test_a_long_reply_pages_enter_continues_another_command_stops(clients):
    ann = await screen(clients, "Ann")
    first = await reply(ann, "help triad rules")
    assert len(first) == 23 and re.fullmatch(MORE, first[-1]), first
    left = int(re.fullmatch(MORE, first[-1]).group(1))
    assert all(len(line) <= 80 for line in first)
    second = await reply(ann, "")  # Enter: the next page
    assert len(second) > 5 and second[0] not in first and "Capstone" in "\n".join(second)
    assert all(len(line) <= 80 for line in second) and len(second) <= 23
    if re.fullmatch(MORE, second[-1]):
        assert int(re.fullmatch(MORE, second[-1]).group(1)) == left - (len(second) - 1)
        third = await reply(ann, "more")  # MORE: the next page too
        assert len(third) > 1 and third[0] not in second
    # a new long reply, stopped by another command, which runs
    await reply(ann, "help triad rules")
    look = await reply(ann, "look")
    assert any(line.startswith("Exits:") for line in look), look
    assert not any("Capstone" in line or line.startswith("-- More") for line in look)
    nothing = await reply(ann, "more")
    assert nothing[-1] == "There is nothing more to show."
    # a reply that fits the screen is not paged
    short = await reply(ann, "help")
    assert not any(line.startswith("-- More") for line in short)


async def test_notices_are_not_held_by_the_pager(clients):
    ann = await screen(clients, "Ann")
    bob = await clients("Bob")
    await ann.expect(r"Bob has arrived\.\r?\n> ")
    page = await reply(ann, "help triad rules")
    assert re.fullmatch(MORE, page[-1])
    bob.send("say hello while Ann reads")
    await ann.expect(r'Bob says, "hello while Ann reads"')  # at once, not after the pages
    rest = await reply(ann, "")
    assert rest and not any("hello while" in line for line in rest)


async def test_a_taller_screen_gets_a_longer_page(clients):
    ann = await screen(clients, "Ann")
    await reply(ann, "set height 40")
    page = await reply(ann, "help triad rules")
    assert len(page) == 39 and re.fullmatch(MORE, page[-1])
    await reply(ann, "set height 200")
    whole = await reply(ann, "help triad rules")
    assert not any(line.startswith("-- More") for line in whole)


async def test_help_clients_says_what_this_server_offers_a_client(clients):
    """HELP CLIENTS: GMCP, compression, TLS, Mudlet and screen readers, as this server is
    set up (the tests' parlor offers neither MCCP2 nor TLS), on one screen."""
    ann = await screen(clients, "Ann")
    assert "HELP CLIENTS" in " ".join(await reply(ann, "help"))
    lines = await reply(ann, "help clients")
    fits(lines)
    text = " ".join(lines)
    assert lines[0] == "MUD clients" and "Room.Info" in text and "MUDLET" in text
    assert "Compressed output (MCCP2) is not offered on this server." in text
    assert "Telnet over TLS is not offered on this server." in text
    assert "SET SCREENREADER ON" in text
