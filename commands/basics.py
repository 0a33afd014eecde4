"""HELP (a topic for every command, a one-screen summary for each game), MORE and QUIT.

``HELP <game>`` (its prefix, key or title: TT, TRIPTYCHA, TRIAD DICE …) lists, on one
screen, only the commands of that game that apply to it, grouped as the game's entry
says (``GameCommands.groups``, ``commands/<game>.py``); ``HELP <game>
<command>`` gives one command's detail and ``HELP <game> RULES`` the game's whole text
(paged when it is taller than the screen). Which of the commands every game gets
(``commands.games.game_family``) apply is read from the game's kind: offers only for a
game started by CHALLENGE (not Triad's tables), RESIGN and CLAIM only for a game of two
fixed players (not a table, not a solitaire), RANKINGS only for a game that can be ranked.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from commands import settings
from commands.registry import Command, CommandError, Context, GameCommands
from games.errors import RuleError
from server.services.games import GameHost
from server.text import bold, counted, wrap

if TYPE_CHECKING:
    from server.hosting import GameKind

TOPICS = {
    "world": "Moving about", "talk": "Talking", "people": "People",
    "games": "Games", "settings": "Settings", "general": "General", "admin": "Admin",
}


def _help_text(cmd: Command, width: int, prefix: str = "") -> str:
    lines = [bold(f"Usage: {cmd.usage}")]
    if cmd.aliases:
        lines.append("Also: " + ", ".join(a.upper() for a in cmd.aliases))
    lines.extend(wrap(cmd.help, width))
    if cmd.example:
        lines.append(f"Example: {cmd.example}")
    if cmd.subcommands:
        lines.append("")
        lines.append(f"{cmd.name.upper()} commands (HELP {cmd.name.upper()} <command> for more):")
        for sub in cmd.subcommands:
            lines.append(f"  {sub.usage}")
    return "\n".join(lines)


# -- one game's help ------------------------------------------------------------------------
# The groups of the shared subcommands. A game's summary shows "Start", then the game's
# own groups (``GameCommands.groups``: a game may put a shared subcommand in one of its
# own too), then the rest of these; a subcommand in no group is under "More".
SHARED_GROUPS = {"challenge": "Start", "rematch": "Start", "accept": "Start",
                 "decline": "Start", "withdraw": "Start", "resign": "End", "claim": "End",
                 "display": "Watch", "games": "Watch", "status": "Records",
                 "rankings": "Records"}
SHARED_ORDER = ("Start", "End", "Watch", "Records", "More")


def group_order(own: GameCommands | None) -> tuple[str, ...]:
    """The groups of a game's summary, in order."""
    theirs = dict.fromkeys(own.groups.values()) if own is not None else {}
    return (SHARED_ORDER[0], *(g for g in theirs if g not in SHARED_ORDER), *SHARED_ORDER[1:])


def _kind_for(ctx: Context, words: list[str]) -> "tuple[GameKind, int] | None":
    """The game the first words name exactly (prefix, key or title, "triad dice" before
    "triad"), and how many words that took."""
    for n in (2, 1):
        if len(words) >= n:
            kind = ctx.host.kind_named(" ".join(words[:n]))
            if kind is not None:
                return kind, n
    return None


def _takes_offers(kind: "GameKind") -> str | None:
    """None if a game of ``kind`` starts by CHALLENGE; else how one starts instead."""
    try:
        kind.spec.parse_options([])
    except RuleError as refusal:
        return str(refusal)
    return None


def not_applying(kind: "GameKind") -> dict[str, str]:
    """The shared subcommands that do not apply to ``kind``, each with the reason."""
    out: dict[str, str] = {}
    title, p = kind.title, kind.prefix
    how = _takes_offers(kind)
    if how is not None:
        for name in ("challenge", "accept", "decline", "withdraw"):
            out[name] = how
    two_players = GameHost.takes_rematches(kind)  # two fixed players
    if not two_players:
        # what a player types for the game's resign action, in the game's own notation
        # (Triad's Leave() is typed TRIAD LEAVE); RESIGN itself there: other commands end it
        typed = (kind.spec.format_action(kind.resign_action).upper()
                 if kind.resign_action is not None else "RESIGN")
        leave = (f"{p} {typed} leaves your seat" if typed != "RESIGN"
                 else f"its own commands end a game (HELP {p} lists them)")
        out["resign"] = f"{title} is not a game between two fixed players: {leave}."
    if not two_players:
        out["claim"] = (f"{title} has no game to claim from an absent opponent"
                        + (": an absent player's turns are played for them."
                           if kind.open_table else "."))
    if not kind.spec.is_ranked({"ranked": True}):
        out["rankings"] = f"{title} games are never ranked."
    return out


