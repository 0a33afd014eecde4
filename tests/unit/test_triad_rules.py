"""Triad table rules: ante and deal, betting, draw, showdown, side and split pots,
timeouts, and a property over random legal play (cubits are conserved, every pot
is paid out, the state round-trips through JSON)."""

from __future__ import annotations

import json
import random

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.errors import IllegalAction
from games.triad import rules
from games.triad.cards import DECK
from games.triad.notation import parse_action, state_from_json, state_to_json
from games.triad.rules import Action, Chips

A = parse_action


def table(stacks=(100, 100, 100), opening=2, limit=None, seed=1):
    rng = random.Random(seed)
    state = rules.new_game({"opening": opening, "limit": limit, "stacks": list(stacks)}, rng)
    state, events = rules.apply(state, 0, A("DEAL"), rng)
    return state, events, rng


def rig(state, **cards):
    """Give seats chosen cards: rig(state, s0="14B 13B ...", s1=...)."""
    seats = list(state.seats)
    for key, text in cards.items():
        i = int(key[1:])
        seats[i] = attrs.evolve(seats[i], cards=tuple(text.split()))
    return attrs.evolve(state, seats=tuple(seats))


def play(state, rng, *moves):
    """Apply "seat:ACTION" moves in order, collecting events."""
    events = []
    for move in moves:
        seat, text = move.split(":")
        state, ev = rules.apply(state, int(seat), A(text), rng)
        events += ev
    return state, events


def chips(events):
    return [(e.seat, e.delta, e.reason) for e in events if isinstance(e, Chips)]


# --------------------------------------------------------------- deal
def test_deal_antes_and_six_cards_each():
    state, events, _ = table()
    assert state.phase == "bet1" and state.dealer == 0 and state.to_act == 1
    assert chips(events) == [(1, -2, "ante"), (2, -2, "ante"), (0, -2, "ante")]
    assert [len(s.cards) for s in state.seats] == [6, 6, 6]
    assert [s.stack for s in state.seats] == [98, 98, 98] and state.pot == 6
    assert len(state.stock) == 56 - 18


def test_deal_one_card_at_a_time_from_left_of_dealer():
    state, _, _ = table(seed=7)
    deck = list(DECK)
    random.Random(7).shuffle(deck)
    order = [1, 2, 0]
    for k in range(6):
        for j, seat in enumerate(order):
            assert state.seats[seat].cards[k] == deck[-1 - (k * 3 + j)]


def test_button_moves_left_and_skips_seats_that_cannot_pay():
    state, _, rng = table(stacks=(100, 1, 100))
    assert state.dealer == 0 and state.seats[1].status == rules.OUT  # 1 < opening 2
    state, _ = play(state, rng, "2:PASS", "0:PASS")
    for seat in (2, 0):
        state, _ = rules.apply(state, seat, A("DRAW"), rng)
    state, _ = play(state, rng, "2:PASS", "0:PASS")
    assert state.phase == "hand_over"
    state, _ = rules.apply(state, 0, A("DEAL"), rng)
    assert state.dealer == 2 and state.to_act == 0


# --------------------------------------------------------------- betting
def test_no_raise_yet_pass_or_raise_only():
    state, _, rng = table()
    assert {a.kind for a in rules.legal_actions(state, 1)} == {"PASS", "RAISE"}
    with pytest.raises(IllegalAction, match="Nobody has raised"):
        rules.apply(state, 1, A("FOLD"), rng)
    with pytest.raises(IllegalAction, match="not your turn"):
        rules.apply(state, 2, A("PASS"), rng)


def test_after_a_raise_fold_equal_or_raise():
    state, _, rng = table()
    state, events = play(state, rng, "1:RAISE 5")
    assert chips(events) == [(1, -5, "bet")]
    assert {a.kind for a in rules.legal_actions(state, 2)} == {"FOLD", "EQUAL", "RAISE"}
    with pytest.raises(IllegalAction, match="can't pass"):
        rules.apply(state, 2, A("PASS"), rng)
    state, events = play(state, rng, "2:EQUAL")
    assert chips(events) == [(2, -5, "bet")]


