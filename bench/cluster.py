"""Two nodes, one parlor, under load: figures for the cluster (README, "Several machines").

    .venv/bin/python bench/cluster.py                       # 10,000 sessions, 5 s apart
    .venv/bin/python bench/cluster.py --players 2000 --duration 20   # a shorter run

Starts a throwaway PostgreSQL and Redis (the test suite's), two ``esterport serve``
nodes on them, and the load generator of ``bench/load.py`` (raw-socket players in their
own processes). Half the players log in to each node and each sends a command every
``--interval`` seconds (open loop). Then, while that load runs on, probes measure:

* the round trip of the paced commands (p50, p99) on each node;
* a TELL to a player on the other node vs on the same node (sent until seen), and a
  Triptycha lay (``TT LAY``) in a game driven by the other node vs by the same node (sent
  until the opponent sees it), as ratios in the same run. The probes play whole games
  (Random: hands dealt from the starter set every new account gets): the challenger's
  node drives the game, and the accepting player, on the same node or on the other,
  has its 4 lays a game timed; on the other node each is relayed to the driving node,
  applied, committed and published back. The challenger's 5 lays a game are timed too
  (a second ratio: on the other node only the announcement crosses). A lay goes in an
  empty niche of the lowest tile in hand, the tile flipped first (untimed) when it
  points the other way;
* the takeover time after ``kill -9`` of the node driving a game of the test game
  (Noughts and Crosses, ``[games] extra``): from the kill until a move sent from the
  other node is played;
* memory per idle logged-in session on each node (resident memory after the logins
  minus before, over the sessions; "before" is read once the first 100 per node are in,
  as ``bench/idle.py`` does for a lone server).

The bench's accounts use a cheap argon2 (time cost 1, 1 MiB), as every bench's do:
logging in 10,000 players with the production cost would measure argon2, not the parlor.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import load  # noqa: E402  (bench/load.py: its players, worker processes and servers)

from games.triptycha.board import UP  # noqa: E402
from games.triptycha.rules import HAND_SIZE  # noqa: E402
from tests.support.client import Client  # noqa: E402


WARM = 100  # players per node logged in before memory is read


def node_config(folder: Path, name: str, database: str, redis: str, players: int) -> Path:
    """``bench/load.py``'s parlor config, as node ``name`` of a cluster on ``redis``, with
    the test game (Noughts and Crosses) the takeover probe plays."""
    text = load.parlor_config(folder, database, players).read_text()
    text = text.replace("[games]\n", "[games]\nreconnect_grace = 60\n"
                        'extra = ["tests.support.tictactoe:KIND"]\n')
    path = folder / f"{name}.toml"
    path.write_text(text + textwrap.dedent(f"""\
        [cluster]
        redis = "{redis}"
        node = "{name}"
    """))
    return path


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def pct(values: list[float], q: float) -> float:
    return load.percentile(sorted(values), q)


async def player(port: int, name: str, new: bool) -> Client:
    client = await Client.connect(port)
    await (client.create(name) if new else client.login(name))
    return client


async def tell_times(sender: Client, target: Client, name: str, rounds: int) -> list[float]:
    times = []
    for i in range(rounds):
        started = time.perf_counter()
        sender.send(f"tell {name} ping{i}")
        await target.expect(f"tells you: ping{i}", timeout=20)
        times.append(time.perf_counter() - started)
        await sender.expect(f"You tell {name}: ping{i}", timeout=20)
    return times


class Hand:
    """One player's side of a Triptycha game as the bench plays it: which of its hand's
    tiles are laid and which way each points (all point up when dealt). A lay is legal
    when its niche is empty (``filled``: the niches of the lays seen announced) and the
    tile points the niche's way."""

    def __init__(self, client: Client, size: int) -> None:
        self.client = client
        self.up = {k: True for k in range(1, size + 1)}  # the tiles not yet laid

    async def lay(self, opponent: Client, filled: set[int], rng: random.Random) -> float:
        """Lay this hand's lowest tile in an empty niche (flipped first when it points
        the other way: the flip is not timed); return the seconds from sending the lay
        until ``opponent`` sees it announced."""
        tile = min(self.up)
        niche = rng.choice(sorted(set(range(1, 10)) - filled))
        name = self.client.name
        if self.up[tile] != UP[niche - 1]:
            await self.client.cmd(f"tt flip {tile}", f"{name} flips tile {tile}", timeout=20)
            self.up[tile] = UP[niche - 1]
        told = f"{name} lays tile {tile} in niche {niche}"
        started = time.perf_counter()
        self.client.send(f"tt lay {tile} in {niche}")
        await opponent.expect(told, timeout=20)
        took = time.perf_counter() - started
        await self.client.expect(told, timeout=20)
        del self.up[tile]
        filled.add(niche)
        return took


