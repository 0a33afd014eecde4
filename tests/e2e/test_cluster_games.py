"""Games across three nodes: three parlors in this process share one PostgreSQL and one
Redis; players on different nodes find, offer, take, watch and play each other's games
over real sockets (telnetlib3 clients) and the web doors (HTTP, server-sent events)."""

from __future__ import annotations

import asyncio
import json
import re

import httpx
import pytest
import sqlalchemy as sa

from games.dice import notation as dice_notation
from games.dice import rules as dice_rules
from server.services import ledger, triad
from server.services.tiles import Tiles
from server.models import GameMove, GameRecord
from server.web import WebDoor
from tests.e2e.test_cluster_parlor import _player, _settle, run_nodes
from tests.e2e.test_e2e_triptycha import announced
from tests.integration.test_tiles import CHAIN_ALICE, CHAIN_BOB, CHAIN_MOVES, PROVING, proving
from tests.web.test_web_door import read_events


@pytest.fixture
async def three(postgres, redis_server):
    async for made in run_nodes(postgres, redis_server, ("alpha", "beta", "gamma")):
        yield made


def _number(out: str) -> int:
    return int(re.search(r"[Gg]ame #(\d+)", out).group(1))


async def test_pending_accept_games_and_the_web_across_nodes(three):
    alpha, beta, gamma = three
    alice = await _player(alpha, "Alice")
    bob = await _player(beta, "Bob")
    carol = await _player(gamma, "Carol")
    await _settle(lambda: all(p.online.count == 3 for p in three))
    await alice.cmd("ttt challenge bob", "You challenge Bob")
    await bob.expect("Alice challenges you")
    # the offer lives on alpha; beta lists it, and a bare ACCEPT finds it there
    bob_id = beta.online.named("Bob").account.id
    await _settle(lambda: beta.host.pending(bob_id)[0])
    out = await bob.cmd("pending", r"Offers to you:(.|\n)*?No offers from you")
    assert "from Alice: Noughts and Crosses" in out and "TTT ACCEPT Alice" in out
    await carol.cmd("pending", "No offers to you")
    bob.send("accept")
    number = _number(await alice.expect(r"Game #\d+: Noughts and Crosses, Alice vs Bob"))
    await bob.expect("begins")
    await _settle(lambda: not beta.host.pending(bob_id)[0])  # the offer is gone everywhere
    await alice.cmd("ttt play 5", "Alice: PLAY 5")
    # GAMES on a third node lists the game another node drives, as it stands
    await _settle(lambda: number in gamma.cluster.games)
    out = await carol.cmd("games", rf"#{number}[^\n]*")
    row = re.search(rf"#{number} +Noughts and Crosses +Alice vs Bob +(\d+) +(\w+)", out)
    assert row and row.group(1) == "1" and row.group(2) == "Bob", out
    await carol.cmd("ttt games", rf"#{number} +Noughts and Crosses +Alice vs Bob")
    # gamma's web door: the list, the board, its JSON and its live stream
    door = WebDoor(gamma, host="127.0.0.1", port=0)
    await door.start()
    try:
        async with httpx.AsyncClient(base_url=door.url.rstrip("/"), timeout=10) as web:
            listing = (await web.get("/api/games")).json()["games"]
            assert [(g["id"], g["players"], g["to_move"]) for g in listing] == [
                (number, ["Alice", "Bob"], ["Bob"])]
            page = await web.get(f"/games/{number}")
            assert page.status_code == 200 and "Alice" in page.text and "Bob" in page.text
            board = (await web.get(f"/api/games/{number}")).json()
            assert board["moves"] == 1 and board["view"] is not None
            assert (await web.get("/games")).text.count(f"/games/{number}") >= 1
            async with web.stream("GET", f"/games/{number}/events") as stream:
                lines = stream.aiter_lines()
                first = await read_events(lines, "update")
                assert first[-1][1]["summary"]["moves"] == 1
                await bob.cmd("ttt play 1", "Bob: PLAY 1")  # on beta, driven on alpha
                update = await read_events(lines, "update")
                assert update[-1][1]["summary"]["moves"] == 2
                assert any("PLAY 1" in line for line in update[-1][1]["lines"])
            assert (await web.get("/api/games/99999")).status_code == 404
    finally:
        await door.stop()
    for c in (alice, bob, carol):
        await c.close()


