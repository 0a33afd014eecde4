"""Reloads and parlor kills under load: no telnet connection closes, and what players
type in each gap runs once, in order.

    .venv/bin/python bench/reload.py      # 1,000 players (100 on /play), 20 games, 10 reloads, 3 kills
    .venv/bin/python bench/reload.py --players 50 --games 2 --reloads 2 --kills 1

Starts ``esterport serve --hold`` (``python -m commands.entry``, as the script does: the holder, server/holder, and the parlor it runs as
its child) on SQLite in a temporary folder, with ``bench/load.py``'s bench settings (a
cheap argon2, rate limits no bench meets) and its seeded accounts. The players are
telnetlib3 clients (``Client.connect`` of tests/support/client.py) that negotiate as a
player's client does: NAWS (250x40), TTYPE (xterm) and what else telnetlib3 agrees to.
bench/load.py's raw players refuse every option, so the holder would carry no window or
terminal of theirs. Each player reads all the time (no output waits in the parlor for
a slow reader) and notices when its connection closes.

* ``--players`` players log in; ``--games`` pairs of them start a game of Triad Dice
  (unranked) and play its first move. The last ``--web-players`` of them (default a
  tenth: 100 of 1,000) are browsers' sessions instead: a WebSocket on the web door's /play carrying the
  telnet stream in binary frames, as the page does (:class:`PlayClient`; options
  refused, so 80x24). The holder keeps those sockets too.
* ``--reloads`` reloads (SIGHUP to the holder) and ``--kills`` kill -9 of the parlor,
  mixed evenly. After each, the bench waits until the holder logs that a new parlor
  "attached" and every player has been told "The parlor has restarted; carry on.", and
  then a second more; and before each, until the holder's spare parlor has loaded
  (``[server] hold_spare``; at most a minute), as it would have between restarts that
  come minutes apart.
* In each gap, ``--sample`` players (spread over all of them) each TELL another player
  of the sample (half the sample away) ``--typed`` numbered words, ``--spacing`` seconds
  apart, the first once the old parlor has stopped reading (a reload: when it logs its
  hand-over; a kill: at once). The other player must hear each word exactly once, in
  order; when it does not, what both saw in the gap is printed.
* After the last gap, in each game the player to move plays a move (the one the board
  suggests), and both players must see it.

Prints a row per gap: the wait (from the first word typed in the gap until its answer,
over the sample: p50, p99; what a player feels), the time from the signal until that
answer (p50, p99, max; a reload's next parlor loads meanwhile while the old one
serves), the words heard once, lost and doubled, the players who heard theirs out of
order, the connections closed, and the players told to carry on. Then the resident
memory (VmRSS) of the holder and of the parlor, per idle session: after the logins (and
``--idle`` seconds idle, past the parlor's collector period) minus before them (once a
player of each kind had logged in, so that what the first of a kind loads is not
counted against every session), over the players; the same over the last nine tenths of
the logins (their growth over their number, once the first tenth has filled the parlor's
bounded caches: bench/idle.py's measure); and the games still playable.
Exits 1 if a connection closed, a word was lost, doubled or heard out of order, a player
could not log in, a parlor did not come back, or a game did not answer its move.
"""

from __future__ import annotations

import argparse
import asyncio
import codecs
import os
import platform
import re
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import load  # noqa: E402  (bench/load.py: its config, accounts, server process, figures)
from storm import rss_kib  # noqa: E402

WARM = 2   # players logged in (one on telnet, one on /play) before memory is first read

from server.holder.process import GAP_NOTICE, WAITING, parlors, serving_parlor  # noqa: E402
from tests.support.client import ANSI, Client  # noqa: E402

CARRY_ON = "The parlor has restarted; carry on."
WAIT_NOTICE = GAP_NOTICE.decode().strip()
HEARD = re.compile(r"(Bench\d+) tells you: w(\d+)-(\d+)")
ANSWERED = re.compile(r"You tell Bench\d+: w(\d+)-(\d+)")
ESCAPE_CUT = re.compile(r"\x1b(\[[0-9;]*)?$")   # a colour code cut at the end of a read
TEXT_KEPT = 1 << 16   # characters of unconsumed text a player keeps while nobody waits
BACK_WITHIN = 180.0   # seconds a restart may take before the bench gives up on it
SPARE_WITHIN = 60.0   # seconds the bench waits for the holder's spare to load before a restart
EXAMPLE = re.compile(r"e\.g\. DICE ([A-Z]+ [^.)\n]+)")   # the board's suggested action


