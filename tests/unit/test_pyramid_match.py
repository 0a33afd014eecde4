"""The Pyramid match table (games/pyramid/match.py): one engine match per seat, played
at once, with no database. docs/rules/pyramid.md's cases for the match (a tournament of six,
SAVE/EXIT/NEW, Use Same Deck, the computer never seeing the Pack) as tables; tables
stored before the table became an engine replay and load unchanged; and properties over
random sequences of legal actions."""

from __future__ import annotations

import functools
import json
import pathlib
import random
import re
import time

import attrs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
import pytest

from games.errors import BadNotation, IllegalAction, RuleError
from games.pyramid import match, rules
from games.pyramid.cards import new_deck_order
from games.pyramid.match import (EXIT, RENEW, RESIGN, SAVE, Close, Closed, MatchEvent, apply,
                                 audience, check_close, choose_action, counts, new_table,
                                 outcome, to_move, view_for)
from games.pyramid.spec import SPEC

STORED = pathlib.Path(__file__).parent / "data" / "pyramid_match_stored.json"


def table_of(n: int = 2, computer=(False, True), same_deck=False, seed=1) -> match.Table:  # noqa: ANN001
    return new_table({"mode": "tournament"}, tuple(computer[:n]), same_deck, random.Random(seed))


def standard(seed: int = 3) -> match.Table:
    return new_table({"mode": "standard"}, (False,), False, random.Random(seed))


# -- a tournament of six; seats play their own matches at once ----------------------------------
def test_seats_play_their_own_matches_at_once_and_hear_of_each_other_at_game_ends():
    table = table_of()
    assert to_move(table) == (0, 1)
    assert table.matches[0].seeds != table.matches[1].seeds
    after, events = apply(table, 1, rules.DEAL)
    assert after.matches[0] == table.matches[0] and after.matches[1] != table.matches[1]
    assert audience(after, 1, events) == match.Audience(seats=(1,))  # only the mover sees an
    # ordinary move (and the watchers: the deals are not the same)
    ended, events = apply(after, 1, rules.END)
    assert any(isinstance(e, MatchEvent) and isinstance(e.event, rules.GameOver) for e in events)
    assert audience(ended, 1, events) is None  # a game's end: everyone
    assert audience(table_of(1, (False,)), 0, []) is None
    view = view_for(ended, 0)
    assert view["others"][0]["scores"] == [ended.matches[1].scores[0]]
    assert view["others"][0]["game_no"] == 2


@pytest.mark.parametrize("seats, computer, ends, expected", [
    # who plays           computer?        END each (seat order)  (winner, reason, scores)
    (1, (False,), [0] * 6, (None, "six games, net Par score -312", (-312,))),
    (2, (False, True), [0] * 6 + [1] * 6,
     (None, "six games each, net Par -312 vs -312", (-312, -312))),
    (2, (False, False), [0, 1] * 6, (None, "six games each, net Par -312 vs -312", (-312, -312))),
])
def test_a_tournament_is_six_games_and_the_best_net_wins(seats, computer, ends, expected):
    table = table_of(seats, computer)
    assert all(m.n_games == 6 and m.game_no == 1 for m in table.matches)
    for step, seat in enumerate(ends):
        assert outcome(table) is None
        table, events = apply(table, seat, rules.END)
        game_no = table.matches[seat].game_no
        assert [type(e.event) for e in events] == (
            [rules.GameOver, rules.NewDeal] if len(table.matches[seat].scores) < 6
            else [rules.GameOver])
        assert game_no == min(len(table.matches[seat].scores) + 1, 6)
    winner, reason, scores = expected
    result = outcome(table)
    assert (result.winner, result.reason, result.scores) == (winner, reason, scores)
    # a player alone has no opponent: no win, loss or draw in the records (issue 27)
    assert counts(result) is (len(table.matches) > 1) and to_move(table) == ()


def test_the_best_net_wins_a_tournament_of_two():
    table = table_of(2, (False, False), seed=9)
    # seat 1 plays a few moves of each game before ending it: its net is higher
    for game_no in range(1, 7):
        table, _ = apply(table, 0, rules.END)
        while table.matches[1].game_no == game_no and not table.matches[1].over:
            removes = [a for a in rules.legal_actions(table.matches[1]) if a.kind == "remove"]
            table, _ = apply(table, 1, removes[0] if removes else rules.END)
    assert all(m.over for m in table.matches)
    a, b = (m.total for m in table.matches)
    result = outcome(table)
    assert result.scores == (a, b) and result.winner == (None if a == b else (0 if a > b else 1))


