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
    fake = SimpleNamespace(closed="", matches=[SimpleNamespace(total=t, n_games=6) for t in totals],
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


# -- screen-reader mode without glyphs (issue 27, 3) ----------------------------------------
def test_pyramid_cards_are_said_in_words():
    from games.pyramid import spoken
    assert spoken.card_words({"text": "QD"}) == "queen of diamonds"
    assert spoken.card_words({"text": "10H"}) == "10 of hearts"
    assert spoken.card_words({"text": "AS"}) == "ace of spades"


def test_dice_moves_and_the_end_are_told_without_die_glyphs():
    import random
    import re

    from games.dice import rules, words
    rng = random.Random(3)
    state = rules.new_game({}, rng)
    told = []
    for _ in range(400):
        if rules.outcome(state) is not None:
            break
        seat = rules.to_move(state)[0]
        state, events = words.sentences(rules.apply)(
            state, seat, rng.choice(list(rules.legal_actions(state, seat))), rng)
        told.extend(t for t in map(words.describe_event, events) if t)
    assert told
    assert not [t for t in told if re.search(r"[\[(]\d+[\])]|\(n\)|\[n\]", t)]


def test_triptycha_empty_niches_say_which_way_they_point_and_the_hand_is_counted_right():
    from tests.unit.test_spoken import tt_games
    from games.triptycha import spoken
    from games.triptycha.render import view_for
    states = tt_games(5)
    lines = spoken.speak(view_for(states[0], 0), ("Ann", "Ben"))
    middle = next(s for s in states if s.phase == "play" and any(s.cell(i) for i in range(9))
                  and sum(h.niche is not None for h in s.hands[0]) >= 2)
    spoken_lines = spoken.speak(view_for(middle, 0), ("Ann", "Ben"))
    empties = [line for line in spoken_lines if line.endswith("empty.")]
    assert empties and all(", up: " in e or ", down: " in e for e in empties)
    head = next(line for line in spoken_lines if line.startswith("Your hand:"))
    listed = [line for line in spoken_lines if line.startswith("Tile ")]
    assert head.startswith(f"Your hand: {len(listed)} tile"), (head, listed)
    assert lines
