"""Triptycha end to end: real telnet clients on a real server.

The decks are controlled (tiles of the test collection "Proving" granted through the tiles
service), so every lay and battle of the chain game is known in advance."""

from __future__ import annotations

import asyncio
import random
import re


from games.triptycha import notation, rules
from server.services.tiles import Tiles
from tests.integration.test_tiles import CHAIN_ALICE, CHAIN_BOB, CHAIN_MOVES, PROVING, proving
from tests.support.client import ANSI, Client

COLLECTIONS = PROVING.split("[tiles]")[0]   # the collections, without a starter set


async def seed(parlor, tmp_path, text: str = COLLECTIONS) -> None:
    path = tmp_path / "proving.toml"
    path.write_text(text)
    await parlor.seed([path])


async def give_deck(parlor, name: str, designs: list[str]) -> None:
    account = await parlor.accounts.get(name)
    service = Tiles(parlor.db)
    for design in designs:
        await service.grant_tiles(account.id, proving(design))


async def start(alice: Client, bob: Client, rules_words: str) -> int:
    await alice.cmd(f"tt challenge bob {rules_words}", "You challenge Bob to Triptycha")
    await bob.expect(f"Alice challenges you to Triptycha \\({rules_words}\\)")
    bob.send("tt accept alice")
    out = await alice.expect(r"Game #(\d+): Triptycha, Alice vs Bob begins")
    await bob.expect("begins")
    return int(re.search(r"Game #(\d+)", out).group(1))


async def raw_cmd(client: Client, line: str, until: str, timeout: float = 5.0) -> str:
    """Send a line; return the bytes as received (colour codes and all) up to the prompt
    after ``until``."""
    client.buffer = ""
    client.send(line)
    raw = ""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not re.search(re.escape(until) + "(.|\n)*?\n> ", ANSI.sub("", raw)):
        raw += await asyncio.wait_for(client.reader.read(65536), deadline - loop.time())
    return raw


def announced(name: str, text: str) -> str:
    """The one line that tells ``name``'s move ``text`` (notation: ``LAY 1 IN 5``,
    ``FLIP 2``, ``ROTATE 3``, ``DRAW 4``, ``TAKE 1``) to everyone (docs/design.md,
    Screens, 3)."""
    words = text.upper().replace("TT ", "").split()
    verb, n = words[0], words[1]
    if verb == "LAY":
        return f"{name} lays tile {n} in niche {words[-1]}"
    return f"{name} {dict(FLIP='flips', ROTATE='rotates', TAKE='takes')[verb]} tile {n}"


def lay_lines(moves) -> list[tuple[int, str]]:
    return [(seat, f"tt {text.lower()}") for seat, text in moves]


