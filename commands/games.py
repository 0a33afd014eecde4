"""Playing, shared by every game: the generic verbs (GAMES, OBSERVE, REPLAY, PENDING,
ACCEPT, DECLINE, WITHDRAW, CLAIM, RANKINGS) and :func:`game_family`, which builds the
prefix family of one game (``DICE CHALLENGE …``, ``DICE REMATCH``, ``DICE MOVE c1 3 NE``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from commands import args, basics
from commands.registry import Command, CommandError, Context, GameCommands
from games.errors import BadNotation, RuleError
from server.services.correspondence import MAX_DAYS, MIN_DAYS
from server.services.games import GameError, GameHost, LiveGame, Offer
from server.services.ratings import RATED_MOVES, pool, rating_text
from server.text import bold, counted, wrap

if TYPE_CHECKING:
    from server.hosting import GameKind




def _kind_named(ctx: Context, word: str) -> "GameKind":
    """The game ``word`` names: its key, prefix or title exactly, else the one game whose
    title begins with it ("triad" is Triad, though "Triad Dice" begins with it too)."""
    kind = ctx.host.kind_named(word)
    if kind is not None:
        return kind
    word = word.lower()
    kinds = list(ctx.host.kinds.values())
    begun = [k for k in kinds if k.title.lower().startswith(word)]
    if len(begun) == 1:
        return begun[0]
    if begun:
        raise CommandError(f"{word!r} names more than one game: "
                           f"{', '.join(k.title for k in begun)}.")
    known = ", ".join(k.prefix for k in kinds)
    raise CommandError(f"There is no game called {word!r}. Games: {known}.")



async def _games_table(ctx: Context, kind_key: str | None = None) -> str:
    """The games in play (on every node of a cluster), from their watchers' frames."""
    rows = []
    for f in await ctx.host.frames_in_play(kind_key):
        turn = "(adjourned)" if f.adjourned else \
            ", ".join(f.seats[s].name for s in f.to_move) or "-"
        rows.append([f"#{f.game}", f.kind_title,
                     " vs ".join(s.name for s in f.seats if not s.left),
                     str(f.version), turn, str(f.watchers)])
    if not rows:
        return "No games in play."
    return "\n".join(ctx.table(["Game", "Kind", "Players", "Moves", "To move", "Watching"],
                                rows))


# -- the generic verbs --------------------------------------------------------------------
async def games_(ctx: Context, rest: str) -> None:
    parts = args.words(rest, 0, 1)
    kind = _kind_named(ctx, parts[0]) if parts else None
    ctx.send(await _games_table(ctx, kind.key if kind else None))


async def observe(ctx: Context, rest: str) -> None:
    number = args.game_number(args.words(rest, 1, 1)[0])
    try:
        game = ctx.host.get_live(number)
    except GameError as err:
        try:
            await ctx.host.record(number)
        except GameError:
            raise CommandError(f"There is no game #{number}. GAMES lists the games in "
                               "play.") from None
        raise CommandError(f"{err} (REPLAY {number} shows a finished game.)") from None
    if game.seat_of(ctx.account.id) is not None:
        ctx.presentation.show(ctx.session, game)
        return
    withheld = game.kind.spec.withheld(game.state)
    if withheld is not None:
        raise CommandError(f"Game #{game.id} may not be watched: {withheld}")
    ctx.session.subscribe(f"game:{game.id}")
    ctx.session.watching = ctx.session.watching | {game.id}
    ctx.send(f"You are now watching game #{game.id}. (UNOBSERVE {game.id} to stop.)")
    ctx.presentation.show(ctx.session, game)


async def unobserve(ctx: Context, rest: str) -> None:
    parts = args.words(rest, 0, 1)
    watching = ctx.session.watching
    if not watching:
        raise CommandError("You are not watching any game.")
    numbers = [args.game_number(parts[0])] if parts else sorted(watching)
    for number in numbers:
        if number not in watching:
            raise CommandError(f"You are not watching game #{number}.")
        ctx.session.unsubscribe(f"game:{number}")
        ctx.session.watching = ctx.session.watching - {number}
        ctx.send(f"You stop watching game #{number}.")


