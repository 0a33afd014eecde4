"""Pyramid on the parlor: the ``pyr`` game kind (prefix ``PYR``, GMCP ``Pyramid.Game``)
and its services: the TOP 10, saved tournaments, per-player config, HINT, AUTO and the
solver's verdict after every game.

The engine (``games/pyramid``) plays one *match* for one player: a standard game (one
deal) or a tournament (six deals). A hosted Pyramid game is a :class:`Table`: one match
per seat, all played at once.

* Standard play and a tournament alone: one seat.
* A tournament against the computer: two seats, the second a computer seat that the host
  moves (``GameKind.simultaneous``) at the player's configured speed (``GameKind.pace``:
  slow, medium, fast are 2, 0.8 and 0.2 times ``[games] computer_delay``). It sees only
  what a person would (``games.pyramid.ai``). With Use Same Deck it plays each deal only
  after the player has finished it, so its moves never tell anything of a deal the
  player has still to play.
* A tournament against a person: two human seats, offered with ``PYR TOUR HUMAN <person>``
  (or ``PYR CHALLENGE <person>``) and accepted with ``PYR ACCEPT``. Each player is told
  only of their own moves (``GameKind.audience``), and of the other's when one of the
  other's games ends; every board shows the other's running score.

Durability: the table is the host's game state, committed with every move, so a
tournament survives a disconnect and a restart without SAVE. ``PYR SAVE`` puts a
tournament away (a ``pyramid_saves`` row written in the transaction that closes the
game; the computer waits too) and ``PYR RESTORE`` takes it up again (the row is deleted
in the transaction that starts the new game). The TOP 10 (``pyramid_top10``) is written
in the transaction that finishes a tournament. Config lives in the account's settings
(``settings["pyramid"]``).

Decisions where the rules page is silent:

* SAVE puts the tournament away (it leaves play, and RESTORE brings it back exactly as it
  was): a snapshot one could go back to after seeing the Pack would let a player replay a
  deal knowing its order. A tournament against a person cannot be saved; EXIT there
  resigns it (the other wins). A player may keep several saved tournaments.
* NEW, QUIT, EXIT and TOUR (over a game in progress) end something: with moves made they
  ask first, and the same command with ``YES`` does it (the seed's Yes/No dialog).
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
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import attrs
import sqlalchemy as sa

import games.pyramid.render as engine_render
from games.errors import BadOption as UsageError  # a refused option shows the usage line
from games.errors import IllegalAction, RuleError
from games.outcome import Outcome
from games.pyramid import ai, notation, rules, solver
from games.pyramid.cards import card_text
from server.hosting import ActionContext, FinishContext, GameKind, Seat, StartContext
from server.models import Account, GameRecord, PyramidSave, PyramidTopScore
from server.services.games import GameError, LiveGame
from server.text import counted
from server.workers import WorkerPool

if TYPE_CHECKING:
    from server.app import Parlor

log = logging.getLogger(__name__)

KEY = "pyr"
PREFIX = "PYR"
TITLE = "Pyramid"
GMCP = "Pyramid.Game"
LEVELS = ("easy", "normal", "hard")

# Closing a table (the words are its notation, stored in the move list).
SAVE, EXIT, RENEW, RESIGN = "SAVE", "EXIT", "NEW", "RESIGN"
# Outcome reasons of tables that were closed rather than played out: not counted.
SAVED_REASON = "put away with PYR SAVE"
ABANDONED_REASON = "tournament abandoned"
RENEWED_REASON = "a new match begun"
NOT_COUNTED = frozenset({SAVED_REASON, ABANDONED_REASON, RENEWED_REASON})

SPEEDS = ("slow", "medium", "fast")
SOUNDS = ("full", "partial", "off")
#: seconds per computer (or AUTO) move, as multiples of ``[games] computer_delay``
SPEED_FACTOR = {"slow": 2.0, "medium": 0.8, "fast": 0.2}
VERDICT_LIMIT = 3.0    # seconds the solver may take to say whether a deal could be won
SOLUTION_LIMIT = 5.0   # ... to find the best Par line for PYR SOLUTION
HINT_BUDGET = 0.5      # ... the engine may think for a HINT
AUTO_BUDGET = 0.5      # ... and for each AUTO move
TOP = 10
BELL = "\x07"

# The solver's searches (seconds, pure Python) run in one worker *process*: in a thread
# they would hold the GIL and slow every connection (measured: a command's reply went from
# 3 ms to 85 ms at the median, 370 ms at worst, while a Par search ran in a thread). One
# worker, so searches queue rather than take both cores. It is spawned (a fresh
# interpreter that imports only the engine), and exits when its parent does, even after a
# SIGKILL. Should no process be available, the search runs in a thread.
_SOLVER = WorkerPool(1)  # spawned processes (server/workers.py)
_threads = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pyramid-solver")


async def solve(game: rules.Game, goal: str, time_limit: float) -> solver.Solution:
    """``solver.solve`` off the event loop, in the solver's worker process."""
    pool = None
    try:
        pool = _SOLVER.get()
        return await asyncio.wrap_future(pool.submit(solver.solve, game, goal,
                                                     time_limit=time_limit))
    except (OSError, RuntimeError):  # no process could start, or it died
        log.warning("the solver process failed; solving in a thread", exc_info=True)
        if pool is not None:
            _SOLVER.drop(pool)
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_threads, functools.partial(
        solver.solve, game, goal, time_limit=time_limit))


