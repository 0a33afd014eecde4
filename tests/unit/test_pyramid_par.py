"""The exact best-Par search (games/pyramid/solver.py ``solve_par``).

- On small boards (1 to 4 pyramid rows, up to 13 Pack cards) it agrees with a brute
  force over every line, played through the engine (``rules.play``).  A few hundred
  hypothesis boards here; ``ESTERPORT_SOAK=1`` runs thousands.
- Known deals: the exact best and a line that replays to it.
- Anytime: a bigger node budget never lowers ``lower`` nor raises ``upper``.

Budgets are node counts, never seconds: nothing here depends on the machine's speed.
"""

import os
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.pyramid import rules, solver
from games.pyramid.rules import DEALS, END, PAR_BASE, Game

SOAK = os.environ.get("ESTERPORT_SOAK") == "1"
NO_CLOCK = 10_000.0  # a time limit that never binds: budgets are node counts


def replay(game: Game, moves) -> Game:
    for action in moves:
        game, _ = rules.play(game, action)
    return game


def _reachable(game: Game):
    """Every position reachable from ``game`` through the engine (END aside), once each."""
    seen = {game}
    todo = [game]
    while todo:
        g = todo.pop()
        yield g
        for action in rules.game_actions(g):
            if action is END:
                continue
            after, _ = rules.play(g, action)
            if after not in seen:
                seen.add(after)
                todo.append(after)


def walk(game: Game, picks) -> Game:
    """Play on from ``game`` part way: each pick chooses one of the legal moves (END
    aside), until the picks run out or the game is over."""
    for pick in picks:
        legal = [a for a in rules.game_actions(game) if a is not END]
        if game.over or not legal:
            break
        game, _ = rules.play(game, legal[pick % len(legal)])
    return game


def brute_best_par(game: Game) -> int:
    """The best Par over every line: every position reachable through the engine, each
    scored as if the player ended there (END is always legal) or as it ended."""
    return max(g.score if g.over else rules.par_score(g) for g in _reachable(game))


@st.composite
def small_boards(draw) -> Game:
    rows = draw(st.integers(1, 4))
    n_pyr = rows * (rows + 1) // 2
    n_pack = draw(st.integers(0, 13))
    cards = draw(st.permutations(range(52)))[:n_pyr + n_pack]
    return Game.from_rows(cards[:n_pyr], cards[n_pyr:])


@settings(max_examples=5000 if SOAK else 300, deadline=None, derandomize=not SOAK,
          suppress_health_check=[HealthCheck.too_slow])
@given(small_boards())
def test_par_matches_brute_force_on_small_boards(game):
    sol = solver.solve_par(game, max_nodes=10**7, time_limit=NO_CLOCK)
    assert sol.proven and sol.lower == sol.upper == sol.score
    assert sol.score == brute_best_par(game)
    end = replay(game, sol.moves)
    assert end.over and end.score == sol.score


@settings(max_examples=300 if SOAK else 40, deadline=None, derandomize=not SOAK)
@given(small_boards(), st.lists(st.integers(1, 400), min_size=2, max_size=4))
def test_a_bigger_budget_never_gives_a_worse_answer_on_small_boards(game, budgets):
    exact = brute_best_par(game)
    last = None
    for budget in sorted(budgets):
        sol = solver.solve_par(game, max_nodes=budget, time_limit=NO_CLOCK)
        assert sol.lower <= exact <= sol.upper
        assert replay(game, sol.moves).score == sol.lower
        if last is not None:
            assert sol.lower >= last.lower and sol.upper <= last.upper
        last = sol


@settings(max_examples=1000 if SOAK else 100, deadline=None, derandomize=not SOAK,
          suppress_health_check=[HealthCheck.too_slow])
@given(small_boards(), st.lists(st.integers(0, 99), max_size=30))
def test_par_matches_brute_force_from_mid_game_positions(game, picks):
    """From positions part way through (after redeals, with the pyramid already cleared
    in an earlier deal, ...), reached by playing picked legal moves."""
    game = walk(game, picks)
    sol = solver.solve_par(game, max_nodes=10**7, time_limit=NO_CLOCK)
    assert sol.proven and sol.score == brute_best_par(game)
    end = replay(game, sol.moves)
    assert end.over and end.score == sol.score


