"""Pyramid's tables: the TOP 10 and the tournaments put away with ``PYR SAVE``
(``server/services/pyramid.py`` keeps them).

Beside the game's service, not in ``server/models.py``: a game's tables are its own. Every
change here needs an alembic revision in ``migrations/versions``.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from server.models import Base


class PyramidTopScore(Base):
    """The server-wide TOP 10: a finished tournament's net Par score above zero."""

    __tablename__ = "pyramid_top10"

    id: Mapped[int] = mapped_column(primary_key=True)
    account_id: Mapped[int] = mapped_column(sa.ForeignKey("accounts.id"), index=True)
    name: Mapped[str] = mapped_column(sa.String(20))
    score: Mapped[int] = mapped_column(index=True)
    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id"))
    opponent: Mapped[str] = mapped_column(sa.String(40), default="")
    created_at: Mapped[float]


class PyramidSave(Base):
    """A tournament put away with ``PYR SAVE``, to be taken up again with ``PYR RESTORE``:
    its seats, options and state as the game it was saved from had them."""

    __tablename__ = "pyramid_saves"

    id: Mapped[int] = mapped_column(primary_key=True)
    account_id: Mapped[int] = mapped_column(sa.ForeignKey("accounts.id"), index=True)
    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id"))
    seats: Mapped[list[Any]] = mapped_column()
    options: Mapped[dict[str, Any]] = mapped_column()
    state: Mapped[dict[str, Any]] = mapped_column()
    summary: Mapped[str] = mapped_column(sa.String(120))
    created_at: Mapped[float]