@pytest.mark.parametrize("moves,bad,message", [
    ((), "1:RAISE 1", "at least the minimum bet, 2"),
    (("1:RAISE 5",), "2:RAISE 4", "at least the largest raise this round, 5"),
    (("1:RAISE 5", "2:RAISE 6"), "0:RAISE 5", "largest raise this round, 6"),
    ((), "1:RAISE 11", "at most the upper limit, 10"),
    ((), "1:RAISE 99", "upper limit"),
])
def test_raise_limits(moves, bad, message):
    state, _, rng = table(limit=10)
    state, _ = play(state, rng, *moves)
    seat, text = bad.split(":")
    with pytest.raises(IllegalAction, match=message):
        rules.apply(state, int(seat), A(text), rng)


def test_raise_beyond_stack_without_limit():
    state, _, rng = table(stacks=(100, 20, 100))
    with pytest.raises(IllegalAction, match="at most 18"):
        rules.apply(state, 1, A("RAISE 19"), rng)
    state, events = play(state, rng, "1:RAISE 18")
    assert state.seats[1].status == rules.ALL_IN and state.seats[1].stack == 0


def test_round_ends_when_all_have_acted_since_last_raise():
    state, _, rng = table()
    state, _ = play(state, rng, "1:PASS", "2:RAISE 4", "0:EQUAL")
    assert state.phase == "bet1" and state.to_act == 1  # seat 1 has not answered
    state, events = play(state, rng, "1:RAISE 4", "2:EQUAL", "0:EQUAL")
    assert state.phase == "draw" and state.to_act == 1
    assert rules.PhaseChanged("draw") in events
    assert [s.committed for s in state.seats] == [10, 10, 10]


def test_equal_with_no_raise_is_a_pass():
    state, _, rng = table()
    state, events = play(state, rng, "1:EQUAL")
    assert events[0] == rules.Acted(1, "PASS") and not chips(events)


def test_short_stack_equals_all_in():
    state, _, rng = table(stacks=(100, 100, 7))
    state, events = play(state, rng, "1:RAISE 10", "2:EQUAL")
    assert chips(events) == [(1, -10, "bet"), (2, -5, "bet")]
    assert state.seats[2].status == rules.ALL_IN


def test_fold_puts_the_hand_on_the_discard_pile():
    state, _, rng = table()
    hand = state.seats[2].cards
    state, _ = play(state, rng, "1:RAISE 2", "2:FOLD")
    assert state.seats[2].cards == () and state.discards[-6:] == hand


def test_phase_table_missing_entry():
    state, _, rng = table()
    state, _ = play(state, rng, "1:PASS", "2:PASS", "0:PASS")
    with pytest.raises(IllegalAction, match="^You can't raise during the draw.$"):
        rules.apply(state, 1, A("RAISE 5"), rng)
    with pytest.raises(IllegalAction, match="You can't discard or stand during the first betting round"):
        rules.apply(table()[0], 1, A("DRAW 1"), rng)
    assert rules.TRANSITIONS[("bet1", "RAISE")] == "draw"


# --------------------------------------------------------------- draw
def test_draw_order_left_of_dealer_first_dealer_last():
    state, _, rng = table()
    state, _ = play(state, rng, "1:PASS", "2:PASS", "0:PASS")
    seen = []
    while state.phase == "draw":
        seen.append(state.to_act)
        state, _ = rules.apply(state, state.to_act, A("DRAW 1 2"), rng)
    assert seen == [1, 2, 0] and state.phase == "bet2" and state.to_act == 1


def test_draw_by_positions_and_codes():
    state, _, rng = table()
    state, _ = play(state, rng, "1:PASS", "2:PASS", "0:PASS")
    state = rig(state, s1="14B 13B C 2R 3R 4G")
    stock = state.stock
    state, events = rules.apply(state, 1, A("DRAW 2R 3R C 6"), rng)
    assert events[0] == rules.Drew(1, 4)
    assert state.seats[1].cards[:2] == ("14B", "13B")
    assert state.seats[1].cards[2:] == tuple(reversed(stock[-4:]))
    assert state.discards[-4:] == ("C", "2R", "3R", "4G")


