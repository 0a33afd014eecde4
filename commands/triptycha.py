"""Triptycha's commands: the extra ``TT`` subcommands (the engine's actions with their
usage lines, VIEW OPPONENT, INSPECT), the tile commands (ITD, INTD, OUTTD, GIVE, BREAK
DISC), the tile shop (LIST, BUY) and the admins' @COLLECTION, @TILE and @GRANT.

Handlers parse, call the tiles service (``server/services/tiles.py``) or the game host,
and render; a wrong use raises UsageError (its usage line is shown)."""

from __future__ import annotations

import re
import weakref

from commands import admin, args
from commands.registry import Command, CommandError, Context, GameCommands, UsageError
from games.triptycha import spoken as tt_spoken
from games.errors import BadNotation
from games.triptycha import notation
from games.triptycha import render as tt_render
from games.triptycha import spoken
from games.triptycha.board import UP
from games.triptycha.rules import may_view_opponent
from games.triptycha.tiles import CORNER_NAMES, EDGE_NAMES, RARITIES, edge_scores, short_name
from server.services.games import GameError, LiveGame
from server.services.tiles import SORTS, DiscView, TileError, Tiles, TileView, a_or_an
from server.services.triptycha import Triptycha
from server.text import bold, clean, counted, fit, paint, table, visible_len, wrap

KEY = "tt"
HELP = ("Triangular tile battles: lay your tiles in the 9 niches and flip your opponent's. "
        "Rules: Truth, Random, Inversion, Undercut, Confusion, Plunder, Take <1-5>, Ranked, "
        "Disc <collection>. ITD lists your tiles.")
RULES = (
    "Two players lay triangular tiles in a board of 9 triangular niches (1 at the top; 2-4; "
    "5-9), up and down in turn. Each tile has three corner numbers and a primary (centre) "
    "number; it is laid in a niche pointing its way (TT FLIP turns it over, TT ROTATE turns "
    "it). The challenger holds 5 tiles and lays first; the other holds 6 and lays 4. The "
    "game ends when the 9 niches are full: whoever controls more niches wins.\n"
    "A battle: a tile laid attacks each neighbouring tile the opponent controls (lowest "
    "niche first). On the edge they share, each side's edge score is its two corner "
    "numbers on that edge plus its primary. The attacker wins when its edge score is "
    "strictly greater; a win turns the defender to the attacker's side; a tie changes "
    "nothing. A tile turned in a battle attacks in its turn (a chain), 2 points weaker for "
    "each step of the chain. A defender never strikes back.\n"
    "Rule variants (named after TT CHALLENGE <person>; combine freely, except Inversion "
    "with Undercut): Truth: either player may TT VIEW OPPONENT. Random: each hand is "
    "drawn at random from your deck, with no draw phase. Inversion: the primary is "
    "subtracted from edge scores instead of added. Undercut: the lower edge score wins, "
    "and a chain grows 2 points stronger a step. Confusion: Inversion and Undercut "
    "together. Plunder: at the end each player owns every tile they control on the "
    "board. Take <1-5>: the winner takes that many tiles from the loser's game hand. "
    "Ranked: the result changes both ratings. Disc <collection>: both players break a "
    "disc of that collection and draw their hands from it at random.\n"
    "ITD lists your tiles; LIST and BUY sell discs in the tile shop.")
SORT_SETTING = "tt_sort"
RARITY_PAINT = {"common": None, "uncommon": "green", "rare": "blue", "legendary": "yellow"}


def _tiles(ctx: Context) -> Tiles:
    """Tiles, discs and the shop: the service of Triptycha's kind as the host hosts it."""
    return ctx.host.kind(KEY).tiles


async def _guard(coro):  # noqa: ANN001, ANN202
    try:
        return await coro
    except (TileError, GameError) as err:
        raise CommandError(str(err)) from None


def _say(ctx: Context, text: str) -> None:
    """One message, word-wrapped to the player's width."""
    ctx.send("\n".join(wrap(text, ctx.session.width)))


def _rarity(text: str, rarity: str) -> str:
    color = RARITY_PAINT.get(rarity)
    return paint(text, color) if color else text


def _short(name: str, n: int) -> str:
    """A tile's name in at most ``n`` columns: its longest whole-word form that fits; only a
    single word too wide for the column (a name of wide characters) is cut, with "…"."""
    short = short_name(name, n)
    return short if visible_len(short) <= n else fit(short, n, mark="…")


