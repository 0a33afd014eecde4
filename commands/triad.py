"""Triad's own subcommands: the tables (TABLES, OPEN, JOIN, LEAVE, START, BOT, BACK), the
betting (PASS, EQUAL, RAISE, FOLD), the draw (DISCARD, STAND) and HAND.

The rest of the family (DISPLAY/WATCH, GAMES, STATUS, RESIGN, HELP …) comes from
:func:`commands.games.game_family`. Each command parses its words, calls the table
service (``server/services/triad.py``) or the host (the rules, the table's options and
notation are the engine's, ``games/triad/table.py``), and lets the host tell everyone at
the table what happened once it is committed.
"""

from __future__ import annotations

from commands import args
from commands.registry import Command, CommandError, Context, GameCommands, UsageError
from games.triad import spoken as triad_spoken
from games.errors import BadNotation, IllegalAction, quoted
from games.triad import table as engine
from server.services import triad as service
from server.text import bold, table

KEY = service.KEY

HELP = (
    "Triad is a six-card draw game for 2 to 6 players at a table, played for cubits. The "
    "deck has 56 cards: four Colors (Black, Purple, Green, Red, highest first) of 2 to 14 "
    "(12 Princess, 13 Prince, 14 Pyramid), and four wild Capstones. Cards are written "
    "14B (Black Pyramid), 13P, 2R; a Capstone is C.\n"
    "Tables: TRIAD TABLES lists them. TRIAD OPEN [<opening>] [LIMIT <n>|NOLIMIT] [SEATS "
    "<n>] [BUYIN <n>] opens one (opening bet 10, no limit, 6 seats, buy-in 20 opening "
    "bets unless you say). TRIAD JOIN <table> [<cubits>] sits you down: the cubits you "
    "bring (the buy-in unless you say) leave your balance for the table, and come back "
    "when you TRIAD LEAVE or the table closes. TRIAD BOT [<n>] [EASY|NORMAL|HARD] seats "
    "computer players (the house pays their stakes). TRIAD START deals the first hand; "
    "later hands are dealt by TRIAD DEAL, or by the server a few seconds after the last. "
    "A table closes between hands when no person is seated any more (computer players "
    "alone do not keep it open), or, once the first hand was dealt, when only one player "
    "can still pay the opening bet (that player wins the table), only computer players "
    "can, or nobody can; every stack then goes back. Anyone may TRIAD WATCH <table>; "
    "watchers see no hidden cards. A sit-and-go: TOURNEY CREATE TRIAD SITGO <stack> "
    "[<opening>], tables of six with equal stacks, the last stack standing wins.\n"
    "A hand: everyone who can pays the opening bet and gets six cards. First betting "
    "round, starting left of the dealer: with no raise yet you TRIAD PASS or TRIAD RAISE "
    "<n>; after a raise you TRIAD FOLD, TRIAD EQUAL (or CALL) or raise again. A raise is "
    "at least the opening bet, at least the largest raise before it in the round, and "
    "at most the table's limit. If you cannot cover a bet, EQUAL puts in all you have "
    "(all in): you can win only the part of the pot you matched, and side pots form for "
    "the rest. Then the draw, left of the dealer first: TRIAD DISCARD <positions> throws "
    "up to four cards (1-6 as TRIAD HAND shows them, or their codes) and deals as many "
    "(when the stock runs out, the discards are shuffled into a new one); TRIAD STAND "
    "keeps all six. A second betting round, then the showdown: hands are shown and "
    "named, the best wins each pot; equal hands split it, the odd cubit to the player "
    "nearest the dealer's left. If everyone else folds, the last player wins without "
    "showing. The dealer button moves one seat left each hand.\n"
    "Hands, best first: Full Colors (one Color, Pyramid down to 9, no Capstone), Full "
    "Major (the same with a Capstone), Six Up (six of a denomination), Colony (six in a "
    "run of one Color, below the Pyramid), Five Up, Four Up and Duo, Double Three Up, "
    "Perfect Full (six of one Color), Four Up, Six on a run, Perfect Five on a run, "
    "Triple Duo, Double Perfect Three on a run, Five on a run, Perfect Four on a run and "
    "Duo, Four on a run and Duo, Three Up and Perfect Three on a run, Three Up and Three "
    "on a run, Three Up and Duo, Perfect Three on a run, Three Up, Three on a run, Double "
    "Duo, Duo, High Card. \"Up\" is cards of one denomination, a Duo a pair, a run "
    "consecutive denominations (never wrapping: the Pyramid is only high), \"Perfect\" "
    "one Color. A Capstone stands for any card. Equal categories compare the groups' "
    "denominations, then the other cards, then Colors, then fewer Capstones.\n"
    "Clock: you have a minute to act (the server's setting; you are warned 15 seconds "
    "before the end); then you pass if you can "
    "and fold otherwise (in the draw, you keep your cards). If you disconnect, the same "
    "happens at once at your turns and you leave the table when you are out of the hand "
    "(your stack goes back to your balance) unless you come back first. TRIAD LEAVE "
    "during a hand you are still in works the same way; TRIAD BACK takes it back.")


