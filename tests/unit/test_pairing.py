"""Tournament pairing and standings (server/services/pairing.py), pure."""

from __future__ import annotations

import random
import sys

import pytest

from bench.pairing import simulate_swiss
from server.services.pairing import (Entrant, Result, arena_pairings, arena_points,
                                     swiss_pairings, swiss_standings)
from tests.support.imports import loaded_by_a_parlor


@pytest.mark.parametrize("n", [64, 63, 9, 201])  # 201: several windows, a bye
def test_a_simulated_swiss_repeats_no_pairing_and_balances_byes_and_seats(n):
    s = simulate_swiss(n, 6 if n > 9 else 5, random.Random(n))
    assert s["repeats"] == 0
    assert s["max_byes"] <= 1
    assert s["max_imbalance"] <= 1


def test_round_one_is_dutch_top_half_against_bottom_half():
    entrants = [Entrant(i, rating=2000 - i) for i in range(1, 9)]
    pairs, bye = swiss_pairings(entrants)
    assert bye is None
    assert sorted(tuple(sorted(p)) for p in pairs) == [(1, 5), (2, 6), (3, 7), (4, 8)]


def test_the_bye_goes_to_the_lowest_without_one():
    entrants = [Entrant(1, 2), Entrant(2, 1), Entrant(3, 1, opponents=(None,))]
    _, bye = swiss_pairings(entrants)
    assert bye == 2


def test_standings_with_buchholz_and_sonneborn_berger():
    results = [Result(1, 2, 1.0), Result(3, 4, 0.5), Result(1, 3, 0.5), Result(2, 4, 1.0)]
    table = swiss_standings([1, 2, 3, 4], results)
    assert table[0] == (1, 1.5, 2.0, 1.0 + 0.5)       # beat 2 (1 pt), drew 3 (1 pt)
    assert [t[0] for t in table] == [1, 3, 2, 4]


def test_arena_scoring_doubles_on_fire():
    assert arena_points([1, 1, 1]) == (8, True)          # 2 + 2 + 4
    assert arena_points([1, 1, 0.5, 1]) == (2 + 2 + 2 + 2, False)
    assert arena_points([1, 0, 1, 1, 1, 0]) == (2 + 0 + 2 + 2 + 4 + 0, False)


def test_arena_pairs_near_rank_and_never_the_last_opponent():
    a = [Entrant(1, opponents=(2,)), Entrant(2, opponents=(1,)), Entrant(3), Entrant(4)]
    pairs = arena_pairings(a, {1: 0, 2: 1, 3: 2, 4: 3})
    assert {tuple(sorted(p)) for p in pairs} == {(1, 3), (2, 4)}


def test_arena_pairs_the_last_two_again_only_when_told_to():
    two = [Entrant(1, opponents=(2,)), Entrant(2, opponents=(1,))]
    assert arena_pairings(two, {1: 0, 2: 1}) == []
    assert [tuple(sorted(p)) for p in arena_pairings(two, {1: 0, 2: 1}, again=True)] \
        == [(1, 2)]


def test_a_parlor_loads_networkx_only_when_a_tournament_is_paired():
    """networkx (about 12 MB, and 25,000 objects every full garbage collection scans) is
    imported by the first pairing, not by the parlor and its commands."""
    assert loaded_by_a_parlor("networkx") == []
    swiss_pairings([Entrant(1, rating=1500), Entrant(2, rating=1400)])
    assert "networkx" in sys.modules