def _reader(ctx: Context) -> bool:
    """Screen-reader mode (SET SCREENREADER ON): lines, no pictures and no tables."""
    return ctx.session.screenreader


def _tile_lines(tiles: list[TileView], width: int) -> list[str]:
    """A listing of tiles read out, a tile a line (screen-reader mode)."""
    return [line for t in tiles for line in wrap(
        f"#{t.id}: {'-'.join(str(c) for c in t.corners)}, primary {t.primary}, sum {t.sum}, "
        f"{t.rarity}, {t.name}, {t.collection} collection.", width)]


def _listing(ctx: Context, tiles: list[TileView]) -> list[str]:
    if _reader(ctx):
        return _tile_lines(tiles, ctx.session.width)
    return _tile_rows(tiles, ctx.session.width)


def _tile_rows(tiles: list[TileView], width: int = 80) -> list[str]:
    """A listing of tiles; the name column takes what the width leaves."""
    name_w = max(16, min(60, width - 53))
    rows = [[f"#{t.id}", " ".join(f"{n:>2}" for n in t.corners), f"{t.primary:>2}",
             f"{t.sum:>3}", _rarity(t.rarity, t.rarity), _short(t.name, name_w),
             t.collection] for t in tiles]
    return table(["Tile", "T  BL BR", " P", "Sum", "Rarity", "Name", "Collection"], rows)


def _tile_id(word: str) -> int | None:
    text = word.strip()
    if text.startswith("<") and text.endswith(">"):
        text = text[1:-1]
    text = text.lstrip("#")
    return int(text) if text.isdecimal() and len(text) <= 12 else None


def _pick(word: str, candidates: list[TileView], where: str) -> TileView:
    """A tile by ``#id`` (or ``id``, ``<id>``), or by a part of its name that only one of
    ``candidates`` has."""
    number = _tile_id(word)
    if number is not None:
        for tile in candidates:
            if tile.id == number:
                return tile
        raise CommandError(f"You have no tile #{number} {where}.")
    key = " ".join(word.split()).casefold()
    found = [t for t in candidates if key in t.name.casefold()]
    if not found:
        raise CommandError(f"You have no tile called {clean(word)!r} {where}.")
    exact = [t for t in found if t.name.casefold() == key]
    if len(exact) == 1 or len({(t.design_id) for t in found}) == 1:
        return (exact or found)[0]
    names = ", ".join(f"#{t.id} {t.name}" for t in found[:5])
    raise CommandError(f"Which one? {names}{' …' if len(found) > 5 else ''}")


# -- TT subcommands ------------------------------------------------------------------------
def _action(verb: str, usage: str, help_text: str, aliases: tuple[str, ...] = ()) -> Command:
    """``TT <verb> …``: one of the engine's actions, checked against its notation first."""

    async def handler(ctx: Context, rest: str) -> None:
        text = f"{verb} {rest}".strip()
        try:
            action = notation.parse_action(text)
        except BadNotation:
            raise UsageError() from None
        host = ctx.host
        if host.game_of(ctx.account.id, KEY) is None:
            raise CommandError("You are not playing Triptycha. (TT CHALLENGE <person> starts "
                               "a game.)")
        await _guard(host.act(ctx.account.id, KEY, action))

    return Command(verb.lower(), handler, usage, help_text, aliases=aliases)


def _game_for(ctx: Context, word: str | None) -> LiveGame:
    host = ctx.host
    if word is not None:
        try:
            game = host.get_live(args.game_number(word))
        except GameError as err:
            raise CommandError(str(err)) from None
        if game.kind.key != KEY:
            raise CommandError(f"Game #{game.id} is not a Triptycha game.")
        return game
    game = host.game_of(ctx.account.id, KEY)
    if game is not None:
        return game
    watched = [host.live[g] for g in sorted(ctx.session.watching)
               if g in host.live and host.live[g].kind.key == KEY]
    if len(watched) == 1:
        return watched[0]
    raise CommandError("You are not playing Triptycha; name the game: TT INSPECT <game>.")


