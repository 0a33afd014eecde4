"""A Triad sit-and-go of 12 entrants, played by scripted players over real sockets (each
raises all it has when it may, else equals; keeps its cards in the draw): two tables of
six, merged as players go bust, one winner, and every cubit accounted for (the ledger
audit of ``esterport admin audit`` and the tables' ledger are clean)."""

from __future__ import annotations

import asyncio

import pytest
import sqlalchemy as sa

from commands.app import assemble
from games.triad import rules
from server.models import Account
from server.services import ledger
from server.services import triad as triad_service
from tests.conftest import make_config

STACK = 200
OPENING = 10


@pytest.fixture
async def parlor(sqlite_url):
    """The parlor, taking 12 players from one address (``clients`` uses this one)."""
    p = assemble(make_config(sqlite_url, max_connections_per_address=30))
    await p.start()
    yield p
    await p.stop()


def _line(game, pos: int) -> str:
    """What the scripted player at ``pos`` types: all in when it may raise, else equal
    (or pass); in the draw it keeps its cards."""
    actions = list(rules.legal_actions(game, pos))
    if any(a.kind == "DRAW" for a in actions):
        return "triad stand"
    raises = [a for a in actions if a.kind == "RAISE"]
    if raises:
        return f"triad raise {raises[-1].amount}"
    for kind in ("EQUAL", "PASS"):
        if any(a.kind == kind for a in actions):
            return f"triad {kind.lower()}"
    return "triad fold"


async def _drive(parlor, number: int, players: dict[int, object],
                 gone: frozenset[int] = frozenset()) -> list[list[int]]:
    """Until the tournament is over: the player whose turn it is, at every table, types
    their move (read from the table they see); for the ``gone`` (disconnected) the
    table's clock moves, as for anyone away. Returns the players seated at each of its
    tables, every time that changed."""
    svc = parlor.host.tournaments
    seen: list[list[int]] = []
    while (await svc.get(number)).status == "running":
        seated = sorted(sum(1 for s in g.state.places if s is not None)
                        for g in parlor.host.live.values()
                        if g.kind.key == "triad" and g.options.get("tournament") == number)
        if not seen or seen[-1] != seated:
            seen.append(seated)
        moved = False
        for game in list(parlor.host.live.values()):
            if game.kind.key != "triad" or game.options.get("tournament") != number:
                continue
            table = game.state
            pos = table.game.to_act
            if table.game.phase == "hand_over" or pos is None:
                continue
            seat = table.places[pos]
            if table.seats[seat].account_id in gone:
                continue
            client = players[table.seats[seat].account_id]
            version = game.version
            client.send(_line(table.game, pos))
            for _ in range(300):
                if game.version > version or game.id not in parlor.host.live:
                    break
                await asyncio.sleep(0.01)
            moved = True
        if not moved:
            await asyncio.sleep(0.05)
    return seen


async def _cubits(parlor) -> int:
    async with parlor.db.session() as tx:
        return int(await tx.scalar(sa.select(sa.func.sum(Account.cubits))))


