"""Resume tokens: how the browser client logs back in after a drop without keeping the
player's password.

At login, a client that says it supports ``Esterport.Resume`` (GMCP ``Core.Supports.Set``)
is sent a token: 32 random bytes, URL-safe text. The database keeps only its SHA-256, the
account and when it expires, so any node of a cluster (and the same node after a restart)
accepts it. A token is accepted once (``redeem`` deletes it; the login it opens issues the
next one), and only until it expires: ``TTL`` seconds after it was issued, and again
``TTL`` seconds after its connection dropped (``dropped``), so a player who loses the
connection after an hour of play still comes back by themselves. An account has one good
token at most: every login, by password or by a token, ends the account's earlier tokens
(``revoke``, from ``server/login.py``), and a new token replaces any other (``issue``), so
a page left open elsewhere cannot come back once its player has logged in anew. QUIT ends
every token of the account too. A token expired or unknown logs nobody in: the page asks
for the password again.
"""

from __future__ import annotations

import hashlib
import secrets
import time

import sqlalchemy as sa

from server.db import Database
from server.models import ResumeToken

TTL = 300.0          # seconds a token is good for: from its issue, and from its drop
TOKEN_BYTES = 32


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


class ResumeTokens:
    def __init__(self, db: Database, ttl: float = TTL) -> None:
        self.db = db
        self.ttl = ttl

    async def issue(self, account_id: int) -> tuple[str, str]:
        """A new token for ``account_id``: (the token, its digest). It replaces the
        account's earlier tokens, in the same transaction; expired tokens go too."""
        token = secrets.token_urlsafe(TOKEN_BYTES)
        digest = _digest(token)
        now = time.time()
        async with self.db.session() as tx:
            await tx.execute(sa.delete(ResumeToken).where(
                sa.or_(ResumeToken.expires_at < now, ResumeToken.account_id == account_id)))
            tx.add(ResumeToken(digest=digest, account_id=account_id, expires_at=now + self.ttl))
            await tx.commit()
        return token, digest

    async def redeem(self, token: str) -> int | None:
        """The account ``token`` logs in, once (the token is gone after); None when it is
        unknown, used or expired."""
        if not token or len(token) > 100:
            return None
        digest = _digest(token)
        async with self.db.session() as tx:
            row = (await tx.execute(sa.delete(ResumeToken).where(ResumeToken.digest == digest)
                                    .returning(ResumeToken.account_id, ResumeToken.expires_at))
                   ).first()
            await tx.commit()
        if row is None or row.expires_at < time.time():
            return None
        return row.account_id

    async def dropped(self, digest: str) -> None:
        """The token's connection dropped: it is good for ``ttl`` seconds from now."""
        async with self.db.session() as tx:
            await tx.execute(sa.update(ResumeToken).where(ResumeToken.digest == digest)
                             .values(expires_at=time.time() + self.ttl))
            await tx.commit()

    async def revoke(self, account_id: int) -> None:
        """Every token of the account ends (at every login, and at QUIT)."""
        async with self.db.session() as tx:
            await tx.execute(sa.delete(ResumeToken).where(ResumeToken.account_id == account_id))
            await tx.commit()


__all__ = ["TTL", "ResumeTokens"]
