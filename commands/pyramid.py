"""Pyramid's commands: the ``PYR`` subcommands of the original game
(docs/rules/pyramid.md) (NEW, HINT, AUTO, QUIT, TOUR, RESTORE, SAVE, SCORE, TOP10, EXIT,
CONFIG, INFO) and SOLUTION, and :func:`play`, the kind's handler for moves (``PYR 7,1
6,3``, ``PYR 71 63``, ``PYR P``, ``PYR D``, keypad digits) and for ``PYR`` alone.

The rest of the family (CHALLENGE, ACCEPT, DECLINE, WITHDRAW, RESIGN, DISPLAY, GAMES,
STATUS, RANKINGS, HELP) comes from :func:`commands.games.game_family`. Handlers parse,
call the Pyramid service (``server/services/pyramid.py``) or the game host, and write
the answer; a wrong use raises UsageError (its usage line is shown). The rules of the
table (SAVE, EXIT and NEW; which commands each mode has) and their refusals are the
engine's (``games/pyramid/match.py``): a handler asks it and relays its RuleError.
"""

from __future__ import annotations

import time

import attrs

from commands import args, basics
from commands.registry import Command, CommandError, Context, GameCommands, UsageError
from games.pyramid import spoken as pyr_spoken
from games.errors import BadNotation, RuleError, quoted
from games.pyramid import match as engine
from games.pyramid import notation, rules
from games.pyramid.cards import card_text
from games.pyramid.match import sentence
from server.services import pyramid
from server.services.games import GameError, LiveGame
from server.services.pyramid import BELL, KEY, SOUNDS, SPEEDS, Prefs
from server.workers import Asker
from server.text import bold, columns, counted, table, wrap


# -- helpers --------------------------------------------------------------------------------
def _svc(ctx: Context) -> pyramid.Pyramid:
    """Pyramid's service: its kind as the host hosts it."""
    return ctx.host.kind(KEY)


def _asker(ctx: Context) -> Asker:
    """The player at the solver (its turns are by address, then by player); the service
    keeps the address for the verdicts their games' ends will ask for."""
    return _svc(ctx).asker(ctx.account.id, ctx.session.address)



def _game(ctx: Context) -> LiveGame | None:
    return ctx.host.game_of(ctx.account.id, KEY)


def _playing(ctx: Context) -> LiveGame:
    game = _game(ctx)
    if game is None:
        raise CommandError("You are not playing Pyramid. PYR NEW deals a game; PYR TOUR "
                           "starts a tournament.")
    return game


def _tournament(game: LiveGame | None) -> bool:
    return game is not None and game.state.mode == "tournament"



def _say(ctx: Context, text: str) -> None:
    ctx.send("\n".join(wrap(text, min(ctx.session.width, 80))))


def _yes(parts: list[str]) -> bool:
    """A trailing YES (the original game's confirmation dialog); it is taken off ``parts``."""
    if parts and parts[-1].upper() in ("YES", "Y"):
        parts.pop()
        return True
    return False


def _standing(match: rules.State) -> str:
    """What ending the current game now would score."""
    g = match.game
    return f"{counted(g.cards_left, 'card')} left, Par score {rules.par_score(g):+d} if it ends now"


async def _end_standard(ctx: Context, game: LiveGame) -> None:
    """End the player's standard game as it stands (it is scored, told and analysed)."""
    _asker(ctx)  # its verdict waits in this address's turn
    _svc(ctx).stop_auto(ctx.account.id)
    await args.guarded(ctx.host.act(ctx.account.id, KEY, rules.END))


def _refuse(ctx: Context, prefs: Prefs, message: str) -> None:
    """A refused move: the message (with the bell unless Sound is off), or with Error
    messages off only the bell."""
    bell = BELL if prefs.sound != "off" else ""
    if prefs.errors:
        ctx.send(bell + sentence(message))
    elif bell:
        ctx.send(bell)
    else:
        ctx.send("Refused.")


