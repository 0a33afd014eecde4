"""The welcome screen, logging in and creating an account (NEW)."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Protocol

from server.services.accounts import AccountError, check_name
from server.line_input import Disconnect
from server.session import Session
from server.text import listing, paint, wrap

if TYPE_CHECKING:
    from server.config import Config
    from server.models import Account
    from server.online import Online
    from server.services.accounts import Accounts
    from server.services.games import GameHost
    from server.services.resume import ResumeTokens
    from server.throttle import KeyedLocks, LoginThrottle, Sliding

log = logging.getLogger(__name__)
RESUME = "#resume"  # at the Name prompt, with a resume token: no name starts with "#"
TRUST_SECONDS = 30 * 24 * 3600  # an address a name logged in from is never locked out by name

BANNER = r"""
   ______     __                            __
  / ____/____/ /____  _________  ____  ____/ /_
 / __/ / ___/ __/ _ \/ ___/ __ \/ __ \/ ___/ __/
/ /___(__  ) /_/  __/ /  / /_/ / /_/ / /  / /_
\____/____/\__/\___/_/  / .___/\____/_/   \__/
                       /_/
"""


class Gate(Protocol):
    """What logging in reads of the parlor: its name and games for the welcome, who is
    online, the accounts and resume tokens, and the throttles of failed logins, of
    logins and of new accounts."""

    config: "Config"
    online: "Online"
    host: "GameHost"
    accounts: "Accounts"
    resume: "ResumeTokens"
    throttle: "LoginThrottle"
    name_throttle: "LoginThrottle"
    logins: "Sliding"
    checking: "KeyedLocks"
    creations: "Sliding"
    creations_everywhere: "Sliding"


def welcome(session: Session, parlor: Gate) -> str:
    """The banner, the parlor's name and its games (the titles of the kinds it hosts)."""
    online = parlor.online.count
    games = listing([kind.title for kind in parlor.host.kinds.values()])
    lines = [
        paint(BANNER.strip("\n"), "yellow", bold=True) if session.width >= 50 else "",
        *wrap(f"Welcome to {parlor.config.server.name}, a parlor of games: {games}.",
              session.width),
        f"{online} player{'s' if online != 1 else ''} connected.",
        "",
        "Type your name to log in, or NEW to create an account.",
    ]
    return "\n".join(lines)


async def _paced(session: Session, question: str, *, secret: bool = False) -> str:
    """``session.ask``, at most ``LOGIN_LINES_PER_SECOND`` answers a second: before login
    every line may cost a database look-up, so a client that types faster waits."""
    limiter = session.login_limiter
    while limiter is not None and not limiter.allow():
        await asyncio.sleep(1 / limiter.rate)
    return await session.ask(question, secret=secret)