async def test_ranked_take_game_with_a_chain_watched_by_a_third_player(parlor, clients, tmp_path):
    await seed(parlor, tmp_path)
    alice = await clients("Alice")
    bob = await (await Client.connect_mud(parlor.port, cols=100)).create("Bob")
    carol = await clients("Carol")
    await give_deck(parlor, "Alice", CHAIN_ALICE)
    await give_deck(parlor, "Bob", CHAIN_BOB)
    try:
        await alice.cmd("tt challenge bob Take 1 Ranked Sideways", "Unknown rule 'Sideways'")
        number = await start(alice, bob, "Take 1 Ranked")
        await carol.cmd("tt games", f"#{number} +Triptycha +Alice vs Bob")
        await carol.cmd(f"tt display {number}", "You are now watching game #\\d+")
        out = await carol.expect("Drawing: Alice 0/5, Bob 0/6")

        # the draw phase: each draws from the deck listing
        out = await alice.cmd("tt", r"\(\* = in your hand")
        assert "Your deck (TT DRAW <tile>):" in out and "=32 a brass tile" in out
        await alice.cmd("tt draw 9", "Your deck has no tile 9")
        await alice.cmd("tt draw", "Usage: TT DRAW <tile>")
        for i in range(1, 6):
            await alice.cmd(f"tt draw {i}", f"Alice draws tile {i}")
        await alice.cmd("tt draw 1", "Your hand is full")
        for i in range(1, 7):
            await bob.cmd(f"tt draw {i}", f"Bob draws tile {i}")
        await carol.expect("The hands are full; Alice lays first")
        out = await alice.expect("Your turn: TT LAY(.|\n)*?Your hand:(.|\n)*?Sum: 32")
        assert "<1>" in out and "<5>" in out

        await bob.cmd("tt lay 1 in 5", "It is not your turn")
        await alice.cmd("tt lay 1", "Usage: TT LAY <tile> \\[IN\\] <niche>")
        await alice.cmd("tt lay 1 in 3", "points up and niche 3 points down: TT FLIP 1 first")
        # the whole game; carol watches every move
        for seat, line in lay_lines(CHAIN_MOVES):
            me = alice if seat == 0 else bob
            await me.cmd(line, announced(me.name, line))
        await carol.expect("Niche 7 takes 6 \\(24 to 15\\)\\.")
        await carol.expect("Niche 6 takes 5 \\(13 to 6\\)\\.")
        await alice.expect("Play ends: Alice holds 9 niches to 0\\.")
        out = await alice.expect("Trading: Alice may take 1 tile")

        # trading: the winner sees the loser's hand and takes one tile
        await bob.cmd("tt view opponent", "only in a Truth game, or as the winner")
        out = await alice.cmd("tt view opponent", "Bob's hand:(.|\n)*?\n> ")
        assert "Sum: 8" in out and "Sum: 20" in out
        await bob.cmd("tt take 1", "Only the winner takes tiles")
        await alice.cmd("tt take", "Usage: TT TAKE <number>")
        await alice.cmd("tt take 1", "Alice takes tile 1")
        await alice.expect(f"Game #{number}: Alice wins \\(more niches\\)")
        await alice.expect("Take: tile #\\d+ \\(a clay tile of the Proving\\) goes from Bob "
                           "to Alice")
        await alice.expect("Alice's Triptycha rating: 1500 -> 1[6-9]\\d\\d")
        await bob.expect("Bob's Triptycha rating: 1500 -> 1[0-4]\\d\\d")
        await carol.expect("Alice's Triptycha rating")

        # carol saw the whole game, move by move
        seen = carol.seen
        for text in ["Bob draws tile 6", "The hands are full",
                     announced("Alice", "LAY 1 IN 1"),
                     announced("Bob", "LAY 2 IN 6"), announced("Alice", "LAY 5 IN 4"),
                     announced("Alice", "TAKE 1"), f"Game #{number}: Alice wins"]:
            assert text in seen, text
        # a player's hidden actions (a draw, a tile turned in hand) are nothing to a
        # watcher (docs/design.md, Screens, 4); the draw that fills the hands starts play,
        # and is told
        for text in ["Alice draws tile 1", announced("Bob", "FLIP 2")]:
            assert text not in seen, text
        assert "Alice: LAY" not in seen and "Bob: FLIP" not in seen  # told once, not twice
        assert seen.index(announced("Alice", "LAY 3 IN 7")) < seen.index(
            "Niche 6 takes 5")
        assert "Your hand:" not in seen                         # a watcher sees no hand

        out = await alice.cmd("itd", "ITD\\s+HELP\\)")
        assert "a clay tile of the Proving" in out and "Your deck: 6 tiles" in out
        out = await bob.cmd("itd", "ITD\\s+HELP\\)")
        assert "Your deck: 5 tiles" in out
        out = await carol.cmd("tt status alice", "Unranked")
        assert "Ranked: 1 won, 0 lost" in out
        out = await carol.cmd("tt rankings", "Triptycha rankings(.|\n)*?\r?\n> ")
        assert out.index("Alice") < out.index("Bob")

        # GMCP: every change, Bob's own hand and never Alice's
        games = [d for p, d in bob.gmcp if p == "Triptycha.Game"]
        assert len(games) > 20 and all(d["game"] == number for d in games)
        playing = [d["view"] for d in games if d["view"]["phase"] == "play"]
        assert playing and all(v["hands"][1] is not None and v["hands"][0] is None
                               for v in playing)
        assert games[-1]["finished"] and games[-1]["view"]["board"][4]["controller"] == 0
    finally:
        await bob.close()