def inspect_lines(game: LiveGame, seat: int | None) -> list[str]:
    """TT INSPECT: every niche, its tile, owner, controller, corners and edge scores."""
    view = game.view(seat)
    names = game.names
    marks = tt_render._marks(names)
    inversion = view["rules"]["inversion"]
    lines = [bold(f"Game #{game.id}: {names[0]} ({marks[0]}) vs {names[1]} ({marks[1]})"),
             f"Rules: {view['rules_text']}. Phase: {view['phase']}. Niches held: "
             f"{names[0]} {view['counts'][0]}, {names[1]} {view['counts'][1]}."]
    rows = []
    for cell in range(9):
        niche = cell + 1
        shape = "up" if UP[cell] else "down"
        tile = view["board"][cell]
        if tile is None:
            rows.append([f"{niche} {shape}", "-", "(empty)", "", "", ""])
            continue
        up = tile["up"]
        corners = tile["corners"]
        scores = edge_scores(tuple(corners), tile["primary"], inversion)
        held = f"{names[tile['controller']]} ({marks[tile['controller']]})"
        name = _short(tile["tile"]["name"], 24)
        if tile["owner"] != tile["controller"]:
            name = _short(tile["tile"]["name"], 15) + f", {names[tile['owner']]}'s"
        rows.append([f"{niche} {shape}", held, name,
                     " ".join(f"{c}{n}" for c, n in zip(CORNER_NAMES[up], corners)),
                     str(tile["primary"]),
                     " ".join(f"{e[0].upper()}{s}" for e, s in zip(EDGE_NAMES[up], scores))])
    lines.extend(table(["Niche", "Held by", "Tile", "Corners", "P", "Edges"], rows))
    lines.append("Edges: the score on each edge (its two corners "
                 f"{'minus' if inversion else 'plus'} the primary).")
    return lines


def inspect_spoken(game: LiveGame, seat: int | None) -> list[str]:
    """TT INSPECT read out (screen-reader mode): a niche a line, no table."""
    view = game.view(seat)
    names = game.names
    inversion = view["rules"]["inversion"]
    lines = [f"Game #{game.id}: {names[0]} against {names[1]}.",
             f"Rules: {view['rules_text']}. Phase: {view['phase']}.",
             f"Niches held: {names[0]} {view['counts'][0]}, {names[1]} {view['counts'][1]}."]
    for cell in range(9):
        shape = "up" if UP[cell] else "down"
        tile = view["board"][cell]
        if tile is None:
            lines.append(f"Niche {cell + 1}, {shape}: empty.")
            continue
        up = tile["up"]
        scores = edge_scores(tuple(tile["corners"]), tile["primary"], inversion)
        owner = "" if tile["owner"] == tile["controller"] else \
            f", {names[tile['owner']]}'s tile"
        corners = ", ".join(f"{spoken.CORNER_WORDS[c]} {n}"
                            for c, n in zip(CORNER_NAMES[up], tile["corners"]))
        edges = ", ".join(f"{e} {n}" for e, n in zip(EDGE_NAMES[up], scores))
        lines.append(f"Niche {cell + 1}, {shape}: held by {names[tile['controller']]}{owner}, "
                     f"{tile['tile']['name']}; corners {corners}; primary {tile['primary']}; "
                     f"edges {edges}.")
    lines.append(f"An edge scores its two corners {'minus' if inversion else 'plus'} the "
                 "primary.")
    return lines


async def tt_inspect(ctx: Context, rest: str) -> None:
    parts = args.words(rest, 0, 1)
    game = _game_for(ctx, parts[0] if parts else None)
    seat = game.seat_of(ctx.account.id)
    if _reader(ctx):
        ctx.send("\n".join(line for fact in inspect_spoken(game, seat)
                           for line in wrap(fact, ctx.session.width)))
        return
    ctx.send("\n".join(inspect_lines(game, seat)))


async def tt_view(ctx: Context, rest: str) -> None:
    if [w.lower() for w in args.words(rest, 1, 1)] != ["opponent"]:
        raise UsageError()
    game = ctx.host.game_of(ctx.account.id, KEY)
    if game is None:
        raise CommandError("You are not playing Triptycha.")
    seat = game.seat_of(ctx.account.id)
    if not may_view_opponent(game.state, seat):
        raise CommandError("You may view their hand only in a Truth game, or as the winner "
                           "while trading.")
    if _reader(ctx):
        ctx.send("\n".join(line for fact in spoken.speak_opponent(game.view(seat), game.names)
                           for line in wrap(fact, ctx.session.width)))
        return
    ctx.send(tt_render.render_opponent(game.view(seat), width=ctx.session.width,
                                       color=ctx.session.color, names=game.names))


