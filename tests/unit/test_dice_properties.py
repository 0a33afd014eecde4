"""Triad Dice properties over random games: legal_actions and apply agree, dice never
share a cell, and saving/restoring a game changes nothing."""

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.errors import IllegalAction
from games.dice import rules
from games.dice.notation import format_action, parse_action, state_from_json, state_to_json
from games.dice.rules import DIRECTION_NAMES, Move, Remove, apply, legal_actions, new_game

SETTINGS = settings(max_examples=15, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.large_base_example])

def actions_near(state):
    """Actions of every form, mostly on the mover's own dice (so some are legal)."""
    cell = st.sampled_from(state.dice_of(state.turn) or (0,)) | st.integers(0, 35)
    value, direction = st.sampled_from((1, 2, 3)), st.sampled_from(DIRECTION_NAMES)
    return st.one_of(
        st.builds(Move, cell, value, direction),
        st.builds(Move, cell, value, st.none()),
        st.builds(Move, cell, st.none(), direction),
        st.builds(Remove, cell),
    )


def check_invariants(state):
    for seat in (0, 1):
        dice = state.dice_of(seat)
        assert len(dice) == rules.DICE_PER_PLAYER - state.removed[seat]
        assert len(set(dice)) == len(dice)
    occupied = [c for c in range(36) if state.cells[c]]
    assert len(occupied) == 12 - sum(state.removed)
    assert len(state.history) == state.quiet_turns + 1
    assert state.history[-1] == rules.position_key(state.cells, state.turn) or state.pending \
        or state.result is not None


def random_game(data, plies):
    rng = random.Random(data.draw(st.integers(0, 2**32), label="seed"))
    state = new_game({}, rng)
    for _ in range(plies):
        if state.result is not None:
            break
        acts = list(legal_actions(state, state.turn))
        yield state, acts
        action = acts[data.draw(st.integers(0, len(acts) - 1), label="choice")]
        state, _ = apply(state, state.turn, action, rng)
    yield state, list(legal_actions(state, state.turn))


@SETTINGS
@given(st.data())
def test_every_generated_action_applies_and_nothing_else_does(data):
    rng = random.Random(0)
    for state, acts in random_game(data, 80):
        check_invariants(state)
        assert len(set(acts)) == len(acts)
        for action in acts:
            after, _ = apply(state, state.turn, action, rng)
            check_invariants(after)
        legal = set(acts)
        probes = actions_near(state)
        for _ in range(8):
            action = data.draw(probes, label="probe")
            for seat in (0, 1):
                try:
                    apply(state, seat, action, rng)
                except IllegalAction:
                    assert seat != state.turn or action not in legal
                else:
                    assert seat == state.turn and action in legal


@SETTINGS
@given(st.data())
def test_save_and_restore_changes_nothing(data):
    rng = random.Random(0)
    for state, acts in random_game(data, 60):
        restored = state_from_json(json.loads(json.dumps(state_to_json(state))))
        assert restored == state
        assert list(legal_actions(restored, restored.turn)) == acts
        assert rules.outcome(restored) == rules.outcome(state)
        if acts:
            action = parse_action(format_action(acts[len(acts) // 2]))
            assert apply(restored, restored.turn, action, rng) == apply(state, state.turn, action, rng)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32))
def test_random_games_end_and_dice_never_collide(seed):
    rng = random.Random(seed)
    state = new_game({}, rng)
    while state.result is None:
        acts = list(legal_actions(state, state.turn))
        assert acts, "a running game always offers an action"
        state, _ = apply(state, state.turn, rng.choice(acts), rng)
        check_invariants(state)
    assert state.turns <= 2000
    assert list(legal_actions(state, 0)) == list(legal_actions(state, 1)) == []
