"""The application, assembled in one place: the games Esterport hosts, their commands,
and the parlor that runs them. ``esterport`` (``python -m commands.app``) runs the
command line of ``server/cli.py`` with :func:`assemble`; the tests' ``parlor``
fixture calls :func:`assemble` too.

Layers point one way (docs/design.md, principle 7): this module imports ``server/``,
``server/`` never imports ``commands/``. The parlor is handed its games and its
command table (a :class:`~commands.registry.Registry`) and knows neither.
"""

from __future__ import annotations

import importlib
import sys
from typing import Iterable

from commands import admin, basics, dice, games, people, pyramid, settings, talk, triad
from commands import triptycha, world
from commands.registry import GameCommands, Registry, build
from server import cli
from server.app import Parlor
from server.config import Config
from server.hosting import GameKind
from server.services import dice as dice_service
from server.services import pyramid as pyramid_service
from server.services import tiles as tiles_service
from server.services import triad as triad_service
from server.services import triptycha as triptycha_service

# Each game's own commands, by its kind's key. A kind without an entry (an extra game
# from the config) gets the commands every game has (``commands.games.game_family``).
GAME_COMMANDS: dict[str, GameCommands] = {
    own.key: own for own in (triptycha.GAME, dice.GAME, triad.GAME, pyramid.GAME)}

COMMANDS = (basics.COMMANDS, world.COMMANDS, talk.COMMANDS, people.COMMANDS,
            settings.COMMANDS, games.COMMANDS, admin.COMMANDS)


def default_kinds(config: Config) -> list[GameKind]:
    """The games Esterport hosts, fresh (a kind is hosted by one parlor, and is its game's
    service there). Each game registers its kind here when it lands."""
    games = config.games
    return [triptycha_service.Triptycha(trade_timeout=games.trade_timeout),
            dice_service.Dice(),
            triad_service.TriadTables(action_timeout=games.triad_action_timeout),
            pyramid_service.Pyramid()]


def load_kind(spec: str) -> GameKind:
    """A fresh GameKind of the class named ``module:attribute`` (``[games] extra`` in the
    config: extra games, such as the tests' noughts and crosses)."""
    module, _, attr = spec.partition(":")
    return getattr(importlib.import_module(module), attr or "KIND")()


def registry_for(kinds: Iterable[GameKind]) -> Registry:
    """Every command: the families above, and for each game its prefix family (with its
    own subcommands) and its commands outside the prefix."""
    owns = [(kind, GAME_COMMANDS.get(kind.key)) for kind in kinds]
    return build([
        *COMMANDS,
        [games.game_family(kind, own) for kind, own in owns],
        [cmd for _, own in owns if own is not None for cmd in own.top_commands],
    ])


def assemble(config: Config, kinds: Iterable[GameKind] | None = None) -> Parlor:
    """The parlor for ``config``: ``kinds`` (default: :func:`default_kinds`) and the
    config's extra games, with their commands; the tile economy's data files (Triptycha's
    collections and the starter set) and the starter set every new account gets. Not
    started (``await parlor.start()``)."""
    hosted = [*(default_kinds(config) if kinds is None else kinds),
              *(load_kind(spec) for spec in config.games.extra)]
    parlor = Parlor(config, hosted, registry_for(hosted), seeders=triptycha_service.SEEDERS)
    parlor.accounts.on_new_account(tiles_service.grant_starter)
    return parlor


def main(argv: list[str] | None = None) -> int:
    """The ``esterport`` console script."""
    return cli.main(argv, assemble)


if __name__ == "__main__":
    sys.exit(main())
