"""What happens after a change by itself: a computer seat's move, and a game's clock.

After every change the host calls :meth:`Turns.schedule`: a computer seat to move thinks
(off the event loop, in a thread, within the host's budget) and moves; a game whose rules
give someone a time to act (``GameKind.arm_clock``) gets a timer that applies the default
action if nothing has changed meanwhile. Every task is the host's, cancelled when it
closes.
"""

from __future__ import annotations

import asyncio
import logging
import random
from typing import Any, Callable

from games.errors import RuleError
from server.services.live import GameError, LiveGame, LiveGames
from server.services.play import Play
from server.tasks import cancel_and_wait

log = logging.getLogger(__name__)


class Turns:
    """Computer turns and clocks, for every game alike."""

    def __init__(self, play: Play, games: LiveGames, computer_budget: float) -> None:
        self.play = play
        self.games = games
        self.computer_budget = computer_budget
        self._tasks: set[asyncio.Task] = set()
        # told after every change of a game (and when one is restored here), with the
        # note told before it if any: a correspondence game's clock and notices
        # (server/services/correspondence.py)
        self.after: list[Callable[[LiveGame, str | None], None]] = []

    def schedule(self, game: LiveGame, note: str | None = None) -> None:
        """After a change: let a computer seat move, and arm the game's clock if any."""
        self._schedule_computer(game)
        self._schedule_timeout(game)
        for after in self.after:
            after(game, note)

    def spawn(self, coro) -> asyncio.Task:  # noqa: ANN001
        """Run ``coro`` as a background task of the host (a clock, a computer's move, a
        game's helper that plays for a player); it is cancelled when the host closes."""
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def close(self) -> None:
        await cancel_and_wait(self._tasks, what="game tasks")

    def _schedule_timeout(self, game: LiveGame) -> None:
        if not self.games.holds(game) or game.at_leisure:
            return  # (a correspondence game's clock is its days: server/services/correspondence.py)
        clock = game.kind.arm_clock(game.state)
        if clock is not None:
            self.spawn(self._timeout(game, game.version, *clock))

    async def _timeout(self, game: LiveGame, version: int, seconds: float, seat: int,
                       action: Any, note: str | None = None) -> None:
        await asyncio.sleep(seconds)
        try:
            async with game.lock:
                if game.version != version or not self.games.holds(game):
                    return  # something happened meanwhile: that change armed its own clock
                await self.play.apply(game, seat, action,
                                  note=f"Time is up for {game.seats[seat].name}."
                                  if note is None else note)
        except asyncio.CancelledError:
            raise
        except GameError as err:  # let go meanwhile: its clock runs where it is driven
            log.info("game #%d: the timeout action was not applied here (%s)", game.id, err)
            return
        except Exception:
            log.exception("game #%d: the timeout action %r failed", game.id, action)
            return
        self.schedule(game)

    def _schedule_computer(self, game: LiveGame) -> None:
        if not self.games.holds(game):
            return
        movers = [s for s in game.kind.spec.to_move(game.state) if game.seats[s].computer]
        if not game.kind.simultaneous:
            if movers:
                self.spawn(self._computer_turn(game, movers[0], game.version))
            return
        for seat in movers:  # seats acting at once: one move in flight per computer seat
            if seat not in game.thinking:
                game.thinking.add(seat)
                self.spawn(self._computer_turn(game, seat, game.version))

    async def _computer_turn(self, game: LiveGame, seat: int, version: int) -> None:
        kind = game.kind
        try:
            await asyncio.sleep(kind.pace(game, seat))
            level = game.seats[seat].computer
            rng = random.Random(f"{game.seed}:ai:{version}:{seat}" if kind.simultaneous
                                else f"{game.seed}:ai:{version}")
            action = await asyncio.to_thread(kind.computer_move, game.state, seat, level,
                                             rng, self.computer_budget)
            async with game.lock:
                if not self.games.holds(game):
                    return
                if game.version != version and not (
                        kind.simultaneous and seat in kind.spec.to_move(game.state)):
                    return
                try:
                    await self.play.apply(game, seat, action)
                except RuleError:
                    if not kind.simultaneous:
                        raise
                    # the others' moves made this one stale: choose again (below)
        except asyncio.CancelledError:
            raise
        except GameError as err:  # let go meanwhile: the node driving it moves for it
            log.info("game #%d: the computer's move was not applied here (%s)", game.id, err)
            return
        except Exception:
            log.exception("game #%d: the computer failed to move", game.id)
            return
        finally:
            game.thinking.discard(seat)
        self.schedule(game)
