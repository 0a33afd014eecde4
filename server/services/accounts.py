"""Accounts: creation, passwords (argon2, hashed off the event loop), roles, settings, ignores."""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections import deque
from typing import Any

import argon2
import attrs
import sqlalchemy as sa

from server.db import Database
from server.models import Account, Ignore, LoginTrust
from server.services import ledger

log = logging.getLogger(__name__)

NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9]{2,15}$")
NAME_RULE = "Names are 3 to 16 letters or digits, starting with a letter."
MIN_PASSWORD = 4

# Names a player may not take: they would read as commands or the computer.
RESERVED = {"new", "quit", "who", "computer", "admin", "all", "me", "self", "guest", "house"}
# ... nor begin with: they would pass for the parlor itself ("Computer2", "Admin1").
RESERVED_PREFIXES = ("computer", "admin", "esterport", "system", "server")

_LOOKALIKE = str.maketrans({"1": "l", "i": "l", "0": "o"})


def skeleton(name: str) -> str:
    """What ``name`` looks like, folded: case, I/l/1, O/0, rn/m and vv/w read alike.

    Names are ASCII letters and digits (``NAME_RE``), so this simple fold covers the
    confusables that apply (Unicode's TR39 skeleton is for the rest of Unicode). Two
    names with one skeleton could pass for each other; the second is refused."""
    key = name.lower().replace("rn", "m").replace("vv", "w")
    return key.translate(_LOOKALIKE)


@attrs.define(eq=False)
class Member:
    """Who a connection is logged in as: the few fields of the account a session reads,
    not the database row (a row loaded through the ORM keeps about 1.4 KB of state,
    held by every idle session). Commands that change an account write through
    :class:`Accounts` and keep these in step (``settings``, ``cubits``, ``is_admin``)."""

    id: int
    name: str
    is_admin: bool = False
    settings: dict[str, Any] | None = None
    cubits: int = 0

    @property
    def name_key(self) -> str:
        return name_key(self.name)

    @classmethod
    def of(cls, account: Account) -> "Member":
        return cls(account.id, account.name, bool(account.is_admin), account.settings,
                   account.cubits)


class AccountError(Exception):
    """A request about accounts that cannot be granted; the message is for the player."""


def name_key(name: str) -> str:
    return name.lower()


def check_name(name: str) -> str | None:
    """Why ``name`` cannot be an account name, or None if it can."""
    if not NAME_RE.match(name):
        return NAME_RULE
    if name.lower() in RESERVED:
        return f"{name!r} is reserved; choose another."
    if skeleton(name).startswith(tuple(skeleton(p) for p in RESERVED_PREFIXES)):
        return f"{name!r} begins like a name kept for the parlor; choose another."
    return None


class HashSlots:
    """At most ``n`` password hashes at once (each takes argon2's memory), handed out
    urgent-first: a login to an account nobody logged in to lately goes before the
    repeated logins of a busy one, so a crowd logging in to one account over and over
    keeps nobody else waiting behind its hashes. FIFO within each class."""

    def __init__(self, n: int) -> None:
        self.free = max(1, n)
        self._waiting: tuple[deque, deque] = (deque(), deque())  # urgent, the rest

    async def acquire(self, urgent: bool) -> None:
        if self.free and not any(self._waiting):
            self.free -= 1
            return
        turn = asyncio.get_running_loop().create_future()
        queue = self._waiting[0 if urgent else 1]
        queue.append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.release()  # handed a slot just as it was cancelled: pass it on
            elif turn in queue:
                queue.remove(turn)
            raise

    def release(self) -> None:
        for queue in self._waiting:
            while queue:
                turn = queue.popleft()
                if not turn.done():
                    turn.set_result(None)  # the slot passes straight to the next in line
                    return
        self.free += 1


