"""A sealed Pyramid table (a Par tournament's entrant's deals; games/pyramid/match.py):
nobody but its player sees a card or hears of a move until it is unsealed, whether in
play, closed or played out; after ``unseal`` it is shown as any table of one."""

from __future__ import annotations

import json
import random
import re

import pytest

from games.errors import IllegalAction
from games.pyramid import match, rules, spoken
from games.pyramid.match import Close, apply, audience, deal_scores, new_table, view_for

CARD = re.compile(r"(?<![0-9A-Za-z])(10|[2-9AJQK])[SHDC](?![0-9A-Za-z])")
SEEDS = [11, 22, 33]


def _sealed() -> match.Table:
    return new_table({"mode": "tournament", "seeds": SEEDS, "sealed": "Par tournament 4"},
                     (False,), False, random.Random(1))


def _cards(view: dict) -> bool:
    text = "\n".join([json.dumps(view), match.render(view, width=80, color=False),
                      *spoken.speak(view)])
    return CARD.search(text) is not None


def _play(table: match.Table, moves: int, rng: random.Random) -> tuple[match.Table, list]:
    told = []
    for _ in range(moves):
        if table.played_out:
            break
        action = rng.choice(list(rules.legal_actions(table.matches[0], 0)))
        table, events = apply(table, 0, action, rng)
        told.append(audience(table, 0, events))
    return table, told


def test_the_set_of_deals_is_the_seeds_given():
    table = _sealed()
    assert table.matches[0].seeds == tuple(SEEDS) and table.matches[0].n_games == 3
    assert match.state_from_json(match.state_to_json(table)) == table


@pytest.mark.parametrize("seed", range(6))
def test_nobody_but_its_player_sees_or_hears_a_sealed_table(seed):
    rng = random.Random(seed)
    table, told = _play(_sealed(), 200, rng)
    assert all(a is not None and a.seats == (0,) and not a.watchers for a in told)
    assert _cards(view_for(table, 0))            # its player sees it
    assert not _cards(view_for(table, None))     # a watcher, REPLAY, the web do not
    assert "sealed until Par tournament 4 is over" in view_for(table, None)["note"]
    assert match.withheld(table) is not None
    closed, _ = apply(table, 0, Close(match.EXIT)) if not table.played_out else (table, [])
    assert not _cards(view_for(closed, None)) and match.withheld(closed) is not None
    # a past point of it, replayed while the table stands sealed, shows nothing either
    assert not _cards(view_for(_sealed(), None, now=closed))
    # unsealed (the tournament is over): shown as any table
    opened = match.unseal(closed)
    assert match.withheld(opened) is None and _cards(view_for(opened, None))
    assert _cards(view_for(_sealed(), None, now=opened))


def test_save_and_new_are_refused_and_exit_counts_what_is_left():
    table = _sealed()
    for word in (match.SAVE, match.RENEW):
        with pytest.raises(IllegalAction, match="Par tournament"):
            apply(table, 0, Close(word))
    table, _ = apply(table, 0, rules.END)               # deal 1 ended untouched: -52
    closed, _ = apply(table, 0, Close(match.EXIT))      # deal 2 dealt, deal 3 never
    assert deal_scores(closed) == (-52, -52, -52)
    assert sum(deal_scores(closed)) == -156
