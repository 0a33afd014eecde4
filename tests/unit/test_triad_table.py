"""The Triad table engine (games/triad/table.py): seating, leaving, hidden cards,
clocks, notation and JSON, with no database; docs/rules/triad.md's cases for sitting,
leaving, going away, coming back and closing; and properties over random sequences."""

from __future__ import annotations

import random

import attrs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
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


def said(clock: tuple) -> tuple:
    """The table's clock with its action as typed (``(seconds, seat, "FOLD", why)``)."""
    return (*clock[:2], triad.format_action(clock[2]), *clock[3:])


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
    assert said(clock) == (0.0, 2, "FOLD", "Carol is leaving the table.")
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
    assert triad.presence(table, 2, False) == triad.Away()
    table, _ = act(table, 2, "AWAY")
    assert triad.presence(table, 2, False) is None
    assert triad.presence(table, 2, True) == triad.Back()
    table, _ = act(table, 2, "BACK")
    assert 2 not in table.away
    table, _ = act(table, 2, "AWAY")
    seat = triad.to_move(table)[0]
    assert said(triad.table_timeout(table, 60)) == (60, seat, "PASS", None)
    while table.game.phase != "hand_over":
        seat = triad.to_move(table)[0]
        clock = triad.table_timeout(table, 60)
        if seat == 2:
            assert clock[0] == 0.0 and clock[3] == "Carol is away."
        table, events = act(table, seat, said(clock)[2])
    assert table.position(2) is None and 2 not in table.away
    assert any(isinstance(e, triad.Cubits) and e.reason == "triad cash-out" for e in events)
    # between hands the server deals after a pause, in the next dealer's name
    assert said(triad.table_timeout(table, 60)) == (triad.NEXT_HAND_S, 1, "DEAL", "")
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
    assert [said.text for said in told] == ["The main pot of 31 is split between equal hands: Bob 16 and Alice 15.",
                    "Side pot 1 of 20 goes to Carol: the best hand.",
                    "Alice shows 14B 13B 12B 11B 10B 9B: Full Colors."]


# -- docs/rules/triad.md's cases, as tables ----------------------------------------------------
# "A table has 2..6 seats, an opening bet (ante, also the minimum bet and minimum raise) and
# an optional upper limit for one raise": one check, one wording (rules.check_options).
@pytest.mark.parametrize(("opening", "limit", "seats", "buyin", "refusal"), [
    (10, None, 6, None, None),
    (1, 1, 2, 1, None),
    (10, 10, 6, 10, None),
    (0, None, 6, None, "The opening bet is at least 1 cubit."),
    (10, 5, 6, None, "The upper limit can't be below the opening bet (10)."),
    (10, None, 1, None, "A table has 2 to 6 seats."),
    (10, None, 7, None, "A table has 2 to 6 seats."),
    (10, None, 6, 9, "The buy-in is at least the opening bet (10)."),
])
def test_table_options(opening, limit, seats, buyin, refusal):
    if refusal is None:
        options = triad.table_options(opening, limit, seats, buyin)
        assert options == {"opening": opening, "limit": limit, "seats": seats,
                           "buyin": opening * triad.BUYIN_BETS if buyin is None else buyin}
        table = triad.new_table(options, Player(1, "Alice"))
        assert len(table.places) == seats and table.game.seats[0].stack == options["buyin"]
    else:
        with pytest.raises(IllegalAction) as err:
            triad.table_options(opening, limit, seats, buyin)
        assert str(err.value) == refusal
        # the hand engine refuses the same table with the same words
        if buyin is None:
            with pytest.raises(IllegalAction) as again:
                rules.new_game({"opening": opening, "limit": limit, "stacks": [50] * seats})
            assert str(again.value) == refusal


def _at(where: str) -> triad.Table:
    """Three at a table: "between" hands, or in hand 1 with Carol (seat 2) "in" it or
    "folded" out of it (Alice, seat 0, deals; Bob raises, Carol folds)."""
    table = three_at_a_table()
    if where == "between":
        return table
    table, _ = act(table, 0, "DEAL")
    table, _ = act(table, 1, "RAISE 10")
    if where == "folded":
        table, _ = act(table, 2, "FOLD")
    return table