async def replay(ctx: Context, rest: str) -> None:
    parts = args.words(rest, 1, 2)
    number = args.game_number(parts[0])
    upto = args.whole_number(parts[1], what="move number") if len(parts) > 1 else None
    game, moves, words = await args.guarded(ctx.host.records.replay_told(number, upto))
    lines = [bold(game.title)]
    if upto is None:
        for move, said in zip(moves, words):
            lines.append(f"{move.seq:>3}. {said}")
        if game.outcome is not None:
            lines.append(ctx.host.describe_outcome(game, game.outcome))
        else:
            lines.append(f"Still in play after {counted(len(moves), 'move')}.")
        lines.append(f"(REPLAY {number} <move> shows the board after that move.)")
    else:
        lines.append(f"After move {upto} of {len(moves)}"
                     + (f" ({words[upto - 1]})" if upto else "") + ":")
    lines.append(ctx.presentation.board(ctx.session, game.frame(None), titled=False))
    ctx.send("\n".join(lines))


async def pending(ctx: Context, rest: str) -> None:
    to_me, from_me = await ctx.host.all_pending(ctx.account.id)
    lines = []
    for offer in to_me:
        lines.append(f"  from {offer.challenger.name}: {offer.describe()}  "
                     f"({offer.kind.prefix} ACCEPT {offer.challenger.name})")
    lines.insert(0, "Offers to you:" if to_me else "No offers to you.")
    lines.append("Offers from you:" if from_me else "No offers from you.")
    for offer in from_me:
        lines.append(f"  to {offer.target.name}: {offer.describe()}")
    ctx.send("\n".join(lines))


# what RANKINGS and a ranked game's CHALLENGE help say of short games
SHORT_GAMES = (f"A ranked game that ends before move {RATED_MOVES} (resigned, claimed or "
               "lost on time at once) is not rated: it counts as an unranked game.")


async def _the_one_offer(ctx: Context, kind_key: str | None, verb: str) -> str:
    """The challenger of the one offer to the player (of ``kind_key``, or of any game;
    correspondence challenges too), for ACCEPT or DECLINE typed alone; with none, or
    offers from several people, a one-line refusal that says what to type."""
    offers = [o for o in (await ctx.host.all_pending(ctx.account.id))[0]
              if kind_key is None or o.kind.key == kind_key]
    if not offers:
        raise CommandError("Nobody has challenged you. PENDING lists the offers.")
    names = sorted({o.challenger.name for o in offers})
    if len(names) > 1:
        typed = f"{offers[0].kind.prefix} {verb}" if kind_key is not None else verb
        raise CommandError(f"Offers from {', '.join(names)}: {typed} <person> "
                           f"{verb.lower()}s one.")
    return names[0]


async def accept(ctx: Context, rest: str, kind_key: str | None = None) -> None:
    parts = args.words(rest, 0, 1)
    name = parts[0] if parts else await _the_one_offer(ctx, kind_key, "ACCEPT")
    await args.guarded(ctx.host.accept(kind_key, args.me(ctx), name))


async def decline(ctx: Context, rest: str, kind_key: str | None = None) -> None:
    parts = args.words(rest, 0, 1)
    name = parts[0] if parts else await _the_one_offer(ctx, kind_key, "DECLINE")
    try:
        offer = await ctx.host.decline(kind_key, args.me(ctx), name)
    except GameError as err:
        raise CommandError(str(err)) from None
    ctx.send(f"You decline {offer.challenger.name}'s offer of {offer.describe()}.")


async def withdraw(ctx: Context, rest: str, kind_key: str | None = None) -> None:
    parts = args.words(rest, 0, 1)
    try:
        gone = await ctx.host.withdraw(kind_key, args.me(ctx), parts[0] if parts else None)
    except GameError as err:
        raise CommandError(str(err)) from None
    for offer in gone:
        ctx.send(f"You withdraw your offer of {offer.describe()} to {offer.target.name}.")


async def claim(ctx: Context, rest: str, kind_key: str | None = None) -> None:
    args.words(rest, 0, 0)
    host = ctx.host
    if kind_key is None:
        mine = host.games_of(ctx.account.id)
        waiting = [g for g in mine if any(s != g.seat_of(ctx.account.id) for s in g.absent)]
        if not waiting:
            raise CommandError("None of your opponents is away; there is nothing to claim.")
        kind_key = waiting[0].kind.key
    await args.guarded(host.claim(ctx.account.id, kind_key))


