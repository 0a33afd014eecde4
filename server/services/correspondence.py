"""Correspondence play: games over days, whose players need not be online together.

A correspondence game is an ordinary game whose options hold ``days``, the days its
players have for each move (``<GAME> CHALLENGE <person> DAYS <n>``, 1 to 14; a "day" is
``[games] correspondence_day`` seconds). What differs from a game at a sitting:

- its challenge is kept in the database (``LetterOffer``) until it is answered, so it
  waits for a player who is away, who is told of it at their next login, and may be
  accepted while the challenger is away;
- it takes no player's one place in its kind (``LiveGames``): a player may have many,
  beside a game at a sitting;
- nobody is "away" from it: no CLAIM, no presence actions (``presence.py`` leaves it be);
- its clock is the game's last change as stored (``games.updated_at``, written with every
  move) plus the days a move: the node that drives the game arms it after every change
  and when it restores or adopts the game, so it runs on across restarts and nodes; a
  player whose time runs out loses on time (or, where the game's own clock says what
  time's end does, that: Triptycha's trading phase ends as if the winner typed DONE), and
  both are told (now, or at their next login); the game's own clock for play at a
  sitting (Triptycha's ``trade_timeout``) is not armed;
- its players are told "Your move in game #12 (Triad Dice, 3 days a move, 2 days 5
  hours left)" when the move becomes theirs and at every login, and MYGAMES lists their
  games, the one that has waited longest for their move first (as Yucata orders them).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Awaitable, Callable

import attrs
import sqlalchemy as sa

from server.bus import Bus, Event
from server.db import Database
from server.hosting import GameKind, Seat
from server.models import GameMove, GameRecord
from server.services.accounts import Accounts
from server.services.correspondence_models import LetterOffer
from server.services.live import GameError, LiveGame, LiveGames
from server.services.offers import Offer
from server.services.play import Play
from server.services.records import played_by
from server.services.turns import Turns
from server.text import counted

log = logging.getLogger(__name__)

MIN_DAYS, MAX_DAYS = 1, 14
MAX_OFFERS = 20          # correspondence challenges one player may have waiting
KNOWN = 4096             # players whose challenges a node keeps in memory at most
TOPIC = "letters"        # the bus topic on which every node says whose challenges changed
DAY = 86400.0            # seconds in a day, unless ``[games] correspondence_day`` says
# A player's correspondence games in play (``account_id``: a parameter). Built once: a
# JSON index expression built at each login leaves a dozen objects in reference cycles,
# which wait for a full collection.
IN_PLAY = played_by(sa.bindparam("account_id")).where(
    GameRecord.status == "active", GameRecord.options["days"].as_integer().is_not(None))


def check_days(kind: GameKind, options: dict[str, Any]) -> None:
    """Refuse a correspondence game (``options["days"]``) that ``kind`` or ``options``
    do not allow: a challenge's or a seek's."""
    days = options.get("days")
    if not kind.correspondence:
        raise GameError(f"{kind.title} is not played by correspondence.")
    if not isinstance(days, int) or not MIN_DAYS <= days <= MAX_DAYS:
        raise GameError(f"A correspondence game has {MIN_DAYS} to {MAX_DAYS} days a move.")


def days_a_move(days: int) -> str:
    """"1 day a move", "3 days a move"."""
    return f"{counted(days, 'day')} a move"


def time_left(seconds: float, day: float = DAY) -> str:
    """What is left of a clock, in the two largest units: "2 days 5 hours", "3 hours
    10 minutes", "40 seconds"; "no time" when it has run out. ``day``: the seconds a
    day of the clock lasts (shorter to try clocks out), so what is left is told in the
    clock's days and hours."""
    seconds = int(seconds * DAY / day)
    if seconds <= 0:
        return "no time"
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    units = [(days, "day"), (hours, "hour"), (minutes, "minute"), (secs, "second")]
    first = next(i for i, (n, _) in enumerate(units) if n)
    shown = [counted(n, word) for n, word in units[first:first + 2] if n]
    return " ".join(shown)