def sentence(text: str) -> str:
    """An engine message as a sentence: "9 + 5 is 14, not 13" -> "9 + 5 is 14, not 13."."""
    text = text.strip()
    if text and text[0].isalpha() and not (len(text) > 1 and text[1] in ",0123456789"):
        text = text[0].upper() + text[1:]
    return text if not text or text[-1] in ".!?" else text + "."


# -- per-player config ----------------------------------------------------------------------
@attrs.frozen
class Prefs:
    """CONFIG: Speed, Error messages, Use Same Deck, Sound (the seed's options; Mouse has
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


# -- the table: one engine match per seat ---------------------------------------------------
@attrs.frozen
class Close:
    """A table-wide action: SAVE (put away), EXIT (abandon; against a person, resign),
    NEW (a new match follows) or RESIGN."""

    what: str = attrs.field(validator=attrs.validators.in_((SAVE, EXIT, RENEW, RESIGN)))


@attrs.frozen
class Told:
    """An engine event of one seat's match, with what describing it needs."""

    seat: int
    mode: str
    games: int
    event: Any


@attrs.frozen
class Closed:
    seat: int
    what: str


@attrs.frozen
class Table:
    """A hosted Pyramid game: ``matches[seat]`` is each seat's engine match."""

    matches: tuple[rules.State, ...] = attrs.field(converter=tuple)
    computer: tuple[bool, ...] = attrs.field(converter=tuple)
    same_deck: bool = False
    closed: str = ""          # "" in play, else the Close word that closed it
    closer: int | None = None

    @property
    def mode(self) -> str:
        return self.matches[0].mode

    @property
    def humans(self) -> int:
        return sum(1 for c in self.computer if not c)

    @property
    def played_out(self) -> bool:
        return all(m.over for m in self.matches)

    def summary(self, seat: int) -> str:
        m = self.matches[seat]
        if m.mode == "standard":
            return f"standard game, {counted(m.game.cards_left, 'card')} left"
        return f"game {m.game_no} of {m.n_games}, net {m.total:+d}"


def waiting_for_deal(table: Table, seat: int) -> bool:
    """With Use Same Deck the computer plays a deal only once every person at the table
    has finished it."""
    if not (table.same_deck and table.computer[seat]):
        return False
    game_no = table.matches[seat].game_no
    return any(not m.over and len(m.scores) < game_no
               for i, m in enumerate(table.matches) if not table.computer[i])


