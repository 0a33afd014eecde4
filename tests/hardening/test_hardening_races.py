"""Concurrency races, on SQLite and PostgreSQL: two requests for the one thing at the same
moment; exactly one wins, the other is told why, and nothing is lost or made twice."""

from __future__ import annotations

import asyncio

import pytest
import sqlalchemy as sa

from server.models import Account, GameRecord
from server.services.triptycha_models import Disc, TileInstance
from server.services import ledger
from server.services import tiles as tile_service
from server.session import Session
from tests.hardening.harness import APOLOGY, FakeTerminal, Harness, Player


async def _audit(h: Harness) -> None:
    async with h.parlor.db.session() as tx:
        assert await ledger.audit(tx) == []
        assert await tile_service.audit(tx) == []
    assert not h.errors.take()


async def _together(*pairs: tuple[Player, str]) -> list[str]:
    """Type several lines at the same moment; return each player's answer."""
    for p, _ in pairs:
        p.new_output()
    await asyncio.gather(*(p.type(line) for p, line in pairs))
    await asyncio.sleep(0.05)
    return [p.new_output() for p, _ in pairs]


async def _second_connection(h: Harness, player: Player) -> Player:
    """Another connection of the same account that has not taken the first one over (as a
    second server node sharing the database would have)."""
    session = Session(h.parlor, FakeTerminal(player.terminal.address))
    session.account = await h.parlor.accounts.get(player.name)
    session.name = session.account.name
    session.room = player.session.room
    twin = Player(h, player.name, session)
    return twin


def _two_seat_kinds(h: Harness):  # noqa: ANN202
    return [k for k in h.parlor.host.kinds.values()
            if k.seats == 2 and (k.min_seats or 2) == 2]


async def test_two_players_accepting_offers_from_one_challenger(harness):
    """Alice challenges Bob and Carol to the same game; both accept at once. Alice can
    play one game of a kind at a time: exactly one game starts, the other acceptor is
    told Alice is already playing."""
    h = harness
    alice, bob, carol = (await h.player("Alice"), await h.player("Bob", address="10.0.0.2"),
                         await h.player("Carol", address="10.0.0.3"))
    alice_id = alice.session.account.id
    tried, wrong = [], []
    for kind in _two_seat_kinds(h):
        p = kind.prefix
        out_b = await alice.cmd(f"{p} challenge bob")
        out_c = await alice.cmd(f"{p} challenge carol")
        if "You challenge" not in out_b or "You challenge" not in out_c:
            continue  # this game takes other options to be offered: not this test's point
        tried.append(kind.key)
        answers = await _together((bob, f"{p} accept alice"), (carol, f"{p} accept alice"))
        assert not any(APOLOGY in a for a in answers)
        games = [g for g in h.parlor.host.live.values()
                 if g.kind is kind and g.seat_of(alice_id) is not None]
        refused = [a for a in answers if "already playing" in a]
        async with h.parlor.db.session() as tx:
            active = await tx.scalar(sa.select(sa.func.count()).select_from(GameRecord).where(
                GameRecord.kind == kind.key, GameRecord.status == "active"))
        if len(games) != 1 or len(refused) != 1 or active != 1:
            wrong.append(f"{kind.key}: {len(games)} games started for Alice")
        for game in games:  # end them all, whatever happened
            await h.parlor.host.resign(game.seats[1].account_id, kind.key)
    assert tried
    assert not wrong, wrong
    await _audit(h)


async def test_accepting_the_same_offer_twice_at_once(harness):
    h = harness
    alice, bob = await h.player("Alice"), await h.player("Bob", address="10.0.0.2")
    twin = await _second_connection(h, bob)
    for kind in _two_seat_kinds(h):
        p = kind.prefix
        if "You challenge" not in await alice.cmd(f"{p} challenge bob"):
            continue
        answers = await _together((bob, f"{p} accept alice"), (twin, f"accept alice"))
        refused = [a for a in answers if "There is no offer from alice" in a]
        assert len(refused) == 1, (kind.key, answers)
        assert sum(1 for g in h.parlor.host.live.values() if g.kind is kind) == 1
        await alice.cmd(f"{p} resign")
    await _audit(h)


async def test_giving_the_same_tile_twice_at_once(harness):
    h = harness
    alice = await h.player("Alice")
    bob = await h.player("Bob", address="10.0.0.2")
    carol = await h.player("Carol", address="10.0.0.3")
    if "tt" not in h.parlor.host.kinds:
        return
    twin = await _second_connection(h, alice)
    async with h.parlor.db.session() as tx:
        tile_id = await tx.scalar(sa.select(sa.func.min(TileInstance.id)).where(
            TileInstance.owner_id == alice.session.account.id))
    assert "inventory" in (await alice.cmd(f"outtd #{tile_id}")).lower()
    for round_ in range(3):
        answers = await _together((alice, f"give #{tile_id} to bob"),
                                  (twin, f"give #{tile_id} to carol"))
        won = [a for a in answers if "You give" in a]
        assert len(won) == 1, answers
        lost = [a for a in answers if "You give" not in a]
        assert "no tile" in lost[0] or "just moved" in lost[0], answers
        async with h.parlor.db.session() as tx:
            owner = await tx.scalar(sa.select(TileInstance.owner_id).where(
                TileInstance.id == tile_id))
        winner = bob if "to Bob" in won[0] else carol
        assert owner == winner.session.account.id
        # give it back for the next round
        assert "You give" in await winner.cmd(f"give #{tile_id} to alice")
    await _audit(h)


async def test_buying_with_the_last_cubits_from_two_sessions(harness):
    h = harness
    if "tt" not in h.parlor.host.kinds:
        return
    alice = await h.player("Alice")
    admin = await h.player("Root", admin=True, address="10.0.0.9")
    twin = await _second_connection(h, alice)
    await alice.cmd("north")
    twin.session.room = alice.session.room
    listing = await alice.cmd("list")
    assert "Harbour" in listing, listing
    async with h.parlor.db.session() as tx:
        balance = await tx.scalar(sa.select(Account.cubits).where(Account.name == "Alice"))
    price = 150
    # leave Alice exactly one disc's worth
    out = await admin.cmd(f"@cubits alice {price - balance}")
    assert f"now has {price} cubits" in out, out
    for _ in range(2):
        answers = await _together((alice, "buy harbour"), (twin, "buy harbour"))
        won = [a for a in answers if "You buy" in a]
        assert len(won) == 1, answers
        lost = [a for a in answers if "You buy" not in a][0]
        assert "costs 150 cubits; you have 0" in lost, answers
        async with h.parlor.db.session() as tx:
            assert await tx.scalar(sa.select(Account.cubits).where(Account.name == "Alice")) == 0
        await admin.cmd(f"@cubits alice {price}")
    async with h.parlor.db.session() as tx:
        discs = await tx.scalar(sa.select(sa.func.count()).select_from(Disc).where(
            Disc.owner_id == alice.session.account.id))
    assert discs == 2
    await _audit(h)
