"""The Triptycha tile economy: collections, tile designs, discs and tile instances.

Every tile instance has exactly one owner and exactly one place: the owner's ``deck``
(playable), ``inventory`` (tradeable), a sealed ``disc`` (an inventory item), or a
``game`` (locked while it is in play). The table's CHECK constraints tie a disc or game
reference to its place, so a tile cannot be in two places; every change of owner or place
is one conditional UPDATE plus one row of the tile log (``tile_moves``), written in the
caller's transaction, so nothing is half done and ``audit`` can replay the whole history.

The module-level coroutines take a transaction (the caller commits: the game host does,
inside the transaction that stores a move). :class:`Tiles` is the service the commands
call: each method is one transaction and raises :class:`TileError` (a message for the
player) on purpose, nothing else.

Decisions: a disc's size is rolled in its collection's range (within 5..15), each tile's
rarity by ``RARITY_WEIGHTS`` among the rarities the collection has, then a design of that
rarity; the tiles exist (sealed, unseen in listings) from the moment the disc is made.
Only inventory items can be given; a tile is named by ``#id`` or part of its name.
"""

from __future__ import annotations

import random
import time
from typing import Any, Iterable

import attrs
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncSession

from games.triptycha.tiles import MAX_NUMBER, RARITIES, Tile
from server.db import Database
from server.models import Account, GameRecord
from server.services.triptycha_models import (Disc, StarterTile, TileCollection, TileDesign,
                                              TileInstance, TileMove)
from server.services import ledger
from server.text import a, clean

PLACES = ("deck", "inventory", "disc", "game")
#: How often each rarity comes out of a disc (relative weights).
RARITY_WEIGHTS = {"common": 60, "uncommon": 27, "rare": 10, "legendary": 3}
DISC_SIZES = (5, 15)
NAME_MAX = 60
COLLECTION_MAX = 40
SORTS = ("id", "sum", "name", "rarity", "collection")


class TileError(Exception):
    """A tile request that cannot be granted; the message is for the player."""


# -- values --------------------------------------------------------------------------------
@attrs.frozen
class TileView:
    """One tile instance with its design, as the commands and games see it."""

    id: int
    design_id: int
    name: str
    collection: str
    rarity: str
    corners: tuple[int, int, int]
    primary: int
    owner_id: int
    place: str
    disc_id: int | None = None
    game_id: int | None = None

    @property
    def sum(self) -> int:
        return sum(self.corners) + self.primary

    def tile(self) -> Tile:
        """The engine's value of this tile (``games.triptycha.tiles.Tile``)."""
        return Tile(self.id, self.corners, self.primary, self.name, self.rarity, self.collection)

    @classmethod
    def from_row(cls, tile: TileInstance, design: TileDesign,
                 collection: TileCollection) -> "TileView":
        return cls(tile.id, design.id, design.name, collection.name, design.rarity,
                   (design.corner_t, design.corner_bl, design.corner_br), design.centre,
                   tile.owner_id, tile.place, tile.disc_id, tile.game_id)


@attrs.frozen
class DiscView:
    id: int
    collection: str
    size: int
    owner_id: int
    broken: bool

    @property
    def label(self) -> str:
        return f"{a_or_an(self.collection)} {self.collection} disc (#{self.id})"


def a_or_an(word: str) -> str:
    """The article for ``word`` ("an Undercroft disc", "a Harbour disc"): text.a's."""
    return a(word).partition(" ")[0]


def _key(name: str) -> str:
    return " ".join(name.split()).casefold()


def rarity_rank(rarity: str) -> int:
    return RARITIES.index(rarity) if rarity in RARITIES else 0


def sort_tiles(tiles: Iterable[TileView], how: str) -> list[TileView]:
    """Order a listing: ``id`` (oldest first), ``sum`` (strongest first), ``name``,
    ``rarity`` (rarest first), ``collection``."""
    keys = {
        "id": lambda t: t.id,
        "sum": lambda t: (-t.sum, t.name.casefold(), t.id),
        "name": lambda t: (t.name.casefold(), t.id),
        "rarity": lambda t: (-rarity_rank(t.rarity), -t.sum, t.id),
        "collection": lambda t: (t.collection.casefold(), t.name.casefold(), t.id),
    }
    return sorted(tiles, key=keys.get(how, keys["id"]))


