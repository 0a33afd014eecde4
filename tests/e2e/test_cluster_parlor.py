"""Two nodes, one parlor: two parlors in this process share one PostgreSQL and one Redis,
and players connected to different nodes meet as if on one server (real sockets,
telnetlib3 clients)."""

from __future__ import annotations

import asyncio
import json
import re

import attrs
import pytest
import sqlalchemy as sa

from commands.app import assemble
from server.config import ClusterSection
from server.models import GameRecord
from tests.conftest import make_config
from tests.support.client import Client
from tests.support.teardown import cleanup


async def run_nodes(postgres, redis_server, names: tuple[str, ...]):
    """Parlors named ``names``, one cluster on a new database and an empty Redis; stopped
    after (those the test has not stopped itself)."""
    url = await postgres.new_database()
    redis_server.command("FLUSHALL")  # a new parlor: nothing of the last test's in Redis
    made = []
    for name in names:
        config = attrs.evolve(make_config(url),
                              cluster=ClusterSection(redis=redis_server.url(), node=name))
        parlor = assemble(config)
        await parlor.start()
        made.append(parlor)
    yield made
    async with cleanup() as steps:  # each stop bounded; one that hangs stops no other
        for parlor in reversed(made):
            if not parlor.stopped.is_set():
                await steps.run(f"stopping node {parlor.node}", parlor.stop(), 60)


@pytest.fixture
async def nodes(postgres, redis_server):
    async for made in run_nodes(postgres, redis_server, ("alpha", "beta")):
        yield made


async def _player(parlor, name: str, new: bool = True) -> Client:
    client = await Client.connect(parlor.port)
    await (client.create(name) if new else client.login(name))
    return client


