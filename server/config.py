"""Configuration: ``config.toml`` read into frozen attrs sections, with command-line overrides.

Every key has a default, so an empty or missing file gives a working server.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import attrs


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
    max_subnegotiation: int = 8192
    prelogin_bytes: int = 65536
    fairness: bool = True             # heavy senders wait while the event loop lags
    commands_per_second: float = 8.0
    command_burst: int = 20
    log_level: str = "INFO"


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
    reconnect_grace: int = 120
    trade_timeout: int = 300
    triad_action_timeout: float = 60.0  # Triad: seconds to act before the default action
    computer_delay: float = 0.5
    extra: tuple[str, ...] = attrs.field(default=(), converter=tuple)


@attrs.frozen
class AccountsSection:
    starting_cubits: int = 1000
    argon2_time_cost: int = 3
    argon2_memory_kib: int = 65536
    hashing_at_once: int = 2


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
    request_timeout: float = 10.0      # a request head arriving (400), an answer made (503)


_SECTIONS = {
    "server": ServerSection,
    "database": DatabaseSection,
    "login": LoginSection,
    "games": GamesSection,
    "accounts": AccountsSection,
    "web": WebSection,
}


@attrs.frozen
class Config:
    server: ServerSection = ServerSection()
    database: DatabaseSection = DatabaseSection()
    login: LoginSection = LoginSection()
    games: GamesSection = GamesSection()
    accounts: AccountsSection = AccountsSection()
    web: WebSection = WebSection()

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Config":
        """Build a Config from parsed TOML; unknown sections or keys are an error."""
        sections = {}
        for name, values in data.items():
            if name not in _SECTIONS:
                raise ValueError(f"config: unknown section [{name}]")
            section_cls = _SECTIONS[name]
            known = {f.name: f for f in attrs.fields(section_cls)}
            for key in values:
                if key not in known:
                    raise ValueError(f"config: unknown key {key!r} in [{name}]")
            sections[name] = section_cls(
                **{key: _coerce(name, known[key], value) for key, value in values.items()}
            )
        return cls(**sections)

    @classmethod
    def load(cls, path: str | Path | None) -> "Config":
        if path is None:
            return cls()
        with open(path, "rb") as fh:
            return cls.from_dict(tomllib.load(fh))

    def with_overrides(
        self, *, host: str | None = None, port: int | None = None, database: str | None = None,
        web_port: int | None = None,
    ) -> "Config":
        server = self.server
        if host is not None:
            server = attrs.evolve(server, host=host)
        if port is not None:
            server = attrs.evolve(server, port=port)
        db = self.database if database is None else attrs.evolve(self.database, url=database)
        web = self.web if web_port is None else attrs.evolve(self.web, port=web_port)
        return attrs.evolve(self, server=server, database=db, web=web)


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
