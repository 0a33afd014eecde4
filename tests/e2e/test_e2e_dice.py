"""Triad Dice over real sockets: real telnet clients play through the ``DICE`` commands.

The two-player game is made deterministic honestly: the server rolls the dice from its
own random seed, then the test reads the position it rolled and, with the engine
offline, looks for a line of play that ends in a win and offers a removal choice on
the way; every one of those moves is then typed by the players' telnet clients.
"""

from __future__ import annotations

import asyncio
import random
import re
import time

import sqlalchemy as sa

from commands.app import assemble
from games.dice import notation, render, rules
from games.dice.rules import Move, Remove, RemovalRequired, TriadsFormed
from server.models import GameRecord
from tests.conftest import make_config
from tests.support.client import ANSI, Client

NAMES = ("Alice", "Bob")


# -- helpers --------------------------------------------------------------------------------
def plan_a_win_with_a_choice(state: rules.State, tries: int = 2000) -> list[tuple[int, object]]:
    """A line of play from ``state`` to a win by three removals in which at least one
    removal is the mover's choice. The future winner forms Triads when it can (a choice
    preferred); the other side avoids forming any."""
    rng = random.Random(7)
    for _ in range(tries):
        winner = rng.randrange(2)
        s, script, chose = state, [], False
        while s.result is None and s.turns < 80:
            seat = s.turn
            legal = list(rules.legal_actions(s, seat))
            if s.pending:
                action = rng.choice(legal)
            else:
                forming, choosing, quiet = [], [], []
                for a in legal:
                    _, events = rules.apply(s, seat, a)
                    if any(isinstance(e, RemovalRequired) for e in events):
                        choosing.append(a)
                    elif any(isinstance(e, TriadsFormed) for e in events):
                        forming.append(a)
                    else:
                        quiet.append(a)
                if seat == winner:
                    action = rng.choice(choosing or forming or quiet)
                else:
                    action = rng.choice(quiet or forming or choosing)
            s, events = rules.apply(s, seat, action)
            chose = chose or any(isinstance(e, RemovalRequired) for e in events)
            script.append((seat, action))
        if s.result is not None and s.result.winner is not None and chose:
            return script
    raise AssertionError("no line of play to a win with a removal choice was found")


def board_rows(state: rules.State) -> list[str]:
    """The six rows of the board as a colourless client shows them."""
    text = render.render(render.view_for(state, None), color=False, names=NAMES)
    return [line for line in text.splitlines() if re.match(r"  [1-6]  ", line)]


async def raw_reply(client: Client, line: str, until: str, timeout: float = 5.0) -> str:
    """Send ``line`` and return the raw bytes-as-text (colour codes kept) up to ``until``.
    Call it when nothing else is in flight to ``client``."""
    client.buffer = ""
    client.send(line)
    raw = ""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while until not in ANSI.sub("", raw):
        raw += await asyncio.wait_for(client.reader.read(65536), deadline - loop.time())
    return raw


async def start_game(alice: Client, bob: Client, ranked: bool) -> int:
    opt = " ranked" if ranked else ""
    label = "ranked" if ranked else "unranked"
    await alice.cmd(f"dice challenge bob{opt}", f"You challenge Bob to Triad Dice \\({label}\\)")
    await bob.expect(f"Alice challenges you to Triad Dice \\({label}\\)\\. Type DICE ACCEPT "
                     "Alice or DICE DECLINE Alice")
    bob.send("dice accept alice")
    out = await alice.expect(r"Game #(\d+): Triad Dice, Alice vs Bob begins")
    await bob.expect("begins")
    return int(re.findall(r"Game #(\d+): Triad Dice, Alice vs Bob begins", out)[-1])


async def wait_for(predicate, timeout: float = 10.0) -> None:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(0.02)