async def test_a_player_drops_mid_game_and_comes_back_to_finish(parlor, clients, tmp_path):
    await seed(parlor, tmp_path)
    alice = await clients("Alice")
    bob = await clients("Bob")
    await give_deck(parlor, "Alice", CHAIN_ALICE)
    await give_deck(parlor, "Bob", CHAIN_BOB)
    number = await start(alice, bob, "Plunder")
    for i in range(1, 6):
        await alice.cmd(f"tt draw {i}", f"Alice draws tile {i}")
    for i in range(1, 7):
        await bob.cmd(f"tt draw {i}", f"Bob draws tile {i}")
    moves = lay_lines(CHAIN_MOVES)
    for seat, line in moves[:5]:
        me = alice if seat == 0 else bob
        await me.cmd(line, announced(me.name, line))
    await bob.close()
    await alice.expect(f"Bob has disconnected from game #{number}")
    await alice.cmd("tt lay 3 in 7", announced("Alice", "LAY 3 IN 7"))      # the game goes on meanwhile
    bob = await clients()
    await bob.login("Bob")
    out = await bob.expect("You have a game in progress(.|\n)*?Your hand:(.|\n)*?\r?\n> ")
    assert "Your turn: TT LAY" in out
    await alice.expect("Bob is back in game")
    for seat, line in moves[6:]:
        me = alice if seat == 0 else bob
        await me.cmd(line, announced(me.name, line))
    await bob.expect(f"Game #{number}: Alice wins \\(more niches\\)")
    await alice.expect("Plunder: tile #\\d+ \\(a clay tile of the Proving\\) goes from Bob to "
                       "Alice")
    out = await alice.cmd("itd", "ITD\\s+HELP\\)")
    assert "Your deck: 9 tiles" in out        # her 5 and Bob's 4 laid tiles, all plundered
    assert parlor.host.live == {}


