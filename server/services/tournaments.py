"""The tournament director: tournaments of any game of two players, run by the parlor.

A tournament is one row (``tournaments``: what it is, its system, and its state as JSON:
entrants and the pairings made, each with its game and result), rewritten at every
change, so it survives a restart (``restore``). How it is paired and scored is its
system's, found by ``row.system`` in ``SYSTEMS``: ``tourney_swiss.Swiss`` (rounds) and
``tourney_arena.Arena`` (a set time); a system is a class with ``check``, ``title``,
``initial_state``, ``progress``, ``standings``, ``begin``, ``advance`` and
``start_failed`` (called under the director's lock), and ``late_entry``. Every system
keeps ``entrants`` and ``pairings`` (a list of waves of ``{first, second, game,
score}``), which this module runs: it starts the games (ordinary games, stored, told and
rated as any other), writes their results, and calls the system's ``advance`` after each.

A paired player who is not connected has ``[tournaments] no_show_seconds`` to come; then
they forfeit (a no-show) and may enter no tournament for ``no_show_bar_hours``. A player
who drops mid-game is handled as in any game (the opponent may CLAIM it after the grace).

The director looks at the clock every ``[tournaments] tick`` seconds: no-shows, an
arena's pairing and end, the ``[[tournaments.schedule]]`` (``tourney_schedule.py``:
opened ``open_minutes`` ahead, started at its time with two entrants at least, else
cancelled), and a player's tournament left open ``open_expire_minutes`` without being
begun (cancelled). Each look reads only the rows that have something due (every running
tournament of its own systems, and the open ones whose time has come), however many
there are and however old. Every change is published on the bus (topic
``tournaments``: ``tournament.changed`` with the number and status).

Whoever made a tournament, or an admin, may cancel it while it is open (``cancel``); an
admin may also cancel a running Swiss or arena, whose games in play are then played out
as ordinary games. A game's own system that has begun (a sit-and-go's tables, Par's
sealed deals) is not cancelled: it ends by itself. An open tournament holds no cubits (a
sit-and-go takes its stacks when it begins), so a cancellation moves none. A cancelled
tournament keeps its row, with status ``cancelled`` and why under ``cancelled`` in its
state.

A game may bring systems of its own (``GameKind.tournament_systems``: Pyramid's Par
tournament, ``server/services/pyramid_par.py``; Triad's sit-and-go,
``server/services/triad_sitgo.py``): the director keeps their rows, entrants, quota and
schedule, and hands them the start, their games and their standings (``system_of``).

In a cluster every node runs this clock, and ``lock`` is one lock for every node
(``server/cluster/lock.py``'s ``ClusterLock``): each change reads the row afresh under
it, so a round is paired once, whichever node sees its last result. A node paused past the
lock's time (SIGSTOP, a long stall) may wake in the middle of a change another node has
made since: the row's ``version`` is its fencing token. ``save`` writes only over the
version it read, and nothing is started, barred or saved once the lock is no longer
held (``TournamentMoved``), so the woken node's change is dropped whole, not half made.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Callable

import sqlalchemy as sa

from server.bus import Bus, Event
from server.config import TournamentsSection
from games.errors import RuleError
from server.db import Database, connection_lost
from server.hosting import GameKind, Seat
from server.services.live import GameError, LiveGame, LiveGames
from server.services.meeting_models import TournamentBar, TournamentRecord
from server.services.seeks import Formulas, Start
from server.services.tourney_arena import Arena
from server.services.tourney_schedule import Schedule, when
from server.services.tourney_swiss import Swiss

log = logging.getLogger(__name__)

TOPIC = "tournaments"
PLAYER_QUOTA = 1  # open or running tournaments a player (not an admin) may have made
SYSTEMS: dict[str, type] = {"swiss": Swiss, "arena": Arena}
LIVE = ("open", "running")
OVER = ("finished", "cancelled")
LATELY = 30  # finished or cancelled tournaments a list shows, newest first


class TournamentMoved(GameError):
    """A change of a tournament dropped because another node changed it meanwhile (this
    node's hold of the director's lock ran out, or its copy of the row is older than the
    store's). Nothing of the change was written; typed again, it is made afresh."""

    def __init__(self, number: int) -> None:
        super().__init__(f"Tournament {number} changed on another server just now; "
                         "type that again.")
        self.number = number


class DirectorLock(asyncio.Lock):
    """The director's lock on one node: held while it is held. In a cluster,
    ``server/cluster/lock.py``'s ``ClusterLock`` stands in for it, whose hold can run out."""

    def held(self) -> bool:
        return self.locked()


def cancelled_why(row: TournamentRecord) -> str:
    """Why ``row`` was cancelled, as a phrase ("Ann cancelled it"). Rows cancelled
    before the reason was kept could only be scheduled ones nobody entered."""
    return str(row.state.get("cancelled") or "fewer than two entered")


class Tournaments:
    def __init__(self, db: Database, bus: Bus, kinds: dict[str, GameKind], games: LiveGames,
                 formulas: Formulas, start: Start, is_online: Callable[[int], bool],
                 tell: Callable[..., None], tell_or_keep: Callable[..., None],
                 spawn: Callable[..., Any]) -> None:
        self.db = db
        self.bus = bus
        self.kinds = kinds
        self.games = games
        self.formulas = formulas
        self.start = start
        self.is_online = is_online
        self.tell = tell
        self.tell_or_keep = tell_or_keep  # now, or kept for their next login (Notify)
        self.spawn = spawn
        self.settings = TournamentsSection()
        self.schedule = Schedule(self)  # the [[tournaments.schedule]]
        self.systems = {name: cls(self) for name, cls in SYSTEMS.items()}
        self.lock: Any = DirectorLock()  # ``async with`` and ``held()``
        self.by_game: dict[int, int] = {}  # game in play -> its tournament
        games.listeners.append(self._game_changed)

    def configure(self, settings: TournamentsSection) -> None:
        """Take the ``[tournaments]`` settings; a scheduled tournament of a game not
        hosted here, or with options its game refuses, is a one-line ValueError."""
        self.schedule.check(settings.schedule)
        self.settings = settings
        self.schedule.entries = settings.schedule

    def system(self, row: TournamentRecord) -> Any:
        """The director's system of ``row`` (Swiss, arena); None for a game's own."""
        return self.systems.get(row.system)

    def system_of(self, kind_key: str, system: str) -> Any:
        """The game's own system called ``system`` (Par, sit-and-go), or None."""
        kind = self.kinds.get(kind_key)
        return None if kind is None else kind.tournament_systems().get(system)

    def _late(self, row: TournamentRecord) -> bool:
        """Whether ``row``'s system takes entrants while it runs (an arena)."""
        return bool(getattr(self.system(row), "late_entry", False))

    # -- the rows ----------------------------------------------------------------------
    async def get(self, number: int) -> TournamentRecord:
        async with self.db.session() as tx:
            row = await tx.get(TournamentRecord, number)
        if row is None:
            raise GameError(f"There is no tournament {number}.")
        return row

    async def listing(self) -> list[TournamentRecord]:
        """Every live (open or running) tournament, newest first: however many there are,
        since the lists, the quota and a restart must see the oldest too."""
        async with self.db.session() as tx:
            return list(await tx.scalars(
                sa.select(TournamentRecord).where(TournamentRecord.status.in_(LIVE))
                .order_by(TournamentRecord.id.desc())))

    async def over(self, limit: int = LATELY) -> list[TournamentRecord]:
        """The ``limit`` newest finished or cancelled tournaments, newest first."""
        async with self.db.session() as tx:
            return list(await tx.scalars(
                sa.select(TournamentRecord).where(TournamentRecord.status.in_(OVER))
                .order_by(TournamentRecord.id.desc()).limit(limit)))

    async def _due_rows(self, now: float) -> list[TournamentRecord]:
        """The rows the clock acts on at ``now``, oldest first: every running tournament
        of the director's own systems, the scheduled ones whose time has come, and the
        open ones past ``open_expire_minutes``. Open ones not yet due are not read."""
        t = TournamentRecord
        due = [sa.and_(t.status == "running", t.system.in_(list(self.systems))),
               sa.and_(t.status == "open", t.starts_at.is_not(None), t.starts_at <= now)]
        expire = self.settings.open_expire_minutes * 60
        if expire > 0:
            due.append(sa.and_(t.status == "open", t.starts_at.is_(None),
                               t.created_at <= now - expire))
        async with self.db.session() as tx:
            return list(await tx.scalars(sa.select(t).where(sa.or_(*due)).order_by(t.id)))

    def fence(self, row: TournamentRecord) -> None:
        """Go on with a change of ``row`` only while this node holds the lock: called
        before anything the change does outside the row (a game started, a bar)."""
        if not self.lock.held():
            log.warning("tournament %d: the director's lock ran out mid-change; the "
                        "change is dropped", row.id)
            raise TournamentMoved(row.id)

    async def save(self, row: TournamentRecord, state: dict[str, Any], status: str) -> None:
        """Write ``row``'s new state over the version read (called under the lock). A
        row changed since, or a lock that ran out, is ``TournamentMoved``: nothing is
        written."""
        self.fence(row)
        async with self.db.session() as tx:
            written = await tx.execute(
                sa.update(TournamentRecord)
                .where(TournamentRecord.id == row.id, TournamentRecord.version == row.version)
                .values(state=state, status=status, version=row.version + 1,
                        updated_at=time.time()))
            if written.rowcount != 1:
                await tx.rollback()
                log.warning("tournament %d: changed elsewhere since version %d was read; "
                            "this change is dropped", row.id, row.version)
                raise TournamentMoved(row.id)
            await tx.commit()
        row.state, row.status, row.version = state, status, row.version + 1
        self.bus.publish(TOPIC, Event("tournament.changed", {"id": row.id, "status": status}))

    def standings(self, row: TournamentRecord) -> list[Any]:
        """The system's standings, best first (Swiss: tuples (entrant, points, Buchholz,
        Sonneborn–Berger); arena, Par, sit-and-go: dicts)."""
        own = self.system_of(row.kind, row.system)
        return (own or self.system(row)).standings(row)

    def progress(self, row: TournamentRecord) -> str:
        if row.status == "cancelled":
            return cancelled_why(row)
        own = self.system_of(row.kind, row.system)
        if own is not None:
            return " ".join(own.summary_lines(row))
        return self.system(row).progress(row)

    # -- what players do ---------------------------------------------------------------
    async def create(self, kind_key: str, system: str, length: int, options: dict[str, Any],
                     by: Seat | None, admin: bool, starts_at: float | None = None
                     ) -> TournamentRecord:
        """Open a tournament of ``system`` (``length``: its rounds or minutes, as the
        system reads it). ``by`` None: the parlor's own (scheduled, ``starts_at``)."""
        kind = self.kinds[kind_key]
        own = self.system_of(kind_key, system)
        if own is not None:  # ``length``: the system's own number (deals, a stack)
            title, state = own.new(length, options)  # its own one-line refusals
            system = own.name
        else:
            if system not in self.systems:
                names = [*self.systems, *kind.tournament_systems()]
                raise GameError(f"There is no {system.upper()} tournament of {kind.title}; "
                                f"there are {', '.join(s.upper() for s in names)}.")
            if kind.seats != 2 or kind.min_seats != 2 or kind.open_table:
                raise GameError(f"A {system.capitalize()} tournament is for games of two; "
                                f"{kind.title} is not one.")
            runner = self.systems[system]
            runner.check(kind, length)
            title = runner.title(kind, length, kind.spec.describe_options(options))[:80]
            state = runner.initial_state(length, options)
        now = time.time()
        row = TournamentRecord(
            kind=kind_key, system=system, status="open",
            created_by=by.account_id if by else None, title=title, state=state, version=0,
            starts_at=starts_at, created_at=now, updated_at=now)
        if not admin and by is not None:
            async with self.lock:  # counted and added as one: two at once make one
                async with self.db.session() as tx:
                    mine = await tx.scalar(sa.select(sa.func.count()).where(
                        TournamentRecord.created_by == by.account_id,
                        TournamentRecord.status.in_(LIVE)))
                    if mine >= PLAYER_QUOTA:
                        raise GameError(f"You may run {PLAYER_QUOTA} tournament at a time.")
                    tx.add(row)
                    await tx.commit()
        else:  # an admin's, or the schedule's (called from the clock, under the lock)
            async with self.db.session() as tx:
                tx.add(row)
                await tx.commit()
        self.bus.publish(TOPIC, Event("tournament.changed", {"id": row.id, "status": "open"}))
        return row

    async def barred(self, account_id: int) -> TournamentBar | None:
        async with self.db.session() as tx:
            bar = await tx.get(TournamentBar, account_id)
        return bar if bar is not None and bar.until > time.time() else None

    async def join(self, number: int, me: Seat) -> TournamentRecord:
        bar = await self.barred(me.account_id)
        if bar is not None:
            raise GameError(f"{bar.reason}; you may enter tournaments again at "
                            f"{when(bar.until)}.")
        async with self.lock:
            row = await self.get(number)
            entrants = row.state["entrants"]
            mine = next((e for e in entrants if e["id"] == me.account_id), None)
            late = row.status == "running" and self._late(row)
            self._not_over(row)
            if mine is not None and not (late and mine.get("paused")):
                raise GameError(f"You have entered tournament {number} already.")
            if row.status != "open" and not late:
                raise GameError(f"Tournament {number} has begun; it takes no entrants now.")
            if len(entrants) >= row.state.get("max", len(entrants) + 1):  # a system's cap
                raise GameError(f"Tournament {number} is full ({len(entrants)} entrants).")
            if "options" in row.state:  # a game of two (a game's own system checks its own)
                problem = await self.kinds[row.kind].check_offer(me, me,  # a copy: it may
                                                                 dict(row.state["options"]))
                if problem:  # e.g. a Triptycha deck too small for either seat
                    raise GameError(problem)
            if mine is not None:  # back from a pause
                state = {**row.state, "entrants": [
                    {k: v for k, v in e.items() if k != "paused"} if e is mine else e
                    for e in entrants]}
            else:
                rating, _ = await self.formulas.rating(me.account_id, row.kind)
                state = {**row.state, "entrants": [
                    *entrants, {"id": me.account_id, "name": me.name, "rating": round(rating)}]}
            await self.save(row, state, row.status)
            return row

    async def withdraw(self, number: int, me: Seat) -> TournamentRecord:
        async with self.lock:
            row = await self.get(number)
            entrants = row.state["entrants"]
            if not any(e["id"] == me.account_id for e in entrants):
                raise GameError(f"You are not in tournament {number}.")
            self._not_over(row)
            mark = "paused" if self._late(row) else "withdrawn"
            if row.status == "open":
                state = {**row.state, "entrants": [e for e in entrants
                                                   if e["id"] != me.account_id]}
            else:  # paired no more (an arena's: until they JOIN again); a game is played out
                state = {**row.state, "entrants": [
                    {**e, mark: True} if e["id"] == me.account_id else e for e in entrants]}
            await self.save(row, state, row.status)
            return row

    async def begin(self, number: int, by: Seat, admin: bool) -> TournamentRecord:
        async with self.lock:
            row = await self.get(number)
            if row.created_by != by.account_id and not admin:
                raise GameError("Only whoever made a tournament (or an admin) starts it.")
            self._not_over(row)
            if row.status != "open":
                raise GameError(f"Tournament {number} has begun already.")
            if len(row.state["entrants"]) < 2:
                raise GameError("A tournament needs two entrants at least.")
            await self._begin(row)
            return row

    async def cancel(self, number: int, by: Seat, admin: bool) -> TournamentRecord:
        """Cancel tournament ``number``: its maker or an admin while it is open; an admin
        also while a Swiss or arena runs (its games in play are played out as ordinary
        games; their results count for nothing more). Its entrants (and its maker) are told in one line, now or at their next
        login; ``by`` is answered by the command instead."""
        async with self.lock:
            row = await self.get(number)
            if row.created_by != by.account_id and not admin:
                raise GameError("Only whoever made a tournament (or an admin) cancels it.")
            self._not_over(row)
            if row.status == "running":
                if not admin:
                    raise GameError(f"Tournament {number} has begun; only an admin may "
                                    "cancel it now.")
                if self.system(row) is None:
                    raise GameError(f"Tournament {number} has begun, and a "
                                    f"{row.system.upper()} tournament runs to its end once "
                                    "begun (its games hold its entrants' play).")
            why = f"{by.name} cancelled it"
            if row.status == "running":
                why += "; games in play are played out"
            await self._cancel(row, why, but=by.account_id)
            return row

    @staticmethod
    def _not_over(row: TournamentRecord) -> None:
        if row.status == "cancelled":
            raise GameError(f"Tournament {row.id} is cancelled ({cancelled_why(row)}).")
        if row.status not in LIVE:
            raise GameError(f"Tournament {row.id} is over.")

    async def _cancel(self, row: TournamentRecord, why: str, but: int | None = None) -> None:
        """Mark ``row`` cancelled (``why``: a phrase, kept in its state) and tell its
        entrants and its maker, all but ``but``. Called under the lock. An open
        tournament holds no cubits and a running one's games are ordinary games, so
        nothing else is undone; its pairings waiting for a no-show are forgotten."""
        await self.save(row, {**row.state, "cancelled": why}, "cancelled")
        for game_id in [g for g, n in self.by_game.items() if n == row.id]:
            del self.by_game[game_id]
        told = [e["id"] for e in row.state["entrants"]]
        if row.created_by is not None and row.created_by not in told:
            told.append(row.created_by)
        for who in told:
            if who != but:
                self.tell_or_keep(who, f"Tournament {row.id} ({row.title}) is cancelled: "
                                       f"{why}.")

    async def _begin(self, row: TournamentRecord) -> None:
        own = self.system_of(row.kind, row.system)
        if own is not None:
            await self.save(row, await own.begin(self, row), "running")
            return
        state = dict(row.state)
        row.status = "running"
        await self.system(row).begin(row, state)

    async def invite(self, number: int, by: Seat, target: Seat) -> TournamentRecord:
        """Tell ``target`` of the tournament (now, or at their next login)."""
        async with self.lock:
            row = await self.get(number)
            self._not_over(row)
            if not (row.status == "open" or row.status == "running" and self._late(row)):
                raise GameError(f"Tournament {number} takes no entrants now.")
            if target.account_id == by.account_id:
                raise GameError("You need no invitation.")
            if any(e["id"] == target.account_id for e in row.state["entrants"]):
                raise GameError(f"{target.name} has entered tournament {number} already.")
            invited = row.state.get("invited", [])
            if target.account_id in invited:
                raise GameError(f"{target.name} has been invited to tournament {number} "
                                "already.")
            await self.save(row, {**row.state, "invited": [*invited, target.account_id]},
                            row.status)
        self.tell_or_keep(target.account_id, f"{by.name} invites you to tournament {row.id}: "
                          f"{row.title}. (TOURNEY JOIN {row.id} enters it.)")
        return row

    # -- pairings and their games (called by the systems, under the lock) -------------
    async def open_round(self, row: TournamentRecord, state: dict[str, Any],
                         pairs: list[tuple[int, int]], bye: int | None) -> None:
        """Add a wave of pairings; start the games of those here, give the others
        ``no_show_seconds`` to come. Saved before any game starts."""
        wave: list[dict[str, Any]] = [{"first": a, "second": b, "game": None, "score": None}
                                      for a, b in pairs]
        if bye is not None:
            wave.append({"first": bye, "second": None, "game": None, "score": 1.0})
        absent = [p for p in wave if p["second"] is not None
                  and not (self.is_online(p["first"]) and self.is_online(p["second"]))]
        for p in absent:
            p["due"] = time.time() + self.settings.no_show_seconds
        state["pairings"] = [*state["pairings"], wave]
        await self.save(row, state, "running")
        number = len(state["pairings"])
        names = {e["id"]: e["name"] for e in state["entrants"]}
        what = f"round {number}" if row.system == "swiss" else "your next game"
        for p in wave:
            if p["second"] is None:
                self.tell(p["first"], f"Tournament {row.id}, round {number}: you have a bye "
                                      "(a point).")
            elif p in absent:
                for me, other in ((p["first"], p["second"]), (p["second"], p["first"])):
                    if self.is_online(me):
                        wait = self.settings.no_show_seconds
                        self.tell(me, f"Tournament {row.id}, {what}: you play {names[other]}, "
                                      f"who is not connected; they have {wait:g} "
                                      f"second{'' if wait == 1 else 's'} to come, or they "
                                      "forfeit.")
        for p in list(wave):  # a system may drop a pairing whose game cannot start
            if p["second"] is not None and "due" not in p:
                await self._start_game(row, state, p)
        await self.save(row, state, "running")

    async def _start_game(self, row: TournamentRecord, state: dict[str, Any],
                          p: dict[str, Any]) -> None:
        names = {e["id"]: e["name"] for e in state["entrants"]}
        self.fence(row)
        p.pop("due", None)
        try:
            game = await self.start(self.kinds[row.kind],
                                    (Seat(p["first"], names[p["first"]]),
                                     Seat(p["second"], names[p["second"]])), state["options"])
        except (GameError, RuleError) as err:  # e.g. a deck sold since the JOIN
            log.warning("tournament %d: a game could not start: %s", row.id, err)
            for who in (p["first"], p["second"]):
                self.tell(who, f"Tournament {row.id}: your game with {names[p['first']]} "
                               f"and {names[p['second']]} could not start: {err}")
            self.system(row).start_failed(state, p)
            return
        p["game"] = game.id
        if game.id in self.games.live:
            self.by_game[game.id] = row.id
        else:  # over already (a resign typed before it began, played as it began)
            p["score"] = self._score(game)

    @staticmethod
    def _score(game: LiveGame) -> float:
        """The first player's score in a finished game."""
        outcome = game.outcome
        return 0.5 if outcome is None or outcome.winner is None else (
            1.0 if outcome.winner == 0 else 0.0)

    async def _no_shows(self, row: TournamentRecord) -> None:
        """Start the games of paired players who have come; forfeit those past due."""
        state = dict(row.state)
        changed = False
        for wave in state["pairings"]:
            for p in list(wave):
                if p["second"] is None or p["game"] is not None or p["score"] is not None:
                    continue
                if "due" not in p:  # paired, then a restart before its game started
                    p["due"] = time.time() + self.settings.no_show_seconds
                    changed = True
                here = self.is_online(p["first"]), self.is_online(p["second"])
                if all(here):
                    await self._start_game(row, state, p)
                    changed = True
                elif time.time() >= p["due"]:
                    del p["due"]
                    p["score"] = 0.5 if not any(here) else (1.0 if here[0] else 0.0)
                    p["forfeit"] = True
                    changed = True
                    for who, came in zip((p["first"], p["second"]), here):
                        if not came:
                            await self._bar(who, row)
        if changed:
            await self.save(row, state, row.status)
            await self.system(row).advance(row, state)

    async def _bar(self, account_id: int, row: TournamentRecord) -> None:
        self.fence(row)
        until = time.time() + self.settings.no_show_bar_hours * 3600
        reason = f"You did not come to your game in tournament {row.id}"
        async with self.db.session() as tx:
            bar = await tx.get(TournamentBar, account_id)
            if bar is None:
                tx.add(TournamentBar(account_id=account_id, until=until, reason=reason))
            else:
                bar.until, bar.reason = until, reason
            await tx.commit()
        self.tell_or_keep(account_id, f"{reason} ({row.title}): you forfeit it, and may "
                          f"enter tournaments again at {when(until)}.")

    async def finish(self, row: TournamentRecord, state: dict[str, Any], winner: str) -> None:
        await self.save(row, state, "finished")
        for e in state["entrants"]:
            self.tell(e["id"], f"Tournament {row.id} ({row.title}) is over: {winner} wins. "
                               f"(TOURNEY {row.id} shows the standings.)")

    def _game_changed(self, game: LiveGame, here: bool) -> None:
        if here or game.id not in self.by_game:
            return
        number = self.by_game.pop(game.id)
        if game.outcome is None:
            return  # let go, not finished: the node that drives it now writes its result
        score = self._score(game)
        self.spawn(self._guarded(self._result(number, game.id, score),
                                 f"tournament {number}: game #{game.id}'s result"))

    async def _result(self, number: int, game_id: int, score: float) -> None:
        await self.until_written(lambda: self._result_now(number, game_id, score))

    async def until_written(self, change: Callable[[], Any], tries: int = 3) -> None:
        """Make ``change`` (a coroutine function that reads its row afresh under the lock)
        again if another node's change got in first: a game's result must be written
        whoever else wrote meanwhile."""
        for left in range(tries - 1, -1, -1):
            try:
                return await change()
            except TournamentMoved:
                if not left:
                    raise

    async def _result_now(self, number: int, game_id: int, score: float) -> None:
        async with self.lock:
            row = await self.get(number)
            state = dict(row.state)
            for wave in state["pairings"]:
                for p in wave:
                    if p["game"] == game_id:
                        p["score"] = score
            await self.save(row, state, row.status)
            if row.status == "running":
                await self.system(row).advance(row, state)

    @staticmethod
    async def _guarded(coro: Any, what: str) -> None:
        try:
            await coro
        except TournamentMoved:  # logged where found; the next look makes it afresh
            pass
        except Exception as err:
            if connection_lost(err):  # the store restarting: the next look retries
                log.warning("%s: the database is away (%s)", what, type(err).__name__)
            else:
                log.exception("%s failed", what)

    # -- the clock ---------------------------------------------------------------------
    async def restore(self, only: int | None = None) -> None:
        """After a restart: the games of running tournaments, found again in their rows;
        the clock. ``only``: a game this node has just taken over from another (killed,
        or stopping), whose result is now this node's to write; the clock runs already."""
        for row in await self.listing():
            own = self.system_of(row.kind, row.system)
            if own is not None:
                await own.restore(self, row)
                continue
            for wave in row.state["pairings"] if row.status == "running" else ():
                for p in wave:
                    if p["game"] is not None and p["score"] is None \
                            and only in (None, p["game"]):
                        self.by_game[p["game"]] = row.id
        if only is None:
            self.spawn(self._clock())

    async def _clock(self) -> None:
        while True:
            await asyncio.sleep(self.settings.tick)
            await self._guarded(self.tick(), "the tournament clock")

    async def tick(self, now: float | None = None) -> None:
        """One look at the clock: open and start scheduled tournaments, cancel open ones
        past ``open_expire_minutes``, and let every running one go on (no-shows; an
        arena's pairing and end)."""
        now = time.time() if now is None else now
        async with self.lock:  # one node at a time (server/cluster/lock.py: a lock in Redis)
            await self.schedule.open_due(now)
            for row in await self._due_rows(now):
                if row.status == "open" and row.starts_at is not None:
                    await self._due(row)
                elif row.status == "open":
                    minutes = self.settings.open_expire_minutes
                    await self._cancel(row, f"not begun within {minutes:g} minute"
                                            f"{'' if minutes == 1 else 's'} of opening")
                elif row.status == "running" and self.system(row) is not None:
                    await self._no_shows(row)
                    if row.status == "running":
                        await self.system(row).advance(row, dict(row.state))

    async def _due(self, row: TournamentRecord) -> None:
        """A scheduled tournament's time has come: begin it, or cancel it."""
        if len(row.state["entrants"]) >= 2:
            await self._begin(row)
            for e in row.state["entrants"]:
                self.tell(e["id"], f"Tournament {row.id} ({row.title}) begins.")
            return
        await self._cancel(row, "fewer than two entered")
