"""Apply, commit, publish: a game's changes, each stored before anyone is told.

The rule of the host (docs/design.md, principle 2): a game's new state, its move row and
any ownership, cubit or rating change are committed in one transaction *before* anyone
is told. Then each audience (each seat, the watchers) is told, as one self-contained
event, what it may know of the change (:meth:`Play.publish`). What comes after a change
(a computer's move, a clock) is ``server/services/turns.py``'s business.
"""

from __future__ import annotations

import random
import time
from typing import Any

import attrs
import sqlalchemy as sa

from games.outcome import Outcome
from server.bus import Bus, Event
from server.db import Database
from server.frames import Facts
from server.hosting import ActionContext, FinishContext, GameKind, Seat, StartContext
from server.models import GameMove, GameRecord
from server.services.live import GameError, LiveGame, LiveGames, Told
from server.services.ratings import TOO_SHORT, pool, rates, record_result
from server.services.records import claim_notation, seated


# A move's two writes, built once as Core statements on the tables: building the ORM
# ``update`` of the game's row and flushing an ORM ``GameMove`` took about a fifth of a
# move's CPU. Nothing of either is held in a session (each move has its own).
_GAMES = GameRecord.__table__
#: the game's row, written only over the version and epoch this node holds (the
#: columns set are the other parameters' names)
_STORE_GAME = sa.update(_GAMES).where(_GAMES.c.id == sa.bindparam("held_id"),
                                      _GAMES.c.version == sa.bindparam("held_version"),
                                      _GAMES.c.epoch == sa.bindparam("held_epoch"))
_STORE_MOVE = sa.insert(GameMove.__table__)


def _fact(event: Any, name: str) -> bool:
    """An event's fact (``private``, ``new_phase``, ``tells_action``, ``continues``:
    games/__init__.py), false when it has none."""
    return bool(getattr(event, name, False))


@attrs.frozen(kw_only=True)
class Change:
    """One action as the engine works it out, before it is stored: by ``seat`` (typed
    as ``notation``; ``claimant``: the seat whose CLAIM it is), the new ``state``, its
    ``events`` and ``outcome``, the ``seats`` after it, the game's version it makes
    (``step``), and the ``facts`` the presentation decides from."""

    seat: int
    action: Any
    notation: str
    state: Any
    events: list
    outcome: Outcome | None
    seats: tuple[Seat, ...]
    step: int
    facts: Facts
    seat_change: bool
    claimant: int | None


def told_to(game: LiveGame) -> set[int]:
    """The accounts told of the game's changes: its players, not the computer."""
    return {s.account_id for s in game.seats if s.computer is None and not s.left}


