"""Screen budgets (issue 12; docs/design.md, Screens): a scripted game of each kind over
real sockets, counting what each participant receives: lines, and boards (a board begins
with the game's header line, ``Game #N: <kind>, A vs B`` with its ``[your move]`` mark).

Run with ``-s`` to see the figures; each is checked against its budget:

- Triptycha against the computer: from the challenge to the player's first lay at most
  2 boards; an opponent's action at most 3 lines, besides the one board on your turn;
  a watcher of the whole game at most one board per lay (and the start and the end);
- a 4-player Triad hand: at most 100 lines for a seated player;
- Pyramid AUTO: at most one board per pass through the Pack (and the end).

Board styles (issue 27, SET BOARD FULL|COMPACT|OFF): the same game seen in each style,
with the figures printed for all three and the COMPACT budgets checked: a Pyramid move
at most 6 lines; a watcher of a 4-seat Triad hand at most three lines an action besides
the table at its start and end; each result told once, in every style.
"""

from __future__ import annotations

import asyncio
import random
import re

from games.pyramid import notation as pyramid_notation
from games.pyramid import rules as pyramid_rules
from games.triptycha import notation, rules
from tests.e2e.test_e2e_triad import drain, play_hand, steady_policy
from tests.e2e.test_e2e_triptycha import seed
from tests.integration.test_tiles import PROVING
from tests.support.client import Client

HEADER = re.compile(r"^(?:> )*Game #\d+: (Triptycha|Triad|Pyramid|Triad Dice), (?!.*\bbegins\b).*$",
                    re.M)


def boards(text: str) -> int:
    return len(HEADER.findall(text))


def lines(text: str) -> int:
    return len([line for line in text.replace("\r", "").split("\n") if line.strip("> ")])


def told(text: str, who: str) -> list[int]:
    """The lines of each action of ``who``: from the line that begins with the name to the prompt
    that follows it (a board before it is not counted)."""
    counts: list[int] = []
    for line in text.replace("\r", "").split("\n"):
        bare = line[2:] if line.startswith("> ") else line
        if re.match(re.escape(who) + r"(: | (lays|flips|rotates|draws|takes|resigns) )", bare):
            counts.append(1)
        elif counts and counts[-1] > 0:
            if line.startswith((">", "Game #")) or HEADER.match(line):  # a prompt, a
                # board, or the game's result (told with the action that ended it)
                counts[-1] = -counts[-1]  # closed
            else:
                counts[-1] += 1
    return [abs(n) for n in counts]


STYLES = ("full", "compact", "off")
RESULT = re.compile(r"Game #\d+(: \S+ wins| is over| ends in a draw) \(|\b\S+ wins \(\d+-\d+"
                    r"|\bwon \(")


def results(text: str) -> int:
    """How many times a game's result is told (the result sentence, a board's own
    "Game over" line)."""
    return len(RESULT.findall(text)) + len(re.findall(r"(?m)^(?:> )?Game over", text))


async def changed(game, version: int) -> None:
    """Wait (at most 10 s) for the game to move past ``version`` or end."""
    for _ in range(1000):
        if game.version != version or game.outcome is not None:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"game #{game.id} did not move past {version}")


async def settle(*clients: Client) -> None:
    """Wait until nothing more arrives for a moment, keeping what came in ``seen``."""
    for _ in range(3):
        await asyncio.sleep(0.05)
        for client in clients:
            await drain(client)


async def watchers(clients, names=("Carol", "Dave", "Erin")) -> dict[str, Client]:
    """A watcher in each board style, by style."""
    made = {}
    for name, style in zip(names, STYLES):
        client = await clients(name)
        await client.cmd("set width 80", ">")
        await client.cmd(f"set board {style}", f"Board {style.upper()}")
        made[style] = client
    return made