def _first_sentence(text: str) -> str:
    first = text.split("\n", 1)[0]
    end = first.find(". ")
    return first if end < 0 else first[:end + 1]


def game_summary(ctx: Context, kind: "GameKind", family: Command) -> list[str]:
    """``HELP <game>``: what the game is, and its commands that apply, grouped."""
    width = ctx.session.width
    p = kind.prefix
    skip = not_applying(kind)
    own = ctx.registry.game(kind.key)
    groups = {**SHARED_GROUPS, **(own.groups if own is not None else {})}
    order = group_order(own)
    listed: dict[str, list[str]] = {}
    for sub in family.subcommands:
        if sub.name in skip or sub.name == "help" or (sub.admin and not ctx.session.is_admin):
            continue
        listed.setdefault(groups.get(sub.name, "More"), []).append(sub.name.upper())
    lines = [bold(f"{kind.title} ({p})")]
    if own is not None and own.help:
        lines.extend(wrap(_first_sentence(own.help), width))
    lines.append(f"Usage: {p} [<command>] ({p} alone shows your game)")
    if own is not None and own.moves:
        lines.extend(wrap(own.moves, width))
    label_w = max(len(g) for g in listed) + 2
    for group in order:
        if group in listed:
            lines.extend(wrap(f"{group + ':':<{label_w}}" + ", ".join(listed[group]), width,
                              indent=" " * label_w))
    top = [c for c in (own.top_commands if own is not None else ()) if not c.admin]
    if top:
        lines.extend(wrap(f"{'Also:':<{label_w}}" + ", ".join(c.name.upper() for c in top)
                          + " (HELP <command>)", width, indent=" " * label_w))
    first = next(listed[g][0] for g in order if g in listed)
    lines.extend(wrap(f"HELP {p} <command> explains one (HELP {p} {first}); "
                      f"HELP {p} RULES gives the rules.", width))
    return lines


def _is_move(kind: "GameKind", word: str) -> bool:
    """Whether ``word`` is a move in the game's own notation (``kind.parse_action``)."""
    try:
        kind.spec.parse_action(word)
    except RuleError:
        return False
    return True


async def _game_help(ctx: Context, kind: "GameKind", words: list[str]) -> None:
    family = ctx.registry.find(kind.prefix.lower())
    if family is None:
        raise CommandError(f"There is no help on {kind.title}.")
    p = kind.prefix
    if not words:
        ctx.send("\n".join(game_summary(ctx, kind, family)))
        return
    if len(words) > 1:
        raise CommandError(f"HELP {p} <command> explains one command; HELP {p} lists them.")
    word = words[0]
    if word == "rules":
        own = ctx.registry.game(kind.key)
        text = (own.rules or own.help) if own is not None and (own.rules or own.help) \
            else family.help
        skip = not_applying(kind)
        ctx.send("\n".join([
            bold(f"{kind.title}: the rules"), *wrap(text, ctx.session.width), "",
            f"{p} commands (HELP {p} <command> for more):",
            *(f"  {sub.usage}" for sub in family.subcommands
              if sub.name not in skip and (not sub.admin or ctx.session.is_admin))]))
        return
    sub = family.sub(word)
    if sub is None and _is_move(kind, word):  # typed after the prefix too (PYR END, PYR D)
        own = ctx.registry.game(kind.key)
        more = own.moves if own is not None and own.moves else f"HELP {p} RULES gives the rules."
        ctx.send("\n".join([bold(f"Usage: {p} {word.upper()}"), *wrap(
            f"{p} {word.upper()} is a move of {kind.title}, typed after {p}. {more}",
            ctx.session.width)]))
        return
    if sub is None or (sub.admin and not ctx.session.is_admin):
        raise CommandError(f"{p} has no command {word!r}. HELP {p} lists them.")
    text = _help_text(sub, ctx.session.width)
    reason = not_applying(kind).get(sub.name)
    if reason is not None:  # the usage, and why it is not for this game
        text = "\n".join([bold(f"Usage: {sub.usage}"), *wrap(
            f"{p} {sub.name.upper()} does not apply to {kind.title}. {reason}",
            ctx.session.width)])
    ctx.send(text)


