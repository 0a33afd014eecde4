"""What the holder and the parlor say to each other: typed messages, versioned.

Each message is one datagram of a ``SOCK_SEQPACKET`` socket pair: a JSON object with its
``type`` (the class name) and the protocol's version ``v``, and at most one descriptor
beside it (:mod:`server.holder.channel`). The rules that let a parlor and a holder of
different releases talk during an upgrade:

* a field is only ever added, with a default; a reader ignores fields it does not know
  and fills the ones it misses from their defaults;
* a message of a type the reader does not know is logged and ignored;
* anything else (a field removed or its meaning changed) raises :data:`VERSION`, and a
  holder refuses a parlor of a version it does not list in :data:`SUPPORTED`.
"""

from __future__ import annotations

import json
from typing import Any

import attrs

VERSION = 2   # 2: a connection may be a /play WebSocket (``Carried.websocket``)
SUPPORTED = frozenset({1, 2})


@attrs.frozen
class Window:
    cols: int = 80
    rows: int = 24


@attrs.frozen
class Carried:
    """What a new parlor needs to carry a connection's session on without a login."""

    conn: int                       # the holder's number for the connection
    address: str = ""               # the player's address (a trusted proxy's word included)
    port: int = 0
    account: int | None = None      # logged in as (None: at the login)
    window: Window = Window()
    terminal: str = ""              # TTYPE
    gmcp: bool = False              # the client agreed to GMCP
    supports: tuple[str, ...] = ()  # its Core.Supports.Set
    client: str | None = None       # its Core.Hello
    pending: str = ""               # typed but not run yet (a reload's hand-over)
    room: str = ""                  # where the player stands
    watching: tuple[int, ...] = ()  # the games the player observes
    # version 2: a browser's /play WebSocket (the telnet stream in binary frames), not a
    # telnet socket; ``stream``: the bytes of a frame it had begun to send (base64)
    websocket: bool = False
    stream: str = ""
    # an MCCP2 stream (server/telnet.py) was open: the client is decompressing, and cannot
    # read plain bytes (the holder's gap notice) until the stream ends; at a reload's
    # hand-over it has ended. Version 2 still: a reader that lacks it takes it as False
    compressing: bool = False
    # the digest of the resume token the player's page was given (server/services/resume.py):
    # the page keeps the token through a restart, and the new parlor goes on with it rather
    # than issuing another in the gap. Version 2 still: "" (a parlor before) issues one
    resume_digest: str = ""


# -- the parlor to the holder -----------------------------------------------------------
@attrs.frozen
class Hello:
    """The parlor is up (its listeners open, every connection handed to it resumed)."""

    pid: int


@attrs.frozen
class Hold:
    """Keep this connection (its descriptor rides with the message)."""

    carried: Carried


@attrs.frozen
class Update:
    """What to carry over of a held connection changed (a login, a window)."""

    carried: Carried


@attrs.frozen
class Release:
    """The parlor closed the connection: close it."""

    conn: int


@attrs.frozen
class HandedOver:
    """A reload: every session is at rest and its state sent; the parlor now exits."""


@attrs.frozen
class ReloadMe:
    """Reload this parlor as SIGHUP would (a cluster's rolling reload reached its node)."""


# -- the holder to the parlor -----------------------------------------------------------
@attrs.frozen
class Resume:
    """A held connection for the new parlor (its descriptor rides with the message)."""

    carried: Carried


@attrs.frozen
class Resumed:
    """Every held connection has been sent; the new parlor numbers its new connections
    from ``next_conn``."""

    count: int
    next_conn: int = 1


@attrs.frozen
class Reload:
    """Hand every connection over and exit: a new parlor takes them."""


@attrs.frozen
class Stop:
    """Stop for good (the holder was told to stop): close every connection."""


MESSAGES: dict[str, type] = {cls.__name__: cls for cls in (
    Hello, Hold, Update, Release, HandedOver, ReloadMe, Resume, Resumed, Reload, Stop)}
NESTED: dict[str, type] = {"carried": Carried, "window": Window}


def encode(message: Any) -> bytes:
    body = attrs.asdict(message)
    return json.dumps({"type": type(message).__name__, "v": VERSION, **body},
                      separators=(",", ":")).encode()


# the plain types a field may have (as annotated), and what a JSON value must be for it
PLAIN: dict[str, tuple[type, ...]] = {
    "int": (int,), "str": (str,), "bool": (bool,), "int | None": (int, type(None)),
    "str | None": (str, type(None)), "tuple[str, ...]": (tuple,),
    "tuple[int, ...]": (tuple,)}


def _build(cls: type, data: dict) -> Any:
    fields = {field.name: field for field in attrs.fields(cls)}
    values = {}
    for name, value in data.items():
        field = fields.get(name)
        if field is None:
            continue  # a newer release's field
        nested = NESTED.get(name)
        if nested is not None:
            if not isinstance(value, dict):
                raise TypeError(f"{name} is not an object")
            value = _build(nested, value)
        else:
            if isinstance(value, list):
                value = tuple(value)
            allowed = PLAIN[str(field.type)]
            if not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed):
                raise TypeError(f"{name} is not {field.type}")
            item = str if str(field.type) == "tuple[str, ...]" else int
            if isinstance(value, tuple) and not all(
                    isinstance(v, item) and not isinstance(v, bool) for v in value):
                raise TypeError(f"{name} is not {field.type}")
        values[name] = value
    return cls(**values)


class Unknown(ValueError):
    """A message this release cannot read (ignored and logged by the reader)."""


def decode(data: bytes) -> tuple[int, Any]:
    """``(version, message)``; :class:`Unknown` for a type this release does not know."""
    try:
        body = json.loads(data)
        kind, version = body.pop("type"), int(body.pop("v"))
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise Unknown(f"not a holder message ({type(err).__name__})") from None
    cls = MESSAGES.get(kind)
    if cls is None:
        raise Unknown(f"a message of type {kind!r}")
    try:
        return version, _build(cls, body)
    except (TypeError, ValueError) as err:
        raise Unknown(f"a malformed {kind}: {err}") from None
