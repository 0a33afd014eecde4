"""The tile economy and Triptycha's hosting hooks on a real database (SQLite and
PostgreSQL): seeding, the starter set, the shop, discs, deck and inventory, gifts, and
games that lock, plunder, take and release tiles, checked by the tile audit."""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
import textwrap

import attrs
import pytest
import sqlalchemy as sa

from commands.app import assemble
from games.errors import RuleError
from games.triptycha import notation, rules
from server.app import Parlor
from server.hosting import Seat
from server.models import Account
from server.services.triptycha_models import TileCollection, TileDesign, TileInstance, TileMove
from server.services import ledger
from server.services.tiles import TileError, Tiles
from tests.conftest import make_config

# A small collection whose tiles read the same in every orientation (all corners equal),
# so a test can predict every battle: the edge score is 2*corner + primary.
PROVING = textwrap.dedent("""
    [[collections]]
    name = "Proving"
    description = "Plain tiles for tests."
    price = 100
    disc_size = [5, 8]
    tiles = [
      { name = "a reed tile of the Proving", rarity = "common", corners = [1, 1, 1], primary = 0 },
      { name = "a chalk tile of the Proving", rarity = "common", corners = [1, 1, 1], primary = 1 },
      { name = "a clay tile of the Proving", rarity = "common", corners = [2, 2, 2], primary = 2 },
      { name = "a stone tile of the Proving", rarity = "common", corners = [3, 3, 3], primary = 3 },
      { name = "an iron tile of the Proving", rarity = "uncommon", corners = [5, 5, 5], primary = 5 },
      { name = "a steel tile of the Proving", rarity = "rare", corners = [7, 7, 7], primary = 7 },
      { name = "a brass tile of the Proving", rarity = "legendary", corners = [8, 8, 8], primary = 8 },
    ]

    [[collections]]
    name = "Second Sight"
    price = 60
    disc_size = [5, 6]
    tiles = [
      { name = "a blue tile of Second Sight", rarity = "common", corners = [4, 2, 6], primary = 3 },
      { name = "a green tile of Second Sight", rarity = "common", corners = [6, 1, 3], primary = 5 },
      { name = "a gold tile of Second Sight", rarity = "rare", corners = [9, 4, 7], primary = 6 },
    ]

    [tiles]
    starter = [
      "Proving/a stone tile of the Proving", "Proving/a stone tile of the Proving",
      "Proving/a clay tile of the Proving", "Proving/an iron tile of the Proving",
      "Second Sight/a blue tile of Second Sight", "Second Sight/a green tile of Second Sight",
    ]
    computer = ["Proving"]
    computer_copies = 2
""")

#: The chain game: decks (in draw order) and the lays after which Alice has flipped
#: niche 6 with her brass tile in 7, and niche 6 (at depth 1) has flipped niche 5.
CHAIN_ALICE = ["a stone", "a stone", "a brass", "a steel", "a steel"]
CHAIN_BOB = ["a clay", "an iron", "a chalk", "a chalk", "a reed", "a reed"]
CHAIN_MOVES = [(0, "LAY 1 IN 1"), (1, "LAY 1 IN 5"), (0, "LAY 2 IN 9"), (1, "FLIP 2"),
               (1, "LAY 2 IN 6"), (0, "LAY 3 IN 7"), (1, "LAY 3 IN 2"), (0, "FLIP 4"),
               (0, "LAY 4 IN 3"), (1, "FLIP 4"), (1, "LAY 4 IN 8"), (0, "LAY 5 IN 4")]


def proving(name: str) -> str:
    return f"Proving/{name} tile of the Proving"


async def make_parlor(url: str, tmp_path, **games) -> Parlor:
    """A parlor on ``url`` (not listening), migrated and seeded with PROVING."""
    config = make_config(url)
    if games:
        config = attrs.evolve(config, games=attrs.evolve(config.games, **games))
    parlor = assemble(config)
    await parlor.db.migrate()
    path = tmp_path / "proving.toml"
    path.write_text(PROVING)
    await parlor.seed([path])
    return parlor


@pytest.fixture
async def parlor(db_url, tmp_path):
    p = await make_parlor(db_url, tmp_path)
    yield p
    await p.host.close()
    await p.db.close()


