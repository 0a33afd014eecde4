"""Challenges, rematches and games against the computer: how games are offered and
started (FICS-like: challenge, accept, decline, withdraw, a list of pending offers).
Offers live in memory and lapse when either side leaves."""

from __future__ import annotations

import itertools
import time
from typing import Any, Awaitable, Callable

import attrs

from server.hosting import GameKind, Seat
from server.models import GameRecord
from server.services.accounts import Accounts
from server.services.live import GameError, LiveGame, LiveGames
from server.services.records import Records

Start = Callable[[GameKind, tuple[Seat, ...], dict[str, Any]], Awaitable[LiveGame]]


@attrs.define(eq=False)
class Offer:
    id: int
    kind: GameKind
    challenger: Seat
    target: Seat
    options: dict[str, Any]
    created: float = attrs.field(factory=time.time)
    # A rematch: the game it replays, and whether the target takes seat 0 (the sides
    # swapped: the challenger had it last time).
    rematch_of: int | None = None
    swapped: bool = False

    def describe(self) -> str:
        """"Triad Dice (ranked)"; a correspondence game's days too: "Triad Dice
        (unranked, 3 days a move)"."""
        opts = self.kind.spec.describe_options({k: v for k, v in self.options.items()
                                           if k != "days"})
        days = self.options.get("days")
        if days:
            opts = ", ".join(filter(None, [opts, f"{days} day{'' if days == 1 else 's'} "
                                                 "a move"]))
        return f"{self.kind.title}{' (' + opts + ')' if opts else ''}"