def _tables(ctx: Context) -> service.TriadTables:
    """The tables: the service of Triad's kind as the host hosts it."""
    return ctx.host.kind(KEY)


def _seated(ctx: Context):  # noqa: ANN202
    try:
        return _tables(ctx).my_table(ctx.account.id)
    except service.GameError as err:
        raise CommandError(str(err)) from None


async def _act(ctx: Context, text: str, seat_change: bool = False) -> None:
    """Play ``text`` (the table's notation, read once here) at the caller's table; a
    ``seat_change`` (LEAVE, BACK) is told to the table in words only ("Bob leaves the
    table …"), not as ``Bob: LEAVE``. Text that is no action shows the usage line."""
    try:
        action = engine.parse_action(text)
    except BadNotation as err:
        raise UsageError(str(err)) from None
    _seated(ctx)
    await args.guarded(ctx.host.act(ctx.account.id, KEY, action, seat_change=seat_change))


def _amount(word: str) -> int:
    """A positive number of cubits (a wrong one is a usage error)."""
    if not word.isdecimal() or len(word) > 9:
        raise UsageError(f"{quoted(word)} is not a number of cubits.")
    if int(word) < 1:
        raise UsageError("An amount is at least 1 cubit.")
    return int(word)


# -- tables ------------------------------------------------------------------------------------
async def tables_(ctx: Context, rest: str) -> None:
    args.words(rest, 0, 0)
    live = _tables(ctx).tables()
    if not live:
        ctx.send("No Triad tables are open. TRIAD OPEN opens one.")
        return
    rows = []
    for game in live:
        t: engine.Table = game.state
        g = t.game
        taken = sum(1 for s in t.places if s is not None)
        limit = "none" if g.limit is None else str(g.limit)
        state = ("open" if not t.started else "between hands" if g.phase == "hand_over"
                 else f"hand {g.hand_no}")
        rows.append([f"#{game.id}", str(g.opening), limit, str(t.buyin),
                     f"{taken}/{len(t.places)}", state, ", ".join(game.players) or "-",
                     str(ctx.host.watchers(game.id))])
    ctx.send("\n".join([bold("Triad tables"), *table(
        ["Table", "Opening", "Limit", "Buy-in", "Seats", "Now", "Players", "Watching"], rows),
        "TRIAD JOIN <table> to sit down, TRIAD WATCH <table> to watch."]))


async def open_(ctx: Context, rest: str) -> None:
    words = [w.lower() for w in args.words(rest, 0, 7)]
    opening, limit, seats, buyin = engine.DEFAULT_OPENING, None, engine.DEFAULT_SEATS, None
    i = 0
    if words and words[0].isdecimal():
        opening = _amount(words[0])
        i = 1
    seen = set()
    while i < len(words):
        word = words[i]
        if word not in ("limit", "nolimit", "seats", "buyin"):
            raise UsageError(f"{word!r} is not an option here.")
        key = "limit" if word == "nolimit" else word
        if key in seen:
            raise UsageError(f"The {key} is given twice.")
        seen.add(key)
        if word == "nolimit":
            i += 1
            continue
        if i + 1 >= len(words):
            raise UsageError(f"{word.upper()} needs a number.")
        value = _amount(words[i + 1])
        if word == "limit":
            limit = value
        elif word == "seats":
            seats = value
        else:
            buyin = value
        i += 2
    try:
        options = engine.table_options(opening, limit, seats, buyin)
    except IllegalAction as err:
        raise UsageError(str(err)) from None
    game = await args.guarded(_tables(ctx).open(ctx.account.id, ctx.account.name, options))
    ctx.send(f"You open Triad table #{game.id} ({engine.describe_options(options)}) and sit "
             f"in seat 1 with {options['buyin']} cubits. Others can TRIAD JOIN {game.id}; "
             "TRIAD BOT seats a computer player; TRIAD START deals the first hand.")