async def _settle(check, timeout: float = 5.0) -> None:
    """Wait until ``check()`` holds (the other node hears of it through Redis)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        assert asyncio.get_running_loop().time() < deadline, "the nodes never agreed"
        await asyncio.sleep(0.02)


async def test_players_on_two_nodes_see_and_talk_to_each_other(nodes):
    alpha, beta = nodes
    alice = await _player(alpha, "Alice")
    bob = await _player(beta, "Bob")
    await _settle(lambda: alpha.online.is_online(bob_id(beta)) and beta.online.count == 2)
    who = await alice.cmd("who", r"2 players connected")
    assert "Bob" in who and "Alice" in who
    finger = await alice.cmd("finger bob", r"Member since")
    assert "Online now" in finger and "Plaza" in finger or "Online now" in finger
    await alice.cmd("tell bob hello there", "You tell Bob: hello there")
    await bob.expect("Alice tells you: hello there")
    await bob.cmd("reply and to you", "You tell Alice: and to you")
    await alice.expect("Bob tells you: and to you")
    await alice.cmd("chat anyone for dice?", r"\[chat\] Alice: anyone for dice\?")
    await bob.expect(r"\[chat\] Alice: anyone for dice\?")
    look = await bob.cmd("look", r"Here: [^\r\n]*\.")
    assert "Alice" in look
    await alice.cmd("say hi Bob", 'You say, "hi Bob"')
    await bob.expect('Alice says, "hi Bob"')
    await bob.cmd("ignore alice", "You now ignore Alice")
    await alice.cmd("tell bob again", "Bob is ignoring you")
    for c in (alice, bob):
        await c.close()


async def _game_begun(alpha, beta) -> tuple[Client, Client]:
    """Alice on alpha challenges Bob on beta (so alpha drives the game), Bob accepts from
    beta, and Alice has played cell 1."""
    alice = await _player(alpha, "Alice")
    bob = await _player(beta, "Bob")
    await _settle(lambda: alpha.online.count == 2)
    await alice.cmd("ttt challenge bob", "You challenge Bob")
    await bob.expect("Alice challenges you")
    bob.send("ttt accept alice")
    await bob.expect("begins")
    await alice.cmd("ttt play 1", "Alice: PLAY 1")
    await bob.expect("Alice: PLAY 1")
    return alice, bob


def bob_id(parlor) -> int:
    return next((s.account.id for s in parlor.online.sessions.values() if s.name == "Bob"), -1)


async def test_a_login_on_one_node_takes_over_the_session_on_the_other(nodes):
    alpha, beta = nodes
    first = await _player(alpha, "Carol")
    await _settle(lambda: beta.online.count == 1)
    second = await _player(beta, "Carol", new=False)
    # the older connection is closed, with a line saying why
    assert "taken over" in await first.closed()
    await _settle(lambda: not alpha.online.sessions and alpha.online.count == 1)
    watcher = await _player(alpha, "Dave")
    who = await watcher.cmd("who", "players connected")
    assert who.count("Carol") == 1 and "2 players connected" in who
    await second.cmd("look", "Plaza|Here")
    await watcher.close()
    await second.close()


async def test_kick_and_shutdown_reach_the_other_node(nodes):
    alpha, beta = nodes
    admin = await _player(alpha, "Root")
    await alpha.accounts.set_admin("Root")
    await admin.close()
    admin = await _player(alpha, "Root", new=False)
    eve = await _player(beta, "Eve")
    await _settle(lambda: alpha.online.count == 2)
    await admin.cmd("@kick eve go away", "Eve has been kicked")
    assert "disconnected by an admin: go away" in await eve.closed()
    await _settle(lambda: alpha.online.count == 1)
    await admin.cmd("@shutdown node beta", "Shutting down node beta")
    await asyncio.wait_for(beta.stopped.wait(), 10)
    assert not alpha.stopped.is_set()
    await admin.close()


async def test_a_node_that_stops_takes_its_players_out_of_every_roster(nodes):
    alpha, beta = nodes
    frank = await _player(beta, "Frank")
    grace = await _player(alpha, "Grace")
    await _settle(lambda: alpha.online.count == 2)
    await beta.stop()
    await frank.closed()
    await _settle(lambda: alpha.online.count == 1)
    await grace.expect("Frank has left.")  # the room hears it, from the node he was on
    who = await grace.cmd("who", "player connected")
    assert "Frank" not in who
    await grace.close()


async def test_a_game_between_players_on_two_nodes_with_a_watcher(nodes):
    alpha, beta = nodes
    alice = await _player(alpha, "Alice")
    bob = await _player(beta, "Bob")
    carol = await _player(beta, "Carol")
    await _settle(lambda: alpha.online.count == 3)
    await alice.cmd("ttt challenge bob", "You challenge Bob")
    await bob.expect("Alice challenges you to Noughts and Crosses")
    bob.send("ttt accept alice")  # the offer is on alpha: the answer runs there
    out = await alice.expect(r"Game #(\d+): Noughts and Crosses, Alice vs Bob")
    number = int(out.rsplit("Game #", 1)[1].split(":")[0])
    await bob.expect("begins")
    await _settle(lambda: beta.cluster.games.owner_for(bob_id(beta), "ttt") == "alpha")
    await carol.cmd(f"observe {number}", "You are now watching")
    await alice.cmd("ttt play 1", "Alice: PLAY 1")
    await bob.expect("Alice: PLAY 1")
    await carol.expect("X takes cell 1")
    await bob.cmd("ttt play 1", "Cell 1 is taken")  # refused on alpha, told on beta
    await bob.cmd("ttt play 4", "Bob: PLAY 4")
    await alice.expect("Bob: PLAY 4")
    await alice.cmd("ttt play 2", "Alice: PLAY 2")
    await bob.cmd("ttt play 5", "Bob: PLAY 5")
    await alice.cmd("ttt play 3", r"Alice wins \(three in a row\)")
    await bob.expect("Alice wins")
    await carol.expect("Alice wins")
    await _settle(lambda: beta.cluster.games.owner_for(bob_id(beta), "ttt") is None)
    for c in (alice, bob, carol):
        await c.close()


async def test_the_games_of_a_node_that_goes_are_taken_over_and_finished(nodes):
    alpha, beta = nodes
    alice, bob = await _game_begun(alpha, beta)
    await alpha.stop()  # alpha drove the game: beta takes it over
    await alice.closed()
    await _settle(lambda: beta.host.game_of(bob_id(beta), "ttt") is not None, timeout=10)
    alice = await _player(beta, "Alice", new=False)
    await alice.expect("game in progress")
    await bob.cmd("ttt play 5", "Bob: PLAY 5")
    await alice.cmd("ttt play 2", "Alice: PLAY 2")
    await bob.cmd("ttt play 9", "Bob: PLAY 9")
    await alice.cmd("ttt play 3", r"Alice wins \(three in a row\)")
    await bob.expect("Alice wins")
    for c in (alice, bob):
        await c.close()


async def test_login_throttles_and_the_address_cap_count_across_nodes(nodes):
    alpha, beta = nodes
    await (await _player(alpha, "Henry")).close()
    guesser = await Client.connect(alpha.port)
    for _ in range(3):  # the tests' limit: 3 failures a minute per name and address
        await guesser.expect("Name: ")
        guesser.send("henry")
        await guesser.expect("Password: ")
        guesser.send("wrong")
        await guesser.expect("Wrong password")
    await guesser.close()
    await _settle(lambda: beta.throttle.locked("pair:henry:127.0.0.1"))
    elsewhere = await Client.connect(beta.port)  # the other node makes him wait too
    await elsewhere.expect("Name: ")
    elsewhere.send("henry")
    await elsewhere.expect(r"(wait|Too many|try again)[^\n]*")
    await elsewhere.close()
    cap = alpha.config.server.max_connections_per_address
    held = [await Client.connect(alpha.port) for _ in range(cap)]
    await _settle(lambda: beta.connections.from_address("127.0.0.1") >= cap)
    refused = await Client.connect(beta.port)
    assert "Too many connections from your address" in await refused.closed()
    for c in held:
        await c.close()
    await _settle(lambda: beta.connections.from_address("127.0.0.1") == 0)


async def test_redis_restarted_mid_game_the_nodes_carry_on_and_heal(nodes, redis_server, caplog):
    """Redis restarted empty: each node says so, its own players go on playing, and
    once Redis is back the nodes write themselves in again and the game goes on across
    them, every move once."""
    alpha, beta = nodes
    alice, bob = await _game_begun(alpha, beta)
    down = asyncio.ensure_future(asyncio.to_thread(redis_server.restart, 3.0))  # same port
    await _settle(lambda: "lost Redis" in caplog.text, timeout=10)
    await alice.cmd("look", "Exits")  # a node without Redis still serves its players
    await down
    await _settle(lambda: caplog.text.count("Redis is back") >= 2, timeout=15)
    await _settle(lambda: beta.cluster.games.owner_for(bob_id(beta), "ttt") == "alpha",
                  timeout=10)
    await bob.cmd("ttt play 5", "Bob: PLAY 5", timeout=10)
    await alice.expect("Bob: PLAY 5", timeout=10)
    await alice.cmd("tell bob still here", "You tell Bob")
    await bob.expect("Alice tells you: still here", timeout=10)
    await alice.cmd("ttt play 2", "Alice: PLAY 2")
    await bob.cmd("ttt play 9", "Bob: PLAY 9")
    await alice.cmd("ttt play 3", r"Alice wins \(three in a row\)")
    await bob.expect("Alice wins")
    assert not alpha.stopped.is_set() and not beta.stopped.is_set()
    for c in (alice, bob):
        await c.close()


async def test_a_triad_table_opened_on_one_node_is_joined_from_the_other(nodes):
    alpha, beta = nodes
    alice = await _player(alpha, "Alice")
    bob = await _player(beta, "Bob")
    await _settle(lambda: alpha.online.count == 2)
    out = await alice.cmd("triad open", r"Triad table #(\d+)")
    number = int(re.search(r"#(\d+)", out).group(1))
    await _settle(lambda: number in beta.cluster.games)
    await bob.cmd(f"triad join {number}", r"(Bob sits|You sit|sits down)[^\n]*", timeout=10)
    await alice.expect("Bob", timeout=10)
    await _settle(lambda: beta.cluster.games.owner_for(bob_id(beta), "triad") == "alpha")
    await bob.cmd("triad leave", r"(leave|left)[^\n]*", timeout=10)
    for c in (alice, bob):
        await c.close()


async def test_turn_last_and_claim_about_a_game_driven_on_another_node(nodes):
    """TURN, LAST and CLAIM typed on a node that does not drive the player's game speak of
    that game (they run where it is driven), not "You are not playing or watching"."""
    alpha, beta = nodes
    alice, bob = await _game_begun(alpha, beta)  # driven on alpha; Bob is on beta
    await _settle(lambda: beta.cluster.games.owner_for(bob_id(beta), "ttt") == "alpha")
    await bob.cmd("turn", r"Game #\d+ \(Noughts and Crosses\): your move")
    await bob.cmd("turn ttt", r"Game #\d+ \(Noughts and Crosses\): your move")
    await bob.cmd("last", r"Game #\d+, move 1: Alice: PLAY 1")
    await alice.close()  # away past the grace (1 s): Bob claims the game from beta
    await asyncio.sleep(1.5)
    await bob.cmd("claim", r"Game #\d+: Bob wins", timeout=10)
    await bob.close()


async def test_pending_on_one_node_hears_correspondence_challenges_changed_on_the_other(nodes):
    """PENDING keeps a player's correspondence challenges once read; a challenge made or
    withdrawn on another node is told on the bus, so the next PENDING shows it."""
    alpha, beta = nodes
    alice = await _player(alpha, "Alice")
    bob = await _player(beta, "Bob")
    await _settle(lambda: alpha.online.count == 2)
    await bob.cmd("pending", "No offers to you")
    await bob.cmd("pending", "No offers to you")   # kept: the same answer
    await alice.cmd("dice challenge bob days 2", "by correspondence")
    await bob.expect("Alice challenges you")
    await bob.cmd("pending", r"from Alice: Triad Dice \(unranked, 2 days a move\)")
    await alice.cmd("withdraw bob", "You withdraw your offer")
    deadline = asyncio.get_running_loop().time() + 5   # (the word travels through Redis)
    while "No offers to you" not in await bob.cmd("pending", "offers? (to|from) you"):
        assert asyncio.get_running_loop().time() < deadline, "beta kept the withdrawn offer"
        await asyncio.sleep(0.05)
    for c in (alice, bob):
        await c.close()


async def test_a_lost_games_table_is_written_again_by_the_nodes_driving_them(nodes, redis_server):
    """The games table in Redis is lost (restarted empty, or cleared) while the nodes'
    connections live on, so no node hears of it: each node writes its own games into it
    again within beats, and a player elsewhere reaches them."""
    alpha, beta = nodes
    alice, bob = await _game_begun(alpha, beta)
    number = alpha.host.game_of(alice_id(alpha), "ttt").id
    redis_server.command("DEL", "esterport:games")
    await _settle(lambda: not redis_server.command("HGET", "esterport:games", str(number))
                  .startswith(b"$-1"), timeout=10)
    await bob.cmd("ttt play 5", "Bob: PLAY 5", timeout=10)
    await alice.expect("Bob: PLAY 5")
    for c in (alice, bob):
        await c.close()


def alice_id(parlor) -> int:
    return parlor.online.named("Alice").account.id


async def test_a_node_sharing_out_a_dead_nodes_games_keeps_track_of_one_taken_elsewhere(
        nodes, redis_server):
    """A node died; another node (here "gamma", alive) adopted its game and said so before
    beta got round to sharing out the dead node's games. Beta must not lose track of the
    game: it learns who drives it now, and Bob's commands go there (they were answered
    "You are not playing ..." while beta had forgotten it)."""
    alpha, beta = nodes
    alice, bob = await _game_begun(alpha, beta)
    number = alpha.host.game_of(alice_id(alpha), "ttt").id
    entry = {"node": "gamma", "kind": "ttt",
             "players": [alice_id(alpha), bob_id(beta)]}
    # gamma is alive (its heartbeat), drives the game in the store and the games table
    redis_server.command("SET", "esterport:node:gamma", "{}", "PX", "60000")
    async with alpha.db.session() as tx:
        await tx.execute(sa.update(GameRecord).where(GameRecord.id == number)
                         .values(node="gamma", epoch=GameRecord.epoch + 1))
        await tx.commit()
    redis_server.command("HSET", "esterport:games", str(number), json.dumps(entry))
    # beta last heard it was driven by the dead node
    beta.cluster.games.elsewhere[number] = ("ghost", "ttt", tuple(entry["players"]))
    await beta.cluster.games.adopt("ghost")
    assert beta.cluster.games.owner_for(bob_id(beta), "ttt") == "gamma"
    assert number not in beta.host.live  # not adopted twice
    for c in (alice, bob):
        await c.close()


async def test_a_game_that_ended_is_not_brought_back_by_a_stale_read_of_the_games_table(
        nodes, redis_server):
    """Alpha says a game is over, then clears it from the games table. Beta's beat may
    read the table between the two: it mirrored the game again, as driven by alpha, and
    nothing ever took it out (a whole run's cluster test waited for ever for beta to
    forget a finished Pyramid match)."""
    alpha, beta = nodes
    alice, bob = await _game_begun(alpha, beta)
    number = alpha.host.game_of(alice_id(alpha), "ttt").id
    await _settle(lambda: number in beta.cluster.games)
    entry = redis_server.command("HGET", "esterport:games", str(number)).split(b"\r\n")[1]
    await alice.cmd("ttt resign", "wins")
    await _settle(lambda: number not in beta.cluster.games)
    # the read beta made before alpha's clearing landed
    redis_server.command("HSET", "esterport:games", str(number), entry.decode())
    await beta.cluster.games.reconcile(sweep=False)
    assert number not in beta.cluster.games
    await alpha.cluster.games.reconcile(sweep=False)  # alpha clears what names it wrongly
    assert redis_server.command("HGET", "esterport:games", str(number)) == b"$-1\r\n"
    await beta.cluster.games.reconcile(sweep=False)
    assert number not in beta.cluster.games
    for c in (alice, bob):
        await c.close()
