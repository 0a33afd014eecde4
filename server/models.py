"""The database tables, as SQLAlchemy 2 declarative models.

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


class LedgerEntry(Base):
    """One cubit movement. An account's balance is the sum of its entries."""

    __tablename__ = "ledger"

    id: Mapped[int] = mapped_column(primary_key=True)
    account_id: Mapped[int] = mapped_column(sa.ForeignKey("accounts.id"), index=True)
    delta: Mapped[int] = mapped_column(sa.BigInteger)
    reason: Mapped[str] = mapped_column(sa.String(40))
    ref: Mapped[str | None] = mapped_column(sa.String(80), default=None)
    created_at: Mapped[float]


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


# -- Triptycha tiles (server/services/tiles.py) -------------------------------------------
class TileCollection(Base):
    """A themed set of tile designs. ``price`` is what the tile shop asks for a beginner
    disc of it (None: not sold); a disc holds ``disc_min``..``disc_max`` tiles."""

    __tablename__ = "tile_collections"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(40))
    name_key: Mapped[str] = mapped_column(sa.String(40), unique=True)
    description: Mapped[str] = mapped_column(sa.String(400), default="")
    price: Mapped[int | None] = mapped_column(default=None)
    disc_min: Mapped[int] = mapped_column(default=5)
    disc_max: Mapped[int] = mapped_column(default=15)
    created_at: Mapped[float]


class TileDesign(Base):
    """A tile as an admin defined it once: corners (T, BL, BR pointing up), primary."""

    __tablename__ = "tile_designs"
    __table_args__ = (sa.UniqueConstraint("collection_id", "name_key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    collection_id: Mapped[int] = mapped_column(sa.ForeignKey("tile_collections.id"), index=True)
    name: Mapped[str] = mapped_column(sa.String(60))
    name_key: Mapped[str] = mapped_column(sa.String(60))
    rarity: Mapped[str] = mapped_column(sa.String(10))
    corner_t: Mapped[int]
    corner_bl: Mapped[int]
    corner_br: Mapped[int]
    centre: Mapped[int]  # the primary number
    created_at: Mapped[float]


class Disc(Base):
    """A sealed disc of tiles of one collection, an inventory item until broken."""

    __tablename__ = "discs"

    id: Mapped[int] = mapped_column(primary_key=True)
    collection_id: Mapped[int] = mapped_column(sa.ForeignKey("tile_collections.id"))
    owner_id: Mapped[int] = mapped_column(sa.ForeignKey("accounts.id"), index=True)
    size: Mapped[int]
    broken: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[float]


class TileInstance(Base):
    """One tile a player owns: exactly one owner and one place (the CHECKs make a disc or
    game reference go with its place and with no other)."""

    __tablename__ = "tiles"
    __table_args__ = (
        sa.CheckConstraint("place IN ('deck', 'inventory', 'disc', 'game')", name="tile_place"),
        sa.CheckConstraint("(place = 'disc' AND disc_id IS NOT NULL) OR "
                           "(place <> 'disc' AND disc_id IS NULL)", name="tile_disc"),
        sa.CheckConstraint("(place = 'game' AND game_id IS NOT NULL) OR "
                           "(place <> 'game' AND game_id IS NULL)", name="tile_game"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    design_id: Mapped[int] = mapped_column(sa.ForeignKey("tile_designs.id"), index=True)
    owner_id: Mapped[int] = mapped_column(sa.ForeignKey("accounts.id"), index=True)
    place: Mapped[str] = mapped_column(sa.String(10))
    disc_id: Mapped[int | None] = mapped_column(sa.ForeignKey("discs.id"), index=True,
                                                default=None)
    game_id: Mapped[int | None] = mapped_column(sa.ForeignKey("games.id"), index=True,
                                                default=None)
    created_at: Mapped[float]


class TileMove(Base):
    """The log of every tile: its making (no from), and each change of owner or place."""

    __tablename__ = "tile_moves"

    id: Mapped[int] = mapped_column(primary_key=True)
    tile_id: Mapped[int] = mapped_column(sa.ForeignKey("tiles.id"), index=True)
    from_owner: Mapped[int | None] = mapped_column(default=None)
    from_place: Mapped[str | None] = mapped_column(sa.String(10), default=None)
    to_owner: Mapped[int]
    to_place: Mapped[str] = mapped_column(sa.String(10))
    reason: Mapped[str] = mapped_column(sa.String(40))
    ref: Mapped[str | None] = mapped_column(sa.String(80), default=None)
    created_at: Mapped[float]


class StarterTile(Base):
    """The starter set: ``count`` tiles of a design for every new account."""

    __tablename__ = "tile_starter"

    design_id: Mapped[int] = mapped_column(sa.ForeignKey("tile_designs.id"), primary_key=True)
    count: Mapped[int] = mapped_column(default=1)


# -- Pyramid (server/services/pyramid.py) -------------------------------------------------
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


# -- Triad tables (server/services/triad.py) -------------------------------------------------
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
