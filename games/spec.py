"""How a game is played, as data: its ``PlaySpec``.

Every game package gives one (``games/<game>/spec.py``, ``SPEC``): what the game is (its
key, title, command prefix, GMCP package, how many seats), how it is played (the seats act
at once, or at a table whose players come and go) and the functions of its engine, notation,
views and words. The parlor hosts a spec as it is (``server/hosting.py``'s ``HostedGame``
reads every field); what needs the parlor itself (its database, its worker processes) the
game's service adds there. Nothing here imports anything outside ``games/``.

A function left None is one the game does not need, and the parlor does what it does for
a game with nothing special there (the defaults are ``GameKind``'s).
"""

from __future__ import annotations

from typing import Any, Callable

import attrs


@attrs.frozen(kw_only=True)
class PlaySpec:
    """One game, as the parlor hosts it.

    **What the game is**: ``key`` (stored with every game: "dice"), ``title`` ("Triad
    Dice"), ``prefix`` (of its commands: "DICE"), ``gmcp_package`` ("Dice.Game"),
    ``seats`` and ``min_seats`` (how many play), ``resign_action`` (the action RESIGN and
    CLAIM apply).

    **How it is played**: ``simultaneous`` (the seats act at once, each on its own part
    of the state: a Pyramid tournament), ``open_table`` (players come and go: Triad);
    ``levels``: the computer's levels, weakest first (CHALLENGE COMPUTER <level>);
    ``level_ratings``: how strong they are.

    **The engine** (every game): ``apply(state, seat, action, rng) -> (state, events)``,
    ``outcome(state)``, ``to_move(state)``,
    ``parse_action(text)``, ``format_action(action)``, ``state_to_json`` and
    ``state_from_json``, ``view_for(state, seat | None)``, ``render(view, width, color,
    names, height)``, ``speak(view, names)``, ``choose_action(state, seat, level, rng,
    budget_s)`` and ``describe_event(event, names)`` (the event's sentence, given the
    seats' names in seat order, or None when it says nothing).

    **What may vary** (None: as every game): ``new_game(options, rng)``, the first state
    when the options alone make it (None: the parlor's service makes it, from decks of
    tiles or stacks of cubits), ``parse_options(words)`` and
    ``describe_options(options)``, ``ranked`` (None: the option ``ranked`` says;
    False: never), ``describe_move(state, seat, notation, name)``,
    ``describe_outcome(state, number, outcome)``, ``replay_view(state, seat, now)``,
    ``timeout(state)``, ``presence(state, seat, here)``, ``audience(state, seat, events)``,
    ``counts(outcome)``, ``withheld(state)`` (why nobody but its players may see the game
    at all now: OBSERVE, REPLAY, EXAMINE and the web door refuse it), ``legal_actions(state,
    seat)`` (what that seat may do now: listed to its player, GameKind's ``legal_moves``)
    and ``render_changes(old_view, new_view, width, color, names)``: their meaning is
    ``GameKind``'s.
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
    # The levels ``choose_action`` plays, weakest first; a game need not have them all.
    levels: tuple[str, ...] = ("easy", "normal", "hard")
    # The computer's levels' Glicko-2 ratings among themselves, weakest first, as
    # bench/level_ratings.py measured them (what beating a level means; RANKINGS shows them).
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
    describe_event: Callable[[Any], str | None]

    new_game: Callable[..., Any] | None = None
    parse_options: Callable[[list[str]], dict[str, Any]] | None = None
    describe_options: Callable[[dict[str, Any]], str] | None = None
    ranked: bool | None = None
    describe_move: Callable[..., str | None] | None = None
    describe_outcome: Callable[..., str] | None = None
    replay_view: Callable[..., dict] | None = None
    timeout: Callable[[Any], tuple | None] | None = None
    presence: Callable[[Any, int, bool], Any] | None = None
    audience: Callable[[Any, int, list], Any] | None = None
    counts: Callable[[Any], bool] | None = None
    withheld: Callable[[Any], str | None] | None = None
    # The actions ``seat`` may take now (``legal_actions(state, seat)``, an iterable):
    # given, every player is sent them (formatted) with each change, and a browser's
    # generic pane shows them as buttons.
    legal_actions: Callable[[Any, int], Any] | None = None
    render_changes: Callable[..., str | None] | None = None