# -- inside a transaction ------------------------------------------------------------------
_VIEW = (sa.select(TileInstance, TileDesign, TileCollection)
         .join(TileDesign, TileDesign.id == TileInstance.design_id)
         .join(TileCollection, TileCollection.id == TileDesign.collection_id))


async def views(tx: AsyncSession, *where: Any) -> list[TileView]:
    rows = await tx.execute(_VIEW.where(*where).order_by(TileInstance.id))
    return [TileView.from_row(t, d, c) for t, d, c in rows.all()]


async def view(tx: AsyncSession, tile_id: int) -> TileView | None:
    found = await views(tx, TileInstance.id == tile_id)
    return found[0] if found else None


async def _log(tx: AsyncSession, tile_id: int, from_owner: int | None, from_place: str | None,
               to_owner: int, to_place: str, reason: str, ref: str | None) -> None:
    tx.add(TileMove(tile_id=tile_id, from_owner=from_owner, from_place=from_place,
                    to_owner=to_owner, to_place=to_place, reason=reason[:40],
                    ref=ref[:80] if ref else None, created_at=time.time()))


async def mint(tx: AsyncSession, design_id: int, owner_id: int, place: str = "deck", *,
               disc_id: int | None = None, reason: str, ref: str | None = None) -> int:
    """Make a new tile instance of a design; return its id. The only way tiles appear."""
    if place not in ("deck", "inventory", "disc"):
        raise ValueError(f"tiles are made in a deck, inventory or disc, not {place!r}")
    tile = TileInstance(design_id=design_id, owner_id=owner_id, place=place, disc_id=disc_id,
                        game_id=None, created_at=time.time())
    tx.add(tile)
    await tx.flush()
    await _log(tx, tile.id, None, None, owner_id, place, reason, ref)
    return tile.id


async def relocate(tx: AsyncSession, tile_id: int, *, owner: int, place: str, to_place: str,
                   to_owner: int | None = None, reason: str, ref: str | None = None,
                   game_id: int | None = None, to_game: int | None = None,
                   to_disc: int | None = None) -> bool:
    """Move one tile from (``owner``, ``place`` [, ``game_id``]) to (``to_owner``,
    ``to_place``): one conditional UPDATE and a log row. False (and nothing written) when
    the tile is not where the caller thinks it is."""
    to_owner = owner if to_owner is None else to_owner
    where = [TileInstance.id == tile_id, TileInstance.owner_id == owner,
             TileInstance.place == place]
    if game_id is not None:
        where.append(TileInstance.game_id == game_id)
    result = await tx.execute(
        sa.update(TileInstance).where(*where)
        .values(owner_id=to_owner, place=to_place, game_id=to_game, disc_id=to_disc)
        .execution_options(synchronize_session=False))
    if result.rowcount != 1:
        return False
    await _log(tx, tile_id, owner, place, to_owner, to_place, reason, ref)
    return True


async def roll_disc(tx: AsyncSession, collection: TileCollection, owner_id: int,
                    rng: random.Random, *, reason: str, ref: str | None = None,
                    size: int | None = None) -> DiscView:
    """Make a sealed disc of ``collection`` for ``owner_id``: its size rolled in the
    collection's range, each tile's rarity by ``RARITY_WEIGHTS`` (among the rarities the
    collection has), then a design of that rarity at random."""
    designs = list(await tx.scalars(
        sa.select(TileDesign).where(TileDesign.collection_id == collection.id)
        .order_by(TileDesign.id)))
    if not designs:
        raise TileError(f"The {collection.name} collection has no tiles yet.")
    by_rarity: dict[str, list[TileDesign]] = {}
    for design in designs:
        by_rarity.setdefault(design.rarity, []).append(design)
    rarities = sorted(by_rarity, key=rarity_rank)
    weights = [RARITY_WEIGHTS.get(r, 1) for r in rarities]
    if size is None:
        size = rng.randint(collection.disc_min, collection.disc_max)
    disc = Disc(collection_id=collection.id, owner_id=owner_id, size=size, broken=False,
                created_at=time.time())
    tx.add(disc)
    await tx.flush()
    for _ in range(size):
        rarity = rng.choices(rarities, weights)[0]
        design = rng.choice(by_rarity[rarity])
        await mint(tx, design.id, owner_id, "disc", disc_id=disc.id, reason=reason,
                   ref=ref or f"disc #{disc.id}")
    return DiscView(disc.id, collection.name, size, owner_id, False)


