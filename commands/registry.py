"""What a typed line means: the command table, dispatch, and the errors handlers raise.

Each family module (``commands/talk.py`` …) exports ``COMMANDS``, an explicit list of
:class:`Command`. :func:`build` joins the lists once at start-up into a frozen
:class:`Registry`. A handler parses its arguments, calls a service and writes the
answer; it raises :class:`UsageError` for a wrong use (what is wrong and the usage line,
in one line: :func:`refusal`) and :class:`CommandError` for a refusal (its one-line
message is printed). A game's option words are read by the game
(``PlaySpec.parse_options``), which raises ``games.errors.BadOption`` for a word it does
not know: that too is answered with the usage line.

Each game's entry is a :class:`GameCommands` (``commands/<game>.py``): its kind, and
what its commands add to those every game gets; ``commands/app.py`` lists the entries,
and the registry keeps them by key (HELP reads a game's groups and moves from there).
"""

from __future__ import annotations

import asyncio
import logging
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Iterable, Protocol

import attrs

from games.errors import BadOption, RuleError
from server.db import LOST, Commits, connection_lost
from server.text import fits, table
from server.world import describe_room, is_direction

if TYPE_CHECKING:
    from server.cluster import Cluster
    from server.bus import Bus, Event
    from server.config import Config
    from server.db import Database
    from server.hosting import GameKind
    from server.mudlet import MudletOffer
    from server.online import Online, RemotePlayer
    from server.presentation import Presentation
    from server.services.accounts import Accounts
    from server.services.games import GameHost
    from server.services.ratings import Ratings
    from server.session import Commands, Session
    from server.world import World

log = logging.getLogger(__name__)

HUH = "Huh? (Type HELP for a list of commands.)"
SORRY = "Sorry, something went wrong with that command; it has been logged."
# seconds before a command that lost its database connection runs again: a PostgreSQL
# restarting takes about a second to take connections again
RETRY_PAUSE = 0.5


class CommandError(Exception):
    """A refusal; the message is shown to the player as it is."""


class UsageError(CommandError):
    """The command was used wrongly; its usage line is shown."""

    def __init__(self, detail: str = "") -> None:
        super().__init__(detail)
        self.detail = detail


class Premises(Protocol):
    """What the commands reach of the parlor (through :class:`Context` alone): its
    services, the rooms, who is online, the bus, the settings, the node and its cluster,
    the Mudlet offer, and moving a player, a notice, an admin's log line and a shutdown.
    A session holds the parlor (``session.parlor``), and the context reads it as this."""

    host: "GameHost"
    presentation: "Presentation"
    accounts: "Accounts"
    ratings: "Ratings"
    db: "Database"
    registry: "Commands"
    world: "World"
    online: "Online"
    bus: "Bus"
    config: "Config"
    node: str
    cluster: "Cluster | None"
    mudlet: "MudletOffer | None"

    def move(self, session: "Session", room: str, direction: str | None = None) -> None: ...

    def tell(self, account_id: int, text: str) -> None: ...

    def log_admin(self, session: "Session", what: str) -> None: ...

    def request_shutdown(self, message: str, *, everywhere: bool = True,
                         node: str | None = None, hand_over: bool = False) -> None: ...


