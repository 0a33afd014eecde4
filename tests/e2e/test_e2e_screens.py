"""What is really on the screen of Debian's telnet and TinTin++ at 80x24 (tmux): every
reply starts at column 0 (no staircase), no line is wider than the terminal, and UTF-8
typed by the player and sent by the server shows as it should."""

from __future__ import annotations

from tests.conftest import require_program
from tests.support.tmux import Screen

REPLIES = ('You say, "café ☕ déjà vu"', "Exits: east, north, south, west",
           "player connected.")


def _play(screen: Screen, login: list[str]) -> list[str]:
    for line in login:
        screen.type(line)
        __import__("time").sleep(0.4)
    screen.wait_for("Exits:")
    screen.type("say café ☕ déjà vu")
    screen.wait_for(REPLIES[0])
    screen.type("look")
    screen.type("who")
    return screen.wait_for(REPLIES[2])


def _check(lines: list[str], cols: int = 80) -> None:
    start = next(i for i, line in enumerate(lines) if "Welcome to" in line)
    lines = lines[start:]  # the parlor's, not the client's own splash screen
    for reply in REPLIES:
        rows = [line for line in lines if reply in line]
        assert rows, f"{reply!r} is not on the screen"
        for row in rows:  # a reply at column 0, not where the typing ended
            assert row.startswith(reply) or row.startswith(("Exits:", "1 player")), row
    assert all(len(line) <= cols for line in lines)
    staircase = [line for line in lines if line.startswith(" " * 8) and line.strip()
                 and not line.strip().startswith(("/", "\\", "_"))]  # the banner's art
    assert not staircase, staircase


def test_debian_telnet_replies_start_at_column_0(server_process):
    require_program("tmux")
    telnet = require_program("telnet")
    screen = Screen(f"{telnet} 127.0.0.1 {server_process}")
    try:
        screen.wait_for("Name:")
        lines = _play(screen, ["NEW", "Tela", "secret1", "secret1"])
        _check(lines)
        assert not any("secret1" in line for line in lines)  # the password was not shown
        creating = [line for line in lines if "Creating a new account" in line]
        assert creating and creating[0].startswith("Creating")
    finally:
        screen.close()


def test_tintin_replies_start_at_column_0(server_process):
    require_program("tmux")
    tintin = require_program("tt++")
    screen = Screen(f"{tintin} -e '#session esterport 127.0.0.1 {server_process}'")
    try:
        screen.wait_for("Name:")
        lines = _play(screen, ["NEW", "Tinto", "secret1", "secret1"])
        _check(lines)
    finally:
        screen.type("#end")
        screen.close()


def test_netcat_sees_utf8_at_column_0(server_process):
    require_program("tmux")
    nc = require_program("nc")
    screen = Screen(f"{nc} 127.0.0.1 {server_process}")
    try:
        screen.wait_for("Name:")
        lines = _play(screen, ["NEW", "Netta", "secret1", "secret1"])
        for reply in REPLIES:
            assert any(line.startswith(reply) or reply in line for line in lines)
        assert all(len(line) <= 80 for line in lines)
    finally:
        screen.close()


# (command that starts the game and puts the player to move, what the last line of the
#  acting view holds, command that ends it)
GAMES = [
    ("dice challenge computer easy", "Your move: DICE", "dice resign"),
    ("pyr new", "Pair to 13", "pyr end"),
    ("tt challenge computer easy Random", "TT ROTATE / TT FLIP", "tt resign"),
    ("triad open 10 seats 4", "Your turn:", "triad leave"),
]


def test_the_acting_view_of_each_game_fits_one_screen_of_debian_telnet(server_process):
    """At 80x24 the view a player acts on (the header with "[your move]" down to what to
    type) is on the screen at once, without scrolling back (docs/design.md, Screens, 1)."""
    require_program("tmux")
    telnet = require_program("telnet")
    screen = Screen(f"{telnet} 127.0.0.1 {server_process}")
    try:
        screen.wait_for("Name:")
        for line in ["NEW", "Actor", "secret1", "secret1"]:
            screen.type(line)
            __import__("time").sleep(0.4)
        screen.wait_for("Exits:")
        for start, last, stop in GAMES:
            screen.type(start)
            if start.startswith("triad"):
                screen.wait_for("You open Triad table")
                screen.type("triad bot 3 easy")
                screen.wait_for("Computer 3 sits down")
                screen.type("triad start")
            for _ in range(100):  # until the player is to move and the view has settled
                visible = screen.lines(history=False)
                if any("[your move]" in row for row in visible) and \
                        any(last in row for row in visible):
                    break
                __import__("time").sleep(0.1)
            top = max(i for i, row in enumerate(visible) if "[your move]" in row)
            assert any(last in row for row in visible[top:]), "\n".join(visible)
            assert all(len(row) <= 80 for row in visible)
            screen.type(stop)
            __import__("time").sleep(0.5)
    finally:
        screen.close()


# a card cut at a line's edge: "[10" or "( 4D" ending a line, "D]" or "0D)" starting one
CARD_CUT = __import__("re").compile(r"[\[(] ?(10|[2-9AJQK])?[CDHS]?$|^ ?(10|[0-9AJQK])?[CDHS]?[\])]")


def test_every_game_at_width_40_in_debian_telnet(server_process):
    """SET WIDTH 40 (the least allowed), each game in Debian's telnet at 80x24: every line
    the parlor sends fits 40 columns, and no Pyramid card is cut at a line's edge; a board
    with no narrow layout says so and is read out in words (issue 27, 4)."""
    require_program("tmux")
    telnet = require_program("telnet")
    screen = Screen(f"{telnet} 127.0.0.1 {server_process}")
    try:
        screen.wait_for("Name:")
        for line in ["NEW", "Narrow", "secret1", "secret1"]:
            screen.type(line)
            __import__("time").sleep(0.4)
        screen.wait_for("Exits:")
        screen.type("set width 40")
        screen.wait_for("Width is now 40")
        start = len(screen.lines())
        for line, until in [("pyr new", "Pair to 13"), ("pyr d", "turned up"),
                            ("pyr resign", "is over"),
                            ("dice challenge computer easy", "DICE MOVE"),
                            ("dice resign", "wins"),
                            ("triad open 10", "You open Triad table"),
                            ("triad bot easy", "sits down"), ("triad start", "Hand 1"),
                            ("triad leave", "leave")]:
            screen.type(line)
            screen.wait_for(until)
        __import__("time").sleep(0.5)
        lines = [line for line in screen.lines()[start:] if line.strip()]
        wide = [line for line in lines if len(line) > 40]
        assert not wide, wide
        cut = [line for line in lines if CARD_CUT.search(line)]
        assert not cut, cut
        assert any("[" in line and "]" in line for line in lines)  # Pyramid's narrow rows
        assert any("needs" in line and "columns" in line for line in lines)  # Triad's table
    finally:
        screen.close()