@attrs.frozen
class Letter:
    """One of a player's correspondence games as MYGAMES and the login notice show it."""

    game: int
    kind: GameKind
    opponent: str
    days: int
    since: float          # when the move became due (the game's last change)
    deadline: float       # when the clock runs out
    mine: bool            # whether it waits for this player's move
    last: str | None      # the last move, "Bob: MOVE a1 2 N"
    day: float = DAY      # seconds in a day of its clock

    def left(self, now: float) -> str:
        return time_left(self.deadline - now, self.day)

    def notice(self, now: float) -> str:
        """"Your move in game #12 (Triad Dice, 3 days a move, 2 days 5 hours left)"."""
        return (f"Your move in game #{self.game} ({self.kind.title}, "
                f"{days_a_move(self.days)}, {self.left(now)} left)")


class Correspondence:
    """Correspondence challenges, the games' clocks, and what their players are told.

    ``start`` starts an accepted game (the host's); ``tell`` is a notice to a player
    wherever they are connected, ``keep`` one kept for their next login.

    The challenges are kept in the database; what PENDING (and ACCEPT or DECLINE typed
    alone) reads of a player's is kept in memory too, once read, until a node changes
    them: every change is told on the bus (``TOPIC``), and every node forgets that
    player's. While the bus cannot hear the other nodes, and once after it hears them
    again, the database is read (a change told meanwhile may be lost)."""

    def __init__(self, db: Database, bus: Bus, kinds: dict[str, GameKind], games: LiveGames,
                 accounts: Accounts, play: Play, turns: Turns,
                 is_online: Callable[[int], bool],
                 start: Callable[[GameKind, tuple[Seat, ...], dict[str, Any]],
                                 Awaitable[LiveGame]],
                 keep: Callable[[int, str], None]) -> None:
        self.db = db
        self.bus = bus
        self.kinds = kinds
        self.games = games
        self.accounts = accounts
        self.play = play
        self.turns = turns
        self.is_online = is_online
        self.start = start
        self.keep = keep
        self.day = DAY
        self._told: dict[int, int] = {}  # game -> the version its mover was last told of
        self._counting: set[int] = set()  # players whose count of games waiting is due
        # account -> (challenges to them, from them), as last read from the database;
        # good while ``_heals`` is the bus's and the bus is connected
        self._known: dict[int, tuple[list[Offer], list[Offer]]] = {}
        self._heals = bus.heals
        self._forgot = 0  # rises with every change heard: a read begun before it is stale
        turns.after.append(self.changed)
        bus.subscribe(TOPIC, self._heard)

    def seconds(self, days: int) -> float:
        return days * self.day

    # -- challenges --------------------------------------------------------------------
    @staticmethod
    def _offer(row: LetterOffer, kind: GameKind) -> Offer:
        return Offer(row.id, kind, Seat(row.challenger_id, row.challenger_name),
                     Seat(row.target_id, row.target_name), dict(row.options),
                     created=row.created_at)

    async def offer(self, kind_key: str, challenger: Seat, target_name: str,
                    options: dict[str, Any], screens: list = ()) -> Offer:
        """Offer a correspondence game to ``target_name``, online or not: it waits for
        them. ``screens``: the parlor's checks of a challenge (a player's formula)."""
        kind = self.kinds[kind_key]
        check_days(kind, options)
        target = await self.accounts.get(target_name)
        if target is None or target.is_computer:
            raise GameError(f"There is no player named {target_name}.")
        if target.id == challenger.account_id:
            raise GameError("You cannot challenge yourself.")
        if await self.accounts.is_ignoring(target.id, challenger.account_id):
            raise GameError(f"{target.name} is not accepting challenges from you.")
        target_seat = Seat(target.id, target.name)
        problem = await kind.check_offer(challenger, target_seat, options)
        for screen in screens:
            problem = problem or await screen(kind, challenger, target_seat, options)
        if problem:
            raise GameError(problem)
        now = time.time()
        async with self.db.session() as tx:
            await tx.execute(sa.delete(LetterOffer).where(
                LetterOffer.kind == kind.key, LetterOffer.challenger_id == challenger.account_id,
                LetterOffer.target_id == target.id))
            count = await tx.scalar(sa.select(sa.func.count()).select_from(LetterOffer).where(
                LetterOffer.challenger_id == challenger.account_id))
            if count >= MAX_OFFERS:
                raise GameError(f"You have {MAX_OFFERS} correspondence challenges waiting "
                                "already; WITHDRAW some first.")
            row = LetterOffer(kind=kind.key, challenger_id=challenger.account_id,
                              challenger_name=challenger.name, target_id=target.id,
                              target_name=target.name, options=options, created_at=now)
            tx.add(row)
            await tx.commit()
        self._changed(challenger.account_id, target.id)
        offer = self._offer(row, kind)
        if self.is_online(target.id):  # else told at their next login (``arrived``)
            self.play.tell(target.id, self._challenge_words(offer), event_type="challenge")
        return offer

    @staticmethod
    def _challenge_words(offer: Offer) -> str:
        p, name = offer.kind.prefix, offer.challenger.name
        return (f"{name} challenges you to {offer.describe()}, by correspondence. Type "
                f"{p} ACCEPT {name} or {p} DECLINE {name}.")

    async def _take(self, kind_key: str | None, challenger_name: str | None,
                    target_name: str | None, *, to: int | None = None,
                    by: int | None = None) -> list[Offer]:
        """Remove and return the offers that match (to the account ``to``, or by the
        account ``by``), each only if this call removed it (two answers cannot both
        have one)."""
        query = sa.select(LetterOffer)
        if kind_key is not None:
            query = query.where(LetterOffer.kind == kind_key)
        if to is not None:
            query = query.where(LetterOffer.target_id == to)
        if by is not None:
            query = query.where(LetterOffer.challenger_id == by)
        taken = []
        async with self.db.session() as tx:
            for row in list(await tx.scalars(query.order_by(LetterOffer.id))):
                if challenger_name is not None and \
                        row.challenger_name.lower() != challenger_name.lower():
                    continue
                if target_name is not None and row.target_name.lower() != target_name.lower():
                    continue
                kind = self.kinds.get(row.kind)
                if kind is None:
                    continue
                gone = await tx.execute(sa.delete(LetterOffer).where(LetterOffer.id == row.id))
                if gone.rowcount == 1:
                    taken.append(self._offer(row, kind))
            await tx.commit()
        if taken:
            self._changed(*{a for o in taken
                            for a in (o.challenger.account_id, o.target.account_id)})
        return taken

    async def accept(self, kind_key: str | None, acceptor: Seat,
                     challenger_name: str) -> LiveGame | None:
        """Start the correspondence game ``challenger_name`` offered ``acceptor`` (the
        challenger may be away); None when there is no such offer."""
        taken = await self._take(kind_key, challenger_name, None, to=acceptor.account_id)
        if not taken:
            return None
        offer = taken[0]
        game = await self.start(offer.kind, (offer.challenger, acceptor), offer.options)
        self.tell_or_keep(offer.challenger.account_id,
                          f"{acceptor.name} accepts your correspondence challenge: "
                          f"game #{game.id}, {offer.describe()}.")
        return game

    async def decline(self, kind_key: str | None, target: Seat,
                      challenger_name: str) -> Offer | None:
        taken = await self._take(kind_key, challenger_name, None, to=target.account_id)
        if not taken:
            return None
        offer = taken[0]
        self.tell_or_keep(offer.challenger.account_id,
                          f"{target.name} declines your correspondence challenge of "
                          f"{offer.describe()}.")
        return offer

    async def withdraw(self, kind_key: str | None, challenger: Seat,
                       target_name: str | None) -> list[Offer]:
        gone = await self._take(kind_key, None, target_name, by=challenger.account_id)
        for offer in gone:
            if self.is_online(offer.target.account_id):
                self.play.tell(offer.target.account_id,
                               f"{challenger.name} withdraws the correspondence challenge "
                               f"of {offer.describe()}.")
        return gone

    async def pending(self, account_id: int) -> tuple[list[Offer], list[Offer]]:
        """(correspondence challenges to ``account_id``, from them), oldest first."""
        if self.bus.heals != self._heals or not self.bus.connected:
            self._known.clear()   # a change told meanwhile may never have come
            self._heals = self.bus.heals
        trusted = self.bus.connected
        if trusted and account_id in self._known:
            to_me, from_me = self._known[account_id]
            return list(to_me), list(from_me)
        began = self._forgot
        async with self.db.session() as tx:
            rows = list(await tx.scalars(sa.select(LetterOffer).where(sa.or_(
                LetterOffer.target_id == account_id, LetterOffer.challenger_id == account_id))
                .order_by(LetterOffer.id)))
        offers = [self._offer(r, self.kinds[r.kind]) for r in rows if r.kind in self.kinds]
        to_me = [o for o in offers if o.target.account_id == account_id]
        from_me = [o for o in offers if o.challenger.account_id == account_id]
        if trusted and began == self._forgot and self.bus.heals == self._heals:
            if len(self._known) >= KNOWN:
                self._known.clear()
            self._known[account_id] = (to_me, from_me)
        return list(to_me), list(from_me)

    def _changed(self, *accounts: int) -> None:
        """The challenges to or from ``accounts`` changed here: every node (this one
        too, at once) forgets what it kept of theirs."""
        self.bus.publish(TOPIC, Event("letters.changed", {"accounts": list(accounts)}))

    def _heard(self, topic: str, event: Event) -> None:
        self._forgot += 1
        for account_id in event.data.get("accounts", ()):
            self._known.pop(account_id, None)

    def tell_or_keep(self, account_id: int, text: str) -> None:
        if self.is_online(account_id):
            self.play.tell(account_id, text)
        else:
            self.keep(account_id, text)

    # -- a player's games --------------------------------------------------------------
    async def letters(self, account_id: int) -> list[Letter]:
        """``account_id``'s correspondence games in play (on any node: read from the
        store), those waiting for their move first, the longest waiting first; then the
        others, the nearest deadline first."""
        async with self.db.session() as tx:
            records = list(await tx.scalars(IN_PLAY, {"account_id": account_id}))
            mine = []
            for record in records:
                seat = next((i for i, s in enumerate(record.seats)
                             if s.get("id") == account_id and not s.get("computer")), None)
                kind = self.kinds.get(record.kind)
                if seat is not None and kind is not None:
                    mine.append((record, seat, kind))
            last: dict[int, str] = {}
            if mine:
                numbers = [r.id for r, _, _ in mine]
                newest = (sa.select(GameMove.game_id, sa.func.max(GameMove.seq).label("seq"))
                          .where(GameMove.game_id.in_(numbers)).group_by(GameMove.game_id)
                          .subquery())
                rows = await tx.execute(
                    sa.select(GameMove.game_id, GameMove.seat, GameMove.notation)
                    .join(newest, sa.and_(GameMove.game_id == newest.c.game_id,
                                          GameMove.seq == newest.c.seq)))
                names = {r.id: r.seats for r, _, _ in mine}
                for number, seat, notation in rows:
                    seats = names[number]
                    who = seats[seat]["name"] if 0 <= seat < len(seats) else "?"
                    last[number] = f"{who}: {notation}"
        found = []
        for record, seat, kind in mine:
            days = int(record.options["days"])
            movers = kind.spec.to_move(kind.spec.state_from_json(record.state))
            other = ", ".join(s["name"] for i, s in enumerate(record.seats) if i != seat)
            found.append(Letter(record.id, kind, other, days, record.updated_at,
                                record.updated_at + self.seconds(days), seat in movers,
                                last.get(record.id), self.day))
        return sorted(found, key=lambda g: (not g.mine, g.since if g.mine else g.deadline))

    async def arrived(self, account_id: int) -> None:
        """At login: the games that wait for ``account_id``'s move, and the
        correspondence challenges that wait for their answer."""
        try:
            now = time.time()
            lines = []
            letters = await self.letters(account_id)
            if any(letter.mine for letter in letters):   # (none: nothing to say)
                self._status(account_id, letters)
            for letter in letters:
                if letter.mine:
                    last = f" Last move: {letter.last}." if letter.last else ""
                    lines.append(f"{letter.notice(now)}.{last}")
            to_me, _ = await self.pending(account_id)
            lines += [self._challenge_words(o) for o in to_me]
            if lines:
                lines.append("MYGAMES lists your correspondence games; MYGAMES <game> goes "
                             "to one.")
                self.play.tell(account_id, "\n".join(lines))
        except Exception:
            log.exception("telling account %d of its correspondence games failed", account_id)

    # -- after every change of a game: the clock and the notices -----------------------
    def changed(self, game: LiveGame, note: str | None = None) -> None:
        """After a change of ``game`` (and when it is restored or adopted here): a
        correspondence game's mover is told it is their move, a player away is kept word
        of how it ended, and its clock is armed."""
        if game.days is None:
            return
        for seat in game.seats:  # their count of games waiting for them may have changed
            if seat.computer is None and self.is_online(seat.account_id):
                self._recount(seat.account_id)
        if game.outcome is not None:
            self._told.pop(game.id, None)
            for seat in game.seats:
                if seat.computer is None and not seat.left and not self.is_online(seat.account_id):
                    self.keep(seat.account_id, " ".join(
                        filter(None, [note, game.describe(game.outcome)])))
            return
        if not self.games.holds(game):
            return
        seen = self._told.get(game.id)
        self._told[game.id] = game.version
        if seen is not None and seen < game.version:  # a change here, not a restore
            deadline = game.since + self.seconds(game.days)
            for seat in game.kind.spec.to_move(game.state):
                player = game.seats[seat]
                if player.computer is None and self.is_online(player.account_id):
                    self.play.tell(player.account_id, (
                        f"Your move in game #{game.id} ({game.kind.title}, "
                        f"{days_a_move(game.days)}, {time_left(deadline - time.time(), self.day)} "
                        "left)."))
        self.turns.spawn(self._clock(game, game.version))

    def _status(self, account_id: int, letters: list[Letter]) -> None:
        """Tell the player's client (GMCP ``Char.Status`` ``letters``) how many of their
        correspondence games wait for their move: /play shows the count."""
        self.play.tell_status(account_id, {"letters": sum(g.mine for g in letters)})

    def _recount(self, account_id: int) -> None:
        """Count a player's games waiting for them again, soon (once for a burst)."""
        if account_id in self._counting:
            return
        self._counting.add(account_id)

        async def count() -> None:
            try:
                await asyncio.sleep(0)  # after the change is stored and told
                self._counting.discard(account_id)
                self._status(account_id, await self.letters(account_id))
            except Exception:
                self._counting.discard(account_id)
                log.exception("counting account %d's correspondence games failed", account_id)

        self.turns.spawn(count())

    async def _clock(self, game: LiveGame, version: int) -> None:
        """Game ``game``'s clock at ``version``: when the mover's days run out with the
        game unchanged, they lose on time, or, where the game's own clock says what time's
        end does in that state (Triptycha's trading phase: the winner is done), that."""
        deadline = game.since + self.seconds(game.days)
        while True:
            wait = deadline - time.time()
            if wait <= 0:
                break
            await asyncio.sleep(min(wait, 600.0))  # a clock left behind by a move ends soon
            if game.version != version or not self.games.holds(game):
                return
        movers = list(game.kind.spec.to_move(game.state))
        if not movers:
            return
        seat = movers[0]
        name = game.seats[seat].name
        # what the game does when a player's time is up (Triptycha's trading: the winner
        # is done taking tiles), else the mover loses on time
        clock = game.kind.clock(game.state)
        note = (f"Time is up in game #{game.id}: {name} did not move within "
                f"{counted(game.days, 'day')}")
        if clock is not None and clock[1] == seat:
            action, note = clock[2], note + "."
        else:
            action, note = game.kind.resign_action, note + ", and loses on time."
        try:
            async with game.lock:
                if game.version != version or not self.games.holds(game):
                    return  # moved meanwhile: that change armed its own clock
                await self.play.apply(game, seat, action, note=note)
        except asyncio.CancelledError:
            raise
        except GameError as err:  # let go meanwhile: its clock runs where it is driven
            log.info("game #%d: the loss on time was not stored here (%s)", game.id, err)
            return
        except Exception:
            log.exception("game #%d: the loss on time failed", game.id)
            return
        self.turns.schedule(game, note=note)
