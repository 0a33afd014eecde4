"""The tables of meeting and competing: notify lists, news kept for a player who was
away, and tournaments (``server/services/notify.py``, ``tournaments.py``). Every change
here needs an alembic revision in ``migrations/versions`` (0007 made these)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from server.models import Base


class NotifyEntry(Base):
    """``account_id`` is told when ``target_id`` logs on or off (+NOTIFY)."""

    __tablename__ = "notify_list"

    account_id: Mapped[int] = mapped_column(sa.ForeignKey("accounts.id"), primary_key=True)
    target_id: Mapped[int] = mapped_column(sa.ForeignKey("accounts.id"), primary_key=True,
                                           index=True)


class AwayNews(Base):
    """Something a player was told while away (a gift, a challenge, an invitation),
    kept until they next log in."""

    __tablename__ = "away_news"

    id: Mapped[int] = mapped_column(primary_key=True)
    account_id: Mapped[int] = mapped_column(sa.ForeignKey("accounts.id"), index=True)
    text: Mapped[str] = mapped_column(sa.String(500))
    created_at: Mapped[float]


class TournamentRecord(Base):
    """A tournament: what it is, and its whole state (entrants, rounds, pairings and
    their games) as JSON, rewritten with a bumped version at every change."""

    __tablename__ = "tournaments"

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(sa.String(20))        # the game's key
    system: Mapped[str] = mapped_column(sa.String(10))      # swiss | arena | par | sitgo
    title: Mapped[str] = mapped_column(sa.String(80))
    status: Mapped[str] = mapped_column(sa.String(10), index=True)  # open|running|finished
    created_by: Mapped[int | None] = mapped_column(sa.ForeignKey("accounts.id"), default=None)
    state: Mapped[dict[str, Any]] = mapped_column()
    version: Mapped[int] = mapped_column(default=0)
    starts_at: Mapped[float | None] = mapped_column(default=None)
    created_at: Mapped[float]
    updated_at: Mapped[float]


class TournamentBar(Base):
    """A player who did not come to a tournament game (a no-show) may enter no
    tournament until ``until`` (0009 made this table)."""

    __tablename__ = "tournament_bars"

    account_id: Mapped[int] = mapped_column(sa.ForeignKey("accounts.id"), primary_key=True)
    until: Mapped[float]
    reason: Mapped[str] = mapped_column(sa.String(200))