# (where, Carol's actions, seated after, away, leaving, last line said, cash-out)
PRESENCE = [
    ("between", ["LEAVE"], False, set(), set(), "Carol leaves the table with 100 cubits "
     "(back to their account).", 100),
    ("between", ["AWAY"], False, set(), set(), "Carol leaves the table with 100 cubits "
     "(back to their account).", 100),
    ("in", ["LEAVE"], True, set(), {2}, "Carol will leave the table when this hand ends, "
     "passing or folding meanwhile (TRIAD BACK to stay).", None),
    ("in", ["AWAY"], True, {2}, set(), "Carol is away: they pass or fold at their turns and "
     "leave the table when this hand ends, unless they come back.", None),
    ("in", ["LEAVE", "BACK"], True, set(), set(), "Carol stays at the table.", None),
    ("in", ["AWAY", "BACK"], True, set(), set(), "Carol stays at the table.", None),
    ("in", ["AWAY", "LEAVE"], True, {2}, {2}, "Carol will leave the table when this hand "
     "ends, passing or folding meanwhile (TRIAD BACK to stay).", None),
    ("folded", ["LEAVE"], False, set(), set(), "Carol leaves the table with 90 cubits "
     "(back to their account).", 90),
    ("folded", ["AWAY"], False, set(), set(), "Carol leaves the table with 90 cubits "
     "(back to their account).", 90),
]


@pytest.mark.parametrize(("where", "actions", "seated", "away", "leaving", "said", "cashout"),
                         PRESENCE)
def test_leaving_going_away_and_coming_back(where, actions, seated, away, leaving, said,
                                            cashout):
    table = _at(where)
    before = table.cubits()
    for text in actions:
        table, events = act(table, 2, text)
    assert (table.position(2) is not None) == seated and table.seats[2].left == (not seated)
    assert table.away == away and table.leaving == leaving
    assert texts(events)[-1] == said
    out = [e for e in events if isinstance(e, triad.Cubits)]
    assert [(e.account_id, e.delta, e.reason) for e in out] == (
        [] if cashout is None else [(3, cashout, triad.CASHOUT)])
    assert table.cubits() + sum(e.delta for e in out) == before


@pytest.mark.parametrize(("where", "actions", "refusal"), [
    ("in", ["BACK"], "You are not leaving the table; there is nothing to take back."),
    ("in", ["AWAY", "AWAY"], "Carol is already away."),
    ("in", ["LEAVE", "LEAVE"], "You are already leaving when this hand ends (TRIAD BACK to "
     "stay)."),
    ("between", ["LEAVE", "BACK"], "You are not seated at this table."),
    ("between", ["LEAVE", "PASS"], "You are not seated at this table."),
    ("between", ["PASS"], "There is no hand in play: TRIAD START deals the first hand."),
    ("folded", ["SIT 4 50 7 - Dan"], "You are already at this table."),
    ("in", ["SIT 1 50 3 - Carol"], "You are already at this table."),
])
def test_presence_refusals(where, actions, refusal):
    table = _at(where)
    for text in actions[:-1]:
        table, _ = act(table, 2, text)
    with pytest.raises(IllegalAction) as err:
        act(table, 2, actions[-1])
    assert str(err.value) == refusal


# "A player ... who is disconnected at their turn, passes if they can and folds
# otherwise; in the draw, they keep their cards" -- at once, when away or leaving.
@pytest.mark.parametrize(("setup", "absence", "default"), [
    ([], "AWAY", "PASS"),
    ([], "LEAVE", "PASS"),
    (["RAISE 10"], "AWAY", "FOLD"),
    (["RAISE 10"], "LEAVE", "FOLD"),
    (["PASS", "PASS", "PASS"], "AWAY", "DRAW"),
    (["PASS", "PASS", "PASS"], "LEAVE", "DRAW"),
])
def test_the_default_action_of_an_absent_player(setup, absence, default):
    table = three_at_a_table()
    table, _ = act(table, 0, "DEAL")
    for text in setup:                     # Bob, Carol, Alice in turn
        table, _ = act(table, triad.to_move(table)[0], text)
    table, _ = act(table, 2, absence)                   # Carol, not at her turn
    while triad.to_move(table) != (2,):
        table, _ = act(table, triad.to_move(table)[0], "PASS" if table.game.phase != "draw"
                       else "DRAW")
    why = "Carol is away." if absence == "AWAY" else "Carol is leaving the table."
    clock = triad.table_timeout(table, 60)
    assert said(clock)[:3] == (0.0, 2, default) and clock[3] == why


