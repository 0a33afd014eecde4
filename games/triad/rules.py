"""Triad (the card game): the table as ``docs/rules/triad.md`` states it.

Everything that moves the table from one phase to the next lives in this file.

Table
    2..6 seats.  ``opening`` is the opening bet (the ante, also the minimum bet and
    the minimum raise); ``limit`` the largest single raise (None = no limit).
    ``Seat.stack`` holds the cubits a player brought to the table and has not put
    in; ``Seat.committed`` what they put in this hand.  The pot is the sum of the
    committed amounts, so ``sum(stacks) + pot`` never changes during a hand; every
    movement is a ``Chips`` event (ante, bet, pot) for the cubit ledger.

A hand (``Action("DEAL")`` from ``hand_over``)
    The button moves to the next seat left (seat + 1) that can pay the opening bet;
    each such seat antes and is dealt six cards, one at a time, starting left of the
    dealer.  A seat that cannot pay the opening bet sits the hand out.

Betting (``bet1`` and ``bet2``), starting left of the dealer
    No raise yet: PASS or RAISE n.  After a raise: FOLD, EQUAL or RAISE n.  A raise
    is at least the opening bet, at least the largest raise before it in the round,
    at most the limit, and the player must be able to pay it.  A player who cannot
    cover a raise may EQUAL with everything (all in).  The round ends when every
    player still in and not all in has acted since the last raise and has equaled it.

Draw (``draw``), left of the dealer first, dealer last
    Each player still in (all-in players too) discards 0..4 cards and is dealt as
    many.  Discards go to the discard pile first; when the stock runs out the
    discard pile (discards and folded hands) is shuffled into a new stock.

Showdown
    If all but one player fold, that player takes every pot unshown.  Otherwise the
    pots (main and side pots, layered by what each player committed) each go to the
    best hand among the players in them; a tie splits it, the odd cubit going to
    the tied player nearest the dealer's left.

Timeouts and disconnects
    ``timeout_action(state, seat)``: pass if possible, else fold; in the draw, keep
    all cards.  The server applies it when ``action_timeout`` passes or the player
    is disconnected at their turn.

The phase table ``TRANSITIONS`` maps (phase, action kind) to the phase that follows
when that action closes the phase; a missing entry is an illegal action
("You can't raise during the draw.").
"""

from __future__ import annotations

from itertools import combinations
from typing import Iterator

import attrs

from games.errors import IllegalAction
from games.outcome import Outcome

from . import hands
from .cards import CAPSTONE, DECK, normalize

DEFAULT_ACTION_TIMEOUT_S = 60  # the server's config ``action_timeout`` default
MAX_DISCARD = 4
HAND_SIZE = 6
MIN_SEATS, MAX_SEATS = 2, 6

PHASE_NAMES = {
    "hand_over": "between hands",
    "bet1": "the first betting round",
    "draw": "the draw",
    "bet2": "the second betting round",
}
BETTING_KINDS = ("PASS", "EQUAL", "RAISE", "FOLD")
# What a player did, in a refusal's words (DRAW is what TRIAD DISCARD and STAND type).
ACTION_WORDS = {"DEAL": "deal", "PASS": "pass", "EQUAL": "equal", "RAISE": "raise",
                "FOLD": "fold", "DRAW": "discard or stand"}
TRANSITIONS: dict[tuple[str, str], str] = {
    ("hand_over", "DEAL"): "bet1",
    **{("bet1", kind): "draw" for kind in BETTING_KINDS},
    ("draw", "DRAW"): "bet2",
    **{("bet2", kind): "hand_over" for kind in BETTING_KINDS},
}

# Seat status during a hand.
OUT, IN, FOLDED, ALL_IN = "out", "in", "folded", "allin"


# --------------------------------------------------------------------- values
@attrs.frozen
class Seat:
    """One seat: ``stack`` None means nobody sits here."""

    stack: int | None
    cards: tuple[str, ...] = attrs.field(default=(), converter=tuple)
    status: str = OUT
    bet: int = 0  # put in during this betting round
    committed: int = 0  # put in during this hand (ante included)
    acted: bool = False  # acted since the last raise of this round
    drew: int | None = None  # cards drawn this hand (None: not yet)

    @property
    def live(self) -> bool:
        """Still contesting the pot (in, or all in)."""
        return self.status in (IN, ALL_IN)