TT_COMMANDS = (
    _action("DRAW", "TT DRAW <tile>", "In the draw phase, take the tile at that position of "
            "your deck listing into your hand (Player 1 draws 5, Player 2 draws 6)."),
    _action("LAY", "TT LAY <tile> [IN] <niche>", "Lay hand tile <tile> in niche 1 to 9. The "
            "tile must point the way the niche does (TT FLIP it first)."),
    _action("ROTATE", "TT ROTATE <tile>", "Turn a tile in your hand 120 degrees clockwise."),
    _action("FLIP", "TT FLIP <tile>", "Flip a tile in your hand top to bottom, to fit a "
            "niche pointing the other way."),
    _action("TAKE", "TT TAKE <number>", "In the trading phase, the winner takes the loser's "
            "tile <number> (TT VIEW OPPONENT shows them)."),
    _action("DONE", "TT DONE", "In the trading phase, the winner ends it (taking no more)."),
    Command("view", tt_view, "TT VIEW OPPONENT", "See your opponent's hand: in a Truth game, "
            "or as the winner in the trading phase."),
    Command("inspect", tt_inspect, "TT INSPECT [<game>]", "Every niche of a game: its tile, "
            "who owns and who holds it, its corners and edge scores."),
)


# -- ITD, INTD, OUTTD ----------------------------------------------------------------------
async def _sort_of(ctx: Context) -> str:
    return (ctx.account.settings or {}).get(SORT_SETTING, "id")


async def itd(ctx: Context, rest: str) -> None:
    if rest:
        raise UsageError()
    sort = await _sort_of(ctx)
    service = _tiles(ctx)
    deck = await service.deck(ctx.account.id, sort)
    counts = await service.counts(ctx.account.id)
    lines = [bold(f"Your deck: {len(deck)} tile{'s' if len(deck) != 1 else ''}, "
                  f"sorted by {sort}.")]
    if deck:
        lines.extend(_listing(ctx, deck))
    else:
        lines.append("It is empty. BREAK DISC opens a disc into it; INTD <tile> brings a tile "
                     "from your inventory; the tile shop sells discs.")
    extra = [f"{counts['inventory']} in your inventory", f"{counts['discs']} sealed "
             f"disc{'s' if counts['discs'] != 1 else ''}"]
    if counts["game"]:
        extra.append(f"{counts['game']} in play")
    lines.extend(wrap("Also: " + ", ".join(extra) + ". (ITD INVENTORY, ITD SHOW <tile>, "
                      "ITD SORT <how>, ITD HELP)", ctx.session.width))
    ctx.send("\n".join(lines))


async def itd_sort(ctx: Context, rest: str) -> None:
    how = args.words(rest, 1, 1)[0].lower()
    if how not in SORTS:
        raise UsageError()
    settings = await ctx.accounts.set_setting(ctx.account.id, SORT_SETTING, how)
    ctx.account.settings = settings
    _say(ctx, f"Your deck is now listed by {how} (TT DRAW numbers follow this order in your "
             "next game).")
    await itd(ctx, "")


async def itd_show(ctx: Context, rest: str) -> None:
    if not rest:
        raise UsageError()
    mine = await _tiles(ctx).owned(ctx.account.id, ("deck", "inventory", "game"))
    tile = _pick(rest, mine, "in your deck, inventory or games")
    where = {"deck": "in your deck", "inventory": "in your inventory",
             "game": f"in play in game #{tile.game_id}"}[tile.place]
    t, bl, br = tile.corners
    picture = "\n".join(spoken.speak_tiles([tile.tile()])[:1]) if _reader(ctx) else \
        tt_render.render_tiles([tile.tile()], width=ctx.session.width, color=ctx.session.color)
    ctx.send("\n".join([
        bold(f"#{tile.id} {tile.name}"),
        *wrap(picture, ctx.session.width),
        *wrap(f"{tile.collection} collection, {tile.rarity}; {where}. Corners (pointing up) "
              f"T {t}, BL {bl}, BR {br}; primary {tile.primary}; sum {tile.sum}.",
              ctx.session.width),
    ]))


