"""The tournament director's look at the clock (``Tournaments.tick``) with many live
tournaments: how long one look takes, and how many rows it reads.

    .venv/bin/python bench/tourney_tick.py --open 0 1000 10000 --running 0 30 300

For each pair (open, running) a fresh parlor on SQLite holds ``open`` open tournaments
nobody has begun (not due: the clock has nothing to do with them until they expire) and
``running`` running Swiss tournaments whose one pairing waits for a no-show (read,
looked at, nothing changes). Prints the median and worst of ``--ticks`` looks, and the
rows the look read.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import attrs  # noqa: E402

from commands.app import assemble  # noqa: E402
from server.config import TournamentsSection  # noqa: E402
from server.services.meeting_models import TournamentRecord  # noqa: E402
from tests.conftest import make_config  # noqa: E402


def _row(status: str, now: float, k: int) -> TournamentRecord:
    if status == "open":
        state = {"rounds": 3, "options": {}, "entrants": [], "pairings": []}
    else:  # a pairing of two who are not connected, due in a day
        state = {"rounds": 1, "options": {}, "pairings": [[
            {"first": 2 * k + 1, "second": 2 * k + 2, "game": None, "score": None,
             "due": now + 86400}]],
            "entrants": [{"id": 2 * k + i, "name": f"P{2 * k + i}", "rating": 1500}
                         for i in (1, 2)]}
    return TournamentRecord(kind="dice", system="swiss", status=status, title="bench",
                            state=state, version=0, created_at=now, updated_at=now)


async def measure(tmp: Path, n_open: int, n_running: int, ticks: int) -> None:
    config = attrs.evolve(make_config(f"sqlite+aiosqlite:///{tmp}/tick-{n_open}-{n_running}.db"),
                          tournaments=TournamentsSection(tick=3600.0))  # only ours
    parlor = assemble(config)
    await parlor.start()
    try:
        svc = parlor.host.tournaments
        now = time.time()
        async with parlor.db.session() as tx:
            tx.add_all([_row("open", now, k) for k in range(n_open)]
                       + [_row("running", now, k) for k in range(n_running)])
            await tx.commit()
        read = len(await svc._due_rows(now))
        times = []
        for _ in range(ticks):
            t = time.perf_counter()
            await svc.tick()
            times.append(time.perf_counter() - t)
        print(f"open {n_open:6d}  running {n_running:4d}: rows read {read:4d}, tick median "
              f"{statistics.median(times) * 1000:7.2f} ms, worst {max(times) * 1000:7.2f} ms")
    finally:
        await parlor.stop()


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--open", type=int, nargs="+", default=[0, 1000, 10000])
    ap.add_argument("--running", type=int, nargs="+", default=[0, 30, 300])
    ap.add_argument("--ticks", type=int, default=20)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for n_open in a.open:
            for n_running in a.running:
                await measure(Path(tmp), n_open, n_running, a.ticks)


if __name__ == "__main__":
    asyncio.run(main())
