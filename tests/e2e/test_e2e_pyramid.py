"""Pyramid over real sockets: telnet clients play standard games (HINT, AUTO, the keyboard
grammar, refusals, CONFIG, SOLUTION), tournaments against the computer (to the TOP 10)
and against a person, and a tournament that outlives server restarts (without SAVE, and
with SAVE and RESTORE).

The deals are the server's own (random seeds); where a test must score well it reads
the deal the server dealt and, with the engine's solver offline, types a good line of
play move by move, like a player who had worked it out.
"""

from __future__ import annotations

import asyncio
import re


from commands.app import assemble
from games.pyramid import notation, rules, solver
from games.pyramid.cards import COVERED_BY, card_text, rank, spot_name
from server.app import Parlor
from server.services import pyramid
from tests.conftest import make_config
from tests.support.client import ANSI, Client

KEY = "pyr"


# -- helpers --------------------------------------------------------------------------------
def live(parlor: Parlor, name: str):  # noqa: ANN201
    session = parlor.online.named(name)
    return parlor.host.game_of(session.account.id, KEY)


def said(text: str) -> str:
    """A regex for a sentence the server may have word-wrapped."""
    return r"\s+".join(re.escape(word) for word in text.split())


def good_line(seed: int) -> tuple[tuple, int]:
    """A line of play for the deal of ``seed`` worked out with every card seen: the
    solver's pyramid-clearing line played on to the end, else its best Par line."""
    game = rules.Game.dealt(seed)
    cleared = solver.solve(game, "pyramid", time_limit=3.0)
    if cleared.result == "win":
        end, line = solver._finish_line(game, cleared.moves)
        return line, end.score
    best = solver.solve(game, "par", time_limit=1.0)
    return best.moves, best.score


def compact(action) -> str:  # noqa: ANN001
    """The keypad/compact spelling of a move: "71 63", "8 72", "0"."""
    if action.kind == "deal":
        return "0"
    if action.kind == "end":
        return "END"
    keys = {"P": "8", "W": "9"}
    return " ".join(keys.get(s, s.replace(",", "")) for s in action.spots)


async def play_line(client: Client, line, name: str, keypad: bool = False) -> None:  # noqa: ANN001
    for action in line:
        typed = compact(action) if keypad else notation.format_action(action)
        shown = notation.format_action(action)
        await client.cmd(f"pyr {typed}", re.escape(f"{name}: {shown}") + r"\r?\n")


async def raw_reply(client: Client, line: str, until: str, timeout: float = 5.0) -> str:
    """Send ``line``; return what comes back (colour codes kept) up to ``until``."""
    client.buffer = ""
    client.send(line)
    raw = ""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while until not in ANSI.sub("", raw):
        raw += await asyncio.wait_for(client.reader.read(65536), deadline - loop.time())
    return raw


def two_available_not_13(g: rules.Game) -> tuple[str, str, int]:
    spots = [s for s in g.available() if s not in ("P", "W")]
    for i, a in enumerate(spots):
        for b in spots[i + 1:]:
            ra, rb = rank(g.card_at(a)), rank(g.card_at(b))
            if ra != 13 and rb != 13 and ra + rb != 13:
                return a, b, ra + rb
    raise AssertionError("no such pair")