async def itd_inventory(ctx: Context, rest: str) -> None:
    if rest:
        raise UsageError()
    tiles, discs = await _tiles(ctx).inventory(ctx.account.id)
    lines = [bold(f"Your inventory: {len(tiles)} tile{'s' if len(tiles) != 1 else ''}, "
                  f"{len(discs)} sealed disc{'s' if len(discs) != 1 else ''}.")]
    if tiles:
        lines.extend(_listing(ctx, tiles))
    for disc in discs:
        lines.append(f"  {disc.label}, {disc.size} tiles (BREAK DISC #{disc.id})")
    if not tiles and not discs:
        lines.append("Nothing. OUTTD <tile> moves a tile here from your deck.")
    ctx.send("\n".join(lines))


async def itd_help(ctx: Context, rest: str) -> None:
    from commands.basics import help_
    await help_(ctx, "itd")


async def intd(ctx: Context, rest: str) -> None:
    if rest.lower() == "help":
        from commands.basics import help_
        await help_(ctx, "intd")
        return
    if not rest:
        raise UsageError()
    service = _tiles(ctx)
    tiles, _ = await service.inventory(ctx.account.id)
    tile = _pick(rest, tiles, "in your inventory")
    moved = await _guard(service.move_own(ctx.account.id, tile.id, "inventory", "deck"))
    _say(ctx, f"You put #{moved.id} {moved.name} into your deck.")


async def outtd(ctx: Context, rest: str) -> None:
    if rest.lower() == "help":
        from commands.basics import help_
        await help_(ctx, "outtd")
        return
    if not rest:
        raise UsageError()
    game = ctx.host.game_of(ctx.account.id, KEY)
    if game is not None and game.state.phase == "draw":
        raise CommandError(f"You are drawing your hand in game #{game.id}; your deck stays as "
                           "it is until the draw is over.")
    service = _tiles(ctx)
    tile = _pick(rest, await service.deck(ctx.account.id), "in your deck")
    moved = await _guard(service.move_own(ctx.account.id, tile.id, "deck", "inventory"))
    _say(ctx, f"You take #{moved.id} {moved.name} out of your deck; it is in your inventory "
             "(GIVE it, or INTD it back).")


# -- GIVE, BREAK DISC ----------------------------------------------------------------------
_GIVE = re.compile(r"^(?P<what>.+?)\s+to\s+(?P<who>\S+)$", re.IGNORECASE)


def _disc_choice(discs: list[DiscView], words: str, what: str) -> DiscView:
    """A sealed disc by ``#id`` or collection name (the oldest of it), or the oldest."""
    if not discs:
        raise CommandError(f"You have no sealed disc to {what}.")
    words = words.strip()
    if not words:
        return discs[0]
    number = _tile_id(words)
    if number is not None:
        for disc in discs:
            if disc.id == number:
                return disc
        raise CommandError(f"You have no sealed disc #{number}.")
    key = " ".join(words.split()).casefold()
    for exact in (True, False):
        for disc in discs:
            name = disc.collection.casefold()
            if name == key or (not exact and name.startswith(key)):
                return disc
    raise CommandError(f"You have no sealed {clean(words)} disc.")


async def give(ctx: Context, rest: str) -> None:
    match = _GIVE.match(rest.strip())
    if not match:
        raise UsageError()
    what, who = match.group("what").strip(), match.group("who")
    other = await args.account(ctx, who)
    if other.id == ctx.account.id:
        raise CommandError("You cannot give yourself anything.")
    if other.is_computer:
        raise CommandError("The computer takes no gifts.")
    service = _tiles(ctx)
    first, _, tail = what.partition(" ")
    if first.lower() == "disc":
        _, discs = await service.inventory(ctx.account.id)
        disc = _disc_choice(discs, tail, "give")
        given = await _guard(service.give_disc(ctx.account.id, disc.id, other.id))
        _say(ctx, f"You give {given.label} to {other.name}.")
        await ctx.tell_or_keep(other.id, f"{ctx.account.name} gives you {given.label} "
                                         f"({given.size} tiles). BREAK DISC opens it.")
        return
    tiles, _ = await service.inventory(ctx.account.id)
    candidates = tiles
    number = _tile_id(what)
    if number is not None and not any(t.id == number for t in tiles):
        candidates = tiles + [t for t in await service.owned(ctx.account.id) if t.id == number]
    tile = _pick(what, candidates, "in your inventory")
    given = await _guard(service.give_tile(ctx.account.id, tile.id, other.id))
    _say(ctx, f"You give #{given.id} {given.name} to {other.name}.")
    await ctx.tell_or_keep(other.id, f"{ctx.account.name} gives you #{given.id} {given.name}; "
                                     "it is in your inventory (INTD puts it in your deck).")