# -- moves and the board ----------------------------------------------------------------------
async def play(ctx: Context, rest: str) -> None:
    """``PYR`` alone shows the board; other words that are no subcommand are a move."""
    _asker(ctx)  # a move may end a game: its verdict waits in this address's turn
    svc = _svc(ctx)
    prefs = svc.prefs(ctx.account)
    game = _game(ctx)
    if not rest:
        if game is None:
            saved = await svc.saves(ctx.account.id)
            extra = (f" You have {len(saved)} saved tournament{'s' if len(saved) != 1 else ''}:"
                     " PYR RESTORE." if saved else "")
            _say(ctx, "You are not playing Pyramid. PYR NEW deals a standard game, PYR TOUR "
                      "NONE|COMPUTER|HUMAN <person> starts a tournament, PYR HELP explains."
                      + extra)
            return
        ctx.presentation.show(ctx.session, game)
        return
    if rest.strip() == "?":
        await basics.help_(ctx, "PYR")
        return
    first = rest.split()[0]
    try:
        action = notation.parse_action(rest)
    except BadNotation as err:
        # one line, whatever was typed: the notation's refusal says how a move is typed
        if first.isalpha() and len(first) > 1 and first.upper() not in ("DEAL", "DISCARD", "END"):
            word = first.upper() if len(first) <= 12 else first.upper()[:11] + "\u2026"
            raise CommandError(f"PYR {word}: there is no such PYR command. PYR HELP lists "
                               "them.") from None
        raise CommandError(sentence(str(err))) from None
    if game is None:
        raise CommandError("You are not playing Pyramid. PYR NEW deals a game; PYR TOUR "
                           "starts a tournament.")
    if svc.stop_auto(ctx.account.id):
        ctx.send("AUTO stops: you play on.")
    try:
        await ctx.host.act(ctx.account.id, KEY, action)
    except GameError as err:
        raise CommandError(str(err)) from None
    except RuleError as err:
        _refuse(ctx, prefs, str(err))


# -- standard play ----------------------------------------------------------------------------
async def new(ctx: Context, rest: str) -> None:
    parts = args.words(rest, 0, 1)
    yes = _yes(parts)
    if parts:
        raise UsageError()
    svc = _svc(ctx)
    game = _game(ctx)
    if game is None:
        await args.guarded(svc.start_standard(args.me(ctx)))
        return
    seat = game.seat_of(ctx.account.id)
    table_ = game.state
    if not _tournament(game):
        if game.version > 0 and not yes:
            _say(ctx, f"NEW ends this game as it stands ({_standing(table_.matches[seat])}). "
                      "Type PYR NEW YES to deal a new one.")
            return
        await _end_standard(ctx, game)
        await args.guarded(svc.start_standard(args.me(ctx)))
        return
    engine.check_close(table_, seat, engine.RENEW)  # refused against a person
    if not yes:
        _say(ctx, f"NEW abandons this tournament ({table_.summary(seat)}) and starts a new "
                  "match with the same settings. Type PYR NEW YES to do it (PYR SAVE puts "
                  "this one away instead).")
        return
    await args.guarded(ctx.host.act(ctx.account.id, KEY, engine.Close(engine.RENEW)))
    await args.guarded(svc.restart(game))


async def quit_(ctx: Context, rest: str) -> None:
    parts = args.words(rest, 0, 1)
    yes = _yes(parts)
    if parts:
        raise UsageError()
    game = _playing(ctx)
    engine.check_command(game.state, "QUIT")
    seat = game.seat_of(ctx.account.id)
    if game.version > 0 and not yes:
        _say(ctx, f"QUIT ends this game as it stands ({_standing(game.state.matches[seat])}). "
                  "Type PYR QUIT YES to end it.")
        return
    await _end_standard(ctx, game)


async def hint(ctx: Context, rest: str) -> None:
    args.words(rest, 0, 0)
    game = _playing(ctx)
    engine.check_command(game.state, "HINT")
    svc = _svc(ctx)
    prefs = svc.prefs(ctx.account)
    seat = game.seat_of(ctx.account.id)
    try:
        action = await svc.hint(game, seat, _asker(ctx))
    except pyramid.SolverBusy as busy:
        raise CommandError(str(busy)) from None
    bell = BELL if prefs.sound != "off" else ""
    if action is None:
        ctx.send(bell + "No move is possible.")
        return
    g = game.state.matches[seat].game
    if action.kind == "deal":
        what = "D turns the next card from the Pack" if g.pack else "D redeals the Waste Pile"
        ctx.send(f"{bell}No cards can be removed now: {what} (PYR D).")
        return
    cards = " + ".join(card_text(g.card_at(s)) for s in action.spots)
    ctx.send(f"Hint: PYR {notation.format_action(action)} ({cards}).")


