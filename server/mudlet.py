"""The Mudlet package: a window beside the text that draws a player's game from GMCP.

Its source is text in ``server/data/mudlet/``: ``config.lua`` (the package's name and
description), ``esterport.xml`` (the package file, a folder holding one script) and
``esterport.lua`` (the script, embedded into the XML where it says ``<!--
esterport.lua -->``). :meth:`MudletPackage.build` makes the ``.mpackage`` Mudlet
installs, a zip, in memory: ``config.lua`` first and the XML last, as Mudlet writes
them, with fixed dates, so the same source and games make the same bytes and the same
version.

The web door serves it at :data:`PATH` and, while it does, a MUD client that agreed to
GMCP is offered it at login (GMCP ``Client.GUI``, Mudlet's automatic package install:
``{"version", "url"}``; Mudlet downloads it when the version is new to it). Its address
is :meth:`MudletOffer.url`.
"""

from __future__ import annotations

import hashlib
import io
import ipaddress
import re
import zipfile
from pathlib import Path
from typing import Iterable
from xml.sax.saxutils import escape

import attrs

NAME = "esterport"  # the package's name: Mudlet wants the file named after it
PATH = f"/mudlet/{NAME}.mpackage"
SOURCE = Path(__file__).parent / "data" / "mudlet"
EMBED = re.compile(r"<!-- ([\w-]+\.lua) -->")
PACKAGES = "{--[[packages]]}"  # where the script's list of game packages goes
GMCP_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+")
STAMP = (1980, 1, 1, 0, 0, 0)  # a zip's earliest date: the same bytes at every build
WILDCARD = ("", "0.0.0.0", "::")


@attrs.frozen
class MudletPackage:
    """The built ``.mpackage`` (``data``) and its ``version``, which changes whenever
    the bytes do (Mudlet replaces a package whose offered version is new to it)."""

    data: bytes = attrs.field(repr=False)
    version: str

    @classmethod
    def build(cls, game_packages: Iterable[str], source: Path = SOURCE) -> "MudletPackage":
        """The package for a parlor whose games send ``game_packages`` (``"Dice.Game"``
        ...): the script listens for each.

        :raises ValueError: a package name that is not a GMCP name, or a script that
            lost the place its list goes.
        """
        names = sorted(set(game_packages))
        for name in names:
            if not GMCP_NAME.fullmatch(name):
                raise ValueError(f"mudlet: {name!r} is not a GMCP package name")
        listed = "{" + ", ".join(f'"{name}"' for name in names) + "}"

        def embed(match: re.Match) -> str:
            script = (source / match.group(1)).read_text("utf-8")
            if match.group(1) == f"{NAME}.lua":
                if PACKAGES not in script:
                    raise ValueError(f"mudlet: {match.group(1)} has no {PACKAGES}")
                script = script.replace(PACKAGES, listed)
            return escape(script)

        xml = EMBED.sub(embed, (source / f"{NAME}.xml").read_text("utf-8"))
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            for name, text in (("config.lua", (source / "config.lua").read_text("utf-8")),
                               (f"{NAME}.xml", xml)):
                info = zipfile.ZipInfo(name, STAMP)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                archive.writestr(info, text.encode("utf-8"))
        data = buffer.getvalue()
        return cls(data, hashlib.sha256(data).hexdigest()[:12])


@attrs.frozen
class MudletOffer:
    """What a player's Mudlet is offered while the web door serves the package: its
    ``version``, and where the door listens (``host``, ``port``). ``public`` is the
    door's address as ``[web] hosts`` names it (``"http://games.example.org:8080"``,
    HTTPS when the door has a TLS port), or empty."""

    version: str
    host: str
    port: int
    public: str = ""

    def url(self, reached: object) -> str | None:
        """The package's address for a player whose connection reached this server at
        ``reached`` (the socket's ``sockname``, or None when it has none: a browser's
        /play): the public name; else, for a door listening on every address, the one
        the player reached; a door on a loopback address only for a player on this
        machine; a door on one address, that address. None: not offered (always, to a
        connection without a socket address)."""
        address = reached[0] if isinstance(reached, tuple) and reached else None
        if not isinstance(address, str) or not address:
            return None
        if self.public:
            return self.public + PATH
        if self.host in WILDCARD:
            host = address
        elif _loopback(self.host) and not _loopback(address):
            return None
        else:
            host = self.host
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}{PATH}"

    def gmcp(self, reached: object) -> dict[str, str] | None:
        """GMCP ``Client.GUI``'s data for that player, or None."""
        url = self.url(reached)
        return None if url is None else {"version": self.version, "url": url}


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


__all__ = ["MudletOffer", "MudletPackage", "NAME", "PATH"]
