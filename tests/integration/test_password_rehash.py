"""A password stored with other argon2 parameters than the server's still logs in, and is
hashed anew with the server's at that login (server/services/accounts.py)."""

from __future__ import annotations

import argon2
import attrs

from commands.app import assemble
from tests.conftest import make_config


async def _parlor(url: str, memory_kib: int, time_cost: int):  # noqa: ANN202
    config = make_config(url)
    config = attrs.evolve(config, accounts=attrs.evolve(
        config.accounts, argon2_memory_kib=memory_kib, argon2_time_cost=time_cost))
    parlor = assemble(config)
    await parlor.start()
    return parlor


async def test_an_old_hash_logs_in_and_is_rehashed(sqlite_url):
    old = await _parlor(sqlite_url, 1024, 1)
    try:
        await old.accounts.create("Olden", "secret12")
    finally:
        await old.stop()
    new = await _parlor(sqlite_url, 2048, 2)
    try:
        stored = (await new.accounts.get("Olden")).password_hash
        assert argon2.extract_parameters(stored).memory_cost == 1024
        assert await new.accounts.authenticate("Olden", "wrong") is None
        assert (await new.accounts.get("Olden")).password_hash == stored  # not on a failure
        assert await new.accounts.authenticate("Olden", "secret12") is not None
        rehashed = (await new.accounts.get("Olden")).password_hash
        params = argon2.extract_parameters(rehashed)
        assert (params.memory_cost, params.time_cost) == (2048, 2)
        assert await new.accounts.authenticate("Olden", "secret12") is not None
        assert (await new.accounts.get("Olden")).password_hash == rehashed  # once
    finally:
        await new.stop()