async def test_tiles_the_shop_and_wrong_uses(parlor, clients, tmp_path):
    await seed(parlor, tmp_path, PROVING)      # with the starter set
    alice = await clients("Alice")
    bob = await clients("Bob")
    out = await alice.cmd("itd", "ITD\\s+HELP\\)")
    assert "Your deck: 6 tiles, sorted by id." in out and "a stone tile of the Proving" in out
    assert "0 in your inventory, 0 sealed discs" in out
    for line, usage in [("itd sideways", "ITD \\[SORT"), ("itd sort sideways", "ITD SORT ID"),
                        ("itd show", "ITD SHOW <tile>"), ("intd", "INTD <tile>"),
                        ("outtd", "OUTTD <tile>"), ("give", "GIVE <tile>"),
                        ("give 3", "GIVE <tile>"), ("break", "BREAK DISC"),
                        ("break glass", "BREAK DISC"), ("buy", "BUY <number>"),
                        ("list 2", "LIST"), ("tt view", "TT VIEW OPPONENT"),
                        ("tt inspect 1 2", "TT INSPECT"), ("tt display 1 2", "TT DISPLAY"),
                        ("tt challenge", "TT CHALLENGE <person>"), ("tt status a b",
                                                                     "TT STATUS"),
                        ("tt games x", "TT GAMES"),
                        ("tt rotate", "TT ROTATE <tile>"), ("tt flip x", "TT FLIP <tile>"),
                        ("tt done now", "TT DONE"), ("tt resign now", "TT RESIGN")]:
        await alice.cmd(line, f"Usage: {usage}")
    await alice.cmd("tt rankings x", "RANKINGS TT CORR ranks the correspondence games of "
                                     "Triptycha")   # (it is played by correspondence too)
    await alice.cmd("tt display", "TT DISPLAY <game> watches a game")
    await alice.cmd("tt lay 1 in 2", "You are not playing Triptycha")
    out = await alice.cmd("itd sort sum", "ITD\\s+HELP\\)")
    assert out.index("an iron tile") < out.index("a stone tile") < out.index("a clay tile")
    out = await alice.cmd("itd show iron", "sum\\s+20\\.")
    assert "<" in out and "Sum: 20" in out and "Proving collection, uncommon; in your deck" in out
    await alice.cmd("itd show stone", "sum\\s+12\\.")          # two alike: either is the same design
    await alice.cmd("itd show #999", "You have no tile #999")
    await alice.cmd("outtd nothing", "You have no tile called 'nothing' in your deck")
    out = await alice.cmd("outtd iron", "it is in your inventory")
    tile = re.search(r"#(\d+) an iron tile", out).group(1)
    await alice.cmd("outtd iron", "no tile called 'iron' in your deck")
    await alice.cmd(f"give #{tile} to nobody", "There is no player named nobody")
    await alice.cmd(f"give #{tile} to alice", "cannot give yourself")
    await alice.cmd(f"give #{tile} to computer", "takes no gifts")
    await alice.cmd(f"give #{tile} to bob", f"You give #{tile} an iron tile of the Proving to Bob")
    await bob.expect(f"Alice gives you #{tile} an iron tile")
    await bob.cmd(f"intd {tile}", f"You put #{tile} an iron tile of the Proving into your deck")
    await alice.cmd("give #1 to bob", "You have no tile #1 in your inventory|only tiles in your")

    # the shop: only in its room
    await alice.cmd("list", "nothing for sale here")
    await alice.cmd("buy proving", "nothing for sale here")
    await alice.cmd("north", "The Tile Shop")
    out = await alice.cmd("list", "You have 1000 cubits")
    assert "a Second Sight disc" in out and "60 cubits" in out and "a Proving disc" in out
    await alice.cmd("buy atlantis", "The shop sells no atlantis discs")
    await alice.cmd("buy 7", "The shop's list runs from 1 to 2")
    out = await alice.cmd("buy 2", "You have 900 cubits left")
    disc = re.search(r"a Proving disc \(#(\d+)\)", out).group(1)
    await alice.cmd("buy second sight disc", "You have 840 cubits left")
    out = await alice.cmd("itd inventory", "BREAK DISC #\\d+\\)\r?\n> ")
    assert f"a Proving disc (#{disc})" in out and "a Second Sight disc" in out
    await alice.cmd("give disc second sight to bob", "You give a Second Sight disc")
    await bob.expect("BREAK DISC opens it")
    out = await bob.cmd("break disc", "tiles go into your deck(.|\n)*?\r?\n> ")
    assert "of Second Sight" in out and " Sum " in out  # the tiles once, in a table ...
    assert "Sum:" not in out and "/\\" not in out          # ... not drawn a second time
    await bob.cmd("break disc", "You have no sealed disc to break")
    out = await alice.cmd(f"break disc #{disc}", "tiles go into your deck(.|\n)*?\r?\n> ")
    assert " of the Proving" in out
    out = await alice.cmd("finger alice", "Cubits: \\d+")
    assert "Cubits: 840" in out

    # colour off, 80 columns: the listing and a tile stay plain and narrow
    raw = await raw_cmd(alice, "itd", "HELP)")
    assert "\x1b[" in raw                                   # colour on
    await alice.cmd("set color off", ">")
    await alice.cmd("set width 80", ">")
    raw = await raw_cmd(alice, "itd", "HELP)")
    assert "\x1b[" not in raw
    assert max(len(line) for line in raw.splitlines()) <= 80
    assert (await Tiles(parlor.db).audit()) == []


