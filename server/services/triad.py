"""Triad on the parlor: card tables (the ``triad`` game kind, prefix ``TRIAD``).

The engine (``games/triad``) plays one table of 2..6 engine seats ("positions") and
knows stacks, not people. This module adds the people and their cubits:

A table is one hosted game
    ``TRIAD OPEN`` starts a game whose state is a :class:`Table`: the engine state,
    the players who have sat at it (the host's seats, only ever added to: a player who
    leaves stays, marked ``left``, so the move list keeps its names; ``seats_of``), which
    position each sits in (``places``), and the table's flags. Players come and go
    through actions like any other, so every change is a durable, replayable move:
    ``SIT <position> <stack> <account> <level|-> <name>`` (applied by the service, with
    ``GameHost.act_for``, for ``TRIAD JOIN`` and ``TRIAD BOT``), ``LEAVE``, ``AWAY`` and
    ``BACK`` (the host applies these two when a player disconnects and returns).

Cubits
    Sitting down moves the player's stack from their account to the table (a ledger
    row "triad buy-in", ref "game #N"); standing up, or the end of the table, moves
    the stack back (a row "triad cash-out"). Bets move cubits between stacks and pots
    inside the table's state, committed with the move. Every movement at the table is
    also a row of the table ledger (``table_ledger``), in the same transaction: the
    buy-ins and cash-outs, and each ante, bet and pot payout as two rows, the stack's
    and the pot's (``audit_tables`` checks that a table's rows sum to its stacks and
    pot, and mirror its account ledger rows). So at every commit: the sum of
    all account balances, table stacks and pots is constant, except that a computer
    player's stack is funded, when it sits down, by a row "triad house bankroll" on the
    computer's account (then its "triad buy-in"), and goes back to that account when it
    stands up: the house keeps what the computer wins and pays what it loses.

Hands
    ``TRIAD START`` deals the first hand; after each hand the next one is dealt by the
    first player to type ``TRIAD DEAL`` (or START), or by the server after
    ``NEXT_HAND_S`` seconds (never longer than the action clock). A player who joins
    during a hand sits out until the next one.

Clocks, disconnects, leaving (rules page: "timeouts and disconnects")
    The player to act has ``[games] triad_action_timeout`` seconds (default 60); then
    the engine's default action is applied (pass if they can, else fold; in the draw,
    keep every card). A player who disconnects is marked away (``AWAY``): at their
    turns the default action is applied at once, and they stand up (their stack back
    to their account) when they are out of the hand, or when it ends. Coming back in
    time (``BACK``, automatic on reconnecting) keeps the seat. ``TRIAD LEAVE`` during
    a hand in which one is still in works the same way. After a restart, players get
    the reconnect grace to come back before they count as away.

Computer players
    ``TRIAD BOT`` seats computer players (``games.triad.ai``) with the table's buy-in;
    they move through the host's computer turns (``asyncio.to_thread``), within the
    host's time budget. A computer player that can no longer pay the opening bet
    leaves. The evaluator's table is built once, in a worker thread, when the first
    computer player sits down (or lazily, in the computer's thread).

The table ends, between hands, when no human player is seated, or once started when
fewer than two seats (or no human) can pay the opening bet; every stack goes back.
"""

from __future__ import annotations

import asyncio
import threading
import time
import weakref
from typing import TYPE_CHECKING, Any

import attrs
import sqlalchemy as sa

import games.triad as engine
from games.errors import BadNotation, IllegalAction
from games.outcome import Outcome
from games.triad import ai, notation, render, rules
from server.hosting import ActionContext, FinishContext, GameKind, Seat, StartContext
from server.models import GameRecord, LedgerEntry, TableLedgerEntry
from server.services import ledger
from server.services.games import GameError, LiveGame
from server.text import wrap

if TYPE_CHECKING:
    from server.app import Parlor
    from server.services.accounts import Accounts
    from server.services.games import GameHost

KEY = "triad"
DEFAULT_OPENING = 10
DEFAULT_SEATS = 6
BUYIN_BETS = 20         # the default buy-in: this many opening bets
NEXT_HAND_S = 10.0      # the pause between hands before the server deals the next one
LEVELS = ("easy", "normal", "hard")
BUYIN, CASHOUT, BANKROLL = "triad buy-in", "triad cash-out", "triad house bankroll"


# -- the table's own actions (the engine's are rules.Action) -------------------------------
@attrs.frozen
class Sit:
    """A player (or a computer player, ``computer`` its level) takes ``position``."""

    position: int  # 0-based engine seat
    stack: int
    account_id: int
    name: str
    computer: str | None = None


@attrs.frozen
class Leave:
    """Stand up now, or when the hand ends if still in it."""