# -- standard play ----------------------------------------------------------------------------
async def test_standard_game_with_grammar_refusals_hint_and_auto(parlor, clients):
    alice = await clients("Alice")
    await alice.cmd("pyr", "You are not playing Pyramid. PYR NEW deals a standard game")
    await alice.cmd("pyr 7,1 6,3", "You are not playing Pyramid")
    await alice.cmd("pyr new", r"Game #\d+: Pyramid, Alice begins \(standard play\)")
    game = live(parlor, "Alice")
    g = game.state.matches[0].game

    # Refusals: one line each, context-sensitive, and nothing changes.
    covering = " and ".join(spot_name(j) for j in COVERED_BY[0])
    await alice.cmd("pyr 1,1", f"1,1 is covered by {covering}\\.")
    a, b, total = two_available_not_13(g)
    va, vb = (rules.rank_text(rank(g.card_at(s))) for s in (a, b))
    await alice.cmd(f"pyr {a} {b}", re.escape(f"{va} + {vb} is {total}, not 13."))
    await alice.cmd("pyr 7,9", r"There is no card 7,9: row 7 has columns 1 to 7\.\r?\n> ")
    await alice.cmd("pyr fly", "PYR FLY: there is no such PYR command")
    await alice.cmd("pyr new extra", r"Usage: PYR NEW \[YES\]")
    await alice.cmd("pyr auto now", r"Usage: PYR AUTO \[STOP\]")
    await alice.cmd("pyr save", "SAVE is for tournament play")
    await alice.cmd("pyr top 10", "The TOP 10 is empty")
    await alice.cmd("pyr ?", r"Usage: PYR \[<command>\](.|\n)*SOLUTION")
    assert game.version == 0

    # HINT, then the hinted move typed in the compact grammar (or D on the keypad).
    out = await alice.cmd("pyr hint", r"(Hint: PYR [^\n]*\)\.|No cards can be removed now)",
                          30)  # the solver is CPU-bound: slow on a busy machine
    hinted = re.search(r"Hint: PYR ([PW0-9, ]+) \(", out)
    if hinted:
        action = notation.parse_action(hinted.group(1))
    else:
        action = rules.DEAL
    await play_line(alice, [action], "Alice", keypad=True)
    assert game.version == 1
    await alice.cmd("pyr 0", r"Alice: D\r?\n")  # keypad 0 = D
    await alice.cmd("pyr new", said("NEW ends this game as it stands") + r"[\s\S]*?"
                    + said("Type PYR NEW YES"))
    await alice.cmd("pyr quit", said("QUIT ends this game as it stands") + r"[\s\S]*?"
                    + said("Type PYR QUIT YES"))
    await alice.cmd("pyr score", "Standard game: [0-9]+ cards left")

    # Config, kept with the account; with error messages off a refusal is just the bell.
    await alice.cmd("pyr config speed fast errors no sound partial", "Config saved:")
    await alice.cmd("pyr config", r"Speed +fast(.|\n)*Error messages no(.|\n)*Sound +partial")
    await alice.cmd("pyr config mouse yes", "Mouse has no meaning over telnet")
    await alice.cmd("pyr config speed warp", r"'warp' is not a value for speed .*Usage: PYR CONFIG")
    raw = await raw_reply(alice, "pyr 1,1", "> ")
    assert "\x07" in raw and "covered" not in raw
    await alice.cmd("pyr config -errormsgon -nosound", "Config saved:")
    raw = await raw_reply(alice, "pyr 1,1", "> ")
    assert "\x07" not in raw and "covered by" in raw

    # AUTO finishes the game; then the solver's verdict and PYR SOLUTION.
    await alice.cmd("pyr auto", "AUTO finishes your game at fast speed")
    await alice.expect(r"Game #\d+(: Alice wins| is over) \(", timeout=60)
    verdict = await alice.expect(r"The solver, seeing every card: [^>]*?PYR\s+SOLUTION", timeout=30)
    assert "could" in verdict or "not decided" in verdict
    assert live(parlor, "Alice") is None
    await alice.cmd("pyr", "You are not playing Pyramid")
    out = await alice.cmd("pyr solution", r"The best line for your last game(.|\n)*?\n> ",
                          timeout=30)
    assert re.search(r"Par score [+-]\d+", out) and "1. " in out
    # the line shown replays on the deal to the score it claims
    seed = game.state.matches[0].seeds[0]
    found = parlor.host.kind(pyramid.KEY)._lines[seed].best
    end = rules.Game.dealt(seed)
    for action in found.moves:
        end, _ = rules.play(end, action)
    assert end.over and end.score == found.score and f"Par score {found.score:+d}" in out

    # NEW deals at once when no game is in progress; a fresh game needs no confirmation.
    await alice.cmd("pyr new", r"Pyramid, Alice begins")
    first = live(parlor, "Alice")
    await alice.cmd("pyr new", r"Pyramid, Alice begins")
    assert live(parlor, "Alice").id != first.id


