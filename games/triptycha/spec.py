"""How Triptycha is played, as the parlor hosts it (``games/spec.py``): two seats; the
first state is made from the players' own tiles, so the parlor's service makes it, and
the trading clock is a setting of the parlor's, so it keeps that too."""

from __future__ import annotations

from games.spec import PlaySpec, measured_ratings

from . import ai, notation, render, rules, spoken, words

SPEC = PlaySpec(
    key="tt", title="Triptycha", prefix="TT", gmcp_package="Triptycha.Game",
    levels=ai.LEVELS,
    level_ratings=measured_ratings(__file__),  # bench/level_ratings.py --write
    resign_action=rules.Resign(), correspondence=True,
    apply=rules.apply, outcome=rules.outcome, to_move=rules.to_move,
    parse_action=notation.parse_action, format_action=notation.format_action,
    state_to_json=notation.state_to_json, state_from_json=notation.state_from_json,
    view_for=render.view_for, render=render.render, speak=spoken.speak,
    choose_action=ai.choose_action, describe_event=words.describe_event,
    parse_options=words.parse_options, describe_options=words.describe_options,
    render_changes=render.render_changes)
