"""How Triad Dice is played, as the parlor hosts it (``games/spec.py``): two seats, no
hidden information, one clockless turn at a time; its rule errors read as sentences."""

from __future__ import annotations

from games.spec import PlaySpec, measured_ratings

from . import ai, notation, render, rules, spoken, words

SPEC = PlaySpec(
    key="dice", title="Triad Dice", prefix="DICE", gmcp_package="Dice.Game",
    levels=ai.LEVELS,
    level_ratings=measured_ratings(__file__),  # bench/level_ratings.py --write
    resign_action=rules.Resign(), correspondence=True,
    new_game=rules.new_game, apply=words.sentences(rules.apply), outcome=rules.outcome,
    to_move=rules.to_move, parse_action=words.sentences(notation.parse_action),
    format_action=notation.format_action, state_to_json=notation.state_to_json,
    state_from_json=notation.state_from_json, view_for=render.view_for, render=render.board,
    speak=spoken.speak, choose_action=ai.choose_action, describe_event=words.describe_event,
    parse_options=words.parse_options, describe_options=words.describe_options,
    render_changes=render.render_changes)