@attrs.frozen
class Action:
    """PASS, EQUAL, RAISE ``amount``, FOLD, DRAW ``discard`` or DEAL.

    ``discard`` holds card codes ("14B", "C") or 1-based positions ("1".."6").
    """

    kind: str
    amount: int = 0
    discard: tuple[str, ...] = attrs.field(default=(), converter=tuple)

    def __repr__(self) -> str:
        from .notation import format_action

        return f"parse_action({format_action(self)!r})"


@attrs.frozen
class State:
    opening: int
    limit: int | None
    seats: tuple[Seat, ...] = attrs.field(converter=tuple)
    dealer: int  # the dealer of the current (or last) hand
    hand_no: int = 0
    phase: str = "hand_over"
    to_act: int | None = None
    current_bet: int = 0  # the round bet to equal
    last_raise: int = 0  # the largest raise so far this round
    stock: tuple[str, ...] = attrs.field(default=(), converter=tuple)
    discards: tuple[str, ...] = attrs.field(default=(), converter=tuple)
    shown: tuple[tuple[int, tuple[str, ...]], ...] = ()  # last showdown: (seat, cards)
    winnings: tuple[tuple[int, int], ...] = ()  # last hand: (seat, cubits won)
    # the last action, for a board to show: (seat, kind, amount, all in); () before any.
    # kind is DEAL (seat: the dealer), PASS, EQUAL, RAISE, FOLD or DRAW (amount: cards)
    last: tuple = attrs.field(default=(), converter=tuple, eq=False)  # not the position

    @property
    def pot(self) -> int:
        return sum(s.committed for s in self.seats)

    def total_cubits(self) -> int:
        """Stacks plus pot: constant during a hand."""
        return sum(s.stack or 0 for s in self.seats) + self.pot


# --------------------------------------------------------------------- events
@attrs.frozen
class Chips:
    """A cubit movement: ``delta`` is the change of the seat's stack.

    reason: "ante" and "bet" (negative: stack to pot), "pot" (positive: pot to
    stack), "sit" / "stand" (cubits brought to or taken from the table).
    """

    seat: int
    delta: int
    reason: str


@attrs.frozen
class HandStarted:
    hand_no: int
    dealer: int
    seats: tuple[int, ...]  # dealt in, in dealing order


@attrs.frozen
class Acted:
    """A betting action: kind PASS / EQUAL / RAISE / FOLD; ``all_in`` when it emptied the stack."""

    seat: int
    kind: str
    amount: int = 0
    all_in: bool = False


@attrs.frozen
class Drew:
    seat: int
    count: int


@attrs.frozen
class Reshuffled:
    count: int  # cards shuffled from the discard pile into the new stock


@attrs.frozen
class PhaseChanged:
    phase: str


@attrs.frozen
class Shown:
    seat: int
    cards: tuple[str, ...]
    name: str


@attrs.frozen
class PotAwarded:
    """Pot ``index`` (0 = main pot) of ``amount`` to ``shares`` ((seat, cubits), ...)."""

    index: int
    amount: int
    shares: tuple[tuple[int, int], ...]
    reason: str  # "best hand", "split", "all others folded"


# ------------------------------------------------------------------- new game
def new_game(options: dict | None, rng=None) -> State:
    """A table waiting for its first DEAL.

    options: ``opening`` (default 1), ``limit`` (None = no limit), ``stacks``
    (cubits per seat; None or 0 for an empty seat, default two seats of 100),
    ``dealer`` (who dealt "last", default the last seat, so seat 0 deals first).
    """
    options = dict(options or {})
    opening = int(options.get("opening", 1))
    limit = options.get("limit")
    stacks = list(options.get("stacks", (100, 100)))
    check_options(opening, None if limit is None else int(limit), len(stacks))
    seats = tuple(Seat(None if not s else int(s)) for s in stacks)
    dealer = int(options.get("dealer", len(seats) - 1)) % len(seats)
    return State(opening, None if limit is None else int(limit), seats, dealer)


def check_options(opening: int, limit: int | None, seats: int) -> None:
    """The one check of a table's opening bet, upper limit and number of seats.

    :raises IllegalAction: the first thing wrong, with the reason.
    """
    if opening < 1:
        raise IllegalAction("The opening bet is at least 1 cubit.")
    if limit is not None and limit < opening:
        raise IllegalAction(f"The upper limit can't be below the opening bet ({opening}).")
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise IllegalAction(f"A table has {MIN_SEATS} to {MAX_SEATS} seats.")