def test_from_rows_builds_a_smaller_board():
    game = Game.from_rows([12, 0, 11], [5, 7])  # KC; AC QC; Pack 6C 8C
    assert game.pyramid_left == 3 and game.available() == ["2,1", "2,2", "P"]
    with pytest.raises(ValueError):
        Game.from_rows([1, 2], [3])  # not whole rows
    with pytest.raises(ValueError):
        Game.from_rows([1], [1])  # a card twice


@pytest.mark.parametrize(("seed", "best"), [(34, -3), (18, -16), (14, -9), (0, 50)])
def test_known_deals_exact_and_proven(seed, best):
    game = Game.dealt(seed)
    sol = solver.solve_par(game, max_nodes=10**7, time_limit=NO_CLOCK)
    assert (sol.lower, sol.upper, sol.proven, sol.score) == (best, best, True, best)
    end = replay(game, sol.moves)
    assert end.over and end.score == best
    assert sol.result == ("win" if end.cards_left == 0 else "lose")


@pytest.mark.parametrize("seed", [34, 14, 3])
def test_a_bigger_budget_never_gives_a_worse_answer(seed):
    game = Game.dealt(seed)
    last = None
    for budget in (1, 30, 300, 3_000, 30_000, 10**7):
        sol = solver.solve_par(game, max_nodes=budget, time_limit=NO_CLOCK)
        assert sol.lower <= sol.upper
        assert replay(game, sol.moves).score == sol.lower
        if last is not None:
            assert sol.lower >= last.lower and sol.upper <= last.upper
        last = sol
    assert last.proven


def test_par_from_a_mid_game_position():
    game = Game.dealt(34)
    for _ in range(4):
        game, _ = rules.play(game, rules.DEAL)
    sol = solver.solve_par(game, max_nodes=10**7, time_limit=NO_CLOCK)
    assert sol.proven and sol.score <= -3
    assert replay(game, sol.moves).score == sol.score


def _brute_can_clear_this_pass(game: Game) -> bool:
    """Can the pyramid be cleared before the next redeal (brute force, engine moves)?"""
    seen = {game}
    todo = [game]
    while todo:
        g = todo.pop()
        if g.pyramid_left == 0:
            return True
        for action in rules.game_actions(g):
            if action is END:
                continue
            after, _ = rules.play(g, action)
            if after.deal == game.deal and after not in seen:
                seen.add(after)
                todo.append(after)
    return False


@settings(max_examples=1000 if SOAK else 150, deadline=None, derandomize=not SOAK,
          suppress_health_check=[HealthCheck.too_slow])
@given(small_boards(), st.lists(st.integers(0, 99), max_size=30))
def test_par_bound_never_below_the_exact_best(game, picks):
    """The Par search's upper bound (the joker relaxation, and the buried-Waste
    relaxation of a clear within the current pass) is admissible: never below the
    brute-force best, from the start or from positions part way through; and a pyramid
    the buried-Waste relaxation calls unclearable in this pass cannot be cleared in it."""
    game = walk(game, picks)
    if game.over or game.pyramid_left == 0:
        return
    par = solver._Par(game, 10**7, NO_CLOCK)
    pos, gen = par.pos, par.gen
    assert par.bound(pos.pm, 0, pos.ptr, pos.ps) >= brute_best_par(game)
    buried = gen.buried(pos.pm, 0, pos.ptr)
    if gen.hopeless(pos.pm, buried):
        assert not _brute_can_clear_this_pass(game)
    if gen.last_pass_dead(pos.pm, 0, pos.ptr, pos.ps):  # goal "pyramid"
        assert brute_best_par(game) < 0
    gen.want_all = True
    if gen.last_pass_dead(pos.pm, 0, pos.ptr, pos.ps):  # goal "all"
        assert brute_best_par(game) < PAR_BASE[DEALS]  # a win in deal 3 scores 20


def _brute_can_reach(game: Game, done) -> bool:
    """Does some line through the engine reach a position where ``done`` holds?"""
    return any(done(g) for g in _reachable(game))


