"""An in-process parlor for the hardening tests: real Parlor, real Sessions, a fake
terminal that captures every byte, lines fed through the session's own input
path (``Session._feed`` and ``next_line``: bound, split, clean) and dispatched with the real registry.

It also snapshots every table in the database (plus the in-memory state a command
could change), so a test can check that a refused command changed nothing.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from typing import Any, Callable

import sqlalchemy as sa

from commands.app import assemble
from server.app import Parlor
from server.models import Base
from server.session import Session

# What may reach a player's terminal: printable text, CR/LF, our own SGR colour codes, and
# the bell Pyramid rings on purpose (its SOUND setting); input never carries one through,
# since every line is cleaned when it is read.
SGR = re.compile(r"\x1b\[[0-9;]*m")
CONTROL = re.compile(r"[\x00-\x06\x08\x09\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f"
                     r"\u202a-\u202e\u2066-\u2069]")
APOLOGY = "Sorry, something went wrong"
ERRORS = ("usage", "refused", "huh")
VOLATILE = {"last_seen_at", "updated_at", "created_at"}  # timestamps change on reads


def unsafe(text: str) -> list[str]:
    """The terminal-driving pieces in ``text`` (empty when it is safe to show)."""
    return CONTROL.findall(SGR.sub("", text))


def unsafe_json(value: Any, check: Callable[[str], list[str]] = unsafe) -> list[str]:
    """What ``check`` finds in every string of a JSON value (keys too)."""
    if isinstance(value, str):
        return check(value)
    if isinstance(value, dict):
        return [b for k, v in value.items()
                for b in unsafe_json(k, check) + unsafe_json(v, check)]
    if isinstance(value, (list, tuple)):
        return [b for v in value for b in unsafe_json(v, check)]
    return []


class FakeTerminal:
    """A session's terminal (server/terminal.py) that keeps what is sent to it."""

    def __init__(self, address: str = "10.0.0.1", cols: int = 80) -> None:
        self.address = address
        self.cols, self.rows = cols, 40
        self.session: Any = None
        self.data = bytearray()
        self.gmcp: list[tuple[str, Any]] = []
        self.closed = False
        self.echoing = True

    def get_extra_info(self, key: str, default: Any = None) -> Any:
        return {"peername": (self.address, 40000), "TERM": "xterm"}.get(key, default)

    async def read(self) -> str:
        return ""   # the harness runs commands itself: nothing is ever read

    def discard(self) -> bool | None:
        return None

    def unread(self) -> bytes:
        return b""

    def when_input(self, wake: Any) -> bool:
        return False   # (never asked: the harness runs commands itself)

    def wake(self) -> None:
        pass

    def send(self, text: str, go_ahead: bool = False) -> None:
        self.data += text.encode("utf-8", "replace")
        if go_ahead:
            self.data += bytes([255, 249])  # IAC GA, as telnet ends a prompt

    backlog = 0
    logged_in = False

    def abort(self) -> None:
        self.closed = True

    def close(self) -> None:
        self.closed = True

    def echo(self, on: bool) -> None:
        self.echoing = on

    def hand_over(self) -> None:
        pass

    gmcp_on = False

    def send_gmcp(self, package: str, data: Any) -> None:
        json.dumps(data)  # what the real terminal does: it must serialise
        self.gmcp.append((package, data))

    def offer_mud_protocols(self, late: bool = False) -> bool:
        return False

    mssp_on = False

    def send_mssp(self, variables: dict[str, Any]) -> None:
        pass

    def release(self) -> None:
        pass


