"""Triptycha on the parlor: the ``tt`` game kind (prefix ``TT``, GMCP ``Triptycha.Game``).

The engine (``games/triptycha``) knows seats and tile values; this module ties it to real
tile instances (``server/services/tiles.py``):

* ``check_offer`` refuses a challenge, with the reason, when either deck (or, with the
  Disc rule, either disc) is too small for its hand.
* ``on_start`` builds both decks from the players' tiles (a Disc game breaks both discs
  first; the computer plays from a sample of its own deck, locked at once) and locks the
  tiles dealt into hands. ``on_action`` locks each tile as it is drawn, and moves a taken
  tile to the winner at once (it stays locked until the game ends). ``on_finish`` settles
  Plunder and releases every locked tile to its owner's deck. All three run inside the
  transaction that stores the game's state, so a tile changes hands exactly when the move
  that moves it is durable.
* ``timeout`` ends a trading phase after ``[games.tt] trade_timeout`` seconds (the
  winner's ``DONE``), also after a restart.
* ``SEEDERS`` load ``[[collections]]`` and ``[tiles]`` from data files (see
  ``server/data/seed/collections.toml``); the kind hands them to the parlor
  (``seeders``), and every new account gets the starter set (``on_new_account``).

The game itself (engine, notation, option words, event sentences) is its spec,
``games/triptycha/spec.py``.

Decisions where docs/rules/triptycha.md is silent (server side; the engine's are in
``games/triptycha/DECISIONS.md``):

* A player's deck listing for ``TT DRAW`` is the deck in ``ITD SORT`` order when the game
  starts. Only drawn or dealt tiles are locked; the rest stay playable elsewhere, but
  ``OUTTD`` is refused during one's own draw phase, and a listed tile that has left the
  deck anyway cannot be drawn (refused, nothing changes).
* ``TAKE`` gives the tile to the winner at once (it stays locked until the game ends);
  Plunder is settled when the game ends; then every locked tile goes to its owner's
  deck (a won tile is playable at once).
* The trading clock: the winner's ``DONE`` after ``trade_timeout`` seconds of no change;
  after a restart the clock starts again from the full ``trade_timeout``. A game by
  correspondence (``TT CHALLENGE <person> DAYS <n>``) trades on its days a move instead
  (server/services/correspondence.py).
* Disc: each player's biggest sealed disc of that collection is broken, inside the
  transaction that starts the game (a refused start breaks nothing).
* The computer brings a random sample of up to ``COMPUTER_DECK`` of its free deck tiles,
  locked at the start; when it is so busy that fewer than a hand are free, it mints the
  shortfall (logged as "computer stock"). It plays every rule but Disc; Ranked is dropped.
* The starter set and the computer's deck are data (``[tiles]`` in a seed file), because
  ``config.toml`` sections refuse unknown keys and the designs they name are data anyway.
"""

from __future__ import annotations

from typing import Any

import attrs
import sqlalchemy as sa

import games.triptycha as engine
from games.errors import RuleError
from games.triptycha import rules
from games.triptycha.rules import HAND_SIZE, Options, Rules
from games.triptycha.spec import SPEC
from games.triptycha.words import rules_of
from server.db import Database
from server.hosting import ActionContext, FinishContext, GameKind, Seat, StartContext
from server.models import Account
from server.services import tiles
from server.services.accounts import Accounts
from server.services.tiles import TileError, Tiles
from server.services.triptycha_models import TileDesign, TileInstance


KEY = SPEC.key
COMPUTER_DECK = 9     # tiles of its deck the computer brings to a game (locked at the start)
DEFAULT_SORT = "id"
SORT_SETTING = "tt_sort"


@attrs.frozen
class Settings:
    """``[games.tt]`` in ``config.toml`` (``trade_timeout`` also in ``[games]``, where it
    was first written)."""

    trade_timeout: float = 300.0  # seconds of a trading phase: then the winner's DONE


