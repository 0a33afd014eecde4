"""The game host: every game in play, for every game alike, assembled from parts that
point one way (``live`` <- ``play`` <- ``turns`` <- ``presence``; ``records`` <- ``offers``):

=====================  =====================================================
``services/live.py``   games in play and who plays which; ``LiveGame``, ``Told``
``services/play.py``   apply, commit, then publish (nothing told before it is stored)
``services/turns.py``  computer turns and clocks, after every change
``services/presence.py``  players who drop, come back, or are claimed against
``services/offers.py`` challenges, rematches, games against the computer
``services/records.py`` stored games: replays, history, the last game two finished
=====================  =====================================================

:class:`GameHost` holds the kinds it hosts and the parts, restores games at start-up, and
is what the commands and the games' services call: each of its methods is one part's,
with the next turns scheduled after a change. Everything here raises ``GameError`` (a
message for the player) or ``RuleError`` from the engine on purpose; anything else is a
bug.
"""

from __future__ import annotations

import logging
from typing import Any, Awaitable, Callable, Coroutine

import sqlalchemy as sa

from games.errors import RuleError
from games.outcome import Outcome
from server.bus import Bus
from server.changes import Changes
from server.db import Database
from server.frames import Frame
from server.hosting import GameKind, Seat
from server.models import GameMove, GameRecord
from server.services.accounts import Accounts
from server.services.adjourn import Adjournments
from server.services.correspondence import Correspondence
from server.services.live import GameError, LiveGame, LiveGames, Told
from server.services.notify import Notify
from server.services.offers import Offer, Offers
from server.services.play import Play
from server.services.presence import Presence
from server.services.ratings import Ratings
from server.services.records import Records, seated_again
from server.services.seeks import Formulas, Seeks
from server.services.tournaments import Tournaments
from server.services.turns import Turns

log = logging.getLogger(__name__)


class HostParlor:
    """The :class:`~server.hosting.ParlorAccess` every hosted kind is given: made of the host's
    parts (not the host), so a game's service can start games, act on a player's behalf,
    tell a player something and run a helper, and reach nothing else."""

    def __init__(self, db: Database, accounts: Accounts, games: LiveGames, play: Play,
                 turns: Turns, is_online: Callable[[int], bool], computer_delay: float) -> None:
        self.db = db
        self.accounts = accounts
        self.computer_delay = computer_delay
        self.is_online = is_online
        self._games = games
        self._play = play
        self._turns = turns

    def game(self, game_id: int) -> LiveGame | None:
        return self._games.live.get(game_id)

    def game_of(self, account_id: int, kind_key: str) -> LiveGame | None:
        return self._games.game_of(account_id, kind_key)

    def games(self, kind_key: str) -> list[LiveGame]:
        return sorted((g for g in self._games.live.values() if g.kind.key == kind_key),
                      key=lambda g: g.id)

    async def start_game(self, kind_key: str, seats: tuple[Seat, ...],
                         options: dict[str, Any]) -> LiveGame:
        game = await self._play.start(self._games.kinds[kind_key], seats, options)
        self._turns.schedule(game)
        return game

    async def act_for(self, game_id: int, seat: int, action: Any, note: str | None = None,
                      auto: bool = False) -> LiveGame:
        game = self._games.get(game_id)
        async with game.lock:
            await self._play.apply(game, seat, action, note=note, auto=auto)
        self._turns.schedule(game)
        return game

    def tell(self, account_id: int, text: str) -> None:
        self._play.tell(account_id, text)

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> Any:
        return self._turns.spawn(coro)


class OtherNodes:
    """What the other nodes of a cluster hold that a player here may ask about: their
    games in play (GAMES, the web's lists and boards) and the offers made there to players
    here (PENDING, ACCEPT). A lone server has no other node: this is it, holding nothing;
    ``server/cluster/`` is the cluster's."""

    async def frames(self, kind_key: str | None) -> list[Frame]:
        """The watchers' frames (no view) of the games the other nodes drive, each with
        ``watchers``: how many watch it there."""
        return []

    async def frame(self, game_id: int) -> Frame | None:
        """Game ``game_id``'s watchers' frame, when another node drives it.

        :raises GameUnreachable: another node drives it but does not answer now."""
        return None

    def offers_to(self, account_id: int) -> list[Offer]:
        """The offers made on other nodes to ``account_id``."""
        return []