def _families(ctx: Context) -> "list[tuple[GameKind, Command]]":
    """Each hosted game with its prefix command."""
    out = []
    for kind in ctx.host.kinds.values():
        family = ctx.registry.find(kind.prefix.lower())
        if family is not None and family.subcommands:
            out.append((kind, family))
    return out


def _in_a_game(ctx: Context, admin: bool) -> list[str]:
    """The words typed after the prefix of several games (TT CHALLENGE, DICE SEEK) that
    are not commands of their own: the index lists them once."""
    seen: dict[str, int] = {}
    for kind, family in _families(ctx):
        skip = not_applying(kind)
        for sub in family.subcommands:
            if sub.name not in skip and sub.name != "help" and (admin or not sub.admin):
                seen[sub.name] = seen.get(sub.name, 0) + 1
    return sorted(w.upper() for w, n in seen.items()
                  if n > 1 and ctx.registry.find(w) is None)


def _typed_after(ctx: Context, word: str, admin: bool) -> list[tuple[Command, Command]]:
    """The commands that take ``word`` after them (a game's prefix, TOURNEY …), with
    the subcommand, where it applies (not TRIAD CHALLENGE)."""
    kinds = {family.name: kind for kind, family in _families(ctx)}
    found = []
    for cmd in ctx.registry.visible(admin):
        sub = cmd.sub(word)
        if sub is None or (sub.admin and not admin):
            continue
        kind = kinds.get(cmd.name)
        if kind is not None and sub.name in not_applying(kind):
            continue
        found.append((cmd, sub))
    return found


def _sub_help(ctx: Context, word: str, owners: list[tuple[Command, Command]]) -> str:
    """HELP <word> for a word typed after another command: its help when one command
    takes it; when several do, each usage (a game's prefix as <GAME> when every game's
    is the same) and where to read more."""
    width = ctx.session.width
    if len(owners) == 1:
        return _help_text(owners[0][1], width)
    w = word.upper()
    first = owners[0][0].name.upper()
    games = {family.name: kind for kind, family in _families(ctx)}
    if all(cmd.name in games for cmd, _ in owners):  # a word of several games
        generic = {"<GAME>" + sub.usage[len(games[cmd.name].prefix):] for cmd, sub in owners}
        said = {_first_sentence(sub.help).replace(games[cmd.name].title, "<game>")
                for cmd, sub in owners}
        lines = ([bold(f"Usage: {generic.pop()}")] if len(generic) == 1 else
                 [bold(f"Usage: {sub.usage}") for _, sub in owners])
        typed = ", ".join(f"{cmd.name.upper()} {w}" for cmd, _ in owners)
        lines.extend(wrap((said.pop() + " " if len(said) == 1 else "")
                          + f"Typed after a game's prefix ({typed}): HELP <game> {w} "
                          f"explains it for one game (HELP {first} {w}).", width))
        return "\n".join(lines)
    lines = [bold(f"Usage: {sub.usage}") for _, sub in owners]
    lines.extend(wrap(f"{w} is typed after another command; HELP <command> {w} explains "
                      f"one (HELP {first} {w}).", width))
    return "\n".join(lines)


def _setting_help(ctx: Context, word: str) -> str | None:
    """HELP NOTE, HELP SCREENREADER …: a word typed after SET, as SET's usage gives it
    ("SET NOTE <1-10> [<text>]"), then SET's help."""
    cmd = ctx.registry.find("set")
    if word not in settings.WORDS or cmd is None:
        return None
    forms = cmd.usage.removeprefix("SET [").removesuffix("]").split(" | ")
    form = next((f for f in forms if f.split()[0].lower() == word), word.upper())
    return "\n".join([bold(f"Usage: SET {form}"),
                      *wrap(f"{word.upper()} is a setting, changed with SET:", ctx.session.width),
                      _help_text(cmd, ctx.session.width)])


def admin_help(ctx: Context) -> list[str]:
    """HELP ADMIN (admins only): every admin verb with its usage, what it does and an
    example, then what admins do from the command line."""
    width = ctx.session.width
    lines = [bold("Admin commands") + " (admins only; each use is logged; HELP <command> "
             "for more):"]
    for cmd in ctx.registry.ordered:
        if cmd.admin:
            lines.append(bold(f"{cmd.usage}"))
            lines.extend(wrap("  " + _first_sentence(cmd.help)
                              + (f" Example: {cmd.example}" if cmd.example else ""),
                              width, indent="  "))
    lines.extend(wrap("An admin may also TOURNEY START or TOURNEY CANCEL any tournament. "
                      "From the command line: esterport admin grant|revoke|ban|unban NAME, "
                      "esterport admin cubits NAME AMOUNT, esterport admin list|audit, "
                      "esterport seed FILE.toml (the README's \"Running the parlor\").",
                      width))
    return lines