def _with_stacks(table: triad.Table, stacks: dict[int, int | None]) -> triad.Table:
    seats = list(table.game.seats)
    for pos, stack in stacks.items():
        seats[pos] = rules.Seat(stack)
    return attrs.evolve(table, game=attrs.evolve(table.game, seats=tuple(seats)))


# "The table ends, between hands, when no human player is seated, or once started when
# fewer than two seats (or no human) can pay the opening bet; every stack goes back."
@pytest.mark.parametrize(("started", "computers", "stacks", "winner", "reason"), [
    (False, (), {0: 100, 1: 100, 2: 100}, None, None),
    (False, (), {0: 100, 1: 5, 2: 5}, None, None),          # not started: nothing to close
    (True, (), {0: 100, 1: 100, 2: 5}, None, None),
    (True, (), {0: 100, 1: 5, 2: 5}, 0, "nobody else can pay the opening bet"),
    (True, (), {0: 5, 1: 5, 2: 5}, None, "nobody can pay the opening bet"),
    (True, (1, 2), {0: 5, 1: 100, 2: 100}, None, "only computer players can pay the opening bet"),
    (True, (1, 2), {0: 100, 1: 100, 2: 5}, None, None),
    (True, (1,), {0: 5, 1: 100, 2: 5}, 1, "nobody else can pay the opening bet"),
])
def test_when_a_table_closes(started, computers, stacks, winner, reason):
    table = triad.new_table(triad.table_options(10, None, 3, 100), Player(1, "Alice"))
    for pos in (1, 2):
        level = "easy" if pos in computers else "-"
        table, _ = act(table, pos, f"SIT {pos + 1} 100 {pos + 1} {level} P{pos}")
    table = attrs.evolve(_with_stacks(table, stacks), started=started)
    result = triad.outcome(table)
    if reason is None:
        assert result is None
        assert triad.close(table) != [] or not any(stacks.values())
    else:
        assert result.reason == reason and result.winner == winner
        assert triad.table_timeout(table, 60) is None
        back = triad.close(table)
        assert sorted((e.position, e.delta, e.reason) for e in back) == [
            (pos, stack, triad.CASHOUT) for pos, stack in sorted(stacks.items()) if stack]
        assert all(e.text.startswith("The table closes: ") for e in back)


@pytest.mark.parametrize(("leavers", "reason"), [
    ((0, 1), "everyone has left the table"),                  # only the computer is left
    ((0,), None),
    ((1,), None),
    ((2,), None),
])
def test_a_table_without_people_closes_between_hands(leavers, reason):
    table = triad.new_table(triad.table_options(10, None, 3, 100), Player(1, "Alice"))
    table, _ = act(table, 1, "SIT 2 100 2 - Bob")
    table, _ = act(table, 2, "SIT 3 100 9 hard Computer 1")
    for seat in leavers:
        table, _ = act(table, seat, "LEAVE")
    result = triad.outcome(table)
    assert (result and result.reason) == reason


def test_a_computer_player_that_cannot_pay_stands_up_between_hands():
    table = triad.new_table(triad.table_options(10, None, 3, 100), Player(1, "Alice"))
    table, _ = act(table, 1, "SIT 2 10 9 easy Computer 1")
    table, _ = act(table, 2, "SIT 3 100 3 - Carol")
    table, _ = act(table, 0, "DEAL")                  # the computer antes its last 10
    assert table.game.seats[1].stack == 0
    while table.game.phase != "hand_over" and table.position(1) is not None:
        seat = triad.to_move(table)[0]
        text = ("DRAW" if table.game.phase == "draw" else
                "FOLD" if seat == 1 else "EQUAL")
        table, events = act(table, seat, text)
    if table.game.phase == "hand_over" and (table.game.seats[1].stack or 0) < 10:
        assert table.position(1) is None and table.seats[1].left
        assert any(e.text == "Computer 1 leaves the table." for e in events
                   if isinstance(e, triad.Cubits))


