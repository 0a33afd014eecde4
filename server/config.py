"""Configuration: ``config.toml`` read into frozen attrs sections, with command-line overrides.

Every key has a default, so an empty or missing file gives a working server. A game's
own settings are its table ``[games.<key>]``, read by the game (``GameKind.Settings``)
with the same checks, so this module names no game.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Mapping

import attrs

from server.proxy_protocol import check_proxies
from server.tls import server_context


def _proxies(_section: Any, field: attrs.Attribute, value: tuple[str, ...]) -> None:
    """A validator: ``[server] trusted_proxies`` holds addresses or networks, else a
    one-line ValueError naming the entry."""
    try:
        check_proxies(value)
    except ValueError as err:
        raise ValueError(f"config: [server] {field.name}: {err}") from None


def _at_least(section: str, least: int) -> Callable[[Any, attrs.Attribute, int], None]:
    """A validator: a number setting of ``[section]`` is at least ``least``, else a
    one-line ValueError naming it."""
    def check(_section: Any, field: attrs.Attribute, value: int) -> None:
        if value < least:
            raise ValueError(f"config: [{section}] {field.name} should be at least {least}, "
                             f"not {value}")
    return check


def _within(section: str, least: float,
            most: float) -> Callable[[Any, attrs.Attribute, float], None]:
    """A validator: a number setting of ``[section]`` is from ``least`` to ``most``, else a
    one-line ValueError naming it."""
    def check(_section: Any, field: attrs.Attribute, value: float) -> None:
        if not least <= value <= most:
            raise ValueError(f"config: [{section}] {field.name} should be {least:g} to "
                             f"{most:g}, not {value}")
    return check


@attrs.frozen
class ServerSection:
    name: str = "Esterport"
    host: str = "127.0.0.1"
    port: int = 4000
    idle_timeout: int = 1800
    login_timeout: int = 120
    keepalive: int = 60
    max_line: int = 4096
    max_connections_per_address: int = 10
    max_connections: int = 0          # 0: as many as the descriptor limit allows
    # connections the kernel holds for each door's listener until the server accepts them
    # (listen(2); capped by net.core.somaxconn); past it, a connecting client waits unheard
    backlog: int = attrs.field(default=4096, validator=_at_least("server", 1))
    max_subnegotiation: int = 8192
    prelogin_bytes: int = 65536
    fairness: bool = True             # heavy senders wait while the event loop lags
    commands_per_second: float = 8.0
    command_burst: int = 20
    log_level: str = "INFO"
    log_repeats: int = 20             # records of one kind logged a log_window (0: all) ...
    log_window: float = 10.0          # ... then one line says how many more there were
    # seconds between moves of long-lived objects out of the collector's way
    # (server/collector.py); 0: CPython's own pacing
    gc_freeze_every: float = 10.0
    # proxies whose connections begin with a PROXY protocol header naming the client
    # (HAProxy's send-proxy / send-proxy-v2): addresses or networks; none by default
    trusted_proxies: tuple[str, ...] = attrs.field(default=(), converter=tuple,
                                                   validator=_proxies)
    # a holder process keeps every connection while the parlor restarts (server/holder):
    # SIGHUP or `esterport reload` reloads, a crash restarts; false: a restart closes them
    hold: bool = True
    # ... and keeps a spare parlor loaded beside the one that serves, to take over at once
    # after a crash (a second process of the parlor's size)
    hold_spare: bool = True
    # the holder's process id, for `esterport reload`; a cluster node's is named after
    # the node (esterport-<node>.pid), so nodes started in one folder keep theirs apart
    pid_file: str = "esterport.pid"
    # telnet over TLS on a port of its own (0: none), with a PEM certificate (its chain
    # after it) and its unencrypted PEM key ("": in the certificate's file); the web door's
    # HTTPS port ([web] tls_port) uses the same files (server/tls.py)
    tls_port: int = attrs.field(default=0, validator=_at_least("server", 0))
    tls_certificate: str = ""
    tls_key: str = ""
    # MUD clients' compression of what the plain telnet port sends (MCCP2, server/telnet.py):
    # offered when true; never over TLS or /play. zlib's level, window (2^bits bytes) and
    # memLevel: a stream costs (1 << (window_bits + 2)) + (1 << (mem_level + 9)) bytes plus
    # about 6 KB (bench/mccp_memory.py); it ends after mccp_idle seconds without output
    # (0: never) and its memory is freed, and the next output starts a new one
    mccp: bool = False
    mccp_level: int = attrs.field(default=6, validator=_within("server", 1, 9))
    mccp_window_bits: int = attrs.field(default=12, validator=_within("server", 9, 15))
    mccp_mem_level: int = attrs.field(default=2, validator=_within("server", 1, 9))
    mccp_idle: float = attrs.field(default=60.0, validator=_within("server", 0, 86400))


@attrs.frozen
class DatabaseSection:
    url: str = "sqlite+aiosqlite:///var/esterport.db"


@attrs.frozen
class LoginSection:
    max_failures: int = 5
    failure_window: int = 300
    first_delay: int = 5
    lockout: int = 300
    logins_per_minute: int = 6
    new_accounts_per_address: int = 20
    new_accounts_per_minute: int = 60
    lines_per_second: float = 2.0


@attrs.frozen
class GamesSection:
    """``[games]``: what every game shares. ``own`` holds the rest as written: each
    game's table ``[games.<key>]``, and keys of ``[games]`` itself that a game reads as
    its own (``GameKind.old_settings``: a game's settings were once written there). A
    game reads its part with :meth:`settings`; :meth:`check_read` refuses what no game
    read."""

    reconnect_grace: int = 120
    computer_delay: float = 0.5
    # seconds in a "day" of a correspondence game's clock (DAYS <n> a move); shorter
    # only to try the clocks out (the tests make a day a few seconds)
    correspondence_day: float = 86400.0
    extra: tuple[str, ...] = attrs.field(default=(), converter=tuple)
    own: Mapping[str, Any] = attrs.field(factory=dict, converter=lambda m: MappingProxyType(dict(m)))

    def settings(self, key: str, fields: type, old: Mapping[str, str] | None = None) -> Any:
        """The settings of the game ``key``: ``fields`` (an attrs class whose fields have
        defaults) from ``[games.<key>]``, and from the keys of ``[games]`` that ``old``
        names (old key -> field; the table wins)."""
        table = self.own.get(key, {})
        if not isinstance(table, dict):
            raise ValueError(f"config: [games] {key} should be a table ([games.{key}])")
        values = {field: self.own[name] for name, field in (old or {}).items()
                  if name in self.own}
        return read_section(f"games.{key}", fields, {**values, **table})

    def check_read(self, read: set[str]) -> None:
        """Refuse, naming it, a key of ``own`` that is not in ``read`` (the keys of the
        games hosted, and the old keys they read)."""
        for name, value in self.own.items():
            if name not in read:
                what = f"section [games.{name}]" if isinstance(value, dict) else \
                    f"key {name!r} in [games]"
                raise ValueError(f"config: unknown {what} (no game hosted here reads it)")


@attrs.frozen
class AccountsSection:
    starting_cubits: int = 1000
    # argon2id at OWASP's first minimum (46 MiB, one pass), one hash at a time: the
    # server's memory stays below 200 MB under a flood of logins (bench/login_flood.py)
    argon2_time_cost: int = 1
    argon2_memory_kib: int = 47104
    hashing_at_once: int = 1


@attrs.frozen
class WebSection:
    """The web door (``server/web/``): pages, JSON and the browser client on one port."""

    enabled: bool = True
    host: str = "127.0.0.1"
    port: int = 8080
    origins: tuple[str, ...] = attrs.field(default=(), converter=tuple)  # more allowed Origins
    hosts: tuple[str, ...] = attrs.field(default=(), converter=tuple)  # names /play answers to
    trusted_proxies: tuple[str, ...] = attrs.field(default=(), converter=tuple)
    max_message: int = 16384          # bytes in one WebSocket message
    messages_per_second: float = 20.0  # WebSocket messages a second, sustained ...
    message_burst: int = 60            # ... and the burst above it
    watchers_per_game: int = 500       # live board streams open on one game at once
    max_streams: int = 500             # ... and on all games (at most half the web's share)
    stream_idle: float = 600.0         # seconds a stream of a game that does not change lasts
    max_requests: int = 2000           # web connections at once (at most 3/4 of the budget)
    max_connections_per_address: int = 20  # web connections from one address at once
    # live streams (a game, the seeks, tournaments) one address holds open at once
    streams_per_address: int = attrs.field(default=8, validator=_at_least("web", 1))
    request_timeout: float = 10.0      # a request head arriving (400), an answer made (503)
    # page requests answered at once; the others wait their turn behind the players'
    pages_at_once: int = attrs.field(default=2, validator=_at_least("web", 1))
    # the same pages over HTTPS on a port of their own (0: none), with [server]
    # tls_certificate and tls_key
    tls_port: int = attrs.field(default=0, validator=_at_least("web", 0))
    # the plain port served by a process of its own (server/web/front.py), which asks the
    # parlor for each page and hands it live streams and /play: page readers then do not
    # take the players' CPU (false: the parlor serves the plain port itself)
    front: bool = True


@attrs.frozen
class ClusterSection:
    """``[cluster]``: several nodes, one parlor (``server/cluster/``). Without ``redis``
    the parlor is one process, as ever; with it, this process is node ``node`` of a
    cluster sharing that Redis and one PostgreSQL."""

    redis: str = ""      # "redis://HOST:PORT/DB"
    node: str = ""       # this node's name, unique in the cluster ("" : the host name)
    lease: float = 6.0   # seconds a dead node's games wait before another takes them over

    def __attrs_post_init__(self) -> None:
        if self.redis and not self.redis.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError(f"config: [cluster] redis should be a redis:// URL, not "
                             f"{self.redis!r}")
        if self.node and not all(c.isalnum() or c in "-_." for c in self.node):
            raise ValueError(f"config: [cluster] node should be letters, digits, - _ or ., "
                             f"not {self.node!r}")
        if not 2.0 <= self.lease <= 300.0:
            raise ValueError("config: [cluster] lease should be 2 to 300 seconds")

    @property
    def enabled(self) -> bool:
        return bool(self.redis)


WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
SYSTEMS = ("swiss", "arena", "par", "sitgo")  # what a tournament row's system may be


@attrs.frozen
class ScheduledTournament:
    """One ``[[tournaments.schedule]]`` entry: a tournament the director opens
    ``[tournaments] open_minutes`` ahead of its time and starts at it. ``length`` is its
    rounds or minutes (``rounds = 6`` or ``minutes = 30`` in the file), ``day`` a
    weekday (weekly) or "" (daily), ``at`` "HH:MM" UTC. The game and its options are
    checked when the games are known (``Tournaments.set_schedule``)."""

    game: str
    system: str
    length: int
    at: str
    day: str = ""
    options: tuple[str, ...] = ()

    @property
    def minute_of_day(self) -> int:
        hours, minutes = self.at.split(":")
        return int(hours) * 60 + int(minutes)

    def describe(self) -> str:
        return f"{self.day.capitalize() + 's' if self.day else 'daily'} at {self.at} UTC"

    @classmethod
    def from_toml(cls, number: int, table: Any) -> "ScheduledTournament":
        where = f"config: [[tournaments.schedule]] entry {number}"
        if not isinstance(table, dict):
            raise ValueError(f"{where} should be a table")
        known = {"game", "system", "rounds", "minutes", "at", "day", "options"}
        for key in table:
            if key not in known:
                raise ValueError(f"{where}: unknown key {key!r}")
        for key in ("game", "system", "at"):
            if not isinstance(table.get(key), str) or not table[key]:
                raise ValueError(f"{where}: {key} should be given as a string")
        system = table["system"].lower()
        if system not in SYSTEMS:
            raise ValueError(f"{where}: system should be one of {', '.join(SYSTEMS)}, "
                             f"not {table['system']!r}")
        lengths = [k for k in ("rounds", "minutes") if k in table]
        if len(lengths) > 1:
            raise ValueError(f"{where}: give rounds or minutes, not both")
        length = table[lengths[0]] if lengths else 0
        if isinstance(length, bool) or not isinstance(length, int) or length < 0:
            raise ValueError(f"{where}: {lengths[0]} should be a whole number")
        at = table["at"]
        parts = at.split(":")
        if len(parts) != 2 or not all(p.isdigit() and len(p) == 2 for p in parts) \
                or int(parts[0]) > 23 or int(parts[1]) > 59:
            raise ValueError(f"{where}: at should be a UTC time HH:MM, not {at!r}")
        day = table.get("day", "daily")
        if not isinstance(day, str) or day.lower() not in ("daily", *WEEKDAYS):
            raise ValueError(f"{where}: day should be daily or a weekday, not {day!r}")
        options = table.get("options", [])
        if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
            raise ValueError(f"{where}: options should be a list of strings")
        return cls(game=table["game"].lower(), system=system, length=length, at=at,
                   day="" if day.lower() == "daily" else day.lower(), options=tuple(options))


@attrs.frozen
class TournamentsSection:
    """``[tournaments]``: the director's times (``server/services/tournaments.py``) and
    its ``[[tournaments.schedule]]`` of tournaments it opens by itself."""

    no_show_seconds: float = 60.0    # a paired player not connected forfeits after this
    no_show_bar_hours: float = 24.0  # ... and may enter no tournament for this long
    open_minutes: int = 60           # a scheduled tournament opens this long before it starts
    open_expire_minutes: float = 60.0  # an open one not begun by then is cancelled (0: never)
    tick: float = 1.0                # seconds between the director's looks at the clock
    minute_seconds: float = 60.0     # an arena minute (shorter only in tests and rehearsals)
    schedule: tuple[ScheduledTournament, ...] = attrs.field(default=(), converter=tuple)

    def __attrs_post_init__(self) -> None:
        for name in ("no_show_seconds", "no_show_bar_hours", "tick", "minute_seconds"):
            if getattr(self, name) <= 0:
                raise ValueError(f"config: [tournaments] {name} should be above 0")
        for name in ("open_minutes", "open_expire_minutes"):
            if getattr(self, name) < 0:
                raise ValueError(f"config: [tournaments] {name} should be 0 or more")

    @classmethod
    def from_toml(cls, values: dict[str, Any]) -> "TournamentsSection":
        values = dict(values)
        schedule = values.pop("schedule", [])
        if not isinstance(schedule, list):
            raise ValueError("config: [tournaments] schedule should be a list of tables "
                             "([[tournaments.schedule]])")
        section = read_section("tournaments", cls, values)
        return attrs.evolve(section, schedule=tuple(
            ScheduledTournament.from_toml(k, t) for k, t in enumerate(schedule, 1)))


_SECTIONS = {
    "server": ServerSection,
    "database": DatabaseSection,
    "login": LoginSection,
    "games": GamesSection,
    "accounts": AccountsSection,
    "web": WebSection,
    "cluster": ClusterSection,
    "tournaments": TournamentsSection,
}


@attrs.frozen
class Config:
    server: ServerSection = ServerSection()
    database: DatabaseSection = DatabaseSection()
    login: LoginSection = LoginSection()
    games: GamesSection = GamesSection()
    accounts: AccountsSection = AccountsSection()
    web: WebSection = WebSection()
    cluster: ClusterSection = ClusterSection()
    tournaments: TournamentsSection = TournamentsSection()

    @property
    def pid_path(self) -> str:
        """Where the holder writes its process id: ``[server] pid_file``, named after the
        node in a cluster whose node has a name (``esterport-n1.pid``)."""
        path = Path(self.server.pid_file)
        if self.cluster.enabled and self.cluster.node:
            path = path.with_name(f"{path.stem}-{self.cluster.node}{path.suffix}")
        return str(path)

    def check(self) -> None:
        """Refuse, with a one-line reason, settings that cannot work together."""
        if self.cluster.enabled and not self.database.url.startswith("postgresql"):
            raise ValueError("config: a cluster ([cluster] redis) needs PostgreSQL: every "
                             "node must share one database, and SQLite is one process's file")
        if self.server.tls_port or (self.web.enabled and self.web.tls_port):
            server_context(self.server.tls_certificate, self.server.tls_key)  # TLSError

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Config":
        """Build a Config from parsed TOML; unknown sections or keys are an error."""
        sections = {}
        for name, values in data.items():
            if name not in _SECTIONS:
                raise ValueError(f"config: unknown section [{name}]")
            if name == "games":  # what is not every game's is the games' own
                shared = {f.name for f in attrs.fields(GamesSection)} - {"own"}
                own = {k: v for k, v in values.items() if k not in shared}
                values = {k: v for k, v in values.items() if k in shared}
                sections[name] = attrs.evolve(read_section(name, GamesSection, values), own=own)
                continue
            if name == "tournaments":
                sections[name] = TournamentsSection.from_toml(values)
                continue
            sections[name] = read_section(name, _SECTIONS[name], values)
        return cls(**sections)

    @classmethod
    def load(cls, path: str | Path | None) -> "Config":
        if path is None:
            return cls()
        with open(path, "rb") as fh:
            return cls.from_dict(tomllib.load(fh))

    def with_overrides(
        self, *, host: str | None = None, port: int | None = None, database: str | None = None,
        web_port: int | None = None, redis: str | None = None, node: str | None = None,
    ) -> "Config":
        server = self.server
        if host is not None:
            server = attrs.evolve(server, host=host)
        if port is not None:
            server = attrs.evolve(server, port=port)
        db = self.database if database is None else attrs.evolve(self.database, url=database)
        web = self.web if web_port is None else attrs.evolve(self.web, port=web_port)
        cluster = self.cluster
        if redis is not None:
            cluster = attrs.evolve(cluster, redis=redis)
        if node is not None:
            cluster = attrs.evolve(cluster, node=node)
        return attrs.evolve(self, server=server, database=db, web=web, cluster=cluster)


def read_section(name: str, section_cls: type, values: dict[str, Any]) -> Any:
    """``section_cls`` (an attrs class whose fields have defaults) from the TOML table
    ``[name]``; an unknown key or a value of the wrong type is a ValueError naming it."""
    known = {f.name: f for f in attrs.fields(section_cls)}
    for key in values:
        if key not in known:
            raise ValueError(f"config: unknown key {key!r} in [{name}]")
    return section_cls(**{key: _coerce(name, known[key], value) for key, value in values.items()})


def _coerce(section: str, field: attrs.Attribute, value: Any) -> Any:
    """``value`` as the field's type (the type of its default), or a ValueError naming the
    key. TOML has its own true and false: a yes/no setting takes only those ("no" and 0
    are refused, not read as a truthy value), and a number setting refuses them (in
    Python a bool is an int). A list setting takes a list of strings."""
    default = field.default
    where = f"config: [{section}] {field.name}"
    if default is None:
        return value
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ValueError(f"{where} should be true or false, not {value!r}")
        return value
    if isinstance(value, bool):
        raise ValueError(f"{where} should be {type(default).__name__}, not {value!r}")
    if isinstance(default, tuple):
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise ValueError(f"{where} should be a list of strings, not {value!r}")
        return tuple(value)
    if isinstance(default, float) and isinstance(value, int):
        return float(value)
    if not isinstance(value, type(default)):
        raise ValueError(f"{where} should be {type(default).__name__}, not {value!r}")
    return value