class Play:
    """Starting games and applying actions to them, for every game alike."""

    def __init__(self, db: Database, bus: Bus, games: LiveGames) -> None:
        self.db = db
        self.bus = bus
        self.games = games

    async def start(self, kind: GameKind, seats: tuple[Seat, ...],
                    options: dict[str, Any]) -> LiveGame:
        """Start a game of ``kind``: stored, then told. Every human seat's place is
        reserved before the first await: two acceptances racing to start games for one
        player cannot both get one.

        :raises GameError: a player already plays (or is being given) a game of it.
        A correspondence game (``options["days"]``) takes no such place."""
        humans = [(s.account_id, kind.key) for s in seats
                  if s.computer is None and options.get("days") is None]
        for account_id, key in humans:
            if self.games.taken(account_id, key):
                name = next(s.name for s in seats if s.account_id == account_id)
                raise GameError(f"{name} is already playing {kind.title}.")
        self.games.starting.update(humans)
        try:
            return await self._start(kind, seats, options)
        finally:
            self.games.starting.difference_update(humans)

    async def _start(self, kind: GameKind, seats: tuple[Seat, ...],
                          options: dict[str, Any]) -> LiveGame:
        seed = random.SystemRandom().getrandbits(48)
        now = time.time()
        async with self.db.session() as tx:
            record = GameRecord(
                kind=kind.key, status="active", seats=[s.to_json() for s in seats],
                options=options, ranked=kind.spec.is_ranked(options), seed=seed,
                initial_state={}, state={}, version=0, node=self.games.node, created_at=now,
                updated_at=now,
            )
            tx.add(record)
            await tx.flush()
            await seated(tx, record.id, seats)
            rng = random.Random(f"{seed}:0")
            state = await kind.on_start(StartContext(tx, record.id, seats, options, rng))
            record.initial_state = record.state = kind.spec.state_to_json(state)
            await tx.commit()
        game = LiveGame(id=record.id, kind=kind, seats=seats, options=options,
                        ranked=record.ranked, seed=seed, state=state, version=0)
        self.games.add(game)
        opts = kind.spec.describe_options(options)
        self.publish(game, "game.start", Told(
            [f"{game.title} begins{' (' + opts + ')' if opts else ''}."], None))
        return game

    async def apply(self, game: LiveGame, seat: int | None, action: Any, note: str | None = None,
                     seat_change: bool = False, auto: bool = False,
                     claimant: int | None = None) -> None:
        """Apply, commit, then tell: ``note``, then ``<name>: <notation>`` (the move as
        typed, which players and scripts read back), then the events' words. One step
        each: the engine works the change out (:meth:`_work_out`), it is stored with
        the result and the ratings it makes (:meth:`_store`), the game in memory takes
        it (:meth:`_take`), it is put in words for each audience as the game now stands
        (:meth:`_word`), and every audience is told (:meth:`publish`).

        A seat change (``seat_change``; the kind's presence actions; seating a newcomer,
        or a player back in their old seat, at a table) is told by its events alone
        ("Bob sits down in seat 2 with 200 cubits."), not by the table's own notation
        for it, unless no event words it.

        A CLAIM (``claimant``: the seat claiming, ``action`` the absent ``seat``'s
        resignation) is stored as the claimant's move (``records.claim_notation``) and
        told by its ``note`` alone, not as the absent player typing RESIGN.
        """
        await self.games.check()  # a node that lost its lease lets adopted games go first
        if not self.games.holds(game):  # ended, or another node drives it
            raise GameError("That game has just ended." if game.outcome is not None else
                            "That game is played on another server now; type that again.")
        if seat is None:
            raise GameError("You are watching that game, not playing it.")
        if game.adjourned:
            raise GameError(f"Game #{game.id} is adjourned: RESUME {game.id} takes it up "
                            "again.")
        change = self._work_out(game, seat, action, seat_change, auto, claimant)
        finish_lines = await self._store(game, change)
        players = told_to(game)  # a player who leaves with this action hears of it too
        self._take(game, change)
        told = self._word(game, change, note, finish_lines)
        self.publish(game, "game.end" if change.outcome else "game.update", told,
                     also=players)

    @staticmethod
    def _work_out(game: LiveGame, seat: int, action: Any, seat_change: bool, auto: bool,
                  claimant: int | None) -> "Change":
        """The engine's part: the new state, its events and outcome, the seats after it,
        and the facts the presentation decides from. Nothing is changed yet."""
        state, events = game.kind.spec.apply(game.state, seat, action, game.rng(game.version + 1))
        outcome = game.kind.spec.outcome(state)
        facts = Facts(actor=seat, was_to_move=tuple(game.kind.spec.to_move(game.state)),
                      board=not events or not all(_fact(e, "private") for e in events),
                      new_phase=any(_fact(e, "new_phase") for e in events), auto=auto)
        return Change(
            seat=seat, notation=game.kind.spec.format_action(action), action=action, state=state,
            events=events, outcome=outcome, seats=game.kind.seats_of(state, game.seats),
            step=game.version + 1, facts=facts, claimant=claimant,
            seat_change=seat_change or seat >= len(game.seats) or game.seats[seat].left)

    async def _store(self, game: LiveGame, change: "Change") -> list[str]:
        """The change committed in one transaction: the game's row (only over the
        version and epoch this node holds), its move, the kind's own rows, and at the
        end the result and ratings. Returns the lines the end adds (ratings)."""
        now = time.time()
        finish_lines: list[str] = []
        async with self.db.session() as tx:
            values: dict[str, Any] = dict(state=game.kind.spec.state_to_json(change.state),
                                          version=change.step, updated_at=now)
            if change.seats != game.seats:
                values.update(seats=[s.to_json() for s in change.seats])
            if change.outcome is not None:
                values.update(status="finished", result=change.outcome.to_json())
            result = await tx.execute(_STORE_GAME, dict(
                values, held_id=game.id, held_version=game.version, held_epoch=game.epoch))
            if result.rowcount != 1:
                # another node adopted the game since (a newer epoch) or stored a move of
                # it: this node lost its hold on it, and lets it go; its players' commands
                # go to the node that drives it now
                self.games.drop(game)
                raise GameError("That game is played on another server now; type that "
                                "again.")
            if change.claimant is None:
                stored = (change.seat, change.notation)
            else:
                stored = (change.claimant, claim_notation(change.seat))
            await tx.execute(_STORE_MOVE, dict(game_id=game.id, seq=change.step,
                                               seat=stored[0], notation=stored[1],
                                               created_at=now))
            if change.seats != game.seats:   # (after the game's write: under its hold)
                await seated(tx, game.id, change.seats, game.seats)
            await game.kind.on_action(ActionContext(
                tx, game.id, game.seats, game.options, change.seat, change.action,
                game.state, change.state, change.events))
            if change.outcome is not None:
                finish_lines = await self._finish(tx, game, change.state, change.outcome,
                                                  change.seats)
            await tx.commit()
        return finish_lines

    def _take(self, game: LiveGame, change: "Change") -> None:
        """The game in memory takes the stored change; an ended game is let go."""
        if change.seats != game.seats:
            self.games.reseat(game, change.seats)
        game.state = change.state
        game.version = change.step
        game.since = time.time()
        self.games.moved(game)
        if change.outcome is not None:
            game.outcome = change.outcome
            self.games.drop(game)

    def _word(self, game: LiveGame, change: "Change", note: str | None,
              finish_lines: list[str]) -> Told:
        """What each audience is told of the change, taken (the names are the seats'
        after it), in words: the note, the move as typed (unless an event's sentence
        tells it), the events' sentences, and at the end the result."""
        events, facts, seat = change.events, change.facts, change.seat
        # everyone is told how a game ends, unless the kind withholds the game (then its
        # audience holds to the end: a Par tournament's sealed deals)
        audience = (None if change.outcome is not None
                    and game.kind.spec.withheld(change.state) is None
                    else game.kind.spec.audience(change.state, seat, events))
        hidden = any(_fact(e, "private") for e in events)
        lines = [note] if note else []
        worded = self._worded(game.kind, events, game.names)
        # one announcement per action (docs/design.md, Screens, 3): the move as typed, unless an
        # event's sentence tells it, attributed ("Bob lays tile <3> in niche 6."); a sentence
        # that ``continues`` goes on its line ("Alice: MOVE a1 2 N. The 1 on a1 turns ...")
        said = any(_fact(e, "tells_action") for e in events)
        if not (change.seat_change and worded) and not said and change.claimant is None:
            worded = self._worded(game.kind, events, game.names,
                                  after=f"{game.seats[seat].name}: {change.notation}")
        # what the others are told of an action with a hidden part (a tile drawn into a
        # hand): the note and the sentences of its public events, never the move as typed
        public = ([note] if note else []) + self._worded(game.kind, events, game.names,
                                                         public_only=True)
        lines.extend(worded)
        if change.outcome is not None:
            ending = [game.describe(change.outcome), *finish_lines]
            lines.extend(ending)
            public.extend(ending)
        if audience is not None:  # the kind tells it in full to some only
            return Told(lines, facts, seats=audience.seats, watchers=audience.watchers,
                        others=self._outline(game, seat, note, audience, facts))
        if hidden and not facts.new_phase:
            # its player is told all; everyone else what is public of it (the action that
            # starts a new phase, which everyone must look at, is told to all)
            return Told(lines, facts, seats=(seat,), watchers=False, others=Told(public, facts))
        return Told(lines, facts)

    @staticmethod
    def _worded(kind: GameKind, events: list, names: tuple[str, ...],
                public_only: bool = False, after: str | None = None) -> list[str]:
        """The sentences of ``events`` (of the public ones only, if ``public_only``), with
        the players' ``names``, after the line ``after`` if given; an event that
        ``continues`` the one before (or that line) joins its sentence."""
        worded: list[str] = [] if after is None else [after]
        for e in events:
            text = kind.spec.describe_event(e, names)
            if not text or (public_only and _fact(e, "private")):
                continue
            if worded and _fact(e, "continues"):
                last = worded[-1]  # (the move as typed has no full stop of its own)
                worded[-1] = f"{last}{' ' if last.endswith(('.', '!', '?')) else '. '}{text}"
            else:
                worded.append(text)
        return worded

    def _outline(self, game: LiveGame, seat: int, note: str | None, audience: Any,
                 facts: Facts) -> "Told":
        """The action as told to those the kind's ``audience`` does not tell in full: the
        note and its public events' sentences, with the actor's name; and its facts, with
        the board changed only if a public event tells of it."""
        public = audience.public
        said = " ".join(t for t in (game.kind.spec.describe_event(e, game.names) for e in public)
                        if t)
        lines = ([note] if note else []) + ([f"{game.seats[seat].name}: {said}"] if said else [])
        return Told(lines, attrs.evolve(facts, board=bool(said), new_phase=any(
            _fact(e, "new_phase") for e in public)))

    async def _finish(self, tx, game: LiveGame, state: Any, outcome: Outcome,
                      seats: tuple[Seat, ...]) -> list[str]:
        lines = list(await game.kind.on_finish(FinishContext(
            tx, game.id, seats, game.options, state, outcome)))
        # one record per account in the game at its end (computer seats share one account)
        counted: dict[int, int] = {}
        for index, seat in enumerate(seats):
            if not seat.left:
                counted.setdefault(seat.account_id, index)
        humans = list(counted)
        winner = outcome.winner
        if winner is not None:
            won = seats[winner].account_id
            winner = humans.index(won) if counted.get(won) == winner else None
        changes = {}
        ranked = game.ranked and len(seats) == 2
        if game.kind.spec.counts(outcome):
            changes = await record_result(tx, pool(game.kind.key, game.days), humans, winner,
                                          ranked, moves=game.version)  # the moves before this
            if ranked and not rates(game.version):
                lines.append(TOO_SHORT)
        for seat in seats:
            if seat.account_id in changes:
                old, new = changes[seat.account_id]
                title = game.kind.title + (" correspondence" if game.days is not None else "")
                lines.append(f"{seat.name}'s {title} rating: {old:.0f} -> {new:.0f}")
        return lines

    def publish(self, game: LiveGame, event_type: str, told: "Told",
                 also: set[int] = frozenset()) -> None:
        """Tell every audience of ``game`` what it is told of this change, each as one
        self-contained event (a :meth:`LiveGame.frame` with its ``lines`` and the
        action's ``facts``): every player on their account topic (``also`` these
        accounts, players who left with this action) and the watchers on the game topic.
        ``told`` says who hears it in full; the others get ``told.others`` (lines that
        name only what they may know, or none). Each audience gets every version, so a
        consumer that sees a gap has missed an event, and each carries its audience's
        whole view, so the next one draws the board as it stands."""
        seats = {s.account_id: i for i, s in enumerate(game.seats)
                 if s.computer is None and (not s.left or s.account_id in also)}
        for account_id in sorted(told_to(game) | also):
            seat = seats.get(account_id)
            if seat is None:
                continue
            part = told.to(seat)
            self.bus.publish(f"account:{account_id}", Event(
                event_type, game.frame(seat).told(part.lines, part.facts).to_json()))
        topic = f"game:{game.id}"
        if self.bus.wanted(topic):
            part = told.to(None)
            self.bus.publish(topic, Event(
                event_type, game.frame(None).told(part.lines, part.facts).to_json()))

    def tell(self, account_id: int, text: str, event_type: str = "notice") -> None:
        """A notice to one player, on their account topic."""
        self.bus.publish(f"account:{account_id}", Event(event_type, {"text": text}))

    def tell_status(self, account_id: int, fields: dict) -> None:
        """Fields of the player's status for their client (GMCP ``Char.Status``), on
        their account topic; no text."""
        self.bus.publish(f"account:{account_id}", Event("status", fields))