async def test_triptycha_against_the_computer_and_a_watcher(parlor, clients, tmp_path):
    await seed(parlor, tmp_path, PROVING)
    alice = await clients("Alice")
    await alice.cmd("set width 80", ">")
    styles = await watchers(clients)
    carol = styles["full"]
    parlor.host.computer_delay = 0.0
    start = len(alice.seen)
    await alice.cmd("tt challenge computer easy Random Take 1", "begins")
    game = next(iter(parlor.host.live.values()))
    marks = {}
    for style, client in styles.items():
        await client.cmd(f"tt display {game.id}", "You are now watching")
        marks[style] = len(client.seen)
    carol_start = marks["full"]
    rng = random.Random(5)
    first_lay: int | None = None
    for _ in range(400):
        if game.outcome is not None:
            break
        movers = game.kind.spec.to_move(game.state)
        if 0 in movers and game.state.phase == "draw":
            free = [a for a in rules.legal_actions(game.state, 0) if isinstance(a, rules.Draw)]
            await alice.cmd(f"tt {notation.format_action(free[0])}", "Alice draws tile")
        elif movers == (0,) and game.state.phase == "play":
            await settle(alice)
            acts = [a for a in rules.legal_actions(game.state, 0) if isinstance(a, rules.Lay)]
            acts = acts or [a for a in rules.legal_actions(game.state, 0)
                            if isinstance(a, rules.Flip)]
            if first_lay is None:
                first_lay = boards(alice.seen[start:])
            await alice.cmd(f"tt {notation.format_action(rng.choice(acts))}", "Alice (lays|flips) tile")
        elif movers == (0,) and game.state.phase == "trading":
            await alice.cmd("tt done", "Alice: DONE")
        else:
            await changed(game, game.version)
    await alice.expect(r"Game #\d+: (Alice|Computer\(easy\)) wins", timeout=10)
    await settle(alice, *styles.values())
    watched, seen = carol.seen[carol_start:], alice.seen[start:]
    for style, client in styles.items():
        got = client.seen[marks[style]:]
        print(f"\nTriptycha watcher, board {style.upper()}: {lines(got)} lines, "
              f"{boards(got)} boards, the result told {results(got)} time(s)")
        assert results(got) == 1, got[-1500:]
    opponent = told(seen, "Computer(easy)")
    print(f"\nTriptycha vs computer: boards before the first lay {first_lay}; the "
          f"computer's {len(opponent)} actions took at most {max(opponent)} lines each "
          f"(boards aside); Alice: {boards(seen)} boards, {lines(seen)} lines in all; "
          f"watcher: {boards(watched)} boards, {lines(watched)} lines for "
          f"{game.state.laid} lays")
    assert first_lay is not None and first_lay <= 2
    assert opponent and max(opponent) <= 3
    assert boards(watched) <= game.state.laid + 2  # one per lay, the start and the end


async def test_a_four_player_triad_hand(parlor, clients):
    alice = await clients("Alice")
    await alice.cmd("set width 80", ">")
    styles = await watchers(clients)
    out = await alice.cmd("triad open 10 seats 4", r"You open Triad table #(\d+)")
    number = int(re.search(r"table #(\d+)", out).group(1))
    for n in (1, 2, 3):
        await alice.cmd("triad bot easy", f"Computer {n} sits down")
    for client in styles.values():
        await client.cmd(f"triad watch {number}", "You are now watching")
    await settle(alice, *styles.values())
    mark = len(alice.seen)
    marks = {style: len(client.seen) for style, client in styles.items()}
    game = parlor.host.live[number]
    version = game.version
    await alice.cmd("triad start", "Hand 1: ")
    await play_hand(parlor, number, {"Alice": alice}, steady_policy)
    await settle(alice, *styles.values())
    actions = game.version - version   # the hand's deal, bets, draws and showdown
    got = alice.seen[mark:]
    print(f"\nTriad, 4 players, one hand: Alice received {lines(got)} lines, "
          f"{boards(got)} boards")
    watched = {style: client.seen[marks[style]:] for style, client in styles.items()}
    for style, text in watched.items():
        print(f"Triad, 4 players, one hand, a watcher in board {style.upper()}: "
              f"{lines(text)} lines, {boards(text)} boards")
    assert lines(got) <= 100
    # COMPACT: the table at the start and at the end, and at most three lines an action
    # (its line, the seat it changed, the pot): a hand bet twice round to a showdown has
    # more actions than one folded early
    assert lines(watched["compact"]) <= 30 + 3 * actions, (actions, watched["compact"])