async def break_(ctx: Context, rest: str) -> None:
    first, _, tail = rest.strip().partition(" ")
    if first.lower() != "disc":
        raise UsageError()
    service = _tiles(ctx)
    _, discs = await service.inventory(ctx.account.id)
    disc = _disc_choice(discs, tail, "break")
    opened, tiles = await _guard(service.break_disc(ctx.account.id, disc.id))
    lines = [f"You break open {disc.label}: {len(tiles)} tiles go into your deck."]
    if _reader(ctx):
        lines.extend(_tile_lines(tiles, ctx.session.width))
        ctx.send("\n".join(lines))
        return
    # the tiles once, as a table (their pictures: ITD SHOW <tile>)
    lines.extend(_tile_rows(tiles, ctx.session.width))
    lines.append("ITD SHOW <tile> draws one of them.")
    ctx.send("\n".join(lines))


# -- the tile shop -------------------------------------------------------------------------
def _in_shop(ctx: Context) -> None:
    if not ctx.world.rooms[ctx.session.room].shop:
        raise CommandError("There is nothing for sale here. The tile shop is north of the "
                           "plaza.")


_LISTED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # session -> LIST's names


async def list_(ctx: Context, rest: str) -> None:
    if rest:
        raise UsageError()
    _in_shop(ctx)
    offers = await _tiles(ctx).shop()
    if not offers:
        _say(ctx, "The shelves are bare: the shop has no discs for sale today.")
        return
    _LISTED[ctx.session] = [c.name for c, _ in offers]  # what BUY <number> means to them
    rows = [[str(i), f"{a_or_an(c.name)} {c.name} disc", f"{c.disc_min}-{c.disc_max}", str(n),
             f"{c.price} cubits"] for i, (c, n) in enumerate(offers, 1)]
    lines = [bold("Beginner discs for sale (BUY <number> or BUY <collection>):")]
    if _reader(ctx):
        lines.extend(f"{i}: {disc}, {size} tiles, {designs} designs, {price}."
                     for i, disc, size, designs, price in rows)
    else:
        lines.extend(table(["#", "Disc", "Tiles", "Designs", "Price"], rows))
    for c, _ in offers:
        if c.description:
            lines.extend("  " + line for line in
                         wrap(f"{c.name}: {c.description}", ctx.session.width - 2))
    me = await ctx.accounts.get_by_id(ctx.account.id)
    lines.append(f"You have {me.cubits} cubits.")
    ctx.send("\n".join(lines))


async def buy(ctx: Context, rest: str) -> None:
    if not rest:
        raise UsageError()
    _in_shop(ctx)
    service = _tiles(ctx)
    name = rest.strip()
    if name.lower().endswith(" disc"):
        name = name[:-5].strip()
    if name.isdecimal():
        # the number in the list this player last saw: a collection priced since does
        # not move it (the shop's list now, if they never looked)
        listed = _LISTED.get(ctx.session) or [c.name for c, _ in await service.shop()]
        index = int(name)
        if not 1 <= index <= len(listed):
            raise CommandError(f"The shop's list runs from 1 to {len(listed)}.")
        name = listed[index - 1]
    disc, price, balance = await _guard(service.buy(ctx.account.id, name))
    ctx.account.cubits = balance
    _say(ctx, f"You buy {disc.label} for {price} cubits; it holds {disc.size} tiles. "
             f"You have {balance} cubits left. BREAK DISC {disc.collection} opens it.")