async def test_board_colour_width_and_gmcp(parlor, clients):
    mud = await Client.connect_mud(parlor.port, cols=80)
    try:
        await mud.create("Mudder")
        await mud.cmd("pyr new", "begins")
        for _ in range(40):
            if any(p == "Pyramid.Game" for p, _ in mud.gmcp):
                break
            await asyncio.sleep(0.05)
        data = [d for p, d in mud.gmcp if p == "Pyramid.Game"][-1]
        view = data["view"]
        assert data["players"] == ["Mudder"] and data["seat"] == 0
        assert len(view["pyramid"]) == 28 and view["pack_count"] == 24
        assert "pack" not in view and "seeds" not in view  # the Pack order stays hidden
        g = live(parlor, "Mudder").state.matches[0].game
        assert view["pack_top"]["text"] == card_text(g.pack[0])

        coloured = await raw_reply(mud, "pyr", "Pair to 13")
        assert "\x1b[31;1m" in coloured or "\x1b[37;1m" in coloured  # red / black suits
        await mud.cmd("set color off", "Color is now OFF")
        await asyncio.sleep(0.05)
        plain = await raw_reply(mud, "pyr", "Pair to 13")
        assert "\x1b[" not in plain
        lines = plain.replace("\r", "").split("\n")
        assert all(len(line) <= 80 for line in lines)
        assert any(line.startswith("      1     2     3") for line in lines)  # columns on top
        row7 = next(line for line in lines if line.startswith(" 7 "))  # rows at the left
        for col in range(1, 8):
            assert card_text(g.pyramid[rules.index_of(7, col)]) in row7
        assert any("Pack (P)" in line and "Waste (W)" in line for line in lines)
        assert any("redeals left: 2" in line for line in lines)
    finally:
        await mud.close()


# -- tournaments ------------------------------------------------------------------------------
async def test_tournament_against_the_computer_enters_the_top10(parlor, clients):
    alice = await clients("Alice")
    await alice.cmd("pyr tour computer easy", r"Pyramid, Alice vs Computer\(easy\) begins "
                    r"\(a six-game tournament, own deals\)")
    await alice.cmd("pyr hint", "HINT is not available in tournament play")
    await alice.cmd("pyr auto", "AUTO is not available in tournament play")
    await alice.cmd("pyr quit", "In tournament play QUIT is replaced by EXIT")
    await alice.cmd("pyr tour none", "You are in tournament play already")
    # Work out the six deals; a match that cannot end above par is started again (NEW).
    for _ in range(6):
        game = live(parlor, "Alice")
        seeds = game.state.matches[0].seeds
        lines = [good_line(seed) for seed in seeds]
        if sum(score for _, score in lines) > 0:
            break
        await alice.cmd("pyr new yes", "Pyramid, Alice vs Computer\\(easy\\) begins")
    else:
        raise AssertionError("six matches in a row could not end above par")
    expected = sum(score for _, score in lines)
    assert game.state.matches[1].seeds != seeds  # own deals
    for number, (line, score) in enumerate(lines, 1):
        await play_line(alice, line, "Alice", keypad=number % 2 == 0)
        await alice.expect(f"Game {number} of 6 over \\([^)]*\\): Par score "
                           + re.escape(f"{score:+d}"))
        if number == 2:
            out = await alice.cmd("pyr score", r"Tournament scores(.|\n)*?\n> ")
            assert re.search(r"Alice +[+-]\d+ +[+-]\d+ ", out) and "Computer(easy)" in out
    out = await alice.expect(r"enters the TOP 10 at place 1 with [+]\d+", timeout=60)
    assert f"Alice {expected:+d}" in out  # the final line names both nets
    assert live(parlor, "Alice") is None
    out = await alice.cmd("pyr top10", r"Pyramid TOP 10(.|\n)*?\n> ")
    assert re.search(rf"1 +Alice +{re.escape(f'{expected:+d}')} +\d{{4}}-\d\d-\d\d +"
                     r"Computer\(easy\)", out)
    # the computer played its own six games meanwhile, and is not in the TOP 10
    top = await parlor.host.kind(pyramid.KEY).top10()
    assert [(r.name, r.score) for r in top] == [("Alice", expected)]


