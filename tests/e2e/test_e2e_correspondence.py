"""Correspondence play over real sockets: Triad Dice games whose players log in only to
move (``DICE CHALLENGE <person> DAYS <n>``, MYGAMES, the login notice, the clock).

A "day" is shortened by ``[games] correspondence_day``. The whole game is a line of play
found offline from the position the server rolled (as in test_e2e_dice.py), typed by
players who each log in, move, and leave; the parlor restarts on the same database in
the middle. A game is lost on time while the parlor is down (the clock is the stored
last move plus the days a move, so the restarted parlor ends it at once), and another
while both players watch.
"""

from __future__ import annotations

import asyncio
import re
import time

import attrs
import httpx
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import create_async_engine

from commands.app import assemble
from games.dice import notation, rules
from server.config import ClusterSection
from server.models import GameRecord
from server.web import WebDoor
from tests.conftest import make_config
from tests.support.teardown import cleanup
from tests.e2e.test_e2e_dice import plan_a_win_with_a_choice
from tests.support.client import Client

NAMES = ("Alice", "Bob")


def config_with_day(url: str, day: float):  # noqa: ANN201
    config = make_config(url)
    return attrs.evolve(config, games=attrs.evolve(config.games, correspondence_day=day))


async def start(url: str, day: float):  # noqa: ANN201
    parlor = assemble(config_with_day(url, day))
    await parlor.start()
    return parlor


async def visit(parlor, name: str) -> Client:  # noqa: ANN001
    return await (await Client.connect(parlor.port)).login(name)


async def leave(client: Client) -> None:
    client.send("quit")
    await client.closed()


async def stored(parlor, number: int) -> GameRecord:  # noqa: ANN001
    async with parlor.db.session() as tx:
        return await tx.scalar(sa.select(GameRecord).where(GameRecord.id == number))


async def wait_until_offline(parlor, *names: str) -> None:  # noqa: ANN001
    """Until the parlor has seen each of ``names`` leave (bounded)."""
    deadline = time.monotonic() + 10
    while any(parlor.online.named(n) is not None for n in names):
        assert time.monotonic() < deadline, f"{names} still online"
        await parlor_pause()


async def parlor_pause() -> None:
    await asyncio.sleep(0.05)


async def challenge_by_letter(parlor, days: int) -> int:  # noqa: ANN001
    """Alice challenges Bob, who is away, by correspondence and leaves; Bob logs in, is
    told of it, and accepts it while Alice is away. The game's number."""
    alice = await visit(parlor, "Alice")
    await alice.cmd("help dice challenge", "DAYS <n> offers a correspondence game")
    await alice.cmd(f"dice challenge bob days {days}",
                    rf"You challenge Bob to Triad Dice \(unranked, {days} days? a move\) by "
                    "correspondence")
    await leave(alice)
    await wait_until_offline(parlor, "Alice")
    bob = await visit(parlor, "Bob")
    await bob.expect(rf"Alice challenges you to Triad Dice \(unranked, {days} days? a move\), "
                     r"by correspondence\. Type DICE ACCEPT Alice")
    out = await bob.cmd("dice accept alice", r"Game #(\d+): Triad Dice, Alice vs Bob begins")
    number = int(re.findall(r"Game #(\d+): Triad Dice, Alice vs Bob begins", out)[-1])
    await leave(bob)
    await wait_until_offline(parlor, "Bob")
    return number


