"""People: notify lists (+NOTIFY, -NOTIFY, NOTIFY) and news kept while a player is away.

A player on someone's notify list is announced to them when they log on or off, with
whether they are free to play. What a player is told while logged out (a gift, a
challenge they missed, a tournament's invitation) is kept (``away_news``) and told at
their next login. Both lists live in the database, so any node reads the same.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Callable, Coroutine

import sqlalchemy as sa

from server.db import Database
from server.services.live import LiveGames
from server.services.meeting_models import AwayNews, NotifyEntry
from server.models import Account, GameRecord
from server.services.records import played_by

log = logging.getLogger(__name__)

MAX_LIST = 50      # names on one notify list
MAX_NEWS = 30      # news kept for one player (the oldest go first)


class Notify:
    def __init__(self, db: Database, games: LiveGames, is_online: Callable[[int], bool],
                 tell: Callable[..., None],
                 spawn: Callable[[Coroutine[Any, Any, Any]], Any]) -> None:
        self.db = db
        self.games = games
        self.is_online = is_online
        self.tell = tell
        self.spawn = spawn

    # -- the list ----------------------------------------------------------------------
    async def add(self, account_id: int, target_id: int) -> bool:
        """Put ``target_id`` on the list; False if it was there already."""
        async with self.db.session() as tx:
            if await tx.get(NotifyEntry, (account_id, target_id)) is not None:
                return False
            count = await tx.scalar(sa.select(sa.func.count()).select_from(NotifyEntry)
                                    .where(NotifyEntry.account_id == account_id))
            if count >= MAX_LIST:
                raise ValueError(f"A notify list holds at most {MAX_LIST} names.")
            tx.add(NotifyEntry(account_id=account_id, target_id=target_id))
            await tx.commit()
            return True

    async def remove(self, account_id: int, target_id: int) -> bool:
        async with self.db.session() as tx:
            result = await tx.execute(sa.delete(NotifyEntry).where(
                NotifyEntry.account_id == account_id, NotifyEntry.target_id == target_id))
            await tx.commit()
            return result.rowcount > 0

    async def listed(self, account_id: int) -> list[tuple[int, str]]:
        """(id, name) of everyone on ``account_id``'s list, by name."""
        async with self.db.session() as tx:
            rows = await tx.execute(
                sa.select(Account.id, Account.name)
                .join(NotifyEntry, NotifyEntry.target_id == Account.id)
                .where(NotifyEntry.account_id == account_id).order_by(Account.name_key))
            return [(i, n) for i, n in rows.all()]

    async def listening(self, target_id: int) -> list[int]:
        """Who has ``target_id`` on their list."""
        async with self.db.session() as tx:
            return list(await tx.scalars(sa.select(NotifyEntry.account_id)
                                         .where(NotifyEntry.target_id == target_id)))

    def status(self, account_id: int) -> str:
        """"free to play", or what they play."""
        playing = self.games.games_of(account_id)
        if not playing:
            return "free to play"
        return "playing " + ", ".join(f"{g.kind.title} (#{g.id})" for g in playing)

    # -- logging on and off ------------------------------------------------------------
    def arrived(self, account_id: int, name: str) -> None:
        """``name`` logged in (on this node): tell their listeners, and tell them the
        news kept while they were away."""
        self.spawn(self._arrived(account_id, name))

    def departed(self, account_id: int, name: str) -> None:
        self.spawn(self._announce(account_id, f"Notify: {name} has logged off."))

    async def _arrived(self, account_id: int, name: str) -> None:
        try:
            await self._announce(account_id, f"Notify: {name} has logged on; "
                                             f"{self.status(account_id)}.")
            news = await self.take_news(account_id)
            if news:
                lines = [f"While you were away ({len(news)}):"]
                lines += [f"  {time.strftime('%Y-%m-%d %H:%M', time.gmtime(at))} {text}"
                          for at, text in news]
                self.tell(account_id, "\n".join(lines))
        except Exception:
            log.exception("telling of %s's arrival failed", name)

    async def _announce(self, account_id: int, text: str) -> None:
        for listener in await self.listening(account_id):
            if self.is_online(listener):
                self.tell(listener, text)

    # -- news kept while away ----------------------------------------------------------
    def keep(self, account_id: int, text: str) -> None:
        """Keep ``text`` for ``account_id``'s next login (they are away now)."""
        self.spawn(self._keep(account_id, text))

    async def _keep(self, account_id: int, text: str) -> None:
        async with self.db.session() as tx:
            tx.add(AwayNews(account_id=account_id, text=text[:500],
                            created_at=time.time()))
            await tx.flush()
            old = list(await tx.scalars(
                sa.select(AwayNews.id).where(AwayNews.account_id == account_id)
                .order_by(AwayNews.id.desc()).offset(MAX_NEWS)))
            if old:
                await tx.execute(sa.delete(AwayNews).where(AwayNews.id.in_(old)))
            await tx.commit()

    def tell_or_keep(self, account_id: int, text: str) -> None:
        """Tell ``account_id`` now if they are logged in, else at their next login."""
        if self.is_online(account_id):
            self.tell(account_id, text)
        else:
            self.keep(account_id, text)

    async def take_news(self, account_id: int) -> list[tuple[float, str]]:
        """The news kept for ``account_id``, oldest first, and forget it."""
        async with self.db.session() as tx:
            rows = list(await tx.execute(
                sa.select(AwayNews.id, AwayNews.created_at, AwayNews.text)
                .where(AwayNews.account_id == account_id).order_by(AwayNews.id)))
            if rows:
                await tx.execute(sa.delete(AwayNews).where(
                    AwayNews.id.in_([r[0] for r in rows])))
                await tx.commit()
            return [(at, text) for _, at, text in rows]


