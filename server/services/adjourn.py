"""Adjourned games: a game at a sitting put aside by both its players and taken up again
later (``ADJOURN``, ``RESUME <game>``), as on FICS.

- Either player of a game of two people at a sitting asks (``ADJOURN``); the game is
  adjourned when the other agrees (``ADJOURN`` too, before the next move). A game against
  the computer, at a table whose players come and go, of a tournament, or by
  correspondence is not adjourned.
- An adjourned game stays in the store as it stood (``options["adjourned"]``, written
  over the version and epoch this node holds, as every write of a game is), and stays
  driven by its node, but takes no player's place: both may play other games. It has no
  clock, no computer's turn, and nobody is away from it (no CLAIM); its players' moves
  do not reach it. MYGAMES lists it.
- ``RESUME <game>`` asks to take it up again; it resumes when the other player, who must
  be connected, agrees (``RESUME <game>`` too), and neither plays another game of that
  kind at a sitting. Then it is a game at a sitting again: its board is drawn for both,
  its clock and turns go on.

What each has asked is kept here, in memory, for the game's version it was asked at: a
move, or a restart, forgets it.
"""

from __future__ import annotations

from typing import Any, Callable

import sqlalchemy as sa

from server.db import Database
from server.frames import Facts
from server.models import GameRecord
from server.services.live import GameError, LiveGame, LiveGames, Told
from server.services.play import Play
from server.services.turns import Turns


class Adjournments:
    def __init__(self, db: Database, games: LiveGames, play: Play, turns: Turns,
                 is_online: Callable[[int], bool],
                 in_tournament: Callable[[int], bool] = lambda _: False) -> None:
        self.db = db
        self.in_tournament = in_tournament  # whether a game is a tournament's
        self.games = games
        self.play = play
        self.turns = turns
        self.is_online = is_online
        # game -> (what was asked, the seat that asked, the game's version then)
        self._asked: dict[int, tuple[str, int, int]] = {}

    def adjourned_of(self, account_id: int) -> list[LiveGame]:
        """``account_id``'s adjourned games held here, by number."""
        return [g for _, g in sorted(self.games.live.items())
                if g.adjourned and g.seat_of(account_id) is not None]

    # -- ADJOURN -------------------------------------------------------------------------
    async def adjourn(self, account_id: int, number: int | None) -> str:
        """Ask to adjourn the player's game (``number``, or their one game at a sitting),
        or agree to the other's asking. What to tell the player."""
        game = self._game_to_adjourn(account_id, number)
        seat = game.seat_of(account_id)
        assert seat is not None
        other = 1 - seat
        if self._asked.get(game.id) == ("adjourn", other, game.version):
            await self._set(game, True)
            line = (f"{game.title} is adjourned. RESUME {game.id} takes it up again when "
                    "you are both here; MYGAMES lists it.")
            # its line alone, no board (nobody is to move in an adjourned game); every
            # audience's frame says it is adjourned
            self.play.publish(game, "game.update", Told([line], Facts(
                actor=seat, was_to_move=(), board=False)))
            return ""
        self._asked[game.id] = ("adjourn", seat, game.version)
        me = game.seats[seat].name
        self.play.tell(game.seats[other].account_id,
                       f"{me} asks to adjourn game #{game.id} ({game.kind.title}). Type "
                       f"ADJOURN {game.id} to agree; play on to refuse.")
        return (f"You ask {game.seats[other].name} to adjourn game #{game.id}; it is "
                "adjourned when they agree before the next move.")

    def _game_to_adjourn(self, account_id: int, number: int | None) -> LiveGame:
        if number is None:
            mine = [g for g in self.games.games_of(account_id) if g.days is None]
            if not mine:
                raise GameError("You are not playing a game at a sitting.")
            if len(mine) > 1:
                raise GameError("You play more than one game: ADJOURN <game> says which "
                                f"({', '.join(f'#{g.id}' for g in mine)}).")
            game = mine[0]
        else:
            game = self.games.live.get(number)
            if game is None or game.seat_of(account_id) is None:
                raise GameError(f"You are not playing a game #{number}.")
        if game.adjourned:
            raise GameError(f"Game #{game.id} is adjourned already (RESUME {game.id}).")
        if game.days is not None:
            raise GameError(f"Game #{game.id} is played by correspondence: it waits for "
                            "each move already.")
        if game.kind.open_table or game.kind.simultaneous:
            raise GameError(f"{game.kind.title} games are not adjourned.")
        if self.in_tournament(game.id) or game.options.get("tournament") is not None:
            raise GameError("A tournament's game is not adjourned.")
        if len(game.seats) != 2 or any(s.computer is not None for s in game.seats):
            raise GameError("Only a game between two people is adjourned (the computer "
                            "does not wait: resign, or play on).")
        return game

    # -- RESUME --------------------------------------------------------------------------
    async def resume(self, account_id: int, number: int) -> str:
        """Ask to take adjourned game ``number`` up again, or agree to the other's asking.
        What to tell the player."""
        game = self.games.live.get(number)
        if game is None or not game.adjourned:
            raise GameError(f"There is no adjourned game #{number} here. (MYGAMES lists "
                            "yours.)")
        seat = game.seat_of(account_id)
        if seat is None:
            raise GameError(f"You are not playing game #{number}.")
        other = 1 - seat
        them = game.seats[other]
        if not self.is_online(them.account_id):
            raise GameError(f"{them.name} is not connected; game #{number} resumes when "
                            "you are both here.")
        for player in game.seats:
            busy = self.games.realtime_of(player.account_id, game.kind.key)
            if busy is not None:
                who = "You play" if player.account_id == account_id else f"{player.name} plays"
                raise GameError(f"{who} game #{busy.id} of {game.kind.title}; finish it "
                                "first.")
        if self._asked.get(game.id) == ("resume", other, game.version):
            await self._set(game, False)
            self.play.publish(game, "game.update", Told(
                [f"{game.title} resumes."], None))
            self.turns.schedule(game)
            return ""
        self._asked[game.id] = ("resume", seat, game.version)
        self.play.tell(them.account_id,
                       f"{game.seats[seat].name} would take up adjourned game #{number} "
                       f"({game.kind.title}) again. Type RESUME {number} to agree.")
        return f"You ask {them.name} to resume game #{number}; it resumes when they agree."

    # -- both -----------------------------------------------------------------------------
    async def _set(self, game: LiveGame, adjourned: bool) -> None:
        """Store the game as adjourned (or not) over the version and epoch held here, and
        let it take its players' places (or give them up)."""
        await self.games.check()
        async with game.lock:
            if not self.games.holds(game):
                raise GameError("That game is played on another server now; type that again.")
            options: dict[str, Any] = {k: v for k, v in game.options.items()
                                       if k != "adjourned"}
            if adjourned:
                options["adjourned"] = True
            async with self.db.session() as tx:
                result = await tx.execute(
                    sa.update(GameRecord)
                    .where(GameRecord.id == game.id, GameRecord.version == game.version,
                           GameRecord.epoch == game.epoch)
                    .values(options=options))
                if result.rowcount != 1:
                    self.games.drop(game)
                    raise GameError("That game is played on another server now; type "
                                    "that again.")
                await tx.commit()
            self.games.reoption(game, options)
            self._asked.pop(game.id, None)