def to_move(table: Table) -> tuple[int, ...]:
    if table.closed:
        return ()
    return tuple(i for i, m in enumerate(table.matches)
                 if not m.over and not waiting_for_deal(table, i))


def apply(table: Table, seat: int, action: Any, rng: random.Random | None = None):
    """One seat's action on its own match, or a Close of the whole table."""
    if table.closed:
        raise IllegalAction("This game is closed.")
    if not 0 <= seat < len(table.matches):
        raise IllegalAction("There is no such seat at this table.")
    if isinstance(action, Close):
        what = action.what
        if what == RESIGN and table.mode == "standard" and len(table.matches) == 1:
            action = rules.END  # resigning a standard game ends it as it stands
        else:
            if what in (SAVE, EXIT, RENEW) and table.mode != "tournament":
                raise IllegalAction(f"{what} is for tournament play; in standard play "
                                    "PYR QUIT ends the game.")
            if what == SAVE and table.humans > 1:
                raise IllegalAction("A tournament against a person cannot be saved; it waits "
                                    "for you over a disconnect or a restart without SAVE.")
            if what == RENEW and table.humans > 1:
                raise IllegalAction("Against a person NEW would restart your opponent's "
                                    "tournament too: finish it, or EXIT to resign it.")
            if what == EXIT and table.humans > 1:
                what = RESIGN
            return attrs.evolve(table, closed=what, closer=seat), [Closed(seat, what)]
    match = table.matches[seat]
    if match.over:
        raise IllegalAction("You have played all your games; the others are still playing.")
    if waiting_for_deal(table, seat):
        raise IllegalAction("With Use Same Deck the computer waits until the deal is played.")
    try:
        new, events = rules.apply(match, 0, action, rng)
    except RuleError as err:
        raise type(err)(sentence(str(err))) from None
    matches = table.matches[:seat] + (new,) + table.matches[seat + 1:]
    told = [Told(seat, match.mode, match.n_games, e) for e in events]
    return attrs.evolve(table, matches=matches), told


def outcome(table: Table) -> Outcome | None:
    totals = tuple(m.total for m in table.matches)
    if table.closed == SAVE:
        return Outcome(None, SAVED_REASON, totals)
    if table.closed == EXIT:
        return Outcome(None, ABANDONED_REASON, totals)
    if table.closed == RENEW:
        return Outcome(None, RENEWED_REASON, totals)
    if table.closed == RESIGN:
        others = [i for i in range(len(table.matches)) if i != table.closer]
        winner = max(others, key=lambda i: totals[i]) if others else None
        return Outcome(winner, "resignation", totals)
    if not table.played_out:
        return None
    if len(table.matches) == 1:
        o = rules.outcome(table.matches[0])
        return Outcome(o.winner, o.reason, totals)
    best = max(totals)
    winners = [i for i, t in enumerate(totals) if t == best]
    return Outcome(winners[0] if len(winners) == 1 else None,
                   "six games each, net Par " + " vs ".join(f"{t:+d}" for t in totals), totals)


def counts(result: Outcome) -> bool:
    return result.reason not in NOT_COUNTED


def audience(table: Table, seat: int, events: list) -> tuple[int, ...] | None:
    """At a table of two, a player hears of the other's moves only when one of the
    other's games ends (the running score changes) or the table closes."""
    if len(table.matches) == 1 or table.closed:
        return None
    if any(isinstance(e, Told) and isinstance(e.event, rules.GameOver) for e in events):
        return None
    return (seat,)


def choose_action(table: Table, seat: int, level: str | None, rng: random.Random,
                  budget_s: float = 1.0) -> rules.Action:
    """The computer's move in its own match: it sees what a person would (ai.py)."""
    level = level if level in LEVELS else "normal"
    return ai.choose_action(table.matches[seat], 0, level, rng, min(budget_s, 1.0))