@attrs.frozen
class Context:
    """What a handler gets: who typed, which command, and the few parts of the parlor a
    command may reach. Handlers use these and nothing else (tests/unit/test_layers.py
    checks that no handler reads the parlor itself).

    - ``session``, ``account``, ``command``, ``send(text)``: who typed what, and the reply
    - ``host``: the games (``GameHost``: offers, live games, moves, records)
    - ``presentation``: ``show(session, game)``, a game's board for one viewer
    - ``accounts``, ``ratings``: the account and rating services
    - ``db``: the database, for a command's own transaction (``@CUBITS``, ``@AUDIT``)
    - ``world``: the rooms; ``move(session, room, direction)``, ``describe_room(session)``
    - ``registry``: the command table (HELP, the game prefixes)
    - ``online(account_id)``, ``session_named(name)``, ``named_from(prefix, limit)``,
      ``online_count()``, ``who_cache``: who is connected
    - ``publish(topic, event)``: an event on the bus (talk); ``tell(account_id, text)``: a
      notice to one player; ``log_admin(what)``: an admin's act in the log
    - ``request_shutdown(message)``: stop the server (``@SHUTDOWN``)
    - ``mudlet_url()``: the Mudlet package's address for this player (MUDLET);
      ``client_options()``: what the server offers a client (HELP CLIENTS)

    What a command did through the context beyond the database (a line written, an event
    published, a player moved) is noted in ``acted``: a command that lost its database
    connection is run again only if it did nothing of the kind (nor began a commit).

    A game's own service (what it offers beyond hosting) is its kind as the host hosts
    it, ``host.kind(key)``, which the game's commands reach themselves.
    """

    session: "Session"
    _parlor: Premises = attrs.field(repr=False)  # private: only the context reads it
    command: "Command"
    acted: list[str] = attrs.field(factory=list, init=False, repr=False, eq=False)

    @property
    def account(self):  # noqa: ANN201
        return self.session.account

    def send(self, text: str) -> None:
        self.acted.append("send")
        if self.session.screenreader:  # a glyph a screen reader mangles, in words
            text = text.replace("±", "give or take ")
        self.session.write(text)

    def table(self, headers: list[str], rows: list[list[str]]) -> list[str]:
        """A table with its header underline; in screen-reader mode a list instead, one
        row a line ("Name: Bob, Where: the Plaza"), no underline, no columns."""
        if not self.session.screenreader:
            return table(headers, rows)
        return [", ".join(f"{h.strip()}: {c.strip()}" if h.strip() else c.strip()
                          for h, c in zip(headers, row) if c.strip())
                for row in rows]

    # -- services --------------------------------------------------------------------------
    @property
    def host(self) -> "GameHost":
        return self._parlor.host

    @property
    def presentation(self) -> "Presentation":
        return self._parlor.presentation

    @property
    def accounts(self) -> "Accounts":
        return self._parlor.accounts

    @property
    def ratings(self) -> "Ratings":
        return self._parlor.ratings

    @property
    def db(self) -> "Database":
        return self._parlor.db

    @property
    def registry(self) -> "Registry":
        return self._parlor.registry  # type: ignore[return-value]  # built by commands/app.py

    # -- the world -------------------------------------------------------------------------
    @property
    def world(self) -> "World":
        return self._parlor.world

    def move(self, session: "Session", room: str, direction: str | None = None) -> None:
        self.acted.append("move")
        self._parlor.move(session, room, direction)

    def describe_room(self, session: "Session") -> str:
        return describe_room(self._parlor.world, self._parlor.online, session)

    # -- who is connected ------------------------------------------------------------------
    def online(self, account_id: int) -> "Session | RemotePlayer | None":
        """A logged-in account: its session, or (in a cluster) where it is on another
        node; None when it is not logged in."""
        return self._parlor.online.present(account_id)

    def online_count(self) -> int:
        return self._parlor.online.count

    def session_named(self, name: str) -> "Session | RemotePlayer | None":
        return self._parlor.online.named(name)

    def named_from(self, prefix: str, limit: int) -> "tuple[list[Session | RemotePlayer], int]":
        return self._parlor.online.named_from(prefix, limit)

    @property
    def who_cache(self) -> dict[str, tuple[float, str]]:
        """WHO listings by name prefix, with when they were built (commands/people.py)."""
        return self._parlor.online.who_cache

    # -- messages and admin ----------------------------------------------------------------
    def publish(self, topic: str, event: "Event") -> None:
        self.acted.append("publish")
        self._parlor.bus.publish(topic, event)

    def tell(self, account_id: int, text: str) -> None:
        """A notice to one player: now, or at their next login if they are away."""
        self.acted.append("tell")
        self._parlor.tell(account_id, text)
        if self._parlor.online.present(account_id) is None:
            self._parlor.host.notify.keep(account_id, text)

    async def tell_or_keep(self, account_id: int, text: str) -> None:
        """Tell a player now, or, when they are away, at their next login (the news
        kept while away: ``server/services/notify.py``)."""
        self.tell(account_id, text)

    def log_admin(self, what: str) -> None:
        """Record what the admin typing this command did."""
        self._parlor.log_admin(self.session, what)

    def request_shutdown(self, message: str, node: str | None = None) -> None:
        """Stop the parlor (every node of a cluster), or only the node named ``node``."""
        self.acted.append("shutdown")
        self._parlor.request_shutdown(message, node=node)

    def mudlet_url(self) -> str | None:
        """Where this player's Mudlet finds the parlor's package (server/mudlet.py); None
        when none is offered them (no web door, or a browser's /play)."""
        offer = self._parlor.mudlet
        if offer is None:
            return None
        return offer.url(self.session.terminal.get_extra_info("sockname"))

    @property
    def node(self) -> str:
        """This node's name (the host name when it is the only one)."""
        return self._parlor.node

    def client_options(self) -> dict[str, Any]:
        """What this server offers a player's client beyond plain telnet: ``mccp``
        (compressed output offered), ``tls_port`` (telnet over TLS; 0: none)."""
        server = self._parlor.config.server
        return {"mccp": server.mccp, "tls_port": server.tls_port}

    @property
    def clustered(self) -> bool:
        return self._parlor.cluster is not None