async def test_a_whole_game_by_correspondence_across_a_restart(sqlite_url):
    parlor = await start(sqlite_url, day=3600.0)
    try:
        for name in NAMES:
            await leave(await (await Client.connect(parlor.port)).create(name))
        await wait_until_offline(parlor, *NAMES)
        number = await challenge_by_letter(parlor, days=2)
        game = parlor.host.live[number]
        script = plan_a_win_with_a_choice(game.state)
        # the moves in turns: each turn is one visit (a move, and a removal it calls for)
        turns: list[tuple[int, list[str]]] = []
        for seat, action in script:
            if turns and turns[-1][0] == seat:
                turns[-1][1].append(notation.format_action(action))
            else:
                turns.append((seat, [notation.format_action(action)]))
        halfway = len(turns) // 2
        for index, (seat, moves) in enumerate(turns):
            if index == halfway:  # the parlor restarts; the game and its clock go on
                await parlor.stop()
                parlor = await start(sqlite_url, day=3600.0)
                assert parlor.host.live[number].version == sum(len(m) for _, m in turns[:index])
            me = await visit(parlor, NAMES[seat])
            await me.expect(rf"Your move in game #{number} \(Triad Dice, 2 days a move, "
                            r"1 day 23 hours left\)\.")
            if index:
                await me.expect(f"Last move: {NAMES[1 - seat]}: ")
            if index == 1:
                out = await me.cmd("mygames", r"MYGAMES <game> goes to one: its board")
                assert re.search(rf"#{number} +Triad Dice +{NAMES[1 - seat]} +yours +2 days "
                                 r"a move +1 day 23 hours", out), out
                await me.cmd("dice claim", f"Game #{number} is played by correspondence")
            for text in moves:
                await me.cmd(f"dice {text}", f"{NAMES[seat]}: {re.escape(text)}")
            last = index == len(turns) - 1
            if last:
                await me.expect(rf"Game #{number}: {NAMES[seat]} wins")
            await leave(me)
            await wait_until_offline(parlor, NAMES[seat])
        record = await stored(parlor, number)
        assert record.status == "finished" and record.result["winner"] == turns[-1][0]
        loser = await visit(parlor, NAMES[1 - turns[-1][0]])
        await loser.expect(rf"While you were away(.|\n)*Game #{number}: "
                           rf"{NAMES[turns[-1][0]]} wins")
        await loser.cmd("mygames", "You have no correspondence games")
        await leave(loser)
    finally:
        await parlor.stop()


async def test_games_lost_on_time_across_a_restart_and_while_both_watch(sqlite_url):
    parlor = await start(sqlite_url, day=600.0)
    try:
        for name in NAMES:
            await leave(await (await Client.connect(parlor.port)).create(name))
        await wait_until_offline(parlor, *NAMES)
        number = await challenge_by_letter(parlor, days=1)
        mover = parlor.host.live[number].state.turn
    finally:
        await parlor.stop()

    # the parlor stays down for two hours (the game's last change, as stored, is made two
    # hours older), and the next one counts a day as an hour: the game's clock, read from
    # the store, ran out while the parlor was down, and it is lost on time at once
    engine = create_async_engine(sqlite_url)
    async with engine.begin() as conn:
        await conn.execute(sa.update(GameRecord).where(GameRecord.id == number)
                           .values(updated_at=GameRecord.updated_at - 7200))
    await engine.dispose()
    parlor = await start(sqlite_url, day=3600.0)
    try:
        deadline = time.monotonic() + 10
        while (record := await stored(parlor, number)).status != "finished":
            assert time.monotonic() < deadline, "the game was not lost on time"
            await parlor_pause()
        assert record.result["winner"] == 1 - mover
        for seat in (mover, 1 - mover):
            player = await visit(parlor, NAMES[seat])
            await player.expect(rf"While you were away(.|\n)*Time is up in game #{number}: "
                                rf"{NAMES[mover]} did not move within 1 day, and loses on "
                                rf"time\. Game #{number}: {NAMES[1 - mover]} wins")
            await leave(player)
            await wait_until_offline(parlor, NAMES[seat])
    finally:
        await parlor.stop()

    # both online: each is told at once
    parlor = await start(sqlite_url, day=0.5)
    try:
        alice, bob = await visit(parlor, "Alice"), await visit(parlor, "Bob")
        await alice.cmd("dice challenge bob days 1", "You challenge Bob")
        await bob.expect("Alice challenges you")
        bob.send("dice accept alice")
        out = await alice.expect(r"Game #(\d+): Triad Dice, Alice vs Bob begins")
        second = int(re.findall(r"Game #(\d+)", out)[-1])
        for player in (alice, bob):
            await player.expect(rf"Time is up in game #{second}: \w+ did not move within "
                                r"1 day, and loses on time\.", timeout=10)
        assert (await stored(parlor, second)).status == "finished"
        await leave(alice)
        await leave(bob)
    finally:
        await parlor.stop()