class GameHost:
    def __init__(self, db: Database, bus: Bus, accounts: Accounts, *,
                 is_online: Callable[[int], bool], reconnect_grace: float,
                 computer_delay: float = 0.3, computer_budget: float = 1.0,
                 changes: Changes | None = None) -> None:
        self.db = db
        self.bus = bus
        self.accounts = accounts
        self.is_online = is_online
        self.reconnect_grace = reconnect_grace
        self.computer_delay = computer_delay
        self.kinds: dict[str, GameKind] = {}
        self.other_nodes = OtherNodes()  # the other nodes of a cluster (server/cluster/)
        self._names: dict[str, GameKind] = {}  # key, prefix and title, lower case
        self.games = LiveGames(self.kinds, changes)
        self.live = self.games.live
        self.play = Play(db, bus, self.games)
        self.turns = Turns(self.play, self.games, computer_budget)
        self.presence = Presence(self.play, self.turns, self.games, reconnect_grace)
        self.records = Records(db, self.kinds)
        self.parlor = HostParlor(db, accounts, self.games, self.play, self.turns, is_online,
                                 computer_delay)
        self.offers = Offers(self.kinds, self.games, self.records, accounts, is_online,
                             self._start, self.play.tell)
        self.formulas = Formulas(accounts, Ratings(db))  # SET FORMULA, asked by offers and seeks
        self.seeks = Seeks(bus, self.kinds, self.games, self.formulas, self._start,
                           self.play.tell, self.offers)
        self.notify = Notify(db, self.games, is_online, self.play.tell, self.spawn)
        # correspondence games: their challenges, clocks and notices (its ``day`` is
        # ``[games] correspondence_day``, set where the parlor is assembled)
        self.correspondence = Correspondence(db, bus, self.kinds, self.games, accounts,
                                             self.play, self.turns, is_online, self._start,
                                             self.notify.keep)
        self.tournaments = Tournaments(db, bus, self.kinds, self.games, self.formulas,
                                       self._start, is_online, self.play.tell,
                                       self.notify.tell_or_keep, self.spawn)
        # games put aside by both players until they resume them (ADJOURN, RESUME)
        self.adjournments = Adjournments(db, self.games, self.play, self.turns, is_online,
                                         lambda number: number in self.tournaments.by_game)
        # told when a player logs in (account id, name), and when one leaves: notify
        # lists, news kept while they were away (``commands/app.py`` adds them)
        self.arrivals: list[Callable[[int, str], None]] = []
        self.departures: list[Callable[[int, str], None]] = []

    # -- registration and start-up -----------------------------------------------------
    def register(self, kind: GameKind) -> None:
        """Host ``kind`` (a fresh instance: a kind is hosted once, and is then its game's
        service, ``host.kind(key)``)."""
        if not (kind.key and kind.title and kind.prefix):
            raise TypeError(f"game kind {type(kind).__name__}: key, title and prefix are needed")
        if kind.key in self.kinds:
            raise ValueError(f"game kind {kind.key} registered twice")
        if kind.parlor is not None:
            raise ValueError(f"game kind {kind.key} is hosted already (make a new one)")
        kind.parlor = self.parlor
        self.kinds[kind.key] = kind
        for name in (kind.key, kind.prefix, kind.title):
            self._names.setdefault(name.lower(), kind)

    def kind(self, key: str) -> GameKind:
        return self.kinds[key]

    def kind_named(self, name: str) -> GameKind | None:
        """The game ``name`` names exactly, whatever its case: its key, command prefix or
        title ("dice", "PYR", "Triad Dice"); None for no game."""
        return self._names.get(name.lower())

    async def restore(self, take: Callable[[int, str], Awaitable[bool]] | None = None,
                      only: int | None = None) -> int:
        """Load the unfinished games from the database (game ``only``, or every one) and
        drive them here; return how many. ``take(number, node)``: whether this node takes
        that game, stored as driven by ``node`` (a cluster's node takes the games no live
        node drives)."""
        query = sa.select(GameRecord).where(GameRecord.status == "active")
        if only is not None:
            query = query.where(GameRecord.id == only)
        async with self.db.session() as tx:
            records = list(await tx.scalars(query.order_by(GameRecord.id)))
        taken = []
        for record in records:
            if record.kind not in self.kinds:
                log.warning("game #%d: kind %r is not loaded; left as it is", record.id, record.kind)
                continue
            if record.id in self.live or (take is not None
                                          and not await take(record.id, record.node)):
                continue
            taken.append(record)
        epochs = await self._adopt(taken)
        count = 0
        for record in taken:
            kind = self.kinds[record.kind]
            epoch = epochs.get(record.id)
            if epoch is None:
                log.info("game #%d was adopted elsewhere first; left to that node", record.id)
                continue
            game = LiveGame(
                id=record.id, kind=kind, seats=tuple(Seat.from_json(s) for s in record.seats),
                options=record.options, ranked=record.ranked, seed=record.seed,
                state=kind.spec.state_from_json(record.state), version=record.version, epoch=epoch,
            )
            if game.days is not None:  # its clock runs from its last move, as stored
                game.since = record.updated_at
            self.presence.restored(game, self.is_online)
            self.games.add(game)
            self.turns.schedule(game)
            count += 1
        if only is None or count:
            await self.tournaments.restore(only)  # their games, found again
        return count

    async def _adopt(self, records: list[GameRecord]) -> dict[int, int]:
        """Make this node the one that drives each stored game of ``records``: its epoch
        rises by one, unless another node adopted or played it since it was read (then it
        is left out). Every write of a game is made under the epoch its writer holds
        (``Play.apply``), so whoever held it before can store nothing more of it. One
        transaction for them all (a restart's gap waits for it): game -> its new epoch."""
        adopted: dict[int, int] = {}
        if not records:
            return adopted
        async with self.db.session() as tx:
            for record in records:
                result = await tx.execute(
                    sa.update(GameRecord)
                    .where(GameRecord.id == record.id, GameRecord.epoch == record.epoch,
                           GameRecord.version == record.version, GameRecord.status == "active")
                    .values(epoch=record.epoch + 1, node=self.games.node))
                if result.rowcount == 1:
                    adopted[record.id] = record.epoch + 1
            await seated_again(tx, [r for r in records if r.id in adopted])
            await tx.commit()
        return adopted

    async def epochs(self, numbers: list[int]) -> dict[int, int]:
        """The stored epoch of each game of ``numbers`` still in play (the others are
        left out)."""
        async with self.db.session() as tx:
            rows = await tx.execute(sa.select(GameRecord.id, GameRecord.epoch).where(
                GameRecord.id.in_(numbers), GameRecord.status == "active"))
            return {number: epoch for number, epoch in rows}

    async def drivers(self, before: float) -> dict[int, str]:
        """Every game in play in the store last changed before ``before`` (epoch
        seconds), with the node it is stored as driven by."""
        async with self.db.session() as tx:
            rows = await tx.execute(sa.select(GameRecord.id, GameRecord.node).where(
                GameRecord.status == "active", GameRecord.updated_at < before))
            return {number: node for number, node in rows}

    async def close(self) -> None:
        await self.turns.close()

    # -- games in play -----------------------------------------------------------------
    def game_of(self, account_id: int, kind_key: str) -> LiveGame | None:
        return self.games.game_of(account_id, kind_key)

    def games_of(self, account_id: int) -> list[LiveGame]:
        """The games ``account_id`` plays now (at most one per kind)."""
        return self.games.games_of(account_id)

    def get_live(self, game_id: int) -> LiveGame:
        return self.games.get(game_id)

    def playing(self, account_id: int, kind_key: str) -> LiveGame:
        return self.games.playing(account_id, kind_key)

    def watchers(self, game_id: int) -> int:
        """How many watch ``game_id`` on this node."""
        return self.bus.subscribers(f"game:{game_id}")

    async def frames_in_play(self, kind_key: str | None = None) -> list[Frame]:
        """Every game in play, on this node and the others, in number order: its
        watchers' frame without the view (``LiveGame.frame``), with ``watchers``."""
        here = [g.frame(None, with_view=False).watched(self.watchers(g.id))
                for g in self.live.values() if kind_key is None or g.kind.key == kind_key]
        there = [f.watched(f.watchers + self.watchers(f.game))
                 for f in await self.other_nodes.frames(kind_key) if f.game not in self.live]
        # once each: should two nodes answer for one game (one of them about to find it
        # lost), the newer epoch's (then version's) frame is the game
        newest: dict[int, Frame] = {}
        for f in here + there:
            known = newest.get(f.game)
            if known is None or (f.epoch, f.version) > (known.epoch, known.version):
                newest[f.game] = f
        return [newest[n] for n in sorted(newest)]

    async def watchers_frame(self, game_id: int) -> Frame | None:
        """Game ``game_id`` as its watchers see it now, with ``watchers``, wherever it is
        driven; None when it is not in play."""
        await self.games.check()
        game = self.live.get(game_id)
        if game is not None:
            return game.frame(None).watched(self.watchers(game_id))
        frame = await self.other_nodes.frame(game_id)
        if frame is not None:
            frame = frame.watched(frame.watchers + self.watchers(game_id))
        return frame

    # -- offers ------------------------------------------------------------------------
    async def offer(self, kind_key: str, challenger: Seat, target_name: str,
                    options: dict[str, Any], **more: Any) -> Offer:
        """A challenge; with ``options["days"]``, a correspondence challenge, which waits
        for its player (``server/services/correspondence.py``)."""
        if options.get("days") is not None and not more:
            return await self.correspondence.offer(kind_key, challenger, target_name,
                                                   options, self.offers.screens)
        return await self.offers.offer(kind_key, challenger, target_name, options, **more)

    async def accept(self, kind_key: str | None, acceptor: Seat, challenger_name: str) -> LiveGame:
        """Accept a challenge made here, else a correspondence challenge."""
        try:
            return await self.offers.accept(kind_key, acceptor, challenger_name)
        except GameError:
            if self.offers.has_offer(kind_key, challenger_name, acceptor.name):
                raise
            game = await self.correspondence.accept(kind_key, acceptor, challenger_name)
            if game is None:
                raise
            return game

    async def decline(self, kind_key: str | None, target: Seat, challenger_name: str) -> Offer:
        try:
            return self.offers.decline(kind_key, target, challenger_name)
        except GameError:
            offer = await self.correspondence.decline(kind_key, target, challenger_name)
            if offer is None:
                raise
            return offer

    async def withdraw(self, kind_key: str | None, challenger: Seat,
                       target_name: str | None) -> list[Offer]:
        try:
            gone = self.offers.withdraw(kind_key, challenger, target_name)
        except GameError:
            gone = []
        gone += await self.correspondence.withdraw(kind_key, challenger, target_name)
        if not gone:
            who = f" to {target_name}" if target_name else ""
            raise GameError(f"You have no offer{who} to withdraw.")
        return gone

    def pending(self, account_id: int) -> tuple[list[Offer], list[Offer]]:
        """(offers to ``account_id``, here or on another node; offers from them), without
        the correspondence challenges (:meth:`all_pending` has them too)."""
        to_me, from_me = self.offers.pending(account_id)
        return [*to_me, *self.other_nodes.offers_to(account_id)], from_me

    async def all_pending(self, account_id: int) -> tuple[list[Offer], list[Offer]]:
        """:meth:`pending` and the correspondence challenges to and from ``account_id``."""
        to_me, from_me = self.pending(account_id)
        letters_to, letters_from = await self.correspondence.pending(account_id)
        return [*to_me, *letters_to], [*from_me, *letters_from]

    takes_rematches = staticmethod(Offers.takes_rematches)

    async def rematch(self, kind_key: str, me: Seat, opponent: str | None = None
                      ) -> tuple[GameRecord, Offer | LiveGame]:
        return await self.offers.rematch(kind_key, me, opponent)

    async def play_computer(self, kind_key: str, me: Seat, level: str, options: dict[str, Any],
                            *, computer_first: bool = False) -> LiveGame:
        return await self.offers.play_computer(kind_key, me, level, options,
                                               computer_first=computer_first)

    # -- playing -----------------------------------------------------------------------
    async def start_game(self, kind_key: str, seats: tuple[Seat, ...],
                         options: dict[str, Any]) -> LiveGame:
        return await self.parlor.start_game(kind_key, seats, options)

    async def _start(self, kind: GameKind, seats: tuple[Seat, ...],
                     options: dict[str, Any]) -> LiveGame:
        return await self.parlor.start_game(kind.key, seats, options)

    async def act(self, account_id: int, kind_key: str, action: Any, *,
                  seat_change: bool = False) -> LiveGame:
        """Apply a player's action (one of the kind's typed actions) to their game.
        ``seat_change``: the action changes the player's place at a table (a LEAVE, a
        BACK), not the game: its events word it (``Play.apply``).

        :raises RuleError: the kind's ``apply`` refuses it (nothing changes).
        :raises GameError: the player has no such game (or it has just ended)."""
        game = self.playing(account_id, kind_key)
        async with game.lock:
            await self.play.apply(game, game.seat_of(account_id), action,
                                  seat_change=seat_change)
        self.turns.schedule(game)
        return game

    async def act_text(self, account_id: int, kind_key: str, text: str, *,
                       seat_change: bool = False) -> LiveGame:
        """``act`` with ``text`` in the game's notation, read by the kind's notation (the
        one place text becomes an action), for callers holding text: scripts and tests.

        :raises BadNotation: ``text`` is no action of that game."""
        action = self.kind(kind_key).spec.parse_action(text)
        return await self.act(account_id, kind_key, action, seat_change=seat_change)

    async def act_for(self, game_id: int, seat: int, action: Any,
                      note: str | None = None, auto: bool = False) -> LiveGame:
        """Apply ``action`` for ``seat`` of game ``game_id`` on the server's authority
        rather than a connected player's: a service seating a newcomer at a table
        (``seat`` is then the new seat's number, ``len(game.seats)``, or a returning
        player's old seat), or playing for the player (``auto``: Pyramid's AUTO, whose
        moves are told as lines, not boards). The kind's ``apply`` decides what it
        allows."""
        return await self.parlor.act_for(game_id, seat, action, note, auto)

    async def resign(self, account_id: int, kind_key: str) -> LiveGame:
        game = self.playing(account_id, kind_key)
        async with game.lock:
            # at a table whose players come and go, resigning is leaving one's seat
            await self.play.apply(game, game.seat_of(account_id), game.kind.resign_action,
                                  seat_change=game.kind.open_table)
        self.turns.schedule(game)
        return game

    async def claim(self, account_id: int, kind_key: str) -> LiveGame:
        """Win a game whose opponent has been away longer than the reconnect grace."""
        game = await self.presence.claim(account_id, kind_key)
        self.turns.schedule(game)
        return game

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> Any:
        """Run ``coro`` as a background task of the host (a game's helper, e.g. one that
        plays for a player); it is cancelled when the host closes."""
        return self.turns.spawn(coro)

    # -- presence ----------------------------------------------------------------------
    def player_left(self, account_id: int, name: str) -> None:
        """A player's connection is gone: their games wait, their offers lapse."""
        self.offers.lapse(account_id, name)
        self.seeks.left(account_id)
        self.presence.left(account_id, name)
        for departure in self.departures:
            departure(account_id, name)

    def player_returned(self, account_id: int, name: str, *,
                        arriving: bool = True) -> list[LiveGame]:
        """A player is here: their games are no longer waiting for them (the games
        returned). ``arriving``: a login, so the arrival hooks run too (their news and
        notices, the seek list, their listeners told); not for a connection carried on
        through a restart of this parlor, whose player never left."""
        if arriving:
            for arrival in self.arrivals:
                arrival(account_id, name)
        return self.presence.returned(account_id, name)

    # -- records -----------------------------------------------------------------------
    async def record(self, game_id: int) -> tuple[GameRecord, list[GameMove]]:
        return await self.records.record(game_id)

    async def replay(self, game_id: int, upto: int | None = None
                     ) -> tuple[LiveGame, list[GameMove]]:
        return await self.records.replay(game_id, upto)

    # -- announcements -----------------------------------------------------------------
    def tell(self, account_id: int, text: str) -> None:
        """A notice to one player (a game's service telling a player something)."""
        self.play.tell(account_id, text)

    @staticmethod
    def describe_outcome(game: LiveGame, outcome: Outcome) -> str:
        return game.describe(outcome)


__all__ = ["GameHost", "GameError", "LiveGame", "Offer", "RuleError", "Told"]