async def player(parlor: Parlor, name: str, deck: list[str] | None = None) -> Account:
    """An account; with ``deck`` its starter set is moved out and exactly those tiles given."""
    account = await parlor.accounts.create(name, "secret")
    if deck is not None:
        service = Tiles(parlor.db)
        for tile in await service.deck(account.id):
            await service.move_own(account.id, tile.id, "deck", "inventory")
        for design in deck:
            await service.grant_tiles(account.id, proving(design))
    return account


async def places(parlor: Parlor, account_id: int) -> dict[int, str]:
    async with parlor.db.session() as tx:
        rows = await tx.execute(sa.select(TileInstance.id, TileInstance.place)
                                .where(TileInstance.owner_id == account_id))
        return dict(rows.all())


async def audit_clean(parlor: Parlor) -> None:
    problems = await Tiles(parlor.db).audit()
    assert problems == []
    async with parlor.db.session() as tx:
        assert await ledger.audit(tx) == []


# -- seeding -------------------------------------------------------------------------------
async def test_default_collections_load_and_load_again_changes_nothing(db_url):
    parlor = assemble(make_config(db_url))
    await parlor.db.migrate()
    try:
        first = await parlor.seed()
        assert any("starter set" in line for line in first)
        again = await parlor.seed()
        assert all(line.startswith("loaded ") for line in again), again
        async with parlor.db.session() as tx:
            collections = list(await tx.scalars(sa.select(TileCollection)))
            designs = list(await tx.scalars(sa.select(TileDesign)))
        assert len(collections) >= 3 and len(designs) >= 40
        assert sum(c.price is not None for c in collections) >= 2
        assert all(" tile of " in d.name for d in designs)
        assert any(d.name == "a brass tile of the Endless" for d in designs)
        for rarity in ("common", "uncommon", "rare", "legendary"):
            assert any(d.rarity == rarity for d in designs)
        computer = await parlor.accounts.computer()
        assert len(await places(parlor, computer.id)) == len(designs)  # one of every design
        alice = await parlor.accounts.create("Alice", "secret")
        assert len(await Tiles(parlor.db).deck(alice.id)) == 10       # the starter set
        await audit_clean(parlor)
    finally:
        await parlor.db.close()