async def test_refusals_and_a_game_at_a_sitting_beside_one_by_correspondence(sqlite_url):
    parlor = await start(sqlite_url, day=3600.0)
    try:
        alice = await (await Client.connect(parlor.port)).create("Alice")
        bob = await (await Client.connect(parlor.port)).create("Bob")
        for line, answer in [
                ("dice challenge bob days 15", "The number of days a move must be 1 to 14"),
                ("dice challenge bob days", r"DAYS takes the days a move .*DAYS <n>, 1 to 14"),
                ("ttt challenge bob days 3", "Noughts and Crosses is not played by correspondence"),
                ("dice challenge carol days 3", "There is no player named carol"),
                ("dice challenge alice days 3", "You cannot challenge yourself")]:
            await alice.cmd(line, answer)
        await alice.cmd("dice challenge bob days 3", "by correspondence")
        await bob.expect(r"Alice challenges you to Triad Dice \(unranked, 3 days a move\), by "
                         "correspondence")
        await alice.cmd("pending", r"to Bob: Triad Dice \(unranked, 3 days a move\)")
        await bob.cmd("dice accept", "Game #1: Triad Dice, Alice vs Bob begins")
        letter = parlor.host.live[1]
        # a game at a sitting beside it: the players' DICE commands act on that one ...
        await alice.cmd("dice challenge bob", "You challenge Bob")
        await bob.cmd("dice accept alice", "Game #2: Triad Dice, Alice vs Bob begins")
        sitting = parlor.host.live[2]
        seat = sitting.state.turn
        player = (alice, bob)[seat]
        text = notation.format_action(next(iter(rules.legal_actions(sitting.state, seat))))
        await player.cmd(f"dice {text}", f"{NAMES[seat]}: {re.escape(text)}")
        assert sitting.version == 1 and letter.version == 0
        # ... until they go to the correspondence game
        seat = letter.state.turn
        player = (alice, bob)[seat]
        await player.cmd("mygames 1", "You go to game #1: your DICE commands act on it")
        text = notation.format_action(next(iter(rules.legal_actions(letter.state, seat))))
        await player.cmd(f"dice {text}", f"{NAMES[seat]}: {re.escape(text)}")
        assert letter.version == 1 and sitting.version == 1
        await player.cmd("mygames 3", "Game #3 is not one of your games in play")
        await player.cmd("mygames 2", "You go to game #2")  # back to the game at a sitting
        await player.cmd("dice resign", "Game #2: .* wins")
        assert letter.outcome is None
        # leaving asks no confirmation for a correspondence game, and claims nothing
        player.send("quit")
        await player.closed()
        other = (alice, bob)[1 - seat]
        await other.expect(f"{NAMES[seat]} has left")
        await other.cmd("dice claim", "Game #1 is played by correspondence")
    finally:
        await parlor.stop()


async def test_a_seek_for_a_correspondence_game(sqlite_url):
    """``DICE SEEK DAYS <n>``: a seek of a correspondence game, listed with its days; taken
    by a player who is playing a game of Triad Dice at a sitting already (a game by
    correspondence is one of several), it starts a correspondence game."""
    parlor = await start(sqlite_url, day=3600.0)
    try:
        alice = await (await Client.connect(parlor.port)).create("Alice")
        bob = await (await Client.connect(parlor.port)).create("Bob")
        for line, answer in [
                ("dice seek days 15", "The number of days a move must be 1 to 14"),
                ("ttt seek days 2", "Noughts and Crosses is not played by correspondence")]:
            await alice.cmd(line, answer)
        await bob.cmd("dice challenge computer easy", "begins")   # a game at a sitting
        await alice.cmd("dice seek days 2",
                        r"Your seek (\d+) is posted: Triad Dice \(unranked, 2 days a move\)")
        number = next(iter(parlor.host.seeks.by_id))
        await bob.cmd("seeks", r"Triad Dice \(unranked, 2 days a move\)")
        await bob.cmd(f"play {number}", r"Game #2: Triad Dice, Alice vs Bob begins")
        game = parlor.host.live[2]
        assert game.days == 2 and not parlor.host.seeks.by_id
        await alice.cmd("mygames", "#2")
        # a seek at a sitting and one by correspondence do not fit each other
        await bob.cmd("dice resign", "Game #1: .* wins")
        await bob.cmd("dice seek", "Your seek")
        await alice.cmd("dice seek days 3", "Your seek")
        assert len(parlor.host.seeks.by_id) == 2
    finally:
        await parlor.stop()