# ------------------------------------------------------------- seat helpers
def _left_of(state: State, seat: int, ok) -> int | None:
    """The first seat after ``seat`` (clockwise = increasing, wrapping) with ok(seat)."""
    n = len(state.seats)
    for step in range(1, n + 1):
        s = (seat + step) % n
        if ok(state.seats[s]):
            return s
    return None


def _order_from_left_of_dealer(state: State) -> list[int]:
    n = len(state.seats)
    return [(state.dealer + step) % n for step in range(1, n + 1)]


def can_play(state: State, seat: int) -> bool:
    """A seat can be dealt in when it can pay the opening bet."""
    s = state.seats[seat]
    return s.stack is not None and s.stack >= state.opening


def _replace_seat(state: State, i: int, **changes) -> State:
    seats = list(state.seats)
    seats[i] = attrs.evolve(seats[i], **changes)
    return attrs.evolve(state, seats=tuple(seats))


# ------------------------------------------------------------ legal actions
def to_move(state: State) -> tuple[int, ...]:
    if state.phase == "hand_over":
        if outcome(state) is not None:
            return ()
        return tuple(i for i in range(len(state.seats)) if can_play(state, i))
    return () if state.to_act is None else (state.to_act,)


def legal_actions(state: State, seat: int) -> Iterator[Action]:
    """Every action ``seat`` may take now (a RAISE of each allowed amount; DRAW of
    every set of up to four positions)."""
    if seat not in to_move(state):
        return
    if state.phase == "hand_over":
        yield Action("DEAL")
        return
    s = state.seats[seat]
    if state.phase == "draw":
        for k in range(MAX_DISCARD + 1):
            for pos in combinations(range(1, HAND_SIZE + 1), k):
                yield Action("DRAW", discard=tuple(str(p) for p in pos))
        return
    to_call = state.current_bet - s.bet
    if to_call == 0:
        yield Action("PASS")
    else:
        yield Action("FOLD")
        yield Action("EQUAL")
    lo, hi = raise_bounds(state, seat)
    for amount in range(lo, hi + 1):
        yield Action("RAISE", amount)


def raise_bounds(state: State, seat: int) -> tuple[int, int]:
    """(smallest, largest) raise ``seat`` may make now; smallest > largest if none."""
    s = state.seats[seat]
    lo = max(state.opening, state.last_raise)
    hi = s.stack - (state.current_bet - s.bet)
    if state.limit is not None:
        hi = min(hi, state.limit)
    # Raising is pointless with nobody left to answer it.
    others = [o for i, o in enumerate(state.seats) if i != seat and o.status == IN]
    if not others:
        hi = lo - 1
    return lo, hi


def timeout_action(state: State, seat: int) -> Action:
    """What a player whose time ran out (or who is disconnected) does: pass if they
    can, else fold; in the draw, keep every card."""
    if state.phase == "draw":
        return Action("DRAW")
    if state.phase == "hand_over":
        return Action("DEAL")
    s = state.seats[seat]
    return Action("PASS") if state.current_bet == s.bet else Action("FOLD")


# ------------------------------------------------------------------- apply
def apply(state: State, seat: int, action: Action, rng) -> tuple[State, list]:
    """Apply ``seat``'s action; returns (new state, events).

    :raises IllegalAction: not this seat's turn, not allowed in this phase, or a
        bad amount / discard, with a message for the player.
    """
    kind = action.kind.upper()
    if (state.phase, kind) not in TRANSITIONS:
        if kind in ("DEAL",) + BETTING_KINDS + ("DRAW",):
            raise IllegalAction(f"You can't {ACTION_WORDS[kind]} during "
                                f"{PHASE_NAMES[state.phase]}.")
        raise IllegalAction(f"Unknown action {kind}.")
    if not 0 <= seat < len(state.seats):
        raise IllegalAction(f"There is no seat {seat}.")
    if kind == "DEAL":
        if outcome(state) is not None:
            raise IllegalAction("Fewer than two players can pay the opening bet.")
        if not can_play(state, seat):
            raise IllegalAction("You can't pay the opening bet.")
        new, events = _deal(state, rng)
    else:
        if state.to_act != seat:
            who = "nobody" if state.to_act is None else f"seat {state.to_act}"
            raise IllegalAction(f"It is not your turn (waiting for {who}).")
        if kind == "DRAW":
            new, events = _draw(state, seat, action, rng)
        else:
            new, events = _bet(state, seat, kind, action.amount, rng)
    return attrs.evolve(new, last=_last(events)), events


