"""Resume tokens (server/services/resume.py): the browser client's way back in after a
drop without the password. One use each, expiring, ended by QUIT, stored as a digest."""

from __future__ import annotations

import asyncio
import hashlib
import time

import sqlalchemy as sa

from server.models import ResumeToken


async def test_a_token_logs_in_once_and_is_stored_as_a_digest(parlor, clients):
    alice = await clients("Alice")
    account = await parlor.accounts.get("Alice")
    token, digest = await parlor.resume.issue(account.id)
    assert len(token) >= 43 and digest == hashlib.sha256(token.encode()).hexdigest()
    async with parlor.db.session() as tx:
        stored = (await tx.execute(sa.select(ResumeToken.digest))).scalars().all()
    assert stored == [digest]   # the token itself is nowhere in the database
    await alice.close()
    page = await clients()
    await page.expect("Name: ")
    await page.cmd(f"#resume {token}", r"Exits:")
    assert parlor.online.named("Alice") is not None
    again = await clients()
    await again.expect("Name: ")
    await again.cmd(f"#resume {token}", r"cannot be resumed")   # used: gone
    await again.expect("Name: ")
    await again.cmd("#resume not-a-token", r"cannot be resumed")


async def test_expired_tokens_and_quit(parlor, clients):
    alice = await clients("Alice")
    account = await parlor.accounts.get("Alice")
    token, digest = await parlor.resume.issue(account.id)
    async with parlor.db.session() as tx:
        await tx.execute(sa.update(ResumeToken).values(expires_at=time.time() - 1))
        await tx.commit()
    assert await parlor.resume.redeem(token) is None   # expired
    token, digest = await parlor.resume.issue(account.id)
    await parlor.resume.dropped(digest)                 # a drop: a few minutes more
    async with parlor.db.session() as tx:
        row = (await tx.execute(sa.select(ResumeToken))).scalar_one()
    assert row.expires_at > time.time() + parlor.resume.ttl - 5
    alice.send("quit")                                  # QUIT ends every token
    await alice.closed()
    for _ in range(100):
        async with parlor.db.session() as tx:
            left = (await tx.execute(sa.select(ResumeToken))).scalars().all()
        if not left:
            break
        await asyncio.sleep(0.02)
    assert left == []
    assert await parlor.resume.redeem(token) is None


async def test_only_a_client_that_asks_gets_a_token(parlor, clients):
    await clients("Alice")   # a telnet client that never said Esterport.Resume
    async with parlor.db.session() as tx:
        assert (await tx.execute(sa.select(ResumeToken))).scalars().all() == []


async def test_the_service_on_each_database(db_url):
    """Issue, redeem once, drop, revoke: the same on SQLite and PostgreSQL."""
    from commands.app import assemble
    from tests.conftest import make_config

    parlor = assemble(make_config(db_url))
    await parlor.start()
    try:
        account = await parlor.accounts.create("Dora", "secret12")
        token, digest = await parlor.resume.issue(account.id)
        assert await parlor.resume.redeem(token) == account.id
        assert await parlor.resume.redeem(token) is None
        token, digest = await parlor.resume.issue(account.id)
        await parlor.resume.dropped(digest)
        await parlor.resume.revoke(account.id)
        assert await parlor.resume.redeem(token) is None
    finally:
        await parlor.stop()
