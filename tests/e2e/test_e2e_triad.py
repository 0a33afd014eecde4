"""Triad over real telnet connections: a table of three players and a computer player
playing hands to showdown, a restart in the middle of a hand, the commands and their
usage, watchers, the clock and a disconnect."""

from __future__ import annotations

import asyncio
import re

import attrs
import sqlalchemy as sa

from commands.app import assemble
from games.triad import rules
from server.app import Parlor
from server.models import Account, LedgerEntry
from server.services import ledger, triad
from tests.conftest import make_config
from tests.support.client import ANSI, Client
from tests.support.waits import until


def config_for(url: str, **games):
    config = make_config(url)
    return attrs.evolve(config, games=attrs.evolve(config.games, **games))


async def start(url: str, **games) -> Parlor:
    parlor = assemble(config_for(url, **games))
    parlor.host.presence.presence_delay = 0.1
    await parlor.start()
    return parlor


async def drain(client: Client) -> None:
    """Read what has arrived (so no output queues up), and forget it."""
    while True:
        try:
            chunk = await asyncio.wait_for(client.reader.read(65536), 0.005)
        except asyncio.TimeoutError:
            break
        if not chunk:
            break
        client.seen += ANSI.sub("", chunk)
    client.buffer = ""


def announced(name: str, line: str) -> str:
    """The one line that tells ``name``'s move ``line`` (Triad notation) to the table: a
    draw in words, a bet as typed (docs/design.md, Screens, 3)."""
    words = line.split()
    if words[0] == "DRAW":
        n = len(words) - 1
        return f"{name} keeps all six cards." if not n else f"{name} discards {n} and draws {n}."
    return f"{name}: {line}"