async def test_a_sit_and_go_of_twelve(parlor, clients):
    names = ["Anna", "Boris", "Chloe", "Dmitri", "Elena", "Fabio",
             "Greta", "Hugo", "Ines", "Jonas", "Karen", "Mateo"]
    clients_ = await asyncio.gather(*(clients(n) for n in names))
    first = clients_[0]
    await first.cmd("tourney create triad sitgo 50 10", "A stack is at least 10 opening bets")
    await first.cmd("tourney create triad sitgo 200 ten", "takes one option: the opening bet")
    await first.cmd("tourney create triad sitgo 200 0", "The opening bet is at least 1 cubit")
    await first.cmd(f"tourney create triad sitgo {STACK} {OPENING}",
                    rf"Tournament 1 is open: Triad sit-and-go, stacks of {STACK}, "
                    rf"opening {OPENING}")
    await asyncio.gather(*(c.cmd("tourney join 1", "You enter tournament 1") for c in clients_))
    await first.cmd("tourney 1", "Open: Stacks of 200 cubits")
    outsider = await clients("Outsider")
    total = await _cubits(parlor)

    first.send("tourney start 1")
    for c in clients_:
        await c.expect(r"you sit at Triad table #\d+ with 200 cubits", timeout=10)
    row = await parlor.host.tournaments.get(1)
    tables = row.state["tables"]
    assert len(tables) == 2
    sizes = [sum(1 for s in parlor.host.live[t].state.places if s is not None) for t in tables]
    assert sizes == [6, 6]
    # A tournament table takes nobody else, nor a computer player.
    await outsider.cmd(f"triad join {tables[0]}", "its director seats its entrants")
    await first.cmd("triad bot", "its director seats its entrants")

    ids = {}
    async with parlor.db.session() as tx:
        for account in await tx.scalars(sa.select(Account).where(Account.name.in_(names))):
            ids[account.id] = clients_[names.index(account.name)]
    # One entrant drops at once: handled as at any table (away: they pass or fold, and
    # stand up with their stack when the hand ends), so out of the tournament.
    dropped = clients_[-1]
    await dropped.close()
    gone = frozenset(i for i, c in ids.items() if c is dropped)
    seen = await asyncio.wait_for(_drive(parlor, 1, ids, gone), 90)
    # two tables of six, then (players gone bust) one table, merged
    assert seen[0] == [6, 6] and any(len(t) == 1 and t[0] > 1 for t in seen), seen

    row = await parlor.host.tournaments.get(1)
    assert row.status == "finished"
    standings = parlor.host.tournaments.system_of("triad", "sitgo").standings(row)
    winners = [s for s in standings if s["status"] == "winner"]
    assert len(winners) == 1 and standings[0] is winners[0] and winners[0]["place"] == 1
    assert sorted(s["place"] for s in standings) == list(range(1, 13))
    left = next(s for s in standings if s["name"] == dropped.name)
    assert left["status"] == "out" and left["place"] > 1
    assert not [g for g in parlor.host.live.values() if g.kind.key == "triad"]
    for c in clients_[:-1]:
        await c.expect(rf"Tournament 1 \(.*\) is over: {winners[0]['name']} wins", timeout=10)
    out = await first.cmd("tourney 1", r"Over: Stacks of 200 cubits[^\n]*")
    assert "last stack standing" in out

    # Cubits conserved: every account's balance is its ledger, every table's ledger adds
    # up, and the parlor holds what it held before.
    async with parlor.db.session() as tx:
        assert await ledger.audit(tx) == []
        assert await triad_service.audit_tables(tx) == []
    assert await _cubits(parlor) == total
    # The winner holds every stack but what the others stood up with: each entrant put
    # in STACK, and whatever an entrant has above 1000 - STACK is what they took back.
    async with parlor.db.session() as tx:
        balances = {a.id: a.cubits for a in await tx.scalars(
            sa.select(Account).where(Account.name.in_(names)))}
    taken_back = sum(b - (1000 - STACK) for i, b in balances.items() if i != winners[0]["id"])
    assert winners[0]["stack"] == 12 * STACK - taken_back
    assert balances[winners[0]["id"]] == 1000 - STACK + winners[0]["stack"]
    assert winners[0]["stack"] > 12 * STACK - 12 * OPENING - STACK  # nearly everything


async def test_a_sit_and_go_survives_a_restart(tmp_path):
    """The server stops between two moves: after the restart the director goes on with
    the tables as they stood, and the cubits still add up."""
    from tests.support.client import Client

    url = f"sqlite+aiosqlite:///{tmp_path}/sitgo.db"
    names = ["Alma", "Bruno", "Clara", "Diego"]
    parlor = assemble(make_config(url, max_connections_per_address=30))
    await parlor.start()
    try:
        players = [await (await Client.connect(parlor.port)).create(n) for n in names]
        await players[0].cmd(f"tourney create triad sitgo {STACK} {OPENING}", "is open")
        for p in players:
            await p.cmd("tourney join 1", "You enter tournament 1")
        total = await _cubits(parlor)
        players[0].send("tourney start 1")
        for p in players:
            await p.expect(r"you sit at Triad table #\d+", timeout=10)
        table_id = (await parlor.host.tournaments.get(1)).state["tables"][0]
        for _ in range(200):  # the director deals the first hand
            if parlor.host.live[table_id].state.game.phase != "hand_over":
                break
            await asyncio.sleep(0.02)
        assert parlor.host.live[table_id].state.game.phase != "hand_over"
    finally:
        await parlor.stop()

    parlor = assemble(make_config(url, max_connections_per_address=30))
    await parlor.start()
    try:
        players = [await (await Client.connect(parlor.port)).login(n) for n in names]
        ids = {}
        async with parlor.db.session() as tx:
            for account in await tx.scalars(sa.select(Account).where(Account.name.in_(names))):
                ids[account.id] = players[names.index(account.name)]
        await asyncio.wait_for(_drive(parlor, 1, ids), 60)
        row = await parlor.host.tournaments.get(1)
        assert row.status == "finished" and row.state["winner"] in ids
        async with parlor.db.session() as tx:
            assert await ledger.audit(tx) == []
            assert await triad_service.audit_tables(tx) == []
        assert await _cubits(parlor) == total
    finally:
        await parlor.stop()