def _index(ctx: Context, admin: bool) -> list[str]:
    """HELP alone: every command by topic, the words typed in a game, SET's words."""
    width = ctx.session.width
    out = [bold("Commands") + " (HELP <command> for one; HELP <game> for a game's):"]
    by_topic: dict[str, list[str]] = {}
    for cmd in ctx.registry.visible(admin):
        name = cmd.name.upper()
        if cmd.name == "set":
            name += " (" + ", ".join(w.upper() for w in settings.WORDS) + ")"
        by_topic.setdefault(cmd.topic, []).append(name)
    for topic in list(TOPICS) + sorted(set(by_topic) - set(TOPICS)):
        if topic in by_topic:
            label = TOPICS.get(topic, topic.title()) + ": "
            out.extend(wrap(label + ", ".join(by_topic[topic]), width, indent="  "))
    shared = _in_a_game(ctx, admin)
    if shared:
        out.extend(wrap("In a game, after its prefix (<GAME> CHALLENGE): " + ", ".join(shared)
                        + "; each game's own: HELP <game>.", width, indent="  "))
    out.extend(wrap("HELP CLIENTS: what MUD clients get (GMCP, compression, TLS, Mudlet, "
                    "screen readers).", width))
    if admin:
        out.append("HELP ADMIN: the admin commands, each with an example.")
    return out


def _clients_help(ctx: Context) -> str:
    """HELP CLIENTS: what the server speaks to a MUD client, as this server is set up."""
    offers = ctx.client_options()
    tls = (f"Telnet over TLS (encrypted, your password included) on port "
           f"{offers['tls_port']} of this server (TinTin++: #ssl)."
           if offers["tls_port"] else "Telnet over TLS is not offered on this server.")
    mccp = ("Compressed output (MCCP2) is offered: a client that speaks it (Mudlet, "
            "TinTin++, MUSHclient) turns it on by itself, and a slow line carries about a "
            "quarter of the bytes." if offers["mccp"] else
            "Compressed output (MCCP2) is not offered on this server.")
    paragraphs = [
        "GMCP: Char.Name, Char.Status (where you are, your game, whose move, the games "
        "waiting for your move), Room.Info (room ids and exits for a mapper), the open "
        "seeks (Seek.List, Seek.Add, Seek.Remove) and one <Game>.Game package per game with "
        "the board's whole view. MUDLET installs a package that draws the board in its own "
        "window; the text stays as it is.",
        mccp, tls,
        "MSSP: the server's facts for MUD listings.",
        "Screen readers: SET SCREENREADER ON reads boards out, a fact a line, instead of "
        "drawing them; SET WIDTH fits every line to your window.",
    ]
    width = ctx.session.width
    lines = [bold("MUD clients")]
    for text in paragraphs:
        lines.extend(wrap(text, width))
    return "\n".join(lines)


async def help_(ctx: Context, rest: str) -> None:
    registry = ctx.registry
    admin = ctx.session.is_admin
    width = ctx.session.width
    parts = rest.lower().split()
    if not parts:
        ctx.send("\n".join(_index(ctx, admin)))
        return
    if parts == ["admin"] and admin:
        ctx.send("\n".join(admin_help(ctx)))
        return
    game = _kind_for(ctx, parts)
    if game is not None:
        await _game_help(ctx, game[0], parts[game[1]:])
        return
    cmd = registry.find(parts[0])
    if cmd is None and parts == ["clients"]:
        ctx.send(_clients_help(ctx))
        return
    if cmd is None or (cmd.admin and not admin):
        owners = _typed_after(ctx, parts[0], admin) if len(parts) == 1 else []
        text = _sub_help(ctx, parts[0], owners) if owners else \
            (_setting_help(ctx, parts[0]) if len(parts) == 1 else None)
        if text is None:
            raise CommandError(f"There is no help on {parts[0]!r}. Type HELP for a list.")
        ctx.send(text)
        return
    if len(parts) > 1 and cmd.subcommands:
        sub = cmd.sub(parts[1])
        if sub is None or (sub.admin and not admin):
            raise CommandError(f"{cmd.name.upper()} has no command {parts[1]!r}. "
                               f"Type HELP {cmd.name.upper()}.")
        cmd = sub
    ctx.send(_help_text(cmd, width))