async def login(session: Session, parlor: Gate) -> "Account":
    """Run the login dialogue until a player is authenticated.

    Failed passwords are counted per (name, address) and per address, and, for a name
    guessed at from many addresses, per name; past a few, each try waits a little
    longer (``LoginThrottle``). A name logging in from an address it logged in from
    lately counts only its own failures there: neither an attacker guessing at it from
    elsewhere nor someone mistyping behind the same address keeps its player out. An
    attempt counts from the moment its password is checked, so a hundred guesses in
    flight at once are as limited as a hundred in a row.

    Successful logins cost a password hash too: one account has one password check at a
    time and at most ``logins_per_minute`` successes a minute, and a login to an account
    nobody logged in to lately is hashed first (``Accounts.authenticate``'s ``urgent``).

    Every login, by password or by a resume token, ends the account's earlier resume
    tokens (``server/services/resume.py``): only the one this login is given is good.

    :raises Disconnect: the player quits or the connection drops.
    """
    throttle, by_name = parlor.throttle, parlor.name_throttle
    session.write(welcome(session, parlor))
    while True:
        name = await _paced(session, "Name: ")
        if not name:
            continue
        word = name.split()[0]
        if word.lower() == RESUME:
            account = await _resume(session, parlor, name.split()[1:])
            if account is not None:
                return account
            continue
        if word.lower() == "new":
            account = await create_account(session, parlor)
            if account is not None:
                await parlor.accounts.trust(account.id, session.address, TRUST_SECONDS)
                return account
            continue
        if word.lower() in ("quit", "exit", "logout"):
            session.close("Goodbye.")
            raise Disconnect("quit at login")
        name_key, address = word.lower()[:40], session.address
        pair = f"pair:{name_key}:{address}"
        trusted = await parlor.accounts.trusted(name_key, address)
        keys = (pair,) if trusted else (f"addr:{address}", pair)
        name_keys = () if trusted else (f"name:{name_key}",)
        refusal = _refusal(parlor, name_key, word, keys, name_keys)
        if refusal:
            session.write(refusal)
            continue
        if check_name(word) and await parlor.accounts.get(word) is None:
            session.write(f"There is no account named {word}. Type NEW to create one.")
            continue
        password = await _paced(session, "Password: ", secret=True)
        async with parlor.checking(name_key):  # one password check per account at a time
            # check again now, and count this attempt before the (slow) hash check:
            # guesses waiting at the Password: prompt cannot all go through at once
            refusal = _refusal(parlor, name_key, word, keys, name_keys)
            if refusal:
                session.write(refusal)
                continue
            # In flight, an attempt counts against its name (guesses at one account) and
            # pair; against the address only once decided, so people behind one address
            # may log in at once (an address has at most max_connections_per_address
            # attempts in flight anyway).
            by_address = keys[:-1]
            throttle.begin(pair)
            by_name.begin(*name_keys)
            account = None
            urgent = not parlor.logins.count(name_key) and parlor.online.named(name_key) is None
            try:
                account = await parlor.accounts.authenticate(word, password, urgent=urgent)
            finally:  # a failure (or a dropped connection mid-check) counts; a success clears
                throttle.end(pair, ok=account is not None)
                throttle.record(*by_address, ok=account is not None)
                by_name.end(*name_keys, ok=account is not None)
            if account is not None:
                parlor.logins.add(name_key)
        if account is None:
            log.warning("failed login for %s from %s", name_key, address)
            for key in (*keys, *name_keys):
                if throttle.locked(key) or by_name.locked(key):
                    log.warning("login delayed: %s", key)
            exists = await parlor.accounts.get(word)
            session.write("Wrong password." if exists else
                          f"There is no account named {word}. Type NEW to create one.")
            continue
        await parlor.accounts.trust(account.id, address, TRUST_SECONDS)
        await parlor.resume.revoke(account.id)  # a page left open elsewhere is logged out
        if account.banned:
            why = (account.settings or {}).get("ban_reason")  # @BAN's reason
            session.close("This account is banned from Esterport" + (f": {why}." if why else "."))
            raise Disconnect("banned")
        if account.is_admin:  # where an admin finds the @-commands
            session.write("You are an admin: HELP ADMIN lists the admin commands.")
        return account


async def _resume(session: Session, parlor: Gate, words: list[str]) -> "Account | None":
    """``#resume <token>`` at the Name prompt: the browser client back after a drop, with
    the token it was given at login instead of the password (``server/services/resume.py``);
    None (and why) when the token is unknown, used or expired."""
    account_id = await parlor.resume.redeem(words[0]) if len(words) == 1 else None
    account = await parlor.accounts.get_by_id(account_id) if account_id is not None else None
    if account is None or account.banned:
        session.write("That session cannot be resumed: log in with your password.")
        return None
    await parlor.resume.revoke(account.id)  # any other token of the account ends too
    return account


def _refusal(parlor: Gate, name_key: str, word: str, keys: tuple[str, ...],
             name_keys: tuple[str, ...]) -> str | None:
    """Why a login to ``word`` may not be tried now, or None."""
    wait = max(parlor.throttle.wait(*keys), parlor.name_throttle.wait(*name_keys))
    if wait:
        return f"Too many failed logins; try again in {wait} seconds."
    wait = parlor.logins.wait(name_key)
    if wait:
        return f"Too many logins to {word} in the last minute; try again in {wait} seconds."
    return None


async def create_account(session: Session, parlor: Gate) -> "Account | None":
    wait = max(parlor.creations.wait(session.address), parlor.creations_everywhere.wait("*"))
    if wait:
        session.write(f"Too many new accounts lately; try again in {wait} seconds.")
        return None
    session.write("Creating a new account. (Just press enter to go back.)")
    while True:
        name = await _paced(session, "Choose a name: ")
        if not name:
            return None
        problem = await parlor.accounts.name_problem(name)
        if problem:
            session.write(problem)
            continue
        break
    while True:
        password = await _paced(session, "Choose a password: ", secret=True)
        if not password:
            return None
        if len(password) < 4:
            session.write("Passwords are at least 4 characters.")
            continue
        again = await _paced(session, "Type it again: ", secret=True)
        if again != password:
            session.write("The two passwords differ; try again.")
            continue
        break
    wait = max(parlor.creations.wait(session.address), parlor.creations_everywhere.wait("*"))
    if wait:
        session.write(f"Too many new accounts lately; try again in {wait} seconds.")
        return None
    parlor.creations.add(session.address)
    parlor.creations_everywhere.add("*")
    try:
        account = await parlor.accounts.create(name, password)
    except AccountError as err:
        session.write(str(err))
        return None
    log.info("new account %s from %s", account.name, session.address)
    session.write(f"Welcome, {account.name}! You have {account.cubits} cubits. "
                  "Type HELP to see what you can do.")
    return account
