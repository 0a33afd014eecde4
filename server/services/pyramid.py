"""Pyramid on the parlor: the ``pyr`` game kind (prefix ``PYR``, GMCP ``Pyramid.Game``)
and its services: the TOP 10, saved tournaments, per-player config, HINT, AUTO and the
solver's verdict after every game.

The engine (``games/pyramid``) plays one *match* for one player: a standard game (one
deal) or a tournament (six deals). A hosted Pyramid game is a ``games.pyramid.match.Table``:
one match per seat, all played at once. The table is an engine like the others (its rules,
SAVE/EXIT/NEW and their refusals, notation, JSON, views and words are
``games/pyramid/match.py``); this module adds what needs the parlor.

* Standard play and a tournament alone: one seat.
* A tournament against the computer: two seats, the second a computer seat that the host
  moves (``GameKind.simultaneous``) at the player's configured speed (``GameKind.pace``:
  slow, medium, fast are 2, 0.8 and 0.2 times ``[games] computer_delay``). It sees only
  what a person would (``games.pyramid.ai``). With Use Same Deck it plays each deal only
  after the player has finished it, so its moves never tell anything of a deal the
  player has still to play.
* A tournament against a person: two human seats, offered with ``PYR TOUR HUMAN <person>``
  (or ``PYR CHALLENGE <person>``) and accepted with ``PYR ACCEPT``. Each player is told
  only of their own moves (``PlaySpec.audience``), and of the other's when one of the
  other's games ends; every board shows the other's running score.
* Use Same Deck: nobody but its player sees a deal, or hears of its moves, before both
  players have finished it: not the other, not a watcher, not the web door nor REPLAY
  (``games.pyramid.match.is_shown``, through ``view_for`` and ``audience``).

Durability: the table is the host's game state, committed with every move, so a
tournament survives a disconnect and a restart without SAVE. ``PYR SAVE`` puts a
tournament away (a ``pyramid_saves`` row written in the transaction that closes the
game; the computer waits too) and ``PYR RESTORE`` takes it up again (the row is deleted
in the transaction that starts the new game). The TOP 10 (``pyramid_top10``) is written
in the transaction that finishes a tournament. Config lives in the account's settings
(``settings["pyramid"]``).

Decisions where docs/rules/pyramid.md is silent:

* SAVE puts the tournament away (it leaves play, and RESTORE brings it back exactly as it
  was): a snapshot one could go back to after seeing the Pack would let a player replay a
  deal knowing its order. A tournament against a person cannot be saved; EXIT there
  resigns it (the other wins). A player may keep several saved tournaments.
* NEW, QUIT, EXIT and TOUR (over a game in progress) end something: with moves made they
  ask first, and the same command with ``YES`` does it (the original game's Yes/No dialog).
* END (``PYR END``) ends the current game as it stands, in either mode; a NEW or QUIT in
  standard play does the same. A saved, exited or renewed tournament is not counted in
  the records and never enters the TOP 10; only a complete tournament above zero does.
  The computer's scores do not enter the TOP 10.
* AUTO plays at the configured speed with the computer's "normal" player; any move the
  player types, or ``PYR AUTO STOP``, stops it; it stops when the player disconnects and
  is not resumed after a restart.
* Error messages off: a refused move rings the bell only (with Sound off too, it says
  just "Refused.", so a line is never silently dropped). Sound full rings at every game's
  end (with the solver's verdict), partial only on errors.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
import time
from collections import OrderedDict
from typing import Any, Awaitable, Callable, Hashable

import attrs
import sqlalchemy as sa

from games.errors import RuleError
from games.pyramid import ai, notation, rules, solver, solver_build
from games.pyramid.cards import card_text
from games.pyramid.match import (SAVE, MatchEvent, Table, deal_scores, new_table,
                                 state_from_json, state_to_json, to_move)
from games.pyramid.spec import SPEC
from server.hosting import ActionContext, FinishContext, GameKind, Seat, StartContext, WebPage
from server.models import Account, GameRecord
from server.services.games import GameError, LiveGame
from server.services.pyramid_par import ParTournament
from server.services.pyramid_worker import (AUTO_BUDGET, HINT_BUDGET, SOLUTION_LIMIT,
                                           VERDICT_LIMIT, solve, think_hint)
from server.services.pyramid_models import PyramidSave, PyramidTopScore
from server.services.records import played_by
from server.text import counted
from server.workers import Asker, Busy, FairQueue, Job

log = logging.getLogger(__name__)

KEY = SPEC.key

SPEEDS = ("slow", "medium", "fast")
SOUNDS = ("full", "partial", "off")
#: seconds per computer (or AUTO) move, as multiples of ``[games] computer_delay``
SPEED_FACTOR = {"slow": 2.0, "medium": 0.8, "fast": 0.2}
TOP = 10
BELL = "\x07"

# Players share the solver's worker (server/services/pyramid_worker.py) through a
# SolverDesk: turns by address, then by player; at most one request of a player's own
# waiting or running, and SOLVES_PER_ADDRESS of an address's (one address may hold many
# accounts); ANSWERS_KEPT answers remembered.
SOLVES_PER_ADDRESS = 2
ANSWERS_KEPT = 256
WHERE_KEPT = 4096  # players whose address is remembered for their verdicts' turns


class SolverBusy(Exception):
    """A request for the solver refused: its player, or their address, already has one
    waiting. The message is for the player."""


class SolverDesk:
    """The solver's worker shared fairly between players, and its answers remembered.

    Every search a player causes (ANALYSE, HINT, PYR SOLUTION, the verdict after a game)
    comes here with its :class:`Asker`. A :class:`FairQueue` gives the worker to one
    address after another and, within an address, to one player after another, so an
    address looping ANALYSE on many connections delays another player by about one search,
    not by its whole queue. What a player asks for (``limited``) is refused with
    :class:`SolverBusy` when they already have a request waiting or running, or their
    address ``per_address``; verdicts, bounded by their caller (one player, one at a
    time), and the server's own work are never refused.

    An answer depends only on what was asked (the position, the goal and the budget: the
    budget is counted in nodes, so the answer is the same on a busy server), so the last
    ``size`` answers are kept: the same position asked for twice costs one search, and a
    question asked while the same one is being worked out waits for that answer.
    """

    def __init__(self, size: int = ANSWERS_KEPT, per_address: int = SOLVES_PER_ADDRESS,
                 spawn: Callable[[Awaitable[Any]], Any] | None = None) -> None:
        self.queue = FairQueue(slots=1, per_asker=1, per_address=per_address)
        self.size = size
        self.spawn = spawn or asyncio.ensure_future
        self.searches = 0  # searches run (not answered from memory), for the tests
        self._answers: OrderedDict[Hashable, Any] = OrderedDict()
        self._pending: dict[Hashable, asyncio.Future] = {}

    async def solve(self, game: rules.Game, goal: str, seconds: float,
                    asker: Asker = Asker.SERVER, *, limited: bool = True) -> solver.Solution:
        """The solver's answer for ``game`` (the position as it stands)."""
        return await self._ask(("solve", goal, seconds, game), asker, limited,
                               lambda: solve(game, goal, seconds))

    async def hint(self, state: rules.State, asker: Asker, *,
                   limited: bool = True) -> rules.Action | None:
        """HINT's move for the match ``state`` (seat 0's)."""
        return await self._ask(("hint", HINT_BUDGET, state), asker, limited,
                               lambda: think_hint(state, HINT_BUDGET))

    async def _ask(self, key: Hashable, asker: Asker, limited: bool,
                   work: Callable[[], Awaitable[Any]]) -> Any:
        limited = limited and asker.account_id is not None  # the server's own: never refused
        if key in self._answers:
            self._answers.move_to_end(key)
            return self._answers[key]
        pending = self._pending.get(key)
        if pending is None:
            try:
                job = self.queue.enter(asker, limited=limited)
            except Busy as busy:
                raise SolverBusy(_busy_text(busy)) from None
            pending = self._pending[key] = self.spawn(self._search(key, job, work))
            pending.add_done_callback(_retrieved)
        # shielded: a player who goes away leaves the search to finish for the others
        return await asyncio.shield(pending)

    async def _search(self, key: Hashable, job: Job, work: Callable[[], Awaitable[Any]]) -> Any:
        try:
            answer = await self.queue.serve(job, self._counted(work))
        finally:
            self._pending.pop(key, None)
        self._answers[key] = answer
        while len(self._answers) > self.size:
            self._answers.popitem(last=False)
        return answer

    def _counted(self, work: Callable[[], Awaitable[Any]]) -> Callable[[], Awaitable[Any]]:
        async def counted() -> Any:
            self.searches += 1
            return await work()
        return counted