@attrs.frozen
class Away:
    """The player is disconnected: default actions at once, stand up after the hand."""


@attrs.frozen
class Back:
    """The player is back (or changes their mind about leaving): they keep the seat."""


# -- what happened, for the players and the ledger -----------------------------------------
@attrs.frozen
class Said:
    """A line for the players and watchers."""

    text: str


@attrs.frozen
class Cubits:
    """Cubits between an account and the table: ``delta`` is the account's change
    (the stack, negative when sitting down, positive when standing up)."""

    account_id: int
    computer: bool
    delta: int
    reason: str
    text: str
    position: int  # the engine seat whose stack it is


@attrs.frozen
class PotMove:
    """Cubits between the stack at ``position`` (``account_id``'s) and the pot: the
    engine's ``Chips`` "ante" and "bet" (``delta`` negative) and "pot" (positive)."""

    position: int
    account_id: int
    delta: int
    reason: str


# -- the table's state ----------------------------------------------------------------------
def _frozen_ints(values: Any) -> frozenset[int]:
    return frozenset(int(v) for v in values)


@attrs.frozen
class Table:
    game: rules.State
    seats: tuple[Seat, ...] = attrs.field(converter=tuple)   # everyone who has sat here
    places: tuple[int | None, ...] = attrs.field(converter=tuple)  # position -> seat
    buyin: int = 0
    started: bool = False
    away: frozenset[int] = attrs.field(default=frozenset(), converter=_frozen_ints)
    leaving: frozenset[int] = attrs.field(default=frozenset(), converter=_frozen_ints)

    def position(self, seat: int | None) -> int | None:
        """The engine seat of host seat ``seat`` (None: not seated now)."""
        if seat is None or seat not in self.places:
            return None
        return self.places.index(seat)

    def name_at(self, position: int) -> str:
        seat = self.places[position]
        return self.seats[seat].name if seat is not None else f"Seat {position + 1}"

    def is_computer(self, position: int) -> bool:
        seat = self.places[position]
        return seat is not None and self.seats[seat].computer is not None

    def free_position(self) -> int | None:
        """An empty position a newcomer may take now (during a hand, one that holds no
        cubits of a player who folded and left)."""
        for pos, seat in enumerate(self.places):
            s = self.game.seats[pos]
            if seat is None and s.stack is None and (
                    self.game.phase == "hand_over" or (not s.committed and not s.cards)):
                return pos
        return None

    def cubits(self) -> int:
        """Stacks plus pots: the cubits on the table."""
        return self.game.total_cubits()


def new_table(options: dict[str, Any], opener: Seat) -> Table:
    seats = int(options.get("seats", DEFAULT_SEATS))
    buyin = int(options["buyin"])
    game = rules.new_game({"opening": options["opening"], "limit": options.get("limit"),
                           "stacks": [buyin] + [0] * (seats - 1)})
    return Table(game, (opener,), (0,) + (None,) * (seats - 1), buyin)


# -- notation ---------------------------------------------------------------------------------
def parse_action(text: str) -> Any:
    """The engine's actions (``notation.parse_action``) and the table's: ``LEAVE``,
    ``AWAY``, ``BACK``, ``SIT <position> <stack> <account> <level|-> <name>``."""
    words = text.split()
    verb = words[0].upper() if words else ""
    if verb in ("LEAVE", "AWAY", "BACK"):
        if len(words) != 1:
            raise BadNotation(f"{verb} takes nothing after it.")
        return {"LEAVE": Leave, "AWAY": Away, "BACK": Back}[verb]()
    if verb == "SIT":
        if (len(words) < 6 or not all(w.isdecimal() for w in words[1:4])
                or not 1 <= int(words[1]) <= rules.MAX_SEATS):
            raise BadNotation("SIT is how the server seats a player: TRIAD JOIN <table>.")
        level = None if words[4] == "-" else words[4].lower()
        if level is not None and level not in LEVELS:
            raise BadNotation(f"No computer level {words[4]!r}.")
        return Sit(int(words[1]) - 1, int(words[2]), int(words[3]), " ".join(words[5:]), level)
    return notation.parse_action(text)


def format_action(action: Any) -> str:
    if isinstance(action, Sit):
        return (f"SIT {action.position + 1} {action.stack} {action.account_id} "
                f"{action.computer or '-'} {action.name}")
    if isinstance(action, (Leave, Away, Back)):
        return type(action).__name__.upper()
    return notation.format_action(action)


def _seat_json(seat: Seat) -> dict[str, Any]:
    return seat.to_json()


def state_to_json(table: Table) -> dict[str, Any]:
    return {"game": notation.state_to_json(table.game),
            "seats": [_seat_json(s) for s in table.seats], "places": list(table.places),
            "buyin": table.buyin, "started": table.started,
            "away": sorted(table.away), "leaving": sorted(table.leaving)}