class ErrorLog(logging.Handler):
    """Collects ERROR records (an exception logged anywhere is a failure)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def take(self) -> list[str]:
        out = [f"{r.name}: {r.getMessage()}\n{self.format(r) if r.exc_info else ''}"
               for r in self.records]
        self.records.clear()
        return out


class Player:
    """One fake connection, logged in."""

    def __init__(self, harness: "Harness", name: str, session: Session) -> None:
        self.harness = harness
        self.name = name
        self.session = session
        self.mark = 0
        self.gmcp_mark = 0

    @property
    def terminal(self) -> FakeTerminal:
        return self.session.terminal

    def text(self) -> str:
        return self.terminal.data.decode("utf-8", "replace")

    def new_output(self) -> str:
        """What this player received since the last call."""
        self.session.flush()
        data = self.terminal.data[self.mark:]
        self.mark = len(self.terminal.data)
        return data.decode("utf-8", "replace")

    def new_gmcp(self) -> list[tuple[str, Any]]:
        out = self.terminal.gmcp[self.gmcp_mark:]
        self.gmcp_mark = len(self.terminal.gmcp)
        return out

    async def type(self, raw: str) -> list[str]:
        """Feed ``raw`` (one or more lines, as the socket would deliver them) through the
        session's input path and dispatch each line; return each line's status."""
        session = self.session
        session._feed(raw if raw.endswith(("\n", "\r")) else raw + "\r\n",
                      self.harness.parlor.config.server.max_line)
        statuses = []
        while session._lines and not session.closed:
            line = session.next_line()
            statuses.append(await self.harness.parlor.registry.dispatch(session, line))
        session._lines = None
        session.flush()
        return statuses

    async def cmd(self, line: str) -> str:
        self.new_output()
        await self.type(line)
        await asyncio.sleep(0)
        return self.new_output()


class Harness:
    def __init__(self, parlor: Parlor) -> None:
        self.parlor = parlor
        self.players: dict[str, Player] = {}
        self.errors = ErrorLog()

    @classmethod
    async def start(cls, config, kinds=None) -> "Harness":  # noqa: ANN001
        parlor = assemble(config, kinds)
        await parlor.start()
        await parlor.load_default_data()
        harness = cls(parlor)
        logging.getLogger().addHandler(harness.errors)
        return harness

    async def stop(self) -> None:
        logging.getLogger().removeHandler(self.errors)
        await self.parlor.stop()

    async def player(self, name: str, *, admin: bool = False, address: str = "10.0.0.1",
                     new: bool = True) -> Player:
        accounts = self.parlor.accounts
        if new:
            await accounts.create(name, "secret")
        if admin:
            await accounts.set_admin(name, True)
        account = await accounts.get(name)
        session = Session(self.parlor, FakeTerminal(address))
        self.parlor.connections.open.add(session)
        self.parlor.connections.per_address[session.address] += 1
        await self.parlor.connections.enter(session, account)
        player = Player(self, name, session)
        player.new_output()
        self.players[name] = player
        return player

    async def drop(self, player: Player) -> None:
        """The connection goes away (what the telnet shell does when it ends)."""
        player.session.closed = True
        await self.parlor.connections.leave(player.session)

    async def revive(self, player: Player) -> Player:
        """After QUIT, a kick or a ban in a fuzz run: log the player in again."""
        await self.drop(player)
        await self.parlor.accounts.set_banned(player.name, False)
        return await self.player(player.name, new=False,
                                 admin=player.session.is_admin,
                                 address=player.terminal.address)

    # -- state -----------------------------------------------------------------------
    async def snapshot(self) -> dict[str, Any]:
        """Every row of every table (timestamps left out), and the in-memory state a
        command could change: offers, live games, sessions' settings, rooms, watching."""
        snap: dict[str, Any] = {}
        async with self.parlor.db.session() as tx:
            for table in Base.metadata.sorted_tables:
                cols = [c for c in table.columns if c.name not in VOLATILE]
                rows = (await tx.execute(sa.select(*cols))).all()
                snap[table.name] = sorted(repr(tuple(r)) for r in rows)
        host = self.parlor.host
        snap["offers"] = sorted((o.kind.key, o.challenger.account_id, o.target.account_id,
                                 repr(o.options)) for o in host.offers.by_id.values())
        snap["live"] = sorted((g.id, g.version, repr(g.seats)) for g in host.live.values())
        snap["sessions"] = sorted(
            (s.name, s.color, s._width, s.room, tuple(sorted(s.ignoring)),
             tuple(sorted(s.watching)), s.closed) for s in self.parlor.connections)
        return snap

    def busy(self) -> list[str]:
        """Background work of the host that may change state by itself right now (a
        computer's move, a helper playing for someone): its coroutine names."""
        # clocks: they sleep far longer than a test step (a game's, a tournament director's)
        quiet = {"_timeout", "_presence", "_clock"}
        names = []
        for task in self.parlor.host.turns._tasks:
            if task.done():
                continue
            name = getattr(task.get_coro(), "__name__", "?")
            if name not in quiet:
                names.append(name)
        return names


def diff(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for key in before:
        if before[key] != after.get(key):
            b, a = before[key], after.get(key)
            if isinstance(b, list) and isinstance(a, list):
                out[key] = {"gone": [x for x in b if x not in a][:5],
                            "new": [x for x in a if x not in b][:5]}
            else:
                out[key] = (b, a)
    return out