async def lay_times(first: Client, second: Client, games: int,
                    rng: random.Random) -> tuple[list[float], list[float]]:
    """Games of Triptycha (Random: each hand dealt from the player's starter set, so play
    begins at once), ``first`` challenging: its node drives the game and it lays first.
    Every lay is sent by a telnet client and timed from sending until the opponent sees
    it; returns ``second``'s lays (4 a game) and ``first``'s (5 a game)."""
    theirs: list[float] = []
    mine: list[float] = []
    for _ in range(games):
        await first.cmd(f"tt challenge {second.name} Random", "You challenge", timeout=20)
        await second.expect(f"{first.name} challenges you to Triptycha", timeout=20)
        second.send(f"tt accept {first.name}")
        await first.expect(r"Game #\d+: Triptycha, .* begins", timeout=20)
        await second.expect(r"Game #\d+: Triptycha, .* begins", timeout=20)
        hands, filled = (Hand(first, HAND_SIZE[0]), Hand(second, HAND_SIZE[1])), set()
        for i in range(9):  # the first lays 5, the second 4: the board's 9 niches
            mover, opponent = hands[i % 2], hands[1 - i % 2].client
            took = await mover.lay(opponent, filled, rng)
            (mine if i % 2 == 0 else theirs).append(took)
        for c in (first, second):
            await c.expect(r"Game #\d+: \S+ wins", timeout=20)
    return theirs, mine


def stores():  # noqa: ANN201
    """A throwaway PostgreSQL and Redis (the test suite's), started; None (and a line
    saying why) when either is not installed. The caller stops both."""
    from tests.support.postgres import ThrowawayPostgres
    from tests.support.redis import ThrowawayRedis

    pg, redis = ThrowawayPostgres(), ThrowawayRedis()
    if not pg.available or not redis.available:
        print("needs PostgreSQL (initdb, pg_ctl) and redis-server", file=sys.stderr)
        return None
    pg.start()
    pg.wait()
    redis.start()
    return pg, redis