def state_from_json(data: dict[str, Any]) -> Table:
    return Table(notation.state_from_json(data["game"]),
                 tuple(Seat.from_json(s) for s in data["seats"]), tuple(data["places"]),
                 data["buyin"], data["started"], data["away"], data["leaving"])


def seats_of(table: Table) -> tuple[Seat, ...]:
    return table.seats


# -- the rules of the table -------------------------------------------------------------------
def apply(table: Table, seat: int, action: Any, rng) -> tuple[Table, list]:  # noqa: ANN001
    """Apply host seat ``seat``'s action; the engine's for the cards and bets.

    :raises IllegalAction: with a message for the player; the table is unchanged.
    """
    if isinstance(action, Sit):
        table, events = _sit(table, seat, action)
    elif isinstance(action, (Leave, Away, Back)):
        table, events = _presence(table, seat, action)
    else:
        table, events = _play(table, seat, action, rng)
    table, more = _tidy(table)
    return table, events + more


def _sit(table: Table, seat: int, action: Sit) -> tuple[Table, list]:
    game = table.game
    seats = list(table.seats)
    if seat == len(seats):
        if action.computer is None and any(
                s.account_id == action.account_id and not s.left and s.computer is None
                for s in seats):
            raise IllegalAction(f"{action.name} is already at this table.")
        seats.append(Seat(action.account_id, action.name, action.computer))
    elif (0 <= seat < len(seats) and seats[seat].left and action.computer is None
          and seats[seat].computer is None and seats[seat].account_id == action.account_id):
        seats[seat] = attrs.evolve(seats[seat], name=action.name, left=False)
    else:
        raise IllegalAction("You are already at this table.")
    pos = action.position
    if not 0 <= pos < len(table.places):
        raise IllegalAction(f"This table has seats 1 to {len(table.places)}.")
    if table.places[pos] is not None or game.seats[pos].stack is not None:
        raise IllegalAction(f"Seat {pos + 1} is taken.")
    if action.stack < game.opening:
        raise IllegalAction(f"Bring at least the opening bet, {game.opening} cubits.")
    if game.phase == "hand_over":
        game, _ = rules.sit(game, pos, action.stack)
    else:  # sits out the hand in play
        s = game.seats[pos]
        if s.committed or s.cards:
            raise IllegalAction(f"Seat {pos + 1} is not free until this hand ends.")
        seats_now = list(game.seats)
        seats_now[pos] = rules.Seat(action.stack)
        game = attrs.evolve(game, seats=tuple(seats_now))
    places = list(table.places)
    places[pos] = seat
    table = attrs.evolve(table, game=game, seats=tuple(seats), places=tuple(places),
                         away=table.away - {seat}, leaving=table.leaving - {seat})
    when = "" if game.phase == "hand_over" else " (dealt in from the next hand)"
    return table, [Cubits(action.account_id, action.computer is not None, -action.stack, BUYIN,
                          f"{action.name} sits down in seat {pos + 1} with {action.stack} "
                          f"cubits{when}.", pos)]


def _presence(table: Table, seat: int, action: Any) -> tuple[Table, list]:
    pos = table.position(seat)
    if pos is None:
        raise IllegalAction("You are not seated at this table.")
    name = table.seats[seat].name
    in_hand = table.game.phase != "hand_over" and table.game.seats[pos].live
    if isinstance(action, Back):
        if seat not in table.away and seat not in table.leaving:
            raise IllegalAction("You are not leaving the table; there is nothing to take back.")
        return (attrs.evolve(table, away=table.away - {seat}, leaving=table.leaving - {seat}),
                [Said(f"{name} stays at the table.")])
    if isinstance(action, Away):
        if seat in table.away:
            raise IllegalAction(f"{name} is already away.")
        table = attrs.evolve(table, away=table.away | {seat})
        if in_hand:
            return table, [Said(f"{name} is away: they pass or fold at their turns and leave "
                                "the table when this hand ends, unless they come back.")]
        return table, [Said(f"{name} is away.")]
    if seat in table.leaving:
        raise IllegalAction("You are already leaving when this hand ends (TRIAD BACK to stay).")
    table = attrs.evolve(table, leaving=table.leaving | {seat})
    if in_hand:
        return table, [Said(f"{name} will leave the table when this hand ends, passing or "
                            "folding meanwhile (TRIAD BACK to stay).")]
    return table, []