async def join(ctx: Context, rest: str) -> None:
    parts = args.words(rest, 1, 2)
    try:
        number = args.game_number(parts[0])
    except CommandError as err:
        raise UsageError(str(err)) from None
    stack = _amount(parts[1]) if len(parts) > 1 else None
    watching = number in ctx.session.watching  # a player is told as a player, not twice
    if watching:
        ctx.session.unsubscribe(f"game:{number}")
        ctx.session.watching = ctx.session.watching - {number}
    try:
        await args.guarded(_tables(ctx).join(ctx.account.id, ctx.account.name, number, stack))
    except Exception:
        if watching:
            ctx.session.subscribe(f"game:{number}")
            ctx.session.watching = ctx.session.watching | {number}
        raise


async def leave(ctx: Context, rest: str) -> None:
    args.words(rest, 0, 0)
    await _act(ctx, "LEAVE", seat_change=True)


async def back(ctx: Context, rest: str) -> None:
    args.words(rest, 0, 0)
    await _act(ctx, "BACK", seat_change=True)


async def start(ctx: Context, rest: str) -> None:
    args.words(rest, 0, 0)
    await _act(ctx, "DEAL")


async def bot(ctx: Context, rest: str) -> None:
    parts = [w.lower() for w in args.words(rest, 0, 2)]
    count, level = 1, "normal"
    if parts and parts[0].isdecimal():
        count = int(parts.pop(0)[:3])
        if not 1 <= count <= 5:
            raise UsageError("Seat 1 to 5 computer players at a time.")
    if parts and parts[0] in engine.LEVELS:
        level = parts.pop(0)
    if parts:
        raise UsageError(f"{quoted(parts[0])} is not a number (1-5) or a level (EASY, NORMAL, "
                         "HARD).")
    _seated(ctx)
    await args.guarded(_tables(ctx).add_bots(ctx.account.id, count, level))


# -- betting and the draw -------------------------------------------------------------------------
def _simple(verb: str):  # noqa: ANN202
    async def handler(ctx: Context, rest: str) -> None:
        args.words(rest, 0, 0)
        await _act(ctx, verb)
    return handler


async def raise_(ctx: Context, rest: str) -> None:
    amount = _amount(args.words(rest, 1, 1)[0])
    await _act(ctx, f"RAISE {amount}")


async def discard(ctx: Context, rest: str) -> None:
    parts = args.words(rest.replace(",", " "), 0, 6)  # the engine says "at most 4"
    if not parts:
        raise UsageError("Name 1 to 4 cards to throw; TRIAD STAND keeps all six.")
    await _act(ctx, "DRAW " + " ".join(parts))


async def stand(ctx: Context, rest: str) -> None:
    args.words(rest, 0, 0)
    await _act(ctx, "DRAW")


async def hand(ctx: Context, rest: str) -> None:
    args.words(rest, 0, 0)
    game = _seated(ctx)
    view = game.view(game.seat_of(ctx.account.id))
    if ctx.session.screenreader:  # each card in words, a card a line
        ctx.send("\n".join(triad_spoken.ask_hand(view, [])))
        return
    ctx.send(engine.hand_text(view))