# -- SAVE, EXIT, NEW (and RESIGN): one check, one wording ---------------------------------------
TABLES = {
    "standard": lambda: standard(),
    "alone": lambda: table_of(1, (False,)),
    "computer": lambda: table_of(2, (False, True)),
    "person": lambda: table_of(2, (False, False)),
}
# (who is at the table, the word) -> what closes the table, or the refusal's words
CLOSES = [
    ("standard", SAVE, "SAVE is for tournament play"),
    ("standard", EXIT, "EXIT is for tournament play"),
    ("standard", RENEW, "in standard play PYR NEW deals another game"),
    ("standard", RESIGN, None),          # the game ends as it stands: not a close
    ("alone", SAVE, SAVE), ("alone", EXIT, EXIT), ("alone", RENEW, RENEW),
    ("alone", RESIGN, RESIGN),
    ("computer", SAVE, SAVE), ("computer", EXIT, EXIT), ("computer", RENEW, RENEW),
    ("computer", RESIGN, RESIGN),
    ("person", SAVE, "A tournament against a person cannot be saved"),
    ("person", EXIT, RESIGN),            # EXIT against a person resigns
    ("person", RENEW, "Against a person NEW would restart your opponent's tournament"),
    ("person", RESIGN, RESIGN),
]
REASONS = {SAVE: (match.SAVED_REASON, False), EXIT: (match.ABANDONED_REASON, False),
           RENEW: (match.RENEWED_REASON, False), RESIGN: ("resignation", True)}


@pytest.mark.parametrize("who, word, expected", CLOSES)
def test_closing_a_table(who, word, expected):
    table = TABLES[who]()
    seat = len(table.matches) - 1
    action = match.parse_action(word)
    assert action == Close(word) and match.format_action(action) == word
    if expected is None:                 # resigning a standard game ends it as it stands
        ended, events = apply(table, seat, action)
        assert not ended.closed and ended.matches[0].over
        assert outcome(ended).scores == (-52,) and not counts(outcome(ended))  # alone
        return
    if expected not in (SAVE, EXIT, RENEW, RESIGN):
        with pytest.raises(IllegalAction, match=re.escape(expected)):
            check_close(table, seat, word)
        with pytest.raises(IllegalAction, match=re.escape(expected)):
            apply(table, seat, action)
        assert action not in set(match.legal_actions(table, seat))
        return
    assert check_close(table, seat, word) == expected
    assert action in set(match.legal_actions(table, seat))
    closed, events = apply(table, seat, action)
    assert (closed.closed, closed.closer) == (expected, seat)
    assert events == [Closed(seat, expected)]
    assert to_move(closed) == () and list(match.legal_actions(closed, 0)) == []
    reason, counted = REASONS[expected]
    result = outcome(closed)
    alone = len(table.matches) == 1  # no win, loss or draw in the records (issue 27)
    assert result.reason == reason and counts(result) is (counted and not alone)
    if expected == RESIGN:
        others = [i for i in range(len(table.matches)) if i != seat]
        assert result.winner == (others[0] if others else None)
    with pytest.raises(IllegalAction, match="closed"):
        apply(closed, 0, rules.DEAL)
    with pytest.raises(IllegalAction, match="closed"):
        check_close(closed, 0, word)


@pytest.mark.parametrize("command, in_standard, in_tournament", [
    # docs/rules/pyramid.md, "Play modes": in tournament play HINT, TOUR, AUTO and QUIT are replaced
    ("HINT", None, "HINT is not available in tournament play."),
    ("AUTO", None, "AUTO is not available in tournament play."),
    ("QUIT", None, "In tournament play QUIT is replaced by EXIT"),
    ("TOUR", None, "You are in tournament play already"),
    ("SCORE", None, None), ("TOP10", None, None), ("CONFIG", None, None),
])
def test_the_commands_of_each_mode(command, in_standard, in_tournament):
    for table, refusal in ((standard(), in_standard), (table_of(1, (False,)), in_tournament),
                           (table_of(), in_tournament)):
        if refusal is None:
            match.check_command(table, command)
            match.check_command(table, command.lower())
        else:
            with pytest.raises(IllegalAction, match=re.escape(refusal)):
                match.check_command(table, command)