class PlayClient:
    """A browser's /play session as the bench's players need it: ``reader.read`` gives
    the text of the next binary frame (telnet commands taken out, options refused),
    ``writer.write`` sends a line as one frame, in order."""

    IAC = 255

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.reader = self.writer = self
        self._out: asyncio.Queue = asyncio.Queue()
        self._sender = asyncio.create_task(self._send())
        self._state = 0           # 0 text, 1 after IAC, 2 an option's byte, 3 in SB, 4 SB IAC
        self._cmd = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    @classmethod
    async def connect(cls, url: str) -> "PlayClient":
        from websockets.asyncio.client import connect
        ws = await connect(url, subprotocols=["telnet.mudstandards.org"], max_size=1 << 22,
                           open_timeout=30, compression=None)
        return cls(ws)

    async def _send(self) -> None:
        try:
            while True:
                await self.ws.send(await self._out.get())
        except Exception:  # closed: the reader notices
            pass

    def write(self, text: str) -> None:
        self._out.put_nowait(text.encode())

    def close(self) -> None:
        self._sender.cancel()
        asyncio.get_running_loop().create_task(self.ws.close())

    async def read(self, _n: int) -> str:
        while True:
            try:
                data = await self.ws.recv()
            except Exception:  # the socket closed
                return ""
            text = self._text(data if isinstance(data, bytes) else data.encode())
            if text:
                return text

    def _text(self, data: bytes) -> str:
        plain, answers = bytearray(), bytearray()
        for b in data:
            if self._state == 0:
                if b == self.IAC:
                    self._state = 1
                else:
                    plain.append(b)
            elif self._state == 1:
                if b == self.IAC:
                    plain.append(b)
                    self._state = 0
                elif b == 250:   # SB
                    self._state = 3
                elif 251 <= b <= 254:   # WILL WONT DO DONT
                    self._state, self._cmd = 2, b
                else:
                    self._state = 0
            elif self._state == 2:
                self._state = 0
                if self._cmd == 251:     # WILL x: DONT (ECHO: DO, a password follows)
                    answers += bytes([self.IAC, 253 if b == 1 else 254, b])
                elif self._cmd == 253:   # DO x: WONT
                    answers += bytes([self.IAC, 252, b])
            elif self._state == 3:
                self._state = 4 if b == self.IAC else 3
            else:
                self._state = 0 if b == 240 else 3   # SE ends it
        if answers:
            self._out.put_nowait(bytes(answers))
        return self._decoder.decode(bytes(plain))


