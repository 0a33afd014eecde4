"""Issue 27, round three: the defects found at the table, each checked where it lives (the
engines' words and views, the Pyramid service's verdict)."""

from __future__ import annotations

from types import SimpleNamespace

from games.outcome import Outcome
from games.pyramid import match
from games.triad import table as triad
from server.services import pyramid as pyramid_service
from tests.unit.test_triad_table import act, play_to, three_at_a_table


def _drawing(step: int = 20) -> triad.Table:
    table, _ = act(three_at_a_table(), 0, "START", 1)
    while table.game.phase != "draw":
        seat = triad.to_move(table)[0]
        table, _ = act(table, seat, "EQUAL", step)
        step += 1
    return table


def test_the_triad_draw_prompt_names_the_commands_a_player_types():
    table = _drawing()
    seat = triad.to_move(table)[0]
    drawn = triad.render_table(triad.view_for(table, seat), color=False)
    assert "TRIAD DISCARD" in drawn and "TRIAD STAND" in drawn
    assert "DRAW <" not in drawn


def test_a_triad_discard_tells_the_drawer_their_new_cards_and_nobody_else():
    table = _drawing()
    seat = triad.to_move(table)[0]
    new, events = act(table, seat, "DRAW 1 2", 40)
    cards = new.game.seats[new.position(seat)].cards
    mine = [e for e in events if getattr(e, "private", False)]
    assert len(mine) == 1
    text = triad.describe_event(mine[0])
    assert all(code in text for code in cards)
    public = [triad.describe_event(e) or "" for e in events if not getattr(e, "private", False)]
    assert not any("Your" in t for t in public)


def test_a_closed_triad_table_does_not_offer_the_next_hand():
    table, _ = act(three_at_a_table(), 0, "START", 1)
    table = play_to(table, "hand_over")
    for seat in (0, 1, 2):
        table, _ = act(table, seat, "LEAVE", 90 + seat)
    assert triad.outcome(table) is not None
    last = triad.render_table(triad.view_for(table, None), color=False)
    assert "TRIAD DEAL" not in last
    assert "closed" in last


def test_a_triad_table_everyone_left_is_no_draw_for_the_computer():
    assert triad.counts(Outcome(None, "everyone has left the table", (0, 0))) is False
    assert triad.counts(Outcome(0, "nobody else can pay the opening bet", (90, 0))) is True


def test_a_pyramid_tournament_result_gives_the_winners_score_first():
    totals = (-305, 113)
    fake = SimpleNamespace(closed="", matches=[SimpleNamespace(total=t) for t in totals],
                           played_out=True)
    result = match.outcome(fake)
    assert result.winner == 1
    assert "+113" in result.reason and result.reason.index("+113") < result.reason.index("-305")


def test_a_solitaire_pyramid_game_is_no_draw_in_the_records():
    assert match.counts(Outcome(None, "no move left, Par score -20", (-20,))) is False
    assert match.counts(Outcome(0, "all cards removed, Par score +20", (20,))) is False
    assert match.counts(Outcome(1, "six games each, net Par +3 vs -5", (-5, 3))) is True


def test_the_solver_says_all_52_cards_removed_once(monkeypatch):
    monkeypatch.setattr(pyramid_service, "best_par_text", lambda seed, best: (
        "the best possible Par score was +35 (all 52 cards removed, the pyramid cleared "
        "in deal 2)"))
    best = SimpleNamespace(result="win", proven=True, upper=35, lower=35, score=35)
    text = pyramid_service.verdict_text("This deal", pyramid_service.Line(best, "win", "win"),
                                        20, 1)
    assert text.count("all 52 cards removed") == 1, text