def _retrieved(task: asyncio.Future) -> None:
    """A search's failure is for its askers to report (asyncio need not warn of it)."""
    if not task.cancelled():
        task.exception()


def _busy_text(busy: Busy) -> str:
    if busy.why == "asker":
        return "The solver is still analysing for you; ask again once it has answered."
    return (f"The solver is still analysing {counted(busy.limit, 'request')} from your "
            "address; ask again once one has been answered.")


# -- per-player config ----------------------------------------------------------------------
@attrs.frozen
class Prefs:
    """CONFIG: Speed, Error messages, Use Same Deck, Sound (the original game's options; Mouse has
    no meaning over telnet)."""

    speed: str = attrs.field(default="medium", validator=attrs.validators.in_(SPEEDS))
    errors: bool = attrs.field(default=True, converter=bool)
    same_deck: bool = attrs.field(default=False, converter=bool)
    sound: str = attrs.field(default="full", validator=attrs.validators.in_(SOUNDS))

    @classmethod
    def from_settings(cls, settings: dict[str, Any] | None) -> "Prefs":
        data = (settings or {}).get("pyramid") or {}
        try:
            return cls(**{k: data[k] for k in ("speed", "errors", "same_deck", "sound")
                          if k in data})
        except (TypeError, ValueError):
            return cls()

    def to_json(self) -> dict[str, Any]:
        return {"speed": self.speed, "errors": self.errors, "same_deck": self.same_deck,
                "sound": self.sound}

    def describe(self) -> list[str]:
        yn = {True: "yes", False: "no"}
        rows = (("Speed", self.speed, "SLOW|MEDIUM|FAST: the computer and AUTO"),
                ("Error messages", yn[self.errors], "YES|NO: NO = only a bell"),
                ("Use same deck", yn[self.same_deck], "YES|NO: the same deals for both"),
                ("Sound", self.sound, "FULL|PARTIAL|OFF: the bell at game end, errors"))
        return [f"{name:<15}{value:<8}({note})" for name, value, note in rows]


