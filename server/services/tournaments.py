"""The tournament director: Swiss tournaments of any game of two players, run by the
parlor itself (``server/services/pairing.py`` pairs them).

A tournament is one row (``tournaments``: what it is, and its state as JSON: entrants,
rounds, each round's pairings with their games and results), rewritten at every change,
so it survives a restart (``restore``). Its games are ordinary games, stored, told and
rated as any other; when one ends, its result is written into the tournament, and when a
round's last result is in, the next round is paired. Every change is published on the bus
(topic ``tournaments``: ``tournament.changed`` with the number and status).

A player not connected when their game is to start forfeits it (a no-show); a player who
drops mid-game is handled as in any game (the opponent may CLAIM it after the grace).

A game may bring systems of its own (``GameKind.tournament_systems``: Pyramid's Par
tournament, ``server/services/pyramid_par.py``; Triad's sit-and-go,
``server/services/triad_sitgo.py``): the director keeps their rows, entrants and quota,
and hands them the start, their games' results and their standings (``system_of``).

Not here yet: arena, scheduled tournaments from the configuration, a no-show's waiting
time and bar.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Callable

import sqlalchemy as sa

from server.bus import Bus, Event
from server.db import Database
from server.hosting import GameKind, Seat
from server.services.live import GameError, LiveGame, LiveGames
from server.services.meeting_models import TournamentRecord
from server.services.pairing import Entrant, Result, swiss_pairings, swiss_standings
from server.services.seeks import Formulas, Start

log = logging.getLogger(__name__)

TOPIC = "tournaments"
MAX_ROUNDS = 15
PLAYER_QUOTA = 1  # open or running tournaments a player (not an admin) may have made


class Tournaments:
    def __init__(self, db: Database, bus: Bus, kinds: dict[str, GameKind], games: LiveGames,
                 formulas: Formulas, start: Start, is_online: Callable[[int], bool],
                 tell: Callable[..., None], spawn: Callable[..., Any]) -> None:
        self.db = db
        self.bus = bus
        self.kinds = kinds
        self.games = games
        self.formulas = formulas
        self.start = start
        self.is_online = is_online
        self.tell = tell
        self.spawn = spawn
        self.lock = asyncio.Lock()
        self.by_game: dict[int, int] = {}  # game in play -> its tournament
        games.listeners.append(self._game_changed)

    # -- the rows ----------------------------------------------------------------------
    async def get(self, number: int) -> TournamentRecord:
        async with self.db.session() as tx:
            row = await tx.get(TournamentRecord, number)
        if row is None:
            raise GameError(f"There is no tournament {number}.")
        return row

    async def listing(self, finished: bool = False) -> list[TournamentRecord]:
        async with self.db.session() as tx:
            query = sa.select(TournamentRecord).order_by(TournamentRecord.id.desc()).limit(30)
            if not finished:
                query = query.where(TournamentRecord.status != "finished")
            return list(await tx.scalars(query))

    async def _save(self, row: TournamentRecord, state: dict[str, Any], status: str) -> None:
        async with self.db.session() as tx:
            await tx.execute(sa.update(TournamentRecord).where(TournamentRecord.id == row.id)
                             .values(state=state, status=status, version=row.version + 1,
                                     updated_at=time.time()))
            await tx.commit()
        row.state, row.status, row.version = state, status, row.version + 1
        self.bus.publish(TOPIC, Event("tournament.changed", {"id": row.id, "status": status}))

    # -- what players do ---------------------------------------------------------------
    def system_of(self, kind_key: str, system: str) -> Any:
        """The game's own system called ``system`` (Par, sit-and-go), or None."""
        kind = self.kinds.get(kind_key)
        return None if kind is None else kind.tournament_systems().get(system)

    async def create(self, kind_key: str, system: str, rounds: int, options: dict[str, Any],
                     by: Seat, admin: bool) -> TournamentRecord:
        kind = self.kinds[kind_key]
        own = self.system_of(kind_key, system)
        if own is not None:  # ``rounds``: the system's number (deals, a stack)
            return await self._create_own(own, kind_key, rounds, options, by, admin)
        if kind.seats != 2 or kind.min_seats != 2 or kind.open_table:
            raise GameError(f"A Swiss tournament is for games of two; {kind.title} is not one.")
        if system != "swiss":
            raise GameError("Only SWISS tournaments are run yet.")
        if not 1 <= rounds <= MAX_ROUNDS:
            raise GameError(f"A tournament has 1 to {MAX_ROUNDS} rounds.")
        if not admin:
            mine = [t for t in await self.listing() if t.created_by == by.account_id]
            if len(mine) >= PLAYER_QUOTA:
                raise GameError(f"You may run {PLAYER_QUOTA} tournament at a time.")
        opts = kind.describe_options(options)
        now = time.time()
        row = TournamentRecord(
            kind=kind_key, system=system, status="open", created_by=by.account_id,
            title=f"{kind.title} Swiss, {rounds} rounds{' (' + opts + ')' if opts else ''}",
            state={"rounds": rounds, "options": options, "entrants": [], "pairings": []},
            version=0, created_at=now, updated_at=now)
        async with self.db.session() as tx:
            tx.add(row)
            await tx.commit()
        self.bus.publish(TOPIC, Event("tournament.changed", {"id": row.id, "status": "open"}))
        return row

    async def _create_own(self, own: Any, kind_key: str, number: int,
                          options: dict[str, Any], by: Seat, admin: bool) -> TournamentRecord:
        if not admin:
            mine = [t for t in await self.listing() if t.created_by == by.account_id]
            if len(mine) >= PLAYER_QUOTA:
                raise GameError(f"You may run {PLAYER_QUOTA} tournament at a time.")
        title, state = own.new(number, options)
        now = time.time()
        row = TournamentRecord(kind=kind_key, system=own.name, status="open",
                               created_by=by.account_id, title=title, state=state, version=0,
                               created_at=now, updated_at=now)
        async with self.db.session() as tx:
            tx.add(row)
            await tx.commit()
        self.bus.publish(TOPIC, Event("tournament.changed", {"id": row.id, "status": "open"}))
        return row

    async def join(self, number: int, me: Seat) -> TournamentRecord:
        async with self.lock:
            row = await self.get(number)
            if row.status != "open":
                raise GameError(f"Tournament {number} has begun; it takes no entrants now.")
            entrants = row.state["entrants"]
            if any(e["id"] == me.account_id for e in entrants):
                raise GameError(f"You have entered tournament {number} already.")
            if len(entrants) >= row.state.get("max", len(entrants) + 1):  # a system's cap
                raise GameError(f"Tournament {number} is full ({len(entrants)} entrants).")
            rating, _ = await self.formulas.rating(me.account_id, row.kind)
            state = {**row.state, "entrants": [*entrants, {"id": me.account_id, "name": me.name,
                                                           "rating": round(rating)}]}
            await self._save(row, state, row.status)
            return row

    async def withdraw(self, number: int, me: Seat) -> TournamentRecord:
        async with self.lock:
            row = await self.get(number)
            entrants = row.state["entrants"]
            if not any(e["id"] == me.account_id for e in entrants):
                raise GameError(f"You are not in tournament {number}.")
            if row.status == "finished":
                raise GameError(f"Tournament {number} is over.")
            if row.status == "open":
                state = {**row.state, "entrants": [e for e in entrants
                                                   if e["id"] != me.account_id]}
            else:  # paired no more; games in play are played out
                state = {**row.state, "entrants": [
                    {**e, "withdrawn": True} if e["id"] == me.account_id else e
                    for e in entrants]}
            await self._save(row, state, row.status)
            return row

    async def begin(self, number: int, by: Seat, admin: bool) -> TournamentRecord:
        async with self.lock:
            row = await self.get(number)
            if row.created_by != by.account_id and not admin:
                raise GameError("Only whoever made a tournament (or an admin) starts it.")
            if row.status != "open":
                raise GameError(f"Tournament {number} has begun already.")
            if len(row.state["entrants"]) < 2:
                raise GameError("A tournament needs two entrants at least.")
            own = self.system_of(row.kind, row.system)
            if own is not None:
                await self._save(row, await own.begin(self, row), "running")
                return row
            await self._pair(row, "running")
            return row

    # -- rounds ------------------------------------------------------------------------
    @staticmethod
    def results(state: dict[str, Any]) -> list[Result]:
        return [Result(p["first"], p["second"], p["score"])
                for rnd in state["pairings"] for p in rnd if p["score"] is not None]

    def standings(self, row: TournamentRecord) -> list[tuple[dict, float, float, float]]:
        by_id = {e["id"]: e for e in row.state["entrants"]}
        table = swiss_standings(by_id, self.results(row.state))
        return [(by_id[i], pts, bh, sb) for i, pts, bh, sb in table]

    async def _pair(self, row: TournamentRecord, status: str) -> None:
        """Pair the next round, start its games; a no-show forfeits. Called under the
        lock. The round is saved before any game starts."""
        state = dict(row.state)
        points = {e["id"]: p for e, p, _, _ in self.standings(row)}
        seats: dict[int, list[int]] = {e["id"]: [] for e in state["entrants"]}
        opponents: dict[int, list[int | None]] = {e["id"]: [] for e in state["entrants"]}
        for rnd in state["pairings"]:
            for p in rnd:
                seats[p["first"]].append(0)
                opponents[p["first"]].append(p["second"])
                if p["second"] is not None:
                    seats[p["second"]].append(1)
                    opponents[p["second"]].append(p["first"])
        playing = [e for e in state["entrants"] if not e.get("withdrawn")]
        pairs, bye = swiss_pairings([
            Entrant(e["id"], points[e["id"]], e["rating"], tuple(seats[e["id"]]),
                    tuple(opponents[e["id"]])) for e in playing])
        names = {e["id"]: e["name"] for e in state["entrants"]}
        rnd = [{"first": a, "second": b, "game": None, "score": None} for a, b in pairs]
        if bye is not None:
            rnd.append({"first": bye, "second": None, "game": None, "score": 1.0})
        for p in rnd:
            if p["second"] is None:
                continue
            here = self.is_online(p["first"]), self.is_online(p["second"])
            if not all(here):  # a no-show forfeits
                p["score"] = 0.5 if not any(here) else (1.0 if here[0] else 0.0)
                p["forfeit"] = True
        state["pairings"] = [*state["pairings"], rnd]
        await self._save(row, state, status)
        kind = self.kinds[row.kind]
        number = len(state["pairings"])
        for p in rnd:
            if p["second"] is None:
                self.tell(p["first"], f"Tournament {row.id}, round {number}: you have a bye "
                                      "(a point).")
                continue
            if p["score"] is not None:
                continue
            try:
                game = await self.start(kind, (Seat(p["first"], names[p["first"]]),
                                               Seat(p["second"], names[p["second"]])),
                                        state["options"])
            except GameError as err:
                log.warning("tournament %d: a game could not start: %s", row.id, err)
                p["score"], p["forfeit"] = 0.5, True
                continue
            p["game"] = game.id
            self.by_game[game.id] = row.id
        await self._save(row, state, status)
        self._check_round(row)

    def _check_round(self, row: TournamentRecord) -> None:
        """Every result of the round is in: pair the next (or finish), in the background."""
        if row.state["pairings"] and all(p["score"] is not None
                                         for p in row.state["pairings"][-1]):
            self.spawn(self._next_round(row.id))

    async def _next_round(self, number: int) -> None:
        try:
            await self._next_round_now(number)
        except Exception:
            log.exception("tournament %d: the next round failed", number)

    async def _next_round_now(self, number: int) -> None:
        async with self.lock:
            row = await self.get(number)
            if row.status != "running" or any(p["score"] is None
                                              for p in row.state["pairings"][-1]):
                return
            if len(row.state["pairings"]) >= row.state["rounds"]:
                await self._save(row, row.state, "finished")
                winner = self.standings(row)[0][0]["name"]
                for e in row.state["entrants"]:
                    self.tell(e["id"], f"Tournament {row.id} ({row.title}) is over: "
                                       f"{winner} wins. (TOURNEY {row.id} shows the standings.)")
                return
            await self._pair(row, "running")

    def _game_changed(self, game: LiveGame, here: bool) -> None:
        if here or game.id not in self.by_game:
            return
        number = self.by_game.pop(game.id)
        outcome = game.outcome
        score = 0.5 if outcome is None or outcome.winner is None else (
            1.0 if outcome.winner == 0 else 0.0)
        self.spawn(self._result(number, game.id, score))

    async def _result(self, number: int, game_id: int, score: float) -> None:
        try:
            await self._result_now(number, game_id, score)
        except Exception:
            log.exception("tournament %d: game #%d's result failed", number, game_id)

    async def _result_now(self, number: int, game_id: int, score: float) -> None:
        async with self.lock:
            row = await self.get(number)
            state = dict(row.state)
            for p in state["pairings"][-1]:
                if p["game"] == game_id:
                    p["score"] = score
            await self._save(row, state, row.status)
        self._check_round(row)

    async def restore(self) -> None:
        """After a restart: the games of running tournaments, found again."""
        for row in await self.listing():
            own = self.system_of(row.kind, row.system)
            if own is not None:
                await own.restore(self, row)
                continue
            if row.status == "running" and row.state["pairings"]:
                for p in row.state["pairings"][-1]:
                    if p["game"] is not None and p["score"] is None:
                        self.by_game[p["game"]] = row.id
