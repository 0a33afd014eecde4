"""Finished games and the record of every game: its stored moves, a replay of it move
by move, who played it (``game_players``, by which a player's own games are found), and
the last game two players finished (for rematches)."""

from __future__ import annotations

from typing import Any, Iterable

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncSession

from games.outcome import Outcome
from server.db import Database
from server.hosting import GameKind, Seat
from server.models import GameMove, GamePlayer, GameRecord
from server.services.live import GameError, LiveGame

#: How a CLAIM is stored: by the claimant's seat, naming the absent seat (1-based), which
#: the replay resigns for (the kind's ``resign_action``). Games claimed before this were
#: stored as the absent seat's own resignation, and replay as that.
CLAIM = "CLAIM"


def claim_notation(absent: int) -> str:
    """The stored move of a CLAIM against seat ``absent``: "CLAIM 2"."""
    return f"{CLAIM} {absent + 1}"


def claimed_seat(notation: str) -> int | None:
    """The seat a stored CLAIM was against ("CLAIM 2" -> 1); None for any other move."""
    word, _, seat = notation.partition(" ")
    return int(seat) - 1 if word == CLAIM and seat.isdigit() and int(seat) > 0 else None


def claim_words(claimant: str, absent: str) -> str:
    """A claim in words, live and in a replay alike."""
    return f"{claimant} claims the game: {absent} did not come back in time."


# -- who played which game ---------------------------------------------------------------------
async def seated(tx: AsyncSession, game_id: int, seats: Iterable[Seat],
                 before: Iterable[Seat] = ()) -> None:
    """Note the accounts of ``seats`` that were not in ``before`` (the game's seats until
    now) as players of ``game_id`` (:class:`GamePlayer`), in the game's own transaction.
    A game's seats are only ever added to (``GameKind.seats_of``), so an account not in
    ``before`` has never sat in it."""
    new = {s.account_id for s in seats} - {s.account_id for s in before}
    if new:
        await tx.execute(sa.insert(GamePlayer.__table__),
                         [{"account_id": a, "game_id": game_id} for a in sorted(new)])


async def seated_again(tx: AsyncSession, records: Iterable[GameRecord]) -> None:
    """Note the players of stored games that :class:`GamePlayer` lacks, when a node
    takes the games: one begun by a node still on an older release during a rolling
    reload has no rows until then."""
    seats = {r.id: {s["id"] for s in r.seats} for r in records}
    if not seats:
        return
    noted = {(a, g) for a, g in await tx.execute(
        sa.select(GamePlayer.account_id, GamePlayer.game_id)
        .where(GamePlayer.game_id.in_(seats)))}
    missing = [{"account_id": a, "game_id": g} for g, accounts in seats.items()
               for a in sorted(accounts) if (a, g) not in noted]
    if missing:
        await tx.execute(sa.insert(GamePlayer.__table__), missing)


def played_by(account_id: Any, *columns: Any) -> sa.Select:
    """The games ``account_id`` (an id, or a bound parameter) has sat in (``columns``
    of them; whole records when none), newest first: add the conditions and a limit.
    Which seat it sat in, and how, each game's ``seats`` say."""
    return (sa.select(*(columns or (GameRecord,)))
            .join(GamePlayer, GamePlayer.game_id == GameRecord.id)
            .where(GamePlayer.account_id == account_id)
            .order_by(GamePlayer.game_id.desc()))


