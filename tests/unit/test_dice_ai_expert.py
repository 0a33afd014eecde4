"""Triad Dice's EXPERT (issue 39, item 22): HARD's search on more nodes, a level of the
game's own, rated with the others (tests/unit/test_levels_file.py)."""

import random

from games.dice import ai, rules
from games.dice.spec import SPEC


def _opening(seed: int, plies: int) -> rules.State:
    rng = random.Random(seed)
    state = rules.new_game({}, rng)
    for _ in range(plies):
        state, _ = rules.apply(state, state.turn, rng.choice(list(
            rules.legal_actions(state, state.turn))), rng)
    return state


def test_expert_is_the_strongest_level_of_the_game():
    assert ai.LEVELS == ("easy", "normal", "hard", "expert")
    assert SPEC.levels == ai.LEVELS


def test_expert_plays_hards_search_on_more_nodes():
    state = _opening(3, 4)
    seat = state.turn
    expert = ai.choose_action(state, seat, "expert", random.Random(7), 0.1)
    search = ai.search(state, seat, random.Random(7), 0.1 * ai.EXPERT_FACTOR)
    assert expert == search.action
    hard = ai.search(state, seat, random.Random(7), 0.1)
    assert search.nodes > hard.nodes and search.depth > hard.depth
