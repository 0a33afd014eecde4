"""bench/last_games.py, short: 200 games. Asserts that the two ways it times choose the
same games, not the times it prints."""

from __future__ import annotations

from tests.support.benches import run_bench


def test_short_last_games_bench_chooses_the_same_games_both_ways():
    run = run_bench("last_games.py", "--games", "200", "--repeat", "1", timeout=120)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "same games: yes (40 games of 4 kinds)" in run.stdout