async def auto(ctx: Context, rest: str) -> None:
    parts = args.words(rest, 0, 1)
    svc = _svc(ctx)
    if parts:
        if parts[0].upper() not in ("STOP", "OFF"):
            raise UsageError()
        if not svc.stop_auto(ctx.account.id):
            raise CommandError("AUTO is not playing.")
        ctx.send("AUTO stops: you play on.")
        return
    game = _playing(ctx)
    engine.check_command(game.state, "AUTO")
    if svc.auto_running(ctx.account.id):
        raise CommandError("AUTO is already playing your game; PYR AUTO STOP stops it.")
    speed = svc.prefs(ctx.account).speed
    svc.start_auto(ctx.account.id, game)
    ctx.send(f"AUTO finishes your game at {speed} speed (PYR AUTO STOP, or any move of "
             "yours, stops it).")


# -- tournaments ------------------------------------------------------------------------------
async def _leave_standard(ctx: Context, yes: bool, what: str) -> bool:
    """Before a tournament: end a standard game in progress (asking first if it has
    moves). False if the player must confirm."""
    game = _game(ctx)
    if game is None:
        return True
    engine.check_command(game.state, "TOUR")
    if game.version > 0 and not yes:
        seat = game.seat_of(ctx.account.id)
        _say(ctx, f"Your standard game is in progress ({_standing(game.state.matches[seat])}). "
                  f"Type {what} YES to end it and go on.")
        return False
    await _end_standard(ctx, game)
    return True


async def tour(ctx: Context, rest: str) -> None:
    parts = args.words(rest, 0, 4)
    yes = _yes(parts)
    what = parts[0].lower() if parts else "none"  # PYR TOUR alone: a tournament alone
    svc = _svc(ctx)
    if what == "restore":
        await _restore(ctx, parts[1:], yes)
        return
    if what in ("none", "alone", "solo"):
        if len(parts) > 1:
            raise UsageError()
        if await _leave_standard(ctx, yes, f"PYR TOUR {what.upper()}"):
            await args.guarded(svc.start_tournament(args.me(ctx)))
        return
    if what in ("computer", "cpu"):
        if len(parts) > 2 or (len(parts) == 2 and parts[1].lower() not in engine.LEVELS):
            raise UsageError()
        level = parts[1].lower() if len(parts) == 2 else "normal"
        if await _leave_standard(ctx, yes, f"PYR TOUR {' '.join(parts).upper()}"):
            prefs = svc.prefs(ctx.account)
            await args.guarded(svc.start_tournament(args.me(ctx), level, prefs.same_deck))
        return
    if what in ("human", "person", "player"):
        parts = parts[1:]
    if len(parts) != 1:
        raise UsageError()
    name = (await args.online(ctx, parts[0])).name  # before a standard game in progress is ended
    if name.lower() == ctx.account.name.lower():
        raise CommandError("You cannot play a tournament against yourself; PYR TOUR NONE "
                           "plays one alone.")
    if not await _leave_standard(ctx, yes, f"PYR TOUR HUMAN {name}"):
        return
    prefs = svc.prefs(ctx.account)
    offer = await args.guarded(ctx.host.offer(KEY, args.me(ctx), name,
                                        {"mode": "tournament",
                                         "same_deck": prefs.same_deck}))
    ctx.send(f"You offer {offer.target.name} {offer.describe()}. They PYR ACCEPT "
             f"{ctx.account.name}; PYR WITHDRAW takes it back.")


async def restore(ctx: Context, rest: str) -> None:
    parts = args.words(rest, 0, 2)
    yes = _yes(parts)
    await _restore(ctx, parts, yes)