async def rankings(ctx: Context, rest: str, kind_key: str | None = None) -> None:
    """``RANKINGS <game> [CORR]``: the best ranked players of a game (CORR: of its
    correspondence games, rated in a pool of their own)."""
    if kind_key is None:
        parts = args.words(rest, 1, 2)
        kind, rest = _kind_named(ctx, parts[0]), " ".join(parts[1:])
    else:
        kind = ctx.host.kinds[kind_key]
    words = args.words(rest, 0, 1 if kind.correspondence else 0)
    by_letter = bool(words)
    if by_letter and words[0].lower() not in ("corr", "correspondence"):
        raise CommandError(f"RANKINGS {kind.prefix} CORR ranks the correspondence games of "
                           f"{kind.title}.")
    own = ctx.registry.game(kind.key)
    if own is not None and own.unranked:  # a game never ranked says what it counts
        ctx.send(own.unranked)
        return
    rows = await ctx.ratings.rankings(pool(kind.key, 1 if by_letter else None))
    title = f"Correspondence {kind.title}" if by_letter else kind.title
    levels = [] if by_letter else _levels(kind)
    if not rows:
        ctx.send("\n".join([f"Nobody has played a ranked game of {title} yet.", *levels]))
        return
    lines = [bold(f"{title} rankings")]
    lines.extend(ctx.table(["#", "Name", "Rating", "W-L-D"], [
        [str(i), name, rating_text(r.rating, r.rd),
         f"{r.ranked_wins}-{r.ranked_losses}-{r.ranked_draws}"]
        for i, (name, r) in enumerate(rows, 1)]))
    ctx.send("\n".join([*lines, *levels]))


def _levels(kind: "GameKind") -> list[str]:
    """The computer's levels and how strong each is (rated among themselves), as a line."""
    if not kind.level_ratings:
        return []
    rated = ", ".join(f"{level.upper()} {rating}" for level, rating in kind.level_ratings)
    return [f"The computer's levels, rated against each other: {rated}."]


def _either(levels: tuple[str, ...]) -> str:
    """("easy", "normal", "hard") as "EASY, NORMAL or HARD"."""
    words = [level.upper() for level in levels]
    return " or ".join([", ".join(words[:-1]), words[-1]] if len(words) > 1 else words)


def _own_or_watched(ctx: Context, kind: "GameKind") -> LiveGame:
    """The game of ``kind`` the player plays, else the one they watch.

    :raises CommandError: neither, or several watched."""
    game = ctx.host.game_of(ctx.account.id, kind.key)
    if game is not None:
        return game
    watched = [g for n in sorted(ctx.session.watching)
               if (g := ctx.host.live.get(n)) is not None and g.kind is kind]
    if len(watched) == 1:
        return watched[0]
    if watched:
        numbers = ", ".join(f"#{g.id}" for g in watched)
        raise CommandError(f"You watch several games of {kind.title} ({numbers}): "
                           f"{kind.prefix} DISPLAY <game> shows one.")
    raise CommandError(f"You are not playing or watching {kind.title}. "
                       f"{kind.prefix} DISPLAY <game> watches a game.")


def _say(ctx: Context, lines: list[str]) -> None:
    """Short answers, each line wrapped on words to the player's width."""
    ctx.send("\n".join(part for line in lines for part in wrap(line, ctx.session.width)))


async def _last_words(ctx: Context, game: LiveGame) -> str:
    """The last move of ``game`` that its viewer may be told, in words."""
    _, moves, words = await args.guarded(ctx.host.records.replay_told(game.id))
    if not moves:
        return f"Game #{game.id}: no move yet."
    return f"Game #{game.id}, move {moves[-1].seq}: {words[-1]}"


def _turn_words(ctx: Context, game: LiveGame) -> str:
    """Whose move it is in ``game``, said to its viewer."""
    me = game.seat_of(ctx.account.id)
    movers = list(game.kind.spec.to_move(game.state))
    if game.outcome is not None or not movers:
        who = "nobody must move now"
    elif me in movers:
        others = [game.seats[s].name for s in movers if s != me]
        who = "your move" + (f" (and {', '.join(others)}'s)" if others else "")
    else:
        who = f"{', '.join(game.seats[s].name for s in movers)} to move"
    return f"Game #{game.id} ({game.kind.title}): {who}."