class Player:
    """One logged-in player on a telnetlib3 client whose output is read as it arrives.

    Every complete line is looked at once: a TELL heard (``heard``), the answer to one
    sent (``answered``), the parlor's notices; everything is also kept, colour codes
    removed, for ``expect``."""

    def __init__(self, name: str, client: Client) -> None:
        self.name = name
        self.client = client
        self.loop = asyncio.get_running_loop()
        self.text = ""        # arrived and not consumed by expect()
        self.line = ""        # the incomplete last line
        self.cut = ""         # a colour code cut at the end of the last read
        self.received = 0
        self.heard: list[tuple[str, int, int]] = []        # (from, gap, word)
        self.answered: dict[tuple[int, int], float] = {}   # (gap, word) -> first answer
        self.restarted: list[float] = []   # when "carry on" arrived
        self.waits: list[float] = []       # when the holder's gap notice arrived
        self.lines: list[tuple[float, str]] | None = None   # every line, when kept (the
        # sample's: what a player saw is printed for a word lost, doubled or out of order)
        self.closed_at: float | None = None
        self.web = False      # a browser's /play session (PlayClient), not telnet
        self._waiter: asyncio.Future | None = None
        self._pump = asyncio.create_task(self._read())

    @classmethod
    async def log_in(cls, port: int, name: str, password: str, timeout: float,
                     play: str | None = None) -> "Player":
        """Over telnet to ``port``, or (``play``: the /play WebSocket's URL) as a browser."""
        if play is not None:
            client: Any = await asyncio.wait_for(PlayClient.connect(play), timeout)
        else:
            client = await asyncio.wait_for(Client.connect(port), timeout)
            client.name = name
        player = cls(name, client)
        player.web = play is not None
        try:
            await player.expect("Name: ", timeout)
            player.send(name)
            await player.expect("Password: ", timeout)
            player.send(password)
            await player.expect(r"Exits:[^\n]*\n(.|\n)*?> ", timeout)
        except BaseException:
            player.close()
            raise
        return player

    async def _read(self) -> None:
        try:
            while True:
                chunk = await self.client.reader.read(65536)
                if not chunk:
                    break
                self._take(chunk)
        except (ConnectionError, OSError):
            pass
        self.closed_at = self.loop.time()
        self._wake()

    def _take(self, chunk: str) -> None:
        now = self.loop.time()
        self.received += len(chunk)
        data = self.cut + chunk
        cut = ESCAPE_CUT.search(data)
        self.cut = data[cut.start():] if cut else ""
        plain = ANSI.sub("", data[:cut.start()] if cut else data)
        self.text += plain
        *lines, self.line = (self.line + plain).split("\n")
        for line in lines:
            if self.lines is not None:
                self.lines.append((now, line.strip()))
            if "tell" in line:
                for m in HEARD.finditer(line):
                    self.heard.append((m.group(1), int(m.group(2)), int(m.group(3))))
                for m in ANSWERED.finditer(line):
                    self.answered.setdefault((int(m.group(1)), int(m.group(2))), now)
            if CARRY_ON in line:
                self.restarted.append(now)
            if WAIT_NOTICE in line:
                self.waits.append(now)
        if self._waiter is None and len(self.text) > TEXT_KEPT:
            self.text = self.text[-TEXT_KEPT // 2:]
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def send(self, line: str) -> None:
        self.client.writer.write(line + "\r\n")

    async def expect(self, pattern: str, timeout: float = 30.0) -> str:
        """Wait until ``pattern`` (a regex) is in what arrived; return what arrived up to
        the end of its match, and consume it."""
        rx = re.compile(pattern)
        deadline = self.loop.time() + timeout
        while True:
            m = rx.search(self.text)
            if m:
                out, self.text = self.text[:m.end()], self.text[m.end():]
                return out
            if self.closed_at is not None:
                raise ConnectionError(f"{self.name}: connection closed before {pattern!r}")
            left = deadline - self.loop.time()
            if left <= 0:
                raise TimeoutError(f"{self.name}: no {pattern!r} within {timeout:g} s; got "
                                   f"...{self.text[-300:]!r}")
            self._waiter = self.loop.create_future()
            try:
                await asyncio.wait_for(self._waiter, left)
            except asyncio.TimeoutError:
                pass
            finally:
                self._waiter = None

    async def cmd(self, line: str, pattern: str, timeout: float = 30.0) -> str:
        """Send ``line`` and wait for ``pattern`` in what arrives after it."""
        self.text = ""
        self.send(line)
        return await self.expect(pattern, timeout)

    def close(self) -> None:
        self._pump.cancel()
        self.client.writer.close()


class Watch:
    """The holder's log (the holder's and every parlor's stderr), read as it grows."""

    def __init__(self, server: load.ServerProcess) -> None:
        self.server = server
        self.offset = 0
        self.partial = b""
        self.counts = {"attached": 0, "handing": 0}
        self.spare_ready = False  # a spare has loaded since the last attach
        self.errors: list[str] = []   # ERROR lines and tracebacks, but the holder's
        # "the parlor ended" after a kill

    def poll(self) -> None:
        with open(self.server.log, "rb") as fh:
            fh.seek(self.offset)
            data = fh.read()
        self.offset += len(data)
        *lines, self.partial = (self.partial + data).split(b"\n")
        for raw in lines:
            line = raw.decode(errors="replace")
            if "esterport.holder: parlor " in line and " attached;" in line:
                self.counts["attached"] += 1
                self.spare_ready = False
            elif "esterport.holder: a spare parlor" in line and "is loaded" in line:
                self.spare_ready = True
            elif "connection(s) over to a new parlor" in line:
                self.counts["handing"] += 1
            if ((" ERROR " in line or line.startswith("Traceback"))
                    and "the parlor ended (exit -9)" not in line):
                self.errors.append(line)

    async def until(self, what: str, count: int, within: float) -> bool:
        deadline = time.monotonic() + within
        while True:
            self.poll()
            if self.counts[what] >= count:
                return True
            if time.monotonic() > deadline or self.server.proc.poll() is not None:
                return False
            await asyncio.sleep(0.01)

    def tail(self, lines: int = 30) -> str:
        return "\n".join(self.server.log.read_text(errors="replace").splitlines()[-lines:])


def parlor_pid(holder: int, other_than: int | None = None) -> int | None:
    """The parlor that serves under the holder now (not a spare): not ``other_than``;
    None if none."""
    found = serving_parlor(holder)
    return None if found == other_than else found


def held_config(folder: Path, database: str, players: int, web: int = 0) -> Path:
    """bench/load.py's parlor config, held: its pid file in ``folder``, and INFO logs
    (the holder says at INFO when a parlor attached); with ``web`` browsers, the web
    door on a port of its own choosing, its bounds above what they need."""
    path = load.parlor_config(folder, database, players)
    text = path.read_text().replace('log_level = "WARNING"',
                                    f'log_level = "INFO"\npid_file = "{folder}/esterport.pid"')
    if web:
        text = text.replace(
            "enabled = false  # telnet only: benches run side by side, one port 8080",
            f"port = 0\nmax_connections_per_address = {web + 50}\nmax_requests = {web + 50}\n"
            "messages_per_second = 1000.0\nmessage_burst = 1000")
    path.write_text(text)
    return path


def play_url(log: Path, timeout: float = 60.0) -> str:
    """The held parlor's /play WebSocket, from the line that says where its door is."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = re.search(r"The web door is open: point a browser at (http://\S+?)/?$",
                          log.read_text(errors="replace"), re.M)
        if found:
            return found.group(1).replace("http://", "ws://") + "/play/ws"
        time.sleep(0.05)
    raise RuntimeError("the web door did not open")


def schedule(reloads: int, kills: int) -> list[str]:
    """The restarts in order, the kills spread evenly among the reloads."""
    total = reloads + kills
    return ["kill" if (k + 1) * kills // total > k * kills // total else "reload"
            for k in range(total)]


async def log_everyone_in(port: int, names: list[str], concurrency: int, timeout: float,
                          play: str | None = None, web: int = 0
                          ) -> tuple[list[Player | None], list[str]]:
    """Log ``names`` in: the last ``web`` of them on /play (``play``, its URL)."""
    gate = asyncio.Semaphore(concurrency)
    failures: list[str] = []
    browsers = set(names[len(names) - web:]) if web else set()

    async def one(name: str) -> Player | None:
        async with gate:
            try:
                return await Player.log_in(port, name, load.PASSWORD, timeout,
                                           play if name in browsers else None)
            except (OSError, TimeoutError, asyncio.TimeoutError, ConnectionError) as err:
                failures.append(f"{name}: {err}"[:300])
                return None

    return list(await asyncio.gather(*(one(n) for n in names))), failures


async def quiet(players: list[Player], still: float = 1.0, within: float = 300.0) -> bool:
    """Wait until nothing has arrived for ``still`` seconds (the arrival notices)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    last, since = -1, loop.time()
    while loop.time() < deadline:
        total = sum(p.received for p in players)
        if total != last:
            last, since = total, loop.time()
        elif loop.time() - since >= still:
            return True
        await asyncio.sleep(0.1)
    return False


# -- the games --------------------------------------------------------------------------
async def start_game(a: Player, b: Player) -> int:
    """``a`` challenges ``b`` to Triad Dice, ``b`` accepts; the game's number."""
    await a.cmd(f"dice challenge {b.name}", f"You challenge {b.name} to Triad Dice")
    await b.expect(f"{a.name} challenges you to Triad Dice")
    b.send(f"dice accept {a.name}")
    out = await a.expect(r"Game #(\d+): Triad Dice, [^\n]* begins")
    await b.expect(r"Game #\d+: Triad Dice, [^\n]* begins")
    return int(re.findall(r"Game #(\d+): Triad Dice", out)[-1])


async def play_a_move(a: Player, b: Player, timeout: float = 30.0) -> str:
    """The player to move (the one whose board suggests an action) plays that action;
    both must see it. Returns it, as the game announced it."""
    for mover, other in ((a, b), (b, a)):
        board = await mover.cmd("dice", r"e\.g\. DICE [A-Z]+ [^.)\n]+|to move\.|removes one "
                                r"of:[^\n]*|You are not playing[^\n]*", timeout)
        found = EXAMPLE.search(board)
        if found:
            break
    else:
        raise AssertionError(f"neither {a.name} nor {b.name} is to move: {board[-300:]!r}")
    action = found.group(1).strip()
    told = f"{mover.name}: {re.escape(action)}"
    other.text = ""
    await mover.cmd(f"dice {action.lower()}", told, timeout)
    await other.expect(told, timeout)
    return action


# -- a gap ------------------------------------------------------------------------------
class Gap:
    """One restart and what the sample typed during it."""

    def __init__(self, number: int, kind: str) -> None:
        self.number = number
        self.kind = kind
        self.signalled = 0.0   # loop time of the signal
        self.typed_at = 0.0    # of the first word typed
        self.back = False      # the new parlor attached and carried everyone on
        self.seconds = 0.0     # from the signal until the bench went on to the next


async def type_words(sender: Player, partner: Player, gap: int, words: int,
                     spacing: float) -> None:
    for k in range(1, words + 1):
        if k > 1:
            await asyncio.sleep(spacing)
        sender.send(f"tell {partner.name} w{gap}-{k}")


async def restart(gap: Gap, server: load.ServerProcess, watch: Watch, parlor: int,
                  ring: list[tuple[Player, Player]], everyone: list[Player],
                  ns: argparse.Namespace) -> int:
    """Reload or kill the parlor, type the sample's words in the gap, and wait until the
    new parlor has carried everyone on and every word was heard. The new parlor's pid."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + SPARE_WITHIN   # restarts come seldom: the spare is ready
    while not watch.spare_ready and loop.time() < deadline:
        watch.poll()
        await asyncio.sleep(0.05)
    watch.poll()
    attached, handing = watch.counts["attached"], watch.counts["handing"]
    gap.signalled = loop.time()
    if gap.kind == "reload":
        server.proc.send_signal(signal.SIGHUP)
        # the words are typed once the old parlor stopped reading (it logs its hand-over)
        await watch.until("handing", handing + 1, 30)
    else:
        os.kill(parlor, signal.SIGKILL)
    gap.typed_at = loop.time()
    typing = asyncio.gather(*(type_words(s, p, gap.number, ns.typed, ns.spacing)
                              for s, p in ring))
    back = await watch.until("attached", attached + 1, BACK_WITHIN)
    await typing
    new = parlor_pid(server.proc.pid, other_than=parlor)
    last = f"w{gap.number}-{ns.typed}"
    deadline = loop.time() + BACK_WITHIN
    while back and loop.time() < deadline:
        if (all(p.closed_at is not None or len(p.restarted) >= gap.number for p in everyone)
                and all(any(f == s.name and g == gap.number and k == ns.typed
                            for f, g, k in p.heard) or p.closed_at is not None
                        for s, p in ring)):
            break
        await asyncio.sleep(0.05)
    else:
        back = False
    gap.back = back
    await asyncio.sleep(ns.settle)   # a word run twice would show by now
    gap.seconds = loop.time() - gap.signalled
    if not back:
        code = server.proc.poll()
        why = (f"the holder exited (status {code})" if code is not None else
               f"the players were not all served again within {BACK_WITHIN:g} s (last "
               f"word {last})")
        print(f"!! gap {gap.number} ({gap.kind}): {why}; the log ends:\n{watch.tail()}",
              flush=True)
    return new or parlor


def tally(gap: Gap, ring: list[tuple[Player, Player]], everyone: list[Player], words: int,
          until: float) -> dict[str, Any]:
    """The figures of one gap, from what every player saw."""
    gaps: list[float] = []
    waits: list[float] = []  # from the first word typed (the gap's start) to its answer
    row = {"typed": 0, "once": 0, "lost": 0, "doubled": 0, "disordered": 0,
           "unanswered": 0, "early": 0, "waited": 0, "examples": []}
    for sender, partner in ring:
        heard = [k for f, g, k in partner.heard if f == sender.name and g == gap.number]
        row["typed"] += words
        for k in range(1, words + 1):
            n = heard.count(k)
            row["once"] += n == 1
            row["lost"] += n == 0
            row["doubled"] += max(0, n - 1)
        firsts = list(dict.fromkeys(heard))
        row["disordered"] += firsts != sorted(firsts)
        if heard != list(range(1, words + 1)):
            row["examples"].append(seen(gap, sender, partner, heard, until))
        answers = [t for (g, _), t in sender.answered.items() if g == gap.number]
        if not answers:
            row["unanswered"] += 1
            continue
        first = min(answers)
        gaps.append(first - gap.signalled)
        waits.append(first - gap.typed_at)
        restarted = [t for t in sender.restarted if t >= gap.signalled]
        if not restarted or first < restarted[0]:
            row["early"] += 1   # answered by the old parlor, before it handed over
        row["waited"] += any(gap.signalled <= t < until for t in sender.waits)
    gaps.sort()
    waits.sort()
    row.update(
        waits=waits, wait50=load.percentile(waits, 0.5), wait99=load.percentile(waits, 0.99),
        gaps=gaps, p50=load.percentile(gaps, 0.5), p99=load.percentile(gaps, 0.99),
        max=gaps[-1] if gaps else float("nan"),
        closed=sum(p.closed_at is not None and gap.signalled <= p.closed_at < until
                   for p in everyone),
        carried=sum(any(gap.signalled <= t < until for t in p.restarted) for p in everyone))
    return row


def seen(gap: Gap, sender: Player, partner: Player, heard: list[int], until: float) -> str:
    """What the sender and its partner saw in the gap (for a word not heard once, in
    order), in seconds from the signal."""
    out = [f"gap {gap.number} ({gap.kind}): {partner.name} heard {sender.name}'s words "
           f"{heard}"]
    for who in (sender, partner):
        for t, line in who.lines or ():
            if gap.signalled <= t < until and line and line != ">":
                out.append(f"    {t - gap.signalled:7.3f} s  {who.name}: {line[:150]}")
    return "\n".join(out)


# -- the run ----------------------------------------------------------------------------
def rss(pid: int | None) -> int:
    """A process's resident memory in KiB (0 once it is gone)."""
    try:
        return rss_kib(pid) if pid is not None else 0
    except OSError:
        return 0


def mib(kib: int) -> str:
    return f"{kib / 1024:.1f}"


async def run(ns: argparse.Namespace, out: Any = sys.stdout) -> int:
    fds = load.raise_fd_limit()

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    say(f"Esterport reload benchmark: Python {platform.python_version()}, {os.cpu_count()} "
        f"CPUs ({platform.machine()}, {platform.system()} {platform.release()}), open-file "
        f"limit {fds}; load average {load.load_average()}")
    kinds = schedule(ns.reloads, ns.kills)
    web = min(ns.players // 10 if ns.web_players is None else ns.web_players, ns.players)
    say(f"{ns.players - web} telnet players (telnetlib3 clients: NAWS 250x40, TTYPE xterm) "
        f"and {web} on /play (WebSocket), {ns.games} "
        f"games of Triad Dice, {ns.reloads} reloads and {ns.kills} kills "
        f"({' '.join(k[0].upper() for k in kinds)})")
    folder = Path(tempfile.mkdtemp(prefix="esterport-reload-"))
    database = ns.database or f"sqlite+aiosqlite:///{folder}/bench.db"
    config = held_config(folder, database, ns.players + WARM, web + WARM if web else 0)
    seeded = await asyncio.to_thread(load.seed_accounts, folder, config, ns.players + WARM)
    say(f"database {database.split('@')[-1]}: {ns.players} accounts seeded in {seeded:.1f} s")
    # the light entry, as the `esterport` script: the holder does not load the games
    server = load.ServerProcess("held parlor", [sys.executable, "-m", "commands.entry", "serve",
                                                "--hold", "--config", str(config)],
                                folder / "holder.log")
    watch = Watch(server)
    players: list[Player] = []
    warmed: list[Player] = []
    failed = False
    try:
        port = await asyncio.to_thread(server.wait_port)
        holder = server.proc.pid
        parlor = parlor_pid(holder)
        if parlor is None:
            say(f"!! no parlor under the holder:\n{watch.tail()}")
            return 1
        await asyncio.sleep(1.0)
        # one player of each kind first, so that what the first of a kind loads (modules,
        # caches) is in the baseline and not counted against every session after it
        play = await asyncio.to_thread(play_url, server.log) if web else None
        warm, _ = await log_everyone_in(
            port, [load.player_name(ns.players + i) for i in range(WARM)], WARM,
            ns.login_timeout, play, 1 if web else 0)
        warmed = [p for p in warm if p is not None]
        await quiet(warmed)
        await asyncio.sleep(1.0)
        before = rss(holder), rss(parlor)

        # -- the logins, and the memory they take -------------------------------------
        # a tenth first, then the rest: the growth over the rest is what a session costs
        # once the parlor's bounded caches and pools are warm (bench/idle.py's measure)
        started = time.perf_counter()
        names = [load.player_name(i) for i in range(ns.players)]
        first = max(1, ns.players // 10)
        web_first = web * first // ns.players
        slots, failures = await log_everyone_in(port, names[:first], ns.login_concurrency,
                                                ns.login_timeout, play, web_first)
        await quiet([p for p in slots if p is not None])
        await asyncio.sleep(ns.idle)
        tenth = rss(holder), rss(parlor)
        more, failed_more = await log_everyone_in(port, names[first:], ns.login_concurrency,
                                                  ns.login_timeout, play, web - web_first)
        slots += more
        failures += failed_more
        players = [p for p in slots if p is not None]
        stilled = await quiet(players)
        say(f"{len(players)} of {ns.players} players logged in in "
            f"{time.perf_counter() - started:.1f} s"
            + ("" if stilled else " (their arrival notices had not stopped after 300 s)"))
        if failures:
            failed = True
            say(f"!! {len(failures)} could not log in, e.g. {failures[:2]}")
        await asyncio.sleep(ns.idle)
        after = rss(holder), rss(parlor)

        # -- the games, and the sample -------------------------------------------------
        pairs = [(slots[2 * i], slots[2 * i + 1]) for i in range(ns.games)]
        pairs = [(a, b) for a, b in pairs if a is not None and b is not None]
        starts = await asyncio.gather(*(start_game(a, b) for a, b in pairs),
                                      return_exceptions=True)
        games = [(a, b) for (a, b), n in zip(pairs, starts) if isinstance(n, int)]
        firsts = await asyncio.gather(*(play_a_move(a, b) for a, b in games),
                                      return_exceptions=True)
        games = [g for g, first in zip(games, firsts) if isinstance(first, str)]
        say(f"{len(games)} of {ns.games} games started and their first move played")
        if len(games) < ns.games:
            failed = True
            trouble = [x for x in (*starts, *firsts) if isinstance(x, BaseException)]
            say(f"!! {ns.games - len(games)} games could not start, e.g. {trouble[:1]!r}")
        # spread over the players logged in (a new parlor carries them on in about that
        # order), each telling the one half the sample away: half of them tell a player
        # carried on well after them
        rest = [p for p in slots[2 * ns.games:] if p is not None]
        sample = rest[::max(1, len(rest) // ns.sample)][:ns.sample]
        half = len(sample) // 2
        ring = [(s, sample[(j + half) % len(sample)]) for j, s in enumerate(sample)]
        for s in sample:
            s.lines = []
        if len(ring) < 2:
            say("!! too few players for a sample of two or more beside the games")
            return 1
        say(f"in each gap {len(ring)} players (one in {max(1, len(rest) // ns.sample)}) "
            f"each TELL another of them {ns.typed} numbered words, {ns.spacing:g} s apart")
        await quiet(players, 0.5, 60.0)

        # -- the restarts --------------------------------------------------------------
        gaps = [Gap(n, kind) for n, kind in enumerate(kinds, 1)]
        for gap in gaps:
            parlor = await restart(gap, server, watch, parlor, ring, players, ns)
            say(f"gap {gap.number:>2} ({gap.kind}): the players were "
                f"{'served again' if gap.back else 'NOT all served again'}; next after "
                f"{gap.seconds:.1f} s (load average {load.load_average()})")
            if not gap.back:
                failed = True
                break
        await asyncio.sleep(ns.idle)
        restarted = rss(holder), rss(parlor)
        spares = [pid for pid, name in parlors(holder).items() if name == WAITING]

        # -- the games after every restart ---------------------------------------------
        moves = await asyncio.gather(*(play_a_move(a, b) for a, b in games),
                                     return_exceptions=True)
        playable = sum(isinstance(m, str) for m in moves)
        stuck = [m for m in moves if isinstance(m, BaseException)]

        # -- the figures ---------------------------------------------------------------
        loop = asyncio.get_running_loop()
        ends = [g.signalled for g in gaps[1:]] + [loop.time()]
        rows = [tally(g, ring, players, ns.typed, end) for g, end in zip(gaps, ends)
                if g.signalled]
        closed = sum(p.closed_at is not None for p in players)
        browsers = [p for p in players if p.web]
        say(f"of them on /play: {len(browsers)} logged in, "
            f"{sum(p.closed_at is not None for p in browsers)} closed, "
            f"{sum(len(p.restarted) >= len(gaps) for p in browsers)} told to carry on "
            f"after every gap")
        failed |= print_figures(say, ns, gaps, rows, len(players), before, after, restarted,
                                closed, playable, len(games), stuck, watch,
                                (tenth, ns.players - first))
        say(f"spare parlors waiting beside the last: {len(spares)}, "
            f"{mib(sum(rss(pid) for pid in spares))} MiB ([server] hold_spare)")
        return 1 if failed or closed else 0
    finally:
        for p in players + warmed:
            p.close()
        server.stop()
        if ns.keep:
            say(f"(kept {folder})")
        else:
            shutil.rmtree(folder, ignore_errors=True)


def print_figures(say, ns: argparse.Namespace, gaps: list[Gap],  # noqa: ANN001
                  rows: list[dict[str, Any]], n: int, before: tuple[int, int],
                  after: tuple[int, int], restarted: tuple[int, int], closed: int,
                  playable: int, games: int, stuck: list[BaseException],
                  watch: Watch, warm: tuple[tuple[int, int], int]) -> bool:
    """The tables and the verdict; True if anything failed. ``warm``: the memory once
    the first tenth had logged in, and how many logged in after."""
    say()
    head = (f"{'gap':>3} {'kind':<6} {'wait50':>6} {'wait99':>6} {'p50 s':>6} {'p99 s':>6} "
            f"{'max s':>6} {'typed':>6} "
            f"{'once':>6} {'lost':>5} {'doubled':>7} {'disordered':>10} {'closed':>6} "
            f"{'carried on':>10}")
    say(head)
    say("-" * len(head))
    every: list[float] = []
    waited: list[float] = []
    total = {k: 0 for k in ("typed", "once", "lost", "doubled", "disordered", "unanswered",
                            "early", "waited")}
    for gap, row in zip(gaps, rows):
        every += row["gaps"]
        waited += row["waits"]
        for k in total:
            total[k] += row[k]
        say(f"{gap.number:>3} {gap.kind:<6} {row['wait50']:>6.2f} {row['wait99']:>6.2f} "
            f"{row['p50']:>6.2f} {row['p99']:>6.2f} "
            f"{row['max']:>6.2f} {row['typed']:>6} {row['once']:>6} {row['lost']:>5} "
            f"{row['doubled']:>7} {row['disordered']:>10} {row['closed']:>6} "
            f"{row['carried']:>5}/{n:<4}")
    every.sort()
    waited.sort()
    say("-" * len(head))
    if every:
        say(f"{'all':>3} {'':<6} {load.percentile(waited, 0.5):>6.2f} "
            f"{load.percentile(waited, 0.99):>6.2f} {load.percentile(every, 0.5):>6.2f} "
            f"{load.percentile(every, 0.99):>6.2f} {every[-1]:>6.2f} {total['typed']:>6} "
            f"{total['once']:>6} {total['lost']:>5} {total['doubled']:>7} "
            f"{total['disordered']:>10} {sum(r['closed'] for r in rows):>6}")
    for kind in ("reload", "kill"):
        own = sorted(x for g, r in zip(gaps, rows) if g.kind == kind for x in r["gaps"])
        wait = sorted(x for g, r in zip(gaps, rows) if g.kind == kind for x in r["waits"])
        if own:
            say(f"{kind}s: a word typed in the gap waited p50 {load.percentile(wait, 0.5):.2f} "
                f"s, p99 {load.percentile(wait, 0.99):.2f} s, max {wait[-1]:.2f} s; from the "
                f"signal until served: p50 {load.percentile(own, 0.5):.2f} s, p99 "
                f"{load.percentile(own, 0.99):.2f} s, max {own[-1]:.2f} s")
    examples = [e for r in rows for e in r["examples"]]
    if examples:
        say(f"!! {len(examples)} players did not hear their partner's words once each, in "
            f"order; what they saw, e.g.:")
        for example in examples[:ns.examples]:
            say(example)
    say(f"wait: from the first word a player typed in the gap (once the old parlor stopped "
        f"reading; a kill: at once) until its answer, which is what a player feels. p50, "
        f"p99, max: from the signal until that answer (a reload's next parlor loads "
        f"meanwhile, and the old one serves). {total['waited']} of the sample's "
        f"gaps showed the holder's notice; {total['early']} first words were answered "
        f"before the player was told to carry on; {total['unanswered']} players had no "
        f"answer in a gap")

    say()
    say(f"{'resident memory':<32} {'holder':>10} {'parlor':>10} {'both':>10}")
    gone = not all(restarted)
    for label, pair in (("before the logins, MiB", before), (f"after {n} logins, MiB", after),
                        (f"after the {len(rows)} restarts, MiB", restarted)):
        if pair is restarted and gone:
            say(f"{label:<32} (a process is gone)")
            continue
        say(f"{label:<32} {mib(pair[0]):>10} {mib(pair[1]):>10} {mib(sum(pair)):>10}")
    def per_session(label: str, now: tuple[int, int], then: tuple[int, int], count: int
                    ) -> None:
        per = [(a - b) * 1024 / max(1, count) for a, b in zip(now, then)]
        say(f"{label:<32} {per[0]:>10,.0f} {per[1]:>10,.0f} {sum(per):>10,.0f}")

    per_session("per idle session, bytes", after, before, n)
    warmed, later = warm
    per_session("  over the last nine tenths", after, warmed, later)
    if not gone:
        per_session("  the same after the restarts", restarted, before, n)
    say("(per session: growth over the logins / since before them, over the players; "
        "over the last nine tenths: the growth while they logged in, the first tenth "
        "having warmed the parlor's bounded caches, as bench/idle.py measures; the "
        "parlor after the restarts is the last one, which carried every session on)")

    say()
    say(f"games: {playable} of {games} still playable after every restart (a move played "
        f"and seen by both players)" + (f"; e.g. {stuck[0]!r}"[:300] if stuck else ""))
    if watch.errors:
        say(f"log: {len(watch.errors)} ERROR line(s) or traceback(s), e.g.:")
        for line in watch.errors[:5]:
            say(f"    {line[:240]}")
    lost, doubled = total["lost"], total["doubled"]
    disordered = total["disordered"]
    say(f"verdict: {closed} closed, {lost} lost, {doubled} doubled, {disordered} out of order; "
        f"{playable}/{games} games playable; {sum(not g.back for g in gaps)} restarts not "
        f"served again")
    say(f"load average {load.load_average()}")
    return bool(closed or lost or doubled or disordered or playable < games
                or any(not g.back for g in gaps) or len(rows) < len(gaps))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--players", type=int, default=1000, help="players logged in (default 1000)")
    p.add_argument("--games", type=int, default=20,
                   help="games of Triad Dice in play between pairs of them (default 20)")
    p.add_argument("--reloads", type=int, default=10, help="SIGHUPs to the holder (default 10)")
    p.add_argument("--kills", type=int, default=3, help="kill -9s of the parlor (default 3)")
    p.add_argument("--web-players", type=int, default=None,
                   help="of the players, those on /play as browsers (default: a tenth)")
    p.add_argument("--sample", type=int, default=100,
                   help="players who type in each gap (default 100)")
    p.add_argument("--typed", type=int, default=3,
                   help="numbered TELLs each of them types in a gap (default 3)")
    p.add_argument("--spacing", type=float, default=0.5,
                   help="seconds between a player's TELLs in a gap (default 0.5)")
    p.add_argument("--settle", type=float, default=1.0,
                   help="seconds waited after everyone is served again (default 1)")
    p.add_argument("--examples", type=int, default=3, metavar="K",
                   help="words not heard once, in order: what K players saw (default 3)")
    p.add_argument("--database", metavar="URL",
                   help="the parlor's database (default: SQLite in a temporary folder)")
    p.add_argument("--login-concurrency", type=int, default=50, metavar="K")
    p.add_argument("--login-timeout", type=float, default=60.0, metavar="S")
    p.add_argument("--idle", type=float, default=12.0, metavar="S",
                   help="seconds the players idle before memory is read (default 12: past "
                        "the parlor's collector period, [server] gc_freeze_every 10 s)")
    p.add_argument("--keep", action="store_true", help="keep the temporary folder (logs, db)")
    ns = p.parse_args(argv)
    if ns.players < 2 * ns.games + 2:
        p.error(f"{ns.players} players are too few for {ns.games} games and a sample of two")
    if ns.reloads < 0 or ns.kills < 0 or ns.reloads + ns.kills == 0:
        p.error("--reloads and --kills are counts, and one of them more than 0")
    if ns.typed < 1 or ns.sample < 2:
        p.error("--typed is 1 or more, --sample 2 or more")
    return ns


def main(argv: list[str] | None = None) -> int:
    ns = parse_args(argv)
    try:
        return asyncio.run(run(ns))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
