"""Game hosting over real sockets, with the test-only game (tests/support/tictactoe.py)."""

from __future__ import annotations

import asyncio
import re
import signal

import attrs
from commands.app import assemble
from tests.conftest import make_config, start_server, write_config
from tests.support.client import Client


async def _start_ranked_game(alice: Client, bob: Client) -> int:
    await alice.cmd("ttt challenge bob ranked", "You challenge Bob")
    await bob.expect("Alice challenges you to Noughts and Crosses \\(ranked\\)")
    await bob.cmd("pending", "from Alice")
    bob.send("ttt accept alice")
    out = await alice.expect(r"Game #(\d+): Noughts and Crosses, Alice vs Bob")
    await bob.expect("begins")
    return int(out.rsplit("Game #", 1)[1].split(":")[0])


async def test_challenge_play_watch_replay_and_ratings(parlor, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    carol = await clients("Carol")
    number = await _start_ranked_game(alice, bob)
    await carol.cmd("games", f"#{number}")
    await carol.cmd(f"observe {number}", "You are now watching")
    await alice.cmd("ttt play 1", "Alice: PLAY 1")
    await carol.expect("X takes cell 1")
    await bob.expect("Alice: PLAY 1")
    await bob.cmd("ttt play 1", "Cell 1 is taken")          # a rule error: one line, no change
    await alice.cmd("ttt play 2", "It is not your turn")
    await bob.cmd("ttt play 4", "Bob: PLAY 4")
    await alice.cmd("ttt play 2", "Alice: PLAY 2")
    await bob.cmd("ttt play 5", "Bob: PLAY 5")
    await alice.cmd("ttt play 3", "Alice wins \\(three in a row\\)")
    await bob.expect("Alice wins")
    await carol.expect("Alice wins")
    await alice.expect("Alice's Noughts and Crosses rating: 1500 -> 1[6-9]\\d\\d")
    out = await carol.cmd(f"replay {number}", "shows the board(.|\n)*?> ")
    assert "1. Alice: PLAY 1" in out and "5. Alice: PLAY 3" in out
    out = await carol.cmd(f"replay {number} 2", "---\\+---\\+---(.|\n)*?> ")
    assert " X | 2 | 3" in out and " O | 5 | 6" in out
    out = await carol.cmd("rankings ttt", "Noughts and Crosses rankings(.|\n)*?> ")
    assert out.index("Alice") < out.index("Bob")
    shown = {}  # a rating is shown one way everywhere: "1662 ±290 provisional"
    shown["rankings"] = re.search(r"Alice +(\d+ ±\d+ provisional)", out).group(1)
    out = await bob.cmd("ttt status alice", "Unranked")
    assert "Ranked: 1 won, 0 lost" in out
    shown["status"] = re.search(r"Rating (\d+ ±\d+ provisional)", out).group(1)
    out = await bob.cmd("finger alice", "Cubits(.|\n)*?> ")
    assert "1-0-0" in out
    shown["finger"] = re.search(r"(\d+ ±\d+ provisional)", out).group(1)
    assert len(set(shown.values())) == 1 and "RD" not in out, shown


async def test_offers_decline_withdraw_and_offline_refusal(parlor, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    await alice.cmd("ttt challenge carol", "There is no player named carol")
    await alice.cmd("ttt challenge alice", "cannot challenge yourself")
    await alice.cmd("ttt challenge bob sideways", "Options: RANKED")
    await alice.cmd("ttt challenge bob", "You challenge Bob")
    await bob.cmd("decline alice", "You decline Alice's offer")
    await alice.expect("Bob declines")
    await alice.cmd("ttt challenge bob", "You challenge Bob")
    await alice.cmd("pending", "to Bob")
    await alice.cmd("withdraw", "You withdraw your offer")
    await bob.expect("Alice withdraws")
    await bob.cmd("accept alice", "no offer from alice")
    await bob.cmd("quit", "Goodbye")
    await alice.expect("Bob has left")
    await alice.cmd("ttt challenge bob", "Bob is not connected")


async def test_accepting_twice_at_once_starts_one_game(parlor, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    await alice.cmd("ttt challenge bob", "You challenge Bob")
    bob.send("ttt accept alice")
    bob.send("ttt accept alice")
    await bob.expect("begins")
    await bob.expect("(no offer from alice|already playing)")
    assert len(parlor.host.live) == 1


async def test_computer_opponent_plays_to_the_end(parlor, clients):
    alice = await clients("Alice")
    await alice.cmd("ttt challenge computer", "Alice vs Computer\\(normal\\)")
    for _ in range(5):
        if "wins" in alice.seen or "draw" in alice.seen:
            break
        game = next(iter(parlor.host.live.values()), None)
        if game is None:
            break
        await _wait_my_turn(parlor, game)
        if game.id not in parlor.host.live:
            break
        cell = next(i for i, c in enumerate(game.state.cells) if c is None)
        await alice.cmd(f"ttt play {cell + 1}", f"Alice: PLAY {cell + 1}")
    await alice.expect("(wins|draw)")


async def _wait_my_turn(parlor, game) -> None:
    for _ in range(100):
        if game.kind.spec.to_move(game.state) in ((0,), ()):
            return
        await asyncio.sleep(0.05)


async def test_disconnect_mid_game_then_claim(parlor, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    await _start_ranked_game(alice, bob)
    await alice.cmd("ttt play 5", "PLAY 5")
    await bob.close()
    await alice.expect("Bob has disconnected from game")
    await alice.cmd("ttt claim", "(may still come back|Alice claims)")  # grace is 1 s in tests
    await asyncio.sleep(1.1)
    await alice.cmd("claim", "Alice claims the game: Bob did not come back")
    await alice.expect("Alice wins \\(resignation\\)")


async def test_disconnect_and_reconnect_finds_the_game(parlor, clients):
    alice = await clients("Alice")
    bob = await clients("Bob")
    await _start_ranked_game(alice, bob)
    await alice.cmd("ttt play 5", "PLAY 5")
    await bob.close()
    await alice.expect("Bob has disconnected")
    bob = await clients()
    await bob.login("Bob")
    await bob.expect("You have a game in progress")
    await alice.expect("Bob is back in game")
    await bob.cmd("ttt play 1", "Bob: PLAY 1")


async def test_restart_mid_game_resumes_at_the_last_move(db_url):
    """On SQLite and on PostgreSQL: stop the server mid-game, start a new one."""
    parlor = assemble(make_config(db_url))
    await parlor.start()
    alice = await (await Client.connect(parlor.port)).create("Alice")
    bob = await (await Client.connect(parlor.port)).create("Bob")
    await _start_ranked_game(alice, bob)
    await alice.cmd("ttt play 1", "PLAY 1")
    await bob.cmd("ttt play 5", "PLAY 5")
    await parlor.stop()
    await alice.closed()

    parlor = assemble(make_config(db_url))
    await parlor.start()
    try:
        alice = await (await Client.connect(parlor.port)).login("Alice")
        out = await alice.expect("You have a game in progress(.|\n)*?---\\+(.|\n)*?> ")
        assert " X | 2 | 3" in out and " 4 | O | 6" in out
        await alice.cmd("ttt play 9", "Alice: PLAY 9")
        game = next(iter(parlor.host.live.values()))
        assert game.version == 3
    finally:
        await parlor.stop()


async def test_sigkill_mid_game_and_restart(tmp_path):
    """The real thing: the server process is killed with SIGKILL between two moves."""
    config = write_config(tmp_path)
    proc, port = await asyncio.to_thread(start_server, config)
    try:
        alice = await (await Client.connect(port)).create("Alice")
        bob = await (await Client.connect(port)).create("Bob")
        await _start_ranked_game(alice, bob)
        await alice.cmd("ttt play 1", "Alice: PLAY 1")   # acknowledged => durable
        await bob.expect("Alice: PLAY 1")
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
    proc, port = await asyncio.to_thread(start_server, config)
    try:
        bob = await (await Client.connect(port)).login("Bob")
        out = await bob.expect("You have a game in progress(.|\n)*?---\\+(.|\n)*?> ")
        assert " X | 2 | 3" in out
        await bob.cmd("ttt play 5", "Bob: PLAY 5")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)


async def test_a_crashing_command_apologises_and_the_session_goes_on(parlor, clients, caplog):
    alice = await clients("Alice")
    await alice.cmd("ttt challenge computer", "Alice vs Computer")
    kind = parlor.host.kinds["ttt"]
    original = kind.spec

    def broken(text):  # noqa: ANN001, ANN202
        raise ZeroDivisionError("a bug")

    kind.spec = attrs.evolve(original, parse_action=broken)
    try:
        await alice.cmd("ttt play 1", "Sorry, something went wrong")
    finally:
        kind.spec = original
    assert any("ZeroDivisionError" in (r.exc_text or "") or r.exc_info for r in caplog.records)
    await alice.cmd("look", "Exits:")


async def test_a_games_display_watches_only_its_own_games(parlor, clients):
    """DICE DISPLAY <n> of a Noughts and Crosses game says whose game it is (it opened
    any game before); TTT DISPLAY and OBSERVE watch it."""
    alice = await clients("Alice")
    bob = await clients("Bob")
    carol = await clients("Carol")
    number = await _start_ranked_game(alice, bob)
    await carol.cmd(f"dice display {number}", f"Game #{number} is Noughts and Crosses, not "
                                              f"Triad Dice; OBSERVE {number} watches it")
    assert "You are now watching" not in carol.seen
    await carol.cmd(f"ttt display {number}", "You are now watching")


async def test_quit_during_a_game_warns_first(parlor, clients):
    """QUIT with a game in progress says so and what happens to it; QUIT again leaves."""
    alice = await clients("Alice")
    bob = await clients("Bob")
    number = await _start_ranked_game(alice, bob)
    await bob.cmd("quit", f"You are playing Noughts and Crosses \\(game #{number}\\): if "
                          "you leave, it waits for you; Alice may CLAIM it")
    assert "Goodbye" not in bob.seen
    await bob.cmd("quit", "Goodbye")
    await alice.expect("Bob has left")