async def _update_sealed_disc(tx: AsyncSession, disc_id: int, holder: int, **values) -> None:
    """Change a sealed disc ``holder`` holds, in one conditional UPDATE (of two sessions
    racing for it, one wins); the loser is told it has no such disc."""
    result = await tx.execute(
        sa.update(Disc).where(Disc.id == disc_id, Disc.owner_id == holder, ~Disc.broken)
        .values(**values).execution_options(synchronize_session=False))
    if result.rowcount != 1:
        raise TileError(f"You have no sealed disc #{disc_id}.")


async def break_disc(tx: AsyncSession, disc_id: int, owner_id: int, *,
                     reason: str = "break disc", ref: str | None = None) -> list[int]:
    """Open a sealed disc: its tiles go to the owner's deck. Returns their ids."""
    await _update_sealed_disc(tx, disc_id, owner_id, broken=True)
    ids = list(await tx.scalars(sa.select(TileInstance.id).where(
        TileInstance.disc_id == disc_id, TileInstance.place == "disc")
        .order_by(TileInstance.id)))
    for tile_id in ids:
        if not await relocate(tx, tile_id, owner=owner_id, place="disc", to_place="deck",
                              reason=reason, ref=ref or f"disc #{disc_id}"):
            raise TileError(f"Disc #{disc_id} changed while it was being opened; try again.")
    return ids


async def give_disc(tx: AsyncSession, disc_id: int, owner_id: int, to_owner: int, *,
                    reason: str = "give", ref: str | None = None) -> DiscView:
    await _update_sealed_disc(tx, disc_id, owner_id, owner_id=to_owner)
    ids = list(await tx.scalars(sa.select(TileInstance.id).where(
        TileInstance.disc_id == disc_id).order_by(TileInstance.id)))
    for tile_id in ids:
        if not await relocate(tx, tile_id, owner=owner_id, place="disc", to_owner=to_owner,
                              to_place="disc", to_disc=disc_id, reason=reason, ref=ref):
            raise TileError(f"Disc #{disc_id} changed while it was being given; try again.")
    disc = await tx.get(Disc, disc_id)
    collection = await tx.get(TileCollection, disc.collection_id)
    return DiscView(disc_id, collection.name, len(ids), to_owner, False)


async def discs_of(tx: AsyncSession, owner_id: int, collection: str | None = None) -> list[DiscView]:
    """The sealed discs an account holds (of one collection, by name), oldest first."""
    q = (sa.select(Disc, TileCollection).join(TileCollection, TileCollection.id == Disc.collection_id)
         .where(Disc.owner_id == owner_id, ~Disc.broken).order_by(Disc.id))
    if collection is not None:
        q = q.where(TileCollection.name_key == _key(collection))
    rows = await tx.execute(q)
    return [DiscView(d.id, c.name, d.size, d.owner_id, d.broken) for d, c in rows.all()]


async def deck(tx: AsyncSession, owner_id: int, sort: str = "id") -> list[TileView]:
    """The tiles in an account's deck (free to play), in its listing order."""
    return sort_tiles(await views(tx, TileInstance.owner_id == owner_id,
                                  TileInstance.place == "deck"), sort)


async def lock(tx: AsyncSession, tile_id: int, owner_id: int, game_id: int) -> bool:
    """Lock a deck tile into a game (idempotent for a tile already locked in that game)."""
    if await relocate(tx, tile_id, owner=owner_id, place="deck", to_place="game",
                      to_game=game_id, reason="game", ref=f"game #{game_id}"):
        return True
    current = await tx.get(TileInstance, tile_id, populate_existing=True)
    return current is not None and current.place == "game" and current.game_id == game_id


async def hand_over(tx: AsyncSession, tile_id: int, from_owner: int, to_owner: int,
                    game_id: int, reason: str) -> bool:
    """A tile locked in a game changes owner (Take, Plunder); it stays locked."""
    return await relocate(tx, tile_id, owner=from_owner, place="game", game_id=game_id,
                          to_owner=to_owner, to_place="game", to_game=game_id, reason=reason,
                          ref=f"game #{game_id}")