def _play(table: Table, seat: int, action: rules.Action, rng) -> tuple[Table, list]:  # noqa: ANN001
    pos = table.position(seat)
    if pos is None:
        raise IllegalAction("You are not seated at this table.")
    game = table.game
    kind = action.kind.upper()
    if game.phase == "hand_over":
        if kind != "DEAL":
            first = "TRIAD DEAL deals the next" if table.started else "TRIAD START deals the first"
            raise IllegalAction(f"There is no hand in play: {first} hand.")
        able = [p for p in range(len(game.seats)) if rules.can_play(game, p)]
        if len(able) < 2:
            raise IllegalAction(f"Two players who can pay the opening bet ({game.opening}) "
                                "are needed to deal: wait for someone to TRIAD JOIN, or "
                                "TRIAD BOT seats a computer player.")
        table = attrs.evolve(table, started=True)
    elif game.to_act is not None and game.to_act != pos:
        raise IllegalAction(f"It is not your turn: waiting for {table.name_at(game.to_act)}.")
    game, events = rules.apply(game, pos, action, rng)
    moves = [PotMove(e.seat, table.seats[table.places[e.seat]].account_id, e.delta, e.reason)
             for e in events if isinstance(e, rules.Chips) and e.delta]
    table = attrs.evolve(table, game=game)
    return table, [Said(text) for text in _describe(table, events)] + moves


def _stand(table: Table, pos: int) -> tuple[Table, list]:
    seat = table.places[pos]
    stack = table.game.seats[pos].stack or 0
    game, _ = rules.stand(table.game, pos)
    who = table.seats[seat]
    places = list(table.places)
    places[pos] = None
    seats = list(table.seats)
    seats[seat] = attrs.evolve(who, left=True)
    table = attrs.evolve(table, game=game, places=tuple(places), seats=tuple(seats),
                         away=table.away - {seat}, leaving=table.leaving - {seat})
    where = "the house" if who.computer else "their account"
    text = (f"{who.name} leaves the table with {stack} cubits (back to {where})." if stack
            else f"{who.name} leaves the table.")
    return table, [Cubits(who.account_id, who.computer is not None, stack, CASHOUT, text, pos)]


def _tidy(table: Table) -> tuple[Table, list]:
    """Stand up the players leaving or away who are out of the hand (or all of them when
    no hand is in play), and computer players that can no longer pay the opening bet."""
    events: list = []
    for pos, seat in enumerate(table.places):
        if seat is None:
            continue
        s = table.game.seats[pos]
        between = table.game.phase == "hand_over"
        going = seat in table.away or seat in table.leaving
        broke = table.seats[seat].computer is not None and (s.stack or 0) < table.game.opening
        if (going and (between or not s.live)) or (between and broke):
            table, more = _stand(table, pos)
            events += more
    return table, events


def outcome(table: Table) -> Outcome | None:
    game = table.game
    if game.phase != "hand_over":
        return None
    scores = tuple(game.seats[table.position(i)].stack or 0 if table.position(i) is not None
                   else 0 for i in range(len(table.seats)))
    present = [p for p, seat in enumerate(table.places) if seat is not None]
    if not any(not table.is_computer(p) for p in present):
        return Outcome(None, "everyone has left the table", scores)
    if not table.started:
        return None
    able = [p for p in present if rules.can_play(game, p)]
    if len(able) >= 2 and any(not table.is_computer(p) for p in able):
        return None
    if len(able) == 1:
        return Outcome(table.places[able[0]], "nobody else can pay the opening bet", scores)
    if able:
        return Outcome(None, "only computer players can pay the opening bet", scores)
    return Outcome(None, "nobody can pay the opening bet", scores)


def to_move(table: Table) -> tuple[int, ...]:
    """The seat to act in a hand (between hands anyone seated may DEAL: nobody must)."""
    if table.game.phase == "hand_over" or table.game.to_act is None:
        return ()
    return (table.places[table.game.to_act],)


def next_dealer(table: Table) -> int | None:
    """The position that deals the next hand (the button moves left)."""
    game = table.game
    n = len(game.seats)
    for step in range(1, n + 1):
        pos = (game.dealer + step) % n
        if rules.can_play(game, pos):
            return pos
    return None


def presence(table: Table, seat: int, here: bool) -> str | None:
    """AWAY when a seated player disconnects, BACK when an away player returns."""
    if table.position(seat) is None:
        return None
    if here:
        return "BACK" if seat in table.away else None
    return None if seat in table.away else "AWAY"


def table_timeout(table: Table, action_timeout: float) -> tuple | None:
    if outcome(table) is not None:
        return None
    game = table.game
    if game.phase == "hand_over":
        if not table.started:
            return None
        pos = next_dealer(table)
        if pos is None:
            return None
        return min(NEXT_HAND_S, action_timeout), table.places[pos], "DEAL", ""
    pos = game.to_act
    if pos is None:
        return None
    seat = table.places[pos]
    text = notation.format_action(rules.timeout_action(game, pos))
    name = table.seats[seat].name
    if seat in table.away:
        return 0.0, seat, text, f"{name} is away."
    if seat in table.leaving:
        return 0.0, seat, text, f"{name} is leaving the table."
    return action_timeout, seat, text, None