def _games_in_view(ctx: Context, word: str | None) -> list[LiveGame]:
    """The games TURN and LAST speak of: those of the game ``word`` names, else every
    game the player plays or watches."""
    if word:
        return [_own_or_watched(ctx, _kind_named(ctx, word))]
    mine = ctx.host.games_of(ctx.account.id)
    watched = [g for n in sorted(ctx.session.watching) if (g := ctx.host.live.get(n))]
    found = [*mine, *(g for g in watched if g not in mine)]
    if not found:
        raise CommandError("You are not playing or watching a game.")
    return found


async def turn(ctx: Context, rest: str) -> None:
    parts = args.words(rest, 0, 1)
    _say(ctx, [_turn_words(ctx, g) for g in _games_in_view(ctx, parts[0] if parts else None)])


async def last(ctx: Context, rest: str) -> None:
    parts = args.words(rest, 0, 1)
    _say(ctx, [await _last_words(ctx, g)
               for g in _games_in_view(ctx, parts[0] if parts else None)])


# -- one game's prefix family -------------------------------------------------------------
def _how_to_start(kind: "GameKind") -> str:
    """How a game of ``kind`` starts: by CHALLENGE, unless the kind takes no challenges
    (Triad is played at tables); then its refusal of one says what to do instead."""
    try:
        kind.spec.parse_options([])
    except RuleError as refusal:
        return str(refusal).rstrip(".")
    return f"{kind.prefix} CHALLENGE <person> to start a game"


def _by_letter(kind: "GameKind") -> str:
    """What CHALLENGE's help says of correspondence games, for a game that has them."""
    p = kind.prefix
    return (f"{p} CHALLENGE <person> DAYS <n> offers a correspondence game: {MIN_DAYS} to "
            f"{MAX_DAYS} days a move, and the opponent need not be online (the challenge "
            "waits for them, and they may accept it while you are away). Nobody may CLAIM "
            "it; a player who does not move in time loses on time. MYGAMES lists your "
            "correspondence games. A RANKED one is rated in a pool of its own (RANKINGS "
            f"{p} CORR).")


