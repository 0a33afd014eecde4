"""Argument types: each parses (and names) one kind of value, in one place."""

from __future__ import annotations

from typing import TYPE_CHECKING

from commands.registry import CommandError, UsageError
from games.errors import quoted
from server.hosting import Seat
from server.services.correspondence import MAX_DAYS, MIN_DAYS
from server.services.live import GameError
from server.text import a

if TYPE_CHECKING:
    from commands.registry import Context
    from server.models import Account
    from server.session import Session


def me(ctx: "Context") -> Seat:
    """The player typing, as a game's seat."""
    return Seat(ctx.account.id, ctx.account.name)


async def guarded(coro):  # noqa: ANN001, ANN201
    """Await ``coro``; a refusal of the host's (``GameError``) is the command's error."""
    try:
        return await coro
    except GameError as err:
        raise CommandError(str(err)) from None


def words(rest: str, least: int = 0, most: int | None = None) -> list[str]:
    """Split arguments on spaces; a count outside [least, most] is a usage error."""
    parts = rest.split()
    if len(parts) < least or (most is not None and len(parts) > most):
        raise UsageError()
    return parts


def game_number(word: str) -> int:
    """``12`` or ``#12``."""
    text = word.lstrip("#")
    if not text.isdecimal() or len(text) > 9:
        raise CommandError(f"{word!r} is not a game number.")
    return int(text)


def whole_number(word: str, *, what: str = "number", least: int = 0,
                 most: int | None = None) -> int:
    digits = word[1:] if word.startswith("-") else word
    if not digits.isdecimal() or len(word) > 12:
        raise CommandError(f"{word!r} is not {a(what)}.")
    value = int(word)
    if value < least or (most is not None and value > most):
        bounds = f"{least} to {most}" if most is not None else f"at least {least}"
        raise CommandError(f"The {what} must be {bounds}.")
    return value


def days(words: list[str]) -> tuple[int | None, list[str]]:
    """``DAYS <n>`` among a challenge's option words (a correspondence game, ``n`` days
    a move, 1 to 14): ``(n, the other words)``; ``(None, words)`` without it."""
    lowered = [w.lower() for w in words]
    if "days" not in lowered:
        return None, list(words)
    at = lowered.index("days")
    if at + 1 >= len(words):
        raise CommandError("DAYS takes the days a move of a correspondence game: DAYS <n>, "
                           f"{MIN_DAYS} to {MAX_DAYS}.")
    n = whole_number(words[at + 1], what="number of days a move", least=MIN_DAYS,
                     most=MAX_DAYS)
    return n, [*words[:at], *words[at + 2:]]


async def online(ctx: "Context", name: str) -> "Session":
    """The connected session of the player called ``name`` (any case); a name no
    account has is refused as FINGER refuses it, not as a player who is away."""
    session = ctx.session_named(name)
    if session is None:
        acc = await account(ctx, name)  # "There is no player named …"
        raise CommandError(f"{acc.name} is not connected.")
    return session


async def account(ctx: "Context", name: str) -> "Account":
    """Any account, connected or not."""
    acc = await ctx.accounts.get(name)
    if acc is None or (acc.is_computer and name.lower() != "computer"):
        shown = name if len(name) <= 16 else quoted(name)  # a name has 16 letters at most
        raise CommandError(f"There is no player named {shown}.")
    return acc
