"""PostgreSQL restarted mid-game, under a running parlor (real sockets, telnetlib3 clients).

Every connection the parlor holds dies with the restart. The next move, typed on the node
that drives the game or relayed from another node, is applied exactly once: never "Sorry,
something went wrong", never silence. The PostgreSQL here is a second throwaway server of
this module's own, since the session's is shared by every other test.
"""

from __future__ import annotations

import asyncio
import os
import subprocess

import attrs
import pytest
import sqlalchemy as sa

from commands.app import assemble
from server.config import ClusterSection
from server.models import GameMove
from tests.conftest import make_config
from tests.support.client import Client
from tests.support.postgres import ThrowawayPostgres, running

APOLOGY = "Sorry, something went wrong"


class RestartablePostgres(ThrowawayPostgres):
    """A throwaway PostgreSQL that can be restarted in place (``pg_ctl restart``)."""

    def restart(self) -> None:
        self._pg_ctl("-m", "fast", "restart")
        self.wait()

    def halt(self) -> None:
        """Stop it, until :meth:`resume`."""
        self._pg_ctl("-m", "fast", "stop")

    def resume(self) -> None:
        assert self.dir is not None
        self._pg_ctl("-o", f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 "
                     "-c fsync=off -c synchronous_commit=off", "start")
        self.wait()

    def _pg_ctl(self, *args: str) -> None:
        assert self.dir is not None
        run_as = ["runuser", "-u", "nobody", "--"] if os.geteuid() == 0 else []
        # -l: the server logs to its file; without it, it would hold this process's pipe
        # open and pg_ctl's caller would wait for ever
        subprocess.run([*run_as, self.pg_ctl, "-D", str(self.dir / "data"), "-l",
                        str(self.dir / "log"), "-w", "-t", "60", *args],
                       check=True, capture_output=True, timeout=90)


@pytest.fixture(scope="module")
def own_postgres():
    yield from running(RestartablePostgres())


def _config(url: str, **cluster: str):
    """The test configuration, with the tournament director's clock (a database read every
    second) slowed to once an hour: the first use of the database after the restart is
    the player's command, as on a quiet parlor. The director's ticks are no commands; a
    tick that fails is logged and the next one runs."""
    config = make_config(url)
    config = attrs.evolve(config, tournaments=attrs.evolve(config.tournaments, tick=3600.0))
    if cluster:
        config = attrs.evolve(config, cluster=ClusterSection(**cluster))
    return config


async def _player(parlor, name: str) -> Client:
    client = await Client.connect(parlor.port)
    return await client.create(name)


async def _begin(alice: Client, bob: Client) -> int:
    """Alice challenges Bob to Noughts and Crosses and Bob accepts: the game's number."""
    await alice.cmd("ttt challenge bob", "You challenge Bob", timeout=10)
    await bob.expect("Alice challenges you", timeout=10)
    bob.send("ttt accept alice")
    out = await alice.expect(r"Game #(\d+): Noughts and Crosses, Alice vs Bob", timeout=10)
    await bob.expect("begins", timeout=10)
    return int(out.rsplit("Game #", 1)[1].split(":")[0])


async def _moves(parlor, game: int) -> list[tuple[int, str]]:
    async with parlor.db.session() as tx:
        rows = await tx.execute(sa.select(GameMove.seq, GameMove.notation)
                                .where(GameMove.game_id == game).order_by(GameMove.seq))
        return [tuple(row) for row in rows]


async def _restart(pg: RestartablePostgres) -> None:
    # off the event loop: the parlors under test run on it meanwhile
    await asyncio.to_thread(pg.restart)