def game_family(kind: "GameKind", own: GameCommands | None = None) -> Command:
    """The ``<PREFIX>`` command of one game, with the shared subcommands and the game's
    ``own`` (its help, extra subcommands and prefix handler, ``commands/<game>.py``).

    A first word no subcommand claims is passed to the game's notation as an action,
    so ``DICE MOVE c1 3 NE`` reaches ``games.dice.notation.parse_action``.
    """
    p = kind.prefix
    key = kind.key
    own = own or GameCommands(key)
    act, extra, help_text = own.act, own.commands, own.help

    async def show_or_act(ctx: Context, rest: str) -> None:
        host = ctx.host
        if act is not None:  # the game shows itself and words its own moves
            await act(ctx, rest)
            return
        if not rest:
            game = host.game_of(ctx.account.id, key)
            if game is None:
                ctx.send(f"You are not playing {kind.title}. {_how_to_start(kind)}; {p} HELP "
                         "for the rules and commands.")
                return
            ctx.presentation.show(ctx.session, game)
            return
        if host.game_of(ctx.account.id, key) is None:
            raise CommandError(f"{p} {rest.split()[0].upper()}: there is no such {p} command, "
                               f"and you are not playing {kind.title}. Type {p} HELP.")
        try:
            await args.guarded(host.act_text(ctx.account.id, key, rest))
        except BadNotation as err:  # what is wrong in one line; HELP has the usage
            detail = str(err).split("; usage:", 1)[0].strip().rstrip(".")
            raise CommandError(f"{detail}. {p} HELP lists the {p} commands.") from None

    async def challenge(ctx: Context, rest: str) -> None:
        parts = args.words(rest, 1)
        target, options_words = parts[0], parts[1:]
        if target.lower() == "computer":
            level = "normal"
            word = options_words[0].lower() if options_words else ""
            if word in kind.levels:
                level = options_words.pop(0).lower()
            elif any(word in k.levels for k in ctx.host.kinds.values()):
                raise CommandError(f"{kind.title} has no {word.upper()} level; the computer "
                                   f"plays {_either(kind.levels)}.")
            options = kind.spec.parse_options(options_words)
            await args.guarded(ctx.host.play_computer(key, args.me(ctx), level, options))
            return
        days, options_words = args.days(options_words)
        options = kind.spec.parse_options(options_words)
        if days is not None:
            options["days"] = days
        offer = await args.guarded(ctx.host.offer(key, args.me(ctx), target, options))
        by_letter = "" if days is None else (
            " by correspondence; it waits for them if they are away")
        ctx.send(f"You challenge {offer.target.name} to {offer.describe()}{by_letter}. "
                 f"({p} WITHDRAW to take it back.)")

    async def rematch(ctx: Context, rest: str) -> None:
        parts = args.words(rest, 0, 1)
        record, started = await args.guarded(ctx.host.rematch(
            key, args.me(ctx), parts[0] if parts else None))
        if isinstance(started, Offer):
            ctx.send(f"You challenge {started.target.name} to {started.describe()}, a rematch "
                     f"of game #{record.id}. ({p} WITHDRAW to take it back.)")

    async def display(ctx: Context, rest: str) -> None:
        """``<PREFIX> DISPLAY <game>``: OBSERVE, for a game of this kind only; alone, the
        board of your own game of it (or of the one you watch): with SET BOARD OFF, the
        way to see it."""
        parts = args.words(rest, 0, 1)
        if not parts:
            game = _own_or_watched(ctx, kind)
            ctx.presentation.show(ctx.session, game)
            return
        number = args.game_number(parts[0])
        game = ctx.host.live.get(number)
        if game is not None and game.kind is not kind:
            raise CommandError(f"Game #{number} is {game.kind.title}, not {kind.title}; "
                               f"OBSERVE {number} watches it.")
        await observe(ctx, rest)

    async def games_kind(ctx: Context, rest: str) -> None:
        args.words(rest, 0, 0)
        ctx.send(await _games_table(ctx, key))

    async def status(ctx: Context, rest: str) -> None:
        parts = args.words(rest, 0, 1)
        acc = ctx.account if not parts else await args.account(ctx, parts[0])
        r = await ctx.ratings.get(acc.id, key)
        lines = [bold(f"{acc.name} at {kind.title}")]
        own = ctx.registry.game(key)
        game = ctx.host.game_of(acc.id, key)
        if own is not None and own.status is not None:  # the game says what it counts
            lines.extend(own.status(ctx, acc, r, game))
        elif r is None:
            lines.append(f"No games played yet; rating {rating_text()}.")
        else:
            lines.append(f"Rating {rating_text(r.rating, r.rd)}.")
            lines.append(f"Ranked: {r.ranked_wins} won, {r.ranked_losses} lost, "
                         f"{r.ranked_draws} drawn. Unranked: {r.unranked_wins} won, "
                         f"{r.unranked_losses} lost, {r.unranked_draws} drawn.")
        if game:
            lines.append(f"Playing {game.title}.")
        ctx.send("\n".join(lines))

    async def resign(ctx: Context, rest: str) -> None:
        args.words(rest, 0, 0)
        await args.guarded(ctx.host.resign(ctx.account.id, key))

    async def help_kind(ctx: Context, rest: str) -> None:
        await basics.help_(ctx, f"{p} {rest}".strip())

    def question(answer):  # noqa: ANN001, ANN202
        async def handler(ctx: Context, rest: str) -> None:
            game = _own_or_watched(ctx, kind)
            view = game.view(game.seat_of(ctx.account.id))
            try:
                lines = answer(view, rest.split(), game.names)
            except RuleError as err:
                raise CommandError(str(err)) from None
            _say(ctx, lines)
        return handler

    async def turn_kind(ctx: Context, rest: str) -> None:
        args.words(rest, 0, 0)
        _say(ctx, [_turn_words(ctx, _own_or_watched(ctx, kind))])

    async def last_kind(ctx: Context, rest: str) -> None:
        args.words(rest, 0, 0)
        _say(ctx, [await _last_words(ctx, _own_or_watched(ctx, kind))])

    asked = [Command(word, question(answer), usage, (answer.__doc__ or "").split(":", 1)[-1]
                     .split("\n\n")[0].strip().replace("\n", " ") or usage)
             for word, (usage, answer) in own.questions.items()]

    def bound(fn):  # noqa: ANN001, ANN202
        async def handler(ctx: Context, rest: str) -> None:
            await fn(ctx, rest, key)
        return handler

    subs = [
        Command("challenge", challenge, f"{p} CHALLENGE <person>|COMPUTER "
                f"[{'|'.join(level.upper() for level in kind.levels)}] [<options>]",
                f"Offer a game of {kind.title} to a connected player, or start one against "
                f"the computer ({_either(kind.levels)}; NORMAL unless you say). " + help_text
                + (f" {SHORT_GAMES}" if kind.spec.is_ranked({"ranked": True}) else "")
                + (f" {_by_letter(kind)}" if kind.correspondence else ""),
                aliases=("ch",)),
        *([Command("rematch", rematch, f"{p} REMATCH [<person>|COMPUTER]",
                   f"Play your last finished game of {kind.title} (with that person) again: "
                   "the same options, the sides swapped. A person gets the usual offer; "
                   "against the computer (at the same level) it starts at once.")]
          if GameHost.takes_rematches(kind) else []),
        Command("accept", bound(accept), f"{p} ACCEPT [<person>]", "Accept a player's offer "
                "(alone: the one offer there is)."),
        Command("decline", bound(decline), f"{p} DECLINE [<person>]", "Decline a player's offer "
                "(alone: the one offer there is)."),
        Command("withdraw", bound(withdraw), f"{p} WITHDRAW [<person>]",
                "Take back your offers (to one person, or all)."),
        Command("resign", resign, f"{p} RESIGN", "Give up the game you are playing."),
        Command("claim", bound(claim), f"{p} CLAIM", "Win a game whose opponent has been "
                "disconnected for longer than the grace period."),
        Command("display", display, f"{p} DISPLAY [<game>]", "Watch a game: you see every "
                "move as it is made. UNOBSERVE stops. Alone: the board of your own game "
                "(or of the game you watch).", aliases=("observe", "watch")),
        Command("games", games_kind, f"{p} GAMES", f"List the games of {kind.title} in play."),
        Command("status", status, f"{p} STATUS [<person>]", "Rating and records."),
        Command("rankings", bound(rankings), f"{p} RANKINGS" + (
                    " [CORR]" if kind.correspondence else ""),
                "The best ranked players" + (" (CORR: of the correspondence games, rated "
                                             "apart)" if kind.correspondence else "")
                + ". " + SHORT_GAMES),
        Command("help", help_kind, f"{p} HELP [<command>]", f"Help on {kind.title}."),
        Command("turn", turn_kind, f"{p} TURN", "Whose move it is in your game (or the one "
                "you watch)."),
        Command("last", last_kind, f"{p} LAST", "The last move of your game (or the one you "
                "watch), in words."),
        *asked,
        *extra,
    ]
    return Command(p.lower(), show_or_act, f"{p} [<command>]",
                   f"{kind.title}. {p} alone shows your game; other words are moves in the "
                   f"game's notation. {help_text}",
                   subcommands=tuple(subs), topic="games")