async def run(ns: argparse.Namespace) -> int:
    load.raise_fd_limit()
    folder = Path(tempfile.mkdtemp(prefix="esterport-cluster-bench-"))
    started = stores()
    if started is None:
        return 2
    pg, redis = started
    nodes: list[load.ServerProcess] = []
    pools: list[load.WorkerPool] = []
    try:
        database = await pg.new_database()
        configs = [node_config(folder, n, database, redis.url(), ns.players) for n in ("a", "b")]
        seeded = await asyncio.to_thread(load.seed_accounts, folder, configs[0], ns.players)
        print(f"{ns.players} accounts seeded in {seeded:.1f} s (argon2 time cost 1, 1 MiB)")
        for i, config in enumerate(configs):
            node = load.ServerProcess(f"node {'ab'[i]}", [
                sys.executable, "-m", "commands.app", "serve", "--config", str(config)],
                folder / f"{'ab'[i]}.log")
            nodes.append(node)
            await asyncio.to_thread(node.wait_port)
        half = ns.players // 2
        warm = min(WARM, half // 2)
        for i, node in enumerate(nodes):
            pool = load.WorkerPool("127.0.0.1", node.port, ns.client_procs)
            pool.count = i * half   # node a: players 0 .. half-1; node b: the rest
            await pool.start()
            pools.append(pool)
        started = time.perf_counter()
        # a first few log in before memory is read: what the first logins load once
        # (modules, statement caches, pools) is not a session's
        grown = await asyncio.gather(*(p.grow(i * half + warm, ns.login_concurrency, 120.0)
                                       for i, p in enumerate(pools)))
        await asyncio.sleep(2)
        before = [rss_kib(n.proc.pid) for n in nodes]
        grown += await asyncio.gather(*(p.grow((i + 1) * half, ns.login_concurrency, 120.0)
                                        for i, p in enumerate(pools)))
        failed = sum(g["failed"] for g in grown)
        print(f"{2 * half} players logged in (half on each node) in "
              f"{time.perf_counter() - started:.1f} s; {failed} failed")
        await asyncio.sleep(2)
        after = [rss_kib(n.proc.pid) for n in nodes]
        for label, b, a in zip("ab", before, after):
            print(f"node {label}: {a / 1024:.0f} MiB resident, "
                  f"{(a - b) * 1024 / max(1, half - warm):,.0f} bytes per idle logged-in "
                  f"session (over the {half - warm} after the first {warm})")

        # the paced load, and the probes while it runs
        phase = asyncio.gather(*(p.phase("paced", list(load.DEFAULT_COMMANDS), ns.warmup,
                                         ns.duration, ns.interval) for p in pools))
        cpu_before = [n.cpu() for n in nodes]
        phase_started = time.perf_counter()
        await asyncio.sleep(ns.warmup)
        a, b = nodes[0].port, nodes[1].port
        alice, bob, carol = (await player(a, "ProbeA", True), await player(a, "ProbeB", True),
                             await player(b, "ProbeC", True))
        await alice.cmd("who probe", "3 of", timeout=20)
        same_tell = await tell_times(alice, bob, "ProbeB", ns.rounds)
        cross_tell = await tell_times(alice, carol, "ProbeC", ns.rounds)
        rng = random.Random(ns.seed)
        same_lay, same_own = await lay_times(alice, bob, ns.games, rng)
        cross_lay, cross_own = await lay_times(alice, carol, ns.games, rng)
        probed = time.perf_counter() - phase_started
        results = await phase
        wall = time.perf_counter() - phase_started
        busy = [(n.cpu() - b) / wall for n, b in zip(nodes, cpu_before)]
        for label, result, cpu in zip("ab", results, busy):
            lat = [x / 1e3 for part in result for x in part["latencies"]]
            sent = sum(part["sent"] for part in result)
            missing = sum(part["missing"] for part in result)
            lag = max(part["lag_p99"] for part in result) * 1000
            print(f"node {label}: {sent} commands in {ns.duration:.0f} s "
                  f"({sent / (ns.warmup + ns.duration):.0f}/s), round trip p50 "
                  f"{pct(lat, 0.5):.1f} ms, p99 {pct(lat, 0.99):.1f} ms, "
                  f"p99.9 {pct(lat, 0.999):.1f} ms, max {max(lat, default=0):.0f} ms; "
                  f"{missing} unanswered; node CPU {100 * cpu:.0f}%, load generator's "
                  f"timers late by {lag:.0f} ms (p99)")
        print(f"machine load average during the run: {os.getloadavg()[0]:.2f} "
              f"({os.cpu_count()} cores)")
        if probed > ns.warmup + ns.duration:
            print(f"(the probes took {probed - ns.warmup:.0f} s, longer than the paced load's "
                  f"{ns.duration:.0f} s: the last of them ran without it; raise --duration)")
        for what, same, cross in (
                ("TELL", same_tell, cross_tell),
                (f"a Triptycha lay ({len(cross_lay)} each way)", same_lay, cross_lay),
                (f"a Triptycha lay by the challenger, whose node drives the game "
                 f"({len(cross_own)} each way)", same_own, cross_own)):
            s, c = statistics.median(same) * 1e3, statistics.median(cross) * 1e3
            print(f"{what}: same node median {s:.1f} ms (p99 {pct(same, 0.99) * 1e3:.1f}), "
                  f"other node {c:.1f} ms (p99 {pct(cross, 0.99) * 1e3:.1f}): "
                  f"ratio {c / s:.2f}")

        # takeover: Carol (node b) challenges, so node b drives the game; kill -9 node b
        await carol.cmd("ttt challenge ProbeA", "You challenge", timeout=20)
        await alice.expect("challenges you", timeout=20)
        alice.send("ttt accept ProbeC")
        await carol.expect("begins", timeout=20)
        await alice.expect("begins", timeout=20)
        await carol.cmd("ttt play 1", "ProbeC: PLAY 1", timeout=20)
        await alice.expect("ProbeC: PLAY 1", timeout=20)
        killed = time.perf_counter()
        nodes[1].proc.kill()
        while True:
            alice.send("ttt play 5")
            reply = await alice.expect(r"(ProbeA: PLAY 5|did not answer|not your|no game"
                                       r"|not playing|You are)[^\n]*", timeout=30)
            if "ProbeA: PLAY 5" in reply:
                break
            await asyncio.sleep(0.1)
            if time.perf_counter() - killed > 60:
                print("takeover: not within 60 s")
                break
        print(f"takeover after kill -9: the game played on after "
              f"{time.perf_counter() - killed:.1f} s")
        for c in (alice, bob, carol):
            await c.close()
        return 0 if failed == 0 else 1
    finally:
        for pool in pools:
            await pool.stop()
        for node in nodes:
            node.stop()
        redis.stop()
        pg.stop()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int, default=10_000, help="sessions in all (half per node)")
    p.add_argument("--interval", type=float, default=5.0, help="seconds between a player's commands")
    p.add_argument("--duration", type=float, default=30.0, help="seconds of paced load measured")
    p.add_argument("--warmup", type=float, default=5.0)
    p.add_argument("--rounds", type=int, default=100, help="TELLs timed each way")
    p.add_argument("--games", type=int, default=10,
                   help="Triptycha games whose lays are timed each way (4 of the timed lays a game)")
    p.add_argument("--seed", type=int, default=1, help="seeds the niches the probes lay in")
    p.add_argument("--client-procs", type=int, default=2)
    p.add_argument("--login-concurrency", type=int, default=40)
    return asyncio.run(run(p.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
