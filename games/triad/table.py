"""A Triad table whose players come and go: the engine around ``rules`` (one hand's
state machine) that knows who sits where, and what happens when they sit, leave,
go away and come back (docs/rules/triad.md, "Timeouts and disconnects").

State
    :class:`Table`: the hand engine's state (``game``, whose seats are "positions"),
    everyone who has sat at the table (``seats``, :class:`Player` values, only ever
    added to: a player who leaves stays, marked ``left``, so a move list keeps its
    names), which player sits in each position (``places``), the buy-in, whether the
    first hand was dealt, who is away or leaving, and who played the last hand at each
    position (``hand_seats``: its winnings keep their names once those players stand up). A "seat" in this module's
    functions is an index into ``seats`` (the host's seat); a "position" an engine seat.

Actions
    The hand engine's (``rules.Action``: DEAL, PASS, EQUAL, RAISE, FOLD, DRAW) and the
    table's own: :class:`Sit` (``SIT <position> <stack> <account> <level|-> <name>``,
    the server's action for a player or computer player sitting down), :class:`Leave`,
    :class:`Away` (disconnected) and :class:`Back`. ``apply`` raises
    :class:`games.errors.IllegalAction` with the player's message and leaves the table
    unchanged.

Events
    :class:`Said` (a line for everyone), :class:`Cubits` (cubits between an account and
    the table: sitting down, standing up) and :class:`PotMove` (between a stack and the
    pot). Stacks plus pot plus what the ``Cubits`` events took away always equal what
    they brought in.

When a table closes (``outcome``; ``closing_text`` says it in the player's words)
    Between hands, for one of four reasons: no person is seated any more (computer players
    alone do not keep a table); or, once the first hand was dealt, only one player can
    still pay the opening bet (that player wins the table), only computer players can,
    or nobody can. Every stack then goes back. Nobody is told the table "ends in a
    draw": a table has no draw.

A player who leaves or is away while still in a hand passes or folds at their turns
(``table_timeout`` gives them no time) and stands up when out of the hand or when it
ends; a computer player that can no longer pay the opening bet stands up between hands.
"""

from __future__ import annotations

import textwrap
import threading
from typing import Any, Iterator

import attrs

from games.errors import BadNotation, IllegalAction
from games.outcome import Outcome

from . import ai, hands, notation, render, rules

DEFAULT_OPENING = 10
DEFAULT_SEATS = 6
BUYIN_BETS = 20         # the default buy-in: this many opening bets
NEXT_HAND_S = 10.0      # the pause between hands before the server deals the next one
LEVELS = ("easy", "normal", "hard")
BUYIN, CASHOUT = "triad buy-in", "triad cash-out"  # the reasons of Cubits events


# -- who sits at the table --------------------------------------------------------------------
@attrs.frozen
class Player:
    """Someone who has sat at the table: an account, its name, the computer's level
    when it is a computer player, and whether they have left."""

    account_id: int
    name: str
    computer: str | None = None  # "easy" | "normal" | "hard" for a computer player
    left: bool = False

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.account_id, "name": self.name,
                                "computer": self.computer}
        if self.left:
            data["left"] = True
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Player":
        return cls(data["id"], data["name"], data.get("computer"), bool(data.get("left")))


# -- the table's own actions (the hand's are rules.Action) ------------------------------------
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


# -- what happened, for the players and the ledger ---------------------------------------------
@attrs.frozen
class Said:
    """A line for the players and watchers; ``new_phase`` when it starts something every
    player must look at (a hand dealt)."""

    text: str
    new_phase: bool = False
    tells_action: bool = False  # the sentence of a player's draw ("Bob discards 2 ...")
    private: bool = False  # told to the acting player alone (the cards a discard brought)


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


# -- the table's state -------------------------------------------------------------------------
def _frozen_ints(values: Any) -> frozenset[int]:
    return frozenset(int(v) for v in values)


def _players(values: Any) -> tuple[Player, ...]:
    return tuple(v if isinstance(v, Player) else
                 Player(v.account_id, v.name, v.computer, v.left) for v in values)


