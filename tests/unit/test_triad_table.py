"""The Triad table engine (games/triad/table.py): seating, leaving, hidden cards,
clocks, notation and JSON, with no database; the rules page's cases for sitting,
leaving, going away, coming back and closing; and properties over random sequences."""

from __future__ import annotations

import random

import attrs
import pytest

from games.errors import IllegalAction
from games.triad import rules
from games.triad import table as triad
from games.triad.table import Player
from server.hosting import Seat
from server.services import triad as service
from server.text import visible_len


def act(table: triad.Table, seat: int, text: str, step: int = 0):
    action = triad.parse_action(text)
    assert triad.parse_action(triad.format_action(action)) == action
    new, events = triad.apply(table, seat, action, random.Random(f"7:{step}"))
    # every state survives JSON exactly
    assert triad.state_from_json(triad.state_to_json(new)) == new
    return new, events


def three_at_a_table(stacks=(100, 100, 100)) -> triad.Table:
    table = triad.new_table(triad.table_options(10, None, 4, stacks[0]), Player(1, "Alice"))
    table, _ = act(table, 1, f"SIT 2 {stacks[1]} 2 - Bob")
    table, _ = act(table, 2, f"SIT 3 {stacks[2]} 3 - Carol")
    return table


def texts(events) -> list[str]:
    return [triad.describe_event(e) for e in events if triad.describe_event(e)]


def play_to(table: triad.Table, phase: str, step: int = 10) -> triad.Table:
    """Everyone equals (or passes) and keeps their cards until ``phase``."""
    while table.game.phase != phase:
        seat = triad.to_move(table)[0]
        table, _ = act(table, seat, "DRAW" if table.game.phase == "draw" else "EQUAL", step)
        step += 1
    return table


def test_seating_cubits_and_the_first_deal():
    table = triad.new_table(triad.table_options(10, 40, 4, 100), Player(1, "Alice"))
    assert triad.to_move(table) == () and triad.outcome(table) is None
    with pytest.raises(IllegalAction, match="Two players"):
        act(table, 0, "START")
    table, events = act(table, 1, "SIT 2 150 2 - Bob")
    assert [(e.account_id, e.delta, e.reason) for e in events] == [(2, -150, "triad buy-in")]
    assert texts(events) == ["Bob sits down in seat 2 with 150 cubits."]
    assert table.seats == (Player(1, "Alice"), Player(2, "Bob"))
    # the service's adapter gives the host its own seats
    assert service.seats_of(table) == (Seat(1, "Alice"), Seat(2, "Bob"))
    with pytest.raises(IllegalAction, match="taken"):
        act(table, 2, "SIT 2 100 3 - Carol")
    with pytest.raises(IllegalAction, match="at least the opening bet"):
        act(table, 2, "SIT 3 5 3 - Carol")
    with pytest.raises(IllegalAction, match="already at this table"):
        act(table, 1, "SIT 3 100 2 - Bob")       # a seated player cannot sit again
    with pytest.raises(IllegalAction, match="already at this table"):
        act(table, 2, "SIT 3 100 2 - Bob")
    with pytest.raises(IllegalAction, match="no hand in play: TRIAD START"):
        act(table, 0, "PASS")
    table, events = act(table, 1, "START")
    assert table.started and table.game.hand_no == 1 and table.game.pot == 20
    assert texts(events)[0] == "Hand 1: Alice deals to Bob and Alice; each antes 10."
    # each ante is a movement for the table ledger: position, account, stack change
    assert sorted((e.position, e.account_id, e.delta, e.reason) for e in events
                  if isinstance(e, triad.PotMove)) == [(0, 1, -10, "ante"), (1, 2, -10, "ante")]
    assert triad.to_move(table) == (1,)
    with pytest.raises(IllegalAction, match="not your turn: waiting for Bob"):
        act(table, 0, "PASS")
    with pytest.raises(IllegalAction, match="upper limit, 40"):
        act(table, 1, "RAISE 50")


def test_joining_during_a_hand_sits_out_until_the_next():
    table = triad.new_table(triad.table_options(10, None, 3, 100), Player(1, "Alice"))
    table, _ = act(table, 1, "SIT 2 100 2 - Bob")
    table, _ = act(table, 0, "DEAL")
    table, events = act(table, 2, "SIT 3 60 3 - Carol")
    assert texts(events) == ["Carol sits down in seat 3 with 60 cubits (dealt in from the "
                             "next hand)."]
    assert table.game.seats[2].status == "out" and not table.game.seats[2].cards
    table = play_to(table, "hand_over")
    table, events = act(table, 2, "DEAL", 50)
    assert table.game.seats[2].status == "in" and len(table.game.seats[2].cards) == 6
    assert "Carol" in texts(events)[0]