def _last(events: list) -> tuple:
    """The action just applied, as ``State.last`` keeps it (from its first event)."""
    for e in events:
        if isinstance(e, HandStarted):
            return (e.dealer, "DEAL", 0, False)
        if isinstance(e, Acted):
            return (e.seat, e.kind, e.amount, e.all_in)
        if isinstance(e, Drew):
            return (e.seat, "DRAW", e.count, False)
    return ()


def _deal(state: State, rng) -> tuple[State, list]:
    dealer = _left_of(state, state.dealer, lambda s: s.stack is not None and s.stack >= state.opening)
    state = attrs.evolve(state, dealer=dealer, hand_no=state.hand_no + 1, shown=(), winnings=())
    events: list = []
    order = [i for i in _order_from_left_of_dealer(state) if can_play(state, i)]
    deck = list(DECK)
    rng.shuffle(deck)
    cards: dict[int, list[str]] = {i: [] for i in order}
    for _ in range(HAND_SIZE):
        for i in order:
            cards[i].append(deck.pop())
    events += [Chips(i, -state.opening, "ante") for i in order]
    seats = []
    for i, s in enumerate(state.seats):
        if i in cards:
            left = s.stack - state.opening
            seats.append(Seat(left, tuple(cards[i]), ALL_IN if left == 0 else IN, 0, state.opening))
        else:
            seats.append(Seat(s.stack))
    state = attrs.evolve(state, seats=tuple(seats), stock=tuple(deck), discards=())
    events.insert(0, HandStarted(state.hand_no, dealer, tuple(order)))
    return _start_round(state, "bet1", events, rng)


def _start_round(state: State, phase: str, events: list, rng) -> tuple[State, list]:
    """Open a betting round or the draw; skip a betting round nobody can bet in."""
    seats = tuple(attrs.evolve(s, bet=0, acted=False) for s in state.seats)
    state = attrs.evolve(state, seats=seats, phase=phase, current_bet=0, last_raise=0)
    events.append(PhaseChanged(phase))
    if phase == "draw":
        first = _left_of(state, state.dealer, lambda s: s.live)
        return attrs.evolve(state, to_act=first), events
    if sum(1 for s in state.seats if s.status == IN) < 2:
        # Everyone else is all in: no betting, straight on.
        return _close_round(attrs.evolve(state, to_act=None), events, rng)
    first = _left_of(state, state.dealer, lambda s: s.status == IN)
    return attrs.evolve(state, to_act=first), events


def _bet(state: State, seat: int, kind: str, amount: int, rng) -> tuple[State, list]:
    s = state.seats[seat]
    to_call = state.current_bet - s.bet
    events: list = []
    if kind == "EQUAL" and to_call == 0:
        kind = "PASS"  # the original rules: equal means pass when nobody has raised
    if kind == "PASS":
        if to_call:
            raise IllegalAction(f"You can't pass: equal {to_call}, raise or fold.")
        state = _replace_seat(state, seat, acted=True)
        events.append(Acted(seat, "PASS"))
    elif kind == "FOLD":
        if not to_call:
            raise IllegalAction("Nobody has raised: pass or raise.")
        state = _replace_seat(state, seat, status=FOLDED, acted=True)
        state = attrs.evolve(state, discards=state.discards + s.cards)
        state = _replace_seat(state, seat, cards=())
        events.append(Acted(seat, "FOLD"))
    elif kind == "EQUAL":
        pay = min(to_call, s.stack)
        state = _pay(state, seat, pay, events)
        all_in = state.seats[seat].stack == 0
        state = _replace_seat(state, seat, acted=True, status=ALL_IN if all_in else IN)
        events.insert(0, Acted(seat, "EQUAL", pay, all_in))
    else:  # RAISE
        lo, hi = raise_bounds(state, seat)
        if amount < lo or amount > hi:
            raise IllegalAction(_raise_message(state, seat, amount, lo, hi))
        pay = to_call + amount
        state = _pay(state, seat, pay, events)
        all_in = state.seats[seat].stack == 0
        seats = tuple(
            attrs.evolve(o, acted=(i == seat), status=ALL_IN if (i == seat and all_in) else o.status)
            for i, o in enumerate(state.seats)
        )
        state = attrs.evolve(state, seats=seats, current_bet=state.current_bet + amount,
                             last_raise=max(state.last_raise, amount))
        events.insert(0, Acted(seat, "RAISE", amount, all_in))
    live = [i for i, o in enumerate(state.seats) if o.live]
    if len(live) == 1:
        return _win_by_folds(state, live[0], events)
    waiting = lambda o: o.status == IN and (not o.acted or o.bet < state.current_bet)  # noqa: E731
    nxt = _left_of(state, seat, waiting)
    if nxt is not None:
        return attrs.evolve(state, to_act=nxt), events
    return _close_round(attrs.evolve(state, to_act=None), events, rng)


