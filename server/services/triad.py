"""Triad on the parlor: card tables (the ``triad`` game kind, prefix ``TRIAD``).

The table itself, who sits where and when they come and go, is an engine like the
others: ``games/triad/table.py`` (its rules, notation, JSON, views and words). This
module adds what needs the parlor: the database, the cubit ledgers and the host.

A table is one hosted game
    ``TRIAD OPEN`` starts a game whose state is a ``table.Table``. Its players
    (``table.Player``) are the host's seats (``seats_of`` converts them). Players come
    and go through actions like any other, so every change is a durable, replayable
    move: ``SIT <position> <stack> <account> <level|-> <name>`` (applied by the service,
    with ``GameHost.act_for``, for ``TRIAD JOIN`` and ``TRIAD BOT``), ``LEAVE``, ``AWAY``
    and ``BACK`` (the host applies these two when a player disconnects and returns).

Cubits
    Sitting down moves the player's stack from their account to the table (a ledger
    row "triad buy-in", ref "game #N"); standing up, or the end of the table, moves
    the stack back (a row "triad cash-out"). Bets move cubits between stacks and pots
    inside the table's state, committed with the move. Every movement at the table is
    also a row of the table ledger (``table_ledger``), in the same transaction: the
    buy-ins and cash-outs, and each ante, bet and pot payout as two rows, the stack's
    and the pot's (``audit_tables`` checks that a table's rows sum to its stacks and
    pot, and mirror its account ledger rows). So at every commit: the sum of
    all account balances, table stacks and pots is constant, except that a computer
    player's stack is funded, when it sits down, by a row "triad house bankroll" on the
    computer's account (then its "triad buy-in"), and goes back to that account when it
    stands up: the house keeps what the computer wins and pays what it loses.

Hands
    ``TRIAD START`` deals the first hand; after each hand the next one is dealt by the
    first player to type ``TRIAD DEAL`` (or START), or by the server after
    ``NEXT_HAND_S`` seconds (never longer than the action clock). A player who joins
    during a hand sits out until the next one.

Clocks, disconnects, leaving (docs/rules/triad.md, "Timeouts and disconnects")
    The player to act has ``[games.triad] action_timeout`` seconds (default 60); then
    the engine's default action is applied (pass if they can, else fold; in the draw,
    keep every card). A player who disconnects is marked away (``AWAY``): at their
    turns the default action is applied at once, and they stand up (their stack back
    to their account) when they are out of the hand, or when it ends. Coming back in
    time (``BACK``, automatic on reconnecting) keeps the seat. ``TRIAD LEAVE`` during
    a hand in which one is still in works the same way. After a restart, players get
    the reconnect grace to come back before they count as away.

Computer players
    ``TRIAD BOT`` seats computer players (``games.triad.ai``) with the table's buy-in;
    they move through the host's computer turns (``asyncio.to_thread``), within the
    host's time budget. A computer player that can no longer pay the opening bet
    leaves. The evaluator's table is built once, in a worker thread, when the first
    computer player sits down (or lazily, in the computer's thread).

The table ends, between hands, when no human player is seated, or once started when
fewer than two seats (or no human) can pay the opening bet (``table.outcome``); every
stack goes back (``table.close``, moved to the accounts by ``on_finish``).
"""

from __future__ import annotations

import asyncio
import math
import time
from typing import TYPE_CHECKING, Any

import attrs
import sqlalchemy as sa

from games.errors import BadNotation, IllegalAction
from games.triad import rules
from games.triad.spec import SPEC
from games.triad.table import (BUYIN, CASHOUT, DEFAULT_OPENING, DEFAULT_SEATS, LEVELS,
                               NEXT_HAND_S, Away, Back, Cubits, Leave, Player, PotMove, Said,
                               Sit, Table, apply, choose_action, close, describe_event,
                               describe_options, format_action, hand_text, is_warm, new_table,
                               next_dealer, outcome, parse_action, parse_options, presence,
                               render_table, state_from_json, state_to_json, table_options,
                               table_timeout, to_move, view_for, warm)
from server.hosting import ActionContext, FinishContext, GameKind, Seat, StartContext
from server.models import GameRecord, LedgerEntry
from server.services import ledger
from server.services.games import GameError, LiveGame
from server.services.triad_sitgo import SitAndGo
from server.services.triad_models import TableLedgerEntry
from server.text import counted

if TYPE_CHECKING:
    from server.services.accounts import Accounts

KEY = SPEC.key
BANKROLL = "triad house bankroll"
WARN_BEFORE_S = 15.0  # the player to act is warned this long before their time is up