def test_leaving_during_a_hand_waits_for_its_end_and_cashes_out():
    table = three_at_a_table()
    table, _ = act(table, 0, "DEAL")
    first = triad.to_move(table)[0]                  # Bob, left of the dealer
    table, events = act(table, 2, "LEAVE")            # Carol is still in the hand
    assert "when this hand ends" in texts(events)[0]
    assert table.position(2) == 2 and 2 in table.leaving
    # at her turn her clock is 0 s and the default action is to pass
    table, _ = act(table, first, "RAISE 10")
    clock = triad.table_timeout(table, 60)
    assert clock == (0.0, 2, "FOLD", "Carol is leaving the table.")
    table, events = act(table, 2, "FOLD", 2)           # out of the hand: she stands up now
    assert [(e.account_id, e.delta, e.reason, e.position) for e in events
            if isinstance(e, triad.Cubits)] == [(3, 90, "triad cash-out", 2)]
    assert table.position(2) is None and table.seats[2].left
    assert table.game.pot == 40  # her ante stays in the pot
    with pytest.raises(IllegalAction, match="not seated"):
        act(table, 2, "PASS")
    # her seat keeps the folded ante until the hand ends: nobody sits in it meanwhile
    assert table.free_position() == 3
    # she can come back later, in the same host seat
    table = play_to(table, "hand_over", 20)
    table, _ = act(table, 2, "SIT 3 50 3 - Carol")
    assert table.seats[2] == Player(3, "Carol") and len(table.seats) == 3


def test_away_players_act_at_once_and_stand_up_after_the_hand():
    table = three_at_a_table()
    table, _ = act(table, 0, "DEAL")
    assert triad.presence(table, 2, False) == "AWAY"
    table, _ = act(table, 2, "AWAY")
    assert triad.presence(table, 2, False) is None and triad.presence(table, 2, True) == "BACK"
    table, _ = act(table, 2, "BACK")
    assert 2 not in table.away
    table, _ = act(table, 2, "AWAY")
    seat = triad.to_move(table)[0]
    assert triad.table_timeout(table, 60) == (60, seat, "PASS", None)
    while table.game.phase != "hand_over":
        seat = triad.to_move(table)[0]
        clock = triad.table_timeout(table, 60)
        if seat == 2:
            assert clock[0] == 0.0 and clock[3] == "Carol is away."
        table, events = act(table, seat, clock[2])
    assert table.position(2) is None and 2 not in table.away
    assert any(isinstance(e, triad.Cubits) and e.reason == "triad cash-out" for e in events)
    # between hands the server deals after a pause, in the next dealer's name
    assert triad.table_timeout(table, 60) == (triad.NEXT_HAND_S, 1, "DEAL", "")
    assert triad.table_timeout(table, 0.5)[0] == 0.5


def test_hidden_cards_watchers_and_the_showdown():
    table = three_at_a_table()
    table, _ = act(table, 0, "DEAL")
    mine = triad.view_for(table, 1)
    others = [e for e in mine["seats"] if e["seat"] != 1 and not e["empty"]]
    assert all(e["cards"] == [] and e["hidden_cards"] == 6 for e in others)
    assert len(next(e for e in mine["seats"] if e["seat"] == 1)["cards"]) == 6
    watcher = triad.view_for(table, None)
    assert all(not e.get("cards") for e in watcher["seats"])
    assert triad.hand_text(watcher) == "You hold no cards now."
    assert triad.hand_text(mine).startswith("Your hand: 1:")
    drawn = triad.render_table(watcher, 80, color=False, names=())
    assert drawn.count("## ## ## ## ## ##") == 3
    held = {c for s in table.game.seats for c in s.cards} - {"C"}
    assert not held & set(drawn.split())
    table = play_to(table, "hand_over")
    shown = triad.view_for(table, None)
    assert sum(1 for e in shown["seats"] if e.get("cards")) == 3
    assert "shows" in triad.render_table(shown, 80, color=False)