@pytest.mark.parametrize("text,message", [
    ("DRAW 1 2 3 4 5", "at most 4"),
    ("DRAW 9B", "don't hold 9B"),
    ("DRAW 1 14B", "named twice"),
])
def test_bad_draws(text, message):
    state, _, rng = table()
    state, _ = play(state, rng, "1:PASS", "2:PASS", "0:PASS")
    state = rig(state, s1="14B 13B C 2R 3R 4G")
    with pytest.raises(IllegalAction, match=message):
        action = Action("DRAW", discard=tuple(text.split()[1:]))  # the parser would refuse 5
        rules.apply(state, 1, action, rng)


def test_reshuffle_when_stock_runs_out():
    state, _, rng = table()
    state, _ = play(state, rng, "1:PASS", "2:PASS", "0:PASS")
    state = attrs.evolve(state, stock=state.stock[:2], discards=state.stock[2:])
    pile = len(state.discards)
    state, events = rules.apply(state, 1, A("DRAW 1 2 3"), rng)
    assert rules.Reshuffled(pile + 3) in events
    assert len(state.seats[1].cards) == 6 and len(state.stock) == pile + 3 - 1
    cards = [c for s in state.seats for c in s.cards] + list(state.stock) + list(state.discards)
    assert sorted(cards) == sorted(DECK)


# --------------------------------------------------------------- showdown
def to_showdown(state, rng, **cards):
    """Everyone passes or equals, keeps their cards; then the seats get ``cards``."""
    while state.phase == "bet1":
        state, _ = rules.apply(state, state.to_act, A("PASS") if state.current_bet == state.seats[state.to_act].bet else A("EQUAL"), rng)
    while state.phase == "draw":
        state, _ = rules.apply(state, state.to_act, A("DRAW"), rng)
    state = rig(state, **cards)
    events = []
    while state.phase == "bet2":
        seat = state.to_act
        action = A("PASS") if state.current_bet == state.seats[seat].bet else A("EQUAL")
        state, ev = rules.apply(state, seat, action, rng)
        events += ev
    return state, events


def test_showdown_best_hand_wins_and_hands_are_named():
    state, _, rng = table()
    state, events = to_showdown(state, rng, s0="14B 14P 9B 8G 5R 3R", s1="13B 13P 11B 9G 7R 2R",
                                s2="2G 4B 6P 8P 10R 12R")
    shown = [(e.seat, e.name) for e in events if isinstance(e, rules.Shown)]
    assert shown == [(1, "Duo, Princes"), (2, "High Card, Princess"), (0, "Duo, Pyramids")]
    assert chips(events) == [(0, 6, "pot")]
    assert state.winnings == ((0, 6),) and [s.stack for s in state.seats] == [104, 98, 98]


def test_split_pot_odd_cubit_to_nearest_left_of_dealer():
    # With Colors and Capstones counted, two hands from one deck never tie exactly,
    # so the tie is rigged: seats 0 and 2 hold the same cards.  Pot 9; the dealer is
    # seat 0, so seat 2 is nearer the dealer's left than seat 0 and gets the odd cubit.
    state, _, rng = table(stacks=(100, 100, 100), opening=3)
    state, events = to_showdown(state, rng, s0="14B 14P 9B 8G 5R 3R", s1="2G 4B 6P 8P 10R 12R",
                                s2="14B 14P 9B 8G 5R 3R")
    award = [e for e in events if isinstance(e, rules.PotAwarded)]
    assert award == [rules.PotAwarded(0, 9, ((2, 5), (0, 4)), "split")]


def test_side_pots_each_to_the_best_hand_among_those_in_it():
    # Seat 1 is all in for 10 in all; seats 2 and 0 bet on to 40 each.
    state, _, rng = table(stacks=(100, 10, 100), opening=2)
    state, _ = play(state, rng, "1:RAISE 8", "2:RAISE 30", "0:EQUAL")
    assert state.seats[1].status == rules.ALL_IN
    assert rules.side_pots(state) == [(30, (0, 1, 2)), (60, (0, 2))]
    state, events = to_showdown(state, rng, s1="14B 14P 14G 8G 5R 3R", s0="13B 13P 11B 9G 7R 2R",
                                s2="2G 4B 6P 8P 10R 12R")
    award = [e for e in events if isinstance(e, rules.PotAwarded)]
    assert award == [rules.PotAwarded(0, 30, ((1, 30),), "best hand"),
                     rules.PotAwarded(1, 60, ((0, 60),), "best hand")]
    assert [s.stack for s in state.seats] == [120, 30, 60]


