"""The director sees every live tournament, however many are newer (an old Swiss's
no-show still forfeits, the one-per-player rule still counts an old one); open
tournaments expire; TOURNEY CANCEL by whoever made one or an admin, over real sockets;
and a cancelled sit-and-go leaves every cubit where it was."""

from __future__ import annotations

import asyncio

import attrs
import sqlalchemy as sa

from server.models import Account
from server.services import ledger
from server.services import triad as triad_service
from tests.e2e.test_e2e_tournament_director import _parlor, _players
from tests.support.client import Client

NEWER = 32  # more than the 30 newest the director used to see



async def _admin(parlor, name: str) -> Client:  # noqa: ANN001
    """An admin, logged in again after the grant (a session reads the role at login)."""
    client = (await _players(parlor, name))[0]
    await parlor.accounts.set_admin(name, True)
    await client.cmd("quit", "Goodbye")
    await client.close()
    return await (await Client.connect(parlor.port)).login(name)


async def _newer(parlor, count: int) -> None:  # noqa: ANN001
    """``count`` open tournaments made after the ones already there (the parlor's own)."""
    for _ in range(count):
        await parlor.host.tournaments.create("ttt", "arena", 30, {}, None, True)


async def test_an_old_swiss_is_directed_past_many_newer(sqlite_url):
    parlor = await _parlor(sqlite_url, no_show_seconds=1.5, tick=0.2)
    ann, bea = await _players(parlor, "Ann", "Bea")
    try:
        await ann.cmd("tourney create ttt swiss 1", "Tournament 1 is open")
        await ann.cmd("tourney join 1", "You enter")
        await bea.cmd("tourney join 1", "You enter")
        await bea.close()
        await _newer(parlor, NEWER)
        await ann.cmd("tourney start 1", "you play Bea, who is not connected; they have 1.5 "
                      "seconds to come")
        # the old code never looked at tournament 1 again: no forfeit, no end
        await ann.expect(r"Tournament 1 \(.*\) is over: Ann wins", timeout=8)
        assert (await parlor.host.tournaments.barred(2)) is not None
        assert len(await parlor.host.tournaments.listing()) == NEWER
    finally:
        await ann.close()
        await parlor.stop()


async def test_the_one_per_player_rule_counts_an_old_tournament(sqlite_url):
    parlor = await _parlor(sqlite_url)
    ann, = await _players(parlor, "Ann")
    try:
        await ann.cmd("tourney create ttt swiss 2", "Tournament 1 is open")
        await _newer(parlor, NEWER - 1)
        await ann.cmd("tourney create ttt swiss 3", "You may run 1 tournament at a time")
        await ann.cmd("tourney", r"\n1 +Noughts and Crosses Swiss, 2 rounds.* open ")  # oldest
        await ann.cmd("tourney cancel 1", "You cancel tournament 1")
        await ann.cmd("tourney create ttt swiss 3", f"Tournament {NEWER + 1} is open")
    finally:
        await ann.close()
        await parlor.stop()


async def test_an_open_tournament_expires_on_the_clock(sqlite_url):
    parlor = await _parlor(sqlite_url, tick=60)  # the test turns the clock itself
    svc = parlor.host.tournaments
    ann, bea = await _players(parlor, "Ann", "Bea")
    try:
        await ann.cmd("tourney create ttt swiss 2", "Tournament 1 is open")
        await bea.cmd("tourney join 1", "You enter")
        made = (await svc.get(1)).created_at
        await svc.tick(now=made + 59 * 60)
        assert (await svc.get(1)).status == "open"
        await svc.tick(now=made + 60 * 60 + 1)
        for c in (ann, bea):
            await c.expect(r"Tournament 1 \(Noughts and Crosses Swiss, 2 rounds.*\) is "
                           r"cancelled: not begun within 60 minutes of opening\.")
        assert (await svc.get(1)).status == "cancelled"
        await ann.cmd("tourney 1", r"Cancelled; not begun within 60 minutes of opening\.")
        await bea.cmd("tourney join 1", r"Tournament 1 is cancelled \(not begun within 60")
        # 0: open ones never expire
        svc.configure(attrs.evolve(svc.settings, open_expire_minutes=0))
        await ann.cmd("tourney create ttt arena 5", "Tournament 2 is open")
        await svc.tick(now=made + 1000 * 3600)
        assert (await svc.get(2)).status == "open"
    finally:
        await ann.close()
        await bea.close()
        await parlor.stop()


async def test_an_open_tournament_expires_in_real_time(sqlite_url):
    parlor = await _parlor(sqlite_url, tick=0.2, open_expire_minutes=0.02)  # 1.2 seconds
    ann, bea = await _players(parlor, "Ann", "Bea")
    try:
        await ann.cmd("tourney create ttt swiss 1", "Tournament 1 is open")
        await bea.cmd("tourney join 1", "You enter")
        await bea.expect(r"Tournament 1 \(.*\) is cancelled: not begun within 0.02 minutes",
                         timeout=6)
    finally:
        await ann.close()
        await bea.close()
        await parlor.stop()