async def test_computer_game_inspect_and_color_off_board(parlor, clients, tmp_path):
    await seed(parlor, tmp_path, PROVING)
    alice = await clients("Alice")
    await alice.cmd("set color off", ">")
    await alice.cmd("set width 80", ">")
    out = await alice.cmd("tt challenge computer easy Random Take 1",
                          "Alice vs Computer\\(easy\\) begins \\(Random Take 1\\)(.|\n)*?Your hand:"
                          "(.|\n)*?\n> ")
    game = next(iter(parlor.host.live.values()))
    lines = out.splitlines()
    assert max(len(ANSI.sub("", line)) for line in lines) <= 80
    assert "\x1b" not in out and "Your hand:" in out and "Sum: " in out
    assert "Niches held:" in out and "Alice (A)" in out
    rng = random.Random(2)
    inspected = False
    for _ in range(300):
        if game.outcome is not None:
            break
        if game.kind.spec.to_move(game.state) == (0,) and game.state.phase == "play":
            acts = list(rules.legal_actions(game.state, 0))
            pick = [a for a in acts if isinstance(a, rules.Lay)] or \
                [a for a in acts if isinstance(a, rules.Flip)]
            text = notation.format_action(rng.choice(pick))
            await alice.cmd(f"tt {text}", announced("Alice", text))
        elif game.kind.spec.to_move(game.state) == (0,) and game.state.phase == "trading":
            await alice.cmd("tt done", "Alice: DONE")
        else:
            await asyncio.sleep(0.02)
        if game.state.laid >= 3 and not inspected:
            out = await alice.cmd("tt inspect", "Edges: the score(.|\n)*?\r?\n> ")
            assert re.search(r"\n1 up +\S", out) and "(empty)" in out
            assert max(len(line) for line in out.splitlines()) <= 80
            inspected = True
    await alice.expect(f"Game #{game.id}: (Alice|Computer\\(easy\\)) wins")
    assert game.outcome is not None
    assert (await Tiles(parlor.db).audit()) == []


async def test_the_expert_computer_can_be_challenged(parlor, clients, tmp_path):
    await seed(parlor, tmp_path, PROVING)
    alice = await clients("Alice")
    out = await alice.cmd("tt help challenge", "Usage: TT CHALLENGE(.|\n)*?\n> ")
    assert "COMPUTER [EASY|NORMAL|HARD|EXPERT]" in " ".join(out.split())
    await alice.cmd("tt challenge computer expert Random",
                    "Alice vs Computer\\(expert\\) begins \\(Random\\)")
    game = next(iter(parlor.host.live.values()))
    assert game.seats[1].computer == "expert"
    await alice.cmd("tt resign", "Computer\\(expert\\) wins")