def test_outcomes_closing_and_what_counts():
    table = table_of()
    for _ in range(6):
        table, _ = apply(table, 0, rules.END)
    assert outcome(table) is None                  # the computer has not finished
    for _ in range(6):
        table, _ = apply(table, 1, rules.END)
    result = outcome(table)
    assert result.winner is None and result.scores == (-312, -312) and counts(result)
    saved, _ = apply(table_of(), 0, Close(SAVE))
    assert outcome(saved).reason == match.SAVED_REASON and not counts(outcome(saved))
    assert to_move(saved) == ()
    with pytest.raises(IllegalAction, match="closed"):
        apply(saved, 0, rules.DEAL)
    people = table_of(computer=(False, False))
    with pytest.raises(IllegalAction, match="cannot be saved"):
        apply(people, 0, Close(SAVE))
    with pytest.raises(IllegalAction, match="restart your opponent"):
        apply(people, 0, Close(RENEW))
    resigned, _ = apply(people, 1, Close(EXIT))  # EXIT against a person resigns
    assert outcome(resigned).winner == 0 and counts(outcome(resigned))
    with pytest.raises(IllegalAction, match="tournament play"):
        apply(standard(), 0, Close(SAVE))
    ended, _ = apply(standard(), 0, Close(RESIGN))  # resigning a game ends it as it is
    assert outcome(ended).scores == (-52,) and not counts(outcome(ended))  # alone


def test_a_played_out_seat_and_a_bad_seat_are_refused():
    table = table_of(2, (False, False))
    for _ in range(6):
        table, _ = apply(table, 0, rules.END)
    assert to_move(table) == (1,)
    with pytest.raises(IllegalAction, match="played all your games"):
        apply(table, 0, rules.DEAL)
    with pytest.raises(IllegalAction, match="no such seat"):
        apply(table, 2, rules.DEAL)
    with pytest.raises(IllegalAction, match="no such seat"):
        check_close(table, -1, SAVE)


# -- Use Same Deck ----------------------------------------------------------------------------
def test_with_the_same_deck_the_computer_plays_a_deal_after_the_person():
    table = table_of(same_deck=True)
    assert table.matches[0].seeds == table.matches[1].seeds
    assert to_move(table) == (0,)
    with pytest.raises(IllegalAction, match="waits until the deal is played"):
        apply(table, 1, rules.DEAL)
    assert view_for(table, 0)["waiting"] and "plays each deal after you" in match.render(
        view_for(table, 0), color=False, names=("Alice", "Computer"))
    table, _ = apply(table, 0, rules.END)          # the person finishes deal 1
    assert to_move(table) == (0, 1) and not view_for(table, 0)["waiting"]
    table, _ = apply(table, 1, rules.END)          # the computer plays deal 1 ...
    assert to_move(table) == (0,)                  # ... and waits for deal 2
    two_people = table_of(computer=(False, False), same_deck=True)
    assert to_move(two_people) == (0, 1)           # two people both play at once


@pytest.mark.parametrize("computer, same_deck, same_seeds, first_to_move", [
    ((False, True), True, True, (0,)),
    ((False, True), False, False, (0, 1)),
    ((False, False), True, True, (0, 1)),
    ((False, False), False, False, (0, 1)),
])
def test_same_deck_means_the_same_deals(computer, same_deck, same_seeds, first_to_move):
    for seed in range(5):
        table = table_of(2, computer, same_deck, seed)
        assert (table.matches[0].seeds == table.matches[1].seeds) is same_seeds
        assert (table.matches[0].game == table.matches[1].game) is same_seeds
        assert to_move(table) == first_to_move


# -- what each sees ---------------------------------------------------------------------------
def test_the_board_fits_80_columns_with_the_other_players_running_score():
    table = table_of()
    for _ in range(5):
        table, _ = apply(table, 0, rules.END)
        table, _ = apply(table, 1, rules.END)
    names = ("Abcdefghijklmnop", "Computer(normal)")
    for seat in (0, 1, None):
        text = match.render(view_for(table, seat), width=80, color=False, names=names)
        assert all(len(line) <= 80 for line in text.split("\n")), text
        assert "game 6 of 6" in text and "net -260" in text
    coloured = match.render(view_for(table, 0), width=80, color=True, names=names)
    assert "\x1b[" in coloured
    assert match.render(view_for(table, 0), width=80, color=False, names=names) == \
        re.sub(r"\x1b\[[0-9;]*m", "", coloured)