def test_esterport_seed_on_the_command_line(tmp_path):
    (tmp_path / "proving.toml").write_text(PROVING)
    (tmp_path / "bad.toml").write_text(PROVING.replace('rarity = "rare"', 'rarity = "shiny"'))
    env = dict(os.environ, ESTERPORT_DATABASE_URL="")
    config = tmp_path / "config.toml"
    config.write_text(f'[database]\nurl = "sqlite+aiosqlite:///{tmp_path}/e.db"\n')
    seed = [sys.executable, "-m", "commands.app", "seed", "--config", str(config)]
    done = subprocess.run([*seed, str(tmp_path / "proving.toml")], capture_output=True,
                          text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert "collection Proving: 7 new tile design(s)" in done.stdout
    assert "the computer's deck: 14 tile(s) added" in done.stdout
    # again (nothing new), then a bad file: refused with its reason
    done = subprocess.run([*seed, str(tmp_path / "proving.toml"), str(tmp_path / "bad.toml")],
                          capture_output=True, text=True, env=env)
    assert "new tile design" not in done.stdout
    assert done.returncode == 1 and "Rarity is one of" in done.stderr


async def test_bad_designs_and_data_files_are_refused(parlor, tmp_path):
    service = Tiles(parlor.db)
    with pytest.raises(TileError, match="0 to 10"):
        await service.create_design("Proving", "a hot tile", "common", (11, 1, 1), 1)
    with pytest.raises(TileError, match="without '/'"):
        await service.create_design("Proving", "a/b", "common", (1, 1, 1), 1)
    with pytest.raises(TileError, match="no collection"):
        await service.create_design("Nowhere", "a tile", "common", (1, 1, 1), 1)
    with pytest.raises(TileError, match="within 5..15"):
        await service.create_collection("Huge", disc_size=(5, 40))
    bad = tmp_path / "bad.toml"
    bad.write_text('[tiles]\nstarter = ["Proving/a missing tile"]\n')
    with pytest.raises(ValueError, match="no tile"):
        await parlor.seed([bad])
    before = [(c.name, n) for c, n in await service.collections()]
    bad.write_text(PROVING.replace("[8, 8, 8], primary = 8", "[8, 8, 8], primary = 18")
                   .replace('name = "Proving"', 'name = "Proving Two"'))
    with pytest.raises(ValueError, match="Proving Two.*each 0 to 10"):
        await parlor.seed([bad])
    assert [(c.name, n) for c, n in await service.collections()] == before  # nothing written
    design, what = await service.create_design("Proving", "a \x1b[31mred\x1b[0m tile",
                                               "rare", (1, 2, 3), 4)
    assert design.name == "a red tile" and what == "created"


# -- the shop, discs, deck, inventory, gifts -----------------------------------------------
async def test_buy_break_out_in_and_give(parlor):
    service = Tiles(parlor.db, random.Random(5))
    alice = await player(parlor, "Alice")
    bob = await player(parlor, "Bob")
    assert [c.name for c, _ in await service.shop()] == ["Second Sight", "Proving"]

    disc, price, balance = await service.buy(alice.id, "proving")
    assert (price, balance) == (100, 900) and 5 <= disc.size <= 8
    got = await places(parlor, alice.id)
    assert list(got.values()).count("disc") == disc.size
    async with parlor.db.session() as tx:
        reasons = list(await tx.scalars(sa.select(TileMove.reason).where(
            TileMove.to_owner == alice.id, TileMove.to_place == "disc")))
    assert reasons == ["tile shop"] * disc.size
    await audit_clean(parlor)

    opened, out = await service.break_disc(alice.id, disc.id)
    assert len(out) == disc.size and all(t.place == "deck" for t in out)
    with pytest.raises(TileError, match="no sealed disc"):
        await service.break_disc(alice.id, disc.id)

    tile = out[0]
    with pytest.raises(TileError, match="only tiles in your inventory"):
        await service.give_tile(alice.id, tile.id, bob.id)
    await service.move_own(alice.id, tile.id, "deck", "inventory")
    with pytest.raises(TileError, match="not in your deck"):
        await service.move_own(alice.id, tile.id, "deck", "inventory")
    given = await service.give_tile(alice.id, tile.id, bob.id)
    assert given.owner_id == bob.id
    with pytest.raises(TileError, match="You have no tile"):
        await service.move_own(alice.id, tile.id, "inventory", "deck")
    await service.move_own(bob.id, tile.id, "inventory", "deck")

    disc2, _, _ = await service.buy(alice.id, "Second")
    await service.give_disc(alice.id, disc2.id, bob.id)
    assert (await service.inventory(bob.id))[1][0].id == disc2.id
    with pytest.raises(TileError):
        await service.give_disc(alice.id, disc2.id, bob.id)
    await audit_clean(parlor)

    broke = await player(parlor, "Broke")
    async with parlor.db.session() as tx:
        await ledger.move(tx, broke.id, -950, "test")
        await tx.commit()
    before = await places(parlor, broke.id)
    with pytest.raises(TileError, match="costs 100 cubits; you have 50"):
        await service.buy(broke.id, "Proving")
    assert await places(parlor, broke.id) == before
    with pytest.raises(TileError, match="sells no"):
        await service.buy(alice.id, "Nowhere")
    await audit_clean(parlor)


async def test_two_buys_racing_for_the_last_cubits_make_one_disc(parlor):
    service = Tiles(parlor.db)
    alice = await player(parlor, "Alice")
    async with parlor.db.session() as tx:
        await ledger.move(tx, alice.id, -850, "test")   # 150 left: one Proving disc
        await tx.commit()

    async def buy() -> bool:
        try:
            await service.buy(alice.id, "Proving")
            return True
        except TileError:
            return False
        except sa.exc.OperationalError:   # SQLite: the loser may time out on the lock
            return False

    results = await asyncio.gather(buy(), buy())
    assert sorted(results) == [False, True]
    assert len((await service.inventory(alice.id))[1]) == 1
    assert (await parlor.accounts.get("Alice")).cubits == 50
    await audit_clean(parlor)


# -- games ---------------------------------------------------------------------------------
async def test_a_challenge_is_refused_when_a_deck_or_disc_is_too_small(parlor):
    kind = parlor.host.kinds["tt"]
    alice = await player(parlor, "Alice", ["a stone"] * 4)
    bob = await player(parlor, "Bob", ["a stone"] * 5)
    seats = (Seat(alice.id, "Alice"), Seat(bob.id, "Bob"))
    plain = kind.spec.parse_options([])
    assert "Your deck has 4 tiles; as Player 1 you need 5" in await kind.check_offer(*seats, plain)
    await Tiles(parlor.db).grant_tiles(alice.id, proving("a stone"))
    assert await kind.check_offer(*seats, plain) == "Bob's deck has 5 tiles; as Player 2 Bob needs 6."
    await Tiles(parlor.db).grant_tiles(bob.id, proving("a stone"))
    assert await kind.check_offer(*seats, plain) is None
    disc = kind.spec.parse_options(["disc", "proving"])
    assert "You have no sealed proving disc" in await kind.check_offer(*seats, disc)
    assert "no tile collection called 'Atlantis'" in await kind.check_offer(
        *seats, kind.spec.parse_options(["disc", "Atlantis"]))
    await Tiles(parlor.db).grant_disc(alice.id, "Proving", size=5)
    await Tiles(parlor.db).grant_disc(bob.id, "Proving", size=5)
    assert "Bob's biggest Proving disc holds 5 tiles; Player 2 needs 6" in await kind.check_offer(
        *seats, disc)
    with pytest.raises(RuleError, match="needs 6"):
        await parlor.host.start_game("tt", seats, disc)
    assert parlor.host.live == {}
    await audit_clean(parlor)


async def play(parlor: Parlor, game, accounts, moves) -> None:
    for seat, text in moves:
        await parlor.host.act_text(accounts[seat].id, "tt", text)


async def test_draw_locks_tiles_and_the_winner_takes_one(parlor):
    service = Tiles(parlor.db)
    alice = await player(parlor, "Alice", CHAIN_ALICE + ["a reed"])
    bob = await player(parlor, "Bob", CHAIN_BOB)
    accounts = (alice, bob)
    options = parlor.host.kinds["tt"].spec.parse_options(["Take", "1", "Ranked"])
    game = await parlor.host.start_game("tt", (Seat(alice.id, "Alice"), Seat(bob.id, "Bob")),
                                        options)
    assert game.ranked and game.state.phase == "draw"
    assert set((await places(parlor, alice.id)).values()) <= {"deck", "inventory"}
    await play(parlor, game, accounts, [(0, f"DRAW {i}") for i in range(1, 6)])
    assert list((await places(parlor, alice.id)).values()).count("game") == 5
    spare = (await service.deck(alice.id))[0]
    assert spare.name == "a reed tile of the Proving"   # the sixth tile stays free
    locked = next(t for t in await service.owned(alice.id, ("game",)))
    with pytest.raises(TileError, match=f"in play in game #{game.id}"):
        await service.move_own(alice.id, locked.id, "deck", "inventory")
    await play(parlor, game, accounts, [(1, f"DRAW {i}") for i in range(1, 7)])
    await audit_clean(parlor)

    events = []
    parlor.bus.subscribe(f"game:{game.id}", lambda topic, event: events.append(event))
    await play(parlor, game, accounts, CHAIN_MOVES)
    lines = [line for e in events for line in e.data["lines"]]
    # the lay and the battles it started are one line (one announcement per action)
    assert ("Alice lays tile 3 in niche 7. Niche 7 takes 6 (24 to 15). Niche 6 takes 5 "
            "(13 to 6).") in lines  # depth 2
    assert game.state.phase == "trading" and game.outcome is None
    await audit_clean(parlor)

    clay = game.state.hands[1][0].tile
    await parlor.host.act_text(alice.id, "tt", "TAKE 1")
    assert game.outcome is not None and game.outcome.winner == 0
    assert f"Take: tile #{clay.id} (a clay tile of the Proving) goes from Bob to Alice." in \
        events[-1].data["lines"]
    assert (await service.tile(clay.id)).owner_id == alice.id
    assert set((await places(parlor, alice.id)).values()) == {"deck", "inventory"}
    assert len([p for p in (await places(parlor, alice.id)).values() if p == "deck"]) == 7
    assert len(await places(parlor, bob.id)) == 5 + 6   # 6 starter tiles in the inventory
    ratings = [await parlor.ratings.get(a.id, "tt") for a in accounts]
    assert ratings[0].ranked_wins == 1 and ratings[1].ranked_losses == 1
    assert ratings[0].rating > 1500 > ratings[1].rating
    await audit_clean(parlor)


async def test_plunder_after_resignation_and_a_refused_draw(parlor):
    service = Tiles(parlor.db)
    alice = await player(parlor, "Alice", CHAIN_ALICE)
    bob = await player(parlor, "Bob", CHAIN_BOB)
    accounts = (alice, bob)
    options = parlor.host.kinds["tt"].spec.parse_options(["Plunder", "Take", "2"])
    game = await parlor.host.start_game("tt", (Seat(alice.id, "Alice"), Seat(bob.id, "Bob")),
                                        options)
    # Bob moves a deck tile away during the draw: drawing it is refused, nothing changes
    gone = game.state.decks[1][5]
    await service.move_own(bob.id, gone.id, "deck", "inventory")
    await play(parlor, game, accounts, [(0, f"DRAW {i}") for i in range(1, 6)])
    await play(parlor, game, accounts, [(1, f"DRAW {i}") for i in range(1, 5)])
    version = game.version
    with pytest.raises(RuleError, match="no longer in your deck"):
        await parlor.host.act_text(bob.id, "tt", "DRAW 6")
    assert game.version == version and (await service.tile(gone.id)).place == "inventory"
    await service.move_own(bob.id, gone.id, "inventory", "deck")
    await play(parlor, game, accounts, [(1, "DRAW 5"), (1, "DRAW 6")])
    await play(parlor, game, accounts, CHAIN_MOVES[:6])     # Alice holds 1, 9, 7, 6, 5
    await parlor.host.resign(alice.id, "tt")                # ... and resigns: Bob wins
    assert game.state.phase == "trading"
    # Plunder: Alice keeps Bob's clay (5) and iron (6); Bob keeps nothing of hers
    clay, iron = (h.tile.id for h in game.state.hands[1][:2])
    assert {(t, f, to) for t, f, to in rules.plundered(game.state)} == {(clay, 1, 0), (iron, 1, 0)}
    await parlor.host.act_text(bob.id, "tt", "TAKE 3")           # Alice's brass, on the board
    await parlor.host.act_text(bob.id, "tt", "DONE")
    assert game.outcome.winner == 1
    assert (await service.tile(clay)).owner_id == alice.id
    assert (await service.tile(iron)).owner_id == alice.id
    brass = game.state.hands[0][2].tile.id
    assert (await service.tile(brass)).owner_id == bob.id
    assert all(place == "deck" for place in (await places(parlor, alice.id)).values()
               if place != "inventory")
    await audit_clean(parlor)


async def test_a_disc_game_breaks_both_discs(parlor):
    service = Tiles(parlor.db)
    alice = await player(parlor, "Alice", [])
    bob = await player(parlor, "Bob", [])
    d1 = await service.grant_disc(alice.id, "Proving", size=7)
    d2 = await service.grant_disc(bob.id, "Proving", size=8)
    kind = parlor.host.kinds["tt"]
    options = kind.spec.parse_options(["Disc", "Proving"])
    seats = (Seat(alice.id, "Alice"), Seat(bob.id, "Bob"))
    assert await kind.check_offer(*seats, options) is None
    game = await parlor.host.start_game("tt", seats, options)
    assert game.state.phase == "play"                      # hands dealt from the discs
    assert [len(d) for d in game.state.decks] == [7, 8]
    assert (await service.inventory(alice.id))[1] == []
    a = await places(parlor, alice.id)
    assert list(a.values()).count("game") == 5 and list(a.values()).count("deck") == 2
    assert {t.id for t in game.state.decks[0]} <= set(a)
    assert d1.id != d2.id
    await parlor.host.resign(bob.id, "tt")
    assert game.outcome.winner == 0
    assert list((await places(parlor, alice.id)).values()).count("deck") == 7
    await audit_clean(parlor)


async def test_the_computer_plays_from_its_own_tiles(parlor):
    alice = await player(parlor, "Alice")
    computer = await parlor.accounts.computer()
    mine = set(await places(parlor, computer.id))
    assert len(mine) == 14                                  # 2 x 7 Proving designs
    game = await parlor.host.start_game(
        "tt", (Seat(alice.id, "Alice"), Seat(computer.id, "Computer(normal)", "normal")),
        parlor.host.kinds["tt"].spec.parse_options(["Random", "Plunder"]))
    theirs = {h.tile.id for h in game.state.hands[1]}
    assert theirs <= mine
    assert list((await places(parlor, computer.id)).values()).count("game") == 9
    rng = random.Random(1)
    for _ in range(200):
        if game.outcome is not None:
            break
        if game.kind.spec.to_move(game.state) == (0,):
            lays = [a for a in rules.legal_actions(game.state, 0) if isinstance(a, rules.Lay)]
            flips = [a for a in rules.legal_actions(game.state, 0) if isinstance(a, rules.Flip)]
            await parlor.host.act_text(alice.id, "tt",
                                  notation.format_action(rng.choice(lays or flips)))
        else:
            await asyncio.sleep(0.02)
    assert game.outcome is not None
    assert set((await places(parlor, computer.id)).values()) == {"deck"}
    assert len(await places(parlor, computer.id)) + len(await places(parlor, alice.id)) == 14 + 6
    await audit_clean(parlor)


async def test_a_busy_computer_takes_more_tiles_from_stock(parlor):
    computer = await parlor.accounts.computer()
    players = [await player(parlor, f"Player{i}") for i in range(3)]
    started = []
    for p in players:  # 3 games x 9 tiles > the 14 it owns
        started.append(await parlor.host.start_game(
            "tt", (Seat(p.id, p.name), Seat(computer.id, "Computer(easy)", "easy")),
            parlor.host.kinds["tt"].spec.parse_options(["Random"])))
    assert len(await places(parlor, computer.id)) >= 6 * 3
    for p in players:
        await parlor.host.resign(p.id, "tt")
    await audit_clean(parlor)
    assert all(g.outcome is not None for g in started)


async def traded_out(parlor: Parlor, game, loser: Account) -> None:  # noqa: ANN001
    """Until the trading phase of ``game`` ends on its clock (bounded): seat 0 won, the
    last move is the DONE the clock typed, and the loser's tiles are home."""
    for _ in range(200):
        if game.outcome is not None:
            break
        await asyncio.sleep(0.02)
    assert game.outcome is not None and game.outcome.winner == 0
    _, moves = await parlor.host.replay(game.id)
    assert moves[-1].notation == "DONE"
    assert set((await places(parlor, loser.id)).values()) == {"deck", "inventory"}
    await audit_clean(parlor)


async def test_trading_times_out_and_survives_a_restart(db_url, tmp_path):
    parlor = await make_parlor(db_url, tmp_path, own={"tt": {"trade_timeout": 1}})
    alice = await player(parlor, "Alice", CHAIN_ALICE)
    bob = await player(parlor, "Bob", CHAIN_BOB)
    game = await parlor.host.start_game(
        "tt", (Seat(alice.id, "Alice"), Seat(bob.id, "Bob")),
        parlor.host.kinds["tt"].spec.parse_options(["Random", "Take", "2"]))
    await parlor.host.resign(bob.id, "tt")
    assert game.state.phase == "trading"
    await parlor.host.close()          # "crash": the clock dies with the process
    await parlor.db.close()

    parlor = assemble(attrs.evolve(make_config(db_url),
                                 games=attrs.evolve(make_config(db_url).games,
                                                    own={"tt": {"trade_timeout": 1}})))
    try:
        assert await parlor.host.restore() == 1
        restored = parlor.host.get_live(game.id)
        assert restored.state.phase == "trading"
        await audit_clean(parlor)
        await traded_out(parlor, restored, bob)
    finally:
        await parlor.host.close()
        await parlor.db.close()


async def test_triptycha_by_correspondence_trades_on_its_days(db_url, tmp_path):
    """A Triptycha game by correspondence (``TT CHALLENGE <person> DAYS <n>``): offered to
    a player who is not connected, its tiles locked like any game's; its trading phase
    ends on its days, not on ``trade_timeout``, as if the winner had typed DONE."""
    parlor = await make_parlor(db_url, tmp_path, own={"tt": {"trade_timeout": 0.2}},
                               correspondence_day=3600.0)
    try:
        alice = await player(parlor, "Alice", CHAIN_ALICE)
        bob = await player(parlor, "Bob", CHAIN_BOB)
        host, kind = parlor.host, parlor.host.kinds["tt"]
        options = {**kind.spec.parse_options(["Random", "Take", "2"]), "days": 2}
        offer = await host.offer("tt", Seat(alice.id, "Alice"), "Bob", options)
        assert "2 days a move" in offer.describe()
        game = await host.accept("tt", Seat(bob.id, "Bob"), "alice")
        assert game.days == 2
        assert list((await places(parlor, alice.id)).values()).count("game") == 5
        await host.act_for(game.id, 1, kind.resign_action)
        host.turns.schedule(game)
        assert game.state.phase == "trading" and game.outcome is None
        await asyncio.sleep(0.6)   # three times the trade timeout of a game at a sitting
        assert game.outcome is None
        letters = await host.correspondence.letters(alice.id)
        assert [(g.game, g.mine) for g in letters] == [(game.id, True)]   # hers to trade
        host.correspondence.day = 0.001   # now her days run out
        host.turns.schedule(game)
        await traded_out(parlor, game, bob)
    finally:
        await parlor.host.close()
        await parlor.db.close()