async def test_a_ranked_correspondence_game_is_rated_in_a_pool_of_its_own(sqlite_url):
    """RANKED by correspondence: rated apart from the games at a sitting (Lichess's
    correspondence pool), shown so by FINGER and RANKINGS <game> CORR."""
    parlor = await start(sqlite_url, day=3600.0)
    try:
        alice = await (await Client.connect(parlor.port)).create("Alice")
        bob = await (await Client.connect(parlor.port)).create("Bob")
        await alice.cmd("dice challenge bob days 3 ranked",
                        r"Triad Dice \(ranked, 3 days a move\) by correspondence")
        await bob.cmd("dice accept", "begins")
        game = parlor.host.live[1]
        clients = (alice, bob)
        for _ in range(2):   # two moves: a game resigned before its second is not rated
            seat = game.state.turn
            text = notation.format_action(next(iter(rules.legal_actions(game.state, seat))))
            await clients[seat].cmd(f"dice {text}", f"{NAMES[seat]}: {re.escape(text)}")
        await alice.cmd("mygames 1", "You go to game #1")
        await alice.cmd("dice resign", r"Alice's Triad Dice correspondence rating: 1500 -> \d+")
        await alice.cmd("rankings dice corr", r"Correspondence Triad Dice rankings(.|\n)*Bob")
        await alice.cmd("dice rankings corr", r"Correspondence Triad Dice rankings")
        await alice.cmd("rankings dice", "Nobody has played a ranked game of Triad Dice yet")
        await alice.cmd("finger bob", r"Correspondence Triad Dice\s+1\d\d\d")
        await alice.cmd("rankings ttt corr", "Usage: RANKINGS <game>")
        await alice.cmd("rankings dice sideways", "RANKINGS DICE CORR ranks")
        # and on the web: the pool's page, linked from the index and the player's page
        door = WebDoor(parlor, host="127.0.0.1", port=0)
        await door.start()
        try:
            async with httpx.AsyncClient(base_url=door.url.rstrip("/"), timeout=10) as http:
                page = await http.get("/rankings/dice/corr")
                assert page.status_code == 200
                assert "Correspondence Triad Dice rankings" in page.text and "Bob" in page.text
                table = (await http.get("/api/rankings/dice/corr")).json()
                assert table["kind"] == "dice.corr" and table["rankings"][0]["name"] == "Bob"
                assert not (await http.get("/api/rankings/dice")).json()["rankings"]
                assert 'href="/rankings/dice/corr"' in (await http.get("/rankings")).text
                assert (await http.get("/rankings/ttt/corr")).status_code == 404
                player = (await http.get("/api/players/Bob")).json()
                assert {r["page"] for r in player["ratings"]} == {"/rankings/dice/corr"}
        finally:
            await door.stop()
    finally:
        await parlor.stop()


async def test_the_count_of_games_waiting_for_a_move_reaches_the_client(sqlite_url):
    """GMCP ``Char.Status`` ``letters``: how many correspondence games wait for the
    player's move, at login and after every move (/play shows it)."""

    async def count(client: Client, expected: int) -> None:
        for _ in range(200):
            got = [d["letters"] for p, d in client.gmcp
                   if p == "Char.Status" and "letters" in d]
            if got and got[-1] == expected:
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"letters {expected} not told; got {got}")

    parlor = await start(sqlite_url, day=3600.0)
    try:
        clients = [await Client.connect_mud(parlor.port) for _ in NAMES]
        for client, name in zip(clients, NAMES):
            await client.create(name)
        await clients[0].cmd("dice challenge bob days 3", "by correspondence")
        await clients[1].cmd("dice accept", "begins")
        game = parlor.host.live[1]
        for _ in range(2):
            seat = game.state.turn
            await count(clients[seat], 1)
            await count(clients[1 - seat], 0)
            text = notation.format_action(next(iter(rules.legal_actions(game.state, seat))))
            await clients[seat].cmd(f"dice {text}", f"{NAMES[seat]}: {re.escape(text)}")
        await leave(clients[game.state.turn])   # told again at the next login
        await wait_until_offline(parlor, NAMES[game.state.turn])
        again = await Client.connect_mud(parlor.port)
        await again.login(NAMES[game.state.turn])
        await count(again, 1)
    finally:
        await parlor.stop()