@attrs.frozen
class Deal:
    """A finished deal of a player: what the solver looks at for PYR SOLUTION.
    ``score`` is the Par score the player made on it (None when not known)."""

    seed: int
    game_no: int
    games: int
    game_id: int
    score: int | None = None

    @property
    def label(self) -> str:
        if self.games == 1:
            return f"your last game (#{self.game_id})"
        return f"game {self.game_no} of {self.games} of your tournament (#{self.game_id})"

    @property
    def where(self) -> str:
        return "this deal" if self.games == 1 else f"the deal of game {self.game_no}"


@attrs.define(eq=False)
class Auto:
    """AUTO playing a player's standard game; ``stop`` ends it between two moves."""

    game_id: int
    stop: asyncio.Event = attrs.field(factory=asyncio.Event)


Solve = Callable[[rules.Game, str, float], Awaitable[solver.Solution]]


async def judge(seed: int, ask: Solve | None = None) -> tuple[str, str, solver.Solution]:
    """(could it be won -- all 52 cards removed?, could the pyramid be cleared?) as
    "win" | "lose" | "unknown", and the best Par (``solver.solve_par``: a line, and
    ``lower``/``upper`` bounds that meet when proven).

    The best Par line settles both questions when it removes all 52 cards, and the
    pyramid one when it clears the pyramid; the win searches run only for the rest.
    ``ask`` runs each search (a turn at a :class:`SolverDesk`; by default :func:`solve`)."""
    ask = ask or solve
    game = rules.Game.dealt(seed)
    best = await ask(game, "par", SOLUTION_LIMIT)
    if best.result == "win":
        return "win", "win", best
    cleared = "win" if _replay(seed, best.moves).cleared_in else None
    if cleared is None:
        cleared = (await ask(game, "pyramid", VERDICT_LIMIT)).result
    full = "lose" if cleared == "lose" else (await ask(game, "all", VERDICT_LIMIT)).result
    return full, cleared, best


@attrs.frozen
class Line:
    """PYR SOLUTION: the best Par line of a deal (``best``) and whether the deal could
    be won, all 52 cards removed (``won``: "win" | "lose" | "unknown")."""

    best: solver.Solution
    won: str
    cleared: str = "unknown"


async def best_line(seed: int, ask: Solve | None = None) -> Line:
    """The solver's best Par line for the deal of ``seed`` (exact unless its time ran out:
    then ``best.lower``/``best.upper`` bound it)."""
    won, cleared, best = await judge(seed, ask)
    return Line(best, won, cleared)


def _replay(seed: int, moves) -> rules.Game:  # noqa: ANN001
    game = rules.Game.dealt(seed)
    for action in moves:
        game, _ = rules.play(game, action)
    return game


def ending(end: rules.Game) -> str:
    """How a finished line ends: "all 52 cards removed, the pyramid cleared in deal 1",
    "the pyramid cleared in deal 2, 4 cards left", "the pyramid not cleared, 3 cards left"."""
    if end.cards_left == 0:
        return f"all 52 cards removed, the pyramid cleared in deal {end.cleared_in}"
    if end.cleared_in:
        return (f"the pyramid cleared in deal {end.cleared_in}, "
                f"{counted(end.cards_left, 'card')} left")
    return f"the pyramid not cleared, {counted(end.cards_left, 'card')} left"


def best_par_text(seed: int, best: solver.Solution) -> str:
    """"the best possible Par score was +46 (the pyramid cleared in deal 1, 4 cards
    left)", or with bounds when not proven: "... was at least -5, at most +3 (...)".
    The parenthesis tells how the best line found ends."""
    how = ending(_replay(seed, best.moves))
    if best.proven:
        return f"the best possible Par score was {best.score:+d} ({how})"
    return (f"the best possible Par score was at least {best.lower:+d}, at most "
            f"{best.upper:+d} (the best line found, in {SOLUTION_LIMIT:.0f} seconds: "
            f"{best.lower:+d}, {how})")


def reached_text(score: int | None, best: solver.Solution) -> str:
    """Whether the player's Par score reached the best possible one."""
    if score is None:
        return ""
    if score >= best.upper:
        return f"your {score:+d} reached it"
    if score >= best.lower:
        return f"your {score:+d} is as good as the best line found"
    return f"your {score:+d} fell {best.lower - score} short of it"