async def moved(parlor: Parlor, number: int, version: int, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    game = parlor.host.live.get(number)
    while game is not None and game.version == version and number in parlor.host.live:
        assert loop.time() < deadline, f"table #{number} did not move past {version}"
        await asyncio.sleep(0.01)


async def play_hand(parlor: Parlor, number: int, players: dict[str, Client], policy) -> None:
    """Drive the table until the hand in play ends: each human types what ``policy``
    says at their turn; the computer plays by itself."""
    while True:
        game = parlor.host.live.get(number)
        if game is None:
            return
        table: triad.Table = game.state
        if table.game.phase == "hand_over":
            return
        movers = triad.to_move(table)
        if not movers or table.seats[movers[0]].computer:
            await moved(parlor, number, game.version)
            continue
        who = table.seats[movers[0]]
        client = players[who.name]
        command, line = policy(table, table.position(movers[0]), who.name)
        for other in players.values():
            await drain(other)
        version = game.version
        await client.cmd(command, re.escape(announced(who.name, line)))
        await moved(parlor, number, version)


def bets(table: triad.Table, pos: int) -> tuple[int, int, int, int]:
    """(to equal, stack, smallest raise, largest raise) for ``pos``."""
    s = table.game.seats[pos]
    lo, hi = rules.raise_bounds(table.game, pos)
    return table.game.current_bet - s.bet, s.stack, lo, hi


def coverage_policy(raised: set):
    """Hand 1: Carol goes all in, Bob folds to a raise, Alice raises once a round and
    equals anything (so the hand reaches a showdown); everybody throws two cards."""
    def policy(table: triad.Table, pos: int, name: str) -> tuple[str, str]:
        if table.game.phase == "draw":
            return "triad discard 1 2", "DRAW 1 2"
        to_equal, stack, lo, hi = bets(table, pos)
        if name == "Carol" and lo <= hi:
            return f"triad raise {hi}", f"RAISE {hi}"           # all in
        if name == "Bob" and to_equal:
            return "triad fold", "FOLD"
        key = (table.game.hand_no, table.game.phase)
        if name == "Alice" and key not in raised and lo <= hi:
            raised.add(key)
            return f"triad raise {lo}", f"RAISE {lo}"
        return ("triad equal", "EQUAL") if to_equal else ("triad pass", "PASS")
    return policy


def steady_policy(table: triad.Table, pos: int, name: str) -> tuple[str, str]:
    """Later hands: equal up to 40, keep or change a card, never raise."""
    if table.game.phase == "draw":
        if table.game.hand_no % 2:
            return "triad stand", "DRAW"
        return "triad discard 1", "DRAW 1"
    to_equal, stack, lo, hi = bets(table, pos)
    if not to_equal:
        return "triad pass", "PASS"
    return ("triad equal", "EQUAL") if to_equal <= 40 else ("triad fold", "FOLD")


async def deal(parlor: Parlor, number: int, players: dict[str, Client]) -> None:
    """A player who can pay the opening bet deals the next hand."""
    table: triad.Table = parlor.host.live[number].state
    name = next(table.name_at(pos) for pos, seat in enumerate(table.places)
                if seat is not None and table.name_at(pos) in players
                and rules.can_play(table.game, pos))
    await drain(players[name])
    await players[name].cmd("triad deal", f"Hand {table.game.hand_no + 1}: ")


def account_id(parlor: Parlor, name: str) -> int:
    return parlor.online.named(name).account.id


async def test_three_players_and_a_bot_play_to_showdown_and_a_restart_resumes(tmp_path):
    url = f"sqlite+aiosqlite:///{tmp_path}/triad.db"
    settings = dict(own={"triad": {"action_timeout": 30.0}}, reconnect_grace=30)
    parlor = await start(url, **settings)
    try:
        alice = await (await Client.connect(parlor.port)).create("Alice")
        bob = await (await Client.connect(parlor.port)).create("Bob")
        carol = await (await Client.connect(parlor.port)).create("Carol")
        players = {"Alice": alice, "Bob": bob, "Carol": carol}
        out = await alice.cmd("triad open 10 seats 4", r"You open Triad table #(\d+)")
        number = int(re.search(r"table #(\d+)", out).group(1))
        await bob.cmd(f"triad join {number}", "Bob sits down in seat 2 with 200 cubits")
        await carol.cmd(f"triad join {number} 40", "Carol sits down in seat 3 with 40 cubits")
        await alice.cmd("triad bot easy", "Computer 1 sits down in seat 4 with 200 cubits")
        await alice.cmd("triad start", "Hand 1: Alice deals to Bob, Carol, Computer 1 and "
                                       "Alice; each antes 10")
        await play_hand(parlor, number, players, coverage_policy(set()))
        for client in players.values():
            await drain(client)
        seen = alice.seen
        assert re.search(r"Carol: RAISE 30\s", seen) and "Bob: FOLD" in seen
        assert re.search(r"Alice: RAISE \d+\s", seen)
        assert "Carol is all in." in seen or "Carol: EQUAL" in seen
        assert "Alice discards 2 and draws 2." in seen
        shown = re.findall(r"(\w+(?: 1)?) shows ((?:\S+ ){5}\S+): ([^.\n]+)\.", seen)
        assert len(shown) >= 2, seen[-3000:]     # hands shown and named
        assert re.search(r"(The|The main) pot of \d+ goes to", seen)
        # two more hands: the dealer button moves, the table goes on
        await deal(parlor, number, players)
        await play_hand(parlor, number, players, steady_policy)
        await deal(parlor, number, players)
        # hand 3: one action, then the server stops in the middle of the hand
        game = parlor.host.live[number]
        while triad.to_move(game.state) and game.state.seats[
                triad.to_move(game.state)[0]].computer:
            await moved(parlor, number, game.version)
        table = game.state
        mover = table.seats[triad.to_move(table)[0]].name
        command, line = steady_policy(table, table.position(triad.to_move(table)[0]), mover)
        await players[mover].cmd(command, re.escape(announced(mover, line)))  # committed
        saved = triad.state_to_json(game.state)
        assert game.state.game.phase != "hand_over"
    finally:
        await parlor.stop()

    parlor = await start(url, **settings)
    try:
        again = parlor.host.live[number]
        assert triad.state_to_json(again.state) == saved       # resumed where it stood
        players = {}
        for name in ("Alice", "Bob", "Carol"):
            client = await (await Client.connect(parlor.port)).login(name)
            await client.expect(f"You have a game in progress: Game #{number}: Triad")
            players[name] = client
        await play_hand(parlor, number, players, steady_policy)
        assert parlor.host.live[number].state.game.hand_no == 3
        # everyone gets up: stacks go back, the computer's to the house, the table closes
        for name, client in players.items():
            if parlor.host.game_of(account_id(parlor, name), triad.KEY):
                await client.cmd("triad leave", f"{name} leaves the table")
        await until(lambda: number not in parlor.host.live, "the empty table closed")
        async with parlor.db.session() as tx:
            assert await ledger.audit(tx) == []          # balances match the ledger
            assert await triad.audit_tables(tx) == []    # every bet is in the table ledger
            rows = (await tx.execute(sa.select(Account.name, Account.cubits))).all()
            bankroll = await tx.scalar(sa.select(sa.func.sum(LedgerEntry.delta))
                                       .where(LedgerEntry.reason == triad.BANKROLL))
            buyins = await tx.scalar(sa.select(sa.func.count()).where(
                LedgerEntry.reason == triad.BUYIN, LedgerEntry.ref == f"game #{number}"))
        balances = dict(rows)
        assert bankroll == 200 and buyins == 4
        assert sum(balances.values()) - bankroll == 3000
    finally:
        await parlor.stop()


async def test_commands_usage_watchers_and_hidden_cards(parlor, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    carol = await clients("Carol")
    await alice.cmd("triad tables", "No Triad tables are open")
    await alice.cmd("triad", "You are not playing Triad")
    await alice.cmd("triad raise 10", "You are not at a Triad table")
    await alice.cmd("triad raise", r"Usage: TRIAD RAISE <n>")
    await alice.cmd("triad open 0", r"An amount is at least 1 cubit.  Usage: TRIAD OPEN")
    await alice.cmd("triad open 10 seats 9", r"A table has 2 to 6 seats.  Usage: TRIAD OPEN")
    await alice.cmd("triad open 10 limit 5", r"upper limit can't be below")
    await alice.cmd("triad open 10 sideways", r"'sideways' is not an option here")
    await alice.cmd("triad open 10 buyin 5000", "The buy-in is 5000 cubits and you have 1000")
    await alice.cmd("triad challenge bob", "Triad is played at tables")
    await alice.cmd("triad challenge computer", "Triad is played at tables")
    out = await alice.cmd("triad open 10 limit 30 seats 3 buyin 100", r"table #(\d+)")
    number = int(re.search(r"table #(\d+)", out).group(1))
    await alice.cmd("triad open", "You are already at Triad table")
    await bob.cmd("triad join", r"Usage: TRIAD JOIN <table> \[<cubits>\]")
    await bob.cmd("triad join abc", r"not a game number.  Usage: TRIAD JOIN")
    await bob.cmd("triad join 999", "There is no Triad table #999")
    await bob.cmd(f"triad join {number} 5", "Bring at least the opening bet, 10 cubits")
    await bob.cmd(f"triad join {number} 5000", "You have 1000 cubits; you can't bring 5000")
    await bob.cmd("triad start", "You are not at a Triad table")
    await alice.cmd("triad start", "Two players who can pay the opening bet")
    await bob.cmd(f"triad join {number}", "Bob sits down in seat 2 with 100 cubits")
    out = await carol.cmd("triad tables", r"TRIAD JOIN <table>")
    assert f"#{number}" in out and "Alice, Bob" in out and "2/3" in out
    await carol.cmd(f"triad watch {number}", "You are now watching game")
    await bob.cmd("triad bot 9", r"Seat 1 to 5 computer players at a time.  Usage: TRIAD BOT")
    await bob.cmd("triad bot genius", r"'genius' is not a number")
    await alice.cmd("triad pass", "There is no hand in play: TRIAD START")
    await drain(carol)
    await alice.cmd("triad start", "Hand 1: Alice deals to Bob and Alice")
    await carol.expect("Hand 1: Alice deals to Bob and Alice")
    await asyncio.sleep(0.1)
    await drain(carol)
    game = parlor.host.live[number]
    hands = {i: game.state.game.seats[i].cards for i in (0, 1)}
    # a watcher sees the backs of the cards, never the faces
    assert "## ## ## ## ## ##" in carol.seen
    assert not ({c for cards in hands.values() for c in cards} - {"C"}) & set(carol.seen.split())
    await drain(alice)
    out = await alice.cmd("triad hand", "Your hand: 1:.*")
    assert out.split("Your hand: ")[1].startswith("1:" + hands[0][0])
    await alice.cmd("triad pass", "It is not your turn: waiting for Bob")
    await bob.cmd("triad raise 5", "A raise is at least the minimum bet, 10")
    await bob.cmd("triad raise 40", "A raise is at most the upper limit, 30")
    await bob.cmd("triad raise ten", r"'ten' is not a number of cubits.  Usage: TRIAD RAISE")
    await bob.cmd("triad discard", r"TRIAD STAND keeps all six.  Usage: TRIAD DISCARD")
    await bob.cmd("triad discard 1 9", r"positions run 1 to 6.  Usage: TRIAD DISCARD")
    await bob.cmd("triad discard 1 2", "You can't discard or stand during the first betting "
                  "round")
    await bob.cmd("triad pass pass", r"Usage: TRIAD PASS")
    await bob.cmd("triad raise 10", "Bob: RAISE 10")
    await alice.cmd("triad call", "Alice: EQUAL")
    await carol.expect("The draw: discard up to four cards")
    await bob.cmd("triad discard 1 2 3 4 5", r"at most 4 cards\.  Usage: TRIAD DISCARD")
    await bob.cmd("triad discard 6, 5", "Bob discards 2 and draws 2")
    await alice.cmd("triad stand", "Alice keeps all six cards")
    await carol.expect("Alice keeps all six cards")
    await bob.cmd("triad pass", "Bob: PASS")
    await alice.cmd("triad pass", "Alice: PASS")
    out = await carol.expect(r"goes to|is split")
    assert len(re.findall(r"(Alice|Bob) shows (\S+ ){5}\S+: \w", out)) == 2  # shown, named
    await drain(alice)
    await alice.cmd("set width 100", "Width is now 100")
    out = await alice.cmd("triad help rules", r"-- More: ")  # taller than 40 rows: paged
    out += await alice.cmd("", r"  TRIAD HAND\r?\n")  # Enter: the next page
    text = " ".join(out.split())
    for words in ("Triad is a six-card draw game", "side pots", "Hands, best first: Full "
                  "Colors", "If you disconnect", "TRIAD DISCARD <positions", "TRIAD BOT [<n>]"):
        assert words in text, words
    await alice.cmd("help triad raise", r"Usage: TRIAD RAISE <n>(.|\n)*?limit")
    await alice.cmd("set width auto", "Width follows your client")
    # the watcher sits down (and is told things once, as a player)
    await drain(carol)
    await carol.cmd(f"triad join {number} 50", r"Carol sits down in seat 3 with 50 cubits")
    await asyncio.sleep(0.2)
    await drain(carol)
    assert carol.seen.count("Carol sits down") == 1
    await carol.cmd("triad leave", "Carol leaves the table with 50 cubits")
    # Bob gets up: with one player left the table closes and Alice's stack goes back
    await bob.cmd("triad leave", "Bob leaves the table with")
    await alice.expect(r"Triad table #\d+ closes: Alice is the only player left who can pay "
                       r"the opening bet of 10 cubits, and wins the table\.(.|\n)*?"
                       r"The table closes: Alice's \d+ cubits go back to their account")
    assert number not in parlor.host.live
    await alice.cmd("triad leave", "You are not at a Triad table")


async def test_the_clock_and_a_disconnect_at_the_players_turn(tmp_path):
    url = f"sqlite+aiosqlite:///{tmp_path}/triad.db"
    parlor = await start(url, own={"triad": {"action_timeout": 1.0}}, reconnect_grace=30)
    try:
        alice = await (await Client.connect(parlor.port)).create("Alice")
        bob = await (await Client.connect(parlor.port)).create("Bob")
        carol = await (await Client.connect(parlor.port)).create("Carol")
        out = await alice.cmd("triad open 10 seats 3 buyin 100", r"table #(\d+)")
        number = int(re.search(r"table #(\d+)", out).group(1))
        await bob.cmd(f"triad join {number}", "Bob sits down")
        await carol.cmd(f"triad join {number}", "Carol sits down")
        await alice.cmd("triad start", "Hand 1: Alice deals to Bob, Carol and Alice")
        # Bob lets his time run out: nobody has raised, so he passes
        await alice.expect(r"Time is up for Bob.\s+Bob: PASS", timeout=5)
        # Carol's connection drops at her turn: she passes at once, and leaves the
        # table, with her stack, when the hand ends
        await carol.close()
        await alice.expect(r"Carol is away: they pass or fold(.|\n)*?Carol is away.\s+"
                           r"Carol: PASS", timeout=5)
        assert "Carol: AWAY" not in alice.seen       # a seat change is told in words only
        await alice.cmd("triad raise 10", "Alice: RAISE 10")
        await bob.cmd("triad equal", "Bob: EQUAL")
        await alice.expect("Carol: FOLD")
        await alice.expect(r"Carol leaves the table with 90 cubits")
        await bob.cmd("triad stand", "Bob keeps all six cards")
        await alice.cmd("triad stand", "Alice keeps all six cards")
        await bob.cmd("triad pass", "Bob: PASS")
        await alice.cmd("triad pass", "Alice: PASS")
        await alice.expect("goes to|is split")
        async with parlor.db.session() as tx:
            carol_cubits = await tx.scalar(sa.select(Account.cubits).where(
                Account.name == "Carol"))
        assert carol_cubits == 1000 - 100 + 90
        # between hands the server deals the next hand after the pause (here: the clock)
        await alice.expect("Hand 2: Bob deals to Alice and Bob", timeout=5)
    finally:
        await parlor.stop()


async def test_gmcp_sends_the_table_as_the_player_may_see_it(parlor, clients):
    mud = await (await Client.connect_mud(parlor.port, cols=100)).create("Mudder")
    await mud.cmd("triad open 5 seats 2", "You open Triad table")
    await mud.cmd("triad bot", "Computer 1 sits down")
    await mud.cmd("triad start", "Hand 1: ")
    await asyncio.sleep(0.3)
    views = [d for p, d in mud.gmcp if p == "Triad.Game"]
    view = views[-1]["view"]
    assert views[-1]["seat"] == 0 and view["names"] == ["Mudder", "Computer 1"]
    me, bot = view["seats"]
    assert len(me["cards"]) == 6 and me["hand_name"]
    assert bot["cards"] == [] and bot["hidden_cards"] == 6
    assert view["table"]["computer"] == [1] and view["opening"] == 5
    await mud.close()


# -- the bare prefix, and seat changes told in words only ---------------------------------------
RAW_SEAT_CHANGE = re.compile(r"\w+( \d+)?: (SIT|LEAVE|AWAY|BACK)\b")  # "Bob: SIT 2 100 7 - Bob"


async def test_bare_triad_off_a_table_shows_how_tables_work(parlor, clients):
    alice = await clients("Alice")
    out = await alice.cmd("triad", r"TRIAD HELP for the rules and commands\.")
    text = " ".join(out.split())
    for words in ("TRIAD TABLES", "TRIAD OPEN", "TRIAD JOIN <table>", "TRIAD BOT",
                  "TRIAD HELP"):
        assert words in text, words
    assert "CHALLENGE" not in text
    # at a table, the bare prefix shows it
    await alice.cmd("triad open 10 seats 2", "You open Triad table")
    await alice.cmd("triad", "The table is open: 1 of 2 seats taken")
    # the other challenge games keep their CHALLENGE hint
    await alice.cmd("dice", "You are not playing Triad Dice\\. DICE CHALLENGE <person>")


async def test_seat_changes_are_told_in_words_moves_as_typed(parlor, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    carol = await clients("Carol")
    out = await alice.cmd("triad open 10 seats 4 buyin 100", r"table #(\d+)")
    number = int(re.search(r"table #(\d+)", out).group(1))
    await bob.cmd(f"triad join {number}", "Bob sits down in seat 2 with 100 cubits")
    await alice.expect("Bob sits down in seat 2 with 100 cubits")
    await alice.cmd("triad bot easy", "Computer 1 sits down in seat 3 with 100 cubits")
    # between hands LEAVE stands up at once; JOIN again takes the old seat back
    await bob.cmd("triad leave", "Bob leaves the table with 100 cubits")
    await bob.cmd(f"triad join {number}", "Bob sits down in seat 2 with 100 cubits")
    await alice.expect("Bob sits down in seat 2 with 100 cubits")
    await alice.cmd("triad start", "Hand 1: ")
    await carol.cmd(f"triad join {number}", "Carol sits down in seat 4 with 100 cubits "
                    r"\(dealt in from the next hand\)")
    await carol.cmd("triad resign", "Carol leaves the table with 100 cubits")
    # during a hand LEAVE waits for its end, and BACK takes it back
    await bob.cmd("triad leave", "Bob will leave the table when this hand ends")
    await alice.expect("Bob will leave the table when this hand ends")
    await bob.cmd("triad back", "Bob stays at the table")
    await alice.expect("Bob stays at the table")
    # a move is still told as typed, "<name>: <move>"
    game = parlor.host.live[number]
    for _ in range(100):
        movers = triad.to_move(game.state)
        if movers and not game.seats[movers[0]].computer:
            break
        await asyncio.sleep(0.05)
    seat = triad.to_move(game.state)[0]
    who = game.seats[seat].name
    verb = "PASS" if bets(game.state, game.state.position(seat))[0] == 0 else "FOLD"
    await {"Alice": alice, "Bob": bob}[who].cmd(f"triad {verb}", f"{who}: {verb}")
    await asyncio.sleep(0.2)
    for client in (alice, bob, carol):
        await drain(client)
        assert not RAW_SEAT_CHANGE.search(client.seen), client.seen
    assert "Bob: SIT" not in alice.seen and "Computer 1: SIT" not in alice.seen
