"""Three nodes as an operator runs them: three ``esterport serve`` processes on one
PostgreSQL and one Redis, behind HAProxy; players connect through the balancer (and, to
know which node holds whom, straight to a node). A node killed with SIGKILL mid-game:
its players reconnect through the balancer and finish the game another node took over."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading

import pytest

from tests.conftest import stop_process
from tests.support.client import Client
from tests.support.teardown import sync_cleanup


async def _challenge(alice: Client, bob: Client) -> int:
    """Alice challenges Bob to Noughts and Crosses, Bob accepts: the game's number."""
    await alice.cmd("ttt challenge bob", "You challenge Bob")
    await bob.expect("Alice challenges you")
    bob.send("ttt accept alice")
    out = await alice.expect(r"Game #(\d+): Noughts and Crosses, Alice vs Bob")
    return int(out.rsplit("Game #", 1)[1].split(":")[0])


def _config(tmp_path, name: str, database: str, redis: str, lease: float = 6.0,
            web: bool = False, hold: bool = False) -> str:
    path = tmp_path / f"{name}.toml"
    path.write_text(textwrap.dedent(f"""
        [server]
        hold = {"true" if hold else "false"}
        pid_file = "{tmp_path}/{name}.pid"
        port = 0
        commands_per_second = 50
        command_burst = 100
        trusted_proxies = ["127.0.0.1"]
        [web]
        enabled = {"true" if web else "false"}
        port = 0
        [database]
        url = "{database}"
        [cluster]
        redis = "{redis}"
        node = "{name}"
        lease = {lease}
        [login]
        logins_per_minute = 1000000
        new_accounts_per_address = 1000000
        new_accounts_per_minute = 1000000
        lines_per_second = 100000
        [accounts]
        argon2_time_cost = 1
        argon2_memory_kib = 1024
        [games]
        reconnect_grace = 30
        computer_delay = 0.0
        extra = ["tests.support.tictactoe:KIND"]
    """))
    return str(path)


class Node:
    def __init__(self, name: str, config: str) -> None:
        self.name = name
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "commands.app", "serve", "--config", config],
            stderr=subprocess.PIPE, text=True, cwd=os.getcwd())
        self.log: list[str] = []
        self.port = 0
        self.web = ""  # the web door's address, when it is open
        for line in self.proc.stderr:
            self.log.append(line)
            if "point a browser at" in line:
                self.web = line.rsplit(" ", 1)[1].strip().rstrip("/")
            if "Connect with: telnet" in line:
                self.port = int(line.rsplit(" ", 1)[1])
                break
        else:
            raise RuntimeError(f"node {name} did not start:\n" + "".join(self.log[-30:]))
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        for line in self.proc.stderr:
            self.log.append(line)

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def pause(self) -> None:
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        self.proc.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.resume()  # a paused node cannot stop
        stop_process(self.proc)


async def _nodes(tmp_path, postgres, redis_server, **config):
    database = await postgres.new_database()
    redis_server.command("FLUSHALL")  # nothing of the last test's cluster in Redis
    nodes: list[Node] = []
    try:
        for name in ("n1", "n2", "n3"):
            nodes.append(await asyncio.to_thread(
                Node, name, _config(tmp_path, name, database, redis_server.url(), **config)))
        yield nodes
    finally:
        with sync_cleanup() as steps:  # each stop bounded; one failing stops no other
            for node in nodes:
                steps.call(f"stopping node {node.name}", node.stop)


@pytest.fixture
async def cluster(tmp_path, postgres, redis_server, haproxy):
    async for nodes in _nodes(tmp_path, postgres, redis_server):
        proxy = haproxy([f"127.0.0.1:{n.port}" for n in nodes])
        await asyncio.to_thread(proxy.wait_up)
        yield nodes, proxy


@pytest.fixture
async def held_cluster(tmp_path, postgres, redis_server, haproxy):
    """Three held nodes (``serve --hold``: a holder keeps each one's connections) behind
    HAProxy."""
    async for nodes in _nodes(tmp_path, postgres, redis_server, hold=True):
        proxy = haproxy([f"127.0.0.1:{n.port}" for n in nodes])
        await asyncio.to_thread(proxy.wait_up)
        yield nodes, proxy, tmp_path


@pytest.fixture
async def short_lease(tmp_path, postgres, redis_server):
    """Three nodes with a lease of 2 s (a pause past it is short) and web doors."""
    async for nodes in _nodes(tmp_path, postgres, redis_server, lease=2.0, web=True):
        yield nodes


