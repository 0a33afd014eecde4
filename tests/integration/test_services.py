"""The services on a real database: every test runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest
import sqlalchemy as sa

from games.errors import RuleError
from server.bus import LocalBus
from server.hosting import Seat
from server.models import GamePlayer, GameRecord, LedgerEntry
from server.services import ledger
from server.services.accounts import AccountError, Accounts
from server.services.games import GameError, GameHost
from server.services.notify import last_games
from server.services.ratings import Ratings
from tests.support.tictactoe import TicTacToe


@pytest.fixture
def accounts(db):
    return Accounts(db, 100, argon2_time_cost=1, argon2_memory_kib=1024)


async def test_accounts_create_authenticate_and_names_are_case_insensitive(accounts):
    alice = await accounts.create("Alice", "secret")
    assert alice.cubits == 100
    with pytest.raises(AccountError, match="taken"):
        await accounts.create("ALICE", "other1")
    with pytest.raises(AccountError, match="3 to 16"):
        await accounts.create("x!", "secret")
    assert (await accounts.authenticate("alice", "secret")).id == alice.id
    assert await accounts.authenticate("alice", "wrong") is None
    assert await accounts.authenticate("nobody", "secret") is None


async def test_login_trust_is_per_name_and_address_and_lapses(db, accounts):
    alice = await accounts.create("Alice", "secret")
    assert not await accounts.trusted("alice", "192.0.2.1")
    await accounts.trust(alice.id, "192.0.2.1", 60)
    await accounts.trust(alice.id, "192.0.2.1", 60)  # again: still one row, renewed
    assert await accounts.trusted("ALICE", "192.0.2.1")
    assert not await accounts.trusted("alice", "192.0.2.2")
    assert not await accounts.trusted("nobody", "192.0.2.1")
    await accounts.trust(alice.id, "192.0.2.2", -1)  # lapsed
    assert not await accounts.trusted("alice", "192.0.2.2")
    await accounts.trust(alice.id, "192.0.2.3", 60)  # a new trust sweeps the lapsed one
    another = Accounts(db, 100, argon2_time_cost=1, argon2_memory_kib=1024)  # a restart
    assert await another.trusted("alice", "192.0.2.1")
    async with db.session() as tx:
        rows = (await tx.execute(sa.text(
            "SELECT address FROM login_trust ORDER BY address"))).scalars().all()
    assert rows == ["192.0.2.1", "192.0.2.3"]


async def test_ignores(accounts):
    a = await accounts.create("Alice", "secret")
    b = await accounts.create("Bob", "secret")
    await accounts.set_ignore(a.id, b.id, True)
    await accounts.set_ignore(a.id, b.id, True)  # twice is harmless
    assert await accounts.is_ignoring(a.id, b.id)
    assert not await accounts.is_ignoring(b.id, a.id)
    await accounts.set_ignore(a.id, b.id, False)
    assert await accounts.ignored_by(a.id) == set()


async def test_ledger_moves_and_audits(db, accounts):
    a = await accounts.create("Alice", "secret")
    b = await accounts.create("Bob", "secret")
    async with db.session() as tx:
        await ledger.transfer(tx, a.id, b.id, 30, "test")
        await tx.commit()
    async with db.session() as tx:
        with pytest.raises(ledger.InsufficientCubits):
            await ledger.move(tx, a.id, -71, "too much")
        await tx.rollback()
    assert (await accounts.get("Alice")).cubits == 70
    assert (await accounts.get("Bob")).cubits == 130
    async with db.session() as tx:
        assert await ledger.audit(tx) == []
        total = await tx.scalar(sa.select(sa.func.sum(LedgerEntry.delta)))
    assert total == 200


async def test_two_sessions_spending_the_last_cubits_one_wins(db, accounts):
    a = await accounts.create("Alice", "secret")

    async def spend() -> bool:
        async with db.session() as tx:
            try:
                await ledger.move(tx, a.id, -80, "buy")
                await asyncio.sleep(0.05)
                await tx.commit()
                return True
            except ledger.InsufficientCubits:
                await tx.rollback()
                return False
            except sa.exc.OperationalError:  # SQLite: the loser may time out on the lock
                await tx.rollback()
                return False

    results = await asyncio.gather(spend(), spend())
    assert sorted(results) == [False, True]
    assert (await accounts.get("Alice")).cubits == 20


async def test_host_plays_records_replays_and_restores(db, accounts):
    a = await accounts.create("Alice", "secret")
    b = await accounts.create("Bob", "secret")
    online = {a.id, b.id}
    host = GameHost(db, LocalBus(), accounts, is_online=online.__contains__, reconnect_grace=0)
    host.register(TicTacToe())
    offer = await host.offer("ttt", Seat(a.id, "Alice"), "bob", {"ranked": True})
    with pytest.raises(GameError, match="no offer"):
        await host.accept("ttt", Seat(b.id, "Bob"), "carol")
    game = await host.accept("ttt", Seat(b.id, "Bob"), "Alice")
    assert offer.id not in host.offers.by_id
    await host.act_text(a.id, "ttt", "PLAY 1")
    with pytest.raises(RuleError):
        await host.act_text(b.id, "ttt", "PLAY 1")
    await host.act_text(b.id, "ttt", "PLAY 4")
    assert game.version == 2

    # a second host on the same database restores the game where it stood (and notes
    # its players if they were not: a game a node on an older release began)
    async with db.session() as tx:
        await tx.execute(sa.delete(GamePlayer).where(GamePlayer.game_id == game.id))
        await tx.commit()
    host2 = GameHost(db, LocalBus(), accounts, is_online=online.__contains__, reconnect_grace=0)
    host2.register(TicTacToe())
    assert await host2.restore() == 1
    async with db.session() as tx:
        assert set(await tx.scalars(sa.select(GamePlayer.account_id)
                                    .where(GamePlayer.game_id == game.id))) == {a.id, b.id}
    restored = host2.get_live(game.id)
    assert restored.state == game.state and restored.version == 2
    await host2.act_text(a.id, "ttt", "PLAY 2")
    await host2.act_text(b.id, "ttt", "PLAY 5")
    finished = await host2.act_text(a.id, "ttt", "PLAY 3")
    assert finished.outcome.winner == 0
    assert game.id not in host2.live
    replayed, moves = await host2.replay(game.id)
    assert replayed.outcome is not None and len(moves) == replayed.version
    halfway, _ = await host2.replay(game.id, 2)
    assert halfway.state.cells.count(None) == 7
    ratings = Ratings(db)
    ra, rb = await ratings.get(a.id, "ttt"), await ratings.get(b.id, "ttt")
    assert (ra.ranked_wins, rb.ranked_losses) == (1, 1)
    assert ra.rating > 1500 > rb.rating


async def test_a_players_games_are_found_however_many_others_came_after(db, accounts):
    """The last games of a player (FINGER, the player's page) and the last game of two
    players (REMATCH) are read from the player's own games: 600 games of others
    finished since do not hide theirs."""
    a = await accounts.create("Alice", "secret")
    b = await accounts.create("Bob", "secret")
    c = await accounts.create("Carol", "secret")
    online = {a.id, b.id, c.id}
    host = GameHost(db, LocalBus(), accounts, is_online=online.__contains__, reconnect_grace=0)
    host.register(TicTacToe())
    game = await host.start_game("ttt", (Seat(a.id, "Alice"), Seat(b.id, "Bob")), {})
    for seat, cell in ((a, 1), (b, 4), (a, 2), (b, 5), (a, 3)):
        await host.act_text(seat.id, "ttt", f"PLAY {cell}")
    assert game.outcome is not None
    others = [{"id": c.id, "name": "Carol", "computer": None}] * 2   # (as if, a lot)
    since = range(game.id + 1, game.id + 601)
    async with db.session() as tx:
        await tx.execute(sa.insert(GameRecord.__table__), [
            dict(id=n, kind="ttt", status="finished", seats=others, options={},
                 ranked=False, seed=0, initial_state={}, state={}, version=0,
                 created_at=0.0, updated_at=0.0) for n in since])
        await tx.execute(sa.insert(GamePlayer.__table__),
                         [dict(account_id=c.id, game_id=n) for n in since])
        await tx.commit()
    for account in (a, b):
        assert [r.id for r in (await last_games(db, account.id))["ttt"]] == [game.id]
    assert [r.id for r in (await last_games(db, c.id, 3))["ttt"]] == [since[-1], since[-2],
                                                                      since[-3]]
    assert (await host.records.last_finished(b.id, "ttt", "alice")).id == game.id
    assert await host.records.last_finished(b.id, "ttt", "carol") is None


async def test_claim_after_grace(db, accounts):
    a = await accounts.create("Alice", "secret")
    b = await accounts.create("Bob", "secret")
    online = {a.id, b.id}
    host = GameHost(db, LocalBus(), accounts, is_online=online.__contains__,
                    reconnect_grace=0.2)
    host.register(TicTacToe())
    game = await host.start_game("ttt", (Seat(a.id, "Alice"), Seat(b.id, "Bob")), {})
    with pytest.raises(GameError, match="connected"):
        await host.claim(a.id, "ttt")
    host.player_left(b.id, "Bob")
    with pytest.raises(GameError, match="may still come back"):
        await host.claim(a.id, "ttt")
    await asyncio.sleep(0.25)
    await host.claim(a.id, "ttt")
    assert game.outcome.winner == 0


def test_alembic_upgrade_head_from_the_command_line(db_url, tmp_path):
    env = dict(os.environ, ESTERPORT_DATABASE_URL=db_url)
    done = subprocess.run([sys.executable, "-m", "alembic", "upgrade", "head"], env=env,
                          capture_output=True, text=True, cwd=os.getcwd())
    assert done.returncode == 0, done.stderr
    done = subprocess.run([sys.executable, "-m", "alembic", "current"], env=env,
                          capture_output=True, text=True, cwd=os.getcwd())
    assert "(head)" in done.stdout + done.stderr


async def test_a_game_clock_applies_the_timeout_action(db, accounts):
    a = await accounts.create("Alice", "secret")
    b = await accounts.create("Bob", "secret")
    host = GameHost(db, LocalBus(), accounts, is_online=lambda _: True, reconnect_grace=0)
    host.register(TicTacToe())
    game = await host.start_game("ttt", (Seat(a.id, "Alice"), Seat(b.id, "Bob")), {"clock": 1.0})
    await host.act_text(a.id, "ttt", "PLAY 1")
    await asyncio.sleep(0.3)
    await host.act_text(b.id, "ttt", "PLAY 2")   # Bob moved in time: Alice's clock restarts
    for _ in range(100):                    # then Alice runs out of time
        if game.outcome is not None:
            break
        await asyncio.sleep(0.05)
    assert game.outcome is not None and game.outcome.winner == 1
    _, moves = await host.replay(game.id)
    assert [m.notation for m in moves] == ["PLAY 1", "PLAY 2", "RESIGN"]
    await host.close()