async def release(tx: AsyncSession, game_id: int) -> list[int]:
    """The game is over: every tile locked in it goes to its (present) owner's deck."""
    rows = (await tx.execute(sa.select(TileInstance.id, TileInstance.owner_id).where(
        TileInstance.game_id == game_id).order_by(TileInstance.id))).all()
    for tile_id, owner in rows:
        if not await relocate(tx, tile_id, owner=owner, place="game", game_id=game_id,
                              to_place="deck", reason="game over", ref=f"game #{game_id}"):
            raise RuntimeError(f"tile #{tile_id} of game #{game_id} moved during release")
    return [tile_id for tile_id, _ in rows]


async def counts(tx: AsyncSession, owner_id: int) -> dict[str, int]:
    """How many tiles an account has in each place, and its sealed discs."""
    rows = await tx.execute(sa.select(TileInstance.place, sa.func.count()).where(
        TileInstance.owner_id == owner_id).group_by(TileInstance.place))
    out = {place: 0 for place in PLACES}
    out.update({place: n for place, n in rows.all()})
    out["discs"] = await tx.scalar(sa.select(sa.func.count()).select_from(Disc).where(
        Disc.owner_id == owner_id, ~Disc.broken)) or 0
    return out


async def collection_named(tx: AsyncSession, name: str) -> TileCollection | None:
    """A collection by its name (any case), or by a prefix no other collection shares."""
    key = _key(name)
    found = await tx.scalar(sa.select(TileCollection).where(TileCollection.name_key == key))
    if found is not None or not key:
        return found
    rows = list(await tx.scalars(sa.select(TileCollection).where(
        TileCollection.name_key.startswith(key, autoescape=True))))
    return rows[0] if len(rows) == 1 else None


async def design_by_ref(tx: AsyncSession, ref: str) -> TileDesign:
    """A design by ``#id`` or ``<collection>/<name>``."""
    ref = ref.strip()
    if ref.lstrip("#").isdecimal():
        design = await tx.get(TileDesign, int(ref.lstrip("#")))
        if design is None:
            raise TileError(f"There is no tile design {ref}.")
        return design
    coll_name, sep, name = ref.partition("/")
    if not sep:
        raise TileError(f"Name a design as #<id> or <collection>/<name>, not {ref!r}.")
    collection = await collection_named(tx, coll_name)
    if collection is None:
        raise TileError(f"There is no collection {coll_name.strip()!r}.")
    design = await tx.scalar(sa.select(TileDesign).where(
        TileDesign.collection_id == collection.id, TileDesign.name_key == _key(name)))
    if design is None:
        raise TileError(f"The {collection.name} collection has no tile {name.strip()!r}.")
    return design


async def grant_starter(tx: AsyncSession, account: Account) -> int:
    """Mint the starter set into a new account's deck (the computer gets none)."""
    if account.is_computer:
        return 0
    made = 0
    for row in await tx.scalars(sa.select(StarterTile).order_by(StarterTile.design_id)):
        for _ in range(row.count):
            await mint(tx, row.design_id, account.id, "deck", reason="starter set")
            made += 1
    return made