def won_text(where: str, won: str, cleared: str) -> str:
    """"Could have been won" means all 52 cards removed (docs/rules/pyramid.md), everywhere."""
    if won == "win":
        return f"{where} could have been won (all 52 cards removed)"
    if won == "lose" and cleared == "win":
        return (f"{where} could not have been won (not all 52 cards can go), but the "
                "pyramid could have been cleared")
    if won == "lose":
        return f"{where} could not have been won: the pyramid cannot be cleared"
    return f"whether {where} could have been won was not decided in time"


def verdict_text(where: str, found: Line, score: int | None, seed: int) -> str:
    """The solver's verdict after a game, in one sentence: could the deal have been won,
    what the best possible Par was, and whether the player's score reached it."""
    best = found.best
    won, par = won_text(where, found.won, found.cleared), best_par_text(seed, best)
    if "all 52 cards removed" in par:  # said once
        won = won.replace(" (all 52 cards removed)", "")
    text = f"{won}; {par}"
    if found.won == "win" and best.result != "win" and best.proven:
        text += ", more than any win scores"
    reached = reached_text(score, best)
    if reached:
        text += f", and {reached}"
    return text[0].upper() + text[1:] + "."


def solution_text(deal: Deal, found: Line) -> str:
    """The head of PYR SOLUTION: the same facts as the verdict, about the line shown."""
    best = found.best
    proof = ("proved best" if best.proven else
             f"the best found in {SOLUTION_LIMIT:.0f} seconds; the best possible is at most "
             f"{best.upper:+d}")
    end = _replay(deal.seed, best.moves)
    how = ending(end) if end.cards_left == 0 else f"not a win: {ending(end)}"
    text = (f"The best line for {deal.label}, seeing every card: Par score "
            f"{best.score:+d} ({proof}); {how}.")
    if found.won == "win" and end.cards_left:
        text += " The deal could have been won (all 52 cards removed), but a win scores less."
    reached = reached_text(deal.score, best)
    if reached:
        text += f" {reached[0].upper()}{reached[1:]}."
    return text


def line_tokens(seed: int, moves) -> list[str]:  # noqa: ANN001
    """A solver line as the player would type it, with the cards: "7,1 6,3 (7C+6D)";
    a run of D's is one token ("D x3")."""
    game = rules.Game.dealt(seed)
    tokens: list[str] = []
    run = 0
    for action in moves:
        if action.kind == "deal":
            run += 1
        else:
            if run:
                tokens.append("D" if run == 1 else f"D x{run}")
                run = 0
            if action.kind == "remove":
                cards = "+".join(card_text(game.card_at(s)) for s in action.spots)
                tokens.append(f"{' '.join(action.spots)} ({cards})")
            else:
                tokens.append(notation.format_action(action))
        game, _ = rules.play(game, action)
    if run:
        tokens.append("D" if run == 1 else f"D x{run}")
    return tokens


def _untouched(game: rules.Game) -> bool:
    return (game.deal == 1 and not game.waste and len(game.pack) == 24
            and game.pyramid_left == 28)