async def test_admin_commands_seed_and_grant(parlor, clients, tmp_path):
    warden = await parlor.accounts.create("Warden", "secret")
    await parlor.accounts.set_admin("Warden", True)
    root = await (await Client.connect(parlor.port)).login("Warden")
    bob = await clients("Bob")
    try:
        await bob.cmd("@collection", "Huh\\?")
        await bob.cmd("@grant tile bob 1", "Huh\\?")
        await root.cmd("@collection", "no collections yet")
        await root.cmd("@collection create Glass Harbour", "Collection Glass Harbour created")
        await root.cmd("@collection create glass harbour", "already exists")
        await root.cmd("@tile shiny 1 2 3 4 Glass Harbour/a glass tile",
                       "Rarity is one of common, uncommon, rare, legendary\\.  Usage: @TILE")
        await root.cmd("@tile rare 1 2 3 11 Glass Harbour/a glass tile", "must be 0 to 10")
        await root.cmd("@tile rare 1 2 3 4 Glass Harbour", "Usage: @TILE")
        out = await root.cmd("@tile rare 9 2 3 4 Glass Harbour/a \x1b[31mglass tile of the "
                             "Harbour", "created")
        design = re.search(r"Tile design #(\d+) a glass tile of the Harbour", out).group(1)
        await root.cmd("@tile common 3 3 3 3 glass harbour/a sand tile of the Harbour", "created")
        await root.cmd("@tile rare 9 2 3 5 Glass Harbour/A glass tile of the harbour", "updated")
        out = await root.cmd("@collection glass harbour", "a sand tile(.|\n)*?\r?\n> ")
        assert "a glass tile of the Harbour" in out and " 5 " in out
        await root.cmd("@collection price 75 Glass Harbour", "sells Glass Harbour discs for 75")
        await root.cmd("@collection price lots Glass Harbour", "is not a price")
        await root.cmd("@grant tile bob 2 #" + design, "Bob is given 2 x a glass tile")
        await bob.expect("An admin gives you 2 x a glass tile of the Harbour")
        await root.cmd("@grant tile bob glass harbour/a sand tile of the harbour",
                       "Bob is given 1 x a sand tile")
        await root.cmd("@grant tile bob nowhere/a tile", "There is no collection 'nowhere'")
        await root.cmd("@grant disc bob glass harbour", "Bob is given a Glass Harbour disc")
        await root.cmd("@grant cubits bob 250", "Bob now has 1250 cubits")
        await root.cmd("@grant rubies bob 2", "Usage: @GRANT")
        out = await bob.cmd("itd", "ITD\\s+HELP\\)")
        assert "Your deck: 3 tiles" in out and "1 sealed disc" in out
        await bob.cmd("north", "Tile Shop")
        await bob.cmd("list", "a Glass Harbour disc(.|\n)*?75 cubits")
        await bob.cmd("@tileaudit", "Huh\\?")
        await root.cmd("@tileaudit", "Every tile has one owner and one place")
        assert (await Tiles(parlor.db).audit()) == []
        assert warden.is_admin is False   # the flag was set after this copy was read
    finally:
        await root.close()


async def test_claim_in_trading_closes_it_for_the_absent_winner(parlor, clients, tmp_path):
    """The winner leaves during the trading phase: after the reconnect grace the loser's
    CLAIM does what the trade clock would (the winner's DONE); the loser keeps every tile.
    The other way round, the winner is told the game waits for them."""
    await seed(parlor, tmp_path)
    alice = await clients("Alice")
    bob = await clients("Bob")
    await give_deck(parlor, "Alice", CHAIN_ALICE)
    await give_deck(parlor, "Bob", CHAIN_BOB)
    await start(alice, bob, "Take 1")
    for i in range(1, 6):
        await alice.cmd(f"tt draw {i}", f"Alice draws tile {i}")
    for i in range(1, 7):
        await bob.cmd(f"tt draw {i}", f"Bob draws tile {i}")
    for seat, line in lay_lines(CHAIN_MOVES):
        me = alice if seat == 0 else bob
        await me.cmd(line, announced(me.name, line))
    await bob.expect("Trading: Alice may take 1 tile")

    # the loser away: the winner has nothing to claim, the game waits for the winner
    await bob.close()
    await alice.expect("Bob has disconnected from game")
    await asyncio.sleep(1.1)
    await alice.cmd("tt claim", "The game is decided; it waits for you, not for Bob")
    bob = await clients("Bob", new=False)
    await bob.expect("You have a game in progress")

    # the winner away: after the grace, the loser's CLAIM closes the trading
    await alice.close()
    await bob.expect("Alice has disconnected from game")
    await asyncio.sleep(1.1)
    await bob.cmd("tt claim", "Alice did not come back; Bob claims their turn")
    await bob.expect("Alice: DONE")
    await bob.expect("Alice wins")
    out = await bob.cmd("itd", "ITD\\s+HELP\\)")
    assert "Your deck: 6 tiles" in out