async def _player(port: int, name: str, new: bool = True) -> Client:
    client = await Client.connect(port, source="127.0.0.2")  # not the balancer's address
    await (client.create(name) if new else client.login(name))
    return client


async def _sees(client: Client, count: int, within: float = 20.0) -> None:
    """WHO until it lists ``count`` players: a login on another node reaches this node's
    roster over Redis a moment after the player's own node answers them."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while True:
        out = await client.cmd("who", r"\d+ players? connected", timeout=10)
        if f"{count} players connected" in out:
            return
        if loop.time() > deadline:
            raise AssertionError(f"{client.name}: WHO never listed {count} players:\n{out}")
        await asyncio.sleep(0.2)


async def _play_once_taken_over(client: Client, cell: int) -> None:
    """Play ``cell`` once a node drives the client's game again (at most ~10 s after its
    node died): until then the move is refused, or waits for the node that takes over."""
    for _ in range(100):
        reply = await client.cmd(f"ttt play {cell}", rf"({client.name}: PLAY {cell}"
                                 r"|not playing|did not answer|no game|You have no"
                                 r"|another server)[^\n]*", timeout=15)
        if f"PLAY {cell}" in reply:
            return
        await asyncio.sleep(0.2)
    raise AssertionError("the game was never taken over")


async def test_a_game_across_nodes_survives_its_node_being_killed(cluster):
    (n1, n2, n3), proxy = cluster
    alice = await _player(n1.port, "Alice")         # the game will be driven by n1
    bob = await _player(n2.port, "Bob")
    carol = await _player(n3.port, "Carol")          # a watcher on a third node
    await _sees(alice, 3)
    number = await _challenge(alice, bob)
    await bob.expect("begins")
    await carol.cmd(f"observe {number}", "You are now watching", timeout=10)
    await alice.cmd("ttt play 1", "Alice: PLAY 1")
    await bob.expect("Alice: PLAY 1")
    await carol.expect("X takes cell 1")
    await bob.cmd("ttt play 4", "Bob: PLAY 4")
    await alice.expect("Bob: PLAY 4")

    n1.kill()  # acknowledged moves are in the database; n2 or n3 takes the game over
    await alice.closed()
    for _ in range(50):  # through the balancer, once it has seen n1 is down (a client's
        try:             # reconnect does the same)
            alice = await _player(proxy.telnet_port, "Alice", new=False)
            break
        except (AssertionError, OSError):
            await asyncio.sleep(0.2)
    await _play_once_taken_over(alice, 2)
    await bob.expect("Alice: PLAY 2", timeout=10)
    await bob.cmd("ttt play 5", "Bob: PLAY 5", timeout=10)
    await alice.cmd("ttt play 3", r"Alice wins \(three in a row\)", timeout=10)
    await bob.expect("Alice wins")
    await carol.expect("Alice wins")
    out = await carol.cmd(f"replay {number}", r"\d+\. Alice: PLAY 3", timeout=10)
    # every acknowledged move once, in order: none lost, none applied twice
    moves = re.findall(r"^\s*\d+\. (\w+: PLAY \d)", out.split("REPLAY")[-1], re.M)
    assert moves == ["Alice: PLAY 1", "Bob: PLAY 4", "Alice: PLAY 2", "Bob: PLAY 5",
                     "Alice: PLAY 3"], out
    for c in (alice, bob, carol):
        await c.close()


async def test_a_swiss_game_taken_over_after_a_kill_counts_in_its_tournament(cluster):
    """Zed on n1 starts a Swiss, so n1 drives its first game; n1 is killed mid-game and
    another node, up since before the tournament began, takes the game over: its result
    still reaches the tournament, which pairs round 2 and ends."""
    from tests.e2e.test_e2e_tournaments import START, _player as resigner
    (n1, n2, n3), _proxy = cluster
    zed = await _player(n1.port, "Zed")
    players = [await _player(n.port, name) for n, name in ((n2, "Ann"), (n3, "Bea"),
                                                            (n2, "Cal"))]
    await _sees(zed, 4)
    await zed.cmd("tourney create ttt swiss 2", "Tournament 1 is open")
    for p in players:
        await p.cmd("tourney join 1", "You enter tournament 1", timeout=10)
    await zed.cmd("tourney start 1", "Tournament 1 begins", timeout=10)
    firsts = {}
    for p in players:
        out = await p.expect(rf"({START.pattern}|you have a bye)", timeout=10)
        if "begins" in out:
            m = START.search(out)
            firsts[m.group(2) == p.name] = (p, int(m.group(1)))
    (x, number), (o, _n) = firsts[True], firsts[False]
    await x.cmd("ttt play 1", f"{x.name}: PLAY 1", timeout=10)
    await o.expect(f"{x.name}: PLAY 1", timeout=10)

    n1.kill()  # another node takes game #number over once n1's lease lapses
    await _play_once_taken_over(o, 4)
    await x.cmd("ttt resign", rf"Game #{number}: {o.name} wins", timeout=10)
    for _ in range(50):  # the result is written, and round 2 paired
        out = await o.cmd("tourney 1", r"Round \d:[^\n]*", timeout=10)
        if "Round 2" in out:
            break
        await asyncio.sleep(0.2)
    else:
        raise AssertionError(f"round 2 was never paired:\n{out}")
    await asyncio.wait_for(asyncio.gather(*(resigner(p, False) for p in players)), 60)
    out = await o.cmd("tourney 1", r"Finished; round 2 of 2\.(.|\n)*Round 2:[^\n]*")
    assert re.search(rf"{o.name} +[12]", out), out  # the game taken over counted
    for c in (zed, *players):
        await c.close()


async def test_a_node_stopped_by_sigterm_hands_its_game_over_first(cluster):
    """SIGTERM to the node driving a game: another node drives it before the players
    there are told to connect again, so the opponent's next move is played at once."""
    (n1, n2, _n3), proxy = cluster
    alice = await _player(n1.port, "Alice")         # the game will be driven by n1
    bob = await _player(n2.port, "Bob")
    await _sees(alice, 2)
    number = await _challenge(alice, bob)
    await alice.cmd("ttt play 1", "Alice: PLAY 1")
    await bob.cmd("ttt play 4", "Bob: PLAY 4")
    await alice.cmd("ttt play 2", "Alice: PLAY 2")
    await bob.expect("Alice: PLAY 2")

    n1.proc.terminate()
    assert "Connect again" in await alice.closed(timeout=10)
    await bob.cmd("ttt play 5", "Bob: PLAY 5", timeout=2)  # at once: n1 handed it over
    await asyncio.to_thread(n1.proc.wait, 10)
    assert any(f"game #{number} handed to node" in line for line in n1.log), n1.log[-20:]
    for _ in range(50):  # through the balancer, once it has seen n1 is down
        try:
            alice = await _player(proxy.telnet_port, "Alice", new=False)
            break
        except (AssertionError, OSError):
            await asyncio.sleep(0.2)
    await alice.cmd("ttt play 3", r"Alice wins \(three in a row\)", timeout=10)
    out = await bob.cmd(f"replay {number}", r"\d+\. Alice: PLAY 3", timeout=10)
    moves = re.findall(r"^\s*\d+\. (\w+: PLAY \d)", out.split("REPLAY")[-1], re.M)
    assert moves == ["Alice: PLAY 1", "Bob: PLAY 4", "Alice: PLAY 2", "Bob: PLAY 5",
                     "Alice: PLAY 3"], out
    for c in (alice, bob):
        await c.close()