class Pyramid(GameKind):
    """The ``pyr`` kind (the game's spec, with its players' speed) and Pyramid's services:
    config, saves, the TOP 10, HINT, AUTO and the solver's verdicts."""

    spec = SPEC

    def __init__(self) -> None:
        self._prefs: dict[int, Prefs] = {}
        self._loading: set[int] = set()
        self._autos: dict[int, Auto] = {}
        self._last: dict[int, Deal] = {}
        self._wanted: dict[int, Deal] = {}   # the newest deal awaiting a verdict, by player
        self._judging: set[int] = set()      # players whose verdict is being worked out
        self.solving: set[int] = set()       # players waiting for a PYR SOLUTION
        self._lines: dict[int, Line] = {}
        self._par = ParTournament(self)
        self.desk = SolverDesk(spawn=self._spawn)
        self._where: dict[int, str] = {}     # the address each player last asked from

    def _spawn(self, coro: Awaitable[Any]) -> Any:
        return self.hosted.spawn(coro) if self.parlor is not None else asyncio.ensure_future(coro)

    def challenge_line(self) -> str:
        """A person is offered a tournament (``PYR TOUR HUMAN <person>``): Pyramid has
        no CHALLENGE."""
        return "PYR TOUR HUMAN"

    def asker(self, account_id: int, address: str) -> Asker:
        """Who asks the solver: a player at an address (kept, for the turns of their
        verdicts, which no command asks for)."""
        where = self._where
        if where.get(account_id) != address:
            where.pop(account_id, None)
            where[account_id] = address
            if len(where) > WHERE_KEPT:
                del where[next(iter(where))]
        return Asker(account_id, address)

    def _solving_for(self, asker: Asker, limited: bool) -> Solve:
        return functools.partial(self.desk.solve, asker=asker, limited=limited)

    @property
    def db(self):  # noqa: ANN201
        return self.hosted.db

    # -- config --------------------------------------------------------------------------
    def prefs(self, account: Account) -> Prefs:
        """A player's config from their account (and remember it for the hooks)."""
        prefs = Prefs.from_settings(account.settings)
        self._prefs[account.id] = prefs
        return prefs

    def cached_prefs(self, account_id: int) -> Prefs:
        """The config last seen for ``account_id`` (loaded in the background if unknown;
        the defaults meanwhile)."""
        prefs = self._prefs.get(account_id)
        if prefs is not None:
            return prefs
        if account_id not in self._loading and self.parlor is not None:
            self._loading.add(account_id)
            self.hosted.spawn(self._load_prefs(account_id))
        return Prefs()

    async def _load_prefs(self, account_id: int) -> None:
        try:
            account = await self.hosted.accounts.get_by_id(account_id)
            if account is not None:
                self._prefs.setdefault(account_id, Prefs.from_settings(account.settings))
        finally:
            self._loading.discard(account_id)

    async def set_prefs(self, account: Account, prefs: Prefs) -> Prefs:
        account.settings = await self.hosted.accounts.set_setting(account.id, "pyramid",
                                                                  prefs.to_json())
        self._prefs[account.id] = prefs
        return prefs

    def delay(self, account_id: int) -> float:
        """Seconds between two moves of the computer or AUTO at this player's speed."""
        return SPEED_FACTOR[self.cached_prefs(account_id).speed] * self.hosted.computer_delay

    def pace(self, game: LiveGame, seat: int) -> float:
        humans = [s.account_id for s in game.seats if s.computer is None]
        return self.delay(humans[0]) if humans else self.hosted.computer_delay

    # -- hooks (inside the game's transaction: only ctx.tx) --------------------------------
    async def check_offer(self, challenger: Seat, target: Seat,
                          options: dict[str, Any]) -> str | None:
        """A tournament offered to a person: Use Same Deck is the challenger's, unless the
        challenge said SAME or OWN."""
        if "same_deck" not in options:
            account = await self.hosted.accounts.get_by_id(challenger.account_id)
            options["same_deck"] = Prefs.from_settings(
                account.settings if account else None).same_deck
        return None

    async def on_start(self, ctx: StartContext) -> Table:
        options = ctx.options
        computer = tuple(s.computer is not None for s in ctx.seats)
        save_id = options.get("restore")
        if save_id is not None:
            row = await ctx.tx.get(PyramidSave, int(save_id))
            if row is None or row.account_id != ctx.seats[0].account_id:
                raise GameError("That saved tournament is no longer there.")
            table = state_from_json(row.state)
            await ctx.tx.delete(row)
            if table.computer != computer:
                raise GameError("That saved tournament does not match its players.")
            return attrs.evolve(table, closed="", closer=None)
        same_deck = options.get("same_deck")
        if same_deck is None and options.get("mode") == "tournament":
            first = await ctx.tx.get(Account, ctx.seats[0].account_id)
            same_deck = Prefs.from_settings(first.settings if first else None).same_deck
        return new_table(options, computer, bool(same_deck), ctx.rng)

    async def on_action(self, ctx: ActionContext) -> None:
        """After a person's game ends, and once that is committed and told: the solver's
        verdict on the deal (and the bell)."""
        seat = ctx.seats[ctx.seat]
        if seat.computer is not None or ctx.new_state.sealed:
            return  # a Par tournament's deals: the solver's best Par is told at its end
        game = self.hosted.game(ctx.game_id)
        if game is None:
            return
        match = ctx.old_state.matches[ctx.seat]
        for event in ctx.events:
            if isinstance(event, MatchEvent) and isinstance(event.event, rules.GameOver):
                n = event.event.game_no
                if match.mode == "standard" and _untouched(match.games[n - 1]):
                    continue  # a deal ended before any move (NEW, TOUR): nothing to tell
                deal = Deal(match.seeds[n - 1], n, match.n_games, ctx.game_id,
                            event.event.score)
                self.hosted.spawn(self._after_game(game, game.version + 1, seat.account_id, deal))
                # players who finished this same deal first were kept waiting: now them too
                for other, theirs in enumerate(ctx.new_state.matches):
                    person = ctx.seats[other]
                    if other != ctx.seat and person.computer is None and \
                            len(theirs.scores) >= n and theirs.seeds[n - 1] == deal.seed:
                        self.hosted.spawn(self._after_game(
                            game, game.version + 1, person.account_id,
                            Deal(deal.seed, n, theirs.n_games, ctx.game_id,
                                 theirs.scores[n - 1])))

    def still_playing(self, deal: Deal, account_id: int) -> list[str]:
        """The other people still playing ``deal`` (Use Same Deck): its verdict and PYR
        SOLUTION show the face-down Pack, so both wait until they have finished it."""
        game = self.hosted.game(deal.game_id)
        if game is None:
            return []
        n = deal.game_no
        return [game.seats[seat].name for seat, match in enumerate(game.state.matches)
                if game.seats[seat].account_id != account_id
                and game.seats[seat].computer is None
                and len(match.seeds) >= n and match.seeds[n - 1] == deal.seed
                and len(match.scores) < n]

    async def on_finish(self, ctx: FinishContext) -> list[str]:
        table: Table = ctx.state
        lines: list[str] = []
        if table.closed == SAVE:
            seat = ctx.seats[table.closer]
            summary = self._summary(table, ctx.seats, table.closer)
            row = PyramidSave(
                account_id=seat.account_id, game_id=ctx.game_id,
                seats=[s.to_json() for s in ctx.seats],
                options={k: v for k, v in ctx.options.items() if k != "restore"},
                state=state_to_json(attrs.evolve(table, closed="", closer=None)),
                summary=summary[:120], created_at=time.time())
            ctx.tx.add(row)
            await ctx.tx.flush()
            lines.append(f"{seat.name}'s tournament is saved as #{row.id} ({summary}); "
                         f"PYR RESTORE takes it up again.")
            return lines
        if table.sealed:  # a Par tournament's deals: no TOP 10 (not six games)
            return [f"Your deals of {table.sealed} are over (net "
                    f"{sum(deal_scores(table)):+d}); its standings, with the solver's "
                    "best Par of each deal, are shown when every entrant has played them."]
        if table.closed or not table.played_out:
            return lines
        if table.mode == "standard":
            return ["PYR NEW deals another game; PYR SOLUTION shows the best line."]
        if len(ctx.seats) > 1:
            lines.append("Final: " + ", ".join(f"{s.name} {m.total:+d}" for s, m in
                                                zip(ctx.seats, table.matches)) + ".")
        for index, seat in enumerate(ctx.seats):
            total = table.matches[index].total
            if seat.computer is not None or total <= 0:
                continue
            opponent = ", ".join(s.name for i, s in enumerate(ctx.seats) if i != index)
            place = await self._enter_top10(ctx.tx, seat, total, ctx.game_id, opponent)
            if place is not None:
                lines.append(f"{seat.name} enters the TOP 10 at place {place} with "
                             f"{total:+d}! (PYR TOP10)")
            else:
                lines.append(f"{seat.name}'s {total:+d} does not reach the TOP 10.")
        return lines

    async def _enter_top10(self, tx, seat: Seat, total: int, game_id: int,  # noqa: ANN001
                           opponent: str) -> int | None:
        row = PyramidTopScore(account_id=seat.account_id, name=seat.name, score=total,
                              game_id=game_id, opponent=opponent[:40], created_at=time.time())
        tx.add(row)
        await tx.flush()
        T = PyramidTopScore
        better = await tx.scalar(sa.select(sa.func.count()).select_from(T).where(
            sa.or_(T.score > total, sa.and_(T.score == total, T.id < row.id))))
        stale = list(await tx.scalars(sa.select(T.id).order_by(T.score.desc(), T.id)
                                      .offset(TOP)))
        if stale:
            await tx.execute(sa.delete(T).where(T.id.in_(stale)))
        place = better + 1
        return place if place <= TOP else None

    @staticmethod
    def _summary(table: Table, seats: tuple[Seat, ...], seat: int) -> str:
        others = [s.name for i, s in enumerate(seats) if i != seat]
        against = f"against {', '.join(others)}" if others else "alone"
        return f"{against}, {table.summary(seat)}"

    # -- after a game: the solver's verdict --------------------------------------------------
    async def _after_game(self, game: LiveGame, step: int, account_id: int, deal: Deal) -> None:
        for _ in range(1000):  # until the game's end is committed and told (or given up)
            if game.version >= step:
                break
            await asyncio.sleep(0.01)
        else:
            return
        self._last[account_id] = deal
        waiting = self.still_playing(deal, account_id)
        if waiting:
            self.hosted.tell(account_id, f"The solver's verdict on {deal.label} waits until "
                                         f"{' and '.join(waiting)} has finished that deal too.")
            return
        self._wanted[account_id] = deal
        if account_id in self._judging:
            return  # the verdict in progress for this player goes on to the newest deal
        self._judging.add(account_id)
        try:  # one deal at a time per player; deals ended meanwhile but the last are skipped
            while account_id in self._wanted:
                deal = self._wanted.pop(account_id)
                try:
                    text = await self.verdict(deal, account_id)
                except Exception:
                    log.exception("pyramid: the solver failed on a deal")
                    continue
                bell = BELL if self.cached_prefs(account_id).sound == "full" else ""
                self.hosted.tell(account_id, bell + text)
        finally:
            self._judging.discard(account_id)

    async def verdict(self, deal: Deal, account_id: int | None = None) -> str:
        """The solver's verdict on ``deal``, in the turn of the player it is for (never
        refused: one player has one verdict worked out at a time)."""
        asker = Asker(account_id, self._where.get(account_id, "")) \
            if account_id is not None else Asker.SERVER
        found = await best_line(deal.seed, self._solving_for(asker, limited=False))
        self._keep_line(deal.seed, found)
        text = verdict_text(deal.where, found, deal.score, deal.seed)
        return f"The solver, seeing every card: {text} PYR SOLUTION shows the best line."

    async def solution(self, deal: Deal, asker: Asker = Asker.SERVER) -> Line:
        """PYR SOLUTION's line; :class:`SolverBusy` when ``asker`` must wait its turn."""
        found = self._lines.get(deal.seed)
        if found is None:
            found = await best_line(deal.seed, self._solving_for(asker, limited=True))
            self._keep_line(deal.seed, found)
        return found

    def has_line(self, seed: int) -> bool:
        return seed in self._lines

    def _keep_line(self, seed: int, found: Line) -> None:
        if len(self._lines) > 200:
            self._lines.clear()
        self._lines[seed] = found

    async def last_deal(self, account_id: int) -> Deal | None:
        """The player's most recently finished deal: of the tournament in play, else the
        last one this server saw end, else the player's newest finished game in the
        database."""
        live = self.hosted.game_of(account_id, KEY)
        if live is not None:
            seat = live.seat_of(account_id)
            match = live.state.matches[seat]
            if match.scores and not live.state.sealed:
                n = len(match.scores)
                return Deal(match.seeds[n - 1], n, match.n_games, live.id,
                            match.scores[n - 1])
        if account_id in self._last:
            return self._last[account_id]
        async with self.db.session() as tx:
            # chosen by their seats, then read whole one at a time (the newest is nearly
            # always the one): a Pyramid game's state is large
            rows = await tx.execute(
                played_by(account_id, GameRecord.id, GameRecord.seats)
                .where(GameRecord.kind == KEY, GameRecord.status == "finished").limit(200))
            for number, seats in rows.all():
                mine = [i for i, s in enumerate(seats)
                        if s["id"] == account_id and not s.get("computer")]
                if not mine:
                    continue
                table = state_from_json(await tx.scalar(
                    sa.select(GameRecord.state).where(GameRecord.id == number)))
                if table.sealed:
                    continue  # a Par tournament's, sealed until it is over
                match = table.matches[mine[0]]
                if match.scores:
                    n = len(match.scores)
                    return Deal(match.seeds[n - 1], n, match.n_games, number,
                                match.scores[n - 1])
        return None

    # -- HINT and AUTO -------------------------------------------------------------------------
    async def analyse(self, table: Any, seat: int, asker: Asker = Asker.SERVER) -> list[str]:
        """EXAMINE's ANALYSE: the solver's best Par from the position ``seat``'s match
        has reached in a stored game (its deal as it stands), and the move it starts with.
        The caller examines only what may be shown (a finished game). ``asker`` waits its
        turn at the solver (:class:`SolverDesk`); one who has a request there already is
        told so in one line."""
        game = table.matches[seat].game
        if game.over:
            return [f"That deal is over, at Par {rules.par_score(game):+d}."]
        if asker.account_id is not None:
            asker = self.asker(asker.account_id, asker.address)
        try:
            best = await self.desk.solve(game, "par", SOLUTION_LIMIT, asker)
        except SolverBusy as busy:
            return [str(busy)]
        first = notation.format_action(best.moves[0]) if best.moves else "END"
        bound = (f"{best.score:+d}" if best.proven
                 else f"at least {best.lower:+d}, at most {best.upper:+d}")
        return [f"From here the best Par is {bound}; the solver's line starts with {first} "
                f"({counted(len(best.moves), 'move')})."]

    async def hint(self, game: LiveGame, seat: int,
                   asker: Asker = Asker.SERVER) -> rules.Action | None:
        """HINT's move, thought out in the solver's worker in ``asker``'s turn
        (:class:`SolverBusy` when they have a request waiting already)."""
        return await self.desk.hint(game.state.matches[seat], asker)

    def auto_running(self, account_id: int) -> bool:
        return account_id in self._autos

    def start_auto(self, account_id: int, game: LiveGame) -> None:
        auto = Auto(game.id)
        self._autos[account_id] = auto
        self.hosted.spawn(self._auto(account_id, auto))

    def stop_auto(self, account_id: int) -> bool:
        auto = self._autos.pop(account_id, None)
        if auto is None:
            return False
        auto.stop.set()
        return True

    async def _auto(self, account_id: int, auto: Auto) -> None:
        rng = random.Random(f"auto:{auto.game_id}")
        try:
            while not auto.stop.is_set():
                game = self.hosted.game(auto.game_id)
                if game is None or 0 not in to_move(game.state):
                    return
                if not self.hosted.is_online(account_id):
                    return
                try:  # the configured speed, unless stopped meanwhile
                    await asyncio.wait_for(auto.stop.wait(), timeout=self.delay(account_id))
                    return
                except asyncio.TimeoutError:
                    pass
                game = self.hosted.game(auto.game_id)
                if game is None:
                    return
                action = await asyncio.to_thread(ai.choose_action, game.state.matches[0], 0,
                                                 "normal", rng, AUTO_BUDGET)
                if auto.stop.is_set():
                    return
                # never cut in half by a cancellation: the move is committed, then told
                await asyncio.shield(self.hosted.act_for(auto.game_id, 0, action, auto=True))
        except (GameError, RuleError) as err:
            if not auto.stop.is_set():
                self.hosted.tell(account_id, f"AUTO stopped: {err}")
        finally:
            if self._autos.get(account_id) is auto:
                del self._autos[account_id]

    # -- starting games ------------------------------------------------------------------------
    async def start_standard(self, me: Seat) -> LiveGame:
        return await self.hosted.start_game(KEY, (me,), {"mode": "standard"})

    async def start_tournament(self, me: Seat, level: str | None = None,
                               same_deck: bool | None = None) -> LiveGame:
        seats: tuple[Seat, ...] = (me,)
        if level is not None:
            computer = await self.hosted.accounts.computer()
            seats = (me, Seat(computer.id, f"Computer({level})", level))
        options: dict[str, Any] = {"mode": "tournament"}
        if same_deck is not None:
            options["same_deck"] = same_deck
        return await self.hosted.start_game(KEY, seats, options)

    async def restart(self, game: LiveGame) -> LiveGame:
        """NEW in tournament play: a new match with the same players and settings."""
        options = {k: v for k, v in game.options.items() if k != "restore"}
        options.setdefault("same_deck", game.state.same_deck)
        return await self.hosted.start_game(KEY, game.seats, options)

    async def saves(self, account_id: int) -> list[PyramidSave]:
        async with self.db.session() as tx:
            return list(await tx.scalars(sa.select(PyramidSave).where(
                PyramidSave.account_id == account_id).order_by(PyramidSave.id)))

    async def restore(self, me: Seat, save: PyramidSave) -> LiveGame:
        seats = tuple(Seat.from_json(s) for s in save.seats)
        if seats[0].account_id != me.account_id:
            raise GameError("That saved tournament is not yours.")
        seats = (me,) + seats[1:]
        return await self.hosted.start_game(KEY, seats, {**save.options, "restore": save.id})

    async def top10(self) -> list[PyramidTopScore]:
        async with self.db.session() as tx:
            return list(await tx.scalars(
                sa.select(PyramidTopScore)
                .order_by(PyramidTopScore.score.desc(), PyramidTopScore.id).limit(TOP)))

    # -- what Pyramid adds to the parlor ---------------------------------------------------
    def web_pages(self) -> list[WebPage]:
        """The TOP 10 (``/pyramid/top10``, and ``/api/pyramid/top10``)."""
        return [WebPage("/pyramid/top10", "Pyramid Top 10", "games/pyr/top10.html",
                        self.top10_page)]

    async def top10_page(self) -> dict[str, Any]:
        """The TOP 10 as the web door shows it, and its JSON twin."""
        rows = await self.top10()
        return {"top10": [{"place": i, "name": r.name, "score": r.score, "game": r.game_id,
                           "date": time.strftime("%Y-%m-%d", time.gmtime(r.created_at)),
                           "opponent": r.opponent or None} for i, r in enumerate(rows, 1)]}

    def tournament_systems(self) -> dict[str, Any]:
        """The Par tournament (``server/services/pyramid_par.py``)."""
        return {"par": self._par}

    def notes(self) -> list[tuple[int, str]]:
        """Which solver runs: the compiled build, or plain Python and why."""
        return [solver_build.describe()]


