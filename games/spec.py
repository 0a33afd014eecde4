"""How a game is played, as data: its ``PlaySpec``, the one description of a game.

Every game package gives one (``games/<game>/spec.py``, ``SPEC``): what the game is (its
key, title, command prefix, GMCP package, how many seats), how it is played (the seats act
at once, or at a table whose players come and go) and the functions of its engine, notation,
views and words. The parlor calls them from the spec itself (``kind.spec.apply(...)``);
what needs the parlor (its database, its settings, its worker processes) is the game's
service, ``server/hosting.py``'s ``GameKind``. Nothing here imports anything outside
``games/``.

A function a game need not give has a default here that does what the parlor does for a
game with nothing special there; a game gives its own in its ``SPEC``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import attrs

from games.errors import BadOption
from games.outcome import Outcome


# -- what a game with nothing special does -------------------------------------------------
def no_options(words: list[str]) -> dict[str, Any]:
    """The game takes no options: any word after CHALLENGE <person> is refused."""
    if words:
        raise BadOption(f"This game takes no options (got {' '.join(words)!r}).")
    return {}


def no_words(*_: Any) -> None:
    """Nothing to say: ``describe_move`` (REPLAY shows "<name>: <notation>"),
    ``timeout`` (no clock), ``presence`` (nothing happens when a player leaves or comes
    back), ``audience`` (everyone is told), ``withheld`` (anyone may watch) and
    ``render_changes`` (the whole board is drawn)."""
    return None


def no_option_words(options: dict[str, Any]) -> str:  # noqa: ARG001 - the contract's
    return ""


def always_counts(outcome: Outcome) -> bool:  # noqa: ARG001 - the contract's
    return True


#: The file beside a game's spec where bench/level_ratings.py --write records how strong
#: the computer's levels are (``measured_ratings``).
LEVELS_FILE = "levels.json"


def measured_ratings(spec_file: str) -> tuple[tuple[str, int], ...]:
    """The computer's levels' ratings, weakest first, as bench/level_ratings.py measured
    them and wrote them beside the game's spec (``spec_file``: the spec's ``__file__``):
    ``levels.json``, with the command that measured them, each level's Glicko-2 rating
    and RD, and each pairing's score. No file: no ratings (RANKINGS says nothing)."""
    path = Path(spec_file).with_name(LEVELS_FILE)
    if not path.exists():
        return ()
    ratings = json.loads(path.read_text(encoding="utf-8"))["ratings"]
    return tuple((level, round(r["rating"])) for level, r in ratings.items())


def _plain_outcome(spec: "PlaySpec") -> Callable[..., str]:
    """The default ``describe_outcome``: "Game #7: Alba wins (three dice removed).", "Game
    #7 ends in a draw (...)", or "Game #7 is over (...)" for a solitaire not won or a game
    put away rather than played out (``counts`` False), which is no draw."""
    def describe_outcome(state: Any, number: int, outcome: Outcome,  # noqa: ARG001
                         names: tuple[str, ...]) -> str:
        if outcome.winner is None and (len(names) == 1 or not spec.counts(outcome)):
            return f"Game #{number} is over ({outcome.reason})."
        if outcome.winner is None:
            return f"Game #{number} ends in a draw ({outcome.reason})."
        return f"Game #{number}: {names[outcome.winner]} wins ({outcome.reason})."
    return describe_outcome


def _view_now(spec: "PlaySpec") -> Callable[..., dict]:
    """The default ``replay_view``: the past state as ``view_for`` shows it."""
    def replay_view(state: Any, seat: int | None, now: Any) -> dict:  # noqa: ARG001
        return spec.view_for(state, seat)
    return replay_view