@attrs.frozen
class Table:
    game: rules.State
    seats: tuple[Player, ...] = attrs.field(converter=_players)   # everyone who has sat here
    places: tuple[int | None, ...] = attrs.field(converter=tuple)  # position -> seat
    buyin: int = 0
    started: bool = False
    away: frozenset[int] = attrs.field(default=frozenset(), converter=_frozen_ints)
    leaving: frozenset[int] = attrs.field(default=frozenset(), converter=_frozen_ints)
    # who played the last hand: the seat dealt in at each position (None: not dealt in),
    # kept after they stand up, so the hand's winnings are told with their names even at
    # a table they have left ("Last hand: Bob won 30.", not "Seat 2 won 30.")
    hand_seats: tuple[int | None, ...] = attrs.field(default=(), converter=tuple)

    def position(self, seat: int | None) -> int | None:
        """The engine seat of host seat ``seat`` (None: not seated now)."""
        if seat is None or seat not in self.places:
            return None
        return self.places.index(seat)

    def name_at(self, position: int) -> str:
        seat = self.places[position]
        return self.seats[seat].name if seat is not None else f"Seat {position + 1}"

    def hand_names(self) -> list[str | None]:
        """The name of the player (the computer player's, for a computer seat) who played
        the last hand at each position, seated now or not; None where nobody was dealt in."""
        seats = list(self.hand_seats) + [None] * (len(self.places) - len(self.hand_seats))
        return [None if s is None else self.seats[s].name for s in seats]

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


def new_table(options: dict[str, Any], opener: Player) -> Table:
    """A table of ``options`` (``table_options``) with ``opener`` in position 1, holding
    the buy-in (the caller moves it from the opener's account)."""
    seats = int(options.get("seats", DEFAULT_SEATS))
    buyin = int(options["buyin"])
    game = rules.new_game({"opening": options["opening"], "limit": options.get("limit"),
                           "stacks": [buyin] + [0] * (seats - 1)})
    return Table(game, (opener,), (0,) + (None,) * (seats - 1), buyin)


# -- notation ----------------------------------------------------------------------------------
def parse_action(text: str) -> Any:
    """The hand's actions (``notation.parse_action``) and the table's: ``LEAVE``,
    ``AWAY``, ``BACK``, ``SIT <position> <stack> <account> <level|-> <name>``.

    :raises BadNotation: the text is not an action.
    """
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


def state_to_json(table: Table) -> dict[str, Any]:
    return {"game": notation.state_to_json(table.game),
            "seats": [p.to_json() for p in table.seats], "places": list(table.places),
            "buyin": table.buyin, "started": table.started,
            "away": sorted(table.away), "leaving": sorted(table.leaving),
            "hand_seats": list(table.hand_seats)}


def state_from_json(data: dict[str, Any]) -> Table:
    # a table stored before it kept who played the last hand: those seated now
    hand_seats = data.get("hand_seats", data["places"] if data["started"] else [])
    return Table(notation.state_from_json(data["game"]),
                 tuple(Player.from_json(s) for s in data["seats"]), tuple(data["places"]),
                 data["buyin"], data["started"], data["away"], data["leaving"],
                 tuple(hand_seats))


# -- the rules of the table --------------------------------------------------------------------
def legal_actions(table: Table, seat: int) -> Iterator[Any]:
    """What host seat ``seat`` may do now (SIT is the server's, and not listed): the
    hand's actions at its turn, DEAL between hands when two can pay the opening bet,
    and LEAVE, AWAY, BACK as they apply."""
    pos = table.position(seat)
    if pos is None:
        return
    game = table.game
    if game.phase == "hand_over":
        able = [p for p in range(len(game.seats)) if rules.can_play(game, p)]
        if len(able) >= 2 and rules.can_play(game, pos):
            yield rules.Action("DEAL")
    elif game.to_act == pos:
        yield from rules.legal_actions(game, pos)
    if seat not in table.leaving:
        yield Leave()
    if seat not in table.away:
        yield Away()
    if seat in table.away or seat in table.leaving:
        yield Back()


