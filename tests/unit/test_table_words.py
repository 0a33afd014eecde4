"""Issue 39, round four, items 9 and 10: the words at the table, each checked where it
lives (the tournament systems' lines, the engines' words and records)."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from server.services.pyramid_par import ParTournament
from server.services.tourney_arena import Arena


def _arena(minute_seconds: float = 60.0) -> Arena:
    return Arena(SimpleNamespace(settings=SimpleNamespace(minute_seconds=minute_seconds)))


@pytest.mark.parametrize("status, minutes, seconds_left, said", [
    ("open", 1, None, "1 minute"),
    ("open", 5, None, "5 minutes"),
    ("running", 5, 30, "1 minute left"),     # under a minute: still "1 minute", never "0"
    ("running", 5, 59, "1 minute left"),
    ("running", 5, 90, "2 minutes left"),
    ("running", 5, 299, "5 minutes left"),
])
def test_an_arena_counts_its_minutes_in_good_english(status, minutes, seconds_left, said):
    ends_at = None if seconds_left is None else time.time() + seconds_left
    row = SimpleNamespace(status=status, state={"minutes": minutes, "ends_at": ends_at})
    assert _arena().progress(row) == said


@pytest.mark.parametrize("deals, title, open_line", [
    (1, "Pyramid Par, 1 deal", "Open: 1 deal, the same for every entrant."),
    (2, "Pyramid Par, 2 deals", "Open: 2 deals, the same for every entrant."),
])
def test_a_par_tournament_counts_its_deals_in_good_english(deals, title, open_line):
    par = ParTournament(SimpleNamespace())
    made, state = par.new(deals, {})
    assert made == title
    assert par.summary_lines(SimpleNamespace(status="open", state=state)) == [open_line]


# -- 10a: a Triptycha resignation tells who resigned and who wins, no niche count -----------
@pytest.mark.parametrize("winner, scores, reason, said", [
    (1, (0, 0), "resignation", "Play ends: Alice resigned, and Bob wins."),
    (0, (2, 3), "resignation", "Play ends: Bob resigned, and Alice wins."),
    (1, (4, 5), "more niches", "Play ends: Bob holds 5 niches to 4."),
])
def test_a_triptycha_resignation_is_told_without_a_niche_count(winner, scores, reason, said):
    from games.triptycha.rules import PlayEnds
    assert PlayEnds(winner, scores, reason).text(("Alice", "Bob")) == said


# -- 10c: a one-player game's record says how it went, not "drew v none" --------------------
@pytest.mark.parametrize("seats, result, seat, said", [
    (1, {"winner": None, "reason": "no move left, Par score -12", "scores": [-12]}, 0,
     "played (no move left, Par score -12)"),
    (1, {"winner": 0, "reason": "all cards removed, Par score +50", "scores": [50]}, 0,
     "won (all cards removed, Par score +50)"),
    (1, None, 0, "played"),
    (2, {"winner": None, "reason": "a draw", "scores": [0, 0]}, 0, "drew"),
    (2, {"winner": 1, "reason": "resignation", "scores": [0, 0]}, 0, "lost"),
])
def test_a_solitaire_record_says_how_it_went(seats, result, seat, said):
    from server.services.notify import result_for
    record = SimpleNamespace(seats=[{"id": i + 1, "name": f"P{i}"} for i in range(seats)],
                             result=result, state={})
    assert result_for(None, record, seat) == said


@pytest.mark.parametrize("winner, said", [(None, "played"), (0, "won"), (1, "lost")])
def test_a_closed_triad_table_is_played_at_not_drawn(winner, said):
    """FINGER said "drew" of every Triad table that closed without a last player left."""
    from server.services.notify import result_for
    record = SimpleNamespace(seats=[{"id": 1, "name": "Ann"}, {"id": 2, "name": "Computer 1"}],
                             result={"winner": winner, "reason": "everyone has left the table",
                                     "scores": [0, 130]}, state={})
    table = SimpleNamespace(open_table=True, spec=SimpleNamespace(
        withheld=lambda state: None, state_from_json=lambda data: data))
    assert result_for(table, record, 0) == said


def test_a_sealed_table_says_why_in_lower_case_after_a_colon():
    """10f: "Game #4 may not be shown: its deals are sealed ...", every door alike."""
    import random
    from games.pyramid import match
    table = match.new_table({"mode": "tournament", "seeds": [1, 2], "sealed": "Par 1"},
                            (False,), False, random.Random(1))
    assert match.withheld(table).startswith("its deals are sealed until Par 1 is over")


# -- 10h: TT DRAW 9 tells both numbers: the deck's one typed, the hand's one to play by ------
def test_a_triptycha_draw_tells_the_deck_number_and_the_hand_number():
    import random
    from games.triptycha.rules import Draw, apply
    from tests.unit.test_triptycha_rules import decks
    from games.triptycha.rules import Options, Rules, new_game
    s = new_game(Options(decks(12, 12), Rules()), random.Random(1))
    s, events = apply(s, 0, Draw(9), random.Random(1))
    assert events[0].text(("Alice", "Bob")) == \
        "Alice draws tile 9 from the deck; it is tile 1 in hand."