async def test_cancel_by_its_maker_refused_to_a_stranger(sqlite_url):
    parlor = await _parlor(sqlite_url)
    ann, bea, cal = await _players(parlor, "Ann", "Bea", "Cal")
    try:
        await ann.cmd("tourney create ttt swiss 2", "Tournament 1 is open")
        await bea.cmd("tourney join 1", "You enter")
        out = await cal.cmd("tourney cancel 1", r"\n> ")
        assert out.strip().splitlines()[0] == \
            "Only whoever made a tournament (or an admin) cancels it." \
            and len(out.strip().splitlines()) == 2
        await cal.cmd("tourney cancel", "Usage: TOURNEY CANCEL <n>")
        await cal.cmd("tourney cancel x", "tournament number")
        await cal.cmd("tourney cancel 9", "There is no tournament 9")
        await ann.cmd("tourney cancel 1", r"You cancel tournament 1: Noughts and Crosses "
                      r"Swiss, 2 rounds.*\. Its entrants are told\.")
        await bea.expect(r"Tournament 1 \(Noughts and Crosses Swiss, 2 rounds.*\) is "
                         r"cancelled: Ann cancelled it\.")
        await ann.cmd("tourney", r"1 +Noughts and Crosses Swiss, 2 rounds.* +cancelled +1")
        await ann.cmd("tourney 1", r"Cancelled; Ann cancelled it\.")
        await ann.cmd("tourney cancel 1", r"Tournament 1 is cancelled \(Ann cancelled it\)")
        await ann.cmd("tourney start 1", r"Tournament 1 is cancelled")
        await cal.cmd("tourney join 1", r"Tournament 1 is cancelled")
        await ann.cmd("help tourney", r"TOURNEY CANCEL <n>")
        assert "cancelled: Ann cancelled it" not in ann.seen  # told by the reply, once
    finally:
        for c in (ann, bea, cal):
            await c.close()
        await parlor.stop()


async def test_an_admin_cancels_an_open_and_a_running_swiss(sqlite_url):
    parlor = await _parlor(sqlite_url, tick=0.2)
    svc = parlor.host.tournaments
    ann, bea = await _players(parlor, "Ann", "Bea")
    root = await _admin(parlor, "Root")
    try:
        await ann.cmd("tourney create ttt arena 30", "Tournament 1 is open")
        await root.cmd("tourney cancel 1", "You cancel tournament 1")
        await ann.expect(r"Tournament 1 \(.*\) is cancelled: Root cancelled it\.")
        await ann.cmd("tourney create ttt swiss 2", "Tournament 2 is open")
        await ann.cmd("tourney join 2", "You enter")
        await bea.cmd("tourney join 2", "You enter")
        await ann.cmd("tourney start 2", r"Game #1: Noughts and Crosses, \w+ vs \w+ begins")
        await ann.cmd("tourney cancel 2", "Tournament 2 has begun; only an admin may cancel "
                      "it now.")
        await root.cmd("tourney cancel 2", "You cancel tournament 2")
        for c in (ann, bea):
            await c.expect(r"Tournament 2 \(.*\) is cancelled: Root cancelled it; games in "
                           r"play are played out\.")
        bea.send("ttt resign")
        await ann.expect(r"Game #1: \w+ wins")
        await asyncio.sleep(0.6)  # three looks of the clock: no round 2 is paired
        row = await svc.get(2)
        assert row.status == "cancelled" and len(row.state["pairings"]) == 1
        assert len(parlor.host.live) == 0
    finally:
        for c in (ann, bea, root):
            await c.close()
        await parlor.stop()


async def _audit(parlor) -> int:  # noqa: ANN001
    """Every account's cubits together, once the ledger and the tables' ledger are
    clean (``esterport admin audit``)."""
    async with parlor.db.session() as tx:
        assert await ledger.audit(tx) == []
        assert await triad_service.audit_tables(tx) == []
        return int(await tx.scalar(sa.select(sa.func.sum(Account.cubits))))


async def test_a_cancelled_sit_and_go_moves_no_cubit(sqlite_url):
    parlor = await _parlor(sqlite_url)
    ann, bea, cal = await _players(parlor, "Ann", "Bea", "Cal")
    root = await _admin(parlor, "Root")
    try:
        total = await _audit(parlor)
        await ann.cmd("tourney create triad sitgo 200 10", "Tournament 1 is open")
        await bea.cmd("tourney join 1", "You enter")
        await cal.cmd("tourney join 1", "You enter")
        await ann.cmd("tourney cancel 1", "You cancel tournament 1")
        await bea.expect(r"Tournament 1 \(Triad sit-and-go.*\) is cancelled: Ann cancelled")
        await ann.cmd("tourney 1", r"Cancelled; Ann cancelled it\.")
        assert await _audit(parlor) == total
        # a running sit-and-go holds the stacks at its tables: refused, and says so
        await ann.cmd("tourney create triad sitgo 200 10", "Tournament 2 is open")
        await bea.cmd("tourney join 2", "You enter")
        await cal.cmd("tourney join 2", "You enter")
        await ann.cmd("tourney start 2", "Tournament 2 begins")
        await bea.expect(r"you sit at Triad table #\d+ with 200 cubits", timeout=10)
        await root.cmd("tourney cancel 2", "Tournament 2 has begun, and a SITGO tournament "
                       "runs to its end once begun")
        assert (await parlor.host.tournaments.get(2)).status == "running"
        await _audit(parlor)
    finally:
        for c in (ann, bea, cal, root):
            await c.close()
        await parlor.stop()
