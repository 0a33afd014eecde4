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

import sqlalchemy as sa

from games.outcome import Outcome
from server.bus import Bus, Event
from server.db import Database
from server.hosting import ActionContext, FinishContext, GameKind, Seat, StartContext
from server.models import GameMove, GameRecord
from server.services.live import GameError, LiveGame, LiveGames, Told
from server.services.ratings import TOO_SHORT, rates, record_result
from server.services.records import claim_notation


def _fact(event: Any, name: str) -> bool:
    """An event's fact (``private``, ``new_phase``, ``tells_action``, ``continues``:
    games/__init__.py), false when it has none."""
    return bool(getattr(event, name, False))


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
                options=options, ranked=kind.is_ranked(options), seed=seed,
                initial_state={}, state={}, version=0, node=self.games.node, created_at=now,
                updated_at=now,
            )
            tx.add(record)
            await tx.flush()
            rng = random.Random(f"{seed}:0")
            state = await kind.on_start(StartContext(tx, record.id, seats, options, rng))
            record.initial_state = record.state = kind.state_to_json(state)
            await tx.commit()
        game = LiveGame(id=record.id, kind=kind, seats=seats, options=options,
                        ranked=record.ranked, seed=seed, state=state, version=0)
        self.games.add(game)
        opts = kind.describe_options(options)
        self.publish(game, "game.start", Told(
            [f"{game.title} begins{' (' + opts + ')' if opts else ''}."], {}))
        return game

    async def apply(self, game: LiveGame, seat: int | None, action: Any, note: str | None = None,
                     seat_change: bool = False, auto: bool = False,
                     claimant: int | None = None) -> None:
        """Apply, commit, then tell: ``note``, then ``<name>: <notation>`` (the move as
        typed, which players and scripts read back), then the events' words.

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
        seat_change = seat_change or seat >= len(game.seats) or game.seats[seat].left
        step = game.version + 1
        new_state, events = game.kind.apply(game.state, seat, action, game.rng(step))
        notation = game.kind.format_action(action)
        outcome = game.kind.outcome(new_state)
        seats = game.kind.seats_of(new_state, game.seats)
        finish_lines: list[str] = []
        now = time.time()
        async with self.db.session() as tx:
            values: dict[str, Any] = dict(state=game.kind.state_to_json(new_state),
                                          version=step, updated_at=now)
            if seats != game.seats:
                values.update(seats=[s.to_json() for s in seats])
            if outcome is not None:
                values.update(status="finished", result=outcome.to_json())
            result = await tx.execute(
                sa.update(GameRecord)
                .where(GameRecord.id == game.id, GameRecord.version == game.version,
                       GameRecord.epoch == game.epoch)
                .values(**values))
            if result.rowcount != 1:
                # another node adopted the game since (a newer epoch) or stored a move of
                # it: this node lost its hold on it, and lets it go; its players' commands
                # go to the node that drives it now
                self.games.drop(game)
                raise GameError("That game is played on another server now; type that "
                                "again.")
            stored = (seat, notation) if claimant is None else (claimant, claim_notation(seat))
            tx.add(GameMove(game_id=game.id, seq=step, seat=stored[0], notation=stored[1],
                            created_at=now))
            await game.kind.on_action(ActionContext(
                tx, game.id, game.seats, game.options, seat, action, game.state, new_state,
                events))
            if outcome is not None:
                finish_lines = await self._finish(tx, game, new_state, outcome, seats)
            await tx.commit()
        facts = {"actor": seat, "was_to_move": list(game.kind.to_move(game.state)),
                 "to_move": [] if outcome else list(game.kind.to_move(new_state)),
                 "board": not events or not all(_fact(e, "private") for e in events),
                 "new_phase": any(_fact(e, "new_phase") for e in events), "auto": auto}
        players = told_to(game)  # a player who leaves with this action hears of it too
        # everyone is told how a game ends, unless the kind withholds the game (then its
        # audience holds to the end: a Par tournament's sealed deals)
        audience = (None if outcome is not None and game.kind.withheld(new_state) is None
                    else game.kind.audience(new_state, seat, events))
        if seats != game.seats:
            self.games.reseat(game, seats)
        game.state = new_state
        game.version = step
        game.since = time.time()
        hidden = any(_fact(e, "private") for e in events)
        lines = [note] if note else []
        worded = self._worded(game.kind, events, game.names)
        # one announcement per action (docs/design.md, Screens, 3): the move as typed, unless an
        # event's sentence tells it, attributed ("Bob lays tile <3> in niche 6."); a sentence
        # that ``continues`` goes on its line ("Alice: MOVE a1 2 N. The 1 on a1 turns ...")
        said = any(_fact(e, "tells_action") for e in events)
        if not (seat_change and worded) and not said and claimant is None:
            worded = self._worded(game.kind, events, game.names,
                                  after=f"{game.seats[seat].name}: {notation}")
        # what the others are told of an action with a hidden part (a tile drawn into a
        # hand): the note and the sentences of its public events, never the move as typed
        public = ([note] if note else []) + self._worded(game.kind, events, game.names,
                                                         public_only=True)
        lines.extend(worded)
        if outcome is not None:
            game.outcome = outcome
            ending = [game.describe(outcome), *finish_lines]
            lines.extend(ending)
            public.extend(ending)
            self.games.drop(game)
        full = Told(lines, facts)
        if audience is not None:  # the kind tells it in full to some only
            full = Told(lines, facts, seats=audience.seats, watchers=audience.watchers,
                        others=self._outline(game, seat, note, audience, facts))
        elif hidden and not facts["new_phase"]:
            # its player is told all; everyone else what is public of it (the action that
            # starts a new phase, which everyone must look at, is told to all)
            full = Told(lines, facts, seats=(seat,), watchers=False, others=Told(public, facts))
        self.publish(game, "game.end" if outcome else "game.update", full, also=players)

    @staticmethod
    def _worded(kind: GameKind, events: list, names: tuple[str, ...],
                public_only: bool = False, after: str | None = None) -> list[str]:
        """The sentences of ``events`` (of the public ones only, if ``public_only``), with
        the players' ``names``, after the line ``after`` if given; an event that
        ``continues`` the one before (or that line) joins its sentence."""
        worded: list[str] = [] if after is None else [after]
        for e in events:
            text = kind.describe_event(e, names)
            if not text or (public_only and _fact(e, "private")):
                continue
            if worded and _fact(e, "continues"):
                last = worded[-1]  # (the move as typed has no full stop of its own)
                worded[-1] = f"{last}{' ' if last.endswith(('.', '!', '?')) else '. '}{text}"
            else:
                worded.append(text)
        return worded

    def _outline(self, game: LiveGame, seat: int, note: str | None, audience: Any,
                 facts: dict[str, Any]) -> "Told":
        """The action as told to those the kind's ``audience`` does not tell in full: the
        note and its public events' sentences, with the actor's name; and its facts, with
        the board changed only if a public event tells of it."""
        public = audience.public
        said = " ".join(t for t in (game.kind.describe_event(e, game.names) for e in public)
                        if t)
        lines = ([note] if note else []) + ([f"{game.seats[seat].name}: {said}"] if said else [])
        return Told(lines, {**facts, "board": bool(said),
                            "new_phase": any(_fact(e, "new_phase") for e in public)})

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
        if game.kind.counts(outcome):
            changes = await record_result(tx, game.kind.key, humans, winner, ranked,
                                          moves=game.version)  # the moves before this one
            if ranked and not rates(game.version):
                lines.append(TOO_SHORT)
        for seat in seats:
            if seat.account_id in changes:
                old, new = changes[seat.account_id]
                lines.append(f"{seat.name}'s {game.kind.title} rating: {old:.0f} -> {new:.0f}")
        return lines

    def publish(self, game: LiveGame, kind: str, told: "Told",
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
            self.bus.publish(f"account:{account_id}", Event(kind, {
                **game.frame(seat), "lines": part.lines, **part.facts}))
        topic = f"game:{game.id}"
        if self.bus.wanted(topic):
            part = told.to(None)
            self.bus.publish(topic, Event(kind, {**game.frame(None), "lines": part.lines,
                                                 **part.facts}))

    def tell(self, account_id: int, text: str, kind: str = "notice") -> None:
        """A notice to one player, on their account topic."""
        self.bus.publish(f"account:{account_id}", Event(kind, {"text": text}))
