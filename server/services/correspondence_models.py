"""The table of correspondence play: challenges that wait for their player
(``server/services/correspondence.py``). Every change here needs an alembic revision in
``migrations/versions`` (0012 made it)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from server.models import Base


class LetterOffer(Base):
    """A correspondence challenge (``<GAME> CHALLENGE <person> DAYS <n>``): kept until
    its player accepts or declines it, or its challenger withdraws it, whoever is online
    meanwhile, on any node."""

    __tablename__ = "correspondence_offers"

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(sa.String(20))
    challenger_id: Mapped[int] = mapped_column(sa.ForeignKey("accounts.id"), index=True)
    challenger_name: Mapped[str] = mapped_column(sa.String(20))
    target_id: Mapped[int] = mapped_column(sa.ForeignKey("accounts.id"), index=True)
    target_name: Mapped[str] = mapped_column(sa.String(20))
    options: Mapped[dict[str, Any]] = mapped_column()  # the game's options, with "days"
    created_at: Mapped[float]