HELP = (
    "Pyramid solitaire (the DOS Pyramid's rules). 28 cards lie face up in a pyramid of "
    "rows 1 to 7; the other 24 are the face-down Pack, its top card turned up. Remove two "
    "available cards that total 13 (A=1, J=11, Q=12, K=13) or a King alone. A pyramid "
    "card is available when both cards of the row below that cover it are gone; the Pack "
    "top (P) and the Waste Pile top (W) always are. D moves the Pack top to the Waste "
    "Pile; on an empty Pack it redeals the Waste Pile (two redeals, three deals in all).\n"
    "Moves: PYR 7,1 6,3 or PYR 71 63 (row, column; the top card is 1,1), PYR 7,4 for a "
    "King, PYR P 7,2, PYR W P, PYR D; keypad digits work too: 8 = Pack, 9 = Waste, "
    "0 = D. PYR END ends the game as it stands. PYR alone shows the board.\n"
    "Par scoring: cleared in deal 1, 2 or 3 scores 50, 35 or 20 less the cards left in "
    "the Waste Pile (a win in deal 1 is 50); otherwise minus every card left.\n"
    "Standard play: PYR NEW, HINT, AUTO, QUIT, TOUR. Tournament play, six games: PYR TOUR "
    "NONE (alone), PYR TOUR COMPUTER [EASY|NORMAL|HARD], PYR TOUR HUMAN <person> (they "
    "PYR ACCEPT you), PYR TOUR RESTORE; then SAVE, SCORE, TOP10, EXIT, and NEW for a new "
    "match. Everywhere: CONFIG, INFO, SOLUTION (the best line of your last finished deal), "
    "HELP. A Par tournament: TOURNEY CREATE PYR PAR <deals> (1 to 12), every entrant "
    "playing the same deals, unseen by anyone else until all have played them."
)

INFO = (
    "Pyramid for Esterport, version 1.0: the Pyramid solitaire of a DOS shareware help "
    "file, played over telnet. Par Pyramid scoring, tournaments of six games alone, against "
    "a person or against the computer, a server-wide TOP 10, and a solver that tells after "
    "every game whether the deal could have been won. The computer player never looks at "
    "the face-down Pack."
)


__all__ = ["HELP", "KEY", "Prefs", "Pyramid"]