async def test_offers_lapse_when_their_player_leaves_another_node(three):
    alpha, beta, _gamma = three
    alice = await _player(alpha, "Alice")
    bob = await _player(beta, "Bob")
    await _settle(lambda: alpha.online.count == 2 and beta.online.count == 2)
    await alice.cmd("ttt challenge bob", "You challenge Bob")
    await bob.expect("Alice challenges you")
    await bob.close()
    await alice.expect("lapses|lapsed|no longer")
    await _settle(lambda: not alpha.host.offers.by_id)
    await alice.close()


async def test_seeks_are_numbered_once_and_taken_once_across_nodes(three):
    alpha, beta, gamma = three
    alice = await _player(alpha, "Alice")
    bob = await _player(beta, "Bob")
    carol = await _player(gamma, "Carol")
    await _settle(lambda: all(p.online.count == 3 for p in three))
    one = int(re.search(r"Your seek (\d+)", await alice.cmd(
        "ttt seek ranked", r"Your seek \d+ is posted")).group(1))
    two = int(re.search(r"Your seek (\d+)", await carol.cmd(
        "dice seek ranked", r"Your seek \d+ is posted")).group(1))
    assert one != two
    await _settle(lambda: all(set(p.host.seeks.by_id) == {one, two} for p in three))
    await bob.cmd("seeks", r"Alice(.|\n)*Carol|Carol(.|\n)*Alice")
    # Bob (beta) and Carol (gamma) both try to take Alice's seek at once: one game
    bob.send(f"play {one}")
    carol.send(f"play {one}")
    out = await alice.expect(r"Game #\d+: Noughts and Crosses, Alice vs (Bob|Carol)")
    said = [await c.expect(r"(Game #\d+: Noughts and Crosses, Alice vs \w+|has just gone"
                           r"|There is no seek \d+)") for c in (bob, carol)]
    started = [s for s in said if "Alice vs" in s]
    assert len(started) == 1, said
    games = [g for p in three for g in p.host.live.values()]
    assert len(games) == 1 and games[0].id == _number(out)
    for c in (alice, bob, carol):
        await c.close()


async def test_a_triad_table_with_players_on_three_nodes(three):
    alpha, beta, gamma = three
    alice = await _player(alpha, "Alice")
    bob = await _player(beta, "Bob")
    carol = await _player(gamma, "Carol")
    clients = {"Alice": alice, "Bob": bob, "Carol": carol}
    await _settle(lambda: all(p.online.count == 3 for p in three))
    out = await alice.cmd("triad open 10 seats 3", r"Triad table #\d+")
    number = int(re.search(r"table #(\d+)", out).group(1))
    await _settle(lambda: number in beta.cluster.games and number in gamma.cluster.games)
    await bob.cmd(f"triad join {number}", "Bob sits down", timeout=10)
    await carol.cmd(f"triad join {number}", "Carol sits down", timeout=10)
    await alice.cmd("triad start", "Hand 1: Alice deals to Bob, Carol and Alice")
    game = alpha.host.live[number]
    # everybody equals or passes and stands: the hand is played to its end from three nodes
    while game.state.game.phase != "hand_over":
        movers = triad.to_move(game.state)
        name = game.state.seats[movers[0]].name
        if game.state.game.phase == "draw":
            word, said = "triad stand", "(DRAW|keeps all six)"
        else:
            pos = game.state.position(movers[0])
            seat = game.state.game.seats[pos]
            owed = game.state.game.current_bet - seat.bet
            word, said = ("triad equal", "EQUAL") if owed else ("triad pass", "PASS")
        version = game.version
        await clients[name].cmd(word, rf"{name}(: | ){said}", timeout=10)
        await _settle(lambda: game.version > version)
    for name, client in clients.items():
        await client.expect(r"pot of \d+ goes to", timeout=10)
    for name in ("Bob", "Carol"):  # from beta and gamma; then alpha's Alice is alone
        await clients[name].cmd("triad leave", f"{name} leaves the table", timeout=10)
    await alice.expect("The table closes", timeout=10)
    await _settle(lambda: number not in alpha.host.live)
    async with alpha.db.session() as tx:
        assert await ledger.audit(tx) == []
        assert await triad.audit_tables(tx) == []
    for c in clients.values():
        await c.close()


