"""Data files (TOML) loaded into the database by ``esterport seed`` and at start-up.

Each top-level table of a file names a seeder: ``accounts`` here, and those the games
bring (``GameKind.seeders``: Triptycha's tile collections and starter set), handed to
the parlor where the application is assembled (``commands/app.py``). A seeder is given
the database and the accounts, and its table. Seeders are
idempotent: loading a file twice changes nothing the second time. They read, then write
(a collection missing is made, the computer's deck topped up to so many copies), so two
processes loading at once could both make the same thing: loading runs under the seed
lock (``server/db.py``), and each process finds what the one before it loaded.

    [[accounts]]
    name = "Alice"
    password = "secret"
    admin = true        # optional
    cubits = 5000       # optional: tops the balance up to at least this (a ledger entry)
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Awaitable, Callable

from server.db import SEED_LOCK, Database
from server.services import ledger
from server.services.accounts import AccountError, Accounts

DEFAULT_DIR = Path(__file__).parent / "data" / "seed"

Seeder = Callable[[Database, Accounts, Any], Awaitable[list[str]]]


async def seed_accounts(db: Database, accounts: Accounts, entries: Any) -> list[str]:
    if not isinstance(entries, list):
        raise ValueError("[[accounts]] must be a list of tables")
    out = []
    for entry in entries:
        name = entry.get("name")
        if not isinstance(name, str):
            raise ValueError(f"account entry without a name: {entry!r}")
        account = await accounts.get(name)
        if account is None:
            try:
                account = await accounts.create(name, str(entry.get("password", "")))
            except AccountError as err:
                raise ValueError(f"account {name}: {err}") from None
            out.append(f"created account {account.name}")
        if entry.get("admin") and not account.is_admin:
            await accounts.set_admin(name, True)
            out.append(f"{account.name} is an admin")
        want = entry.get("cubits")
        if isinstance(want, int) and account.cubits < want:
            async with db.session() as tx:
                await ledger.move(tx, account.id, want - account.cubits, "seed")
                await tx.commit()
            out.append(f"{account.name} topped up to {want} cubits")
    return out


BUILTIN: dict[str, Seeder] = {"accounts": seed_accounts}


async def load(db: Database, accounts: Accounts, seeders: dict[str, Seeder],
               paths: list[Path] | None = None) -> list[str]:
    """Load ``paths`` (default: every ``*.toml`` in ``server/data/seed``) with ``seeders``
    (a table's name -> its seeder); report lines."""
    if paths is None:
        paths = sorted(DEFAULT_DIR.glob("*.toml")) if DEFAULT_DIR.is_dir() else []
    files = []
    for path in paths:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
        unknown = set(data) - set(seeders)
        if unknown:
            raise ValueError(f"{path}: unknown table(s) {', '.join(sorted(unknown))}; "
                             f"known: {', '.join(sorted(seeders))}")
        files.append((path, data))
    report: list[str] = []
    async with db.exclusive(SEED_LOCK):
        for path, data in files:
            for table, value in data.items():
                report.extend(await seeders[table](db, accounts, value))
            report.append(f"loaded {path}")
    return report
