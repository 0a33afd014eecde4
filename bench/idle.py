"""What an idle logged-in player costs one server: resident memory per session.

    .venv/bin/python bench/idle.py                    # 4,000 sessions on SQLite
    .venv/bin/python bench/idle.py --players 1000 --trace    # and where it goes
    .venv/bin/python bench/idle.py --players 3000 --rounds 3 --login-concurrency 100

One parlor in this process (SQLite, as a lone server runs by default), and
``bench/load.py``'s raw-socket players in their own processes. A first batch logs in
(so the parlor's caches and pools are warm), then ``--players`` more; the figure is the
growth of this process's resident memory (VmRSS) over the second batch, per session.
``--trace`` also counts the second batch's allocations with ``tracemalloc`` and prints
the largest, by source line (slower; the per-session total there leaves out malloc's
own overhead, so it reads a little under the resident figure).

``--cluster`` makes this parlor node "a" of a two-node cluster (a throwaway PostgreSQL
and Redis, the test suite's, and node "b" in a child process), and logs as many players
in to node b as to node a: the figure is then node a's growth over its own sessions, so
it counts what node a keeps of node b's players too (roster, names, rooms), as each node
of ``bench/cluster.py`` does.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
import tempfile
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import load  # noqa: E402  (bench/load.py: its players, worker processes and servers)
from storm import rss_kib  # noqa: E402

from commands.app import assemble  # noqa: E402
from server.config import Config  # noqa: E402

WARM = 200  # players logged in before the measured batch


async def run(ns: argparse.Namespace) -> int:
    load.raise_fd_limit()
    folder = Path(tempfile.mkdtemp(prefix="esterport-idle-"))
    total = WARM + ns.players
    stores, other = None, None
    if ns.cluster:
        import cluster  # bench/cluster.py: its node configs and throwaway stores

        stores = cluster.stores()
        if stores is None:
            return 2
        pg, redis = stores
        database = await pg.new_database()
        config, config_b = (cluster.node_config(folder, n, database, redis.url(), 2 * total)
                            for n in "ab")
        load.seed_accounts(folder, config, 2 * total)
        other = load.ServerProcess("node b", [sys.executable, "-m", "commands.app", "serve",
                                              "--config", str(config_b)], folder / "b.log")
        await asyncio.to_thread(other.wait_port)
    else:
        config = load.parlor_config(folder, f"sqlite+aiosqlite:///{folder}/db.sqlite", total)
        load.seed_accounts(folder, config, total)
    parlor = assemble(Config.load(config))
    await parlor.start()
    pool = load.WorkerPool("127.0.0.1", parlor.port, ns.client_procs)
    await pool.start()
    pools = [pool]
    if other is not None:
        pools.append(load.WorkerPool("127.0.0.1", other.port, ns.client_procs))
        pools[1].count = total   # node b's players: total .. 2 * total - 1
        await pools[1].start()
    try:
        if ns.rounds:
            return await rounds(ns, parlor, pool, total)
        await asyncio.gather(*(p.grow(p.count + WARM, ns.login_concurrency, 120)
                               for p in pools))
        await asyncio.sleep(2)
        gc.collect()
        before = rss_kib(os.getpid())
        if ns.trace:
            tracemalloc.start(ns.trace_depth)
            snapshot = tracemalloc.take_snapshot()
        grown, *_ = await asyncio.gather(*(p.grow(p.count + ns.players, ns.login_concurrency,
                                                  600) for p in pools))
        await asyncio.sleep(3)
        gc.collect()
        after = rss_kib(os.getpid())
        if grown["failed"]:
            print(f"{grown['failed']} logins failed: {grown['failures']}")
        n = ns.players
        print(f"{len(parlor.online.sessions)} players logged in; resident memory grew "
              f"{(after - before) / 1024:.1f} MiB over {n}: "
              f"{(after - before) * 1024 / n:,.0f} bytes per idle logged-in session")
        if ns.trace:
            stats = tracemalloc.take_snapshot().compare_to(
                snapshot, "lineno" if ns.trace_depth == 1 else "traceback")
            tracemalloc.stop()
            print(f"traced: {sum(s.size_diff for s in stats) / n:,.0f} bytes per session; "
                  f"the largest:")
            for stat in stats[:ns.trace_lines]:
                print(f"{stat.size_diff / n:8,.0f} B {stat.count_diff / n:6.1f} blocks  "
                      + " <- ".join(str(f) for f in reversed(stat.traceback)))
    finally:
        for p in pools:
            await p.stop()
        await parlor.stop()
        if other is not None:
            other.stop()
        if stores is not None:
            for store in stores:
                store.stop()
    return 0


async def rounds(ns: argparse.Namespace, parlor, pool, total: int) -> int:  # noqa: ANN001
    """``--rounds``: each round logs every player in (``--login-concurrency`` at once) and
    then disconnects them all; the resident memory once they are in and once they are
    gone, round after round, and how many sessions are still in memory."""
    import weakref

    from server.session import Session

    alive: weakref.WeakSet = weakref.WeakSet()
    await asyncio.sleep(1)
    print(f"before round 1: resident {rss_kib(os.getpid()) / 1024:.1f} MiB")
    for n in range(1, ns.rounds + 1):
        pool.count = 0  # the same accounts, logged in again
        grown = await pool.grow(total, ns.login_concurrency, 600)
        alive.update(s for s in parlor.connections if isinstance(s, Session))
        await asyncio.sleep(2)
        logged_in = rss_kib(os.getpid()) / 1024
        players = len(parlor.online.sessions)
        if ns.trace:
            tracemalloc.start(ns.trace_depth)
            snapshot = tracemalloc.take_snapshot()
        await pool.all([{"op": "close"}] * pool.n)
        peak, fullest = 0.0, (0, None)
        for i in range(600):  # until every connection is closed (60 s at most)
            peak = max(peak, rss_kib(os.getpid()) / 1024)
            if ns.trace and i % 5 == 0 and tracemalloc.get_traced_memory()[0] > fullest[0]:
                fullest = (tracemalloc.get_traced_memory()[0], tracemalloc.take_snapshot())
            if not parlor.connections:
                break
            await asyncio.sleep(0.1)
        for i in range(300):  # and every session freed (30 s at most: its shell records
            peak = max(peak, rss_kib(os.getpid()) / 1024)  # the player's last visit)
            if ns.trace and i % 5 == 0 and tracemalloc.get_traced_memory()[0] > fullest[0]:
                fullest = (tracemalloc.get_traced_memory()[0], tracemalloc.take_snapshot())
            if not alive:
                break
            await asyncio.sleep(0.1)
        await asyncio.sleep(1)
        gone = rss_kib(os.getpid()) / 1024
        print(f"round {n}: {players} logged in ({grown['failed']} failed): resident "
              f"{logged_in:.1f} MiB; while they left: up to {peak:.1f} MiB; all gone: "
              f"{gone:.1f} MiB, {len(alive)} of their sessions still in memory", flush=True)
        if ns.trace:
            for title, taken in (("while they left (the most traced)", fullest[1]),
                                 ("once all were gone", tracemalloc.take_snapshot())):
                if taken is None:
                    continue
                stats = taken.compare_to(snapshot, "lineno" if ns.trace_depth == 1
                                         else "traceback")
                print(f"  allocated since they began to leave, {title}: "
                      f"{sum(st.size_diff for st in stats) / 2**20:.1f} MiB")
                for stat in stats[:ns.trace_lines]:
                    print(f"  {stat.size_diff / 1024:9,.0f} KiB {stat.count_diff:8} blocks  "
                          + " <- ".join(str(f) for f in reversed(stat.traceback)))
            tracemalloc.stop()
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--players", type=int, default=4000, help="sessions measured")
    p.add_argument("--trace", action="store_true", help="also trace allocations")
    p.add_argument("--trace-lines", type=int, default=25)
    p.add_argument("--trace-depth", type=int, default=1,
                   help="frames kept per allocation (more: where a line was called from)")
    p.add_argument("--cluster", action="store_true",
                   help="as node a of two on PostgreSQL and Redis, as many players on each")
    p.add_argument("--client-procs", type=int, default=2)
    p.add_argument("--login-concurrency", type=int, default=50)
    p.add_argument("--rounds", type=int, default=0,
                   help="log every player in and out this many times (RSS each round)")
    return asyncio.run(run(p.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