def _raise_message(state: State, seat: int, amount: int, lo: int, hi: int) -> str:
    s = state.seats[seat]
    if lo > hi:
        if not any(o.status == IN for i, o in enumerate(state.seats) if i != seat):
            return "Nobody can answer a raise: equal or pass."
        return f"You can't raise: you have {s.stack} cubits. EQUAL (all in) or FOLD."
    if amount < state.opening:
        return f"A raise is at least the minimum bet, {state.opening}."
    if amount < lo:
        return f"A raise must be at least the largest raise this round, {lo}."
    if state.limit is not None and amount > state.limit:
        return f"A raise is at most the upper limit, {state.limit}."
    return f"You can raise at most {hi}: you have {s.stack} cubits."


def _pay(state: State, seat: int, pay: int, events: list) -> State:
    s = state.seats[seat]
    if pay:
        events.append(Chips(seat, -pay, "bet"))
    return _replace_seat(state, seat, stack=s.stack - pay, bet=s.bet + pay, committed=s.committed + pay)


def _close_round(state: State, events: list, rng) -> tuple[State, list]:
    if state.phase == "bet1":
        return _start_round(state, "draw", events, rng)
    return _showdown(state, events)


def _draw(state: State, seat: int, action: Action, rng) -> tuple[State, list]:
    s = state.seats[seat]
    positions = _discard_positions(s.cards, action.discard)
    kept = [c for i, c in enumerate(s.cards) if i not in positions]
    thrown = [s.cards[i] for i in sorted(positions)]
    stock, pile = list(state.stock), list(state.discards) + thrown
    events: list = []
    new = []
    for _ in thrown:
        if not stock:
            rng.shuffle(pile)
            stock, pile = pile, []
            events.append(Reshuffled(len(stock)))
        new.append(stock.pop())
    state = attrs.evolve(state, stock=tuple(stock), discards=tuple(pile))
    state = _replace_seat(state, seat, cards=tuple(kept + new), drew=len(thrown))
    events.insert(0, Drew(seat, len(thrown)))
    nxt = _left_of(state, seat, lambda o: o.live and o.drew is None)
    if nxt is not None:
        return attrs.evolve(state, to_act=nxt), events
    return _start_round(attrs.evolve(state, to_act=None), "bet2", events, rng)


def _discard_positions(cards: tuple[str, ...], discard: tuple[str, ...]) -> set[int]:
    """Resolve codes / 1-based positions to a set of 0-based indices."""
    if len(discard) > MAX_DISCARD:
        raise IllegalAction(f"You may discard at most {MAX_DISCARD} cards.")
    chosen: set[int] = set()
    for item in discard:
        text = str(item).strip().upper()
        if text.isdecimal():
            i = int(text) - 1
            if not 0 <= i < len(cards):
                raise IllegalAction(f"There is no card {text}: positions run 1 to {len(cards)}.")
        else:
            try:
                code = normalize(text)
            except ValueError as err:
                raise IllegalAction(str(err)) from None
            free = [j for j, c in enumerate(cards) if c == code and j not in chosen]
            if not free and code in cards and code != CAPSTONE:
                raise IllegalAction(f"{code} is named twice.")
            if not free:
                held = "another Capstone" if code == CAPSTONE else code
                raise IllegalAction(f"You don't hold {held}.")
            i = free[0]
        if i in chosen:
            raise IllegalAction(f"Card {i + 1} is named twice.")
        chosen.add(i)
    return chosen