async def test_a_pyramid_tournament_between_players_on_two_nodes(three):
    alpha, beta, _gamma = three
    alice = await _player(alpha, "Alice")
    bob = await _player(beta, "Bob")
    await _settle(lambda: alpha.online.count == 2 and beta.online.count == 2)
    await alice.cmd("pyr tour human bob", r"You offer Bob Pyramid")
    await bob.expect(r"Alice challenges you to Pyramid")
    bob.send("pyr accept alice")
    number = _number(await alice.expect(r"Game #\d+: Pyramid, Alice vs Bob begins"))
    await bob.expect("Pyramid, Alice vs Bob begins")
    for k in range(1, 7):
        await alice.cmd("pyr end", f"Game {k} of 6 over")
        await bob.cmd("pyr end", f"Game {k} of 6 over", timeout=10)
    final = r"Game #\d+ (ends in a draw|[^\n]*wins)|Game #\d+: \w+ wins"
    await alice.expect(final)
    await bob.expect(final)
    await _settle(lambda: not alpha.host.live and not beta.cluster.games)
    async with beta.db.session() as tx:
        record = await tx.get(GameRecord, number)
    assert record.status == "finished" and record.version >= 12  # six ENDs each, once
    for c in (alice, bob):
        await c.close()


async def test_games_of_a_node_are_listed_by_none_once_it_stops(three):
    alpha, beta, _gamma = three
    alice = await _player(alpha, "Alice")
    await alice.cmd("dice challenge computer", r"Game #\d+")
    await _settle(lambda: len(beta.cluster.games) == 1)
    bob = await _player(beta, "Bob")
    await bob.cmd("games", r"Triad Dice")
    await alice.close()
    await alpha.stop()
    # the game is taken over by a node still up, and listed from there
    await _settle(lambda: sum(len(p.host.live) for p in three[1:]) == 1, timeout=20)
    out = await bob.cmd("games", r"(Triad Dice|No games)[^\n]*")
    assert "Triad Dice" in out
    assert json.dumps([f.to_json() for f in await beta.host.frames_in_play()])
    await bob.close()


async def test_a_whole_dice_game_across_nodes_watched_from_a_third(three):
    """Alice (alpha) challenges, so alpha drives the game; Bob plays it from beta and
    Carol watches from gamma, to the end: each move once, in order, seen everywhere."""
    alpha, beta, gamma = three
    alice = await _player(alpha, "Alice")
    bob = await _player(beta, "Bob")
    carol = await _player(gamma, "Carol")
    await _settle(lambda: all(p.online.count == 3 for p in three))
    await alice.cmd("dice challenge bob", "You challenge Bob")
    await bob.expect("Alice challenges you")
    bob.send("dice accept alice")
    number = _number(await alice.expect(r"Game #\d+: Triad Dice, Alice vs Bob begins"))
    await _settle(lambda: number in gamma.cluster.games)
    await carol.cmd(f"dice display {number}", f"You are now watching game #{number}")
    game = alpha.host.live[number]
    players = (alice, bob)
    played = []
    while number in alpha.host.live and len(played) < 400:
        seat = dice_rules.to_move(game.state)[0]
        action = next(dice_rules.legal_actions(game.state, seat))
        line = dice_notation.format_action(action)
        version = game.version
        players[seat].send(f"dice {line}")
        await _settle(lambda: game.version > version or number not in alpha.host.live)
        played.append(line)
    assert number not in alpha.host.live, "the game did not end"
    result = r"Game #\d+(: Alice wins|: Bob wins| ends in a draw)"
    for c in (alice, bob, carol):
        await c.expect(result, timeout=10)
    async with gamma.db.session() as tx:
        record = await tx.get(GameRecord, number)
        moves = (await tx.execute(sa.select(GameMove.notation).where(
            GameMove.game_id == number).order_by(GameMove.seq))).scalars().all()
    assert record.status == "finished" and len(moves) == len(played)  # each once, in order
    assert carol.seen.count("Triad Dice") >= 1 and played[-1].split()[1] in carol.seen
    for c in (alice, bob, carol):
        await c.close()