def _forced_move(game: Game):
    """The solver's forced pair (``_Search.forced``) at ``game``, as an engine action."""
    pos = solver._Position(game)
    gen = solver._Search(pos, "par")
    pm, sm, ptr = pos.pm, 0, pos.ptr
    av, avr = gen.avail(pm)
    rem = pos.full_st
    hi = rem >> ptr
    pt = ((hi & -hi).bit_length() - 1) + ptr if hi else -1
    lo = rem & ((1 << ptr) - 1)
    wt = lo.bit_length() - 1 if lo else -1
    forced = gen.forced(pm, sm, av, avr, rem, pt, wt)
    return None if forced is None else solver._to_action(forced[0])


@settings(max_examples=1000 if SOAK else 400, deadline=None, derandomize=not SOAK,
          suppress_health_check=[HealthCheck.too_slow])
@given(small_boards(), st.lists(st.integers(0, 99), max_size=30))
def test_forced_pair_loses_nothing(game, picks):
    """The forced-pair rule (the last live cards of two complementary ranks, both
    available, are taken at once): wherever it fires, the position after the pair has
    the same brute-force best Par, and clears the pyramid / wins exactly when the
    position before could."""
    game = walk(game, picks)
    if game.over:
        return
    action = _forced_move(game)
    if action is None:
        return
    after, _ = rules.play(game, action)
    assert brute_best_par(after) == brute_best_par(game)
    for done in (lambda g: g.pyramid_left == 0, lambda g: g.cards_left == 0):
        assert _brute_can_reach(after, done) == _brute_can_reach(game, done)


@settings(max_examples=1000 if SOAK else 100, deadline=None, derandomize=not SOAK,
          suppress_health_check=[HealthCheck.too_slow])
@given(small_boards(), st.lists(st.integers(0, 99), max_size=30))
def test_win_goals_match_brute_force(game, picks):
    """The "pyramid" and "all" verdicts (with every pruning rule on) agree with a brute
    force over every line, from the start and from positions part way through."""
    game = walk(game, picks)
    for goal, done in (("pyramid", lambda g: g.pyramid_left == 0),
                       ("all", lambda g: g.cards_left == 0)):
        sol = solver.solve(game, goal, max_nodes=10**7, time_limit=NO_CLOCK)
        assert sol.result == ("win" if _brute_can_reach(game, done) else "lose")
        if sol.result == "win":
            end = replay(game, sol.moves)
            assert done(end)


@settings(max_examples=1000 if SOAK else 200, deadline=None, derandomize=not SOAK,
          suppress_health_check=[HealthCheck.too_slow])
@given(small_boards(), st.lists(st.integers(0, 99), max_size=30))
def test_stack_relaxations_are_admissible(game, picks):
    """The stack relaxation (``_Search.waste_stuck``: Waste cards only from the top down)
    never calls a clear within this pass impossible when a line makes one; and in the
    last pass its count (``_Par.left_min``) never leaves more cards than the fewest any
    line leaves (the joker count likewise, in every pass)."""
    game = walk(game, picks)
    if game.over:
        return
    par = solver._Par(game, 10**7, NO_CLOCK)
    pos, gen = par.pos, par.gen
    if game.pyramid_left and gen.waste_stuck(pos.pm, 0, pos.ptr):
        assert not _brute_can_clear_this_pass(game)
    fewest = min(g.cards_left for g in _reachable(game))
    assert par.left_min(pos.pm, 0, pos.ptr, pos.ps) <= fewest
    assert par.left_min(pos.pm, 0) <= fewest


def _brute_most_stock_pairs(game: Game) -> int:
    """The most pairs of two stock cards (Pack top with Waste top) any line makes."""
    memo: dict[Game, int] = {}

    def most(g: Game) -> int:
        hit = memo.get(g)
        if hit is None:
            hit = 0
            for action in rules.game_actions(g):
                if action is END:
                    continue
                after, _ = rules.play(g, action)
                pair = action.kind == "remove" and set(action.spots) == {"P", "W"}
                hit = max(hit, pair + most(after))
            memo[g] = hit
        return hit

    return most(game)


@settings(max_examples=1000 if SOAK else 200, deadline=None, derandomize=not SOAK,
          suppress_health_check=[HealthCheck.too_slow])
@given(small_boards(), st.lists(st.integers(0, 99), max_size=30))
def test_stock_pairs_bound_is_admissible(game, picks):
    """``_Par._stock_pairs_most`` (nested pairs of two stock cards, a card inside a pair
    gone with its own pair or a pyramid card that may come) is never below the most
    such pairs any line makes, from the start or part way through."""
    game = walk(game, picks)
    if game.over:
        return
    par = solver._Par(game, 10**7, NO_CLOCK)
    assert par._stock_pairs_most(par.pos.pm, 0) >= _brute_most_stock_pairs(game)


