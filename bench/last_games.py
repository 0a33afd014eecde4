"""A player's last games (FINGER's "Last <game>" lines, the player's web page): what
reading them costs for a player with many finished games.

``server.services.notify.last_games`` chooses the games by their seats alone and reads
only the chosen ones whole. The reference, measured in the same run, is the way it read
them before: every candidate game whole (its state and first state, JSON), then chosen.
The time is the parlor's own: SQLAlchemy turns the rows' JSON into objects in the
event loop's thread, so while it runs no player is answered.

    .venv/bin/python bench/last_games.py [--games 2000] [--state-bytes 5000] [--repeat 5]

Exits 1 if the two ways choose different games.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sqlalchemy as sa  # noqa: E402

from server.db import Database  # noqa: E402
from server.models import Account, GamePlayer, GameRecord  # noqa: E402
from server.services.notify import last_games, seat_of  # noqa: E402
from server.services.records import played_by  # noqa: E402

KINDS = ("tt", "dice", "triad", "pyr")


async def read_whole(db: Database, account_id: int, per_kind: int = 10,
                     scan: int = 2000) -> dict[str, list[GameRecord]]:
    """The reference: every candidate game read whole, then chosen by its seats."""
    found: dict[str, list[GameRecord]] = {}
    async with db.session() as tx:
        for r in await tx.scalars(played_by(account_id)
                                  .where(GameRecord.status == "finished").limit(scan)):
            mine = found.setdefault(r.kind, [])
            if len(mine) < per_kind and seat_of(r.seats, account_id) is not None:
                mine.append(r)
    return {k: v for k, v in found.items() if v}


async def seed(db: Database, games: int, state_bytes: int) -> None:
    """Two players and ``games`` finished games between them, of four kinds, each with a
    state of about ``state_bytes`` bytes of JSON."""
    cells = max(1, state_bytes // 50)
    state = {"cells": [{"tile": i, "sides": [1, 2, 3], "owner": i % 2} for i in range(cells)]}
    seats = [{"id": 1, "name": "Ada", "computer": None}, {"id": 2, "name": "Bo", "computer": None}]
    async with db.session() as tx:
        await tx.execute(sa.insert(Account.__table__), [
            dict(id=i, name=n, name_key=n.lower(), password_hash="-", created_at=0.0,
                 settings={}) for i, n in ((1, "Ada"), (2, "Bo"))])
        await tx.execute(sa.insert(GameRecord.__table__), [
            dict(id=n, kind=KINDS[n % len(KINDS)], status="finished", seats=seats,
                 options={}, ranked=False, seed=0, initial_state=state, state=state,
                 version=0, created_at=0.0, updated_at=0.0, result={"winner": 0})
            for n in range(1, games + 1)])
        await tx.execute(sa.insert(GamePlayer.__table__),
                         [dict(account_id=a, game_id=n) for n in range(1, games + 1)
                          for a in (1, 2)])
        await tx.commit()
    print(f"{games} finished games of Ada and Bo, a state of {len(json.dumps(state))} "
          f"bytes each (and a first state as large)")


async def timed(read, db: Database, repeat: int) -> tuple[float, dict]:  # noqa: ANN001
    await read(db, 1)   # (warm)
    start = time.perf_counter()
    for _ in range(repeat):
        got = await read(db, 1)
    return (time.perf_counter() - start) / repeat, got


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--state-bytes", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="esterport-bench-") as folder:
        db = Database(f"sqlite+aiosqlite:///{folder}/bench.db")
        try:
            await db.migrate()
            await seed(db, args.games, args.state_bytes)
            whole, expected = await timed(read_whole, db, args.repeat)
            chosen, got = await timed(last_games, db, args.repeat)
        finally:
            await db.close()
    same = ({k: [r.id for r in v] for k, v in got.items()}
            == {k: [r.id for r in v] for k, v in expected.items()})
    print(f"read whole, then chosen (the reference): {whole * 1000:8.1f} ms a player")
    print(f"chosen by seats, then read (last_games): {chosen * 1000:8.1f} ms a player")
    print(f"reference / last_games: {whole / chosen:.1f}")
    print(f"same games: {'yes' if same else 'NO'} "
          f"({sum(len(v) for v in got.values())} games of {len(got)} kinds)")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
