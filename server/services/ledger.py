"""Cubits: every movement is a ledger row, written in the caller's transaction.

``accounts.cubits`` is a cached balance kept equal to the sum of the account's ledger
rows (``audit`` checks it). A debit is a single conditional UPDATE, so two sessions
spending the last cubits at once cannot both succeed.
"""

from __future__ import annotations

import time

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncSession

from server.models import Account, LedgerEntry


class InsufficientCubits(Exception):
    def __init__(self, needed: int, balance: int) -> None:
        super().__init__(f"You need {needed} cubits and have {balance}.")
        self.needed = needed
        self.balance = balance


async def move(tx: AsyncSession, account_id: int, delta: int, reason: str,
               ref: str | None = None) -> int:
    """Add ``delta`` (negative to debit) to an account inside ``tx``; return the new balance.

    :raises InsufficientCubits: a debit larger than the balance (nothing is written).
    """
    result = await tx.execute(
        sa.update(Account)
        .where(Account.id == account_id, Account.cubits + delta >= 0)
        .values(cubits=Account.cubits + delta)
        .returning(Account.cubits)
    )
    balance = result.scalar_one_or_none()
    if balance is None:
        current = await tx.scalar(sa.select(Account.cubits).where(Account.id == account_id))
        if current is None:
            raise LookupError(f"no account {account_id}")
        raise InsufficientCubits(-delta, current)
    tx.add(LedgerEntry(account_id=account_id, delta=delta, reason=reason, ref=ref,
                       created_at=time.time()))
    return balance


async def transfer(tx: AsyncSession, from_id: int, to_id: int, amount: int, reason: str,
                   ref: str | None = None) -> None:
    """Move ``amount`` cubits between two accounts: two ledger rows, one transaction."""
    if amount <= 0:
        raise ValueError("a transfer moves a positive amount")
    await move(tx, from_id, -amount, reason, ref)
    await move(tx, to_id, amount, reason, ref)


async def audit(tx: AsyncSession) -> list[tuple[str, int, int]]:
    """Accounts whose cached balance differs from their ledger sum: (name, cached, ledger)."""
    sums = (
        sa.select(LedgerEntry.account_id, sa.func.sum(LedgerEntry.delta).label("total"))
        .group_by(LedgerEntry.account_id)
        .subquery()
    )
    rows = await tx.execute(
        sa.select(Account.name, Account.cubits, sa.func.coalesce(sums.c.total, 0))
        .outerjoin(sums, sums.c.account_id == Account.id)
    )
    return [(n, c, int(t)) for n, c, t in rows if c != int(t)]