# -- properties ----------------------------------------------------------------------------------
def _check(table: triad.Table) -> None:
    """What no sequence of actions may break."""
    game = table.game
    seated = [s for s in table.places if s is not None]
    assert len(seated) == len(set(seated))
    assert all(0 <= s < len(table.seats) and not table.seats[s].left for s in seated)
    assert all(table.seats[s].left for s in range(len(table.seats)) if s not in seated)
    for pos, seat in enumerate(table.places):
        s = game.seats[pos]
        if seat is not None:
            assert s.stack is not None
        assert s.stack is None or s.stack >= 0
        assert s.committed >= 0
    assert table.away <= set(seated) and table.leaving <= set(seated)
    if game.phase == "hand_over":
        assert game.pot == 0 and not table.away and not table.leaving
        assert all(table.game.seats[p].stack >= game.opening for p in range(len(table.places))
                   if table.is_computer(p))
    else:
        assert table.started
    assert all(s in seated for s in triad.to_move(table))
    # human players: one seat each
    humans = [table.seats[s].account_id for s in seated if table.seats[s].computer is None]
    assert len(humans) == len(set(humans))


def _choices(table: triad.Table, rng_seed: int) -> list[tuple[int, object]]:
    """Every legal action of every seat, newcomers sitting down, and a few wrong ones."""
    out: list[tuple[int, object]] = []
    for seat in range(len(table.seats)):
        actions = list(triad.legal_actions(table, seat))
        raises = [a for a in actions if getattr(a, "kind", "") == "RAISE"]
        draws = [a for a in actions if getattr(a, "kind", "") == "DRAW"]
        keep = [a for a in actions if a not in raises and a not in draws]
        keep += raises[:2] + raises[-1:] + draws[:3]
        # the cards and bets five times as likely as a seat change, so that hands get played
        out += [(seat, a) for a in keep for _ in range(5 if isinstance(a, rules.Action) else 1)]
        if table.seats[seat].left and table.seats[seat].computer is None:
            pos = table.free_position()
            if pos is not None:
                out.append((seat, triad.Sit(pos, 40, table.seats[seat].account_id,
                                            table.seats[seat].name)))
    pos = table.free_position()
    n = len(table.seats)
    if pos is not None:
        out.append((n, triad.Sit(pos, 30 + 10 * (rng_seed % 7), 100 + n, f"P{n}")))
        out.append((n, triad.Sit(pos, 20, 9, f"Computer {n}", "easy")))
    # wrong ones: refused, and the table unchanged
    out += [(0, rules.Action("PASS")), (n, triad.Leave()), (1, triad.Back()),
            (n, triad.Sit(0, 50, 500, "Late")), (0, rules.Action("RAISE", 10 ** 6))]
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_cubits_are_conserved_and_every_state_is_legal(data):
    import json

    seats = data.draw(st.integers(2, 6), label="seats")
    opening = data.draw(st.sampled_from((1, 5, 10)), label="opening")
    limit = data.draw(st.sampled_from((None, opening, opening * 3)), label="limit")
    table = triad.new_table(triad.table_options(opening, limit, seats, opening * 8),
                            Player(1, "Alice"))
    came_in, went_out = table.buyin, 0
    ledger = {pos: 0 for pos in range(seats)}
    ledger[0], pot = table.buyin, 0
    for step in range(data.draw(st.integers(1, 80), label="steps")):
        seat, action = data.draw(st.sampled_from(_choices(table, step)), label="action")
        text = triad.format_action(action)
        assert triad.parse_action(text) == action
        try:
            new, events = triad.apply(table, seat, action, random.Random(step))
        except IllegalAction as err:
            assert str(err)                                   # a reason for the player
            continue
        for e in events:
            if isinstance(e, triad.Cubits):
                came_in += max(0, -e.delta)
                went_out += max(0, e.delta)
                ledger[e.position] -= e.delta
            elif isinstance(e, triad.PotMove):
                ledger[e.position] += e.delta
                pot -= e.delta
        table = new
        # stacks + pot + what left == what came in; and the table ledger adds up
        assert table.cubits() + went_out == came_in
        assert pot == table.game.pot
        assert ledger == {p: s.stack or 0 for p, s in enumerate(table.game.seats)}
        _check(table)
        stored = json.loads(json.dumps(triad.state_to_json(table)))
        assert triad.state_from_json(stored) == table
        if triad.outcome(table) is not None:
            break
    # when the table closes every stack goes back: everything that came in has left
    if triad.outcome(table) is not None:
        assert sum(e.delta for e in triad.close(table)) + went_out == came_in


