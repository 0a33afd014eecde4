"""The application, assembled in one place: the games Esterport hosts, their commands,
and the parlor that runs them. ``python -m commands.app`` runs the command line of
``server/cli.py`` with :func:`assemble` (the ``esterport`` script, ``commands/entry.py``,
does the same and imports this module only when a process serves); the tests' ``parlor``
fixture calls :func:`assemble` too.

Layers point one way (docs/design.md, principle 7): this module imports ``server/``,
``server/`` never imports ``commands/``. The parlor is handed its games and its
command table (a :class:`~commands.registry.Registry`) and knows neither.

A game is one line here (docs/design.md, principle 9): its entry in :data:`GAMES`
(``commands/<game>.py``'s ``GAME``: its kind and its commands). Everything else a game
brings (its settings, data files, starter sets, web pages) its kind hands over.
"""

from __future__ import annotations

import importlib
import sys
from typing import Iterable

import attrs

from commands import admin, basics, games, people, settings, talk, world
from commands import dice, pyramid, triad, triptycha
from commands import correspondence, examine, notify, seeks, tournaments
from commands.registry import GameCommands, Registry, build
from server import cli
from server.app import Parlor
from server.config import Config
from server.hosting import GameKind

GAMES: tuple[GameCommands, ...] = (triptycha.GAME, dice.GAME, triad.GAME, pyramid.GAME)

COMMANDS = (basics.COMMANDS, world.COMMANDS, talk.COMMANDS, people.COMMANDS,
            settings.COMMANDS, games.COMMANDS, admin.COMMANDS, seeks.COMMANDS,
            notify.COMMANDS, examine.COMMANDS,
            tournaments.COMMANDS, correspondence.COMMANDS)


def default_kinds(config: Config) -> list[GameKind]:
    """The games Esterport hosts, fresh (a kind is hosted by one parlor, and is its game's
    service there), each with its settings from the config."""
    return [game.kind.from_config(config.games) for game in GAMES]


def load_entry(spec: str) -> GameCommands:
    """The entry ``module:attribute`` names (``[games] extra`` in the config: games added
    as plugins, the tests' own among them): a ``GameCommands`` with its kind, or a
    GameKind subclass alone (then the game has the commands every game gets)."""
    module, _, attr = spec.partition(":")
    found = getattr(importlib.import_module(module), attr or "KIND")
    return found if isinstance(found, GameCommands) else GameCommands(found.key, kind=found)


def load_kind(spec: str, config: Config | None = None) -> GameKind:
    """A fresh kind of the game ``spec`` names (:func:`load_entry`)."""
    return load_entry(spec).kind.from_config((config or Config()).games)


def registry_for(kinds: Iterable[GameKind], entries: Iterable[GameCommands] = GAMES) -> Registry:
    """Every command: the families above, and for each game its prefix family (with what
    its entry in ``entries`` adds) and its commands outside the prefix."""
    known = {game.key: game for game in entries}
    owns = [(kind, _meeting(kind, known.get(kind.key))) for kind in kinds]
    return build([
        *COMMANDS,
        [games.game_family(kind, own) for kind, own in owns],
        [cmd for _, own in owns if own is not None for cmd in own.top_commands],
    ], [own for _, own in owns if own is not None])


def _meeting(kind: GameKind, own: GameCommands | None) -> GameCommands | None:
    """A game's entry with what every game of two players adds: ``<PREFIX> SEEK``."""
    if kind.seats != 2 or kind.min_seats != 2 or kind.open_table:
        return own
    own = own or GameCommands(kind.key)
    return attrs.evolve(own, commands=(*own.commands, seeks.seek_command(kind)))


def _wire_meeting(parlor: Parlor) -> None:
    """Seeks reach MUD clients as a GMCP stream: ``Seek.List`` at login, then
    ``Seek.Add`` and ``Seek.Remove`` as they change (to this node's players). A login
    here is told to those with the player on their notify list, and the player is told
    what was kept for them while away (a challenge they missed, a gift)."""
    host = parlor.host

    def stream(change: str, data: dict) -> None:
        package = "Seek.Add" if change == "add" else "Seek.Remove"
        for session in list(parlor.online.sessions.values()):
            session.gmcp(package, data)

    def arrived(account_id: int, name: str) -> None:
        session = parlor.online.sessions.get(account_id)
        if session is not None:  # here, not on another node
            session.gmcp("Seek.List", [s.to_json() for s in host.seeks.by_id.values()])
            host.notify.arrived(account_id, name)

    host.seeks.listeners.append(stream)
    host.arrivals.append(arrived)
    host.departures.append(host.notify.departed)
    host.offers.missed.append(host.notify.keep)


def assemble(config: Config, kinds: Iterable[GameKind] | None = None) -> Parlor:
    """The parlor for ``config``: ``kinds`` (default: :func:`default_kinds`) and the
    config's extra games, with their commands, the data-file tables they load and what
    they give every new account. Not started (``await parlor.start()``)."""
    extra = [load_entry(spec) for spec in config.games.extra]
    hosted = [*(default_kinds(config) if kinds is None else kinds),
              *(entry.kind.from_config(config.games) for entry in extra)]
    config.games.check_read({name for kind in hosted for name in (kind.key, *kind.old_settings)})
    parlor = Parlor(config, hosted, registry_for(hosted, [*GAMES, *extra]),
                    seeders={name: seeder for kind in hosted
                             for name, seeder in kind.seeders.items()})
    for kind in hosted:
        parlor.accounts.on_new_account(kind.on_new_account)
    _wire_meeting(parlor)
    _wire_correspondence(parlor, config)
    return parlor


def _wire_correspondence(parlor: Parlor, config: Config) -> None:
    """Correspondence games' clocks count ``[games] correspondence_day`` seconds a day,
    and a login here is told which games wait for the player's move and which
    correspondence challenges wait for their answer."""
    host = parlor.host
    host.correspondence.day = config.games.correspondence_day

    def arrived(account_id: int, name: str) -> None:  # noqa: ARG001
        if parlor.online.sessions.get(account_id) is not None:  # here, not on another node
            host.spawn(host.correspondence.arrived(account_id))

    host.arrivals.append(arrived)


def main(argv: list[str] | None = None) -> int:
    """The ``esterport`` console script."""
    return cli.main(argv, assemble)


if __name__ == "__main__":
    sys.exit(main())