COMMANDS = [
    Command("games", games_, "GAMES [<game>]", "List the games in play, with their numbers.",
            topic="games"),
    Command("observe", observe, "OBSERVE <game>", "Watch a game in play by its number: you "
            "see every move as it is made.", aliases=("watch",), topic="games"),
    Command("unobserve", unobserve, "UNOBSERVE [<game>]", "Stop watching (one or all games).",
            aliases=("unwatch",), topic="games"),
    Command("replay", replay, "REPLAY <game> [<move>]", "List a game's moves (finished or "
            "not), or show its board after a given move.", topic="games"),
    Command("pending", pending, "PENDING", "List the challenges offered to you and by you.",
            topic="games"),
    Command("accept", accept, "ACCEPT [<person>]", "Accept a challenge (of any game); with "
            "one offer to you, ACCEPT alone takes it.", topic="games"),
    Command("decline", decline, "DECLINE [<person>]", "Decline a challenge (of any game); "
            "with one offer to you, DECLINE alone declines it.", topic="games"),
    Command("withdraw", withdraw, "WITHDRAW [<person>]", "Take back your challenges.",
            topic="games"),
    Command("claim", claim, "CLAIM", "Win a game whose opponent has been disconnected for "
            "longer than the grace period.", topic="games"),
    Command("rankings", rankings, "RANKINGS <game> [CORR]", "The best ranked players of a "
            "game (CORR: of its correspondence games, rated apart). " + SHORT_GAMES,
            topic="games"),
    Command("turn", turn, "TURN [<game>]", "Whose move it is, in each game you play or "
            "watch (or in your game of one kind).", topic="games"),
    Command("last", last, "LAST [<game>]", "The last move of each game you play or watch "
            "(or of your game of one kind), in words.", topic="games"),
]