async def _restore(ctx: Context, parts: list[str], yes: bool) -> None:
    if len(parts) > 1:
        raise UsageError()
    svc = _svc(ctx)
    game = _game(ctx)
    if _tournament(game):
        seat = game.seat_of(ctx.account.id)
        ctx.send(f"Your tournament is in play ({game.state.summary(seat)}); it needs no "
                 "RESTORE.")
        ctx.presentation.show(ctx.session, game)
        return
    saved = await svc.saves(ctx.account.id)
    if not saved:
        raise CommandError("You have no saved tournament (in tournament play PYR SAVE puts "
                           "one away).")
    if parts:
        number = args.game_number(parts[0])
        chosen = next((s for s in saved if s.id == number), None)
        if chosen is None:
            raise CommandError(f"You have no saved tournament #{number}.")
    elif len(saved) == 1:
        chosen = saved[0]
    else:
        lines = ["Your saved tournaments (PYR RESTORE <number>):"]
        for s in saved:
            when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(s.created_at))
            lines.append(f"  #{s.id}  {s.summary}  (saved {when} UTC)")
        ctx.send("\n".join(lines))
        return
    if not await _leave_standard(ctx, yes, f"PYR RESTORE {chosen.id}"):
        return
    await args.guarded(svc.restore(args.me(ctx), chosen))


async def save(ctx: Context, rest: str) -> None:
    args.words(rest, 0, 0)
    game = _playing(ctx)
    engine.check_close(game.state, game.seat_of(ctx.account.id), engine.SAVE)
    _svc(ctx).stop_auto(ctx.account.id)
    await args.guarded(ctx.host.act(ctx.account.id, KEY, engine.Close(engine.SAVE)))


async def exit_(ctx: Context, rest: str) -> None:
    parts = args.words(rest, 0, 1)
    yes = _yes(parts)
    if parts:
        raise UsageError()
    game = _playing(ctx)
    seat = game.seat_of(ctx.account.id)
    table_ = game.state
    closing = engine.check_close(table_, seat, engine.EXIT)  # RESIGN against a person
    if not yes:
        if closing == engine.RESIGN:
            _say(ctx, f"EXIT resigns this tournament ({table_.summary(seat)}): your opponent "
                      "wins. Type PYR EXIT YES to do it.")
        else:
            _say(ctx, f"EXIT abandons this tournament ({table_.summary(seat)}). PYR SAVE puts "
                      "it away instead; PYR EXIT YES abandons it.")
        return
    await args.guarded(ctx.host.act(ctx.account.id, KEY, engine.Close(engine.EXIT)))
    ctx.send("You are back in standard play: PYR NEW deals a game.")


async def score(ctx: Context, rest: str) -> None:
    args.words(rest, 0, 0)
    game = _playing(ctx)
    table_ = game.state
    me = game.seat_of(ctx.account.id)
    if not _tournament(game):
        ctx.send(f"Standard game: {_standing(table_.matches[me])}.")
        return
    rows = []
    order = [me] + [i for i in range(len(table_.matches)) if i != me]
    for i in order:
        m = table_.matches[i]
        scores = [f"{s:+d}" for s in m.scores] + ["" for _ in range(m.n_games - len(m.scores))]
        state = "done" if m.over else f"game {m.game_no}"
        rows.append([game.seats[i].name, *scores, f"{m.total:+d}", state])
    heads = ["Player", *(f"G{n}" for n in range(1, 7)), "Net", "Now"]
    ctx.send("\n".join([bold("Tournament scores (par is a net zero)"), *table(heads, rows)]))


async def top10(ctx: Context, rest: str) -> None:
    if args.words(rest, 0, 1) not in ([], ["10"]):  # PYR TOP10, PYR TOP 10
        raise UsageError()
    rows = await _svc(ctx).top10()
    if not rows:
        ctx.send("The TOP 10 is empty: finish a tournament above zero to enter it.")
        return
    body = [[str(i), r.name, f"{r.score:+d}", time.strftime("%Y-%m-%d", time.gmtime(r.created_at)),
             r.opponent or "alone"] for i, r in enumerate(rows, 1)]
    ctx.send("\n".join([bold("Pyramid TOP 10 (tournament net scores)"),
                        *table(["#", "Name", "Score", "Date", "Against"], body)]))


