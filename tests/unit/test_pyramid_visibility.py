"""Who may see a Pyramid deal (games/pyramid/match.py alone): with Use Same Deck at a
table of two, nobody but the seat playing a deal sees a card of it, or hears of its
moves, before every seat has finished it (or the table is over). Properties over random
play, checked against a rule written out here again, not against ``match.is_shown``."""

from __future__ import annotations

import json
import random
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.pyramid import match, rules, spoken
from games.pyramid.match import Close, MatchEvent, apply, audience, new_table, outcome, view_for

CARD = re.compile(r"(?<![0-9A-Za-z])(10|[2-9AJQK])[SHDC](?![0-9A-Za-z])")
NAMES = ("Bob", "Carol")


def may_see(table: match.Table, viewer: int | None, owner: int, game_no: int) -> bool:
    """The rule: a seat sees its own deals; anyone sees a deal of another seat when the
    deals are not shared, when the table is over, or once every seat has finished it."""
    if viewer == owner or not table.same_deck or len(table.matches) == 1:
        return True
    if table.closed or all(m.over for m in table.matches):
        return True
    return all(len(m.scores) >= game_no for m in table.matches)


def cards_in(view: dict) -> bool:
    """Whether anything drawn from ``view`` names a card: the view itself (GMCP, the web),
    the board as text, the board read out."""
    text = "\n".join([json.dumps(view), match.render(view, width=80, color=False, names=NAMES),
                      *spoken.speak(view, names=NAMES)])
    return CARD.search(text) is not None


def check_views(table: match.Table, now: match.Table | None = None) -> None:
    """Every seat's view and the watchers' show cards exactly when the rule allows (for a
    past ``table`` of a game that stands at ``now``: when it allows them now)."""
    judge = now or table
    for viewer in (*range(len(table.matches)), None):
        view = view_for(table, viewer, now)
        owner = view["board_of"]
        allowed = may_see(judge, viewer, owner, table.matches[owner].game_no)
        assert cards_in(view) == allowed, (viewer, view)
        assert ("pyramid" in view) == allowed


def check_audience(before: match.Table, after: match.Table, seat: int, events: list) -> None:
    """An action in a deal the others may not see yet is told in full to its player alone;
    the others (watchers too) hear only that a game ended and the next was dealt."""
    heard = audience(after, seat, events)
    deal = before.matches[seat].game_no
    if any(isinstance(e, match.Closed) for e in events) or may_see(after, None, seat, deal):
        assert heard is None or heard.watchers
        return
    assert heard is not None and heard.seats == (seat,) and not heard.watchers
    assert all(isinstance(e, MatchEvent) and isinstance(e.event, (rules.GameOver, rules.NewDeal))
               for e in heard.public)
    for e in heard.public:
        assert not CARD.search(match.describe_event(e) or ""), e


SHAPES = st.sampled_from([
    ((False, False), True),   # two people, the same deals
    ((False, True), True),    # a person and the computer, the same deals
    ((False, False), False),  # two people, their own deals: nothing hidden
])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=SHAPES, seed=st.integers(0, 2**32 - 1), data=st.data())
def test_no_view_and_no_line_shows_a_deal_to_whom_it_is_hidden(shape, seed, data):
    computer, same_deck = shape
    table = new_table({"mode": "tournament"}, computer, same_deck, random.Random(seed))
    past = [table]
    check_views(table)
    for _ in range(150):
        if outcome(table) is not None:
            break
        seat = data.draw(st.integers(0, 1), label="seat")
        legal = list(match.legal_actions(table, seat))
        if not legal:
            continue
        # mostly moves, often END (so that the seats' deals drift apart), rarely a Close
        moves = [a for a in legal if not isinstance(a, Close) and a != rules.END]
        ends = [a for a in legal if a == rules.END]
        roll = data.draw(st.integers(0, 99), label="roll")
        pool = legal if roll < 2 or not moves else ends if roll < 25 and ends else moves
        action = data.draw(st.sampled_from(pool), label="action")
        after, events = apply(table, seat, action)
        check_audience(table, after, seat, events)
        table = after
        check_views(table)
        past.append(table)
    # REPLAY: any earlier point of the game, shown as the game stands now
    for then in data.draw(st.lists(st.sampled_from(past), max_size=5), label="replayed"):
        check_views(then, table)