# -- players and seats: the engine's Player is the host's Seat ------------------------------------
def player_of(seat: Seat) -> Player:
    return Player(seat.account_id, seat.name, seat.computer, seat.left)


def seats_of(table: Table) -> tuple[Seat, ...]:
    """The host's seats: everyone who has sat at the table, in the order they came."""
    return tuple(Seat(p.account_id, p.name, p.computer, p.left) for p in table.seats)


# -- the table ledger ------------------------------------------------------------------------------
TABLE_REASONS = {BUYIN: "buy-in", CASHOUT: "cash-out"}


def _record_pot_move(tx, game_id: int, move: PotMove) -> None:  # noqa: ANN001
    """Two rows that cancel out: the stack's change and the pot's."""
    now = time.time()
    tx.add_all([
        TableLedgerEntry(game_id=game_id, seat=move.position, account_id=move.account_id,
                         delta=move.delta, reason=move.reason, created_at=now),
        TableLedgerEntry(game_id=game_id, seat=None, account_id=move.account_id,
                         delta=-move.delta, reason=move.reason, created_at=now),
    ])


async def audit_tables(tx, states: dict[int, Table] | None = None) -> list[tuple]:  # noqa: ANN001
    """Triad tables whose table ledger does not add up: (game, what, ledger, expected).

    For each table, the rows of each position must sum to its stack and the pot's rows
    to the pot, in ``states`` (game id -> table) or else as stored; a finished table's
    to nothing (every stack went back). And the table's rows must mirror the table's
    buy-in and cash-out rows in the account ledger (ref "game #N").
    """
    await tx.flush()
    sums: dict[int, dict[int | None, int]] = {}
    for game_id, seat, total in await tx.execute(
            sa.select(TableLedgerEntry.game_id, TableLedgerEntry.seat,
                      sa.func.sum(TableLedgerEntry.delta))
            .group_by(TableLedgerEntry.game_id, TableLedgerEntry.seat)):
        sums.setdefault(game_id, {})[seat] = int(total)
    accounts = {ref: int(total) for ref, total in await tx.execute(
        sa.select(LedgerEntry.ref, sa.func.sum(LedgerEntry.delta))
        .where(LedgerEntry.reason.in_((BUYIN, CASHOUT)), LedgerEntry.ref.like("game #%"))
        .group_by(LedgerEntry.ref))}
    bad: list[tuple] = []
    records = await tx.execute(sa.select(GameRecord.id, GameRecord.status, GameRecord.state)
                               .where(GameRecord.kind == KEY).order_by(GameRecord.id))
    for game_id, status, stored in records:
        rows = sums.pop(game_id, {})
        expected: dict[int | None, int] = {}
        if status != "finished" and (stored or game_id in (states or {})):
            table = (states or {}).get(game_id) or state_from_json(stored)
            expected = {pos: s.stack or 0 for pos, s in enumerate(table.game.seats)}
            expected[None] = table.game.pot
        for where in sorted(set(rows) | set(expected), key=lambda w: -1 if w is None else w):
            if rows.get(where, 0) != expected.get(where, 0):
                what = "pot" if where is None else f"seat {where + 1}"
                bad.append((game_id, what, rows.get(where, 0), expected.get(where, 0)))
        on_table, paid_in = sum(rows.values()), -accounts.get(f"game #{game_id}", 0)
        if on_table != paid_in:
            bad.append((game_id, "account ledger", on_table, paid_in))
    bad.extend((game_id, "not a Triad table", sum(rows.values()), 0)
               for game_id, rows in sums.items())
    return bad


# -- the kind, and the service: tables for the commands ------------------------------------------
@attrs.frozen
class Settings:
    """``[games.triad]`` in ``config.toml`` (``action_timeout`` is also read as ``[games]
    triad_action_timeout``, where it was first written)."""

    action_timeout: float = float(rules.DEFAULT_ACTION_TIMEOUT_S)  # seconds to act, then
    # the default action (pass if one can, else fold; in the draw, keep every card)


