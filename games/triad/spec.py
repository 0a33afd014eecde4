"""How Triad is played, as the parlor hosts it (``games/spec.py``): a table whose players
come and go (its seats are in the state; an absent player is marked away and played for),
never ranked; the first state seats the player who opens it with their cubits, so the
parlor's service makes it, and the action clock is a setting of the parlor's."""

from __future__ import annotations

from games.spec import PlaySpec, measured_ratings

from . import rules, spoken, table

SPEC = PlaySpec(
    key="triad", title="Triad", prefix="TRIAD", gmcp_package="Triad.Game",
    level_ratings=measured_ratings(__file__),  # bench/level_ratings.py --write
    seats=rules.MAX_SEATS, min_seats=1, resign_action=table.Leave(), open_table=True,
    apply=table.apply, outcome=table.outcome, to_move=table.to_move,
    parse_action=table.parse_action, format_action=table.format_action,
    state_to_json=table.state_to_json, state_from_json=table.state_from_json,
    view_for=table.view_for, render=table.render_table, speak=spoken.speak,
    choose_action=table.choose_action, describe_event=table.describe_event,
    parse_options=table.parse_options, describe_options=table.describe_options, ranked=False,
    describe_move=table.describe_move, describe_outcome=table.closing_text,
    presence=table.presence, counts=table.counts, render_changes=table.render_changes)