# -- everywhere -------------------------------------------------------------------------------
_OPTION = {"speed": "speed", "error": "errors", "errors": "errors", "messages": "errors",
           "errormessages": "errors", "errormsg": "errors", "same": "same_deck",
           "samedeck": "same_deck", "usesamedeck": "same_deck", "deck": "same_deck",
           "sound": "sound"}
_SWITCH = {"-slow": ("speed", "slow"), "-medium": ("speed", "medium"),
           "-fast": ("speed", "fast"), "-fullsound": ("sound", "full"),
           "-partsound": ("sound", "partial"), "-nosound": ("sound", "off"),
           "-errormsgon": ("errors", True), "-errormsgoff": ("errors", False)}
_YES = {"yes": True, "y": True, "on": True, "no": False, "n": False, "off": False}


def _value(option: str, word: str):  # noqa: ANN202
    w = word.lower()
    if option == "speed":
        found = [s for s in SPEEDS if s == w or s[0] == w]
    elif option == "sound":
        found = [s for s in SOUNDS if s == w or s[0] == w or (w == "part" and s == "partial")]
    else:
        found = [_YES[w]] if w in _YES else []
    if not found:
        choices = {"speed": "SLOW, MEDIUM or FAST", "sound": "FULL, PARTIAL or OFF"}.get(
            option, "YES or NO")
        raise UsageError(f"{quoted(word)} is not a value for {option.replace('_', ' ')} "
                         f"({choices}).")
    return found[0]


async def config(ctx: Context, rest: str) -> None:
    svc = _svc(ctx)
    prefs = svc.prefs(ctx.account)
    words = rest.split()
    if not words:
        ctx.send("\n".join([bold("Your Pyramid config (PYR CONFIG <option> <value>)"),
                            *prefs.describe()]))
        return
    changes: dict = {}
    i = 0
    while i < len(words):
        word = words[i].lower()
        if word in ("-mouse", "-nomouse", "-ask", "mouse"):
            raise CommandError("Mouse has no meaning over telnet: you type your moves.")
        if word in _SWITCH:
            key, value = _SWITCH[word]
            changes[key] = value
            i += 1
            continue
        option = _OPTION.get(word)
        if option is None:
            raise UsageError(f"{quoted(words[i])} is not an option (SPEED, ERRORS, SAMEDECK, "
                             "SOUND).")
        i += 1
        if option == "same_deck" and i < len(words) and words[i].lower() == "deck":
            i += 1  # "SAME DECK YES"
        if i >= len(words):
            raise UsageError(f"Give a value for {option.replace('_', ' ')}.")
        changes[option] = _value(option, words[i])
        i += 1
    prefs = await svc.set_prefs(ctx.account, attrs.evolve(prefs, **changes))
    ctx.send("\n".join([bold("Config saved:"), *prefs.describe()]))


async def info(ctx: Context, rest: str) -> None:
    args.words(rest, 0, 0)
    _say(ctx, pyramid.INFO)


async def solution(ctx: Context, rest: str) -> None:
    args.words(rest, 0, 0)
    svc = _svc(ctx)
    deal = await svc.last_deal(ctx.account.id)
    if deal is None:
        raise CommandError("You have not finished a game of Pyramid yet.")
    waiting = svc.still_playing(deal, ctx.account.id)
    if waiting:
        raise CommandError(f"{' and '.join(waiting)} is still playing that deal (the same "
                           "cards as yours); PYR SOLUTION shows it once they have finished.")
    if ctx.account.id in svc.solving:
        raise CommandError("The solver is still working on your last PYR SOLUTION.")
    if not svc.has_line(deal.seed):
        ctx.send("The solver is working it out (a few seconds)...")
    svc.solving.add(ctx.account.id)
    try:
        line = await svc.solution(deal, _asker(ctx))
    except pyramid.SolverBusy as busy:
        raise CommandError(str(busy)) from None
    finally:
        svc.solving.discard(ctx.account.id)
    found = line.best
    tokens = pyramid.line_tokens(deal.seed, found.moves)
    head = pyramid.solution_text(deal, line)
    items = [f"{n}. {t}" for n, t in enumerate(tokens, 1)]
    width = min(ctx.session.width, 80)
    ctx.send("\n".join([*wrap(head, width), *columns(items, width)]))