class Triptycha(GameKind):
    """The ``tt`` kind: the game's spec, tied to real tile instances by its database
    hooks, and the tile service the commands use (``tiles``)."""

    spec = SPEC
    Settings = Settings
    old_settings = {"trade_timeout": "trade_timeout"}

    def __init__(self, trade_timeout: float = Settings().trade_timeout) -> None:
        self.trade_timeout = float(trade_timeout)  # ``[games.tt] trade_timeout``
        self._tiles: Tiles | None = None

    @property
    def db(self):  # noqa: ANN201
        return self.hosted.db

    @property
    def tiles(self) -> Tiles:
        """Tiles, discs and the shop (one transaction a call), on the host's database."""
        if self._tiles is None:
            self._tiles = Tiles(self.db)
        return self._tiles

    # -- challenges ------------------------------------------------------------------------
    async def check_offer(self, challenger: Seat, target: Seat, options: dict[str, Any]) -> str | None:
        """Why this challenge cannot be played, or None."""
        game_rules = rules_of(options)
        async with self.db.session() as tx:
            if game_rules.disc is not None:
                coll = await tiles.collection_named(tx, game_rules.disc)
                if coll is None:
                    return f"There is no tile collection called {game_rules.disc!r}."
            for seat, need, who in ((challenger, HAND_SIZE[0], None),
                                    (target, HAND_SIZE[1], target.name)):
                problem = await self._too_small(tx, seat.account_id, need, who, game_rules)
                if problem:
                    return problem
        return None

    async def _too_small(self, tx, account_id: int, need: int, who: str | None,
                         game_rules: Rules) -> str | None:
        player = "Player 1" if need == HAND_SIZE[0] else "Player 2"
        if game_rules.disc is not None:
            discs = await tiles.discs_of(tx, account_id, game_rules.disc)
            if not discs:
                return (f"{who or 'You'} {'has' if who else 'have'} no sealed "
                        f"{game_rules.disc} disc for a Disc game.")
            biggest = max(d.size for d in discs)
            if biggest < need:
                return (f"{who + chr(39) + 's' if who else 'Your'} biggest {discs[0].collection} "
                        f"disc holds {biggest} tiles; {player} needs {need}.")
            return None
        have = await tx.scalar(sa.select(sa.func.count()).select_from(TileInstance).where(
            TileInstance.owner_id == account_id, TileInstance.place == "deck")) or 0
        if have < need:
            if who is None:
                return (f"Your deck has {have} tile{'s' if have != 1 else ''}; as {player} you "
                        f"need {need}. (BREAK DISC, INTD, or buy a disc in the tile shop.)")
            return (f"{who}'s deck has {have} tile{'s' if have != 1 else ''}; as {player} "
                    f"{who} needs {need}.")
        return None

    # -- the game's life -------------------------------------------------------------------
    async def on_start(self, ctx: StartContext) -> engine.State:
        game_rules = rules_of(ctx.options)
        decks = []
        for index, seat in enumerate(ctx.seats):
            need = HAND_SIZE[index]
            if seat.computer:
                decks.append(await self._computer_deck(ctx, seat, need, game_rules))
            elif game_rules.disc is not None:
                decks.append(await self._disc_deck(ctx, seat, need, game_rules.disc))
            else:
                account = await ctx.tx.get(Account, seat.account_id)
                sort = (account.settings or {}).get(SORT_SETTING, DEFAULT_SORT)
                deck = await tiles.deck(ctx.tx, seat.account_id, sort)
                if len(deck) < need:
                    raise RuleError(f"{seat.name}'s deck has {len(deck)} tiles; as Player "
                                    f"{index + 1} {seat.name} needs {need}.")
                decks.append([t.tile() for t in deck])
        state = rules.new_game(Options(tuple(map(tuple, decks)), game_rules), ctx.rng)
        for index, seat in enumerate(ctx.seats):
            for held in state.hands[index]:
                if not await tiles.lock(ctx.tx, held.tile.id, seat.account_id, ctx.game_id):
                    raise RuleError(f"Tile #{held.tile.id} is no longer in {seat.name}'s deck; "
                                    "try again.")
        return state

    async def _computer_deck(self, ctx: StartContext, seat: Seat, need: int,
                             game_rules: Rules) -> list:
        if game_rules.disc is not None:
            raise RuleError("The computer does not play Disc games.")
        free = await tiles.deck(ctx.tx, seat.account_id)
        if len(free) < need:  # busy: every tile it has is in play; it takes more from stock
            designs = list(await ctx.tx.scalars(
                sa.select(TileDesign.id).where(TileDesign.id.in_(
                    sa.select(TileInstance.design_id).where(
                        TileInstance.owner_id == seat.account_id)))))
            if not designs:
                designs = list(await ctx.tx.scalars(sa.select(TileDesign.id)))
            if not designs:
                raise RuleError("There are no Triptycha tiles yet: an admin must seed the "
                                "collections (esterport seed).")
            for _ in range(need - len(free)):
                await tiles.mint(ctx.tx, ctx.rng.choice(sorted(designs)), seat.account_id,
                                 reason="computer stock", ref=f"game #{ctx.game_id}")
            free = await tiles.deck(ctx.tx, seat.account_id)
        picked = sorted(ctx.rng.sample(free, min(len(free), COMPUTER_DECK)), key=lambda t: t.id)
        for tile in picked:
            if not await tiles.lock(ctx.tx, tile.id, seat.account_id, ctx.game_id):
                raise RuleError("The computer's tiles moved; try again.")
        return [t.tile() for t in picked]

    async def _disc_deck(self, ctx: StartContext, seat: Seat, need: int, collection: str) -> list:
        discs = await tiles.discs_of(ctx.tx, seat.account_id, collection)
        if not discs:
            raise RuleError(f"{seat.name} has no sealed {collection} disc.")
        disc = max(discs, key=lambda d: (d.size, -d.id))
        if disc.size < need:
            raise RuleError(f"{seat.name}'s biggest {disc.collection} disc holds {disc.size} "
                            f"tiles; a hand needs {need}.")
        ids = await tiles.break_disc(ctx.tx, disc.id, seat.account_id, reason="disc game",
                                     ref=f"game #{ctx.game_id}")
        found = await tiles.views(ctx.tx, TileInstance.id.in_(ids))
        return [t.tile() for t in found]

    async def on_action(self, ctx: ActionContext) -> None:
        for event in ctx.events:
            if isinstance(event, rules.Drew):
                tile = ctx.new_state.hands[event.seat][event.slot - 1].tile
                seat = ctx.seats[event.seat]
                if not await tiles.lock(ctx.tx, tile.id, seat.account_id, ctx.game_id):
                    raise RuleError(f"Tile #{tile.id} ({tile.name}) is no longer in your deck; "
                                    "draw another.")
            elif isinstance(event, rules.Took):
                loser = 1 - event.seat
                if not await tiles.hand_over(ctx.tx, event.tile_id, ctx.seats[loser].account_id,
                                             ctx.seats[event.seat].account_id, ctx.game_id,
                                             "take"):
                    raise RuleError(f"Tile <{event.slot}> cannot be taken: it is not locked "
                                    "in this game.")

    async def on_finish(self, ctx: FinishContext) -> list[str]:
        state = ctx.state
        seats = ctx.seats
        res = rules.result(state)
        taken_ids = set()
        if res is not None:
            loser_hand = state.hands[1 - res.winner]
            taken_ids = {loser_hand[slot - 1].tile.id for slot in state.taken}
        names = {h.tile.id: h.tile.name for hand in state.hands for h in hand}
        lines = []
        for tile_id, frm, to in rules.transfers(state):
            how = "Take" if tile_id in taken_ids else "Plunder"
            if how == "Plunder" and not await tiles.hand_over(
                    ctx.tx, tile_id, seats[frm].account_id, seats[to].account_id, ctx.game_id,
                    "plunder"):
                raise RuntimeError(f"game #{ctx.game_id}: tile #{tile_id} is not locked "
                                   f"to {seats[frm].name}")
            lines.append(f"{how}: tile #{tile_id} ({names.get(tile_id, '?')}) goes from "
                         f"{seats[frm].name} to {seats[to].name}.")
        await tiles.release(ctx.tx, ctx.game_id)
        return lines

    @property
    def seeders(self):  # noqa: ANN201
        """The data files' tile collections and starter set (``SEEDERS``)."""
        return SEEDERS

    async def on_new_account(self, tx, account: Account) -> None:  # noqa: ANN001
        """Every new account gets the starter set."""
        await tiles.grant_starter(tx, account)

    def arm_clock(self, state: engine.State) -> tuple[float, int, rules.Done] | None:
        """While trading, the winner's DONE after ``trade_timeout`` seconds."""
        if state.phase != "trading":
            return None
        return self.trade_timeout, rules.result(state).winner, rules.Done()


