"""How Pyramid is played, as the parlor hosts it (``games/spec.py``): a table of one match
per seat, played at once (a player alone, against the computer, or two people in a
tournament); each player is told of their own moves only, a deal hidden by Same Deck
stays hidden from everyone else (REPLAY included), a game put away does not count, and
Pyramid is never ranked. The first state may be a saved tournament, so the parlor's
service makes it."""

from __future__ import annotations

from games.spec import PlaySpec, measured_ratings

from . import match, spoken

SPEC = PlaySpec(
    key="pyr", title="Pyramid", prefix="PYR", gmcp_package="Pyramid.Game",
    level_ratings=measured_ratings(__file__),  # bench/level_ratings.py --write
    seats=1, min_seats=1, resign_action=match.Close(match.RESIGN), simultaneous=True,
    apply=match.apply, outcome=match.outcome, to_move=match.to_move,
    parse_action=match.parse_action, format_action=match.format_action,
    state_to_json=match.state_to_json, state_from_json=match.state_from_json,
    view_for=match.view_for, render=match.render, speak=spoken.speak,
    choose_action=match.choose_action, describe_event=match.describe_event,
    parse_options=match.parse_options, describe_options=match.describe_options,
    ranked=False, replay_view=match.view_for, audience=match.audience, counts=match.counts,
    withheld=match.withheld,
    render_changes=match.render_changes)