def test_notation_and_json_round_trip_and_hidden_information():
    table = table_of(same_deck=True)
    table, _ = apply(table, 0, rules.DEAL)
    assert match.state_from_json(match.state_to_json(table)) == table
    for text in ("SAVE", "EXIT", "NEW", "RESIGN", "7,1 6,3", "P W", "D", "END", "7,4"):
        action = match.parse_action(text)
        assert match.parse_action(match.format_action(action)) == action
    with pytest.raises(IllegalAction):
        apply(table, 0, match.parse_action("1,1"))
    with pytest.raises(BadNotation):
        match.parse_action("fly")
    view = view_for(table, 0)
    assert "pack" not in view and "seeds" not in view
    assert all("seeds" not in o and "pack" not in o for o in view["others"])


def test_the_computer_never_reads_the_face_down_pack(monkeypatch):
    """Two tables alike but for the order of the cards under the Pack's top: in deal 1
    the computer's choice is the same (it cannot tell them apart). The clock is stopped so
    that its searches are bounded by their node counts alone, the same in both runs."""
    monkeypatch.setattr(time, "perf_counter", lambda: 0.0)
    rng = random.Random(5)
    for seed in range(12):
        table = table_of(seed=seed)
        m = table.matches[1]
        game = m.game
        hidden = list(game.pack[1:])
        rng.shuffle(hidden)
        other_game = attrs.evolve(game, pack=(game.pack[0],) + tuple(hidden))
        other = attrs.evolve(table, matches=(table.matches[0],
                                             attrs.evolve(m, games=(other_game,))))
        a = choose_action(table, 1, "normal", random.Random(seed), 0.3)
        b = choose_action(other, 1, "normal", random.Random(seed), 0.3)
        assert a == b


@pytest.mark.parametrize("options, expected", [
    ([], {"mode": "tournament"}),
    (["SAME"], {"mode": "tournament", "same_deck": True}),
    (["own"], {"mode": "tournament", "same_deck": False}),
])
def test_challenge_options(options, expected):
    assert match.parse_options(options) == expected
    with pytest.raises(BadNotation, match="'sideways' is not an option: SAME"):
        match.parse_options(["sideways"])
    assert match.describe_options({"mode": "standard"}) == "standard play"
    assert match.describe_options({"mode": "tournament", "restore": 3}) == "a saved tournament"
    assert match.describe_options({"mode": "tournament", "same_deck": True}) == \
        "a six-game tournament, same deals"


# -- stored games ----------------------------------------------------------------------------
# Tables, their moves, what was told and how they ended, as the service stored them before
# the table became an engine (server/services/pyramid.py at 6a9dddb): existing databases
# hold rows like these, and ``pyramid_saves`` the state JSON of saved tournaments.
@pytest.mark.parametrize("name", sorted(json.loads(STORED.read_text())))
def test_stored_tables_load_and_replay_as_before(name):
    case = json.loads(STORED.read_text())[name]
    table = new_table(case["options"], tuple(case["computer"]), case["same_deck"],
                      random.Random(case["seed"]))
    told = []
    for step, (seat, text) in enumerate(case["moves"], 1):
        action = match.parse_action(text)
        assert match.format_action(action) == text
        table, events = apply(table, seat, action, random.Random(f"{case['seed']}:{step}"))
        told.extend(d for d in (match.describe_event(e) for e in events) if d)
    # each match now keeps its last action too (for the board to mark), a key old rows lack
    now = match.state_to_json(table)
    lasts = [m.pop("last") for m in now["matches"]]
    assert now == case["state"]
    assert any(lasts) and all(last is None or last["kind"] in ("remove", "deal", "redeal", "end")
                              for last in lasts)
    assert told == case["told"]
    loaded = match.state_from_json(case["state"])
    assert loaded == table and all(m.last is None for m in loaded.matches)
    assert match.state_to_json(loaded) == {
        **case["state"], "matches": [{**m, "last": None} for m in case["state"]["matches"]]}
    assert list(to_move(loaded)) == case["to_move"]
    result = outcome(loaded)
    assert (None if result is None else [result.winner, result.reason, list(result.scores)]) \
        == case["outcome"]


def test_the_hosted_kind_plays_the_engine():
    from server.services import pyramid as service

    kind = service.Pyramid()
    assert kind.spec is SPEC
    for hook in ("apply", "outcome", "to_move", "parse_action", "format_action",
                 "state_to_json", "state_from_json", "view_for", "render", "choose_action",
                 "describe_event", "describe_options", "audience", "counts"):
        assert getattr(SPEC, hook) is getattr(match, hook), hook


# -- properties -------------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def dealt_deck(seed: int) -> tuple[int, ...]:
    return tuple(new_deck_order(random.Random(seed)))