# -- data files ----------------------------------------------------------------------------
async def seed_collections(db: Database, accounts: Accounts, entries: Any) -> list[str]:
    """``[[collections]]``: name, description, price (the shop's beginner disc; omit for
    none), disc_size = [min, max], and ``tiles`` = [{name, rarity, corners = [T, BL, BR],
    primary}]. The whole table is checked before anything is written; loading the same
    file again changes nothing."""
    if not isinstance(entries, list):
        raise ValueError("[[collections]] must be a list of tables")
    checked = []
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise ValueError(f"a collection needs a name: {entry!r}")
        label = f"collection {entry['name']!r}"
        unknown = set(entry) - {"name", "description", "price", "disc_size", "tiles"}
        if unknown:
            raise ValueError(f"{label}: unknown key(s) {', '.join(sorted(unknown))}")
        size = entry.get("disc_size", list(tiles.DISC_SIZES))
        if (not isinstance(size, list) or len(size) != 2
                or not all(isinstance(n, int) for n in size)):
            raise ValueError(f"{label}: disc_size is [fewest, most]")
        specs = entry.get("tiles", [])
        if not isinstance(specs, list):
            raise ValueError(f"{label}: tiles is a list of tables")
        try:
            tiles.check_collection(entry["name"], str(entry.get("description", "")),
                                   entry.get("price"), (size[0], size[1]))
            designs = []
            for spec in specs:
                if not isinstance(spec, dict) or not isinstance(spec.get("corners"), list):
                    raise TileError(f"a tile is {{ name, rarity, corners = [T, BL, BR], "
                                    f"primary }}, not {spec!r}")
                corners = tuple(spec["corners"])
                name, rarity = tiles.check_design(str(spec.get("name", "")),
                                                  spec.get("rarity", "common"), corners,
                                                  spec.get("primary"))
                designs.append((name, rarity, corners, spec["primary"]))
        except TileError as err:
            raise ValueError(f"{label}: {err}") from None
        checked.append((entry, (size[0], size[1]), designs))
    service = Tiles(db)
    out = []
    for entry, size, designs in checked:
        coll, changed = await service.create_collection(
            entry["name"], description=str(entry.get("description", "")),
            price=entry.get("price"), disc_size=size)
        made = {"created": 0, "updated": 0, "unchanged": 0}
        for name, rarity, corners, primary in designs:
            _, what = await service.create_design(coll.name, name, rarity, corners, primary)
            made[what] += 1
        if changed or made["created"] or made["updated"]:
            out.append(f"collection {coll.name}: {made['created']} new tile design(s), "
                       f"{made['updated']} updated, {made['unchanged']} unchanged")
    return out