def test_all_but_one_fold_wins_unshown():
    state, _, rng = table()
    state, events = play(state, rng, "1:RAISE 2", "2:FOLD", "0:FOLD")
    assert not [e for e in events if isinstance(e, rules.Shown)]
    assert chips(events)[-1] == (1, 8, "pot") and state.phase == "hand_over"
    assert state.shown == ()


# --------------------------------------------------------------- timeouts, seats, outcome
def test_timeout_passes_if_it_can_folds_otherwise_keeps_cards_in_draw():
    state, _, rng = table()
    assert rules.timeout_action(state, 1) == Action("PASS")
    state, _ = play(state, rng, "1:RAISE 2")
    assert rules.timeout_action(state, 2) == Action("FOLD")
    state, _ = play(state, rng, "2:FOLD", "0:EQUAL")
    hand = state.seats[1].cards
    state, _ = rules.apply(state, 1, rules.timeout_action(state, 1), rng)
    assert state.seats[1].cards == hand


def test_sit_and_stand_between_hands():
    state = rules.new_game({"stacks": [50, None, 50]}, random.Random(1))
    state, events = rules.sit(state, 1, 30)
    assert events == [Chips(1, 30, "sit")]
    with pytest.raises(IllegalAction):
        rules.sit(state, 1, 30)
    state, events = rules.stand(state, 0)
    assert events == [Chips(0, -50, "stand")] and state.seats[0].stack is None


def test_outcome_when_one_player_can_pay():
    state = rules.new_game({"stacks": [50, 1], "opening": 2}, random.Random(1))
    assert rules.outcome(state).winner == 0 and rules.to_move(state) == ()
    with pytest.raises(IllegalAction):
        rules.apply(state, 0, A("DEAL"), random.Random(1))


# --------------------------------------------------------------- properties
def _random_play(seed, stacks, opening, limit, steps):
    rng = random.Random(seed)
    state = rules.new_game({"opening": opening, "limit": limit, "stacks": stacks}, rng)
    total = state.total_cubits()
    hands_done = 0
    for _ in range(steps):
        movers = rules.to_move(state)
        if not movers:
            break
        seat = movers[0]
        actions = list(rules.legal_actions(state, seat))
        assert actions
        raises = [a for a in actions if a.kind == "RAISE"]
        roll = rng.random()
        if raises and roll < 0.25:
            action = rng.choice([raises[0], raises[-1]])  # min raise or all in / limit
        else:
            action = rng.choice(actions)
        before = state
        state, events = rules.apply(state, seat, action, rng)
        assert before.total_cubits() == total  # the old state is untouched
        assert state.total_cubits() == total
        moved = sum(e.delta for e in events if isinstance(e, Chips))
        assert moved == sum(s.stack or 0 for s in state.seats) - sum(s.stack or 0 for s in before.seats)
        if state.phase == "hand_over":
            hands_done += 1
            assert state.pot == 0 and all(s.committed == 0 for s in state.seats)
            paid = sum(e.amount for e in events if isinstance(e, rules.PotAwarded))
            assert paid == before.pot + sum(-e.delta for e in events if isinstance(e, Chips) and e.delta < 0)
        assert state_from_json(json.loads(json.dumps(state_to_json(state)))) == state
    return hands_done


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    stacks=st.lists(st.integers(0, 60), min_size=2, max_size=6),
    opening=st.integers(1, 5),
    limit=st.one_of(st.none(), st.integers(5, 20)),
)
def test_property_cubits_conserved_and_pots_paid(seed, stacks, opening, limit):
    _random_play(seed, stacks, opening, limit, steps=300)


def test_long_random_tables_finish_hands():
    assert _random_play(5, [400] * 6, 2, 10, 3000) > 10