Handler = Callable[[Context, str], Awaitable[None]]


@attrs.frozen
class Command:
    """A verb. ``subcommands`` make it a prefix family (``TT CHALLENGE …``); then
    ``handler`` runs for the bare prefix or a first word no subcommand claims."""

    name: str
    handler: Handler
    usage: str
    help: str
    aliases: tuple[str, ...] = ()
    admin: bool = False
    subcommands: tuple["Command", ...] = ()
    topic: str = "general"  # the HELP index groups commands by topic
    example: str = ""  # a line as typed (HELP shows it; HELP ADMIN shows every admin verb's)

    def sub(self, word: str) -> "Command | None":
        word = word.lower()
        for cmd in self.subcommands:
            if word == cmd.name or word in cmd.aliases:
                return cmd
        return None


@attrs.frozen
class GameCommands:
    """A game's entry, keyed by its kind's ``key``: its kind (the ``GameKind`` subclass
    the parlor hosts, made from the game's own settings: ``GameKind.from_config``; None
    for the commands of a kind hosted on its own) and what the game adds to the commands
    every hosted game gets (``commands/games.py``): its help, the extra subcommands of
    its prefix (``DICE MOVE``), its commands outside the prefix (``ITD``, ``BUY``), its
    own handler for the bare prefix and for a move typed after it (``act``; default:
    show the game, or ``GameHost.act``), and for ``HELP <game>`` the group of each
    subcommand (``groups``, in the order the summary shows them; a subcommand in none is
    under "More") and how its moves are typed after the prefix (``moves``)."""

    key: str
    help: str = ""
    commands: tuple[Command, ...] = attrs.field(default=(), converter=tuple)
    top_commands: tuple[Command, ...] = attrs.field(default=(), converter=tuple)
    act: Handler | None = None
    groups: dict[str, str] = attrs.field(factory=dict)
    moves: str = ""
    kind: "type[GameKind] | None" = None
    # HELP <game> RULES (default: ``help``); what RANKINGS says of a game never ranked;
    # lines <GAME> STATUS adds for a player (``status(ctx, account, live game | None)``)
    rules: str = ""
    unranked: str = ""
    # the board's questions (a screen reader's way to read it): word -> (usage, answer),
    # ``answer(view, words, names) -> lines`` from the game's spoken words; a RuleError
    # is told as it is
    questions: dict = attrs.field(factory=dict)
    status: "Callable[..., list[str]] | None" = None

    def __attrs_post_init__(self) -> None:
        if self.kind is not None and self.kind.key != self.key:
            raise ValueError(f"the entry {self.key!r} names the kind {self.kind.key!r}")