# -- stored games --------------------------------------------------------------------------------
# A table's moves and state as the service stored them before the table became an engine
# (server/services/triad.py at 89525b0): existing databases hold rows like these.
STORED_MOVES = [(1, "SIT 2 100 2 - Bob"), (2, "SIT 3 60 9 easy Computer 1"),
                (3, "SIT 4 80 4 - Dan"), (0, "DEAL"), (1, "RAISE 10"), (2, "EQUAL"),
                (3, "FOLD"), (0, "AWAY"), (3, "LEAVE"), (0, "EQUAL"), (1, "LEAVE"),
                (1, "DRAW 1 2"), (2, "DRAW")]
STORED_STATE = (
    '{"game":{"opening":10,"limit":30,"seats":[{"stack":80,"cards":["5P","C","7R","13B","11'
    'B","4B"],"status":"in","bet":0,"committed":20,"acted":false,"drew":null},{"stack":80,"'
    'cards":["6R","2P","7G","3B","14G","4G"],"status":"in","bet":0,"committed":20,"acted":f'
    'alse,"drew":2},{"stack":40,"cards":["10P","2G","7B","14P","5B","C"],"status":"in","bet'
    '":0,"committed":20,"acted":false,"drew":0},{"stack":null,"cards":[],"status":"out","be'
    't":0,"committed":10,"acted":false,"drew":null}],"dealer":0,"hand_no":1,"phase":"draw",'
    '"to_act":0,"current_bet":0,"last_raise":0,"stock":["2R","9G","C","10G","10R","13P","4P'
    '","3G","2B","8R","9P","9B","13R","11R","5G","12B","9R","6P","12P","8G","11P","11G","13'
    'G","C","14R","6G","10B","5R","6B","8B"],"discards":["3P","12G","4R","7P","8P","14B","3'
    'R","12R"],"shown":[],"winnings":[]},"seats":[{"id":1,"name":"Alice","computer":null},{'
    '"id":2,"name":"Bob","computer":null},{"id":9,"name":"Computer 1","computer":"easy"},{"'
    'id":4,"name":"Dan","computer":null,"left":true}],"places":[0,1,2,null],"buyin":100,"st'
    'arted":true,"away":[0],"leaving":[1]}'
)


def test_stored_tables_load_and_replay_as_before():
    import json

    stored = json.loads(STORED_STATE)
    table = triad.new_table(triad.table_options(10, 30, 4, 100), Player(1, "Alice"))
    for step, (seat, text) in enumerate(STORED_MOVES, 1):
        action = triad.parse_action(text)
        assert triad.format_action(action) == text
        table, _ = triad.apply(table, seat, action, random.Random(f"5:{step}"))
    # the state now keeps the last action too (for the board to show), a key old rows lack
    now = triad.state_to_json(table)
    assert now["game"].pop("last") == [2, "DRAW", 0, False]
    # and who played the last hand (Dan too, who has left), another key old rows lack:
    # those seated now stand in for it
    assert now.pop("hand_seats") == [0, 1, 2, 3]
    assert now == stored
    loaded = triad.state_from_json(stored)
    assert loaded.game.last == () and loaded.hand_seats == (0, 1, 2, None)
    assert attrs.evolve(loaded, hand_seats=table.hand_seats) == table
    assert triad.state_to_json(loaded) == {
        **stored, "game": {**stored["game"], "last": []}, "hand_seats": [0, 1, 2, None]}
    assert loaded.seats[3] == Player(4, "Dan", None, True) and loaded.away == {0}
    assert service.seats_of(loaded)[2] == Seat(9, "Computer 1", "easy")


def test_a_person_has_one_place_whichever_seat_they_come_back_by():
    """Found by the property above: a player who left and sat again as a new seat could
    also come back by their old seat number, holding two places at once."""
    table = triad.new_table(triad.table_options(1, None, 4, 8), Player(1, "Alice"))
    table, _ = triad.apply(table, 1, triad.Sit(1, 30, 500, "Late"), random.Random(1))
    table, _ = triad.apply(table, 1, triad.Leave(), random.Random(2))
    table, _ = triad.apply(table, 2, triad.Sit(1, 30, 500, "Late"), random.Random(3))
    with pytest.raises(IllegalAction, match="Late is already at this table"):
        triad.apply(table, 1, triad.Sit(2, 30, 500, "Late"), random.Random(4))
