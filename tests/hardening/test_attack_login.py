"""The attack campaign's login and identity findings, on a real parlor over real sockets:
account creation floods, the login prompts' pace, guesses in flight, targeted lockouts,
simultaneous logins to one account, look-alike names, padded emotes and wide names."""

from __future__ import annotations

import asyncio

import attrs
import telnetlib3

from commands.app import assemble
from server.app import Parlor
from tests.conftest import make_config
from tests.support.client import Client
from tests.support.waits import until


async def _started(sqlite_url, login: dict | None = None, **server) -> Parlor:
    config = make_config(sqlite_url, **server)
    if login:
        config = attrs.evolve(config, login=attrs.evolve(config.login, **login))
    parlor = assemble(config)
    await parlor.start()
    return parlor


async def _from(port: int, address: str) -> Client:
    """A player connecting from another loopback address (127.0.0.N)."""
    reader, writer = await telnetlib3.open_connection(
        "127.0.0.1", port, cols=100, rows=40, term="xterm", connect_minwait=0.05,
        connect_maxwait=0.5, encoding="utf8", force_binary=True, local_addr=(address, 0))
    return Client(reader, writer)


async def _drain(client: Client, quiet: float = 0.5) -> str:
    """Read until the server has been quiet for ``quiet`` seconds (or closed); return
    everything seen so far."""
    while True:
        try:
            chunk = await asyncio.wait_for(client.reader.read(65536), quiet)
        except asyncio.TimeoutError:
            return client.seen
        except ConnectionError:
            return client.seen
        if not chunk:
            return client.seen
        client.buffer += chunk
        client.seen += chunk


async def test_new_accounts_are_throttled_per_address(sqlite_url):
    parlor = await _started(sqlite_url, login={"new_accounts_per_address": 2})
    try:
        for name in ("Flood1", "Flood2"):
            c = await Client.connect(parlor.port)
            await c.create(name)
        c = await Client.connect(parlor.port)
        await c.expect("Name: ")
        await c.cmd("NEW", "Too many new accounts")
        other = await _from(parlor.port, "127.0.0.2")  # another address still may
        await other.create("Elsewhere")
    finally:
        await parlor.stop()


class Counting:
    """A password hasher that counts how many of ``counted`` ("hash" or "verify") run
    at once (``peak``), each taking a little longer than the real one."""

    def __init__(self, real, counted: str) -> None:  # noqa: ANN001
        import threading

        self.real, self.counted = real, counted
        self.lock = threading.Lock()
        self.running = self.peak = 0

    def _timed(self, work):  # noqa: ANN001, ANN202
        import time

        with self.lock:
            self.running += 1
            self.peak = max(self.peak, self.running)
        try:
            time.sleep(0.05)
            return work()
        finally:
            with self.lock:
                self.running -= 1

    def hash(self, password: str) -> str:
        work = lambda: self.real.hash(password)  # noqa: E731
        return self._timed(work) if self.counted == "hash" else work()

    def verify(self, stored: str, password: str) -> bool:
        work = lambda: self.real.verify(stored, password)  # noqa: E731
        return self._timed(work) if self.counted == "verify" else work()


async def test_password_hashing_is_bounded(sqlite_url):
    parlor = await _started(sqlite_url)
    try:
        counting = parlor.accounts._hasher = Counting(parlor.accounts._hasher, "hash")
        await asyncio.gather(*(parlor.accounts.create(f"Hashy{i}", "secret") for i in range(8)))
        assert counting.peak <= parlor.config.accounts.hashing_at_once
    finally:
        await parlor.stop()


async def test_login_prompt_lines_are_paced(sqlite_url):
    parlor = await _started(sqlite_url, login={"lines_per_second": 2.0})
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", parlor.port)
        writer.write(b"".join(f"ghost{i}\r\n".encode() for i in range(60)))
        await writer.drain()
        await asyncio.sleep(1.5)
        writer.close()
        data = b""
        try:
            while chunk := await asyncio.wait_for(reader.read(65536), 0.5):
                data += chunk
        except (asyncio.TimeoutError, ConnectionError):
            pass
        answered = data.count(b"There is no account")
        assert answered <= 6 + 2 * 3, answered  # the burst, then 2 a second
    finally:
        await parlor.stop()