async def test_a_whole_game_by_correspondence_on_two_nodes(postgres, redis_server):
    """Alice and Bob log in only to move, each time on the other node of two: the game
    is driven by the node Bob accepted it on, and the other relays the moves there; the
    challenge and the login notice are read from the store. Halfway, the driving node
    restarts: it hands the game over, and the other drives it on."""
    url = await postgres.new_database()
    redis_server.command("FLUSHALL")
    nodes = []
    try:
        def node_config(name: str):  # noqa: ANN202
            return attrs.evolve(config_with_day(url, 3600.0),
                                cluster=ClusterSection(redis=redis_server.url(), node=name))

        for name in ("alpha", "beta"):
            nodes.append(assemble(node_config(name)))
            await nodes[-1].start()
        alpha, beta = nodes
        for name in NAMES:
            await leave(await (await Client.connect(alpha.port)).create(name))
        await wait_until_offline(alpha, *NAMES)
        alice = await visit(alpha, "Alice")
        await alice.cmd("dice challenge bob days 2", "by correspondence")
        await leave(alice)
        await wait_until_offline(alpha, "Alice")
        bob = await visit(beta, "Bob")
        await bob.expect("Alice challenges you to Triad Dice")
        out = await bob.cmd("dice accept alice", r"Game #(\d+): Triad Dice, Alice vs Bob begins")
        number = int(re.findall(r"Game #(\d+): Triad Dice", out)[-1])
        await leave(bob)
        await wait_until_offline(beta, "Bob")
        game = beta.host.live[number]  # beta drives it
        script = plan_a_win_with_a_choice(game.state)
        turns: list[tuple[int, list[str]]] = []
        for seat, action in script:
            if turns and turns[-1][0] == seat:
                turns[-1][1].append(notation.format_action(action))
            else:
                turns.append((seat, [notation.format_action(action)]))
        deadline = time.monotonic() + 10
        while number not in alpha.cluster.games:  # alpha has heard where it is driven
            assert time.monotonic() < deadline, "alpha never heard of the game"
            await parlor_pause()
        for index, (seat, moves) in enumerate(turns):
            if index == len(turns) // 2:
                # beta restarts: it hands the game to alpha as it stops, and alpha drives
                # it (and its clock, from the store) from then on
                await beta.stop()
                deadline = time.monotonic() + 15
                while number not in alpha.host.live:
                    assert time.monotonic() < deadline, "alpha did not take the game"
                    await parlor_pause()
                nodes[1] = beta = assemble(node_config("beta"))
                await beta.start()
            node = nodes[index % 2]
            me = await visit(node, NAMES[seat])
            await me.expect(rf"Your move in game #{number} \(Triad Dice, 2 days a move, "
                            r"1 day 23 hours left\)\.")
            for text in moves:
                await me.cmd(f"dice {text}", f"{NAMES[seat]}: {re.escape(text)}")
            if index == len(turns) - 1:
                await me.expect(rf"Game #{number}: {NAMES[seat]} wins")
            await leave(me)
            await wait_until_offline(node, NAMES[seat])
        assert number not in alpha.host.live and number not in beta.host.live
        async with alpha.db.session() as tx:
            record = await tx.get(GameRecord, number)
        assert record.status == "finished" and record.version == len(script)
        assert record.result["winner"] == turns[-1][0]
        loser = await visit(alpha, NAMES[1 - turns[-1][0]])
        await loser.expect(rf"While you were away(.|\n)*Game #{number}: "
                           rf"{NAMES[turns[-1][0]]} wins")
        await leave(loser)
    finally:
        async with cleanup() as steps:
            for parlor in reversed(nodes):
                await steps.run(f"stopping node {parlor.node}", parlor.stop(), 60)
