"""The database tables every game shares, as SQLAlchemy 2 declarative models: accounts,
the cubit ledger, login trust, ignores, hosted games with their moves and players,
ratings. A game's own tables are beside its service
(``server/services/<game>_models.py``), on the same ``Base``.

Times are UNIX seconds (floats) so SQLite and PostgreSQL store them alike. Every change
to this file needs an alembic revision in ``migrations/versions``.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: sa.JSON, list[Any]: sa.JSON}


class Account(Base):
    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(20))
    name_key: Mapped[str] = mapped_column(sa.String(20), unique=True)  # lower-cased name
    skeleton: Mapped[str] = mapped_column(sa.String(20), index=True, default="")  # look-alikes
    password_hash: Mapped[str] = mapped_column(sa.String(200))
    is_admin: Mapped[bool] = mapped_column(default=False)
    is_computer: Mapped[bool] = mapped_column(default=False)
    banned: Mapped[bool] = mapped_column(default=False)
    cubits: Mapped[int] = mapped_column(sa.BigInteger, default=0)  # kept equal to the ledger sum
    settings: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[float]
    last_seen_at: Mapped[float | None] = mapped_column(default=None)


class ResumeToken(Base):
    """A browser client's way back in after a drop (``server/services/resume.py``): the
    SHA-256 of the token, never the token; whose it is; until when it is good."""

    __tablename__ = "resume_tokens"

    digest: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(sa.ForeignKey("accounts.id"), index=True)
    expires_at: Mapped[float] = mapped_column()


class LedgerEntry(Base):
    """One cubit movement. An account's balance is the sum of its entries."""

    __tablename__ = "ledger"

    id: Mapped[int] = mapped_column(primary_key=True)
    account_id: Mapped[int] = mapped_column(sa.ForeignKey("accounts.id"), index=True)
    delta: Mapped[int] = mapped_column(sa.BigInteger)
    reason: Mapped[str] = mapped_column(sa.String(40))
    ref: Mapped[str | None] = mapped_column(sa.String(80), default=None)
    created_at: Mapped[float]


class LoginTrust(Base):
    """An address an account logged in from with its password (``server/login.py``):
    until ``until``, logins by that name from there count only against that pair, so
    a guesser elsewhere cannot lock its owner out by name. Kept here, not in a node's
    memory: every node sees it, a restart keeps it, and an idle node holds none."""

    __tablename__ = "login_trust"

    account_id: Mapped[int] = mapped_column(sa.ForeignKey("accounts.id"), primary_key=True)
    address: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    until: Mapped[float] = mapped_column()


class Ignore(Base):
    __tablename__ = "ignores"

    account_id: Mapped[int] = mapped_column(sa.ForeignKey("accounts.id"), primary_key=True)
    ignored_id: Mapped[int] = mapped_column(sa.ForeignKey("accounts.id"), primary_key=True)


class GameRecord(Base):
    """A hosted game: engine state as JSON plus a version bumped by every action."""

    __tablename__ = "games"

    id: Mapped[int] = mapped_column(primary_key=True)  # the server-wide game number
    kind: Mapped[str] = mapped_column(sa.String(20), index=True)
    status: Mapped[str] = mapped_column(sa.String(10), index=True)  # "active" | "finished"
    seats: Mapped[list[Any]] = mapped_column()  # account ids, seat order
    options: Mapped[dict[str, Any]] = mapped_column()
    ranked: Mapped[bool] = mapped_column(default=False)
    seed: Mapped[int] = mapped_column(sa.BigInteger)
    initial_state: Mapped[dict[str, Any]] = mapped_column()
    state: Mapped[dict[str, Any]] = mapped_column()
    version: Mapped[int] = mapped_column(default=0)
    # the fencing token of the node driving the game: raised by every adoption, and every
    # write of the game is made only under the epoch its writer holds (server/cluster/)
    epoch: Mapped[int] = mapped_column(default=0, server_default="0")
    node: Mapped[str] = mapped_column(sa.String(64), default="", server_default="")
    result: Mapped[dict[str, Any] | None] = mapped_column(default=None)
    created_at: Mapped[float]
    updated_at: Mapped[float]


class GameMove(Base):
    """The move list of a game, for REPLAY: seat and notation, in order."""

    __tablename__ = "game_moves"

    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(primary_key=True)
    seat: Mapped[int]
    notation: Mapped[str] = mapped_column(sa.String(200))
    created_at: Mapped[float]


class GamePlayer(Base):
    """An account that has sat in a game, in any seat and at any time: how a player's
    games are found without reading every game's seats. Which seat, and whether as a
    person or as the computer at a level, the game's ``seats`` say."""

    __tablename__ = "game_players"

    # (account, game): a player's games, newest first, are one range of the key
    account_id: Mapped[int] = mapped_column(sa.ForeignKey("accounts.id"), primary_key=True)
    game_id: Mapped[int] = mapped_column(sa.ForeignKey("games.id"), primary_key=True)


class Rating(Base):
    """Glicko-2 rating and win/loss records of one account in one game."""

    __tablename__ = "ratings"

    account_id: Mapped[int] = mapped_column(sa.ForeignKey("accounts.id"), primary_key=True)
    kind: Mapped[str] = mapped_column(sa.String(20), primary_key=True)
    rating: Mapped[float] = mapped_column(default=1500.0)
    rd: Mapped[float] = mapped_column(default=350.0)
    volatility: Mapped[float] = mapped_column(default=0.06)
    ranked_wins: Mapped[int] = mapped_column(default=0)
    ranked_losses: Mapped[int] = mapped_column(default=0)
    ranked_draws: Mapped[int] = mapped_column(default=0)
    unranked_wins: Mapped[int] = mapped_column(default=0)
    unranked_losses: Mapped[int] = mapped_column(default=0)
    unranked_draws: Mapped[int] = mapped_column(default=0)