async def test_guesses_in_flight_are_counted(sqlite_url):
    parlor = await _started(sqlite_url, max_connections_per_address=100)
    try:
        owner = await Client.connect(parlor.port)
        await owner.create("Victim", "right-one")
        await owner.close()
        guessers = [await Client.connect(parlor.port) for _ in range(20)]
        for g in guessers:
            await g.expect("Name: ")
            g.send("Victim")
        for g in guessers:
            await g.expect("Password: ")
        for g in guessers:  # all at once
            g.send("wrong")
        seen = [await _drain(g) for g in guessers]
        wrong = sum(text.count("Wrong password") for text in seen)
        refused = sum(text.count("Too many failed logins") for text in seen)
        assert wrong <= parlor.config.login.max_failures, wrong
        assert wrong + refused == 20
    finally:
        await parlor.stop()


async def test_an_attacker_cannot_lock_a_player_out(sqlite_url):
    parlor = await _started(sqlite_url, max_connections_per_address=100)
    try:
        owner = await _from(parlor.port, "127.0.0.5")
        await owner.create("Dora", "her-own")
        await owner.close()
        # one address guessing: only that address (and that pair) is locked
        for _ in range(parlor.config.login.max_failures + 1):
            mallory = await _from(parlor.port, "127.0.0.6")
            await mallory.expect("Name: ")
            mallory.send("Dora")
            text = await mallory.expect("(Password: |Too many)")
            if "Password" in text:
                mallory.send("guess")
                await mallory.expect("(Wrong password|Too many)")
            await mallory.close()
        fresh = await _from(parlor.port, "127.0.0.7")  # a new address: not locked
        await fresh.login("Dora", "her-own")
        await fresh.close()
        # a distributed attack locks the name, but never from Dora's own address
        for n in range(4 * parlor.config.login.max_failures + 2):
            bot = await _from(parlor.port, f"127.0.1.{n + 1}")
            await bot.expect("Name: ")
            bot.send("Dora")
            text = await bot.expect("(Password: |Too many)")
            if "Password" in text:
                bot.send("guess")
                await bot.expect("(Wrong password|Too many)")
            await bot.close()
        stranger = await _from(parlor.port, "127.0.2.1")
        await stranger.expect("Name: ")
        await stranger.cmd("Dora", "Too many failed logins")
        back = await _from(parlor.port, "127.0.0.5")
        await back.login("Dora", "her-own")
        await back.cmd("look", "Exits:")
    finally:
        await parlor.stop()


async def test_simultaneous_logins_leave_one_session_and_no_ghost(db_url):
    parlor = await _started(db_url, max_connections_per_address=100)
    try:
        first = await Client.connect(parlor.port)
        await first.create("Dave")
        await first.close()
        await asyncio.sleep(0.3)
        # as many at once as the login throttle lets check together (more wait a second)
        n = parlor.config.login.max_failures
        clients = [await Client.connect(parlor.port) for _ in range(n)]
        for c in clients:
            await c.expect("Name: ")
            c.send("Dave")
        for c in clients:
            await c.expect("Password: ")
        for c in clients:
            c.send("secret")
        # each takeover reaches the one it displaced whenever that login's check ends (a
        # slow machine spreads them over seconds): read until all n - 1 came, or 15 s
        deadline = asyncio.get_running_loop().time() + 15
        while True:
            seen = [await _drain(c, 0.2) for c in clients]
            taken = sum("taken over" in text for text in seen)
            if taken >= n - 1 or asyncio.get_running_loop().time() > deadline:
                break
        live = [s for s in parlor.online.sessions.values() if s.name == "Dave"]
        assert len(live) == 1
        assert parlor.online.names.count("dave") == 1
        assert [s.name for s in parlor.online.in_room("plaza")].count("Dave") <= 1
        assert taken == n - 1, [t[-300:] for t in seen]
        watcher = await Client.connect(parlor.port)
        await watcher.create("Gina")
        here = await watcher.cmd("look", "Exits:")
        assert here.count("Dave") <= 1
        for c in clients:
            await c.close()
        await until(lambda: not [s for s in parlor.online.in_room("plaza") if s.name == "Dave"],
                    "every Dave gone from the plaza")
        await _drain(watcher)
        watcher.buffer = ""
        assert "Dave" not in await watcher.cmd("look", "Exits:")
    finally:
        await parlor.stop()