async def test_the_move_after_a_restart_is_applied_once(own_postgres):
    parlor = assemble(_config(await own_postgres.new_database()))
    await parlor.start()
    clients: list[Client] = []
    try:
        alice = await _player(parlor, "Alice")
        bob = await _player(parlor, "Bob")
        clients += [alice, bob]
        game = await _begin(alice, bob)
        await alice.cmd("ttt play 1", "Alice: PLAY 1")
        await bob.cmd("ttt play 5", "Bob: PLAY 5")
        await _restart(own_postgres)
        reply = await alice.cmd("ttt play 2", r"Alice: PLAY 2|lost its database|" + APOLOGY,
                                timeout=15)
        if "lost its database" in reply:  # refused in one line: typed again, it lands
            reply = await alice.cmd("ttt play 2", r"Alice: PLAY 2|" + APOLOGY, timeout=15)
        assert "Alice: PLAY 2" in reply
        await bob.expect("Alice: PLAY 2")
        await _restart(own_postgres)
        await bob.cmd("look", "Exits:", timeout=15)     # a command that only reads
        await bob.cmd("ttt play 9", "Bob: PLAY 9", timeout=15)
        assert await _moves(parlor, game) == [(1, "PLAY 1"), (2, "PLAY 5"), (3, "PLAY 2"),
                                              (4, "PLAY 9")]
        for client in clients:
            assert APOLOGY not in client.seen
    finally:
        for client in clients:
            await client.close()
        await parlor.stop()


async def test_a_move_relayed_from_another_node_after_a_restart_is_answered(
        own_postgres, redis_server):
    """Alice is on alpha, which drives the game; Bob is on beta, whose game commands run
    on alpha. After the restart Bob's move gets its answer, and it is the move."""
    url = await own_postgres.new_database()
    redis_server.command("FLUSHALL")
    parlors = []
    clients: list[Client] = []
    try:
        for name in ("alpha", "beta"):
            parlors.append(assemble(_config(url, redis=redis_server.url(), node=name)))
            await parlors[-1].start()
        alpha, beta = parlors
        alice = await _player(alpha, "Alice")
        bob = await _player(beta, "Bob")
        clients += [alice, bob]
        await alice.cmd("who", "2 players connected", timeout=10)
        game = await _begin(alice, bob)
        await alice.cmd("ttt play 1", "Alice: PLAY 1")
        await bob.expect("Alice: PLAY 1")
        await _restart(own_postgres)
        # the relay's own patience is 10 s; the answer must come, and be the move
        reply = await bob.cmd("ttt play 5", r"Bob: PLAY 5|lost its database|did not answer|"
                              + APOLOGY, timeout=30)
        if "lost its database" in reply:
            reply = await bob.cmd("ttt play 5", r"Bob: PLAY 5|did not answer|" + APOLOGY,
                                  timeout=30)
        assert "Bob: PLAY 5" in reply
        await alice.expect("Bob: PLAY 5")
        await alice.cmd("ttt play 2", "Alice: PLAY 2", timeout=15)
        assert await _moves(alpha, game) == [(1, "PLAY 1"), (2, "PLAY 5"), (3, "PLAY 2")]
        for client in clients:
            assert APOLOGY not in client.seen
    finally:
        for client in clients:
            await client.close()
        for parlor in reversed(parlors):
            if not parlor.stopped.is_set():
                await parlor.stop()


async def test_a_login_while_postgres_is_down_is_told_so(own_postgres):
    """Logging in needs the database: while it is down, the player is told so in one line
    (it used to be a silent disconnect), and can log in once it is back."""
    parlor = assemble(_config(await own_postgres.new_database()))
    await parlor.start()
    try:
        await (await _player(parlor, "Alice")).close()
        await asyncio.to_thread(own_postgres.halt)
        try:
            client = await Client.connect(parlor.port)
            await client.expect("Name: ")
            client.send("Alice")
            said = await client.closed(timeout=20)
            assert "The parlor lost its database for a moment" in said
            assert APOLOGY not in said
        finally:
            await asyncio.to_thread(own_postgres.resume)
        client = await Client.connect(parlor.port)
        await client.login("Alice")
        await client.close()
    finally:
        await parlor.stop()
