"""Pyramid engine: table tests from docs/rules/pyramid.md and hypothesis properties."""

import json
import random

import attrs
import pytest
from hypothesis import given, settings, strategies as st

from games.errors import IllegalAction, RuleError
from games.pyramid import notation, rules
from games.pyramid.cards import PYRAMID_SIZE, card_text, index_of, parse_card
from games.pyramid.rules import DEAL, END, Action, Game, par_score

C = parse_card


def make(pyramid=None, pack=(), waste=(), **kw) -> Game:
    pyr = [None] * PYRAMID_SIZE
    for spot, card in (pyramid or {}).items():
        r, c = (int(x) for x in spot.split(","))
        pyr[index_of(r, c)] = C(card)
    return Game(pyramid=tuple(pyr), pack=tuple(C(c) for c in pack),
                waste=tuple(C(c) for c in waste), **kw)


def state_of(game: Game) -> rules.State:
    return rules.State(mode="standard", seeds=(0,), games=(game,))


# ---------------------------------------------------------------- deal

def test_deal_uses_52_cards_and_row_7_is_available():
    s = rules.new_game({}, random.Random(5))
    g = s.game
    assert sorted(g.pyramid + g.pack) == list(range(52))
    assert len(g.pack) == 24 and g.deal == 1 and g.redeals_left == 2
    assert [sp for sp in g.available() if sp not in "PW"] == [f"7,{c}" for c in range(1, 8)]


def test_same_seed_same_deal_and_tournament_twin():
    a = rules.new_game({"mode": "tournament"}, random.Random(1))
    b = rules.new_game({"mode": "tournament", "seeds": list(a.seeds)}, random.Random(99))
    assert a == b and a.n_games == 6


# ---------------------------------------------------------------- moves

MOVE_TABLE = [
    # (description, game kwargs, action text, error or None)
    ("two row-7 cards", {"pyramid": {"7,1": "9H", "7,2": "4S"}}, "7,1 7,2", None),
    ("pack with waste", {"pack": ["QH"], "waste": ["AS"]}, "P W", None),
    ("king alone", {"pyramid": {"7,4": "KD"}}, "74", None),
    ("not 13", {"pyramid": {"7,1": "9H", "7,2": "5S"}}, "7,1 7,2", "9 + 5 is 14, not 13"),
    ("covered", {"pyramid": {"6,1": "9H", "7,1": "2S", "7,2": "4S"}}, "6,1 7,2",
     "6,1 is covered by 7,1 and 7,2; a card cannot pair with a card that covers it"),
    ("covered one left", {"pyramid": {"6,2": "9H", "7,3": "4S"}}, "6,2 P", "6,2 is covered by 7,3"),
    ("removed", {"pyramid": {"7,1": "9H"}}, "7,2 7,1", "7,2 has already been removed"),
    ("lonely non-king", {"pyramid": {"7,1": "9H"}}, "7,1", "only a King is removed alone"),
    ("king in a pair", {"pyramid": {"7,1": "KH", "7,2": "KS"}}, "7,1 7,2", "a King is removed alone"),
    ("empty waste", {"pack": ["QH"]}, "P W", "the Waste Pile is empty"),
    ("same card twice", {"pyramid": {"7,1": "KH"}}, "7,1 7,1", "pick two different cards"),
]


@pytest.mark.parametrize("desc,kw,text,error", MOVE_TABLE, ids=[t[0] for t in MOVE_TABLE])
def test_move_table(desc, kw, text, error):
    kw = dict(kw)
    kw.setdefault("pack", ["2C", "3C"])
    game = make(**kw)
    action = notation.parse_action(text)
    if error is None:
        new, events = rules.play(game, action)
        assert new.cards_left == game.cards_left - len(action.spots)
        assert events
    else:
        with pytest.raises(IllegalAction) as err:
            rules.play(game, action)
        assert error in str(err.value)


def test_d_then_redeals_then_refused():
    g = make(pyramid={"1,1": "5S"}, pack=["2C", "3C"])
    for _ in range(2):
        g, _ = rules.play(g, DEAL)
    assert g.pack == () and len(g.waste) == 2
    g, ev = rules.play(g, DEAL)  # first redeal: the Waste turned over
    assert g.deal == 2 and g.pack == (C("2C"), C("3C")) and g.waste == ()
    assert "deal 2" in str(ev[0])
    for _ in range(3):
        g, _ = rules.play(g, DEAL)
    assert g.deal == 3
    g, _ = rules.play(g, DEAL)
    g, _ = rules.play(g, DEAL)
    assert g.over and g.how == "stuck"  # no redeal left, empty pack, no pair


def test_no_redeal_left_message():
    g = make(pyramid={"7,1": "9H", "7,2": "4S"}, waste=["2C"], deal=3)
    with pytest.raises(IllegalAction, match="no redeal is left"):
        rules.play(g, DEAL)


# ---------------------------------------------------------------- Par scoring