# -- the tests ------------------------------------------------------------------------------
async def test_two_players_play_a_ranked_game_to_a_win_with_a_removal_choice(parlor, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    carol = await clients("Carol")
    number = await start_game(alice, bob, ranked=True)
    await carol.cmd("dice games", f"#{number} +Triad Dice +Alice vs Bob")
    await carol.cmd(f"dice display {number}", f"You are now watching game #{number}")
    game = parlor.host.live[number]
    players = (alice, bob)
    first = game.state.turn
    mover, waiter = players[first], players[1 - first]

    # Wrong uses: each answers in one line and changes nothing.
    own = game.state.dice_of(first)[0]
    cell, value = rules.cell_name(own), game.state.die_at(own)[1]
    example = notation.format_action(next(rules.legal_actions(game.state, first)))
    await waiter.cmd(f"dice {example}", "It is not your turn\\.")
    await mover.cmd("dice move c9 3 N", r"c9 is off the board \(cells are a1\.\.f6\)\.  "
                    r"Usage: DICE MOVE <cell> <value> <direction>")
    await mover.cmd("dice move", r"> Usage: DICE MOVE <cell> <value> <direction>")
    await mover.cmd("dice move a1 4 N", r"4 is not a die value .*Usage: DICE MOVE")
    await mover.cmd(f"dice move {cell} {value} N", "A die must change its value\\.")
    await mover.cmd(f"dice move {cell} {value % 3 + 1}", "You can still move a die: turn "
                    "one to a new value and move it")
    await mover.cmd("dice remove a1", "There is no die to remove now\\.")
    await mover.cmd("dice remove", "Usage: DICE REMOVE <cell>")
    # a word no DICE command knows: what is wrong in one line (HELP has the usage)
    await mover.cmd("dice fly a1", "'fly' is not a dice action\\. DICE HELP lists the DICE "
                    "commands\\.\r?\n")
    assert game.version == 0

    # The board: coordinates, owners' colours and values; readable with colour off.
    await waiter.cmd("set color off", "Color is now OFF")
    await asyncio.sleep(0.05)
    plain = await raw_reply(waiter, "dice", "to move.")
    coloured = await raw_reply(mover, "dice", "Your move:")
    assert "\x1b[" not in plain and "\x1b[1;33m(" in coloured and "\x1b[1;36m[" in coloured
    assert "       a    b    c    d    e    f" in plain
    for row in board_rows(game.state):
        assert row in plain
    assert f"Your move: DICE MOVE <cell> <value> <direction>, e.g. DICE {example}." in \
        ANSI.sub("", coloured)
    you = NAMES[1 - first]
    assert f"(n) Alice{' (you)' if you == 'Alice' else ''}, row 1: 0/3 removed" in plain
    assert f"[n] Bob{' (you)' if you == 'Bob' else ''}, row 6: 0/3 removed" in plain
    await waiter.cmd("set color on", "Color is now ON")

    # The game, every move typed by the clients.
    script = plan_a_win_with_a_choice(game.state)
    choices = 0
    for step, (seat, action) in enumerate(script, 1):
        me, other, name = players[seat], players[1 - seat], NAMES[seat]
        text = notation.format_action(action)
        # one line: the move as typed, then what it did
        out = await me.cmd(f"dice {text.lower()}",
                           f"{name}: {re.escape(text)}\\. The [^\\n]*\\.\r?\n(.|\n)*?> ")
        seen = await other.expect(f"{name}: {re.escape(text)}")
        assert game.version == step      # each action was committed before it was told
        if isinstance(action, Move) and game.state.pending:
            choices += 1
            cells = [rules.cell_name(c) for c in game.state.pending]
            offered = ", ".join(cells[:-1]) + " or " + cells[-1]
            assert re.search(r"(Triad formed: [a-f1-6-]+|\d Triads formed: .+)!", out)
            assert f"You formed a Triad: remove one of your dice, on {offered}, with DICE " \
                   "REMOVE <cell>" in out.replace("\r\n", " ").replace("\n", " ")
            assert f"{name} chooses which of their dice to remove: {offered} " \
                   "(DICE REMOVE <cell>)." in out
            # the opponent is told in a line, not a redrawn board (docs/design.md,
            # Screens, 2)
            seen += await other.expect(re.escape(
                f"{name} chooses which of their dice to remove: {offered} "
                "(DICE REMOVE <cell>)."))
            assert f"{name} formed a Triad" not in seen
            # the others cannot act meanwhile, and only an offered die may go
            await other.cmd(f"dice remove {cells[0]}", "It is not your turn\\.")
            await me.cmd(f"dice {example}", "First remove one of your dice: ")
            wrong = next(rules.cell_name(c) for c in range(36) if c not in game.state.pending)
            await me.cmd(f"dice remove {wrong}", f"{wrong} is not one of the dice you may "
                         f"remove \\({re.escape(', '.join(cells))}\\)")
        if isinstance(action, Remove):
            cell = rules.cell_name(action.cell)
            assert re.search(f"{name}: REMOVE {cell}\\. The die on {cell} is removed\\.", out)
    assert choices >= 1
    winner = game.outcome.winner
    result = f"Game #{number}: {NAMES[winner]} wins \\(three dice removed\\)\\."
    for client in (alice, bob):
        if not re.search(result, client.seen):   # the mover may have read past it already
            await client.expect(result)
    # what happened, the final board, then the result with the ratings under it, just
    # above the prompt (docs/design.md, Screens, 2)
    out = await carol.expect(result + "\r?\nAlice's Triad Dice rating: 1500 -> \\d+\r?\n"
                             "Bob's Triad Dice rating: 1500 -> \\d+")
    for row in board_rows(game.state):
        assert row in out          # the watcher saw the final board
    assert out.rindex(board_rows(game.state)[-1]) < re.search(result, out).start()
    assert "That is a third die removed." in out
    ratings = [int(x) for x in re.findall(r"rating: 1500 -> (\d+)", out)]
    assert ratings[winner] > 1500 > ratings[1 - winner]
    assert number not in parlor.host.live

    # Ratings, records, rankings and the replay.
    out = await carol.cmd(f"dice status {NAMES[winner]}", "Unranked: .*")
    assert "Ranked: 1 won, 0 lost, 0 drawn" in out
    out = await carol.cmd(f"dice status {NAMES[1 - winner]}", "Unranked: .*")
    assert "Ranked: 0 won, 1 lost, 0 drawn" in out
    out = await carol.cmd("dice rankings", "Triad Dice rankings(.|\n)*?> ")
    assert out.index(NAMES[winner]) < out.index(NAMES[1 - winner])
    out = await carol.cmd(f"replay {number}", "shows the board(.|\n)*?> ")
    assert f"{len(script):>3}. {NAMES[winner]}:" in out and "REMOVE" in out
    await alice.cmd("dice", "You are not playing Triad Dice")
    await carol.cmd("dice games", "No games in play")


async def test_help_options_offers_and_wrong_uses(parlor, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    out = await alice.cmd("dice help rules", "DICE HELP(.|\n)*?> ")
    flat = " ".join(out.split())
    for text in ("DICE MOVE c1 3 NE turns the die on c1 to 3 and moves it to f4",
                 "DICE MOVE c1 2 turns the die on c1 to 2 where it stands",
                 "DICE MOVE c1 NE moves it its current value unchanged",
                 "DICE REMOVE <cell>", "The first to remove three of their own dice wins",
                 "DICE CHALLENGE <person>|COMPUTER [EASY|NORMAL|HARD|EXPERT]", "DICE RANKINGS",
                 "DICE STATUS [<person>]", "DICE DISPLAY [<game>]", "DICE WITHDRAW"):
        assert text in flat, text
    out = await alice.cmd("help dice move", "changing it\\.")
    assert "Usage: DICE MOVE <cell> <value> <direction>" in out
    await alice.cmd("dice help remove", "Usage: DICE REMOVE <cell>(.|\n)*?Three removals win")
    await alice.cmd("dice", "You are not playing Triad Dice\\. DICE CHALLENGE <person>")
    await alice.cmd("dice move c1 3 NE", "You are not playing Triad Dice\\.")
    await alice.cmd("dice remove c1", "You are not playing Triad Dice\\.")
    await alice.cmd("dice resign", "You are not playing Triad Dice\\.")
    await alice.cmd("dice challenge", "> Usage: DICE CHALLENGE <person>")
    await alice.cmd("dice challenge bob sideways", "'sideways' is not an option .*Usage: DICE "
                    "CHALLENGE")
    await alice.cmd("pyr challenge computer expert", "Pyramid has no EXPERT level; the "
                    "computer plays EASY, NORMAL or HARD\\.")
    await alice.cmd("dice challenge bob hard", "HARD is a level for the computer")
    await alice.cmd("dice challenge dave", "There is no player named dave")
    await alice.cmd("dice accept bob", "There is no offer from bob to you")
    await alice.cmd("dice accept", "Nobody has challenged you")  # ACCEPT alone: the one offer
    await alice.cmd("dice challenge bob", "You challenge Bob to Triad Dice \\(unranked\\)")
    await bob.expect("Alice challenges you to Triad Dice \\(unranked\\)")
    await bob.cmd("dice decline alice", "You decline Alice's offer of Triad Dice")
    await alice.expect("Bob declines your offer of Triad Dice \\(unranked\\)")
    await alice.cmd("dice challenge bob", "You challenge Bob")
    await alice.cmd("dice withdraw", "You withdraw your offer of Triad Dice \\(unranked\\) to Bob")
    await bob.expect("Alice withdraws the offer")
    await alice.cmd("dice withdraw", "You have no offer to withdraw")
    # an unranked game, resigned at once (RESIGN is accepted whoever is to move)
    number = await start_game(alice, bob, ranked=False)
    await alice.cmd("dice challenge bob", "You are already playing Triad Dice")
    await bob.cmd("dice resign", f"Game #{number}: Alice wins \\(resignation\\)")
    await alice.expect("Alice wins")
    out = await alice.cmd("dice status", "Unranked: .*")
    assert "Unranked: 1 won, 0 lost, 0 drawn" in out and "Ranked: 0 won" in out
    await alice.cmd("dice rankings", "Nobody has played a ranked game of Triad Dice yet")


STUCK = """
 .   .   .  [1]  .   .
 .   .   .   .   .   .
 .   .   .   .   .   .
 .   .   .   .   .  [3]
[3] [1]  .   .  [2]  .
(1) [2]  .   .  [3] (1)
"""


async def test_stalemate_forms_when_no_die_can_move(parlor, clients):
    """Play from a position where Alice is stuck: the game is started through telnet,
    then (test setup) its stored starting position is replaced, before any move, by one
    in which none of Alice's dice can move: a1 is walled in, f1 can only step N by its
    current value 1."""
    alice = await clients("Alice")
    bob = await clients("Bob")
    number = await start_game(alice, bob, ranked=False)
    game = parlor.host.live[number]
    cells = notation.parse_board(STUCK)
    state = rules.State(cells=cells, turn=0, starter=0,
                        history=(rules.position_key(cells, 0),))
    assert not rules.has_ordinary_move(cells, 0)
    stored = notation.state_to_json(state)
    async with parlor.db.session() as tx:
        await tx.execute(sa.update(GameRecord).where(GameRecord.id == number)
                         .values(state=stored, initial_state=stored))
        await tx.commit()
    game.state = state

    out = await alice.cmd("dice", r"None of your(.|\n)*?e\.g\. DICE MOVE a1 2\.")
    flat = " ".join(out.split())
    assert ("None of your dice can move: turn one to a new value where it stands (DICE MOVE "
            "<cell> <value>) or move one its current value (DICE MOVE <cell> <direction>), "
            "e.g. DICE MOVE a1 2.") in flat
    await alice.cmd("dice move a1 2 N", r"The path from a1 to a3 is blocked at a2 \(and a1 "
                    r"cannot move at any new value\)\.")
    await alice.cmd("dice move a1 NE", "b2 is occupied")
    await alice.cmd("dice move a1 1", "A die must change its value")
    await alice.cmd("dice move a1 2", "Alice: MOVE a1 2\\. The 1 on a1 turns to 2 where it "
                    "stands\\.")
    await bob.expect("Alice: MOVE a1 2")
    await bob.cmd("dice move b1 3", "You can still move a die: turn one to a new value and "
                  "move it")
    await bob.cmd("dice move d6 2 S", "Bob: MOVE d6 2 S")
    await alice.expect("Bob: MOVE d6 2 S")
    assert [notation.format_action(a) for a in rules.legal_actions(game.state, 0)] == [
        "MOVE a1 1", "MOVE a1 3", "MOVE f1 2", "MOVE f1 3", "MOVE f1 N"]
    await alice.cmd("dice move f1 n", "Alice: MOVE f1 N\\. The 1 moves from f1 to f2 "
                    "unchanged\\.")
    out = await bob.cmd(f"replay {number}", "shows the board")
    assert "1. Alice: MOVE a1 2" in out and "3. Alice: MOVE f1 N" in out
    assert game.version == 3


async def test_a_client_plays_the_hard_computer_to_the_end(parlor, clients):
    alice = await clients("Alice")
    parlor.host.turns.computer_budget = 1.0          # the product's budget for the first reply
    await alice.cmd("dice challenge computer hard", "Alice vs Computer\\(hard\\)")
    game = next(g for g in parlor.host.live.values() if g.kind.key == "dice")
    assert game.seats[1].computer == "hard" and not game.ranked
    seat = 0
    rng = random.Random(3)
    timed = False
    for _ in range(200):  # the hard computer's search is CPU-bound: a busy machine slows it
        await wait_for(lambda: game.outcome is not None or game.state.turn == seat, 60)
        if game.outcome is not None:
            break
        action = rng.choice(list(rules.legal_actions(game.state, seat)))
        text = notation.format_action(action)
        version = game.version
        await alice.cmd(f"dice {text}", f"Alice: {re.escape(text)}")
        if not timed and game.outcome is None and game.state.turn == 1:
            # HARD thinks (up to 1 s) off the event loop: the server still answers at once
            timed = True
            # (how fast is measured in the issue note, not asserted: timings vary by machine)
            await alice.cmd("look", "Exits:")
            await wait_for(lambda: game.version > version + 1 or game.outcome is not None, 60)
            parlor.host.turns.computer_budget = 0.05     # the rest of the game quickly
    await alice.expect(f"Game #{game.id}: (Alice|Computer\\(hard\\)) wins|Game #{game.id} ends "
                       "in a draw", timeout=10)
    assert timed
    assert game.outcome is not None and game.id not in parlor.host.live
    out = await alice.cmd("dice status", "Unranked: .*")
    assert re.search(r"Unranked: [01] won, [01] lost", out)


async def test_gmcp_dice_game(parlor):
    mud = await (await Client.connect_mud(parlor.port, cols=120)).create("Mudder")
    await mud.cmd("dice challenge computer easy", "Mudder vs Computer\\(easy\\)")
    game = next(g for g in parlor.host.live.values() if g.kind.key == "dice")

    def latest() -> dict:
        return [d for p, d in mud.gmcp if p == "Dice.Game"][-1]

    await wait_for(lambda: game.state.turn == 0 and mud.gmcp
                   and latest()["version"] == game.version)
    last = latest()
    assert last["players"] == ["Mudder", "Computer(easy)"] and last["seat"] == 0
    view = last["view"]
    assert len(view["dice"]) == 12 and view["turn"] == 0 and view["removed"] == [0, 0]
    assert view["legal"] and all(a.startswith("MOVE ") for a in view["legal"])
    version = game.version
    await mud.cmd(f"dice {view['legal'][0]}", f"Mudder: {view['legal'][0]}")
    await wait_for(lambda: latest()["version"] > version)
    moved = latest()["view"]["last_move"]
    assert moved and moved["from"] == view["legal"][0].split()[1]
    await mud.close()


async def test_restart_mid_game_resumes_at_the_last_move(sqlite_url):
    parlor = assemble(make_config(sqlite_url))
    await parlor.start()
    try:
        alice = await (await Client.connect(parlor.port)).create("Alice")
        bob = await (await Client.connect(parlor.port)).create("Bob")
        number = await start_game(alice, bob, ranked=True)
        game = parlor.host.live[number]
        players = (alice, bob)
        for _ in range(2):
            seat = game.state.turn
            action = next(a for a in rules.legal_actions(game.state, seat)   # no Triad
                          if not any(isinstance(e, TriadsFormed)
                                     for e in rules.apply(game.state, seat, a)[1]))
            text = notation.format_action(action)
            await players[seat].cmd(f"dice {text}", f"{NAMES[seat]}: {re.escape(text)}")
            await players[1 - seat].expect(f"{NAMES[seat]}: {re.escape(text)}")
        saved = game.state
        assert game.version == 2
    finally:
        await parlor.stop()
    await alice.closed()

    parlor = assemble(make_config(sqlite_url))
    await parlor.start()
    try:
        game = parlor.host.live[number]
        assert game.version == 2 and game.state == saved
        seat = saved.turn
        me = await (await Client.connect(parlor.port)).login(NAMES[seat])
        out = await me.expect("You have a game in progress(.|\n)*?Your move:(.|\n)*?> ")
        for row in board_rows(saved):
            assert row in out
        assert f"Last move: {NAMES[1 - seat]} " in out
        action = next(rules.legal_actions(game.state, seat))
        text = notation.format_action(action)
        await me.cmd(f"dice {text}", f"{NAMES[seat]}: {re.escape(text)}")
        assert game.version == 3
    finally:
        await parlor.stop()

