"""What a game must provide to be hosted: the ``GameKind`` adapter.

A ``GameKind`` wraps one pure engine from ``games/`` (its rules, notation and
renderer) for the game host in ``server/services/games.py``. Each game's
``make_kind()`` (``server/services/<game>.py``) names every engine hook it uses, e.g.
``new_state=rules.new_game, apply=rules.apply, render=render.render``; ``check()``
says which required ones are missing. What a game's commands are (its subcommands,
help, prefix handler) is ``commands/``'s business (``commands/<game>.py``), keyed by
the kind's ``key``.

Games that move tiles or cubits when they start or finish override ``on_start`` /
``on_finish``, which run inside the same transaction that stores the game.
"""

from __future__ import annotations

import random
from typing import Any, Awaitable, Callable

import attrs
from sqlalchemy.ext.asyncio import AsyncSession

from games.errors import BadNotation, RuleError
from games.outcome import Outcome


@attrs.frozen
class Seat:
    """Who sits in a seat: an account, and the computer's level when it is the computer."""

    account_id: int
    name: str
    computer: str | None = None  # "easy" | "normal" | "hard" for the computer
    # At a table whose players come and go (``GameKind.seats_of``): this player has left.
    # The seat stays, so the move list keeps its names; nothing is told to it any more.
    left: bool = False

    def to_json(self) -> dict[str, Any]:
        data = {"id": self.account_id, "name": self.name, "computer": self.computer}
        if self.left:
            data["left"] = True
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Seat":
        return cls(data["id"], data["name"], data.get("computer"), bool(data.get("left")))


@attrs.frozen
class StartContext:
    """What ``on_start`` gets: the new game's number, seats, options and transaction."""

    tx: AsyncSession
    game_id: int
    seats: tuple[Seat, ...]
    options: dict[str, Any]
    rng: random.Random


@attrs.frozen
class ActionContext:
    """What ``on_action`` gets, inside the transaction that stores the action."""

    tx: AsyncSession
    game_id: int
    seats: tuple[Seat, ...]
    options: dict[str, Any]
    seat: int
    action: Any
    old_state: Any
    new_state: Any
    events: list


@attrs.frozen
class FinishContext:
    tx: AsyncSession
    game_id: int
    seats: tuple[Seat, ...]
    options: dict[str, Any]
    state: Any
    outcome: Outcome


def _parse_no_options(words: list[str]) -> dict[str, Any]:
    if words:
        raise BadNotation(f"This game takes no options (got {' '.join(words)!r}).")
    return {}


