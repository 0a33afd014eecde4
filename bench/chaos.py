"""Crash-restart soak: scripted players play every hosted game at once while the server
is killed with SIGKILL at random moments and started again.

    .venv/bin/python bench/chaos.py --kills 50 --players 12            # SQLite
    .venv/bin/python bench/chaos.py --kills 50 --players 12 --postgres # a throwaway PostgreSQL

Each player is a raw telnet connection. It logs in, starts games with its partner (a
challenge, or a table for a game played at tables; the computer when the game has no
other way) and plays them: its move is the game's own computer player's choice on the
state committed in the database (the script reads the database, as a second process).
A move counts as *acknowledged* when the server's answer ``<name>: <move>`` reached the
player. After every kill, before the restart, the script checks the database:

* every acknowledged move is in its game's move list, at its place, and every game in
  play is at (or past) its last acknowledged move: nothing acknowledged vanished;
* every account's cubits equal its ledger, and the cubits on each card table (stacks plus
  pot) equal what the ledger says went onto it and came off it;
* every tile was made once, and its place and owner are where its log says (tile audit).

After the restart the players log in again and go on with the games they had (the
server restored them). It prints its figures at the end and exits 1 on any violation.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import sqlalchemy as sa  # noqa: E402
from sqlalchemy.ext.asyncio import create_async_engine  # noqa: E402

from commands.app import default_kinds, load_kind  # noqa: E402
from server.config import Config  # noqa: E402
from server.models import Account, GameMove, GameRecord, LedgerEntry  # noqa: E402
from server.services import ledger  # noqa: E402
from server.services import tiles as tile_service  # noqa: E402

TEST_GAME = "tests.support.tictactoe:KIND"
IAC = 255


def strip_telnet(data: bytes) -> bytes:
    """Drop telnet commands and subnegotiations (IAC ...) from server output."""
    out = bytearray()
    i, n = 0, len(data)
    while i < n:
        b = data[i]
        if b != IAC:
            out.append(b)
            i += 1
            continue
        if i + 1 >= n:
            break
        cmd = data[i + 1]
        if cmd == IAC:
            out.append(IAC)
            i += 2
        elif cmd == 250:  # SB ... IAC SE
            end = data.find(bytes([IAC, 240]), i + 2)
            i = n if end < 0 else end + 2
        elif cmd in (251, 252, 253, 254):
            i += 3
        else:
            i += 2
    return bytes(out)


class Lost(Exception):
    """The connection is gone (the server was killed)."""


class Conn:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.buffer = ""
        self.offers: list[tuple[str, str]] = []  # (prefix, challenger) seen in answers

    @classmethod
    async def open(cls, port: int) -> "Conn":
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        return cls(reader, writer)

    def send(self, line: str) -> None:
        if self.writer.is_closing():
            raise Lost("closed")
        self.writer.write(line.encode() + b"\r\n")

    async def expect(self, pattern: str, timeout: float = 10.0) -> str:
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            m = rx.search(self.buffer)
            if m:
                out, self.buffer = self.buffer[:m.end()], self.buffer[m.end():]
                return out
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"did not see {pattern!r}; got {self.buffer[-500:]!r}")
            try:
                chunk = await asyncio.wait_for(self.reader.read(65536), left)
            except asyncio.TimeoutError:
                continue
            except (ConnectionError, OSError) as err:
                raise Lost(str(err)) from None
            if not chunk:
                raise Lost("eof")
            text = strip_telnet(chunk).decode("utf-8", "replace")
            self.buffer += re.sub(r"\x1b\[[0-9;]*m", "", text)

    def close(self) -> None:
        self.writer.close()


class Server:
    def __init__(self, config: str) -> None:
        self.config = config
        self.proc: subprocess.Popen | None = None
        self.port = 0
        self.log: list[str] = []

    def start(self) -> float:
        t0 = time.monotonic()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "commands.app", "serve", "--config", self.config],
            stderr=subprocess.PIPE, text=True, cwd=str(ROOT))
        for line in self.proc.stderr:
            self.log.append(line)
            if "Connect with: telnet" in line:
                self.port = int(line.rsplit(" ", 1)[1])
                threading.Thread(target=self._drain, args=(self.proc,), daemon=True).start()
                return time.monotonic() - t0
        raise RuntimeError("the server did not start:\n" + "".join(self.log[-40:]))

    def _drain(self, proc: subprocess.Popen) -> None:
        for line in proc.stderr:
            self.log.append(line)

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()


class Chaos:
    def __init__(self, url: str, server: Server, kinds, players: int, seed: int) -> None:  # noqa: ANN001
        self.url = url
        self.server = server
        self.kinds = {k.key: k for k in kinds}
        self.engine = create_async_engine(url, pool_size=4, max_overflow=4)
        self.rng = random.Random(seed)
        self.up = asyncio.Event()
        self.done = False
        self.names = [f"Bot{i:02d}" for i in range(players)]
        self.ids: dict[str, int] = {}
        self.acked: list[tuple[int, int, int, str, str]] = []  # game, seq, seat, move, who
        self.stats = {"acked": 0, "refused": 0, "logins": 0, "started": 0}
        self.violations: list[str] = []
        self.kinds_played: set[str] = set()
        self.dealt: dict[int, int] = {}  # card table -> version when START was last tried

    # -- the database, read as a second process ------------------------------------------
    async def games_of(self, account_id: int) -> list[GameRecord]:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(sa.select(GameRecord).where(
                GameRecord.status == "active"))).all()
        out = []
        for row in rows:
            record = GameRecord(**row._mapping)
            if any(s["id"] == account_id and not s.get("left") and not s.get("computer")
                   for s in record.seats):
                out.append(record)
        return out

    # -- one scripted player ------------------------------------------------------------
    async def player(self, index: int) -> None:
        name = self.names[index]
        partner = self.names[index ^ 1]
        leader = index % 2 == 0
        created = False
        while not self.done:
            await self.up.wait()
            try:
                conn = await Conn.open(self.server.port)
            except OSError:
                await asyncio.sleep(0.1)
                continue
            try:
                await conn.expect("Name: ")
                if not created:
                    conn.send("NEW")
                    await conn.expect("Choose a name: ")
                    conn.send(name)
                    out = await conn.expect(r"Choose a password: |taken")
                    if "taken" in out:
                        await conn.expect("Choose a name: ")
                        conn.send("")
                        await conn.expect("Name: ")
                        conn.send(name)
                        await conn.expect("Password: ")
                        conn.send("secret")
                    else:
                        conn.send("secret")
                        await conn.expect("Type it again: ")
                        conn.send("secret")
                    created = True
                else:
                    conn.send(name)
                    await conn.expect("Password: ")
                    conn.send("secret")
                await conn.expect("Exits:")
                self.stats["logins"] += 1
                if name not in self.ids:
                    async with self.engine.connect() as db:
                        self.ids[name] = await db.scalar(
                            sa.select(Account.id).where(Account.name == name))
                await self.play(conn, name, partner, leader)
            except (Lost, TimeoutError, ConnectionError, OSError):
                pass
            finally:
                conn.close()
            await asyncio.sleep(0.05)

    async def answer(self, conn: Conn, line: str) -> str:
        """Send ``line``, and a marker command after it; everything answered before the
        marker's answer is the line's answer (a session runs its lines in order)."""
        conn.send(line)
        conn.send("help quit")
        out = await conn.expect(r"Usage: QUIT")
        conn.offers.extend(re.findall(r"Type (\w+) ACCEPT (\w+)", out))
        return out

    async def play(self, conn: Conn, name: str, partner: str, leader: bool) -> None:
        me = self.ids[name]
        keys = list(self.kinds)
        while not self.done:
            games = await self.games_of(me)
            mine = {g.kind for g in games}
            moved = False
            for record in games:
                moved |= await self.move(conn, name, me, record)
            # accept what the partner offered; sit where the partner opened
            conn.offers.extend(re.findall(r"Type (\w+) ACCEPT (\w+)", conn.buffer))
            conn.buffer = conn.buffer.replace("ACCEPT", "accept")
            while conn.offers:
                prefix, who = conn.offers.pop(0)
                await self.answer(conn, f"{prefix} ACCEPT {who}")
            if not leader and "triad" in self.kinds and "triad" not in mine:
                await self.sit(conn, partner)
            if leader:
                missing = [k for k in keys if k not in mine]
                if missing:
                    await self.start(conn, partner, self.kinds[self.rng.choice(missing)])
            if not moved:
                await asyncio.sleep(0.05)

    async def start(self, conn: Conn, partner: str, kind) -> None:  # noqa: ANN001
        p = kind.prefix
        out = await self.answer(conn, f"{p} CHALLENGE {partner}")
        if "You challenge" in out:
            self.stats["started"] += 1
            return
        if "played at tables" in out:
            await self.answer(conn, f"{p} OPEN")  # the partner sits down (``sit``)
            return
        if "not connected" in out or "already playing" in out:
            return
        await self.answer(conn, f"{p} CHALLENGE COMPUTER")  # every game has a computer

    async def sit(self, conn: Conn, partner: str) -> None:
        """Sit at the card table the partner opened, if there is one."""
        other = self.ids.get(partner)
        if other is None:
            return
        for record in await self.games_of(other):
            if record.kind == "triad" and len(record.seats) < 6:
                await self.answer(conn, f"{self.kinds['triad'].prefix} JOIN {record.id}")
                return

    async def move(self, conn: Conn, name: str, me: int, record: GameRecord) -> bool:
        kind = self.kinds.get(record.kind)
        if kind is None:
            return False
        state = kind.spec.state_from_json(record.state)
        seats = [i for i, s in enumerate(record.seats)
                 if s["id"] == me and not s.get("computer") and not s.get("left")]
        if not seats:
            return False
        seat = seats[0]
        if seat not in kind.spec.to_move(state):
            # a table waiting to be dealt: the opener deals once two are seated
            if (kind.key == "triad" and seat == 0 and len(record.seats) > 1
                    and self.dealt.get(record.id) != record.version):
                self.dealt[record.id] = record.version
                await self.answer(conn, f"{kind.prefix} START")
            return False
        try:
            action = kind.spec.choose_action(state, seat, "easy", random.Random(record.version), 0.05)
            text = kind.spec.format_action(action)
        except Exception:  # noqa: BLE001
            return False
        out = await self.answer(conn, f"{kind.prefix} {text}")
        self.kinds_played.add(kind.key)
        if f"{name}: {text}" in out:
            self.acked.append((record.id, record.version + 1, seat, text, name))
            self.stats["acked"] += 1
            return True
        self.stats["refused"] += 1
        return False

    # -- the checks, on the database of a dead server ------------------------------------
    async def check(self, label: str) -> None:
        async with self.engine.connect() as conn:
            moves = {(m.game_id, m.seq): m for m in
                     (await conn.execute(sa.select(GameMove))).all()}
            games = {g.id: g for g in (await conn.execute(sa.select(GameRecord))).all()}
        # Each acknowledged move must be in its game's list, by its seat, no earlier than
        # the game's version when it was chosen (seats that act at once interleave), and
        # each stored move answers one acknowledgment only.
        rows: dict[tuple[int, int], list] = {}
        for (game_id, seq), m in sorted(moves.items()):
            rows.setdefault((game_id, m.seat), []).append(m)
        used: set[tuple[int, int]] = set()
        for game_id, seq, seat, text, who in self.acked:
            match = next((m for m in rows.get((game_id, seat), ())
                          if m.seq >= seq and (game_id, m.seq) not in used
                          and m.notation.lower() == text.lower()), None)
            if match is None:
                self.violations.append(f"{label}: game #{game_id}: {who}'s move {text!r} "
                                       f"(at or after move {seq}) was acknowledged but is "
                                       f"not in the database")
            else:
                used.add((game_id, match.seq))
        for game in games.values():
            count = sum(1 for (g, _) in moves if g == game.id)
            if count != game.version:
                self.violations.append(f"{label}: game #{game.id} has version {game.version} "
                                       f"but {count} moves")
        from sqlalchemy.ext.asyncio import AsyncSession
        async with AsyncSession(self.engine) as tx:
            for name, cached, total in await ledger.audit(tx):
                self.violations.append(f"{label}: {name} has {cached} cubits, ledger {total}")
            for problem in await tile_service.audit(tx):
                self.violations.append(f"{label}: tiles: {problem}")
            # cubits on the card tables: what the ledger says went on and came off them
            flows = dict((await tx.execute(
                sa.select(LedgerEntry.ref, sa.func.sum(LedgerEntry.delta))
                .where(LedgerEntry.ref.like("game #%"),
                       ~LedgerEntry.reason.like("%bankroll%"))
                .group_by(LedgerEntry.ref))).all())
        for game in games.values():
            kind = self.kinds.get(game.kind)
            held = 0
            if game.status == "active" and kind is not None:
                state = kind.spec.state_from_json(game.state)
                for holder in (state, getattr(state, "game", None)):  # a table wraps its game
                    if hasattr(holder, "total_cubits"):
                        held = holder.total_cubits()
                        break
            on_ledger = -int(flows.get(f"game #{game.id}", 0) or 0)
            if held != on_ledger and (held or on_ledger):
                self.violations.append(f"{label}: game #{game.id} holds {held} cubits, the "
                                       f"ledger says {on_ledger}")

    async def run(self, kills: int, min_gap: float, max_gap: float) -> dict:
        boot = [self.server.start()]
        self.up.set()
        tasks = [asyncio.create_task(self.player(i)) for i in range(len(self.names))]
        t0 = time.monotonic()
        before = 0
        for n in range(kills):
            await asyncio.sleep(self.rng.uniform(min_gap, max_gap))
            self.up.clear()
            self.server.kill()
            await asyncio.sleep(0.1)  # let the players see the connection drop
            await self.check(f"after kill {n + 1}")
            boot.append(await asyncio.to_thread(self.server.start))
            self.up.set()
            print(f"kill {n + 1}/{kills}: {self.stats['acked'] - before} moves acknowledged "
                  f"since the last one; violations so far {len(self.violations)}",
                  file=sys.stderr)
            before = self.stats["acked"]
        await asyncio.sleep(min_gap)
        self.done = True
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self.up.clear()
        self.server.kill()
        await self.check("at the end")
        restored = sum(int(m.group(1)) for line in self.server.log
                       for m in [re.search(r"restored (\d+) game", line)] if m)
        await self.engine.dispose()
        return {"kills": kills, "seconds": round(time.monotonic() - t0, 1),
                "boot_s_median": round(sorted(boot)[len(boot) // 2], 2),
                "games_restored_total": restored, "kinds_played": sorted(self.kinds_played),
                **self.stats, "violations": len(self.violations)}


def write_config(folder: Path, url: str) -> str:
    path = folder / "config.toml"
    path.write_text(textwrap.dedent(f"""
        [server]
        port = 0
        hold = false
        commands_per_second = 200
        command_burst = 1000
        [database]
        url = "{url}"
        [web]
        enabled = false  # telnet only: benches run side by side, one port 8080
        [login]
        logins_per_minute = 1000000  # the bench logs its players in again and again
        new_accounts_per_address = 1000000
        new_accounts_per_minute = 1000000
        lines_per_second = 100000
        [accounts]
        argon2_time_cost = 1
        argon2_memory_kib = 1024
        [games]
        reconnect_grace = 600
        computer_delay = 0.05
        triad_action_timeout = 30.0
        extra = ["{TEST_GAME}"]
    """))
    return str(path)


async def amain(args: argparse.Namespace) -> int:
    folder = Path(tempfile.mkdtemp(prefix="esterport-chaos-"))
    pg = None
    if args.database:
        url = args.database
    elif args.postgres:
        from tests.support.postgres import ThrowawayPostgres
        pg = ThrowawayPostgres()
        if not pg.available:
            print("PostgreSQL (initdb/pg_ctl) not found", file=sys.stderr)
            return 2
        pg.start()
        pg.wait()
        url = await pg.new_database()
    else:
        url = f"sqlite+aiosqlite:///{folder}/chaos.db"
    config_path = write_config(folder, url)
    kinds = [*default_kinds(Config.load(config_path)), load_kind(TEST_GAME)]
    server = Server(config_path)
    chaos = Chaos(url, server, kinds, args.players, args.seed)
    try:
        figures = await chaos.run(args.kills, args.min_gap, args.max_gap)
    finally:
        server.stop()
        if pg is not None:
            pg.stop()
    figures["database"] = url.split(":", 1)[0]
    print(json.dumps(figures))
    for v in chaos.violations[:30]:
        print("VIOLATION:", v)
    return 1 if chaos.violations else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--players", type=int, default=12)
    parser.add_argument("--min-gap", type=float, default=0.5, help="seconds up, at least")
    parser.add_argument("--max-gap", type=float, default=2.5, help="seconds up, at most")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--postgres", action="store_true", help="on a throwaway PostgreSQL")
    parser.add_argument("--database", help="an empty database's URL (instead of a new one)")
    return asyncio.run(amain(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
