"""Presence: players who drop mid-game, come back, or are claimed against.

A player whose connection is gone leaves their games waiting: the others are told and
may CLAIM once ``reconnect_grace`` has passed; at a table whose players come and go, the
kind's ``presence`` action (sit out, come back) is applied after ``presence_delay``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Callable

from games.errors import RuleError
from server.services.live import GameError, LiveGame, LiveGames
from server.services.play import Play
from server.services.records import claim_words
from server.services.turns import Turns
from server.text import counted

log = logging.getLogger(__name__)


class Presence:
    """Who is away from which game, and what that allows."""

    # Seconds a player must stay disconnected before the kind's ``presence`` action is
    # applied: a connection that comes straight back, or that a clean shutdown closes
    # (the host is closed before this passes), does not count as leaving.
    presence_delay = 2.0

    def __init__(self, play: Play, turns: Turns, games: LiveGames,
                 reconnect_grace: float) -> None:
        self.play = play
        self.turns = turns
        self.games = games
        self.reconnect_grace = reconnect_grace

    def restored(self, game: LiveGame, is_online: Callable[[int], bool]) -> None:
        """A game loaded at start-up or taken over from another node: every player not
        logged in (on any node) is away until they log in again, gone for good if not
        back in time."""
        if game.at_leisure:
            return  # a correspondence game waits for its players, on its own clock (an
            # adjourned one, until they resume it)
        now = time.time()
        for index, seat in enumerate(game.seats):
            if seat.computer is None and not seat.left and not is_online(seat.account_id):
                game.absent[index] = now
                self.turns.spawn(self._presence(game, index, False, self.reconnect_grace))

    def left(self, account_id: int, name: str) -> None:
        """A player's connection is gone: their games wait (the others may CLAIM after
        the grace; a table's ``presence`` action is applied)."""
        for game in self.games.games_of(account_id):
            if game.days is not None:
                continue  # a correspondence game: nobody is away from it
            seat = game.seat_of(account_id)
            game.absent[seat] = time.time()
            self.turns.spawn(self._presence(game, seat, False, self.presence_delay))
            if game.kind.open_table:  # its ``presence`` says what an absence means
                continue
            for other in game.seats:
                if other.account_id != account_id and other.computer is None and not other.left:
                    self.play.tell(other.account_id,
                                 f"{name} has disconnected from game #{game.id}. If they are "
                                 f"not back within {counted(int(self.reconnect_grace), 'second')} "
                                 "you may "
                                 f"{game.kind.prefix} CLAIM the game.")

    def returned(self, account_id: int, name: str) -> list[LiveGame]:
        """A player is back: their games at a sitting go on (their correspondence games
        were never waiting for them to come back), and are returned to be shown."""
        games = [g for g in self.games.games_of(account_id) if g.days is None]
        for game in games:
            seat = game.seat_of(account_id)
            game.absent.pop(seat, None)
            self.turns.spawn(self._presence(game, seat, True))
            for other in game.seats:
                if other.account_id != account_id and other.computer is None and not other.left:
                    self.play.tell(other.account_id, f"{name} is back in game #{game.id}.")
        return games

    async def _presence(self, game: LiveGame, seat: int, here: bool, delay: float = 0.0) -> None:
        """Apply the kind's action for a player who left (``here`` False) or came back,
        after ``delay`` seconds if they are still away (or still back) by then."""
        if delay:
            await asyncio.sleep(delay)
        account_id = game.seats[seat].account_id
        try:
            async with game.lock:
                if (game.id not in self.games.live or game.seat_of(account_id) != seat
                        or (seat in game.absent) == here):
                    return
                action = game.kind.spec.presence(game.state, seat, here)
                if action is None:
                    return
                await self.play.apply(game, seat, action, seat_change=True)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("game #%d: the presence action for seat %d failed", game.id, seat)
            return
        self.turns.schedule(game)

    async def claim(self, account_id: int, kind_key: str) -> LiveGame:
        """Win a game whose opponent has been away longer than the reconnect grace."""
        game = self.games.playing(account_id, kind_key)
        if game.days is not None:
            raise GameError(f"Game #{game.id} is played by correspondence: nobody is away "
                            "from it, and it ends on time if a move is not made in time.")
        async with game.lock:
            me = game.seat_of(account_id)
            others = [s for s in game.absent if s != me]
            if not others:
                raise GameError("Your opponent is connected; there is nothing to claim.")
            seat = min(others, key=lambda s: game.absent[s])
            waited = time.time() - game.absent[seat]
            if waited < self.reconnect_grace:
                left = int(self.reconnect_grace - waited + 0.999)
                raise GameError(f"{game.seats[seat].name} may still come back; you can CLAIM "
                                f"in {counted(left, 'second')}.")
            absent = game.seats[seat].name
            clock = game.kind.arm_clock(game.state)
            if clock is not None and clock[1] == seat:
                # the game waits only for what the absent player's clock would do for
                # them (a Triptycha winner's DONE in trading): do it now
                await self.play.apply(game, seat, clock[2],
                                  note=f"{absent} did not come back; {game.seats[me].name} "
                                       f"claims their turn.")
                return game
            try:
                await self.play.apply(game, seat, game.kind.resign_action,
                                      note=claim_words(game.seats[me].name, absent),
                                      claimant=me)
            except RuleError:
                raise GameError(f"The game is decided; it waits for you, not for {absent}: "
                                f"there is nothing to claim.") from None
        return game