@attrs.frozen(kw_only=True)
class PlaySpec:
    """One game, as the parlor hosts it.

    **What the game is**: ``key`` (stored with every game: "dice"), ``title`` ("Triad
    Dice"), ``prefix`` (of its commands: "DICE"), ``gmcp_package`` ("Dice.Game"),
    ``seats`` and ``min_seats`` (how many play), ``resign_action`` (the action RESIGN and
    CLAIM apply).

    **How it is played**:

    - ``simultaneous``: the seats act at once, each on its own part of the state (a
      Pyramid tournament). The host keeps one computer move in flight per computer seat,
      and a move a computer chose still applies after other seats have moved (``apply``
      checks it again).
    - ``open_table``: a table whose players come and go (Triad). Its seats come from the
      state (the service's ``seats_of``); an absence is dealt with by ``presence``, so the
      host offers no CLAIM; resigning is leaving one's seat; there are no rematches.
    - ``correspondence``: the game may be played over days, a move at a time
      (``CHALLENGE <person> DAYS <n>``); the host keeps its clock.
    - ``levels``: the computer's levels, weakest first (CHALLENGE COMPUTER <level>);
      ``level_ratings``: how strong they are.

    **The engine** (every game gives them): ``apply(state, seat, action, rng) -> (state,
    events)`` (raises ``RuleError``, and nothing changes), ``outcome(state)`` (an
    ``Outcome`` or None), ``to_move(state)`` (the seats that may act), ``parse_action(text)``
    (raises ``BadNotation``), ``format_action(action)``, ``state_to_json`` and
    ``state_from_json``, ``view_for(state, seat | None)`` (what that seat, or a watcher, may
    see now), ``render(view, width, color, names, height)``, ``speak(view, names)`` (the
    view read out for a screen reader, one fact a line, no drawing), ``choose_action(state,
    seat, level, rng, budget_s)`` (the computer player) and ``describe_event(event,
    names)`` (the event's sentence, given the seats' names in seat order, or None when it
    says nothing).

    **What may vary**, each with its default (what the parlor assumes otherwise):

    - ``new_game(options, rng)``: the first state when the options alone make it (None:
      the game's service makes it in ``on_start``, from decks of tiles or stacks of cubits);
    - ``parse_options(words)`` (no options taken; raises ``BadOption``),
      ``describe_options(options)`` (""), ``ranked`` (None: the option ``ranked`` says;
      False: never; see ``is_ranked``);
    - ``describe_move(state, seat, notation, name)``: a stored move in a player's words,
      for REPLAY ("Bob raises 20."), ``state`` the state before it (None: "<name>:
      <notation>");
    - ``describe_outcome(state, number, outcome, names)``: how game ``number`` ended
      ("Game #7: Alba wins (three dice removed).");
    - ``replay_view(state, seat, now)``: ``state``, a past point of a game that stands at
      ``now`` (in play, or finished), as REPLAY shows it: no more than may be seen
      ``now``, and perhaps more of a finished game than was seen while it was played
      (``view_for(state, seat)``);
    - ``timeout(state)``: ``(seconds, seat, action[, note])``: when the state has not
      changed for that long, the host applies that action for that seat (a trade timeout,
      a betting clock); ``note`` is the line told before it (default "Time is up for
      <name>."; "" for none). None: no clock;
    - ``presence(state, seat, here)``: the action the host applies for a seat whose
      player disconnects (``here`` False, once gone a while; after a restart, once not
      back within the reconnect grace) or comes back (True); None for nothing;
    - ``audience(state, seat, events)``: who is told of the action by ``seat`` whose
      ``events`` led to ``state``; None: everyone (as everyone always is when the game
      ends). Otherwise a value with ``seats`` (told in full; None: every player),
      ``watchers`` (whether they are too) and ``public`` (the events everyone else is told
      of, without the action itself). ``state`` may be a later state of the game (REPLAY
      asks who may be told of a past action now);
    - ``counts(outcome)``: whether a finished game counts in the players' records (not one
      put away to be taken up again later) (True);
    - ``withheld(state)``: why nobody but the game's players may see it at all now (a
      sentence): OBSERVE, REPLAY, EXAMINE and every web door ask first and refuse (None);
    - ``legal_actions(state, seat)``: what that seat may do now, an iterable (None: not
      listed); see ``legal_moves``;
    - ``render_changes(old_view, new_view, width, color, names)``: SET BOARD COMPACT, what
      changed from the view last drawn for this viewer, in a few lines ("" for nothing to
      draw; None: draw the whole board).
    """

    key: str
    title: str
    prefix: str
    gmcp_package: str
    seats: int = 2
    min_seats: int = 2
    resign_action: Any = None
    simultaneous: bool = False
    open_table: bool = False
    correspondence: bool = False
    # The levels ``choose_action`` plays, weakest first; a game need not have them all.
    levels: tuple[str, ...] = ("easy", "normal", "hard")
    # The computer's levels' Glicko-2 ratings among themselves, weakest first, as
    # bench/level_ratings.py measured them (what beating a level means; RANKINGS shows
    # them): ``measured_ratings(__file__)`` reads what the bench wrote beside the spec.
    level_ratings: tuple[tuple[str, int], ...] = ()

    apply: Callable[..., tuple[Any, list]]
    outcome: Callable[[Any], Any]
    to_move: Callable[[Any], tuple[int, ...]]
    parse_action: Callable[[str], Any]
    format_action: Callable[[Any], str]
    state_to_json: Callable[[Any], dict]
    state_from_json: Callable[[dict], Any]
    view_for: Callable[..., dict]
    render: Callable[..., str]
    speak: Callable[..., list[str]]
    choose_action: Callable[..., Any]
    describe_event: Callable[..., str | None]

    new_game: Callable[..., Any] | None = None
    parse_options: Callable[[list[str]], dict[str, Any]] = no_options
    describe_options: Callable[[dict[str, Any]], str] = no_option_words
    ranked: bool | None = None
    describe_move: Callable[..., str | None] = no_words
    timeout: Callable[[Any], tuple | None] = no_words
    presence: Callable[[Any, int, bool], Any] = no_words
    audience: Callable[[Any, int, list], Any] = no_words
    counts: Callable[[Any], bool] = always_counts
    withheld: Callable[[Any], str | None] = no_words
    legal_actions: Callable[[Any, int], Any] | None = None
    render_changes: Callable[..., str | None] = no_words
    # (after the fields they use)
    describe_outcome: Callable[..., str] = attrs.field(
        default=attrs.Factory(_plain_outcome, takes_self=True))
    replay_view: Callable[..., dict] = attrs.field(
        default=attrs.Factory(_view_now, takes_self=True))

    def is_ranked(self, options: dict[str, Any]) -> bool:
        """Whether a game with these options is rated: the option ``ranked``, unless the
        game is never ranked (``ranked`` False)."""
        return self.ranked is not False and bool(options.get("ranked"))

    def legal_moves(self, state: Any, seat: int) -> list[str] | None:
        """The moves ``seat`` may make now, each in the game's notation (what follows its
        prefix: ``PLAY 5``), or None when the game does not list them. Each player's frame
        carries them: GMCP's ``legal``, the buttons of /play's generic pane."""
        if self.legal_actions is None:
            return None
        return [self.format_action(a) for a in self.legal_actions(state, seat)]