async def seed_tiles(db: Database, accounts: Accounts, table: Any) -> list[str]:
    """``[tiles]``: ``starter`` = design references ("<collection>/<name>", repeat for more
    copies) every new account gets; ``computer`` = collections the computer's deck holds
    ``computer_copies`` (default 1) of every design of, topped up on every load."""
    if not isinstance(table, dict):
        raise ValueError("[tiles] must be a table")
    unknown = set(table) - {"starter", "computer", "computer_copies"}
    if unknown:
        raise ValueError(f"[tiles]: unknown key(s) {', '.join(sorted(unknown))}")
    service = Tiles(db)
    out = []
    try:
        if "starter" in table:
            refs = [str(r) for r in table["starter"]]
            if await service.set_starter(refs):
                out.append(f"starter set: {len(refs)} tiles")
        if "computer" in table:
            computer = await accounts.computer()
            made = await service.stock(computer.id, [str(c) for c in table["computer"]],
                                       int(table.get("computer_copies", 1)))
            if made:
                out.append(f"the computer's deck: {made} tile(s) added")
    except TileError as err:
        raise ValueError(f"[tiles]: {err}") from None
    return out


# What ``server/seeding.py`` loads for Triptycha (the kind's ``seeders``).
SEEDERS = {"collections": seed_collections, "tiles": seed_tiles}


__all__ = ["KEY", "SEEDERS", "Settings", "Triptycha", "seed_collections", "seed_tiles"]