class Offers:
    """The offers pending, by number. ``start`` starts an accepted game (the host's:
    stored, told, and its first turns scheduled); ``tell`` sends a player a notice."""

    def __init__(self, kinds: dict[str, GameKind], games: LiveGames, records: Records,
                 accounts: Accounts, is_online: Callable[[int], bool], start: Start,
                 tell: Callable[..., None]) -> None:
        self.kinds = kinds
        self.games = games
        self.records = records
        self.accounts = accounts
        self.is_online = is_online
        self.start = start
        self.tell = tell
        self.by_id: dict[int, Offer] = {}  # the offers pending, by number
        self._ids = itertools.count(1)
        # asked before a challenge is offered, after the game's own check: a refusal, or
        # None (a player's formula: server/services/seeks.py)
        self.screens: list[Callable[[GameKind, Seat, Seat, dict[str, Any]],
                                    Awaitable[str | None]]] = []
        # told of a challenge to a player who is away (their id, a line for them)
        self.missed: list[Callable[[int, str], None]] = []
        # told when an offer is made (True) and when it goes, whatever the reason (False)
        self.listeners: list[Callable[[Offer, bool], None]] = []

    def _put(self, offer: Offer) -> None:
        self.by_id[offer.id] = offer
        for listener in self.listeners:
            listener(offer, True)

    def _drop(self, offer: Offer) -> None:
        del self.by_id[offer.id]
        for listener in self.listeners:
            listener(offer, False)

    async def offer(self, kind_key: str, challenger: Seat, target_name: str,
                    options: dict[str, Any], *, rematch_of: int | None = None,
                    swapped: bool = False) -> Offer:
        """Offer a game; ``swapped``: the target would take seat 0 (a rematch)."""
        kind = self.kinds[kind_key]
        target = await self.accounts.get(target_name)
        if target is None or target.is_computer:
            raise GameError(f"There is no player named {target_name}.")
        if target.id == challenger.account_id:
            raise GameError("You cannot challenge yourself.")
        if not self.is_online(target.id):
            if self.missed and not await self.accounts.is_ignoring(target.id,
                                                                  challenger.account_id):
                for missed in self.missed:  # told at their next login
                    missed(target.id, f"{challenger.name} wanted to challenge you to "
                                      f"{kind.title}.")
            raise GameError(f"{target.name} is not connected; challenges are offered to "
                            "players who are online.")
        if await self.accounts.is_ignoring(target.id, challenger.account_id):
            raise GameError(f"{target.name} is not accepting challenges from you.")
        if self.games.realtime_of(challenger.account_id, kind_key):
            raise GameError(f"You are already playing {kind.title}.")
        if self.games.realtime_of(target.id, kind_key):
            raise GameError(f"{target.name} is already playing {kind.title}.")
        target_seat = Seat(target.id, target.name)
        if not swapped:  # swapped: checked on ACCEPT
            problem = await kind.check_offer(challenger, target_seat, options)
            if problem:
                raise GameError(problem)
        for screen in self.screens:
            problem = await screen(kind, challenger, target_seat, options)
            if problem:
                raise GameError(problem)
        for old in list(self.by_id.values()):
            if (old.kind is kind and old.challenger.account_id == challenger.account_id
                    and old.target.account_id == target.id):
                self._drop(old)
        offer = Offer(next(self._ids), kind, challenger, target_seat, options,
                      rematch_of=rematch_of, swapped=swapped)
        self._put(offer)
        again = f", a rematch of game #{rematch_of}" if rematch_of is not None else ""
        self.tell(target.id, f"{challenger.name} challenges you to {offer.describe()}{again}. "
                                f"Type {kind.prefix} ACCEPT {challenger.name} or "
                                f"{kind.prefix} DECLINE {challenger.name}.", event_type="challenge")
        return offer

    def has_offer(self, kind_key: str | None, challenger: str, target: str) -> bool:
        """Whether ``challenger`` has an offer here to ``target`` (of ``kind_key``)."""
        return self._find_offer(kind_key, challenger, target) is not None

    def _find_offer(self, kind_key: str | None, challenger: str, target: str) -> Offer | None:
        for offer in self.by_id.values():
            if ((kind_key is None or offer.kind.key == kind_key)
                    and offer.challenger.name.lower() == challenger.lower()
                    and offer.target.name.lower() == target.lower()):
                return offer
        return None

    async def accept(self, kind_key: str | None, acceptor: Seat, challenger_name: str) -> LiveGame:
        offer = self._find_offer(kind_key, challenger_name, acceptor.name)
        if offer is None:
            raise GameError(f"There is no offer from {challenger_name} to you.")
        self._drop(offer)  # before any await: two ACCEPTs cannot both find it
        if not self.is_online(offer.challenger.account_id):
            raise GameError(f"{offer.challenger.name} is no longer connected.")
        if self.games.realtime_of(acceptor.account_id, offer.kind.key):
            raise GameError(f"You are already playing {offer.kind.title}.")
        if self.games.realtime_of(offer.challenger.account_id, offer.kind.key):
            raise GameError(f"{offer.challenger.name} is already playing {offer.kind.title}.")
        seats = (offer.challenger, acceptor)
        if offer.swapped:
            seats = (acceptor, offer.challenger)
            # seat 0 first, as it always gets it
            problem = await offer.kind.check_offer(acceptor, offer.challenger, offer.options)
            if problem:
                raise GameError(problem)
        return await self.start(offer.kind, seats, offer.options)

    def decline(self, kind_key: str | None, target: Seat, challenger_name: str) -> Offer:
        offer = self._find_offer(kind_key, challenger_name, target.name)
        if offer is None:
            raise GameError(f"There is no offer from {challenger_name} to you.")
        self._drop(offer)
        self.tell(offer.challenger.account_id,
                     f"{target.name} declines your offer of {offer.describe()}.")
        return offer

    def withdraw(self, kind_key: str | None, challenger: Seat, target_name: str | None) -> list[Offer]:
        gone = [o for o in self.by_id.values()
                if o.challenger.account_id == challenger.account_id
                and (kind_key is None or o.kind.key == kind_key)
                and (target_name is None or o.target.name.lower() == target_name.lower())]
        if not gone:
            who = f" to {target_name}" if target_name else ""
            raise GameError(f"You have no offer{who} to withdraw.")
        for offer in gone:
            self._drop(offer)
            self.tell(offer.target.account_id,
                         f"{challenger.name} withdraws the offer of {offer.describe()}.")
        return gone

    def pending(self, account_id: int) -> tuple[list[Offer], list[Offer]]:
        """(offers to this account, offers from it), oldest first."""
        to_me = [o for o in self.by_id.values() if o.target.account_id == account_id]
        from_me = [o for o in self.by_id.values() if o.challenger.account_id == account_id]
        return to_me, from_me

    @staticmethod
    def takes_rematches(kind: GameKind) -> bool:
        """A game of two fixed seats (``GameKind.fixed_pair``)."""
        return kind.fixed_pair()

    async def rematch(self, kind_key: str, me: Seat, opponent: str | None = None
                      ) -> tuple[GameRecord, Offer | LiveGame]:
        """Play ``me``'s last finished game of ``kind_key`` (with ``opponent``) again:
        the same options, the seats swapped (who had seat 0, the first player where the
        game has one, has seat 1). A person gets the usual offer (and every CHALLENGE
        check); the computer, at the same level, starts at once.

        A first player the game drew at random (a ``starter`` seat in its initial state,
        as Triad Dice draws one) is fixed by the option ``starter`` so that it alternates.
        """
        kind = self.kinds[kind_key]
        if not self.takes_rematches(kind):
            raise GameError(f"{kind.title} has no rematches.")
        record = await self.records.last_finished(me.account_id, kind_key, opponent)
        if record is None:
            who = f" with {opponent}" if opponent else ""
            raise GameError(f"You have no finished game of {kind.title}{who} to play again.")
        mine = next(i for i, s in enumerate(record.seats)
                    if s["id"] == me.account_id and not s.get("computer"))
        other = Seat.from_json(record.seats[1 - mine])
        options = dict(record.options)
        starter = (record.initial_state or {}).get("starter")
        if starter in (0, 1) and not isinstance(starter, bool):
            options["starter"] = starter  # the same seat number: the other player, swapped
        if other.computer is None:
            offer = await self.offer(kind_key, me, other.name, options,
                                     rematch_of=record.id, swapped=mine == 0)
            return record, offer
        return record, await self.play_computer(kind_key, me, other.computer, options,
                                                computer_first=mine == 0)

    async def play_computer(self, kind_key: str, me: Seat, level: str, options: dict[str, Any],
                            *, computer_first: bool = False) -> LiveGame:
        """Start ``me``'s game against the computer at ``level`` at once (unranked)."""
        kind = self.kinds[kind_key]
        if self.games.realtime_of(me.account_id, kind_key):
            raise GameError(f"You are already playing {kind.title}.")
        options = {k: v for k, v in options.items() if k != "ranked"}
        computer = await self.accounts.computer()
        bot = Seat(computer.id, f"Computer({level})", level)
        return await self.start(kind, (bot, me) if computer_first else (me, bot), options)

    def lapse(self, account_id: int, name: str) -> None:
        """``account_id`` has left: every offer to or from them lapses, and the other
        side is told."""
        for offer in list(self.by_id.values()):
            if account_id in (offer.challenger.account_id, offer.target.account_id):
                self._drop(offer)
                other = (offer.target if offer.challenger.account_id == account_id
                         else offer.challenger)
                self.tell(other.account_id, f"The offer of {offer.describe()} between "
                          f"{offer.challenger.name} and {offer.target.name} lapses: "
                          f"{name} has left.")