# -- words for what happened -------------------------------------------------------------------
def _names(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _describe(table: Table, events: list) -> list[str]:
    game = table.game
    out = []
    for e in events:
        if isinstance(e, rules.HandStarted):
            out.append(f"Hand {e.hand_no}: {table.name_at(e.dealer)} deals to "
                       f"{_names([table.name_at(p) for p in e.seats])}; each antes "
                       f"{game.opening}.")
        elif isinstance(e, rules.Acted):
            if e.all_in:
                out.append(f"{table.name_at(e.seat)} is all in.")
        elif isinstance(e, rules.Drew):
            who = table.name_at(e.seat)
            out.append(f"{who} keeps all six cards." if not e.count else
                       f"{who} discards {e.count} and draws {e.count}.")
        elif isinstance(e, rules.Reshuffled):
            out.append(f"The stock has run out: the {e.count} cards of the discard pile are "
                       "shuffled into a new stock.")
        elif isinstance(e, rules.PhaseChanged):
            if e.phase == "draw":
                out.append("The draw: discard up to four cards (TRIAD DISCARD <positions>), "
                           "or TRIAD STAND to keep all six.")
            elif e.phase == "bet2":
                out.append("The second betting round.")
        elif isinstance(e, rules.Shown):
            out.append(f"{table.name_at(e.seat)} shows {' '.join(e.cards)}: {e.name}.")
        elif isinstance(e, rules.PotAwarded):
            pot = "The pot" if e.index == 0 else f"Side pot {e.index}"
            if e.index == 0 and any(a.index for a in events if isinstance(a, rules.PotAwarded)):
                pot = "The main pot"
            shares = [(table.name_at(s), n) for s, n in e.shares]
            if len(shares) == 1:
                why = {"best hand": "the best hand", "uncontested": "uncontested",
                       "all others folded": "everyone else folded"}.get(e.reason, e.reason)
                out.append(f"{pot} ({e.amount}) goes to {shares[0][0]}: {why}.")
            else:
                split = _names([f"{name} {n}" for name, n in shares])
                out.append(f"{pot} ({e.amount}) is split between equal hands: {split}.")
    return out


def describe_event(event: Any) -> str | None:
    if isinstance(event, (Said, Cubits)):
        return event.text
    return None


# -- what a player sees ------------------------------------------------------------------------
def view_for(table: Table, seat: int | None) -> dict:
    pos = table.position(seat)
    view = render.view_for(table.game, pos)
    view["names"] = [table.name_at(p) if s is not None else None
                     for p, s in enumerate(table.places)]
    view["table"] = {
        "started": table.started, "buyin": table.buyin,
        "computer": [p for p in range(len(table.places)) if table.is_computer(p)],
        "away": sorted(p for p, s in enumerate(table.places) if s in table.away),
        "leaving": sorted(p for p, s in enumerate(table.places) if s in table.leaving),
    }
    return view


def render_table(view: dict, width: int = 80, color: bool = True, names=None) -> str:  # noqa: ANN001
    width = max(60, min(width or 80, 200))
    names = [n or "" for n in view.get("names", ())]
    text = render.render(view, width=width, color=color, names=names)
    info = view["table"]
    notes = []
    if info["away"]:
        notes.append("Away: " + _names([names[p] for p in info["away"]]) + ".")
    if info["leaving"]:
        notes.append("Leaving after this hand: " + _names([names[p] for p in info["leaving"]])
                     + ".")
    taken = sum(1 for n in names if n)
    if not info["started"]:
        notes.append(f"The table is open: {taken} of {len(names)} seats taken, buy-in "
                     f"{info['buyin']}. TRIAD START deals the first hand (two players "
                     "needed); TRIAD BOT seats a computer player.")
    elif view["phase"] == "hand_over":
        notes.append("Between hands: TRIAD DEAL deals the next hand now (the server deals "
                     "it in a few seconds).")
    lines = [text]
    for note in notes:
        lines.extend(wrap(note, width))
    return "\n".join(lines)


def hand_text(view: dict) -> str:
    """The viewer's own cards: ``TRIAD HAND``."""
    me = view.get("viewer")
    entry = next((e for e in view["seats"] if e["seat"] == me and not e["empty"]), None)
    if entry is None or not entry["cards"]:
        return "You hold no cards now."
    cards = "  ".join(f"{k}:{c}" for k, c in enumerate(entry["cards"], 1))
    name = f" ({entry['hand_name']})" if entry["hand_name"] else ""
    return f"Your hand: {cards}{name}. Your stack: {entry['stack']} cubits."


# -- options ---------------------------------------------------------------------------------
def parse_options(words: list[str]) -> dict[str, Any]:
    raise BadNotation("Triad is played at tables, not by challenge: TRIAD OPEN opens a "
                      "table, TRIAD TABLES lists them, TRIAD JOIN <table> sits you at one, "
                      "TRIAD BOT seats computer players.")


def describe_options(options: dict[str, Any]) -> str:
    if not options:
        return ""
    limit = "no limit" if options.get("limit") is None else f"limit {options['limit']}"
    return (f"opening bet {options['opening']}, {limit}, {options.get('seats', DEFAULT_SEATS)} "
            f"seats, buy-in {options['buyin']}")


def table_options(opening: int = DEFAULT_OPENING, limit: int | None = None,
                  seats: int = DEFAULT_SEATS, buyin: int | None = None) -> dict[str, Any]:
    """Checked options of a new table.

    :raises IllegalAction: a bad combination, with the reason.
    """
    if opening < 1:
        raise IllegalAction("The opening bet is at least 1 cubit.")
    if limit is not None and limit < opening:
        raise IllegalAction(f"The upper limit can't be below the opening bet ({opening}).")
    if not rules.MIN_SEATS <= seats <= rules.MAX_SEATS:
        raise IllegalAction(f"A table has {rules.MIN_SEATS} to {rules.MAX_SEATS} seats.")
    buyin = opening * BUYIN_BETS if buyin is None else buyin
    if buyin < opening:
        raise IllegalAction(f"The buy-in is at least the opening bet ({opening}).")
    return {"opening": opening, "limit": limit, "seats": seats, "buyin": buyin}


# -- the computer player ------------------------------------------------------------------------
_warm_lock = threading.Lock()
_warmed = threading.Event()


def warm() -> None:
    """Build the hand evaluator's table once per process (a second or so; in a thread)."""
    with _warm_lock:
        if not _warmed.is_set():
            ai.warm()
            _warmed.set()


def choose_action(table: Table, seat: int, level: str, rng, budget_s: float = 1.0):  # noqa: ANN001, ANN201
    """The engine's computer player for host seat ``seat`` (runs in a worker thread)."""
    warm()
    return ai.choose_action(table.game, table.position(seat), level or "normal", rng, budget_s)


# -- the table ledger ------------------------------------------------------------------------------
TABLE_REASONS = {BUYIN: "buy-in", CASHOUT: "cash-out"}


def _record_pot_move(tx, game_id: int, move: PotMove) -> None:  # noqa: ANN001
    """Two rows that cancel out: the stack's change and the pot's."""
    now = time.time()
    tx.add_all([
        TableLedgerEntry(game_id=game_id, seat=move.position, account_id=move.account_id,
                         delta=move.delta, reason=move.reason, created_at=now),
        TableLedgerEntry(game_id=game_id, seat=None, account_id=move.account_id,
                         delta=-move.delta, reason=move.reason, created_at=now),
    ])


async def audit_tables(tx, states: dict[int, Table] | None = None) -> list[tuple]:  # noqa: ANN001
    """Triad tables whose table ledger does not add up: (game, what, ledger, expected).

    For each table, the rows of each position must sum to its stack and the pot's rows
    to the pot, in ``states`` (game id -> table) or else as stored; a finished table's
    to nothing (every stack went back). And the table's rows must mirror the table's
    buy-in and cash-out rows in the account ledger (ref "game #N").
    """
    await tx.flush()
    sums: dict[int, dict[int | None, int]] = {}
    for game_id, seat, total in await tx.execute(
            sa.select(TableLedgerEntry.game_id, TableLedgerEntry.seat,
                      sa.func.sum(TableLedgerEntry.delta))
            .group_by(TableLedgerEntry.game_id, TableLedgerEntry.seat)):
        sums.setdefault(game_id, {})[seat] = int(total)
    accounts = {ref: int(total) for ref, total in await tx.execute(
        sa.select(LedgerEntry.ref, sa.func.sum(LedgerEntry.delta))
        .where(LedgerEntry.reason.in_((BUYIN, CASHOUT)), LedgerEntry.ref.like("game #%"))
        .group_by(LedgerEntry.ref))}
    bad: list[tuple] = []
    records = await tx.execute(sa.select(GameRecord.id, GameRecord.status, GameRecord.state)
                               .where(GameRecord.kind == KEY).order_by(GameRecord.id))
    for game_id, status, stored in records:
        rows = sums.pop(game_id, {})
        expected: dict[int | None, int] = {}
        if status != "finished" and (stored or game_id in (states or {})):
            table = (states or {}).get(game_id) or state_from_json(stored)
            expected = {pos: s.stack or 0 for pos, s in enumerate(table.game.seats)}
            expected[None] = table.game.pot
        for where in sorted(set(rows) | set(expected), key=lambda w: -1 if w is None else w):
            if rows.get(where, 0) != expected.get(where, 0):
                what = "pot" if where is None else f"seat {where + 1}"
                bad.append((game_id, what, rows.get(where, 0), expected.get(where, 0)))
        on_table, paid_in = sum(rows.values()), -accounts.get(f"game #{game_id}", 0)
        if on_table != paid_in:
            bad.append((game_id, "account ledger", on_table, paid_in))
    bad.extend((game_id, "not a Triad table", sum(rows.values()), 0)
               for game_id, rows in sums.items())
    return bad


# -- the service: tables for the commands, hooks for the host ------------------------------------
_BY_HOST: "weakref.WeakKeyDictionary[Any, TriadTables]" = weakref.WeakKeyDictionary()


def tables_of(host: "GameHost") -> "TriadTables":
    return _BY_HOST[host]


class TriadTables:
    """Opens tables, seats players and computer players, and moves their cubits."""

    def __init__(self) -> None:
        self.host: "GameHost | None" = None
        self.accounts: "Accounts | None" = None
        self.action_timeout = float(rules.DEFAULT_ACTION_TIMEOUT_S)
        self._seating = asyncio.Lock()  # one seat change at a time: one table per player
        self._warming: asyncio.Future | None = None

    def bind(self, parlor: "Parlor") -> None:
        self.attach(parlor.host, parlor.accounts, parlor.config.games.triad_action_timeout)

    def attach(self, host: "GameHost", accounts: "Accounts",
               action_timeout: float = rules.DEFAULT_ACTION_TIMEOUT_S) -> None:
        self.host, self.accounts = host, accounts
        self.action_timeout = float(action_timeout)
        _BY_HOST[host] = self

    # -- hooks, inside the host's transaction ---------------------------------------------------
    async def on_start(self, ctx: StartContext) -> Table:
        table = new_table(ctx.options, ctx.seats[0])
        opener = ctx.seats[0]
        await self._move(ctx.tx, ctx.game_id, Cubits(opener.account_id, False, -table.buyin,
                                                     BUYIN, "", 0))
        return table

    async def on_action(self, ctx: ActionContext) -> None:
        for event in ctx.events:
            if isinstance(event, Cubits):
                await self._move(ctx.tx, ctx.game_id, event)
            elif isinstance(event, PotMove):
                _record_pot_move(ctx.tx, ctx.game_id, event)

    async def on_finish(self, ctx: FinishContext) -> list[str]:
        table: Table = ctx.state
        lines = []
        for pos, seat in enumerate(table.places):
            stack = table.game.seats[pos].stack or 0
            if seat is None or not stack:
                continue
            who = table.seats[seat]
            await self._move(ctx.tx, ctx.game_id, Cubits(
                who.account_id, who.computer is not None, stack, CASHOUT, "", pos))
            where = "the house" if who.computer else "their account"
            lines.append(f"The table closes: {who.name}'s {stack} cubits go back to {where}.")
        return lines

    async def _move(self, tx, game_id: int, event: Cubits) -> None:  # noqa: ANN001
        ref = f"game #{game_id}"
        if event.computer and event.delta < 0:
            await ledger.move(tx, event.account_id, -event.delta, BANKROLL, ref)
        try:
            await ledger.move(tx, event.account_id, event.delta, event.reason, ref)
        except ledger.InsufficientCubits as err:
            raise IllegalAction(f"You have {err.balance} cubits; you can't bring "
                                f"{err.needed} to the table.") from None
        if event.delta:
            tx.add(TableLedgerEntry(game_id=game_id, seat=event.position,
                                    account_id=event.account_id, delta=-event.delta,
                                    reason=TABLE_REASONS[event.reason], created_at=time.time()))

    def timeout(self, table: Table) -> tuple | None:
        return table_timeout(table, self.action_timeout)

    # -- what the commands ask ---------------------------------------------------------------
    def tables(self) -> list[LiveGame]:
        return sorted((g for g in self._host.live.values() if g.kind.key == KEY),
                      key=lambda g: g.id)

    def table(self, number: int) -> LiveGame:
        game = self._host.live.get(number)
        if game is None or game.kind.key != KEY:
            raise GameError(f"There is no Triad table #{number} (TRIAD TABLES lists them).")
        return game

    def my_table(self, account_id: int) -> LiveGame:
        game = self._host.game_of(account_id, KEY)
        if game is None:
            raise GameError("You are not at a Triad table: TRIAD TABLES lists them, TRIAD "
                            "JOIN <table> sits you at one, TRIAD OPEN opens one.")
        return game

    @property
    def _host(self) -> "GameHost":
        if self.host is None:
            raise RuntimeError("the Triad tables are not attached to a game host")
        return self.host

    def _not_seated(self, account_id: int) -> None:
        game = self._host.game_of(account_id, KEY)
        if game is not None:
            raise GameError(f"You are already at Triad table #{game.id} (TRIAD LEAVE first).")

    async def _balance(self, account_id: int) -> int:
        account = await self.accounts.get_by_id(account_id)
        return account.cubits if account is not None else 0

    async def open(self, account_id: int, name: str, options: dict[str, Any]) -> LiveGame:
        """A new table with the opener in seat 1, bringing the buy-in."""
        async with self._seating:
            self._not_seated(account_id)
            balance = await self._balance(account_id)
            if balance < options["buyin"]:
                raise GameError(f"The buy-in is {options['buyin']} cubits and you have "
                                f"{balance}. (TRIAD OPEN ... BUYIN <n> sets a smaller one.)")
            return await self._host.start_game(KEY, (Seat(account_id, name),), options)

    async def join(self, account_id: int, name: str, number: int,
                   stack: int | None = None) -> LiveGame:
        """Sit down at table ``number`` with ``stack`` cubits (default: the table's buy-in,
        or all you have if that is less, but at least the opening bet)."""
        async with self._seating:
            self._not_seated(account_id)
            game = self.table(number)
            table: Table = game.state
            opening = table.game.opening
            balance = await self._balance(account_id)
            if stack is None:
                if balance < opening:
                    raise GameError(f"You need at least the opening bet, {opening} cubits, "
                                    f"to sit down; you have {balance}.")
                stack = min(table.buyin, balance)
            elif stack < opening:
                raise GameError(f"Bring at least the opening bet, {opening} cubits.")
            elif stack > balance:
                raise GameError(f"You have {balance} cubits; you can't bring {stack}.")
            pos = table.free_position()
            if pos is None:
                raise GameError(f"Table #{number} has no free seat.")
            seat = next((i for i, s in enumerate(table.seats)
                         if s.left and s.computer is None and s.account_id == account_id),
                        len(table.seats))
            return await self._host.act_for(
                game.id, seat, format_action(Sit(pos, stack, account_id, name)))

    async def add_bots(self, account_id: int, count: int, level: str) -> LiveGame:
        """Seat ``count`` computer players at the caller's table, each with the buy-in
        (funded by the house)."""
        async with self._seating:
            game = self.my_table(account_id)
            computer = await self.accounts.computer()
            self.warm_soon()
            for _ in range(count):
                table: Table = game.state
                pos = table.free_position()
                if pos is None:
                    raise GameError(f"Table #{game.id} has no free seat.")
                taken = {s.name for s in table.seats if not s.left}
                name = next(f"Computer {n}" for n in range(1, 99) if f"Computer {n}" not in taken)
                await self._host.act_for(game.id, len(table.seats), format_action(
                    Sit(pos, table.buyin, computer.id, name, level)))
                if game.id not in self._host.live:
                    break
            return game

    def warm_soon(self) -> None:
        """Build the evaluator's table in a worker thread, once."""
        if self._warming is None and not _warmed.is_set():
            self._warming = asyncio.ensure_future(asyncio.to_thread(warm))


def make_kind(tables: TriadTables | None = None) -> GameKind:
    """A ``triad`` GameKind with its own :class:`TriadTables` (bound to the parlor)."""
    from commands import triad as commands

    tables = tables or TriadTables()
    return GameKind(
        key=KEY, title="Triad", prefix="TRIAD", module=engine, gmcp_package="Triad.Game",
        seats=rules.MAX_SEATS, min_seats=1,
        parse_options=parse_options, describe_options=describe_options,
        is_ranked=lambda options: False,
        new_state=lambda options, rng: new_table(options, Seat(0, "?")),
        apply=apply, outcome=outcome, to_move=to_move, parse_action=parse_action,
        format_action=format_action, state_to_json=state_to_json,
        state_from_json=state_from_json, view_for=view_for, render=render_table,
        choose_action=choose_action, describe_event=describe_event,
        on_start=tables.on_start, on_action=tables.on_action, on_finish=tables.on_finish,
        timeout=tables.timeout, seats_of=seats_of, presence=presence, bind=tables.bind,
        resign_action="LEAVE", help=commands.HELP, commands=commands.COMMANDS,
    )


__all__ = ["KEY", "Table", "TriadTables", "apply", "audit_tables", "make_kind", "outcome",
           "parse_action", "format_action", "state_from_json", "state_to_json", "table_options",
           "tables_of", "view_for"]
