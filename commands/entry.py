"""The ``esterport`` console script, light on purpose.

``esterport serve`` holds its connections by default: the process the operator starts
is the holder (``server/holder``), which keeps the sockets and runs the parlor as a child
(``python -m commands.app``). The holder needs the command line and the configuration,
not the games and their commands, so this module imports only ``server/cli.py`` and
loads the application (:func:`commands.app.assemble`) when a process is to serve or seed
itself: the holder stays about a quarter of a parlor's memory.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from server import cli

if TYPE_CHECKING:
    from server.app import Parlor
    from server.config import Config


def assemble(config: "Config") -> "Parlor":
    """The application (commands/app.py), imported the first time it is made."""
    from commands.app import assemble as made

    return made(config)


def main(argv: list[str] | None = None) -> int:
    """The ``esterport`` console script."""
    return cli.main(argv, assemble)


if __name__ == "__main__":
    sys.exit(main())