def apply(table: Table, seat: int, action: Any, rng) -> tuple[Table, list]:  # noqa: ANN001
    """Apply host seat ``seat``'s action; the hand engine's for the cards and bets.

    :raises IllegalAction: with a message for the player; the table is unchanged.
    """
    if isinstance(action, Sit):
        table, events = _sit(table, seat, action)
    elif isinstance(action, (Leave, Away, Back)):
        table, events = _presence(table, seat, action)
    elif isinstance(action, rules.Action):
        table, events = _play(table, seat, action, rng)
    else:
        raise IllegalAction(f"{action!r} is not a Triad action.")
    table, more = _tidy(table)
    return table, events + more


def _sit(table: Table, seat: int, action: Sit) -> tuple[Table, list]:
    game = table.game
    seats = list(table.seats)
    if 0 <= seat < len(seats) and not seats[seat].left:
        raise IllegalAction("You are already at this table.")
    # a person has one place at a table, whichever seat number they come back by
    if action.computer is None and any(
            s.account_id == action.account_id and not s.left and s.computer is None
            for s in seats):
        raise IllegalAction(f"{action.name} is already at this table.")
    if seat == len(seats):
        seats.append(Player(action.account_id, action.name, action.computer))
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
                                "are needed; TRIAD BOT seats one.")
        table = attrs.evolve(table, started=True)
    elif game.to_act is not None and game.to_act != pos:
        raise IllegalAction(f"It is not your turn: waiting for {table.name_at(game.to_act)}.")
    game, events = rules.apply(game, pos, action, rng)
    moves = [PotMove(e.seat, table.seats[table.places[e.seat]].account_id, e.delta, e.reason)
             for e in events if isinstance(e, rules.Chips) and e.delta]
    table = attrs.evolve(table, game=game)
    for e in events:
        if isinstance(e, rules.HandStarted):  # who plays this hand, remembered past it
            table = attrs.evolve(table, hand_seats=tuple(
                seat if p in e.seats else None for p, seat in enumerate(table.places)))
    return table, _describe(table, events) + moves


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


def close(table: Table) -> list[Cubits]:
    """The cash-outs when the table closes: every stack goes back to its account."""
    out = []
    for pos, seat in enumerate(table.places):
        stack = table.game.seats[pos].stack or 0
        if seat is None or not stack:
            continue
        who = table.seats[seat]
        where = "the house" if who.computer else "their account"
        out.append(Cubits(who.account_id, who.computer is not None, stack, CASHOUT,
                          f"The table closes: {who.name}'s {stack} cubits go back to {where}.",
                          pos))
    return out


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


# The reasons ``outcome`` gives (stored with a finished table) and what players are told.
CLOSING_WORDS = {
    "everyone has left the table":
        "every person has left it (computer players alone do not keep a table open)",
    "nobody else can pay the opening bet":
        "{winner} is the only player left who can pay the opening bet of {opening} cubits, "
        "and wins the table",
    "only computer players can pay the opening bet":
        "only computer players can still pay the opening bet of {opening} cubits",
    "nobody can pay the opening bet":
        "nobody can pay the opening bet of {opening} cubits any more",
}


def counts(result: Outcome) -> bool:
    """Whether a closed table counts in the records: not one every person left (the
    computer players still seated neither won nor drew it)."""
    return result.reason != "everyone has left the table"


def closing_text(table: Table, number: int, result: Outcome,
                 names: tuple[str, ...] = ()) -> str:  # noqa: ARG001 - the seats say
    """How table ``number`` closed, in the player's words: "Triad table #3 closes: nobody
    can pay the opening bet of 10 cubits any more." (HELP TRIAD gives the same reasons.)"""
    winner = table.seats[result.winner].name if result.winner is not None else ""
    words = CLOSING_WORDS.get(result.reason, result.reason)
    return (f"Triad table #{number} closes: "
            + words.format(winner=winner, opening=table.game.opening) + ".")


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


def presence(table: Table, seat: int, here: bool) -> Away | Back | None:
    """``Away()`` when a seated player disconnects, ``Back()`` when an away player
    returns, else None."""
    if table.position(seat) is None:
        return None
    if here:
        return Back() if seat in table.away else None
    return None if seat in table.away else Away()