COMMANDS = (
    Command("tables", tables_, "TRIAD TABLES", "List the open Triad tables: opening bet, "
            "limit, buy-in, free seats, players and watchers."),
    Command("open", open_, "TRIAD OPEN [<opening>] [LIMIT <n>|NOLIMIT] [SEATS <n>] [BUYIN <n>]",
            "Open a table and sit at it. The opening bet (default 10) is each player's ante "
            "and also the smallest bet and raise; LIMIT caps a single raise (default "
            "NOLIMIT); SEATS is 2 to 6 (default 6); BUYIN is what each player brings by "
            "default (20 opening bets unless you say). You bring the buy-in."),
    Command("join", join, "TRIAD JOIN <table> [<cubits>]",
            "Sit down at a table with <cubits> from your balance (default: the table's "
            "buy-in, or all you have if less; at least the opening bet). During a hand you "
            "sit out until the next one.", aliases=("sit",)),
    Command("leave", leave, "TRIAD LEAVE", "Get up from your table: your stack goes back "
            "to your balance. If you are still in a hand, you leave when it ends and pass "
            "or fold meanwhile (TRIAD BACK to stay)."),
    Command("back", back, "TRIAD BACK", "Stay at the table after all: takes back a TRIAD "
            "LEAVE (or being away) before the hand ends."),
    Command("start", start, "TRIAD START", "Deal the first hand (two players who can pay "
            "the opening bet are needed), or the next one between hands.",
            aliases=("deal",)),
    Command("bot", bot, "TRIAD BOT [<n>] [EASY|NORMAL|HARD]",
            "Seat <n> computer players (default 1, level NORMAL) at your table, each with "
            "the table's buy-in paid by the house. They draw by sampling the cards they "
            "might get and bet on an estimate of their hand's strength. A computer player "
            "that can no longer pay the opening bet leaves.", aliases=("bots",)),
    Command("pass", _simple("PASS"), "TRIAD PASS", "Bet nothing when nobody has raised in "
            "this round.", aliases=("check",)),
    Command("equal", _simple("EQUAL"), "TRIAD EQUAL", "Put in what it takes to equal the "
            "last raise (all you have, all in, if that is less).", aliases=("call",)),
    Command("raise", raise_, "TRIAD RAISE <n>", "Raise by <n> cubits over the bet to equal: "
            "at least the opening bet, at least the largest raise before it in this round, "
            "at most the table's limit."),
    Command("fold", _simple("FOLD"), "TRIAD FOLD", "Give up this hand (and what you put "
            "in)."),
    Command("discard", discard, "TRIAD DISCARD <positions…>", "In the draw: throw away 1 to "
            "4 cards by position (1-6, as TRIAD HAND shows them) or by code (14B, C), and "
            "get as many new ones. TRIAD STAND keeps all six.", aliases=("draw",)),
    Command("stand", stand, "TRIAD STAND", "In the draw: keep all six cards."),
    Command("hand", hand, "TRIAD HAND", "Show your cards, with their positions and the "
            "hand they make."),
)


def _status(ctx: Context, account, record, game) -> list[str]:  # noqa: ANN001
    """TRIAD STATUS: Triad is played for cubits, never rated; tables won and lost when they
    closed, and the table the player sits at now (its hands, their stack)."""
    lines = ["Triad is played for cubits and never rated."]
    if record is not None:
        won, lost, drawn = (record.unranked_wins + record.ranked_wins,
                            record.unranked_losses + record.ranked_losses,
                            record.unranked_draws + record.ranked_draws)
        lines.append(f"Tables closed: {won} won, {lost} lost, {drawn} with no single winner.")
    elif game is None:
        lines.append("No table closed yet.")
    if game is not None:
        seat = game.seat_of(account.id)
        pos = game.state.position(seat) if seat is not None else None
        stack = game.view(seat)["seats"][pos]["stack"] if pos is not None else None
        hands = game.state.game.hand_no
        lines.append(f"At table #{game.id}: {hands} hand{'s' if hands != 1 else ''} dealt"
                     + (f"; a stack of {stack} cubits." if stack is not None else "."))
    return lines


UNRANKED = ("Triad is never ranked: it is played for cubits. TRIAD STATUS <person> shows "
            "the tables a player won and lost; FINGER their records.")

GAME = GameCommands(
    KEY, help=HELP, commands=COMMANDS, kind=service.TriadTables, status=_status,
    questions=triad_spoken.QUESTIONS,
    unranked=UNRANKED,
    groups={"tables": "Tables", "open": "Tables", "join": "Tables", "bot": "Tables",
            "start": "Tables", "leave": "Tables", "back": "Tables", "pass": "Betting",
            "equal": "Betting", "raise": "Betting", "fold": "Betting", "discard": "Draw",
            "stand": "Draw", "hand": "Draw"})

__all__ = ["COMMANDS", "GAME", "HELP"]