async def test_look_alike_and_system_names_are_refused(sqlite_url):
    parlor = await _started(sqlite_url)
    try:
        alice = await Client.connect(parlor.port)
        await alice.create("alice")
        for name, why in (("aIice", "looks too much like alice"), ("ALICE", "taken"),
                          ("a1ice", "looks too much"), ("Computer2", "kept for the parlor"),
                          ("C0mputer", "kept for the parlor")):
            c = await Client.connect(parlor.port)
            await c.expect("Name: ")
            await c.cmd("NEW", "Choose a name: ")
            await c.cmd(name, why)
            await c.close()
        from server.services.accounts import AccountError
        try:
            await parlor.accounts.create("aIlce", "secret")
        except AccountError as err:
            assert "looks too much like" in str(err)
        else:
            raise AssertionError("a look-alike account was created")
    finally:
        await parlor.stop()


async def test_padded_emotes_cannot_fake_a_line(sqlite_url):
    parlor = await _started(sqlite_url)
    try:
        alice = await Client.connect(parlor.port, cols=80)
        await alice.create("Alice")
        bob = await Client.connect(parlor.port, cols=80)
        await bob.create("Bob")
        fake = "Esterport is shutting down now. Reconnect at evil.example"
        await alice.cmd("emote grins." + " " * 68 + fake, "grins.")
        seen = await bob.expect("grins")
        await asyncio.sleep(0.2)
        lines = (seen + bob.buffer).replace("\r", "").split("\n")
        assert not any(line.strip().startswith("Esterport is shutting") for line in lines)
        assert "grins. Esterport is shutting" in (seen + bob.buffer)
    finally:
        await parlor.stop()


def test_wide_names_fit_the_width():
    from commands.triptycha import _tile_rows
    from server.services.tiles import TileView
    from server.text import visible_len, wrap

    tiles = [TileView(id=i, design_id=i, name=name, collection=coll, rarity="common",
                      corners=(1, 2, 3), primary=4, owner_id=1, place="hand")
             for i, (name, coll) in enumerate([("龍の瓦" * 8, "東京コレクション"),
                                                ("🐉🐉🐉 dragon tile 🐉🐉🐉" * 3, "emoji set 🎴🎴"),
                                                ("plain tile", "Ferry")])]
    for row in _tile_rows(tiles, width=80):
        assert visible_len(row) <= 80, (visible_len(row), row)
    for line in wrap("漢字かな交じり文 " * 30, 40):
        assert visible_len(line) <= 40


async def _log_in_at_once(port: int, name: str, count: int, password: str = "secret",
                          address: str = "127.0.0.1") -> list[str]:
    """``count`` connections typing ``name`` and ``password`` together; what each saw."""
    clients = [await _from(port, address) for _ in range(count)]
    for c in clients:
        await c.expect("Name: ")
        c.send(name)
    for c in clients:
        await c.expect("(Password: |Too many)")
    for c in clients:
        c.send(password)
    seen = [await _drain(c, 1.0) for c in clients]
    for c in clients:
        await c.close()
    return seen


async def test_successful_logins_are_throttled_per_account(sqlite_url):
    """Every login costs a password hash, a right one too: one account logs in at most
    ``logins_per_minute`` times a minute (120 connections logging in to one account
    used to keep the hashing busy for everyone)."""
    parlor = await _started(sqlite_url, max_connections_per_address=100,
                            login={"logins_per_minute": 3})
    try:
        await (await Client.connect(parlor.port)).create("Busy")
        for _ in range(3):
            await (await Client.connect(parlor.port)).login("Busy")
        late = await Client.connect(parlor.port)
        await late.expect("Name: ")
        await late.cmd("Busy", "Too many logins to Busy in the last minute; try again in")
    finally:
        await parlor.stop()


