"""Scripted tournament players over real sockets, and checks of a finished tournament
(tests/e2e/test_e2e_tournament_sims.py, bench/tournament.py)."""

from __future__ import annotations

import asyncio
import random
import re

from server.models import GameRecord
from tests.support.client import Client


def names(prefix: str, n: int) -> list[str]:
    letters = "bdfgkptz"  # none that looks like another (the parlor refuses look-alikes)
    return [f"{prefix}{letters[i // 8]}{letters[i % 8]}" for i in range(n)]


async def connect(parlor, names: list[str]) -> list[Client]:  # noqa: ANN001
    async def one(name: str) -> Client:
        return await (await Client.connect(parlor.port)).create(name, timeout=60)
    return list(await asyncio.gather(*(one(n) for n in names)))


async def player(client: Client, title: str, prefix: str, number: int = 1,
                 think: float = 0.0, withdraw_losing: int | None = None) -> None:
    """Plays each game it is paired in by resigning it (after ``think`` seconds), or
    not, as the game's coin (seeded by its number) says; returns when the tournament
    ``number`` is over. The loser of game ``withdraw_losing`` withdraws from the
    tournament before resigning it (so before the round can end)."""
    start = re.compile(rf"Game #(\d+): {title}, (\w+) vs (\w+) begins")
    while True:
        out = await client.expect(rf"(Game #\d+: {title}, \w+ vs \w+ begins"
                                  rf"|Tournament {number} \(.*\) is over)", timeout=40)
        if out.endswith("is over"):
            return
        m = list(start.finditer(out))[-1]
        loser = 2 + random.Random(int(m.group(1))).randrange(2)
        if m.group(loser) == client.name:
            if int(m.group(1)) == withdraw_losing:
                await client.cmd(f"tourney withdraw {number}", "You withdraw from")
            if think:
                await asyncio.sleep(think)
            client.send(f"{prefix} resign")


async def stored(parlor, pairings: list[list[dict]]) -> list[tuple[dict, GameRecord]]:  # noqa: ANN001
    """Each pairing played, with its stored game (checked: finished, the same seats)."""
    found = []
    async with parlor.db.session() as tx:
        for wave in pairings:
            for p in wave:
                if p["second"] is not None:
                    assert p["game"] is not None and not p.get("forfeit")
                    game = await tx.get(GameRecord, p["game"])
                    assert game.status == "finished"
                    assert [s["id"] for s in game.seats] == [p["first"], p["second"]]
                    found.append((p, game))
    return found


def first_move_spread(pairings: list[list[dict]]) -> int:
    """The most first moves any player had more (or fewer) than second moves."""
    balance: dict[int, int] = {}
    for wave in pairings:
        for p in wave:
            if p["second"] is not None:
                balance[p["first"]] = balance.get(p["first"], 0) + 1
                balance[p["second"]] = balance.get(p["second"], 0) - 1
    return max(abs(b) for b in balance.values())