class Records:
    """Reads of stored games, for every game alike."""

    def __init__(self, db: Database, kinds: dict[str, GameKind]) -> None:
        self.db = db
        self.kinds = kinds

    async def record(self, game_id: int) -> tuple[GameRecord, list[GameMove]]:
        async with self.db.session() as tx:
            record = await tx.get(GameRecord, game_id)
            if record is None:
                raise GameError(f"There is no game #{game_id}.")
            moves = list(await tx.scalars(
                sa.select(GameMove).where(GameMove.game_id == game_id).order_by(GameMove.seq)))
            return record, moves

    async def replay(self, game_id: int, upto: int | None = None) -> tuple[LiveGame, list[GameMove]]:
        """The game as it stood after ``upto`` moves (all of them when None) and the moves
        that may be shown (:meth:`replay_told`)."""
        game, shown, _ = await self.replay_told(game_id, upto)
        return game, shown

    async def replay_told(self, game_id: int, upto: int | None = None
                          ) -> tuple[LiveGame, list[GameMove], list[str]]:
        """The game as it stood after ``upto`` moves (all of them when None), rebuilt
        from its initial state and stored move list as a detached LiveGame shown as the
        game stands now (``LiveGame.now``); the moves that may be shown; and each of
        them in words (the kind's ``describe_move``, told the state before it, else
        "<name>: <notation>"). Each move is applied once.

        A game in play is replayed only as far as its watchers have been told: up to the
        first move the kind's ``audience`` does not tell the watchers of now. REPLAY never
        shows more of it than a watcher may see now, and nothing of a game the kind
        withholds now (``PlaySpec.withheld``: a Par tournament's sealed deals).

        :raises GameError: no such game, a kind not hosted, a game withheld, or no such
            move."""
        record, moves = await self.record(game_id)
        kind = self.kinds.get(record.kind)
        if kind is None:
            raise GameError(f"Game #{game_id} is a game this server does not host now.")
        now = kind.spec.state_from_json(record.state)
        withheld = kind.spec.withheld(now)
        if withheld is not None:
            raise GameError(f"Game #{game_id} may not be shown: {withheld}")
        game = LiveGame(id=record.id, kind=kind, seats=tuple(Seat.from_json(s) for s in record.seats),
                        options=record.options, ranked=record.ranked, seed=record.seed,
                        state=kind.spec.state_from_json(record.initial_state), version=0, now=now)
        game.seats = kind.seats_of(game.state, game.seats)
        live = record.status == "active"
        names = [s["name"] for s in record.seats]  # every seat the game has had
        shown: list[GameMove] = []
        words: list[str] = []
        at: Any = None  # the game after ``upto`` moves
        for move in moves:
            if len(shown) == upto:
                at = (game.state, game.version, game.seats)
            name = names[move.seat] if move.seat < len(names) else "?"
            absent = claimed_seat(move.notation)
            if absent is not None:  # the claimant's CLAIM: the absent seat resigns
                said = claim_words(name, names[absent] if absent < len(names) else "?")
                actor, action = absent, kind.resign_action
            else:
                said = kind.spec.describe_move(game.state, move.seat, move.notation, name)
                actor, action = move.seat, kind.spec.parse_action(move.notation)
            state, events = kind.spec.apply(game.state, actor, action, game.rng(move.seq))
            if live:
                audience = kind.spec.audience(now, actor, events)
                if audience is not None and not audience.watchers:
                    break
            game.state, game.version = state, move.seq
            game.seats = kind.seats_of(state, game.seats)
            shown.append(move)
            words.append(said or f"{name}: {move.notation}")
        if upto is not None and not 0 <= upto <= len(shown):
            yet = " that may be shown yet" if len(shown) < len(moves) else ""
            raise GameError(f"Game #{game_id} has moves 0 to {len(shown)}{yet}.")
        if at is not None:
            game.state, game.version, game.seats = at
        if record.result:
            game.outcome = Outcome.from_json(record.result)
        return game, shown, words

    async def last_finished(self, account_id: int, kind_key: str, opponent: str | None = None,
                            batch: int = 200) -> GameRecord | None:
        """The latest finished ``kind_key`` game that ``account_id`` played, against
        ``opponent`` (a name, or "computer" for the computer at any level) if given."""
        def matches(seats: list[dict]) -> bool:
            mine = [i for i, s in enumerate(seats)
                    if s["id"] == account_id and not s.get("computer")]
            if len(seats) != 2 or len(mine) != 1:
                return False
            other = seats[1 - mine[0]]
            if opponent is None:
                return True
            if opponent.lower() == "computer":
                return bool(other.get("computer"))
            return not other.get("computer") and other["name"].lower() == opponent.lower()

        before = None
        async with self.db.session() as tx:
            while True:
                query = played_by(account_id, GameRecord.id, GameRecord.seats).where(
                    GameRecord.kind == kind_key, GameRecord.status == "finished")
                if before is not None:
                    query = query.where(GamePlayer.game_id < before)
                rows = (await tx.execute(query.limit(batch))).all()
                found = next((game_id for game_id, seats in rows if matches(seats)), None)
                if found is not None:
                    return await tx.get(GameRecord, found)
                if len(rows) < batch:
                    return None
                before = rows[-1][0]
