"""Triad's table: the ledger of every cubit movement at a table
(``server/services/triad.py`` keeps it).

Beside the game's service, not in ``server/models.py``: a game's tables are its own. Every
change here needs an alembic revision in ``migrations/versions``.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from server.models import Base


class TableLedgerEntry(Base):
    """One cubit movement at a Triad table, written in the transaction of the action.

    Buy-ins (+) and cash-outs (-) move cubits between an account and a seat's stack;
    ``seat`` is the engine position (0-based). Antes, bets and pot payouts move cubits
    between a stack and the pot, as two rows that cancel out: the stack's (``seat``) and
    the pot's (``seat`` NULL), both naming the player's account. So a table's rows sum to
    its stacks plus pot, a position's rows to its stack, the pot rows to the pot.
    """

    __tablename__ = "table_ledger"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id"), index=True)
    seat: Mapped[int | None] = mapped_column(default=None)  # engine position; NULL: the pot
    account_id: Mapped[int] = mapped_column(sa.ForeignKey("accounts.id"))
    delta: Mapped[int] = mapped_column(sa.BigInteger)
    reason: Mapped[str] = mapped_column(sa.String(40))  # buy-in, cash-out, ante, bet, pot
    created_at: Mapped[float]