def new_table(options: dict[str, Any], computer: tuple[bool, ...], same_deck: bool,
              rng: random.Random) -> Table:
    mode = options.get("mode", "standard")
    if same_deck:
        first = rules.new_game({"mode": mode}, rng)
        matches = [rules.new_game({"mode": mode, "seeds": first.seeds}, rng)
                   for _ in computer]
    else:
        matches = [rules.new_game({"mode": mode}, rng) for _ in computer]
    return Table(matches=matches, computer=computer, same_deck=same_deck)


# -- notation and JSON ----------------------------------------------------------------------
CLOSE_WORDS = {SAVE: SAVE, EXIT: EXIT, RENEW: RENEW, RESIGN: RESIGN}


def parse_action(text: str) -> Any:
    words = text.upper().split()
    if len(words) == 1 and words[0] in CLOSE_WORDS:
        return Close(CLOSE_WORDS[words[0]])
    try:
        return notation.parse_action(text)
    except RuleError as err:
        raise type(err)(sentence(str(err))) from None


def format_action(action: Any) -> str:
    if isinstance(action, Close):
        return action.what
    return notation.format_action(action)


def state_to_json(table: Table) -> dict[str, Any]:
    return {"game": "pyramid-table",
            "matches": [notation.state_to_json(m) for m in table.matches],
            "computer": list(table.computer), "same_deck": table.same_deck,
            "closed": table.closed, "closer": table.closer}


def state_from_json(data: dict[str, Any]) -> Table:
    return Table(matches=[notation.state_from_json(m) for m in data["matches"]],
                 computer=[bool(c) for c in data["computer"]],
                 same_deck=bool(data.get("same_deck")), closed=str(data.get("closed") or ""),
                 closer=data.get("closer"))


# -- what a player sees -----------------------------------------------------------------------
def view_for(table: Table, seat: int | None) -> dict[str, Any]:
    """The engine's view of the seat's own match (a watcher: seat 0's), with the other
    seats' running scores. The Pack order and the deal seeds stay hidden."""
    me = seat if seat is not None and 0 <= seat < len(table.matches) else 0
    view = engine_render.view_for(table.matches[me])
    view.update(seat=seat, board_of=me, same_deck=table.same_deck, closed=table.closed,
                waiting=any(waiting_for_deal(table, i) for i in range(len(table.matches))
                            if i != me), others=[
                    {"seat": i, "computer": table.computer[i], "game_no": m.game_no,
                     "games": m.n_games, "scores": list(m.scores), "total": m.total,
                     "cards_left": m.game.cards_left, "over": m.over}
                    for i, m in enumerate(table.matches) if i != me])
    return view


def render(view: dict[str, Any], width: int = 80, color: bool = True,
           names: tuple[str, ...] = ("Alice", "Bob")) -> str:
    """The engine's board, with the owner's name and the other players' running scores."""
    lines = engine_render.render(view, width=width, color=color, names=names).split("\n")
    others = view.get("others") or []
    if others:
        owner = view.get("board_of", 0)
        if owner < len(names):
            lines[0] = f"{names[owner]}: {lines[0]}"
        extra = []
        for o in others:
            who = names[o["seat"]] if o["seat"] < len(names) else f"Seat {o['seat'] + 1}"
            if o["over"]:
                extra.append(f"{who}: all {o['games']} games played, net {o['total']:+d}")
            else:
                done = " ".join(f"{s:+d}" for s in o["scores"]) or "-"
                line = (f"{who}: game {o['game_no']} of {o['games']} "
                        f"({counted(o['cards_left'], 'card')} left), scores {done}, net {o['total']:+d}")
                if len(line) > min(width, 80):  # the running score first; PYR SCORE has all
                    line = (f"{who}: game {o['game_no']} of {o['games']}, "
                            f"{counted(o['cards_left'], 'card')} left, net {o['total']:+d}")
                extra.append(line)
        if view.get("waiting"):
            extra.append("(Use Same Deck: the computer plays each deal after you.)")
        lines[-1:-1] = extra
    return "\n".join(line if len(line) <= width or "\x1b" in line else line[:width]
                     for line in lines)