async def test_a_node_paused_past_its_lease_lets_go_of_the_game_another_node_adopted(
        short_lease):
    """SIGSTOP to the node driving a game, past its lease: another node adopts the game
    (its epoch rises) and the opponent plays on; meanwhile the web doors answer 503 for
    it, not 404. When the paused node wakes, it acts on nothing of its stale copy: its
    player's next move is played where the game is driven now (not refused as out of
    turn on the old board), GAMES lists the game once, and every move is stored once."""
    import httpx
    n1, n2, n3 = short_lease
    alice = await _player(n1.port, "Alice")         # the game will be driven by n1
    bob = await _player(n2.port, "Bob")
    carol = await _player(n3.port, "Carol")
    await _sees(alice, 3)
    number = await _challenge(alice, bob)
    await alice.cmd("ttt play 1", "Alice: PLAY 1")
    await bob.cmd("ttt play 4", "Bob: PLAY 4", timeout=10)
    await alice.cmd("ttt play 2", "Alice: PLAY 2")
    await bob.expect("Alice: PLAY 2", timeout=10)

    n1.pause()  # Bob to move; n1's lease (2 s) lapses, and n2 or n3 adopts the game
    try:
        async with httpx.AsyncClient(timeout=10) as web:
            # n1 does not answer: the game is being moved, not gone
            answer = await web.get(f"{n3.web}/api/games/{number}")
            assert answer.status_code == 503, (answer.status_code, answer.text)
            assert answer.headers.get("retry-after"), answer.headers
            await _play_once_taken_over(bob, 5)
            assert (await web.get(f"{n3.web}/api/games/{number}")).json()["moves"] == 4
    finally:
        n1.resume()
    # Alice's next move, typed on n1 as it wakes: played on the node that drives it now
    await alice.cmd("ttt play 3", r"Alice wins \(three in a row\)", timeout=15)
    await bob.expect("Alice wins", timeout=10)
    out = await carol.cmd(f"replay {number}", r"\d+\. Alice: PLAY 3", timeout=10)
    moves = re.findall(r"^\s*\d+\. (\w+: PLAY \d)", out.split("REPLAY")[-1], re.M)
    assert moves == ["Alice: PLAY 1", "Bob: PLAY 4", "Alice: PLAY 2", "Bob: PLAY 5",
                     "Alice: PLAY 3"], out
    # it let the game go, on waking: by its lease's check (the stored epoch rose) or by
    # the games table (another live node drives it), whichever ran first
    assert any(f"#{number}" in line and ("lease had lapsed" in line or "let go here" in line)
               for line in n1.log), "".join(n1.log[-20:])
    for c in (alice, bob, carol):
        await c.close()