@attrs.frozen
class Registry:
    commands: MappingProxyType  # name or alias -> Command
    ordered: tuple[Command, ...]
    games: MappingProxyType = MappingProxyType({})  # kind key -> GameCommands

    def find(self, word: str) -> Command | None:
        return self.commands.get(word.lower())

    def game(self, key: str) -> GameCommands | None:
        """The entry of the game ``key``, or None (a game hosted with its kind alone)."""
        return self.games.get(key)

    def visible(self, admin: bool) -> list[Command]:
        return [c for c in self.ordered if admin or not c.admin]

    async def dispatch(self, session: "Session", line: str) -> str:
        """Run one line. Never raises: errors become one line for the player.

        Returns what happened, for the caller's records (the tests): ``"ok"``, ``"huh"``
        (no such command), ``"usage"``, ``"refused"`` (a CommandError or RuleError),
        ``"lost"`` (the database connection was lost: the player was told :data:`LOST`)
        or ``"failed"`` (a bug: logged, and the player got an apology).

        A command that fails because the database connection was lost (PostgreSQL
        restarted under it) runs once more, on a fresh connection, if it had begun no
        commit and done nothing else that shows (``Context.acted``): it cannot have
        changed anything yet. Otherwise, or if it fails so again, the player is told
        :data:`LOST` in one line (never the apology for a bug), and types it again once
        the database is back.

        What the command writes is its reply, which the session pages when it is taller
        than the player's screen (``Session.begin_reply``).
        """
        if not line:
            return "ok"
        session.begin_reply()
        try:
            for attempt in (1, 2):
                with Commits() as commits:
                    acted: list[str] = []
                    try:
                        return await self._run(session, line, acted)
                    except Exception as err:  # noqa: BLE001  a bug, or the database lost
                        if not connection_lost(err):
                            session.log.exception("command %r failed", line[:200])
                            session.write(SORRY)
                            return "failed"
                        again = attempt == 1 and commits.count == 0 and not acted
                        if again:
                            what = "running it again"
                        elif attempt == 1:
                            what = (f"not run again: {commits.count} commit(s) begun, "
                                    f"did {', '.join(acted) or 'nothing else'}")
                        else:
                            what = "lost it again"
                        session.log.warning("command %r lost its database connection (%s: %s); "
                                            "%s", line[:200], type(err).__name__,
                                            (str(err).splitlines() or [""])[0][:200], what)
                        if not again:
                            session.write(LOST)
                            return "lost"
                await asyncio.sleep(RETRY_PAUSE)
            return "lost"  # not reached: the second attempt returns
        finally:
            session.end_reply()

    async def _run(self, session: "Session", line: str, acted: list[str]) -> str:
        """One attempt at ``line``; what the command did beyond the database is added to
        ``acted``. Raises only what no handler should (a bug, a lost connection)."""
        if line[0] in "'\"" and len(line) > 1:      # MUD shorthands
            line = "say " + line[1:]
        elif line[0] == ":" and len(line) > 1:
            line = "emote " + line[1:]
        word, _, rest = line.partition(" ")
        rest = rest.strip()
        cmd = self.find(word)
        if cmd is not None and cmd.admin:
            await _refresh_admin(session)
        if cmd is None or (cmd.admin and not session.is_admin):
            cmd = self._movement(session, word)
            if cmd is None:
                session.write(HUH)
                return "huh"
            rest = word
        target = cmd
        if cmd.subcommands and rest:
            first, _, tail = rest.partition(" ")
            sub = cmd.sub(first)
            if sub is not None and sub.admin:
                await _refresh_admin(session)
            if sub is not None and (not sub.admin or session.is_admin):
                target, rest = sub, tail.strip()
        ctx = Context(session, session.parlor, target)
        try:
            await target.handler(ctx, rest)
        except (UsageError, BadOption) as err:
            detail = err.detail if isinstance(err, UsageError) else str(err)
            session.write(refusal(detail, f"Usage: {target.usage}", session.width))
            return "usage"
        except (CommandError, RuleError) as err:
            session.write(str(err))
            return "refused"
        finally:
            acted.extend(ctx.acted)
        return "ok"

    def _movement(self, session: "Session", word: str) -> Command | None:
        """A bare exit name ("north", "n") walks through that exit; a direction with no
        exit here goes to GO too, which says so ("You can't go west from here.")."""
        if session.parlor.world.exit(session.room, word) or is_direction(word):
            return self.find("go")
        return None


def refusal(detail: str, usage: str, width: int) -> str:
    """A wrong use answered in one line: what is wrong, then the usage line when the two
    fit the player's ``width``; else what is wrong alone (it says what was expected, and
    HELP gives the usage), or the usage alone when nothing more is known."""
    if not detail:
        return usage
    both = f"{detail}  {usage}"
    return both if fits(both, width or 80) else detail


async def _refresh_admin(session: "Session") -> None:
    """Read the player's admin role afresh before an admin verb: ``esterport admin
    grant|revoke`` changes the database, and a connected player's role follows it at their
    next admin command, without logging in again (only admin verbs pay the one read)."""
    if session.account is not None:
        session.account.is_admin = await session.parlor.accounts.is_admin(session.account.id)


def build(families: Iterable[Iterable[Command]], games: Iterable[GameCommands] = ()) -> Registry:
    """The registry of ``families`` of commands, and the entries of ``games``."""
    table: dict[str, Command] = {}
    ordered: list[Command] = []
    for family in families:
        for cmd in family:
            for key in (cmd.name, *cmd.aliases):
                if key in table:
                    raise ValueError(f"command {key!r} defined twice")
                table[key] = cmd
            ordered.append(cmd)
    ordered.sort(key=lambda c: c.name)
    return Registry(MappingProxyType(table), tuple(ordered),
                    MappingProxyType({game.key: game for game in games}))