def _brute_nestings(seq: list[int], free: int, counted: int):
    """Every way the cards of ``seq`` can pair in nesting pairs of complementary ranks
    (a card inside a pair paired too, or with a rank in ``free``): for each, whether
    every card goes, the pairs, and the pairs with ranks in ``counted``."""
    def ways(i: int, j: int, top: bool):
        if i >= j:
            yield True, 0, 0
            return
        r = seq[i]
        if top or (free >> r) & 1:  # seq[i] in no pair
            for every, pairs, hits in ways(i + 1, j, top):
                yield every and bool((free >> r) & 1), pairs, hits
        for k in range(i + 1, j):
            if seq[k] + r == 13:
                one = (counted >> r) & 1
                for every_in, pairs_in, hits_in in ways(i + 1, k, False):
                    for every, pairs, hits in ways(k + 1, j, top):
                        yield every_in and every, pairs_in + pairs + 1, hits_in + hits + one

    return list(ways(0, len(seq), True))


@settings(max_examples=2000 if SOAK else 300, deadline=None, derandomize=not SOAK)
@given(st.lists(st.integers(1, 13), max_size=9), st.integers(0, (1 << 14) - 1),
       st.integers(1, 6), st.integers(0, 4))
def test_stock_nesting_counts_match_brute_force(seq, free, r, need):
    """The nesting dynamic programs against every nesting: the most pairs (cards may
    stay, the Par bound's cap) and "can every card go with at least ``need`` pairs of
    ranks r and 13 - r" (the "all" cut)."""
    free |= 1 << 13
    counted = (1 << r) | (1 << (13 - r))
    ways = _brute_nestings(seq, free, counted)
    assert solver._nested_pairs(seq, free) == max(pairs for _, pairs, _ in ways)
    assert solver._nest_all(seq, free, counted, need) == any(
        every and hits >= need for every, _, hits in ways)


@settings(max_examples=1000 if SOAK else 200, deadline=None, derandomize=not SOAK,
          suppress_health_check=[HealthCheck.too_slow])
@given(small_boards(), st.lists(st.integers(0, 99), max_size=30))
def test_stock_nesting_cut_is_sound(game, picks):
    """``_Search.stock_stuck`` (the stock cards cannot all go in nested pairs and with
    pyramid partners) never rules out all 52 when a line removes them, from the start
    or part way through."""
    game = walk(game, picks)
    if game.over:
        return
    pos = solver._Position(game)
    if solver._Search(pos, "all").stock_stuck(pos.pm, 0):
        assert not _brute_can_reach(game, lambda g: g.cards_left == 0)


@settings(max_examples=1000 if SOAK else 150, deadline=None, derandomize=not SOAK,
          suppress_health_check=[HealthCheck.too_slow])
@given(small_boards(), st.lists(st.integers(0, 99), max_size=30), st.integers(0, DEALS - 1))
def test_clear_by_pass_probes_match_brute_force(game, picks, k):
    """The root probes of ``_Par.probe``: the "pyramid" search cut at pass k finds a
    clear by the end of pass k exactly when one exists, and the "all" search with the
    pyramid due by pass k finds a win with the pyramid cleared by then exactly when one
    exists."""
    game = walk(game, picks)
    if game.over or game.pyramid_left == 0 or k < game.deal - 1:
        return
    pos = solver._Position(game)
    for goal, done in (
            ("pyramid", lambda g: g.pyramid_left == 0 and g.deal <= k + 1),
            ("all", lambda g: g.cards_left == 0 and 0 < g.cleared_in <= k + 1)):
        search = solver._Search(pos, goal)
        search.last_ps, search.clear_ps = (k, k) if goal == "pyramid" else (DEALS - 1, k)
        lead: list = []
        root = (*search.settle(pos.pm, 0, pos.ptr, lead), pos.ps)
        found = solver._dfs(search, root, 10**7, time.perf_counter() + NO_CLOCK)
        assert (found is not None) == _brute_can_reach(game, done)
        if found is not None:
            end = replay(game, solver._to_actions(lead + found))
            assert done(end)