@attrs.define
class GameKind:
    """One hostable game: its engine's hooks and the database hooks around them."""

    key: str                      # short id stored with every game ("dice")
    title: str                    # "Triad Dice"
    prefix: str                   # the command prefix ("DICE")
    gmcp_package: str = ""        # "Dice.Game"
    seats: int = 2
    min_seats: int | None = None
    # options: words after CHALLENGE <person> -> JSON-able dict; and back to text
    parse_options: Callable[[list[str]], dict[str, Any]] = _parse_no_options
    describe_options: Callable[[dict[str, Any]], str] = lambda options: ""
    is_ranked: Callable[[dict[str, Any]], bool] = lambda options: bool(options.get("ranked"))
    # engine hooks (``check()`` requires all but ``choose_action``)
    new_state: Callable[[dict[str, Any], random.Random], Any] | None = None
    apply: Callable[..., tuple[Any, list]] | None = None
    outcome: Callable[[Any], Outcome | None] | None = None
    to_move: Callable[[Any], tuple[int, ...]] | None = None
    parse_action: Callable[[str], Any] | None = None
    format_action: Callable[[Any], str] | None = None
    state_to_json: Callable[[Any], dict] | None = None
    state_from_json: Callable[[dict], Any] | None = None
    view_for: Callable[[Any, int | None], dict] | None = None
    render: Callable[..., str] | None = None
    # ``speak(view, names) -> lines``: the view read out for a screen reader (SET
    # SCREENREADER ON), one fact a line and no drawing (``games/<game>/spoken.py``)
    speak: Callable[..., list[str]] | None = None
    choose_action: Callable[..., Any] | None = None   # the computer player, if any
    describe_event: Callable[[Any], str | None] = lambda event: None
    # ``describe_move(state, seat, notation, name) -> str | None``: a stored move in a
    # player's words, for REPLAY ("Bob raises 20.", "A new hand is dealt."), ``state`` the
    # state before it; None: "<name>: <notation>"
    describe_move: Callable[[Any, int, str, str], str | None] | None = None
    # ``describe_outcome(state, number, outcome) -> str``: how the game ended, when the
    # host's "X wins (...)" / "ends in a draw (...)" does not fit (a card table closing)
    describe_outcome: Callable[[Any, int, Outcome], str] | None = None
    # hooks that touch the database, inside the game's transaction
    on_start: Callable[[StartContext], Awaitable[Any]] | None = None  # -> initial state
    on_action: Callable[[ActionContext], Awaitable[None]] | None = None
    on_finish: Callable[[FinishContext], Awaitable[list[str]]] | None = None
    check_offer: Callable[..., Awaitable[str | None]] | None = None  # -> refusal or None
    resign_action: str = "RESIGN"
    # ``timeout(state) -> (seconds, seat, action text[, note]) | None``: when the state has
    # not changed for that long, the host applies that action for that seat (a trade
    # timeout, a betting clock). Checked after every action and at restore. ``note`` is
    # the line told before it (default "Time is up for <name>."; "" for none).
    timeout: Callable[[Any], tuple | None] | None = None
    # ``seats_of(state) -> tuple[Seat, ...]``: for a game whose players come and go (a
    # card table), its seats as the state has them now. Seats are only ever added at the
    # end (a player who leaves stays, with ``left=True``), so seat numbers in the move
    # list keep their names. The host stores the seats with every action that changes
    # them; ``GameHost.act_for`` applies the action that seats a newcomer.
    seats_of: Callable[[Any], tuple[Seat, ...]] | None = None
    # ``presence(state, seat, here) -> action text | None``: the action the host applies
    # for a seat whose player disconnects (``here`` False, once they have been gone for
    # ``GameHost.presence_delay`` seconds; after a restart, once not back within the
    # reconnect grace) or comes back (True); None for nothing. A kind with this hook
    # deals with absences itself, so the host offers no CLAIM for them.
    presence: Callable[[Any, int, bool], str | None] | None = None
    # ``on_new_account(tx, account)``: runs in the transaction creating an account
    on_new_account: Callable[..., Awaitable[None]] | None = None
    seeders: dict = attrs.field(factory=dict)  # data-file tables it loads (server/seeding.py)
    # ``bind(parlor)``: called once when a parlor hosts the kind, before any hook runs, for
    # hooks that need the parlor's database or config (check_offer, timeout)
    bind: Callable[[Any], None] | None = None
    # Seats that act at once, each on its own part of the state (a Pyramid tournament:
    # every player plays their own six games). The host keeps one computer move in flight
    # per computer seat, and a move a computer chose still applies after other seats have
    # moved (``apply`` checks it again).
    simultaneous: bool = False
    # ``pace(game, seat) -> seconds``: how long the computer in ``seat`` of the live game
    # waits before each move (default: the host's ``computer_delay``), e.g. a player's speed.
    pace: Callable[[Any, int], float] | None = None
    # ``audience(state, seat, events) -> seats | None``: the seats whose players are told of
    # an action by ``seat`` that led to ``state`` (None: every player). Watchers are always
    # told, and so is everyone when the game ends.
    audience: Callable[[Any, int, list], Any] | None = None
    # ``counts(outcome) -> bool``: whether a finished game counts in the players' records
    # (False for a game put away to be taken up again later).
    counts: Callable[[Outcome], bool] = lambda outcome: True

    def check(self) -> None:
        missing = [h for h in ("new_state", "apply", "outcome", "to_move", "parse_action",
                               "format_action", "state_to_json", "state_from_json",
                               "view_for", "render") if getattr(self, h) is None]
        if missing:
            raise TypeError(f"game kind {self.key}: missing hooks {', '.join(missing)}")


__all__ = ["ActionContext", "FinishContext", "GameKind", "RuleError", "Seat", "StartContext"]