async def test_pyramid_auto(parlor, clients):
    alice = await clients("Alice")
    await alice.cmd("set width 80", ">")
    await alice.cmd("pyr config speed fast", "Config saved")
    await alice.cmd("pyr new", r"Game #\d+: Pyramid, Alice begins")
    await settle(alice)
    mark = len(alice.seen)
    await alice.cmd("pyr auto", "AUTO finishes your game")
    await alice.expect(r"Game #\d+(: Alice wins| is over) \(", timeout=60)
    await settle(alice)
    got = alice.seen[mark:]
    passes = 1 + got.count("Redeal: the Waste Pile becomes the Pack")
    print(f"\nPyramid AUTO: {boards(got)} boards for {passes} passes, {lines(got)} lines")
    assert boards(got) <= passes + 1  # one a pass, and the end
    assert pyramid_rules  # the engine the counts come from


async def play_pyramid(parlor, client: Client, name: str, moves: int = 60) -> list[int]:
    """Play a standard Pyramid game of at most ``moves`` moves (the first removal the rules
    list, else a draw; END when nothing else is left), a PYR HINT every tenth move;
    return the lines each move took (the hints, and the last move that tells the result,
    aside)."""
    await client.cmd("pyr new", r"Game #\d+: Pyramid, \S+ begins")
    await settle(client)
    account = parlor.online.named(name).account.id
    game = parlor.host.game_of(account, "pyr")
    start, per_move = len(client.seen), []
    for n in range(moves):
        if game.outcome is not None:
            break
        if n % 10 == 9:
            await client.cmd("pyr hint", r"> $", 30)  # the solver: slow on a busy machine
        actions = list(pyramid_rules.game_actions(game.state.matches[0].game))
        action = actions[0] if len(actions) > 1 or n == moves - 1 else actions[-1]
        if n == moves - 1:
            action = pyramid_rules.END
        mark = len(client.seen)
        await client.cmd(f"pyr {pyramid_notation.format_action(action)}", r"> $", timeout=10)
        await drain(client)
        if game.outcome is None:  # the last move also tells the result
            per_move.append(lines(client.seen[mark:]))
    for _ in range(200):  # the result, and the solver's verdict after it
        await settle(client)
        if "PYR SOLUTION" in client.seen[start:]:
            break
    return per_move


async def test_pyramid_moves_in_each_board_style(parlor, clients, monkeypatch):
    # the same deals every run (a game's seed is drawn from SystemRandom): the figures
    # and the budget are the code's, not the luck of the deal's
    from server.services import play
    deals = random.Random(27)
    monkeypatch.setattr(play.random, "SystemRandom", lambda: deals)
    figures = {}
    for name, style in zip(("Alice", "Bob", "Carol"), STYLES):
        client = await clients(name)
        await client.cmd("set width 80", ">")
        await client.cmd(f"set board {style}", f"Board {style.upper()}")
        mark = len(client.seen)
        per_move = await play_pyramid(parlor, client, name)
        got = client.seen[mark:]
        figures[style] = per_move
        print(f"\nPyramid, board {style.upper()}: {len(per_move)} moves, {lines(got)} lines "
              f"in all (hints included), at most {max(per_move)} and on average "
              f"{sum(per_move) / len(per_move):.1f} lines a move; the result told "
              f"{results(got)} time(s)")
        assert results(got) == 1, got[-1500:]
    assert max(figures["compact"]) <= 6


async def test_the_board_style_is_kept_with_the_account(parlor, clients):
    alice = await clients("Alice")
    await alice.cmd("set board off", "Board OFF")
    await alice.cmd("set board sideways", "BOARD is FULL, COMPACT or OFF")
    await alice.close()
    again = await clients("Alice", new=False)
    await again.cmd("set", "BOARD OFF")
    await again.cmd("pyr new", r"\(Board OFF: PYR DISPLAY shows the board\.\)")
    await again.cmd("pyr display", r"Game #\d+: Pyramid, Alice  \[your move\]")