def test_all_in_side_pots_and_the_end_of_the_table():
    table = three_at_a_table((200, 30, 200))
    table, _ = act(table, 0, "DEAL")
    assert triad.to_move(table) == (1,)
    table, events = act(table, 1, "RAISE 20")           # Bob: all in
    assert "Bob is all in." in texts(events)
    table, _ = act(table, 2, "RAISE 40")
    table, _ = act(table, 0, "EQUAL")
    assert rules.side_pots(table.game) == [(90, (0, 1, 2)), (80, (0, 2))]
    assert triad.view_for(table, 0)["pots"] == [[90, [0, 1, 2]], [80, [0, 2]]]
    table = play_to(table, "hand_over", 30)
    assert table.game.pot == 0 and table.cubits() == 430
    assert sum(n for _, n in triad.view_for(table, None)["winnings"]) == 170
    lines = texts(triad.apply(table, 0, triad.parse_action("DEAL"), random.Random(1))[1])
    assert lines[0].startswith("Hand 2:")
    # when only one seat can pay the opening bet, the table ends and that seat wins
    seats = list(table.game.seats)
    seats[0], seats[1], seats[2] = rules.Seat(425), rules.Seat(0), rules.Seat(5)
    broke = attrs.evolve(table, game=attrs.evolve(table.game, seats=tuple(seats)))
    result = triad.outcome(broke)
    assert result.winner == 0 and result.scores == (425, 0, 5)
    assert triad.table_timeout(broke, 60) is None


def test_computer_players_and_notation():
    table = triad.new_table(triad.table_options(10, None, 3, 50), Player(1, "Alice"))
    table, events = act(table, 1, "SIT 2 50 9 easy Computer 1")
    assert table.seats[1] == Player(9, "Computer 1", "easy")
    assert [(e.computer, e.delta) for e in events] == [(True, -50)]
    assert triad.format_action(triad.parse_action("sit 2 50 9 easy Computer 1")) == \
        "SIT 2 50 9 easy Computer 1"
    table, _ = act(table, 0, "DEAL")
    seat = triad.to_move(table)[0]
    action = triad.choose_action(table, seat, "easy", random.Random(3), 0.05)
    act(table, seat, triad.format_action(action))  # a legal action
    for bad in ("SIT", "SIT 9 50 1 - X", "SIT 2 50 1 genius X", "LEAVE now"):
        with pytest.raises(triad.BadNotation):
            triad.parse_action(bad)
    # nobody human at a table that has not started: it closes
    alone = triad.new_table(triad.table_options(10, None, 3, 50), Player(1, "Alice"))
    alone, _ = act(alone, 1, "SIT 2 50 9 easy Computer 1")
    alone, _ = act(alone, 0, "LEAVE")
    assert triad.outcome(alone).reason == "everyone has left the table"


def test_a_six_seat_table_fits_80_columns():
    names = ["Alexandrina", "Bob", "Computer 1", "Dorothea", "Eve", "Computer 2"]
    table = triad.new_table(triad.table_options(10, None, 6, 1000), Player(1, names[0]))
    for pos, name in enumerate(names[1:], 1):
        table, _ = act(table, pos, f"SIT {pos + 1} 999999 {pos + 1} - {name}")
    table, _ = act(table, 0, "DEAL")
    for seat in (0, None):
        for color in (True, False):
            text = triad.render_table(triad.view_for(table, seat), 80, color=color)
            assert max(visible_len(line) for line in text.split("\n")) <= 80
    table = play_to(table, "hand_over")
    text = triad.render_table(triad.view_for(table, 0), 80, color=False)
    assert max(len(line) for line in text.split("\n")) <= 80 and "shows" in text


def test_the_stock_is_reshuffled_when_it_runs_out():
    names = ["A1", "B2", "C3", "D4", "E5", "F6"]
    table = triad.new_table(triad.table_options(1, None, 6, 50), Player(1, names[0]))
    for pos, name in enumerate(names[1:], 1):
        table, _ = act(table, pos, f"SIT {pos + 1} 50 {pos + 1} - {name}")
    table, _ = act(table, 0, "DEAL")
    table = play_to(table, "draw")
    said = []
    while table.game.phase == "draw":   # 36 dealt, 20 in the stock: 24 wanted
        table, events = act(table, triad.to_move(table)[0], "DRAW 1 2 3 4")
        said += texts(events)
    assert any(line.startswith("The stock has run out: the ") for line in said)
    assert all(len(s.cards) == 6 for s in table.game.seats)


def test_pots_are_told_with_names_split_and_side_pots():
    table = three_at_a_table()
    told = triad._describe(table, [
        rules.PotAwarded(0, 31, ((1, 16), (0, 15)), "split"),
        rules.PotAwarded(1, 20, ((2, 20),), "best hand"),
        rules.Shown(0, ("14B", "13B", "12B", "11B", "10B", "9B"), "Full Colors"),
    ])
    assert told == ["The main pot (31) is split between equal hands: Bob 16 and Alice 15.",
                    "Side pot 1 (20) goes to Carol: the best hand.",
                    "Alice shows 14B 13B 12B 11B 10B 9B: Full Colors."]