async def audit(tx: AsyncSession, tile_ids: Iterable[int] | None = None) -> list[str]:
    """Check every tile (or only ``tile_ids``) against its log and its place; return the
    problems found (none when all is well): each tile was made once and every logged move
    starts where the previous one ended, the last one is where the tile is, a disc tile
    sits in a sealed disc of its owner, a game tile in an active game that holds it, and
    every tile in the hands of an active game is locked in that game."""
    problems: list[str] = []
    only = None if tile_ids is None else set(tile_ids)
    tile_q, move_q = sa.select(TileInstance), sa.select(TileMove).order_by(TileMove.id)
    if only is not None:
        tile_q = tile_q.where(TileInstance.id.in_(only))
        move_q = move_q.where(TileMove.tile_id.in_(only))
    tiles = {t.id: t for t in await tx.scalars(tile_q)}
    history: dict[int, list[TileMove]] = {}
    for move in await tx.scalars(move_q):
        history.setdefault(move.tile_id, []).append(move)
    for tile_id, moves in history.items():
        if tile_id not in tiles:
            problems.append(f"tile #{tile_id} is in the log but does not exist")
            continue
        if moves[0].from_owner is not None or moves[0].from_place is not None:
            problems.append(f"tile #{tile_id}: its first log row is not its making")
        for before, after in zip(moves, moves[1:]):
            if after.from_owner is None:
                problems.append(f"tile #{tile_id} was made twice (log #{after.id})")
            elif (after.from_owner, after.from_place) != (before.to_owner, before.to_place):
                problems.append(f"tile #{tile_id}: log #{after.id} starts where log "
                                f"#{before.id} did not end")
        last = moves[-1]
        tile = tiles[tile_id]
        if (last.to_owner, last.to_place) != (tile.owner_id, tile.place):
            problems.append(f"tile #{tile_id} is {tile.place} of account {tile.owner_id} but "
                            f"its log ends {last.to_place} of account {last.to_owner}")
    for tile_id in tiles.keys() - history.keys():
        problems.append(f"tile #{tile_id} has no log")
    discs = {d.id: d for d in await tx.scalars(sa.select(Disc))}
    inside: dict[int, int] = {}
    for tile in tiles.values():
        if tile.place not in PLACES:
            problems.append(f"tile #{tile.id} is in an unknown place {tile.place!r}")
        if tile.place == "disc":
            disc = discs.get(tile.disc_id)
            inside[tile.disc_id] = inside.get(tile.disc_id, 0) + 1
            if disc is None or disc.broken or disc.owner_id != tile.owner_id:
                problems.append(f"tile #{tile.id} is in disc #{tile.disc_id}, which is not a "
                                f"sealed disc of its owner")
    for disc in discs.values():
        if only is not None and disc.id not in inside:
            continue
        held = inside.get(disc.id, 0)
        if disc.broken and held:
            problems.append(f"broken disc #{disc.id} still holds {held} tiles")
        if not disc.broken and held != disc.size:
            problems.append(f"disc #{disc.id} should hold {disc.size} tiles, holds {held}")
    games = {g.id: g for g in await tx.scalars(
        sa.select(GameRecord).where(GameRecord.kind == "tt", GameRecord.status == "active"))}
    in_hands: dict[int, int] = {}
    in_decks: dict[int, set[int]] = {}
    for game in games.values():
        for deck_ in game.state.get("decks", ()):
            in_decks.setdefault(game.id, set()).update(t["id"] for t in deck_)
        for hand in game.state.get("hands", ()):
            for held in hand:
                tile_id = held["tile"]["id"]
                if tile_id in in_hands:
                    problems.append(f"tile #{tile_id} is in the hands of games "
                                    f"#{in_hands[tile_id]} and #{game.id}")
                in_hands[tile_id] = game.id
    for tile_id, game_id in in_hands.items():
        if only is not None and tile_id not in only:
            continue
        tile = tiles.get(tile_id)
        if tile is None or tile.place != "game" or tile.game_id != game_id:
            problems.append(f"tile #{tile_id} is in a hand of game #{game_id} but not locked "
                            f"in it")
    for tile in tiles.values():
        if tile.place == "game" and tile.id not in in_decks.get(tile.game_id, ()):
            problems.append(f"tile #{tile.id} is locked in game #{tile.game_id}, which is not "
                            f"an active game holding it")
    return problems


