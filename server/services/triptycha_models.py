"""Triptycha's tables: tile collections and designs, discs, the tiles players own and the
log of every tile's moves, and the starter set (``server/services/tiles.py`` keeps them).

Beside the game's service, not in ``server/models.py``: a game's tables are its own. Every
change here needs an alembic revision in ``migrations/versions``.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from server.models import Base


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