# -- admin ---------------------------------------------------------------------------------
async def at_collection(ctx: Context, rest: str) -> None:
    service = _tiles(ctx)
    words = rest.split()
    if not words:
        rows = [[c.name, str(n), "-" if c.price is None else str(c.price),
                 f"{c.disc_min}-{c.disc_max}"] for c, n in await service.collections()]
        ctx.send("\n".join(ctx.table(["Collection", "Designs", "Price", "Disc"], rows))
                 if rows else "There are no collections yet. @COLLECTION CREATE <name>.")
        return
    verb = words[0].lower()
    if verb == "create":
        if len(words) < 2:
            raise UsageError()
        coll, changed = await _guard(service.create_collection(" ".join(words[1:])))
        ctx.log_admin(f"collection {coll.name}")
        _say(ctx, f"Collection {coll.name} {'created' if changed else 'already exists'}. "
                 f"@TILE adds designs; @COLLECTION PRICE <cubits> {coll.name} puts its discs "
                 "in the shop.")
        return
    if verb == "price":
        if len(words) < 3:
            raise UsageError("Name the collection after the price." if len(words) == 2
                             else "")
        price = None if words[1].lower() == "off" else args.whole_number(
            words[1], what="price", least=0, most=10**9)
        coll = await _guard(service.set_price(" ".join(words[2:]), price))
        ctx.log_admin(f"collection {coll.name} price {price}")
        _say(ctx, f"The shop {'no longer sells' if price is None else 'sells'} {coll.name} discs"
                 + ("." if price is None else f" for {price} cubits."))
        return
    try:
        coll, designs = await service.designs(rest)
    except TileError as err:
        if verb == "off":   # not a collection's name: the shop's OFF is PRICE OFF
            raise UsageError("To take a collection's discs out of the shop, @COLLECTION "
                             "PRICE OFF <name>.") from None
        raise CommandError(str(err)) from None
    lines = [bold(f"{coll.name}: {counted(len(designs), 'design')}; shop price "
                  f"{'none' if coll.price is None else coll.price}; discs of "
                  f"{coll.disc_min}-{coll.disc_max}.")]
    lines.extend(table(["Design", "T  BL BR", " P", "Rarity", "Name"], [
        [f"#{d.id}", f"{d.corner_t:>2} {d.corner_bl:>2} {d.corner_br:>2}", f"{d.centre:>2}",
         d.rarity, d.name] for d in designs]))
    ctx.send("\n".join(lines))


async def at_tile(ctx: Context, rest: str) -> None:
    words = rest.split()
    if len(words) < 6:
        raise UsageError()
    rarity = words[0].lower()
    if rarity not in RARITIES:
        raise UsageError(f"Rarity is one of {', '.join(RARITIES)}.")
    numbers = [args.whole_number(w, what="tile number", least=0, most=10) for w in words[1:5]]
    collection, sep, name = " ".join(words[5:]).partition("/")
    if not sep:
        raise UsageError()
    design, what = await _guard(_tiles(ctx).create_design(
        collection, name, rarity, tuple(numbers[:3]), numbers[3]))
    ctx.log_admin(f"tile design #{design.id} {what}")
    _say(ctx, f"Tile design #{design.id} {design.name} ({rarity}; T {numbers[0]}, BL "
             f"{numbers[1]}, BR {numbers[2]}, primary {numbers[3]}): {what}.")


async def at_grant(ctx: Context, rest: str) -> None:
    words = rest.split()
    if len(words) < 3:
        raise UsageError()
    what = words[0].lower()
    if what == "cubits":
        await admin.cubits(ctx, " ".join(words[1:]))
        return
    acc = await args.account(ctx, words[1])
    service = _tiles(ctx)
    by = ctx.account.name
    if what == "tile":
        count, ref_words = 1, words[2:]
        if ref_words[0].isdecimal() and len(ref_words) > 1:
            count = args.whole_number(ref_words.pop(0), what="count", least=1, most=100)
        tiles = await _guard(service.grant_tiles(acc.id, " ".join(ref_words), count, by=by))
        ctx.log_admin(f"grant {count} tile(s) #{tiles[0].design_id} to {acc.name}")
        _say(ctx, f"{acc.name} is given {count} x {tiles[0].name} "
                 f"({', '.join('#' + str(t.id) for t in tiles)}), in their deck.")
        ctx.tell(acc.id, f"An admin gives you {count} x {tiles[0].name}; "
                         f"{'it is' if count == 1 else 'they are'} in your deck.")
        return
    if what == "disc":
        disc = await _guard(service.grant_disc(acc.id, " ".join(words[2:]), by=by))
        ctx.log_admin(f"grant disc #{disc.id} to {acc.name}")
        _say(ctx, f"{acc.name} is given {disc.label} of {disc.size} tiles.")
        ctx.tell(acc.id, f"An admin gives you {disc.label}. BREAK DISC opens it.")
        return
    raise UsageError()


