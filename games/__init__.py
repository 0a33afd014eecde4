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
