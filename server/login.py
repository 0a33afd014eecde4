"""The welcome screen, logging in and creating an account (NEW)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.services.accounts import AccountError, check_name
from server.session import Disconnect, Session
from server.text import bold, paint

if TYPE_CHECKING:
    from server.models import Account

BANNER = r"""
   ______     __                            __
  / ____/____/ /____  _________  ____  ____/ /_
 / __/ / ___/ __/ _ \/ ___/ __ \/ __ \/ ___/ __/
/ /___(__  ) /_/  __/ /  / /_/ / /_/ / /  / /_
\____/____/\__/\___/_/  / .___/\____/_/   \__/
                       /_/
"""


def welcome(session: Session) -> str:
    parlor = session.parlor
    online = len(parlor.sessions)
    lines = [
        paint(BANNER.strip("\n"), "yellow", bold=True) if session.width >= 50 else "",
        f"Welcome to {bold(parlor.config.server.name)}, a parlor of games: "
        "Triptycha, Triad, Pyramid and Triad Dice.",
        f"{online} player{'s' if online != 1 else ''} connected.",
        "",
        "Type your name to log in, or NEW to create an account.",
    ]
    return "\n".join(lines)


async def login(session: Session) -> "Account":
    """Run the login dialogue until a player is authenticated.

    :raises Disconnect: the player quits or the connection drops.
    """
    parlor = session.parlor
    throttle = parlor.throttle
    session.write(welcome(session))
    while True:
        name = await session.ask("Name: ")
        if not name:
            continue
        word = name.split()[0]
        if word.lower() == "new":
            account = await create_account(session)
            if account is not None:
                return account
            continue
        if word.lower() in ("quit", "exit", "logout"):
            session.close("Goodbye.")
            raise Disconnect("quit at login")
        keys = (f"addr:{session.address}", f"name:{word.lower()}")
        wait = throttle.wait(*keys)
        if wait:
            session.write(f"Too many failed logins; try again in {wait} seconds.")
            continue
        if check_name(word) and await parlor.accounts.get(word) is None:
            session.write(f"There is no account named {word}. Type NEW to create one.")
            continue
        password = await session.ask("Password: ", secret=True)
        account = await parlor.accounts.authenticate(word, password)
        if account is None:
            throttle.fail(*keys)
            exists = await parlor.accounts.get(word)
            session.write("Wrong password." if exists else
                          f"There is no account named {word}. Type NEW to create one.")
            continue
        if account.banned:
            session.close("This account is banned from Esterport.")
            raise Disconnect("banned")
        throttle.succeed(*keys)
        return account


async def create_account(session: Session) -> "Account | None":
    parlor = session.parlor
    session.write("Creating a new account. (Just press enter to go back.)")
    while True:
        name = await session.ask("Choose a name: ")
        if not name:
            return None
        problem = check_name(name)
        if problem is None and await parlor.accounts.get(name) is not None:
            problem = f"The name {name} is taken."
        if problem:
            session.write(problem)
            continue
        break
    while True:
        password = await session.ask("Choose a password: ", secret=True)
        if not password:
            return None
        if len(password) < 4:
            session.write("Passwords are at least 4 characters.")
            continue
        again = await session.ask("Type it again: ", secret=True)
        if again != password:
            session.write("The two passwords differ; try again.")
            continue
        break
    try:
        account = await parlor.accounts.create(name, password)
    except AccountError as err:
        session.write(str(err))
        return None
    session.write(f"Welcome, {account.name}! You have {account.cubits} cubits. "
                  "Type HELP to see what you can do.")
    return account