class Accounts:
    def __init__(self, db: Database, starting_cubits: int, *, argon2_time_cost: int = 1,
                 argon2_memory_kib: int = 47104, hashing_at_once: int = 1) -> None:
        self.db = db
        self.starting_cubits = starting_cubits
        self._hasher = argon2.PasswordHasher(time_cost=argon2_time_cost,
                                             memory_cost=argon2_memory_kib)
        self._dummy_hash = self._hasher.hash("not a real password")
        self._parameters = argon2.extract_parameters(self._dummy_hash)  # the server's own
        self._new_account_hooks: list = []
        # argon2 takes its memory per hash: a bounded number at once bounds the server's
        self._hashing = HashSlots(hashing_at_once)

    async def _hashed(self, work, urgent: bool = False):  # noqa: ANN001, ANN202
        """``work()`` in a thread, in its turn for a hashing slot."""
        await self._hashing.acquire(urgent)
        try:
            return await asyncio.to_thread(work)
        finally:
            self._hashing.release()

    async def _hash(self, password: str) -> str:
        return await self._hashed(lambda: self._hasher.hash(password))

    async def _verify(self, password_hash: str, password: str, urgent: bool = False) -> bool:
        def check() -> bool:
            try:
                return self._hasher.verify(password_hash, password)
            except (argon2.exceptions.VerificationError, argon2.exceptions.InvalidHashError):
                return False

        return await self._hashed(check, urgent)

    def on_new_account(self, hook) -> None:  # noqa: ANN001
        """``hook(tx, account)`` runs inside the transaction that creates an account
        (the game issues give starter sets this way)."""
        self._new_account_hooks.append(hook)

    async def get(self, name: str) -> Account | None:
        async with self.db.session() as tx:
            return await tx.scalar(sa.select(Account).where(Account.name_key == name_key(name)))

    async def trusted(self, name: str, address: str) -> bool:
        """Whether the account named ``name`` logged in from ``address`` with its
        password lately (:meth:`trust`)."""
        async with self.db.session() as tx:
            until = await tx.scalar(
                sa.select(LoginTrust.until).join(Account, Account.id == LoginTrust.account_id)
                .where(Account.name_key == name_key(name), LoginTrust.address == address))
        return until is not None and until > time.time()

    async def trust(self, account_id: int, address: str, seconds: float) -> None:
        """The account logged in from ``address`` with its password: trust the pair for
        ``seconds`` (its trust from addresses past their time goes)."""
        now = time.time()
        async with self.db.session() as tx:
            await tx.execute(sa.delete(LoginTrust).where(
                LoginTrust.account_id == account_id,
                sa.or_(LoginTrust.address == address, LoginTrust.until < now)))
            tx.add(LoginTrust(account_id=account_id, address=address, until=now + seconds))
            try:
                await tx.commit()
            except sa.exc.IntegrityError:
                pass  # the same pair trusted at this instant by another login: it is

    async def name_problem(self, name: str) -> str | None:
        """Why a new account may not take ``name`` (invalid, taken, or looks like a
        name that is), or None."""
        problem = check_name(name)
        if problem:
            return problem
        async with self.db.session() as tx:
            other = await tx.scalar(sa.select(Account.name).where(
                sa.or_(Account.name_key == name_key(name), Account.skeleton == skeleton(name)))
                .limit(1))
        if other is None:
            return None
        if name_key(other) == name_key(name):
            return f"The name {name} is taken."
        return f"The name {name} looks too much like {other}'s; choose another."

    async def get_by_id(self, account_id: int) -> Account | None:
        async with self.db.session() as tx:
            return await tx.get(Account, account_id)

    async def with_ignores(self, ids: list[int]) -> dict[int, tuple[Account, set[int]]]:
        """Accounts by id, each with the ids it ignores: what a new parlor needs to carry
        a thousand sessions on, in a few queries rather than two per session."""
        found: dict[int, tuple[Account, set[int]]] = {}
        async with self.db.session() as tx:
            for start in range(0, len(ids), 500):
                chunk = ids[start:start + 500]
                for account in await tx.scalars(sa.select(Account).where(
                        Account.id.in_(chunk))):
                    found[account.id] = (account, set())
                for who, whom in (await tx.execute(sa.select(
                        Ignore.account_id, Ignore.ignored_id).where(
                        Ignore.account_id.in_(chunk)))).all():
                    if who in found:
                        found[who][1].add(whom)
        return found

    async def is_admin(self, account_id: int) -> bool:
        """The account's admin role as the database has it now (one primary-key read): a
        role granted or revoked from the command line while the player is connected."""
        async with self.db.session() as tx:
            return bool(await tx.scalar(sa.select(Account.is_admin).where(
                Account.id == account_id)))

    async def names(self, ids: list[int]) -> dict[int, str]:
        async with self.db.session() as tx:
            rows = await tx.execute(sa.select(Account.id, Account.name).where(Account.id.in_(ids)))
            return dict(rows.all())

    async def create(self, name: str, password: str, *, computer: bool = False) -> Account:
        """Make an account with the starting cubits (a ledger row) and any starter hooks.

        :raises AccountError: the name is invalid or taken, or the password too short.
        """
        problem = check_name(name) if computer else await self.name_problem(name)
        if problem and not computer:
            raise AccountError(problem)
        if len(password) < MIN_PASSWORD and not computer:
            raise AccountError(f"Passwords are at least {MIN_PASSWORD} characters.")
        password_hash = await self._hash(password) if password else "!"
        async with self.db.session() as tx:
            account = Account(
                name=name, name_key=name_key(name), skeleton=skeleton(name),
                password_hash=password_hash,
                is_admin=False, is_computer=computer, banned=False, cubits=0,
                settings={}, created_at=time.time(),
            )
            tx.add(account)
            try:
                await tx.flush()
            except sa.exc.IntegrityError:
                await tx.rollback()
                raise AccountError(f"The name {name} is taken.") from None
            if self.starting_cubits and not computer:
                await ledger.move(tx, account.id, self.starting_cubits, "starting cubits")
            for hook in self._new_account_hooks:
                await hook(tx, account)
            await tx.commit()
            await tx.refresh(account)
            return account

    async def authenticate(self, name: str, password: str, *,
                           urgent: bool = False) -> Account | None:
        """The account if ``password`` is right, else None (same cost either way).
        ``urgent``: its hash goes before those not urgent (:class:`HashSlots`)."""
        account = await self.get(name)
        if account is None or account.is_computer:
            # do not reveal which names exist by timing
            await self._verify(self._dummy_hash, password, urgent)
            return None
        if not await self._verify(account.password_hash, password, urgent):
            return None
        await self._rehash(account, password)
        return account

    async def _rehash(self, account: Account, password: str) -> None:
        """A password hashed with other argon2 parameters than the server's (they were
        changed since) is hashed again with the server's, now that it is known right:
        every hash verifies with the parameters it carries, and each account moves to the
        new ones at its next login. A failure here costs the login nothing."""
        try:
            if argon2.extract_parameters(account.password_hash) == self._parameters:
                return
            fresh = await self._hash(password)
            async with self.db.session() as tx:
                await tx.execute(sa.update(Account).where(
                    Account.id == account.id, Account.password_hash == account.password_hash)
                    .values(password_hash=fresh))
                await tx.commit()
        except (argon2.exceptions.InvalidHashError, sa.exc.SQLAlchemyError, OSError):
            log.warning("could not rehash the password of %s", account.name, exc_info=True)

    async def computer(self, name: str = "Computer") -> Account:
        """The computer player's account, made on first use."""
        account = await self.get(name)
        if account is None:
            try:
                account = await self.create(name, "", computer=True)
            except AccountError:
                account = await self.get(name)
        assert account is not None
        return account

    async def update(self, account_id: int, **values: Any) -> None:
        async with self.db.session() as tx:
            await tx.execute(sa.update(Account).where(Account.id == account_id).values(**values))
            await tx.commit()

    async def set_setting(self, account_id: int, key: str, value: Any) -> dict[str, Any]:
        async with self.db.session() as tx:
            account = await tx.get(Account, account_id)
            settings = dict(account.settings or {})
            settings[key] = value
            account.settings = settings
            await tx.commit()
            return settings

    async def set_admin(self, name: str, admin: bool = True) -> Account:
        account = await self.get(name)
        if account is None:
            raise AccountError(f"No account named {name}.")
        await self.update(account.id, is_admin=admin)
        account.is_admin = admin
        return account

    async def set_banned(self, name: str, banned: bool = True) -> Account:
        account = await self.get(name)
        if account is None:
            raise AccountError(f"No account named {name}.")
        await self.update(account.id, banned=banned)
        account.banned = banned
        return account

    async def ignored_by(self, account_id: int) -> set[int]:
        """Ids of the accounts ``account_id`` ignores."""
        async with self.db.session() as tx:
            rows = await tx.scalars(sa.select(Ignore.ignored_id).where(Ignore.account_id == account_id))
            return set(rows)

    async def set_ignore(self, account_id: int, other_id: int, ignore: bool) -> None:
        async with self.db.session() as tx:
            if ignore:
                if await tx.get(Ignore, (account_id, other_id)) is None:
                    tx.add(Ignore(account_id=account_id, ignored_id=other_id))
            else:
                await tx.execute(sa.delete(Ignore).where(
                    Ignore.account_id == account_id, Ignore.ignored_id == other_id))
            await tx.commit()

    async def is_ignoring(self, account_id: int, other_id: int) -> bool:
        async with self.db.session() as tx:
            return await tx.get(Ignore, (account_id, other_id)) is not None