SCORE_TABLE = [
    # won in deal 1: 50
    ("won in deal 1", make(cleared_in=1), 50),
    # pyramid cleared in deal 1/2/3 with cards left in the Waste: 50/35/20 minus waste
    ("cleared deal 1, 3 left", make(waste=["2C", "3C", "4C"], cleared_in=1, deal=3), 47),
    ("cleared deal 2, 5 left", make(waste=["2C", "3C", "4C", "5C", "6C"], cleared_in=2, deal=3), 30),
    ("cleared deal 3, 1 left", make(waste=["2C"], cleared_in=3, deal=3), 19),
    ("won in deal 3", make(cleared_in=3, deal=3), 20),
    # not cleared: minus every card left (pyramid, Pack and Waste)
    ("not cleared", make(pyramid={"1,1": "5S", "2,1": "6S"}, waste=["2C", "3C"], deal=3), -4),
    ("not cleared, pack left (ended)", make(pyramid={"1,1": "5S"}, pack=["2C"]), -2),
]


@pytest.mark.parametrize("desc,game,score", SCORE_TABLE, ids=[t[0] for t in SCORE_TABLE])
def test_par_score_table(desc, game, score):
    assert par_score(game) == score


def test_win_in_deal_one_by_play_scores_50():
    g = make(pyramid={"7,1": "9H", "7,2": "4S"}, pack=["KC", "QC"], waste=["AC"])
    g, _ = rules.play(g, notation.parse_action("71 72"))
    assert g.cleared_in == 1 and not g.over
    g, _ = rules.play(g, notation.parse_action("P"))
    g, events = rules.play(g, notation.parse_action("W P"))
    assert g.over and g.how == "won" and g.score == 50


def test_cleared_in_deal_two_then_waste_left():
    g = make(pyramid={"7,1": "9H"}, pack=["2C", "4C"], deal=1)
    g, _ = rules.play(g, DEAL)        # 2C to waste, 4C on top
    g, _ = rules.play(g, DEAL)        # 4C to waste; pack empty
    g, _ = rules.play(g, DEAL)        # redeal: deal 2
    g, _ = rules.play(g, DEAL)        # 2C to waste, 4C pack top
    g, _ = rules.play(g, notation.parse_action("7,1 P"))
    assert g.cleared_in == 2
    # one card (2C) left; play the Pack out (one redeal left)
    while not g.over:
        g, _ = rules.play(g, DEAL)
    assert g.score == 35 - 1


def test_end_scores_as_it_stands_and_tournament_moves_on():
    s = rules.new_game({"mode": "tournament"}, random.Random(2))
    s, events = rules.apply(s, 0, END)
    assert s.game_no == 2 and s.scores == (-52,)
    assert any(isinstance(e, rules.GameOver) for e in events)
    for _ in range(5):
        s, _ = rules.apply(s, 0, END)
    assert s.over and rules.outcome(s).scores == (-312,) and rules.outcome(s).winner is None
    assert rules.to_move(s) == ()
    with pytest.raises(RuleError):
        rules.apply(s, 0, DEAL)


def test_seat_must_be_zero():
    s = rules.new_game({}, random.Random(2))
    with pytest.raises(IllegalAction):
        rules.apply(s, 1, DEAL)
    assert list(rules.legal_actions(s, 1)) == []


# ---------------------------------------------------------------- properties

@st.composite
def played(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    mode = draw(st.sampled_from(["standard", "tournament"]))
    state = rules.new_game({"mode": mode}, random.Random(seed))
    n = draw(st.integers(0, 120))
    choice = random.Random(draw(st.integers(0, 10**6)))
    for _ in range(n):
        if state.over:
            break
        acts = [a for a in rules.legal_actions(state, 0) if a is not END]
        if not acts or choice.random() < 0.01:
            acts = [END]
        state, _ = rules.apply(state, 0, choice.choice(acts))
    return state


def _all_spot_actions():
    spots = [f"{r},{c}" for r in range(1, 8) for c in range(1, r + 1)] + ["P", "W"]
    acts = [Action("remove", (s,)) for s in spots]
    acts += [Action("remove", (a, b)) for i, a in enumerate(spots) for b in spots[i + 1:]]
    return acts + [DEAL]


ALL_ACTIONS = _all_spot_actions()


@settings(max_examples=40, deadline=None)
@given(played())
def test_52_cards_accounted_for(state):
    for g in state.games:
        live = [c for c in g.pyramid if c is not None] + list(g.pack) + list(g.waste)
        assert len(live) == len(set(live)) == g.cards_left
        assert 0 <= g.cards_left <= 52


@settings(max_examples=25, deadline=None)
@given(played())
def test_no_illegal_move_accepted(state):
    legal = set(rules.legal_actions(state, 0))
    for action in ALL_ACTIONS:
        if action in legal:
            rules.apply(state, 0, action)
        else:
            with pytest.raises(RuleError):
                rules.apply(state, 0, action)


@settings(max_examples=40, deadline=None)
@given(played())
def test_save_restore_anywhere_changes_nothing(state):
    data = json.loads(json.dumps(notation.state_to_json(state)))
    back = notation.state_from_json(data)
    assert back == state
    if not state.over:
        for action in list(rules.legal_actions(state, 0))[:5]:
            assert rules.apply(back, 0, action)[0] == rules.apply(state, 0, action)[0]


def test_card_text():
    assert card_text(C("10H")) == "10H" and card_text(C("AS")) == "AS"