async def test_a_whole_triptycha_game_across_nodes_watched_from_a_third(three, tmp_path):
    alpha, beta, gamma = three
    path = tmp_path / "proving.toml"
    path.write_text(PROVING.split("[tiles]")[0])
    await alpha.seed([path])
    alice = await _player(alpha, "Alice")
    bob = await _player(beta, "Bob")
    carol = await _player(gamma, "Carol")
    for name, designs in (("Alice", CHAIN_ALICE), ("Bob", CHAIN_BOB)):
        account = await alpha.accounts.get(name)
        for design in designs:
            await Tiles(alpha.db).grant_tiles(account.id, proving(design))
    await _settle(lambda: all(p.online.count == 3 for p in three))
    await alice.cmd("tt challenge bob Take 1 Ranked", "You challenge Bob to Triptycha")
    await bob.expect("Alice challenges you to Triptycha")
    bob.send("tt accept alice")
    number = _number(await alice.expect(r"Game #\d+: Triptycha, Alice vs Bob begins"))
    await _settle(lambda: number in gamma.cluster.games)
    await carol.cmd(f"tt display {number}", f"You are now watching game #{number}")
    for i in range(1, 6):
        await alice.cmd(f"tt draw {i}", f"Alice draws tile {i}")
    for i in range(1, 7):
        await bob.cmd(f"tt draw {i}", f"Bob draws tile {i}", timeout=10)
    await carol.expect("The hands are full; Alice lays first", timeout=10)
    for seat, text in CHAIN_MOVES:
        me = alice if seat == 0 else bob
        line = f"tt {text.lower()}"
        await me.cmd(line, announced(me.name, line), timeout=10)
    await alice.expect("Trading: Alice may take 1 tile", timeout=10)
    await alice.cmd("tt take 1", "Alice takes tile 1")
    for c in (alice, bob, carol):
        await c.expect(f"Game #{number}: Alice wins \\(more niches\\)", timeout=10)
    for text in (announced("Alice", "LAY 1 IN 1"), announced("Bob", "LAY 2 IN 6"),
                 "Niche 6 takes 5"):
        assert text in carol.seen, text
    assert "Your hand:" not in carol.seen  # a watcher on another node sees no hand
    for c in (alice, bob, carol):
        await c.close()