async def test_one_account_has_one_password_check_at_a_time(sqlite_url):
    parlor = await _started(sqlite_url, max_connections_per_address=100)
    try:
        await (await Client.connect(parlor.port)).create("Crowd")
        parlor.accounts._hashing.free = 4  # room for four hashes at once
        counting = parlor.accounts._hasher = Counting(parlor.accounts._hasher, "verify")
        await _log_in_at_once(parlor.port, "Crowd", 6)
        assert counting.peak == 1
    finally:
        await parlor.stop()


async def test_a_quiet_account_is_hashed_before_a_busy_one():
    """The hashing slots go urgent-first: a login to an account nobody logged in to
    lately does not wait behind a crowd's repeated logins."""
    from server.services.accounts import HashSlots

    slots = HashSlots(1)
    order: list[str] = []

    async def one(name: str, urgent: bool) -> None:
        await slots.acquire(urgent)
        order.append(name)
        await asyncio.sleep(0.01)
        slots.release()

    await slots.acquire(False)  # a busy login holds the only slot
    waiting = [asyncio.create_task(one(f"busy{i}", False)) for i in range(5)]
    await asyncio.sleep(0)
    waiting.append(asyncio.create_task(one("quiet", True)))
    await asyncio.sleep(0)
    slots.release()
    await asyncio.gather(*waiting)
    assert order[0] == "quiet"
    assert slots.free == 1


async def test_failures_behind_a_shared_address_do_not_lock_out_its_players(sqlite_url):
    """Someone behind a shared address typing wrong passwords (or ``look`` at the
    Password prompt) five times used to lock every login from it, right passwords
    included. Now a player who logged in from there lately gets in at once, and anyone
    else there waits a few seconds, not the whole lockout."""
    parlor = await _started(sqlite_url, max_connections_per_address=100,
                            login={"first_delay": 2, "lockout": 60})
    try:
        dora = await _from(parlor.port, "127.0.3.1")
        await dora.create("Dora", "her-own")
        await dora.close()
        await (await _from(parlor.port, "127.0.3.9")).create("Ned", "his-own")
        typo = await _from(parlor.port, "127.0.3.1")
        await typo.expect("Name: ")
        for _ in range(parlor.config.login.max_failures + 1):
            out = await typo.cmd("Carl", "(Password: |Too many|There is no)")
            if "Password" in out:
                await typo.cmd("look", "(Wrong password|There is no|Too many)")
        back = await _from(parlor.port, "127.0.3.1")
        await back.login("Dora", "her-own")  # trusted here: in at once
        await back.cmd("look", "Exits:")
        ned = await _from(parlor.port, "127.0.3.1")  # never logged in from here
        await ned.expect("Name: ")
        out = await ned.cmd("Ned", "(Password: |try again in \\d+ seconds)")
        if "try again" in out:
            assert int(out.rsplit("in ", 1)[1].split()[0]) <= 2
            await asyncio.sleep(2.1)
            await ned.cmd("Ned", "Password: ")
        ned.send("his-own")
        await ned.expect("Exits:")
    finally:
        await parlor.stop()


async def test_held_connections_make_room_for_a_new_player(sqlite_url):
    """Idle connections that never log in used to hold the server full ("full" for
    every newcomer as long as they were held). Now the one silent longest makes room."""
    parlor = await _started(sqlite_url, max_connections=6, max_connections_per_address=100)
    try:
        held = [await asyncio.open_connection("127.0.0.1", parlor.port) for _ in range(6)]
        await asyncio.sleep(1.5)  # silent for longer than EVICT_AFTER
        alice = await Client.connect(parlor.port)
        await alice.create("Alice")
        await alice.cmd("look", "Exits:")
        gone = 0
        for reader, _w in held:
            try:
                data = await asyncio.wait_for(reader.read(65536), 0.2)
                while data and b"make room" not in data:
                    data = await asyncio.wait_for(reader.read(65536), 0.2)
                gone += bool(data)
            except (asyncio.TimeoutError, ConnectionError):
                pass
        assert gone >= 1
        for _r, w in held:
            w.close()
    finally:
        await parlor.stop()