async def test_a_paused_node_wakes_to_find_its_game_played_on_and_games_lists_it_once(
        short_lease):
    """The paused node's own players see the game as it stands after it wakes: GAMES
    there lists it once, with the moves made meanwhile, and TURN says whose move it is."""
    n1, n2, _n3 = short_lease
    alice = await _player(n1.port, "Alice")
    bob = await _player(n2.port, "Bob")
    await _sees(alice, 2)
    number = await _challenge(alice, bob)
    await alice.cmd("ttt play 1", "Alice: PLAY 1")
    await bob.expect("Alice: PLAY 1", timeout=10)
    n1.pause()
    try:
        await _play_once_taken_over(bob, 5)
    finally:
        n1.resume()
    await alice.expect("Bob: PLAY 5", timeout=15)  # told by the node that drives it
    out = await alice.cmd("games", rf"#{number} +Noughts and Crosses +Alice vs Bob +2 ",
                          timeout=10)
    out += await alice.cmd("say listed", "You say")
    assert len(re.findall(rf"#{number} +Noughts", out)) == 1, out  # once, as it stands
    await alice.cmd("turn", rf"Game #{number} \(Noughts and Crosses\): your move", timeout=10)
    await alice.cmd("ttt play 2", "Alice: PLAY 2", timeout=10)
    await bob.expect("Alice: PLAY 2", timeout=10)
    for c in (alice, bob):
        await c.close()


async def test_a_rolling_reload_disconnects_nobody(held_cluster):
    """``esterport reload --rolling``: the three held nodes reload one after another; every
    player, through HAProxy or straight to a node, stays connected, hears the others, and
    a game across two nodes goes on."""
    (n1, n2, n3), proxy, tmp_path = held_cluster
    alice = await _player(n1.port, "Alice")
    bob = await _player(n2.port, "Bob")
    others = [await _player(proxy.telnet_port, f"Via{n}") for n in range(4)]
    everyone = [alice, bob, *others]
    await _sees(alice, 6)
    number = await _challenge(alice, bob)
    await bob.expect("begins")
    await alice.cmd("ttt play 1", "Alice: PLAY 1")
    done = await asyncio.to_thread(subprocess.run, [
        sys.executable, "-m", "commands.app", "reload", "--rolling", "--config",
        str(tmp_path / "n1.toml")], capture_output=True, text=True, timeout=400)
    assert done.returncode == 0, done.stderr
    assert [line for line in done.stderr.splitlines() if "reloaded" in line] == [
        "node n1: reloaded", "node n2: reloaded", "node n3: reloaded"], done.stderr
    for client in everyone:   # nobody was disconnected; each sees all six
        await _sees(client, 6)
    await bob.cmd("ttt play 4", "Bob: PLAY 4", timeout=20)
    await alice.expect("Bob: PLAY 4", timeout=20)
    await alice.cmd(f"replay {number}", "Bob: PLAY 4|PLAY 4", timeout=10)
    for client in everyone:
        await client.close()