# -- the service ---------------------------------------------------------------------------
class Tiles:
    """What the commands call: one transaction per method. Raises :class:`TileError`."""

    def __init__(self, db: Database, rng: random.Random | None = None) -> None:
        self.db = db
        self.rng = rng or random.SystemRandom()

    # ---- looking
    async def deck(self, owner_id: int, sort: str = "id") -> list[TileView]:
        async with self.db.session() as tx:
            return await deck(tx, owner_id, sort)

    async def inventory(self, owner_id: int) -> tuple[list[TileView], list[DiscView]]:
        async with self.db.session() as tx:
            tiles = await views(tx, TileInstance.owner_id == owner_id,
                                TileInstance.place == "inventory")
            return tiles, await discs_of(tx, owner_id)

    async def counts(self, owner_id: int) -> dict[str, int]:
        async with self.db.session() as tx:
            return await counts(tx, owner_id)

    async def owned(self, owner_id: int, places: tuple[str, ...] = PLACES) -> list[TileView]:
        async with self.db.session() as tx:
            return await views(tx, TileInstance.owner_id == owner_id,
                               TileInstance.place.in_(places))

    async def tile(self, tile_id: int) -> TileView | None:
        async with self.db.session() as tx:
            return await view(tx, tile_id)

    async def collections(self) -> list[tuple[TileCollection, int]]:
        """Every collection with its number of designs, by name."""
        async with self.db.session() as tx:
            rows = await tx.execute(
                sa.select(TileCollection, sa.func.count(TileDesign.id))
                .outerjoin(TileDesign, TileDesign.collection_id == TileCollection.id)
                .group_by(TileCollection.id).order_by(TileCollection.name_key))
            return [(c, n) for c, n in rows.all()]

    async def designs(self, collection: str) -> tuple[TileCollection, list[TileDesign]]:
        async with self.db.session() as tx:
            coll = await collection_named(tx, collection)
            if coll is None:
                raise TileError(f"There is no collection {collection!r}.")
            designs = list(await tx.scalars(sa.select(TileDesign).where(
                TileDesign.collection_id == coll.id).order_by(TileDesign.id)))
            return coll, designs

    async def shop(self) -> list[tuple[TileCollection, int]]:
        """Collections the shop sells discs of, cheapest first, with their design counts."""
        return sorted(((c, n) for c, n in await self.collections() if c.price is not None and n),
                      key=lambda cn: (cn[0].price, cn[0].name_key))

    async def audit(self, tile_ids: Iterable[int] | None = None) -> list[str]:
        async with self.db.session() as tx:
            return await audit(tx, tile_ids)

    # ---- a player's own moves
    async def move_own(self, owner_id: int, tile_id: int, from_place: str, to_place: str) -> TileView:
        """OUTTD (deck -> inventory) and INTD (inventory -> deck)."""
        async with self.db.session() as tx:
            tile = await view(tx, tile_id)
            where = {"deck": "deck", "inventory": "inventory"}
            if tile is None or tile.owner_id != owner_id:
                raise TileError(f"You have no tile #{tile_id}.")
            if tile.place != from_place:
                raise TileError(f"Tile #{tile_id} ({tile.name}) is {_where(tile)}, not in your "
                                f"{where[from_place]}.")
            if not await relocate(tx, tile_id, owner=owner_id, place=from_place,
                                  to_place=to_place, reason="out of deck" if to_place ==
                                  "inventory" else "into deck"):
                raise TileError(f"Tile #{tile_id} just moved; look again.")
            await tx.commit()
            return attrs.evolve(tile, place=to_place)

    async def give_tile(self, owner_id: int, tile_id: int, to_owner: int) -> TileView:
        async with self.db.session() as tx:
            tile = await view(tx, tile_id)
            if tile is None or tile.owner_id != owner_id:
                raise TileError(f"You have no tile #{tile_id}.")
            if tile.place != "inventory":
                raise TileError(f"Tile #{tile_id} ({tile.name}) is {_where(tile)}; only tiles "
                                f"in your inventory can be given (OUTTD {tile_id} first).")
            if not await relocate(tx, tile_id, owner=owner_id, place="inventory",
                                  to_owner=to_owner, to_place="inventory", reason="give"):
                raise TileError(f"Tile #{tile_id} just moved; look again.")
            await tx.commit()
            return attrs.evolve(tile, owner_id=to_owner)

    async def give_disc(self, owner_id: int, disc_id: int, to_owner: int) -> DiscView:
        async with self.db.session() as tx:
            disc = await give_disc(tx, disc_id, owner_id, to_owner)
            await tx.commit()
            return disc

    async def break_disc(self, owner_id: int, disc_id: int) -> tuple[DiscView, list[TileView]]:
        async with self.db.session() as tx:
            disc = await tx.get(Disc, disc_id)
            if disc is None or disc.owner_id != owner_id or disc.broken:
                raise TileError(f"You have no sealed disc #{disc_id}.")
            collection = await tx.get(TileCollection, disc.collection_id)
            ids = await break_disc(tx, disc_id, owner_id)
            tiles = await views(tx, TileInstance.id.in_(ids))
            await tx.commit()
            return DiscView(disc_id, collection.name, len(ids), owner_id, True), tiles

    async def buy(self, owner_id: int, collection: str) -> tuple[DiscView, int, int]:
        """Buy a beginner disc in the shop: cubits (a ledger row) and the disc, one
        transaction. Returns the disc, its price and the balance left."""
        async with self.db.session() as tx:
            coll = await collection_named(tx, collection)
            if coll is None or coll.price is None:
                raise TileError(f"The shop sells no {collection} discs. (LIST shows what it sells.)")
            try:
                balance = await ledger.move(tx, owner_id, -coll.price, "tile shop",
                                            f"{coll.name} disc")
            except ledger.InsufficientCubits as err:
                raise TileError(f"{a_or_an(coll.name).capitalize()} {coll.name} disc costs "
                                f"{coll.price} cubits; you have "
                                f"{err.balance}.") from None
            disc = await roll_disc(tx, coll, owner_id, self.rng, reason="tile shop")
            await tx.commit()
            return disc, coll.price, balance

    # ---- admin
    async def create_collection(self, name: str, *, description: str = "",
                                price: int | None = None,
                                disc_size: tuple[int, int] = DISC_SIZES) -> tuple[TileCollection, bool]:
        """Make a collection, or update the one of that name. Returns it and whether it
        changed anything."""
        name, description = check_collection(name, description, price, disc_size)
        lo, hi = disc_size
        async with self.db.session() as tx:
            coll = await tx.scalar(sa.select(TileCollection).where(
                TileCollection.name_key == _key(name)))
            if coll is None:
                coll = TileCollection(name=name, name_key=_key(name), description=description,
                                      price=price, disc_min=lo, disc_max=hi,
                                      created_at=time.time())
                tx.add(coll)
                changed = True
            else:
                new = dict(description=description or coll.description, price=price,
                           disc_min=lo, disc_max=hi)
                changed = any(getattr(coll, k) != v for k, v in new.items())
                for k, v in new.items():
                    setattr(coll, k, v)
            await tx.commit()
            return coll, changed

    async def set_price(self, collection: str, price: int | None) -> TileCollection:
        """Put the collection's discs in the shop at ``price`` (None: take them out). A
        collection with no tile designs yet is refused a price: its discs would hold
        nothing, and the shop lists only discs it can fill."""
        async with self.db.session() as tx:
            coll = await collection_named(tx, collection)
            if coll is None:
                raise TileError(f"There is no collection {collection!r}.")
            if price is not None and not await tx.scalar(
                    sa.select(sa.func.count(TileDesign.id)).where(
                        TileDesign.collection_id == coll.id)):
                raise TileError(f"{coll.name} has no tile designs yet, so the shop cannot "
                                "sell its discs: @TILE adds designs first.")
            coll.price = price
            await tx.commit()
            return coll

    async def create_design(self, collection: str, name: str, rarity: str,
                            corners: tuple[int, int, int], primary: int) -> tuple[TileDesign, str]:
        """Add a tile design to a collection (or update the one of that name). Returns it
        and ``"created"``, ``"updated"`` or ``"unchanged"``."""
        name, rarity = check_design(name, rarity, corners, primary)
        async with self.db.session() as tx:
            coll = await collection_named(tx, collection)
            if coll is None:
                raise TileError(f"There is no collection {collection!r}.")
            design = await tx.scalar(sa.select(TileDesign).where(
                TileDesign.collection_id == coll.id, TileDesign.name_key == _key(name)))
            values = dict(rarity=rarity, corner_t=corners[0], corner_bl=corners[1],
                          corner_br=corners[2], centre=primary)
            if design is None:
                design = TileDesign(collection_id=coll.id, name=name, name_key=_key(name),
                                    created_at=time.time(), **values)
                tx.add(design)
                what = "created"
            elif any(getattr(design, k) != v for k, v in values.items()):
                for k, v in values.items():
                    setattr(design, k, v)
                what = "updated"
            else:
                what = "unchanged"
            await tx.commit()
            return design, what

    async def design(self, ref: str) -> tuple[TileDesign, TileCollection]:
        async with self.db.session() as tx:
            design = await design_by_ref(tx, ref)
            return design, await tx.get(TileCollection, design.collection_id)

    async def grant_tiles(self, owner_id: int, ref: str, count: int = 1, *,
                          by: str = "admin") -> list[TileView]:
        async with self.db.session() as tx:
            design = await design_by_ref(tx, ref)
            ids = [await mint(tx, design.id, owner_id, "deck", reason="admin grant",
                              ref=f"by {by}") for _ in range(count)]
            tiles = await views(tx, TileInstance.id.in_(ids))
            await tx.commit()
            return tiles

    async def grant_disc(self, owner_id: int, collection: str, *, by: str = "admin",
                         size: int | None = None) -> DiscView:
        async with self.db.session() as tx:
            coll = await collection_named(tx, collection)
            if coll is None:
                raise TileError(f"There is no collection {collection!r}.")
            disc = await roll_disc(tx, coll, owner_id, self.rng, reason="admin grant",
                                   ref=f"by {by}", size=size)
            await tx.commit()
            return disc

    async def set_starter(self, refs: list[str]) -> bool:
        """Replace the starter set (design references, repeated for several copies);
        return whether it changed."""
        async with self.db.session() as tx:
            wanted: dict[int, int] = {}
            for ref in refs:
                design = await design_by_ref(tx, ref)
                wanted[design.id] = wanted.get(design.id, 0) + 1
            rows = await tx.scalars(sa.select(StarterTile))
            if {r.design_id: r.count for r in rows} == wanted:
                return False
            await tx.execute(sa.delete(StarterTile))
            for design_id, count in wanted.items():
                tx.add(StarterTile(design_id=design_id, count=count))
            await tx.commit()
            return True

    async def stock(self, owner_id: int, collections: list[str], copies: int) -> int:
        """Make sure ``owner_id`` (the computer) owns ``copies`` tiles of every design of
        ``collections``, wherever they are; mint what is missing into its deck. Loading
        twice mints nothing the second time. Returns how many were made."""
        made = 0
        async with self.db.session() as tx:
            for name in collections:
                coll = await collection_named(tx, name)
                if coll is None:
                    raise TileError(f"There is no collection {name!r}.")
                designs = list(await tx.scalars(sa.select(TileDesign).where(
                    TileDesign.collection_id == coll.id).order_by(TileDesign.id)))
                for design in designs:
                    have = await tx.scalar(sa.select(sa.func.count()).select_from(TileInstance)
                                           .where(TileInstance.owner_id == owner_id,
                                                  TileInstance.design_id == design.id)) or 0
                    for _ in range(copies - have):
                        await mint(tx, design.id, owner_id, "deck", reason="computer stock")
                        made += 1
            await tx.commit()
        return made