class TriadTables(GameKind):
    """The ``triad`` kind (a table is one hosted game) and the service that opens tables,
    seats players and computer players, and moves their cubits."""

    spec = SPEC
    Settings = Settings
    old_settings = {"triad_action_timeout": "action_timeout"}

    def __init__(self, action_timeout: float = Settings().action_timeout) -> None:
        self.action_timeout = float(action_timeout)  # ``[games.triad] action_timeout``
        self._seating = asyncio.Lock()  # one seat change at a time: one table per player
        self._warned: dict[int, int] = {}  # table -> the version whose clock warns already
        self._warming: asyncio.Future | None = None
        self._sitgo = SitAndGo(self)

    def tournament_systems(self) -> dict[str, Any]:
        """The sit-and-go (``server/services/triad_sitgo.py``)."""
        return {"sitgo": self._sitgo}

    def seats_of(self, state: Table, seats: tuple[Seat, ...]) -> tuple[Seat, ...]:
        return seats_of(state)

    @property
    def accounts(self) -> "Accounts":
        return self.hosted.accounts

    # -- hooks, inside the host's transaction ---------------------------------------------------
    async def on_start(self, ctx: StartContext) -> Table:
        table = new_table(ctx.options, player_of(ctx.seats[0]))
        opener = ctx.seats[0]
        await self._move(ctx.tx, ctx.game_id, Cubits(opener.account_id, False, -table.buyin,
                                                     BUYIN, "", 0))
        return table

    async def on_action(self, ctx: ActionContext) -> None:
        for event in ctx.events:
            if isinstance(event, Cubits):
                await self._move(ctx.tx, ctx.game_id, event)
            elif isinstance(event, PotMove):
                _record_pot_move(ctx.tx, ctx.game_id, event)

    async def on_finish(self, ctx: FinishContext) -> list[str]:
        lines = []
        for cashout in close(ctx.state):
            await self._move(ctx.tx, ctx.game_id, cashout)
            lines.append(cashout.text)
        return lines

    async def _move(self, tx, game_id: int, event: Cubits) -> None:  # noqa: ANN001
        ref = f"game #{game_id}"
        if event.computer and event.delta < 0:
            await ledger.move(tx, event.account_id, -event.delta, BANKROLL, ref)
        try:
            await ledger.move(tx, event.account_id, event.delta, event.reason, ref)
        except ledger.InsufficientCubits as err:
            raise IllegalAction(f"You have {err.balance} cubits; you can't bring "
                                f"{err.needed} to the table.") from None
        if event.delta:
            tx.add(TableLedgerEntry(game_id=game_id, seat=event.position,
                                    account_id=event.account_id, delta=-event.delta,
                                    reason=TABLE_REASONS[event.reason], created_at=time.time()))

    def arm_clock(self, table: Table) -> tuple | None:
        """The table's clock (``table_timeout``); the player whose turn it is is also
        warned once before time is up (``_warn_later``)."""
        clock = table_timeout(table, self.action_timeout)
        if clock is not None and clock[3] is None and clock[0] > 0:
            self._warn_later(table, *clock[:3])
        return clock

    def clock(self, table: Table) -> tuple | None:
        """The table's clock as the board shows it (no warning armed)."""
        return table_timeout(table, self.action_timeout)

    def _warn_later(self, table: Table, seconds: float, seat: int, action: Any) -> None:
        """Arm the warning of the clock the host is arming now: ``WARN_BEFORE_S`` before
        time is up (half the clock when it is shorter), once per table version."""
        parlor = self.parlor
        game = next((g for g in parlor.games(KEY) if g.state is table), None) if parlor else None
        if game is None or self._warned.get(game.id) == game.version:
            return
        self._warned[game.id] = game.version
        lead = min(WARN_BEFORE_S, seconds / 2)
        parlor.spawn(self._warn(game, game.version, seat, action, seconds - lead, lead))

    async def _warn(self, game: LiveGame, version: int, seat: int, action: Any, wait: float,
                    left: float) -> None:
        await asyncio.sleep(wait)
        if self.hosted.game(game.id) is None:
            self._warned.pop(game.id, None)
            return
        player = game.seats[seat] if seat < len(game.seats) else None
        if game.version != version or player is None or player.computer is not None:
            return  # the player acted (that change armed its own clock), or no person
        text = format_action(action)
        then = {"PASS": "you pass", "FOLD": "you fold",
                "DRAW": "you keep your cards"}.get(text.split()[0], f"you {text.lower()}")
        self.hosted.tell(player.account_id,
                         f"Hurry: {counted(math.ceil(left), 'second')} left to act at Triad "
                         f"table #{game.id}, then {then}.")

    # -- what the commands ask ---------------------------------------------------------------
    def tables(self) -> list[LiveGame]:
        return self.hosted.games(KEY)

    def table(self, number: int) -> LiveGame:
        game = self.hosted.game(number)
        if game is None or game.kind.key != KEY:
            raise GameError(f"There is no Triad table #{number} (TRIAD TABLES lists them).")
        return game

    def my_table(self, account_id: int) -> LiveGame:
        game = self.hosted.game_of(account_id, KEY)
        if game is None:
            raise GameError("You are not at a Triad table: TRIAD TABLES lists them, TRIAD "
                            "JOIN <table> sits you at one, TRIAD OPEN opens one.")
        return game

    @staticmethod
    def _open_to_all(game: LiveGame, director: bool = False) -> None:
        tournament = game.options.get("tournament")
        if tournament is not None and not director:
            raise GameError(f"Table #{game.id} is tournament {tournament}'s: its director "
                            "seats its entrants, and nobody else sits there.")

    def _not_seated(self, account_id: int) -> None:
        game = self.hosted.game_of(account_id, KEY)
        if game is not None:
            raise GameError(f"You are already at Triad table #{game.id} (TRIAD LEAVE first).")

    async def _balance(self, account_id: int) -> int:
        account = await self.accounts.get_by_id(account_id)
        return account.cubits if account is not None else 0

    async def open(self, account_id: int, name: str, options: dict[str, Any]) -> LiveGame:
        """A new table with the opener in seat 1, bringing the buy-in."""
        async with self._seating:
            self._not_seated(account_id)
            balance = await self._balance(account_id)
            if balance < options["buyin"]:
                raise GameError(f"The buy-in is {options['buyin']} cubits and you have "
                                f"{balance}. (TRIAD OPEN ... BUYIN <n> sets a smaller one.)")
            return await self.hosted.start_game(KEY, (Seat(account_id, name),), options)

    async def join(self, account_id: int, name: str, number: int,
                   stack: int | None = None, director: bool = False) -> LiveGame:
        """Sit down at table ``number`` with ``stack`` cubits (default: the table's buy-in,
        or all you have if that is less, but at least the opening bet). A sit-and-go's
        table is sat at only by its director (``director``)."""
        async with self._seating:
            self._not_seated(account_id)
            game = self.table(number)
            self._open_to_all(game, director)
            table: Table = game.state
            opening = table.game.opening
            balance = await self._balance(account_id)
            if stack is None:
                if balance < opening:
                    raise GameError(f"You need at least the opening bet, {opening} cubits, "
                                    f"to sit down; you have {balance}.")
                stack = min(table.buyin, balance)
            elif stack > balance:  # too few (below the opening bet) is the table's to refuse
                raise GameError(f"You have {balance} cubits; you can't bring {stack}.")
            pos = table.free_position()
            if pos is None:
                raise GameError(f"Table #{number} has no free seat.")
            seat = next((i for i, s in enumerate(table.seats)
                         if s.left and s.computer is None and s.account_id == account_id),
                        len(table.seats))
            return await self.hosted.act_for(game.id, seat, Sit(pos, stack, account_id, name))

    async def add_bots(self, account_id: int, count: int, level: str) -> LiveGame:
        """Seat ``count`` computer players at the caller's table, each with the buy-in
        (funded by the house)."""
        async with self._seating:
            game = self.my_table(account_id)
            self._open_to_all(game)
            computer = await self.accounts.computer()
            self.warm_soon()
            for _ in range(count):
                table: Table = game.state
                pos = table.free_position()
                if pos is None:
                    raise GameError(f"Table #{game.id} has no free seat.")
                taken = {s.name for s in table.seats if not s.left}
                name = next(f"Computer {n}" for n in range(1, 99) if f"Computer {n}" not in taken)
                await self.hosted.act_for(game.id, len(table.seats),
                                         Sit(pos, table.buyin, computer.id, name, level))
                if self.hosted.game(game.id) is None:
                    break
            return game

    def warm_soon(self) -> None:
        """Build the evaluator's table in a worker thread, once."""
        if self._warming is None and not is_warm():
            self._warming = asyncio.ensure_future(asyncio.to_thread(warm))


__all__ = [
    # this module's own
    "BANKROLL", "KEY", "TriadTables", "audit_tables", "player_of", "seats_of",
    # the engine's (games/triad/table.py), as the kind and the commands use them
    "BUYIN", "CASHOUT", "DEFAULT_OPENING", "DEFAULT_SEATS", "LEVELS", "NEXT_HAND_S", "Away",
    "Back", "BadNotation", "Cubits", "IllegalAction", "Leave", "Player", "PotMove", "Said",
    "Sit", "Table", "apply", "choose_action", "close", "describe_event", "describe_options",
    "format_action", "hand_text", "is_warm", "new_table", "next_dealer", "outcome",
    "parse_action", "parse_options", "presence", "render_table", "state_from_json",
    "state_to_json", "table_options", "table_timeout", "to_move", "view_for", "warm",
]