# ------------------------------------------------------------------ the end
def side_pots(state: State) -> list[tuple[int, tuple[int, ...]]]:
    """(amount, seats that may win it) for the main pot and each side pot."""
    contrib = [s.committed for s in state.seats]
    live = [i for i, s in enumerate(state.seats) if s.live]
    levels = sorted({contrib[i] for i in live if contrib[i] > 0})
    pots: list[tuple[int, tuple[int, ...]]] = []
    prev = 0
    for level in levels:
        amount = sum(min(c, level) - min(c, prev) for c in contrib)
        pots.append((amount, tuple(i for i in live if contrib[i] >= level)))
        prev = level
    rest = sum(max(0, c - prev) for c in contrib)  # folded money above every live stake
    if rest:
        if pots:
            pots[-1] = (pots[-1][0] + rest, pots[-1][1])
        else:
            pots.append((rest, tuple(live)))
    return pots


def _win_by_folds(state: State, winner: int, events: list) -> tuple[State, list]:
    amount = state.pot
    events.append(PotAwarded(0, amount, ((winner, amount),), "all others folded"))
    events.append(Chips(winner, amount, "pot"))
    return _end_hand(state, {winner: amount}, (), events)


def _showdown(state: State, events: list) -> tuple[State, list]:
    live = [i for i, s in enumerate(state.seats) if s.live]
    values = {i: hands.evaluate(state.seats[i].cards) for i in live}
    order = _order_from_left_of_dealer(state)
    shown = []
    for i in order:
        if i in values:
            shown.append((i, state.seats[i].cards))
            events.append(Shown(i, state.seats[i].cards, values[i].name))
    won: dict[int, int] = {}
    for index, (amount, eligible) in enumerate(side_pots(state)):
        best = max(values[i] for i in eligible)
        tied = [i for i in order if i in eligible and values[i] == best]
        share, odd = divmod(amount, len(tied))
        shares = tuple((i, share + (1 if k < odd else 0)) for k, i in enumerate(tied))
        reason = "best hand" if len(eligible) > 1 else "uncontested"
        events.append(PotAwarded(index, amount, shares, "split" if len(tied) > 1 else reason))
        for i, got in shares:
            if got:
                events.append(Chips(i, got, "pot"))
            won[i] = won.get(i, 0) + got
    return _end_hand(state, won, tuple(shown), events)


def _end_hand(state: State, won: dict[int, int], shown, events: list) -> tuple[State, list]:
    seats = []
    pile = list(state.discards)
    for i, s in enumerate(state.seats):
        pile += s.cards
        stack = None if s.stack is None else s.stack + won.get(i, 0)
        seats.append(Seat(stack, s.cards if s.live and shown else (), s.status, 0, 0, False, s.drew))
    state = attrs.evolve(
        state, seats=tuple(seats), phase="hand_over", to_act=None, current_bet=0,
        last_raise=0, shown=shown, winnings=tuple(sorted(won.items())),
    )
    events.append(PhaseChanged("hand_over"))
    return state, events


def outcome(state: State) -> Outcome | None:
    """The table is over when, between hands, fewer than two seats can pay the
    opening bet; the winner is the one that can (if any)."""
    if state.phase != "hand_over":
        return None
    able = [i for i in range(len(state.seats)) if can_play(state, i)]
    if len(able) >= 2:
        return None
    scores = tuple(s.stack or 0 for s in state.seats)
    return Outcome(able[0] if able else None, "only one player can pay the opening bet", scores)


# ----------------------------------------------------- seating (between hands)
def sit(state: State, seat: int, stack: int) -> tuple[State, list]:
    """A player takes an empty seat with ``stack`` cubits (between hands)."""
    if state.phase != "hand_over":
        raise IllegalAction("Wait for the hand to end to sit down.")
    if not 0 <= seat < len(state.seats) or state.seats[seat].stack is not None:
        raise IllegalAction("That seat is taken." if 0 <= seat < len(state.seats) else "No such seat.")
    if stack < state.opening:
        raise IllegalAction(f"Bring at least the opening bet, {state.opening} cubits.")
    return _replace_seat(state, seat, stack=stack), [Chips(seat, stack, "sit")]


def stand(state: State, seat: int) -> tuple[State, list]:
    """A player leaves with their stack; during a hand only once out of it."""
    s = state.seats[seat]
    if s.stack is None:
        raise IllegalAction("Nobody sits there.")
    if state.phase != "hand_over" and s.live:
        raise IllegalAction("Fold or finish the hand before you leave.")
    events = [Chips(seat, -s.stack, "stand")] if s.stack else []
    return _replace_seat(state, seat, stack=None, cards=(), status=OUT), events