def table_timeout(table: Table, action_timeout: float,
                  next_hand_s: float = NEXT_HAND_S) -> tuple | None:
    """The clock now: (seconds, seat, action, why) or None. Between hands the next
    dealer deals after ``next_hand_s`` (never longer than ``action_timeout``); in a hand
    the player to act gets ``action_timeout``, or no time when away or leaving."""
    if outcome(table) is not None:
        return None
    game = table.game
    if game.phase == "hand_over":
        if not table.started:
            return None
        pos = next_dealer(table)
        if pos is None:
            return None
        return min(next_hand_s, action_timeout), table.places[pos], rules.Action("DEAL"), ""
    pos = game.to_act
    if pos is None:
        return None
    seat = table.places[pos]
    action = rules.timeout_action(game, pos)
    name = table.seats[seat].name
    if seat in table.away:
        return 0.0, seat, action, f"{name} is away."
    if seat in table.leaving:
        return 0.0, seat, action, f"{name} is leaving the table."
    return action_timeout, seat, action, None


# -- words for what happened -------------------------------------------------------------------
def _names(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _describe(table: Table, events: list) -> list[Said]:
    """The engine's events in words; a hand dealt is a new phase, a draw's sentence
    announces the draw."""
    said = []
    for e in events:
        said.extend(Said(text, new_phase=isinstance(e, rules.HandStarted),
                         tells_action=isinstance(e, rules.Drew))
                    for text in _word(table, e, events))
        if isinstance(e, rules.Drew) and e.count:
            said.append(Said(_new_cards(table, e.seat), private=True))
    return said


def _new_cards(table: Table, pos: int) -> str:
    """What a player who discarded holds now, told to them alone."""
    cards = table.game.seats[pos].cards
    listed = "  ".join(f"{k}:{c}" for k, c in enumerate(cards, 1))
    return f"Your hand now: {listed} ({hands.evaluate(cards).name})."


def _word(table: Table, e, events: list) -> list[str]:  # noqa: ANN001
    """The words of one engine event (``events``: all of this action's)."""
    game = table.game
    out: list[str] = []
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
        out.append("The stock has run out: " + (
            "the one card of the discard pile is" if e.count == 1 else
            f"the {e.count} cards of the discard pile are") + " shuffled into a new stock.")
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
            out.append(f"{pot} of {e.amount} goes to {shares[0][0]}: {why}.")
        else:
            split = _names([f"{name} {n}" for name, n in shares])
            out.append(f"{pot} of {e.amount} is split between equal hands: {split}.")
    return out


def describe_move(table: Table | None, seat: int, text: str, name: str) -> str | None:
    """A stored action in the player's words, for REPLAY (``table`` is the table before
    it, when known): ``SIT 1 100 2 - Walker`` is "Walker sits down in seat 1 with 100
    cubits."; a DEAL is the table's ("A new hand is dealt."), whoever typed it or whether
    the server dealt it; what the table did for a player who was away or leaving says so;
    a discard says how many cards, never which. None for text that is not an action."""
    try:
        action = parse_action(text)
    except BadNotation:
        return None
    if isinstance(action, rules.Action) and action.kind != "DEAL" and table is not None:
        why = ("away" if seat in table.away else "leaving the table" if seat in table.leaving
               else None)
        if why is not None:
            words = describe_move(None, seat, text, name)
            return words and f"{words[:-1]} (automatically: {why})."
    if isinstance(action, Sit):
        who = f"{action.name} ({action.computer})" if action.computer else action.name
        return f"{who} sits down in seat {action.position + 1} with {action.stack} cubits."
    if isinstance(action, Leave):
        return f"{name} leaves the table."
    if isinstance(action, Away):
        return f"{name} is disconnected."
    if isinstance(action, Back):
        return f"{name} is back."
    if action.kind == "DEAL":
        return "A new hand is dealt."
    if action.kind == "RAISE":
        return f"{name} raises {action.amount}."
    if action.kind == "DRAW":
        n = len(action.discard)
        return (f"{name} discards {n} and draws {n}." if n else
                f"{name} keeps all six cards.")
    return {"PASS": f"{name} passes.", "EQUAL": f"{name} equals the bet.",
            "FOLD": f"{name} folds."}.get(action.kind)


def describe_event(event: Any, names: tuple[str, ...] = ()) -> str | None:  # noqa: ARG001
    """A Triad event's sentence; the table's events carry their seats' names already."""
    if isinstance(event, (Said, Cubits)):
        return event.text
    return None


# -- what a player sees ------------------------------------------------------------------------
def view_for(table: Table, seat: int | None) -> dict:
    pos = table.position(seat)
    view = render.view_for(table.game, pos)
    view["names"] = [table.name_at(p) if s is not None else None
                     for p, s in enumerate(table.places)]
    view["hand_names"] = table.hand_names()
    view["table"] = {
        "started": table.started, "buyin": table.buyin,
        "computer": [p for p in range(len(table.places)) if table.is_computer(p)],
        "away": sorted(p for p, s in enumerate(table.places) if s in table.away),
        "leaving": sorted(p for p, s in enumerate(table.places) if s in table.leaving),
        "closed": outcome(table) is not None,
    }
    return view


def _wrap(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width=max(width, 20), break_long_words=True,
                         break_on_hyphens=False) or [""]


def render_table(view: dict, width: int = 80, color: bool = True, names=None,  # noqa: ANN001
                 height: int = 24) -> str:  # noqa: ARG001 - six seats fit 24 rows
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
    elif info.get("closed"):
        notes.append("The table is closed: TRIAD OPEN opens a new one.")
    elif view["phase"] == "hand_over":
        notes.append("Between hands: TRIAD DEAL deals the next hand now (the server deals "
                     "it in a few seconds).")
    lines = [text]
    for note in notes:
        lines.extend(_wrap(note, width))
    return "\n".join(lines)


def render_changes(old: dict, new: dict, width: int = 80, color: bool = True,
                   names=None) -> str | None:  # noqa: ANN001
    """SET BOARD COMPACT: the hand's changes (``render.render_changes``) with the
    table's names; None (the whole table) when the seats changed."""
    if old.get("names") != new.get("names") or old.get("table") != new.get("table"):
        return None
    return render.render_changes(old, new, width=width, color=color,
                                 names=[n or "" for n in new.get("names", ())])


def hand_text(view: dict) -> str:
    """The viewer's own cards: ``TRIAD HAND``."""
    me = view.get("viewer")
    entry = next((e for e in view["seats"] if e["seat"] == me and not e["empty"]), None)
    if entry is None or not entry["cards"]:
        return "You hold no cards now."
    cards = "  ".join(f"{k}:{c}" for k, c in enumerate(entry["cards"], 1))
    name = f" ({entry['hand_name']})" if entry["hand_name"] else ""
    return f"Your hand: {cards}{name}. Your stack: {entry['stack']} cubits."


# -- options -----------------------------------------------------------------------------------
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
    """Checked options of a new table (the opening bet, limit and seats by
    ``rules.check_options``; the buy-in here).

    :raises IllegalAction: a bad combination, with the reason.
    """
    rules.check_options(opening, limit, seats)
    buyin = opening * BUYIN_BETS if buyin is None else buyin
    if buyin < opening:
        raise IllegalAction(f"The buy-in is at least the opening bet ({opening}).")
    return {"opening": opening, "limit": limit, "seats": seats, "buyin": buyin}


# -- the computer player -----------------------------------------------------------------------
_warm_lock = threading.Lock()
_warmed = threading.Event()


def warm() -> None:
    """Build the hand evaluator's table once per process (a second or so; in a thread)."""
    with _warm_lock:
        if not _warmed.is_set():
            ai.warm()
            _warmed.set()


def is_warm() -> bool:
    return _warmed.is_set()


def choose_action(table: Table, seat: int, level: str, rng, budget_s: float = 1.0):  # noqa: ANN001, ANN201
    """The computer player for host seat ``seat`` (runs in a worker thread)."""
    warm()
    return ai.choose_action(table.game, table.position(seat), level or "normal", rng, budget_s)