QUIT_AGAIN = 60.0  # seconds a warned player has to confirm with QUIT again


def _left_behind(ctx: Context, game) -> str:  # noqa: ANN001
    """What becomes of ``game`` if the player leaves now, as it really happens: a table
    plays on without them; a game waits, and only a person playing it may CLAIM it."""
    me = ctx.account.id
    if game.kind.open_table:
        return (f"You sit at {game.kind.title} table #{game.id}: if you leave, you pass or "
                "fold at your turns and your seat is given up when the hand ends (your "
                "stack goes back to your balance).")
    people = [s for s in game.seats if s.computer is None and s.account_id != me and not s.left]
    text = f"You are playing {game.kind.title} (game #{game.id}): if you leave, it waits for you"
    if people:
        grace = counted(ctx.host.reconnect_grace, "second")
        return f"{text}; {people[0].name} may CLAIM it after {grace}."
    return f"{text} until you come back."


async def quit_(ctx: Context, rest: str) -> None:
    """Leave; with a game in progress, only once warned (QUIT again, or QUIT YES)."""
    session = ctx.session
    playing = [g for g in ctx.host.games_of(ctx.account.id)  # a correspondence game
               if g.days is None] if ctx.account else []      # waits on its own clock
    confirmed = rest.strip().lower() == "yes" or \
        time.monotonic() - session.quit_warned_at < QUIT_AGAIN
    if playing and not confirmed:
        session.quit_warned_at = time.monotonic()
        told = [_left_behind(ctx, g) for g in playing]
        ctx.send("\n".join(wrap(" ".join([*told, "Type QUIT again to leave."]),
                                 ctx.session.width)))
        return
    session.quitting = True   # on purpose: no coming back by a resume token
    session.close("Goodbye. Come back soon to Esterport!")


async def more(ctx: Context, rest: str) -> None:
    """MORE with nothing held (a held page is turned by the session before dispatch)."""
    ctx.send("There is nothing more to show.")


async def mudlet(ctx: Context, rest: str) -> None:
    """MUDLET: what the Mudlet package is, and where this player's Mudlet finds it."""
    url = ctx.mudlet_url()
    if url is None:
        ctx.send("This parlor offers no Mudlet package here (it needs the web door, and "
                 "a telnet connection).")
        return
    ctx.send("\n".join([f"The Mudlet package: {url}", *wrap(
        "Mudlet installs it by itself when you log in with GMCP on (Settings, Game "
        "protocols); to install it by hand, download it and choose it in Toolbox, Package "
        "Manager. HELP MUDLET says what it shows.", ctx.session.width)]))


COMMANDS = [
    Command("help", help_, "HELP [<command> [<subcommand>]] | HELP <game> [<command>|RULES]",
            "List the commands, or explain one. HELP <game> (the game's command prefix or "
            "name, as HELP lists them) lists that game's commands on one screen; HELP <game> "
            "<command> explains one, HELP <game> RULES gives the rules.", aliases=("?",)),
    Command("mudlet", mudlet, "MUDLET", "Mudlet's window for Esterport. When you log in "
            "with Mudlet and GMCP on, the parlor offers its package and Mudlet installs it "
            "(and updates it when it changes): a window docked at the right that draws "
            "your game's board at every move, who plays, and whose move it is, and clears "
            "when the game ends; while you play none, it draws a game you OBSERVE. It only "
            "adds a window: the text is never hidden or changed, and a screen reader reads "
            "what it always did. MUDLET gives the package's address, to install it by "
            "hand.", topic="settings"),
    Command("more", more, "MORE", "When a reply is taller than your screen it stops after a "
            "page: Enter or MORE shows the next page, any other command drops the rest. SET "
            "HEIGHT sets your screen's height."),
    Command("quit", quit_, "QUIT [YES]", "Leave Esterport. Games in progress wait for you "
            "to come back (an opponent who is a person may CLAIM them after a grace period; "
            "at a card table you pass or fold, and leave when the hand ends); with one in "
            "progress, QUIT warns first, and QUIT again (or QUIT YES) leaves.",
            aliases=("logout",)),
]
