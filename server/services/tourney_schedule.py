"""The tournaments the director opens by itself, from ``[[tournaments.schedule]]`` in
the configuration (``server/config.py``: ``ScheduledTournament``): each is opened for
entry ``[tournaments] open_minutes`` before its time, with ``starts_at`` set; the
director (``server/services/tournaments.py``) starts it at that time, or cancels it
with fewer than two entrants. Its system is passed to ``Tournaments.create`` as
written (a game's own, such as Pyramid's PAR or Triad's SITGO, as well); an entry the
director refuses is logged as not opened, once per time.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Protocol

import sqlalchemy as sa

from server.config import WEEKDAYS, ScheduledTournament, TournamentsSection
from server.db import Database
from server.hosting import GameKind, Seat
from server.services.live import GameError
from server.services.meeting_models import TournamentRecord

log = logging.getLogger(__name__)


class Director(Protocol):
    """The tournament director as the schedule reads it (``Tournaments`` in
    server/services/tournaments.py, which hands itself to :class:`Schedule`): the games
    hosted, its settings (``open_minutes``), the database, and a tournament opened."""

    kinds: dict[str, GameKind]
    settings: TournamentsSection
    db: Database

    async def create(self, kind_key: str, system: str, length: int, options: dict[str, Any],
                     by: Seat | None, admin: bool, starts_at: float | None = None
                     ) -> TournamentRecord: ...


def when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(at))


def next_start(entry: ScheduledTournament, now: float) -> float:
    """The next time (epoch seconds, at or after ``now``) ``entry`` is due."""
    day = int(now // 86400)
    for ahead in range(8):
        at = (day + ahead) * 86400 + entry.minute_of_day * 60
        weekday = (day + ahead + 3) % 7  # 1970-01-01 was a Thursday (3)
        if at >= now and (not entry.day or entry.day == WEEKDAYS[weekday]):
            return float(at)
    raise AssertionError("a weekday comes once a week")


class Schedule:
    def __init__(self, director: Director) -> None:
        self.director = director
        self.entries: tuple[ScheduledTournament, ...] = ()
        self._failed: set[tuple[int, float]] = set()  # (entry, time) that could not open

    def __getitem__(self, k: int) -> ScheduledTournament:
        return self.entries[k]

    def kind_named(self, name: str) -> GameKind | None:
        """The game ``name`` (its key, prefix or title, in lower case) names."""
        kinds = self.director.kinds
        return kinds.get(name) or next(
            (k for k in kinds.values() if name in (k.prefix.lower(), k.title.lower())), None)

    def check(self, entries: tuple[ScheduledTournament, ...]) -> None:
        """A one-line ValueError for an entry of a game not hosted here, or with options
        its game refuses."""
        for k, entry in enumerate(entries, 1):
            where = f"config: [[tournaments.schedule]] entry {k}"
            kind = self.kind_named(entry.game)
            if kind is None:
                raise ValueError(f"{where}: no game {entry.game!r} is hosted here")
            try:
                kind.spec.parse_options(list(entry.options))
            except Exception as err:  # the game's own one-line refusal
                raise ValueError(f"{where}: {err}") from None

    async def open_due(self, now: float) -> None:
        """Open each entry whose next time is at most ``open_minutes`` away (once)."""
        for k, entry in enumerate(self.entries):
            at = next_start(entry, now)
            if at - now > self.director.settings.open_minutes * 60 or (k, at) in self._failed:
                continue
            kind = self.kind_named(entry.game)
            async with self.director.db.session() as tx:
                found = await tx.scalar(sa.select(TournamentRecord.id).where(
                    TournamentRecord.kind == kind.key, TournamentRecord.system == entry.system,
                    TournamentRecord.starts_at == at))
            if found is not None:
                continue
            try:
                row = await self.director.create(kind.key, entry.system, entry.length,
                                          kind.spec.parse_options(list(entry.options)), None, True,
                                          starts_at=at)
            except GameError as err:
                self._failed.add((k, at))
                log.error("scheduled tournament %d (%s %s, %s) not opened: %s", k + 1,
                          entry.game, entry.system, entry.describe(), err)
                continue
            log.info("tournament %d opened for %s", row.id, when(at))