USAGE_TOUR = "PYR TOUR [NONE|COMPUTER [EASY|NORMAL|HARD]|HUMAN <person>|RESTORE [<save>]] [YES]"

COMMANDS = (
    Command("new", new, "PYR NEW [YES]",
            "Standard play: deal a new game (a game in progress ends as it stands; with moves "
            "made, confirm with YES). Tournament play: a new match with the same settings, "
            "this one abandoned (confirm with YES)."),
    Command("hint", hint, "PYR HINT",
            "Standard play: the best move the engine finds from what you can see (two cards "
            "that total 13, a King, or D), or says that no move is possible."),
    Command("auto", auto, "PYR AUTO [STOP]",
            "Standard play: the computer finishes your game, one move at your configured "
            "speed. PYR AUTO STOP, or any move of yours, stops it."),
    Command("quit", quit_, "PYR QUIT [YES]",
            "Standard play: end your game as it stands (with moves made, confirm with YES). "
            "In tournament play use EXIT."),
    Command("tour", tour, USAGE_TOUR,
            "Switch to tournament play, six games: NONE (or nothing) plays alone, COMPUTER "
            "against the computer (it sees only the pyramid and the turned cards, and plays "
            "at your configured speed), HUMAN <person> offers a tournament to a connected player "
            "(both play at once and see each other's running score; with Use Same Deck both "
            "get the same deals), RESTORE takes up a saved tournament. A standard game in "
            "progress ends as it stands (confirm with YES).", aliases=("tournament",)),
    Command("restore", restore, "PYR RESTORE [<save>] [YES]",
            "Take up a tournament put away with PYR SAVE (with several, give its number). "
            "A tournament in play needs no RESTORE: it survives a disconnect or a restart."),
    Command("save", save, "PYR SAVE",
            "Tournament play: put your tournament away (the computer waits too); PYR RESTORE "
            "takes it up again exactly where it was. Not against a person."),
    Command("score", score, "PYR SCORE",
            "Your scores: each tournament game's Par score and the net, and your opponent's; "
            "in standard play, what the game would score if it ended now."),
    Command("top10", top10, "PYR TOP10 (or PYR TOP 10)",
            "The ten best tournament net scores above zero, kept for the whole server.",
            aliases=("top",)),
    Command("exit", exit_, "PYR EXIT [YES]",
            "Leave tournament play (confirm with YES): the tournament is abandoned (against "
            "a person: resigned). PYR SAVE keeps it instead."),
    Command("config", config, "PYR CONFIG [<option> <value> ...]",
            "Show or set your Pyramid config, kept with your account: SPEED SLOW|MEDIUM|FAST "
            "(the computer and AUTO), ERRORS YES|NO (NO: a refused move only rings the "
            "bell), SAMEDECK YES|NO (Use Same Deck in tournaments), SOUND FULL|PARTIAL|OFF "
            "(the terminal bell on game end and errors; PARTIAL: errors only). The original game's "
            "switches work too: PYR CONFIG -fast -nosound -errormsgoff."),
    Command("info", info, "PYR INFO", "Version and credits."),
    Command("solution", solution, "PYR SOLUTION",
            "How your last finished deal could have been played, seeing every card: the "
            "solver's best Par line, move by move (D xN is N D's in a row)."),
)

GAME = GameCommands(
    KEY, help=pyramid.HELP, commands=COMMANDS, act=play, kind=pyramid.Pyramid,
    questions=pyr_spoken.QUESTIONS,
    groups={"new": "Standard", "hint": "Standard", "auto": "Standard", "quit": "Standard",
            "tour": "Tournament", "challenge": "Tournament", "accept": "Tournament",
            "decline": "Tournament", "withdraw": "Tournament", "restore": "Tournament",
            "save": "Tournament", "score": "Tournament", "top10": "Tournament",
            "exit": "Tournament", "config": "Anytime", "info": "Anytime",
            "solution": "Anytime"},
    moves="Moves: PYR 7,1 6,3 (two cards to 13), PYR 7,4 (a King), PYR P 7,2 (P = Pack, "
          "W = Waste), PYR D (deal). PYR END ends the game.")
