"""Pure rules engines, one package per game.

No sockets, no SQL, no asyncio here. Every game package has the same shape, so the
parlor's game host (``server/hosting.py``) can run any of them:

``rules.py``
    Frozen attrs ``State`` and ``Action`` classes (collections are tuples) and:

    - ``new_game(options, rng) -> State``
    - ``legal_actions(state, seat)`` -- a generator of Actions for that seat
    - ``apply(state, seat, action, rng) -> tuple[State, list[Event]]`` -- raises
      ``games.errors.RuleError`` (and nothing else on purpose) with a message a
      player can read; a failed apply leaves the old state untouched
    - ``outcome(state) -> games.outcome.Outcome | None``
    - ``to_move(state) -> tuple[int, ...]`` -- the seats that may act now

    Randomness comes only from the ``rng`` (a ``random.Random``) passed in.

    Events are frozen attrs values. Two facts about an event, for the parlor's
    presentation (which decides from them when a board is redrawn; games never do),
    are class attributes, false when absent:

    - ``private = True`` -- the event changes only the acting seat's hidden things (a
      Triptycha draw, a tile turned in hand), nothing on the shared board;
    - ``new_phase = True`` -- something begins that every player must look at (play
      after the draw, a Triad hand dealt, a new pass through the Pyramid Pack);
    - ``tells_action = True`` -- its sentence announces the action itself, attributed
      ("Bob lays tile <3> in niche 6."), so the move as typed is not echoed as well;
    - ``continues = True`` -- its sentence goes on the line of the one before it (a
      Triptycha battle, on the line of the lay that started it): one action, one line.

    A fact may be a property when it depends on the event (a Dice removal the player
    chose tells the action; one the engine made does not).

``notation.py``
    The only code that turns text into an Action and back (``parse_action``,
    ``format_action``), and the JSON codec of the State (``state_to_json``,
    ``state_from_json``) that round-trips exactly.

``render.py``
    ``view_for(state, seat | None) -> dict`` strips what that seat may not see (a
    JSON-able dict, also sent as GMCP); ``render(view, width, color) -> str`` draws it.

``ai.py``
    The computer player; plays only through ``legal_actions`` and ``apply``.
"""