async def last_games(db: Database, account_id: int, per_kind: int = 10,
                     scan: int = 2000, level: str | None = None) -> dict[str, list[GameRecord]]:
    """``account_id``'s last ``per_kind`` finished games of each game, newest first
    (found among its ``scan`` newest finished games). With ``level``, the computer's
    account's games at that level (its seats say the level). The games are chosen by
    their seats alone; only those chosen are read whole (a game's state may be large)."""
    chosen: dict[str, list[int]] = {}
    async with db.session() as tx:
        rows = await tx.execute(
            played_by(account_id, GameRecord.id, GameRecord.kind, GameRecord.seats)
            .where(GameRecord.status == "finished").limit(scan))
        for number, kind, seats in rows:
            mine = chosen.setdefault(kind, [])
            if len(mine) < per_kind and seat_of(seats, account_id, level) is not None:
                mine.append(number)
        wanted = [number for numbers in chosen.values() for number in numbers]
        read = {r.id: r for r in await tx.scalars(
            sa.select(GameRecord).where(GameRecord.id.in_(wanted)))} if wanted else {}
    return {kind: [read[n] for n in numbers] for kind, numbers in chosen.items() if numbers}


def seat_of(seats: list[dict] | None, account_id: int, level: str | None = None) -> int | None:
    """The seat ``account_id`` played in a stored game (the computer's: at ``level``;
    a person's: not as a computer), or None."""
    for i, s in enumerate(seats or ()):
        if s.get("id") == account_id and (s.get("computer") or None) == level:
            return i
    return None


def result_for(kind: Any, record: GameRecord, seat: int | None) -> str:
    """A stored game's result for ``seat`` as FINGER and a player's page show it: "played
    (sealed)" while its kind withholds it (a Par tournament's deals: not even how it went);
    ``kind`` None: a game no longer hosted. A table players come and go at (Triad) was
    "played" there unless one of them was left alone at it and won. A game of one (a solitaire: nobody to draw
    with) says how it went: "played (no move left, Par score -12)"."""
    if kind is not None and kind.spec.withheld(kind.spec.state_from_json(record.state)):
        return "played (sealed)"
    said = outcome_for(record.result, seat)
    if said == "drew" and kind is not None and kind.open_table:
        return "played"  # a table closes; nobody draws at it (a winner is one left alone)
    if len(record.seats or ()) == 1 and record.result:
        word = "won" if said == "won" else "played"
        reason = record.result.get("reason")
        return f"{word} ({reason})" if reason else word
    return said


def outcome_for(result: dict | None, seat: int | None) -> str:
    """"won", "lost", "drew" or "played": a stored game's result for the seat ``seat``."""
    if not result or seat is None:
        return "played"
    winner = result.get("winner")
    if winner is None:
        return "drew"
    return "won" if winner == seat else "lost"