async def test_the_computer_plays_on_when_its_game_changes_node(three):
    """Alice starts a game against the computer on alpha, moves her session to beta (the
    game stays on alpha), then alpha goes: beta takes the game over from the database and
    the computer answers her moves there; the ledger is clean after."""
    alpha, beta, gamma = three
    alice = await _player(alpha, "Alice")
    number = _number(await alice.cmd("dice challenge computer", r"Game #\d+"))
    game = alpha.host.live[number]
    await _settle(lambda: dice_rules.to_move(game.state)[0] == game.seats.index(
        next(s for s in game.seats if s.computer is None)) or number not in alpha.host.live)
    await _settle(lambda: number in beta.cluster.games)
    again = await _player(beta, "Alice", new=False)      # takes the session over
    assert "taken over" in await alice.closed()
    await alpha.stop()
    # beta or gamma takes it over (whichever wins the race); Alice plays from beta
    await _settle(lambda: number in beta.host.live or number in gamma.host.live, timeout=20)
    driver = beta if number in beta.host.live else gamma
    taken = driver.host.live[number]
    me = next(i for i, s in enumerate(taken.seats) if s.computer is None)
    answered = 0
    for _ in range(6):  # a few moves: each answered by the computer on its new node
        await _settle(lambda: dice_rules.to_move(taken.state) == (me,)
                      or number not in driver.host.live, timeout=10)
        if number not in driver.host.live or answered >= 3:
            break
        action = next(dice_rules.legal_actions(taken.state, me))
        version = taken.version
        line = dice_notation.format_action(action)
        await again.cmd(f"dice {line}", re.escape(f"Alice: {line}"), timeout=10)
        if dice_rules.to_move(taken.state) == (me,) and taken.version == version + 1:
            continue   # a triad of hers: she chooses which die goes (a move of hers again)
        answered += 1
        try:
            await _settle(lambda: taken.version >= version + 2
                          or number not in driver.host.live, timeout=10)
        except AssertionError:
            raise AssertionError(f"no answer at v{taken.version} (was {version}); "
                                 f"to move {dice_rules.to_move(taken.state)}:\n"
                                 f"{again.seen[-1500:]}") from None
    async with beta.db.session() as tx:
        assert await ledger.audit(tx) == []
    await again.close()


async def test_a_swiss_tournament_with_players_on_every_node_pairs_each_round_once(three):
    """Six players on three nodes; every node's director sees results of the games it
    drives and every node's clock ticks; the lock every node shares pairs each round once."""
    from tests.e2e.test_e2e_tournaments import _player as resigner
    names = ["Ann", "Bea", "Cal", "Dan", "Eve", "Fay"]
    players = [await _player(three[k % 3], n) for k, n in enumerate(names)]
    await _settle(lambda: all(p.online.count == 6 for p in three))
    ann = players[0]
    await ann.cmd("tourney create ttt swiss 3", r"Tournament 1 is open")
    for p in players:
        await p.cmd("tourney join 1", "You enter tournament 1", timeout=10)
    ann.send("tourney start 1")
    await asyncio.wait_for(asyncio.gather(*(resigner(p, p.name == "Fay") for p in players)),
                           90)
    row = await three[1].host.tournaments.get(1)
    assert row.status == "finished" and len(row.state["pairings"]) == 3
    met = [tuple(sorted((p["first"], p["second"]))) for r in row.state["pairings"] for p in r]
    assert len(met) == len(set(met)) == 9, met  # three pairs a round, none twice
    games = [p["game"] for r in row.state["pairings"] for p in r]
    async with three[2].db.session() as tx:
        started = await tx.scalar(sa.select(sa.func.count()).select_from(GameRecord))
    assert started == len(set(games)) == 9  # no round's games started twice
    for c in players:
        await c.close()


async def test_results_written_on_two_nodes_at_once_are_both_kept(three):
    """Two games of one round end at the same moment on two nodes: under the lock every
    node shares, neither result overwrites the other, and the round is complete once."""
    alpha, beta, _gamma = three
    names = ["Ann", "Bea", "Cal", "Dan"]
    players = [await _player(alpha, n) for n in names]
    await _settle(lambda: beta.online.count == 4)
    await players[0].cmd("tourney create ttt swiss 1", r"Tournament 1 is open")
    for p in players:
        await p.cmd("tourney join 1", "You enter tournament 1")
    await players[0].cmd("tourney start 1", "Tournament 1 begins")
    row = await alpha.host.tournaments.get(1)
    first, second = (p["game"] for p in row.state["pairings"][0])
    # at once: without one lock for both nodes the two writes interleave at every await
    await asyncio.gather(alpha.host.tournaments._result(1, first, 1.0),
                         beta.host.tournaments._result(1, second, 0.0))
    row = await gamma_row(three, 1)
    assert [p["score"] for p in row.state["pairings"][0]] == [1.0, 0.0]
    for c in players:
        await c.close()


async def gamma_row(three, number: int):  # noqa: ANN001
    return await three[2].host.tournaments.get(number)