def check_collection(name: str, description: str = "", price: int | None = None,
                     disc_size: tuple[int, int] = DISC_SIZES) -> tuple[str, str]:
    """A collection's name and description, cleaned; :raises TileError: if invalid."""
    name = _collection_name(name)
    lo, hi = disc_size
    if not DISC_SIZES[0] <= lo <= hi <= DISC_SIZES[1]:
        raise TileError(f"Disc sizes must lie within {DISC_SIZES[0]}..{DISC_SIZES[1]}, "
                        f"not {lo}..{hi}.")
    if price is not None and (type(price) is not int or not 0 <= price <= 10**9):
        raise TileError("A price is 0 to 1000000000 cubits.")
    return name, clean(description, max_len=400).strip()


def check_design(name: str, rarity: str, corners: tuple, primary: Any) -> tuple[str, str]:
    """A design's name (cleaned) and rarity; :raises TileError: if invalid."""
    name = _design_name(name)
    rarity = str(rarity).lower()
    if rarity not in RARITIES:
        raise TileError(f"Rarity is one of {', '.join(RARITIES)}, not {rarity!r}.")
    numbers = (*corners, primary)
    if len(corners) != 3 or any(type(n) is not int or not 0 <= n <= MAX_NUMBER
                                for n in numbers):
        raise TileError(f"A tile has three corners and a primary, each 0 to {MAX_NUMBER}.")
    return name, rarity


def _where(tile: TileView) -> str:
    return {"deck": "in your deck", "inventory": "in your inventory",
            "disc": f"sealed in disc #{tile.disc_id}",
            "game": f"in play in game #{tile.game_id}"}[tile.place]


def _collection_name(name: str) -> str:
    name = " ".join(clean(name).split())
    if not name or len(name) > COLLECTION_MAX or "/" in name:
        raise TileError(f"A collection name is 1 to {COLLECTION_MAX} characters, without '/'.")
    if name.lstrip("#").isdecimal():
        raise TileError("A collection name cannot be a number.")
    return name


def _design_name(name: str) -> str:
    name = " ".join(clean(name).split())
    if not name or len(name) > NAME_MAX or "/" in name:
        raise TileError(f"A tile name is 1 to {NAME_MAX} characters, without '/'.")
    return name


__all__ = ["DiscView", "PLACES", "RARITY_WEIGHTS", "SORTS", "TileError", "TileView", "Tiles",
           "audit", "break_disc", "deck", "grant_starter", "hand_over", "lock", "mint",
           "release", "relocate", "roll_disc", "sort_tiles"]