_HOW = {"won": "all cards removed", "stuck": "no move left", "ended": "ended as it stood"}


def describe_event(event: Any) -> str | None:
    if isinstance(event, Closed):
        return {SAVE: "The tournament is put away: PYR RESTORE takes it up again.",
                EXIT: "The tournament is abandoned.",
                RENEW: "This match is abandoned; a new one follows with the same settings.",
                RESIGN: None}.get(event.what)
    if not isinstance(event, Told):
        return None
    e = event.event
    if isinstance(e, rules.Removed):
        return f"{' + '.join(e.cards)} removed."
    if isinstance(e, rules.Discarded):
        nxt = f"{e.next_top} turned up" if e.next_top else "the Pack is empty"
        return f"{e.card} to the Waste Pile; {nxt}."
    if isinstance(e, rules.Redealt):
        left = f"{e.redeals_left} redeal{'s' if e.redeals_left != 1 else ''} left"
        return f"Redeal: the Waste Pile becomes the Pack (deal {e.deal} of 3, {left})."
    if isinstance(e, rules.PyramidCleared):
        return f"The pyramid is cleared in deal {e.deal}!"
    if isinstance(e, rules.GameOver):
        if event.mode == "standard":
            return f"Game over ({_HOW[e.how]}): Par score {e.score:+d}."
        return (f"Game {e.game_no} of {event.games} over ({_HOW[e.how]}): Par score "
                f"{e.score:+d}, net {e.total:+d}.")
    if isinstance(e, rules.NewDeal):
        return f"Game {e.game_no} of {event.games} is dealt."
    return None


# -- options ----------------------------------------------------------------------------------
def parse_options(words: list[str]) -> dict[str, Any]:
    """``PYR CHALLENGE <person>|COMPUTER [SAME|OWN]``: a six-game tournament; SAME gives
    both the same deals, OWN each their own (default: the challenger's Use Same Deck)."""
    options: dict[str, Any] = {"mode": "tournament"}
    for word in words:
        w = word.lower()
        if w in ("same", "samedeck"):
            options["same_deck"] = True
        elif w in ("own", "different"):
            options["same_deck"] = False
        else:
            raise UsageError(f"{word!r} is not an option: SAME (the same deals for both) or "
                             "OWN (each their own deals).")
    return options


def describe_options(options: dict[str, Any]) -> str:
    if options.get("mode") != "tournament":
        return "standard play"
    if options.get("restore"):
        return "a saved tournament"
    deals = {True: ", same deals", False: ", own deals"}.get(options.get("same_deck"), "")
    return f"a six-game tournament{deals}"


# -- the service ------------------------------------------------------------------------------
SERVICES: "weakref.WeakKeyDictionary[Any, Pyramid]" = weakref.WeakKeyDictionary()


def service(parlor: "Parlor") -> "Pyramid":
    """The Pyramid service of a parlor (bound when the parlor hosts the kind)."""
    return SERVICES[parlor]


@attrs.frozen
class Deal:
    """A finished deal of a player: what the solver looks at for PYR SOLUTION."""

    seed: int
    game_no: int
    games: int
    game_id: int

    @property
    def label(self) -> str:
        if self.games == 1:
            return f"your last game (#{self.game_id})"
        return f"game {self.game_no} of {self.games} of your tournament (#{self.game_id})"


@attrs.define(eq=False)
class Auto:
    """AUTO playing a player's standard game; ``stop`` ends it between two moves."""

    game_id: int
    stop: asyncio.Event = attrs.field(factory=asyncio.Event)


async def judge(seed: int) -> tuple[str, str, solver.Solution | None]:
    """(all 52 removable?, pyramid clearable?) as "win" | "lose" | "unknown", and the best
    Par line when it had to be searched for (a win the "all" search did not find in time
    is often found by the Par search)."""
    game = rules.Game.dealt(seed)
    pyramid = (await solve(game, "pyramid", VERDICT_LIMIT)).result
    if pyramid == "lose":
        return "lose", "lose", None
    full = (await solve(game, "all", VERDICT_LIMIT)).result
    if full != "unknown":
        return full, pyramid, None
    best = await solve(game, "par", SOLUTION_LIMIT)
    return ("win" if best.result == "win" else "unknown"), pyramid, best


