"""What an idle logged-in player costs one server: resident memory per session.

    .venv/bin/python bench/idle.py                    # 4,000 sessions on SQLite
    .venv/bin/python bench/idle.py --players 1000 --trace    # and where it goes

One parlor in this process (SQLite, as a lone server runs by default), and
``bench/load.py``'s raw-socket players in their own processes. A first batch logs in
(so the parlor's caches and pools are warm), then ``--players`` more; the figure is the
growth of this process's resident memory (VmRSS) over the second batch, per session.
``--trace`` also counts the second batch's allocations with ``tracemalloc`` and prints
the largest, by source line (slower; the per-session total there leaves out malloc's
own overhead, so it reads a little under the resident figure).

``bench/cluster.py`` gives the same figure for each node of a cluster.
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
    folder = Path(tempfile.mkdtemp(prefix="esterport-idle-"))
    total = WARM + ns.players
    config = load.parlor_config(folder, f"sqlite+aiosqlite:///{folder}/db.sqlite", total)
    load.seed_accounts(folder, config, total)
    parlor = assemble(Config.load(config))
    await parlor.start()
    pool = load.WorkerPool("127.0.0.1", parlor.port, ns.client_procs)
    await pool.start()
    try:
        await pool.grow(WARM, ns.login_concurrency, 120)
        await asyncio.sleep(2)
        gc.collect()
        before = rss_kib(os.getpid())
        if ns.trace:
            tracemalloc.start()
            snapshot = tracemalloc.take_snapshot()
        grown = await pool.grow(total, ns.login_concurrency, 600)
        await asyncio.sleep(3)
        gc.collect()
        after = rss_kib(os.getpid())
        if grown["failed"]:
            print(f"{grown['failed']} logins failed: {grown['failures']}")
        n = ns.players
        print(f"{len(parlor.sessions)} players logged in; resident memory grew "
              f"{(after - before) / 1024:.1f} MiB over {n}: "
              f"{(after - before) * 1024 / n:,.0f} bytes per idle logged-in session")
        if ns.trace:
            stats = tracemalloc.take_snapshot().compare_to(snapshot, "lineno")
            tracemalloc.stop()
            print(f"traced: {sum(s.size_diff for s in stats) / n:,.0f} bytes per session; "
                  f"the largest:")
            for stat in stats[:ns.trace_lines]:
                print(f"{stat.size_diff / n:8,.0f} B {stat.count_diff / n:6.1f} blocks  "
                      f"{stat.traceback}")
    finally:
        await pool.stop()
        await parlor.stop()
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--players", type=int, default=4000, help="sessions measured")
    p.add_argument("--trace", action="store_true", help="also trace allocations")
    p.add_argument("--trace-lines", type=int, default=25)
    p.add_argument("--client-procs", type=int, default=2)
    p.add_argument("--login-concurrency", type=int, default=50)
    return asyncio.run(run(p.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
