"""Ratings and records per game: Glicko-2 for ranked games, win/loss/draw counts for all."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncSession

from server.db import Database
from server.glicko2 import Glicko, update
from server.models import Account, Rating


# A rating whose deviation is still this wide has not settled: it is marked provisional.
PROVISIONAL_RD = 110.0

# A ranked game that ends before this many moves were played (resigned, claimed or lost
# on time at once) is not rated, as on most servers: one accepted by mistake, or resigned
# at once to hand a rating over, changes nobody's. It still happened (what was staked on
# it changed hands), so it is counted in the records, with the unranked games.
RATED_MOVES = 2
TOO_SHORT = (f"Not rated: the game ended before move {RATED_MOVES} (it counts as an "
             "unranked game).")


# Correspondence games are rated in a pool of their own (a move a day is another game
# than a move a minute, as on Lichess): a game's pool is its kind's key, or this after it.
CORRESPONDENCE = ".corr"


def pool(kind_key: str, days: int | None = None) -> str:
    """The rating pool of a game of ``kind_key`` (``days``: played by correspondence)."""
    return kind_key + CORRESPONDENCE if days is not None else kind_key


def pool_title(titles: dict[str, str], key: str) -> str:
    """A pool in words: "Triad Dice", "Correspondence Triad Dice" (``titles``: each
    game's key to its title)."""
    if key.endswith(CORRESPONDENCE):
        base = key[:-len(CORRESPONDENCE)]
        return f"Correspondence {titles.get(base, base)}"
    return titles.get(key, key)


def rates(moves: int) -> bool:
    """Whether a ranked game that ended after ``moves`` moves is rated."""
    return moves >= RATED_MOVES


def rating_text(rating: float = 1500.0, rd: float = 350.0) -> str:
    """The one way a rating is shown: "1623 ±64", "1500 ±350 provisional"."""
    text = f"{rating:.0f} ±{rd:.0f}"
    return f"{text} provisional" if rd > PROVISIONAL_RD else text


async def _row(tx: AsyncSession, account_id: int, kind: str) -> Rating:
    row = await tx.get(Rating, (account_id, kind))
    if row is None:
        row = Rating(account_id=account_id, kind=kind, rating=1500.0, rd=350.0, volatility=0.06,
                     ranked_wins=0, ranked_losses=0, ranked_draws=0,
                     unranked_wins=0, unranked_losses=0, unranked_draws=0)
        tx.add(row)
    return row


async def record_result(tx: AsyncSession, kind: str, seats: list[int], winner: int | None,
                        ranked: bool, *, moves: int) -> dict[int, tuple[float, float]]:
    """Count a finished game for every seat (``winner`` a seat index, None for a draw) and,
    when ``ranked``, update Glicko-2 ratings of a two-seat game. ``moves`` is how many
    moves were played before the one that ended it: a ranked game shorter than
    :data:`RATED_MOVES` is counted as unranked and rates nobody. Runs inside the caller's
    transaction. Returns {account_id: (old rating, new rating)} for rated games."""
    ranked = ranked and rates(moves)
    rows = [await _row(tx, account_id, kind) for account_id in seats]
    prefix = "ranked" if ranked else "unranked"
    for seat, row in enumerate(rows):
        outcome = "draws" if winner is None else "wins" if seat == winner else "losses"
        field = f"{prefix}_{outcome}"
        setattr(row, field, (getattr(row, field) or 0) + 1)
    changes: dict[int, tuple[float, float]] = {}
    if ranked and len(rows) == 2:
        before = [Glicko(r.rating, r.rd, r.volatility) for r in rows]
        for seat, row in enumerate(rows):
            score = 0.5 if winner is None else 1.0 if seat == winner else 0.0
            after = update(before[seat], [(before[1 - seat], score)])
            changes[row.account_id] = (row.rating, after.rating)
            row.rating, row.rd, row.volatility = after.rating, after.rd, after.volatility
    return changes


class Ratings:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def for_account(self, account_id: int) -> list[Rating]:
        async with self.db.session() as tx:
            return list(await tx.scalars(
                sa.select(Rating).where(Rating.account_id == account_id).order_by(Rating.kind)))

    async def get(self, account_id: int, kind: str) -> Rating | None:
        async with self.db.session() as tx:
            return await tx.get(Rating, (account_id, kind))

    async def rankings(self, kind: str, limit: int = 20) -> list[tuple[str, Rating]]:
        """The best ranked players of a game, by rating (at least one ranked game)."""
        async with self.db.session() as tx:
            played = Rating.ranked_wins + Rating.ranked_losses + Rating.ranked_draws
            rows = await tx.execute(
                sa.select(Account.name, Rating)
                .join(Account, Account.id == Rating.account_id)
                .where(Rating.kind == kind, played > 0)
                .order_by(Rating.rating.desc(), Account.name)
                .limit(limit)
            )
            return [(name, rating) for name, rating in rows.all()]

    async def records(self, kind: str, limit: int = 50) -> list[tuple[str, Rating]]:
        """Everyone with a finished game of ``kind``, ranked or unranked (the records
        beside the rankings), most games first."""
        async with self.db.session() as tx:
            games = (Rating.ranked_wins + Rating.ranked_losses + Rating.ranked_draws
                     + Rating.unranked_wins + Rating.unranked_losses + Rating.unranked_draws)
            rows = await tx.execute(
                sa.select(Account.name, Rating)
                .join(Account, Account.id == Rating.account_id)
                .where(Rating.kind == kind, games > 0)
                .order_by(games.desc(), Account.name)
                .limit(limit)
            )
            return [(name, rating) for name, rating in rows.all()]