async def test_two_players_play_a_tournament_with_the_same_deals(parlor, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    await alice.cmd("pyr config samedeck yes", "Config saved:")
    await alice.cmd("pyr tour human bob",
                    r"You offer Bob Pyramid \(a six-game tournament, same deals\)")
    await bob.expect("Alice challenges you to Pyramid \\(a six-game tournament, same deals\\)"
                     "\\. Type PYR ACCEPT Alice")
    await bob.cmd("pyr accept alice", "Pyramid, Alice vs Bob begins")
    await alice.expect("Pyramid, Alice vs Bob begins")
    game = live(parlor, "Alice")
    assert live(parlor, "Bob") is game
    assert game.state.matches[0].seeds == game.state.matches[1].seeds  # Use Same Deck

    # Each plays at once; a move is told to its player only ...
    await bob.cmd("pyr d", r"Bob: D\r?\n")
    await alice.cmd("pyr d", r"Alice: D\r?\n")
    await asyncio.sleep(0.2)
    assert "Bob: D" not in alice.seen and "Alice: D" not in bob.seen
    # ... until a game ends: then the other hears of it and sees the running score (not
    # the move that ended it: Bob is still to play that deal).
    await alice.cmd("pyr end", "Game 1 of 6 over")
    out = await bob.expect(r"Alice: Game 1 of 6 over[^\n]*net (-\d+)")
    assert "Alice: END" not in bob.seen
    net = int(re.findall(r"net (-\d+)", out)[-1])
    await bob.cmd("pyr", rf"Alice: game 2 of 6 \(52 cards left\), scores {net:+d}, net {net:+d}")
    await bob.cmd("pyr save", "A tournament against a person cannot be saved")
    await bob.cmd("pyr new yes", "Against a person NEW would restart")
    for number in range(2, 7):
        await alice.cmd("pyr end", f"Game {number} of 6 over")
    out = await alice.cmd("pyr", r"\[to move: Bob\](.|\n)*?Bob: game 1 of 6")
    await bob.expect("Game 6 of 6 over")  # told in a line: not Bob's move to redraw
    await bob.cmd("pyr", "Alice: all 6 games played")
    # A replay shows no more than a watcher sees: nothing of deals Bob is still to finish.
    out = await bob.cmd(f"replay {game.id}", r"\(REPLAY \d+ <move> shows(.|\n)*?Bob: game 1")
    assert "Bob: D" not in out and "Alice: END" not in out and "stay hidden" in out
    await bob.cmd("pyr exit", "EXIT resigns this tournament")
    await bob.cmd("pyr exit yes", r"Game #\d+: Alice wins \(resignation\)")
    await alice.expect(r"Game #\d+: Alice wins \(resignation\)")
    out = await bob.cmd(f"replay {game.id}", r"\(REPLAY \d+ <move> shows")
    assert "Bob: D" in out and "Alice: END" in out  # over: everything
    assert live(parlor, "Alice") is None and live(parlor, "Bob") is None


async def test_a_tournament_outlives_restarts_and_is_finished_after_restore(sqlite_url):
    parlor = assemble(make_config(sqlite_url))
    await parlor.start()
    alice = await (await Client.connect(parlor.port)).create("Alice")
    await alice.cmd("pyr tour none", r"Pyramid, Alice begins \(a six-game tournament")
    await alice.cmd("pyr d", r"Alice: D\r?\n")
    await alice.close()                       # a disconnect: the tournament waits
    alice = await (await Client.connect(parlor.port)).login("Alice")
    await alice.expect(r"You have a game in progress: Game #\d+: Pyramid, Alice"
                       r"(.|\n)*?tournament game 1 of 6(.|\n)*?23 left")
    await alice.cmd("pyr d", r"Alice: D\r?\n")
    before = live(parlor, "Alice").state
    await parlor.stop()
    await alice.closed()

    # A restart without SAVE: the tournament waits, as it was.
    parlor = assemble(make_config(sqlite_url))
    await parlor.start()
    try:
        alice = await (await Client.connect(parlor.port)).login("Alice")
        await alice.expect(r"You have a game in progress: Game #\d+: Pyramid, Alice"
                           r"(.|\n)*?tournament game 1 of 6(.|\n)*?22 left")
        assert live(parlor, "Alice").state == before
        await alice.cmd("pyr restore", "Your tournament is in play .*it needs no RESTORE")
        await alice.cmd("pyr end", "Game 2 of 6 is dealt")
        await alice.cmd("pyr exit", said("PYR SAVE puts it away instead"))
        out = await alice.cmd("pyr save", r"saved as #(\d+) \(alone, game 2 of 6, net (-\d+)\)")
        saved = live(parlor, "Alice")
        assert saved is None
        await alice.cmd("pyr", said("You have 1 saved tournament: PYR RESTORE."))
        await alice.cmd("pyr new", r"Pyramid, Alice begins \(standard play\)")
        await alice.cmd("pyr d", r"Alice: D\r?\n")
    finally:
        await parlor.stop()
    await alice.closed()

    # Another restart; RESTORE ends the standard game in progress (confirmed) and takes
    # the tournament up again exactly where it was; then it is played to the end.
    parlor = assemble(make_config(sqlite_url))
    await parlor.start()
    try:
        alice = await (await Client.connect(parlor.port)).login("Alice")
        await alice.expect("You have a game in progress")
        await alice.cmd("pyr restore", said("Your standard game is in progress") + r"[\s\S]*?"
                        + r"PYR\s+RESTORE\s+\d+\s+YES")
        await alice.cmd("pyr restore yes", r"Pyramid, Alice begins \(a saved tournament\)")
        table = live(parlor, "Alice").state
        assert table.matches[0].game_no == 2 and len(table.matches[0].scores) == 1
        assert table.matches[0].seeds == before.matches[0].seeds
        for number in range(2, 7):
            await alice.cmd("pyr end", f"Game {number} of 6 over")
        await alice.expect(r"Game #\d+ is over \(six games, net Par score -\d+\)")
        await alice.cmd("pyr restore", "You have no saved tournament")
        await alice.cmd("pyr top10", "The TOP 10 is empty")  # below par: not entered
    finally:
        await parlor.stop()


async def test_the_same_deal_is_not_solved_for_one_while_the_other_plays_it(parlor, clients):
    """Use Same Deck: the verdict and PYR SOLUTION show the face-down Pack, so the player
    who finishes a deal first waits for them until the other has finished it too."""
    alice = await clients("Alice")
    bob = await clients("Bob")
    await alice.cmd("pyr config samedeck yes", "Config saved:")
    await alice.cmd("pyr tour human bob", r"You offer Bob Pyramid")
    await bob.expect("Type PYR ACCEPT Alice")
    await bob.cmd("pyr accept alice", "Pyramid, Alice vs Bob begins")
    await alice.cmd("pyr d", r"Alice: D\r?\n")
    await bob.cmd("pyr d", r"Bob: D\r?\n")
    await alice.cmd("pyr end", "Game 1 of 6 over")
    await alice.expect("verdict on game 1 of 6 of your tournament .* waits until Bob has "
                       "finished that deal too", timeout=20)
    await alice.cmd("pyr solution", "Bob is still playing that deal")
    assert "The best line" not in alice.seen and "could" not in alice.seen
    await bob.cmd("pyr end", "Game 1 of 6 over")
    await alice.expect("could (not )?have been (won|cleared)", timeout=30)
    await bob.expect("could (not )?have been (won|cleared)", timeout=30)
    await alice.cmd("pyr solution", "The best line for game 1 of 6", timeout=30)