def check_table(table: match.Table) -> None:
    """No illegal state: every match is a deal of its own seeds, each game's cards are
    those dealt (none twice), finished games score their Par, and the scores add up."""
    assert len(table.matches) == len(table.computer) >= 1
    modes = {m.mode for m in table.matches}
    assert len(modes) == 1
    if table.same_deck:
        assert len({m.seeds for m in table.matches}) == 1
    for m in table.matches:
        assert 1 <= m.game_no <= m.n_games == (6 if m.mode == "tournament" else 1)
        assert all(g.over for g in m.games[:-1])
        for seed, g in zip(m.seeds, m.games):
            dealt = dealt_deck(seed)
            here = [c for c in g.pyramid if c is not None] + list(g.pack) + list(g.waste)
            assert len(here) == len(set(here)) == g.cards_left
            assert set(here) <= set(dealt)
            assert all(c is None or c == dealt[i] for i, c in enumerate(g.pyramid))
            assert 1 <= g.deal <= rules.DEALS
            assert g.over == (g.score is not None)
            if g.over:
                assert g.score == rules.par_score(g)
        assert m.total == sum(m.scores) == sum(g.score for g in m.games if g.over)
    seats = to_move(table)
    assert all(not table.matches[s].over for s in seats)
    result = outcome(table)
    if table.closed:
        assert seats == () and result is not None and table.closer is not None
    if result is not None:
        assert result.scores == tuple(m.total for m in table.matches)
    elif not table.closed:
        assert not table.played_out


def round_trip(table: match.Table) -> match.Table:
    """Save and restore: through JSON text, as the database keeps it."""
    return match.state_from_json(json.loads(json.dumps(match.state_to_json(table))))


SHAPES = st.sampled_from([
    ({"mode": "standard"}, (False,), False),
    ({"mode": "tournament"}, (False,), False),
    ({"mode": "tournament"}, (False, True), False),
    ({"mode": "tournament"}, (False, True), True),
    ({"mode": "tournament"}, (False, False), False),
    ({"mode": "tournament"}, (False, False), True),
])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=SHAPES, seed=st.integers(0, 2**32 - 1), data=st.data())
def test_random_legal_play_keeps_a_legal_table_that_saves_anywhere(shape, seed, data):
    options, computer, same_deck = shape
    table = new_table(options, computer, same_deck, random.Random(seed))
    check_table(table)
    assert round_trip(table) == table
    for step in range(200):
        if outcome(table) is not None:
            break
        seat = data.draw(st.integers(0, len(table.matches) - 1), label="seat")
        legal = list(match.legal_actions(table, seat))
        if not legal:
            assert seat not in to_move(table)
            with pytest.raises(RuleError):
                apply(table, seat, rules.DEAL)
            continue
        # mostly moves, sometimes END (so that tournaments go on), rarely a Close
        moves = [a for a in legal if not isinstance(a, Close) and a != rules.END]
        ends = [a for a in legal if a == rules.END]
        roll = data.draw(st.integers(0, 99), label="roll")
        pool = legal if roll < 2 or not moves else ends if roll < 8 and ends else moves
        action = data.draw(st.sampled_from(pool), label="action")
        text = match.format_action(action)
        assert match.parse_action(text) == action
        restored = round_trip(table)               # saved and taken up before every move
        assert restored == table
        table, events = apply(restored, seat, action, random.Random(step))
        check_table(table)
        for e in events:
            if isinstance(e, MatchEvent) and isinstance(e.event, rules.GameOver):
                assert e.event.total == sum(table.matches[seat].scores[:e.event.game_no])
    result = outcome(table)
    if result is not None and not table.closed:
        assert result.scores == tuple(m.total for m in table.matches)


# -- a Par tournament's set of deals: its own count of games, in words ----------------------
@pytest.mark.parametrize("deals, described, reason", [
    (1, "a one-game tournament", "one game, net Par score -52"),
    (2, "a two-game tournament", "two games, net Par score -104"),
    (6, "a six-game tournament", "six games, net Par score -312"),
    (12, "a twelve-game tournament", "twelve games, net Par score -624"),
])
def test_a_set_of_deals_is_announced_and_ends_with_its_own_count(deals, described, reason):
    options = {"mode": "tournament", "seeds": list(range(1, deals + 1)), "sealed": "Par 1"}
    assert match.describe_options(options) == described
    table = new_table(options, (False,), False, random.Random(1))
    for _ in range(deals):
        table, _events = apply(table, 0, rules.END)
    assert outcome(table).reason == reason