async def at_tileaudit(ctx: Context, rest: str) -> None:
    args.words(rest, 0, 0)
    problems = await _tiles(ctx).audit()
    if not problems:
        ctx.send("Every tile has one owner and one place, and its log agrees.")
        return
    ctx.send("\n".join([f"{len(problems)} problem(s):", *problems[:50]]))


TOP_COMMANDS = (
    Command("itd", itd, "ITD [SORT <how>|SHOW <tile>|INVENTORY|HELP]",
            "Your Triptycha tile deck: ITD lists it; ITD SORT ID|SUM|NAME|RARITY|COLLECTION "
            "orders the listing (and your TT DRAW numbers); ITD SHOW <tile> draws one tile; "
            "ITD INVENTORY lists your inventory (tiles and sealed discs). A tile is named by "
            "its #number or a part of its name.", topic="tiles",
            subcommands=(
                Command("sort", itd_sort, "ITD SORT ID|SUM|NAME|RARITY|COLLECTION",
                        "Order your deck listing (and the numbers of TT DRAW)."),
                Command("show", itd_show, "ITD SHOW <tile>", "Draw one of your tiles."),
                Command("inventory", itd_inventory, "ITD INVENTORY",
                        "List the tiles and sealed discs in your inventory.", aliases=("inv",)),
                Command("help", itd_help, "ITD HELP", "Help on ITD."),
            )),
    Command("intd", intd, "INTD <tile>", "Move a tile from your inventory into your deck, "
            "where you can play it.", topic="tiles"),
    Command("outtd", outtd, "OUTTD <tile>", "Move a tile from your deck to your inventory, "
            "where you can GIVE it away.", topic="tiles"),
    Command("give", give, "GIVE <tile>|DISC [<collection>] TO <person>", "Give a tile from "
            "your inventory, or a sealed disc, to another player (online or not).",
            topic="tiles"),
    Command("break", break_, "BREAK DISC [<collection>|#<disc>]", "Break open a sealed disc "
            "(the oldest, or one of that collection): its tiles go into your deck.",
            topic="tiles"),
    Command("list", list_, "LIST", "In the tile shop: the discs for sale.", topic="tiles"),
    Command("buy", buy, "BUY <number>|<collection>", "In the tile shop: buy a beginner disc "
            "for cubits.", topic="tiles"),
    Command("@collection", at_collection, "@COLLECTION [<name>|CREATE <name>|PRICE "
            "<cubits> <name>|PRICE OFF <name>]", "List the tile collections, show one's "
            "designs, create one, or set the shop's price of its discs (a collection needs "
            "designs before the shop can sell it).", admin=True, topic="admin",
            example="@COLLECTION PRICE 100 Harbour"),
    Command("@tile", at_tile, "@TILE <rarity> <T> <BL> <BR> <primary> <collection>/<name>",
            "Create (or change) a tile design. Corners are read pointing up; every number "
            "is 0 to 10.", admin=True, topic="admin",
            example="@TILE common 5 3 7 4 Harbour/Gull"),
    Command("@grant", at_grant, "@GRANT TILE <person> [<count>] <design>|DISC <person> "
            "<collection>|CUBITS <person> <amount>", "Grant tiles (a design is #<id> or "
            "<collection>/<name>), a disc rolled by rarity, or cubits.", admin=True,
            topic="admin", example="@GRANT TILE Bob 2 Harbour/Gull"),
    Command("@tileaudit", at_tileaudit, "@TILEAUDIT", "Check every tile against its log: "
            "one owner, one place, nothing lost or made twice.", admin=True, topic="admin",
            example="@TILEAUDIT"),
)


GAME = GameCommands(
    KEY, help=HELP, rules=RULES, commands=TT_COMMANDS, top_commands=TOP_COMMANDS,
    kind=Triptycha, questions=tt_spoken.QUESTIONS,
    groups={"draw": "Play", "lay": "Play", "rotate": "Play", "flip": "Play", "view": "Play",
            "inspect": "Play", "take": "Trading", "done": "Trading"})

__all__ = ["GAME", "HELP", "TOP_COMMANDS", "TT_COMMANDS", "inspect_lines", "inspect_spoken"]