@attrs.frozen
class Line:
    """PYR SOLUTION: the best Par line found for a deal and, when all 52 cards can be
    removed but that line does not, the Par score of a line that removes them all."""

    best: solver.Solution
    win_score: int | None = None


async def best_line(seed: int) -> Line:
    """The solver's best Par line; when the Par search is not proved (its time ran out),
    a line removing all 52 cards is tried too, and the better scoring one is kept."""
    game = rules.Game.dealt(seed)
    best = await solve(game, "par", SOLUTION_LIMIT)
    if best.proven and best.result == "win":
        return Line(best, best.score)
    full = await solve(game, "all", VERDICT_LIMIT)
    if full.result != "win":
        return Line(best)
    end = game
    for action in full.moves:
        end, _ = rules.play(end, action)
    if end.score > best.score:
        won = solver.Solution("par", "win", full.moves, end.score, end.score == 50,
                              full.nodes, full.seconds)
        return Line(won, end.score)
    return Line(best, end.score)


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


class Pyramid:
    """The hooks of the ``pyr`` kind that need the parlor, and Pyramid's services."""

    def __init__(self) -> None:
        self.parlor: "Parlor | None" = None
        self._prefs: dict[int, Prefs] = {}
        self._loading: set[int] = set()
        self._autos: dict[int, Auto] = {}
        self._last: dict[int, Deal] = {}
        self._wanted: dict[int, Deal] = {}   # the newest deal awaiting a verdict, by player
        self._judging: set[int] = set()      # players whose verdict is being worked out
        self.solving: set[int] = set()       # players waiting for a PYR SOLUTION
        self._lines: dict[int, Line] = {}

    def bind(self, parlor: "Parlor") -> None:
        self.parlor = parlor
        SERVICES[parlor] = self

    @property
    def host(self):  # noqa: ANN201
        if self.parlor is None:
            raise RuntimeError("the Pyramid kind is not bound to a parlor")
        return self.parlor.host

    @property
    def db(self):  # noqa: ANN201
        return self.host.db

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
            self.host.spawn(self._load_prefs(account_id))
        return Prefs()

    async def _load_prefs(self, account_id: int) -> None:
        try:
            account = await self.parlor.accounts.get_by_id(account_id)
            if account is not None:
                self._prefs.setdefault(account_id, Prefs.from_settings(account.settings))
        finally:
            self._loading.discard(account_id)

    async def set_prefs(self, account: Account, prefs: Prefs) -> Prefs:
        account.settings = await self.parlor.accounts.set_setting(account.id, "pyramid",
                                                                  prefs.to_json())
        self._prefs[account.id] = prefs
        return prefs

    def delay(self, account_id: int) -> float:
        """Seconds between two moves of the computer or AUTO at this player's speed."""
        return SPEED_FACTOR[self.cached_prefs(account_id).speed] * self.host.computer_delay

    def pace(self, game: LiveGame, seat: int) -> float:
        humans = [s.account_id for s in game.seats if s.computer is None]
        return self.delay(humans[0]) if humans else self.host.computer_delay

    # -- hooks (inside the game's transaction: only ctx.tx) --------------------------------
    async def check_offer(self, challenger: Seat, target: Seat,
                          options: dict[str, Any]) -> str | None:
        """A tournament offered to a person: Use Same Deck is the challenger's, unless the
        challenge said SAME or OWN."""
        if "same_deck" not in options:
            account = await self.parlor.accounts.get_by_id(challenger.account_id)
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
        if seat.computer is not None:
            return
        game = self.host.live.get(ctx.game_id)
        if game is None:
            return
        match = ctx.old_state.matches[ctx.seat]
        for event in ctx.events:
            if isinstance(event, Told) and isinstance(event.event, rules.GameOver):
                n = event.event.game_no
                if match.mode == "standard" and _untouched(match.games[n - 1]):
                    continue  # a deal ended before any move (NEW, TOUR): nothing to tell
                deal = Deal(match.seeds[n - 1], n, match.n_games, ctx.game_id)
                self.host.spawn(self._after_game(game, game.version + 1, seat.account_id, deal))

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
        self._wanted[account_id] = deal
        if account_id in self._judging:
            return  # the verdict in progress for this player goes on to the newest deal
        self._judging.add(account_id)
        try:  # one deal at a time per player; deals ended meanwhile but the last are skipped
            while account_id in self._wanted:
                deal = self._wanted.pop(account_id)
                try:
                    text = await self.verdict(deal)
                except Exception:
                    log.exception("pyramid: the solver failed on a deal")
                    continue
                bell = BELL if self.cached_prefs(account_id).sound == "full" else ""
                self.parlor.tell(account_id, bell + text)
        finally:
            self._judging.discard(account_id)

    async def verdict(self, deal: Deal) -> str:
        full, pyramid, best = await judge(deal.seed)
        if best is not None:
            self._keep_line(deal.seed, Line(best, best.score if full == "win" else None))
        where = "this deal" if deal.games == 1 else f"the deal of game {deal.game_no}"
        if full == "win":
            what = f"{where} could have been won: all 52 cards can be removed."
        elif full == "lose" and pyramid == "win":
            what = (f"{where} could not have been won (not all 52 cards can go), but the "
                    "pyramid could have been cleared.")
        elif full == "lose":
            what = f"{where} could not have been won: the pyramid cannot be cleared."
        else:
            what = f"whether {where} could have been won was not decided in time."
        return f"The solver, seeing every card: {what} PYR SOLUTION shows the best line."

    async def solution(self, deal: Deal) -> Line:
        found = self._lines.get(deal.seed)
        if found is None:
            found = await best_line(deal.seed)
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
        last one this server saw end, else the newest finished game in the database."""
        live = self.host.game_of(account_id, KEY)
        if live is not None:
            seat = live.seat_of(account_id)
            match = live.state.matches[seat]
            if match.scores:
                n = len(match.scores)
                return Deal(match.seeds[n - 1], n, match.n_games, live.id)
        if account_id in self._last:
            return self._last[account_id]
        async with self.db.session() as tx:
            records = list(await tx.scalars(
                sa.select(GameRecord).where(GameRecord.kind == KEY,
                                            GameRecord.status == "finished")
                .order_by(GameRecord.id.desc()).limit(200)))
        for record in records:
            seats = [i for i, s in enumerate(record.seats)
                     if s["id"] == account_id and not s.get("computer")]
            if not seats:
                continue
            match = state_from_json(record.state).matches[seats[0]]
            if match.scores:
                n = len(match.scores)
                return Deal(match.seeds[n - 1], n, match.n_games, record.id)
        return None

    # -- HINT and AUTO -------------------------------------------------------------------------
    async def hint(self, game: LiveGame, seat: int) -> rules.Action | None:
        return await asyncio.to_thread(ai.hint, game.state.matches[seat], 0, HINT_BUDGET)

    def auto_running(self, account_id: int) -> bool:
        return account_id in self._autos

    def start_auto(self, account_id: int, game: LiveGame) -> None:
        auto = Auto(game.id)
        self._autos[account_id] = auto
        self.host.spawn(self._auto(account_id, auto))

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
                game = self.host.live.get(auto.game_id)
                if game is None or 0 not in to_move(game.state):
                    return
                if not self.parlor.is_online(account_id):
                    return
                try:  # the configured speed, unless stopped meanwhile
                    await asyncio.wait_for(auto.stop.wait(), timeout=self.delay(account_id))
                    return
                except asyncio.TimeoutError:
                    pass
                game = self.host.live.get(auto.game_id)
                if game is None:
                    return
                action = await asyncio.to_thread(ai.choose_action, game.state.matches[0], 0,
                                                 "normal", rng, AUTO_BUDGET)
                if auto.stop.is_set():
                    return
                # never cut in half by a cancellation: the move is committed, then told
                await asyncio.shield(self.host.act_for(auto.game_id, 0, format_action(action)))
        except (GameError, RuleError) as err:
            if not auto.stop.is_set():
                self.parlor.tell(account_id, f"AUTO stopped: {err}")
        finally:
            if self._autos.get(account_id) is auto:
                del self._autos[account_id]

    # -- starting games ------------------------------------------------------------------------
    async def start_standard(self, me: Seat) -> LiveGame:
        return await self.host.start_game(KEY, (me,), {"mode": "standard"})

    async def start_tournament(self, me: Seat, level: str | None = None,
                               same_deck: bool | None = None) -> LiveGame:
        seats: tuple[Seat, ...] = (me,)
        if level is not None:
            computer = await self.parlor.accounts.computer()
            seats = (me, Seat(computer.id, f"Computer({level})", level))
        options: dict[str, Any] = {"mode": "tournament"}
        if same_deck is not None:
            options["same_deck"] = same_deck
        return await self.host.start_game(KEY, seats, options)

    async def restart(self, game: LiveGame) -> LiveGame:
        """NEW in tournament play: a new match with the same players and settings."""
        options = {k: v for k, v in game.options.items() if k != "restore"}
        options.setdefault("same_deck", game.state.same_deck)
        return await self.host.start_game(KEY, game.seats, options)

    async def saves(self, account_id: int) -> list[PyramidSave]:
        async with self.db.session() as tx:
            return list(await tx.scalars(sa.select(PyramidSave).where(
                PyramidSave.account_id == account_id).order_by(PyramidSave.id)))

    async def restore(self, me: Seat, save: PyramidSave) -> LiveGame:
        seats = tuple(Seat.from_json(s) for s in save.seats)
        if seats[0].account_id != me.account_id:
            raise GameError("That saved tournament is not yours.")
        seats = (me,) + seats[1:]
        return await self.host.start_game(KEY, seats, {**save.options, "restore": save.id})

    async def top10(self) -> list[PyramidTopScore]:
        async with self.db.session() as tx:
            return list(await tx.scalars(
                sa.select(PyramidTopScore)
                .order_by(PyramidTopScore.score.desc(), PyramidTopScore.id).limit(TOP)))


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
    "HELP."
)

INFO = (
    "Pyramid for Esterport, version 1.0: the Pyramid solitaire of a DOS shareware help "
    "file, played over telnet. Par Pyramid scoring, tournaments of six games alone, against "
    "a person or against the computer, a server-wide TOP 10, and a solver that tells after "
    "every game whether the deal could have been won. The computer player never looks at "
    "the face-down Pack."
)


def make_kind() -> GameKind:
    """A fresh ``pyr`` GameKind (its hooks bound to the parlor that hosts it)."""
    hooks = Pyramid()
    return GameKind(
        key=KEY, title=TITLE, prefix=PREFIX, gmcp_package=GMCP, seats=1,
        min_seats=1, parse_options=parse_options, describe_options=describe_options,
        is_ranked=lambda options: False,
        new_state=lambda options, rng: new_table(options, (False,), False, rng),
        apply=apply, outcome=outcome, to_move=to_move, parse_action=parse_action,
        format_action=format_action, state_to_json=state_to_json,
        state_from_json=state_from_json, view_for=view_for, render=render,
        choose_action=choose_action, describe_event=describe_event,
        on_start=hooks.on_start, on_action=hooks.on_action, on_finish=hooks.on_finish,
        check_offer=hooks.check_offer, bind=hooks.bind,
        simultaneous=True, pace=hooks.pace, audience=audience, counts=counts,
    )


__all__ = ["HELP", "KEY", "Close", "Prefs", "Pyramid", "Table", "apply", "make_kind",
           "outcome", "service", "to_move", "view_for"]
