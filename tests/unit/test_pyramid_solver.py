"""Pyramid solver, computer player and renderer: move lists replay through the engine."""

import logging
import os
import random
from pathlib import Path

import pytest

from games.pyramid import ai, notation, render, rules, solver, solver_build
from games.pyramid.rules import END, Game


def replay(game: Game, moves) -> Game:
    for action in moves:
        game, _ = rules.play(game, action)
    return game


@pytest.mark.parametrize("seed", range(12))
def test_pyramid_goal_lines_replay(seed):
    game = Game.dealt(seed)
    sol = solver.solve(game, "pyramid", time_limit=5)
    assert sol.result in ("win", "lose", "unknown")
    if sol.result == "win":
        assert replay(game, sol.moves).pyramid_left == 0


@pytest.mark.parametrize("seed", range(6))
def test_all_goal_lines_replay(seed):
    game = Game.dealt(seed)
    sol = solver.solve(game, "all", time_limit=5)
    if sol.result == "win":
        end = replay(game, sol.moves)
        assert end.cards_left == 0 and end.how == "won"


def test_all_implies_pyramid():
    for seed in range(6):
        game = Game.dealt(seed)
        if solver.solve(game, "all", time_limit=5).result == "win":
            assert solver.solve(game, "pyramid", time_limit=5).result == "win"


@pytest.mark.parametrize("seed", [2, 3, 8, 18])
def test_par_line_reaches_its_score(seed):
    game = Game.dealt(seed)
    sol = solver.solve(game, "par", time_limit=3)
    end = replay(game, sol.moves)
    assert end.over and end.score == sol.score
    pyr = solver.solve(game, "pyramid", time_limit=5)
    if pyr.result == "lose":
        assert sol.score < 0
    if sol.proven and pyr.result == "win":
        assert sol.score >= -4


def test_solver_from_mid_game_position():
    game = Game.dealt(7)
    for _ in range(5):
        game, _ = rules.play(game, rules.DEAL)
    sol = solver.solve(game, "pyramid", time_limit=5)
    if sol.result == "win":
        assert replay(game, sol.moves).pyramid_left == 0


def test_budget_gives_unknown():
    sol = solver.solve(Game.dealt(4), "pyramid", max_nodes=1)
    assert sol.result in ("unknown", "lose")


def test_known_loser_is_lose():
    # a pyramid whose 1,1 card's partners all lie under it cannot be cleared
    deck = list(range(52))
    six = 5  # 6C
    sevens = [6, 19, 32, 45]
    rest = [c for c in deck if c not in sevens + [six]]
    order = [six] + sevens + rest[:23]
    game = Game(pyramid=tuple(order[:28]), pack=tuple(rest[23:]))
    assert sorted(game.pyramid + game.pack) == deck
    assert solver.solve(game, "pyramid").result == "lose"


@pytest.mark.parametrize("level", ai.LEVELS)
def test_ai_plays_a_whole_game_legally(level):
    state = rules.new_game({"seeds": [11]}, random.Random(0))
    rng = random.Random(1)
    steps = 0
    while not state.over:
        action = ai.choose_action(state, 0, level, rng, budget_s=0.05)
        assert action in set(rules.legal_actions(state, 0)) and action is not END
        state, _ = rules.apply(state, 0, action, rng)
        steps += 1
        assert steps < 500
    assert state.game.score is not None


def test_ai_does_not_read_the_hidden_pack_order():
    # two deals differing only in the order of the unseen Pack cards (under the top)
    game = Game.dealt(21)
    other = Game(pyramid=game.pyramid, pack=(game.pack[0],) + tuple(reversed(game.pack[1:])))
    a = ai.choose_action(rules.State("standard", (0,), (game,)), 0, "hard", random.Random(3), 0.2)
    b = ai.choose_action(rules.State("standard", (0,), (other,)), 0, "hard", random.Random(3), 0.2)
    assert a == b
    assert ai.knowledge(game)["pack"] is None
    assert ai.knowledge(game)["unseen"] == ai.knowledge(other)["unseen"]


@pytest.mark.parametrize("seed", [3, 9, 41])
def test_hard_plays_the_best_par_line_from_deal_2(seed):
    """From deal 2 on the whole Pack has been seen: HARD plays the solver's best Par line
    and ends on the best it proves from there."""
    game = Game.dealt(seed)
    while game.deal == 1:  # through the Pack once, taking nothing
        game, _ = rules.play(game, rules.DEAL)
    budget = 1.0  # the server's: its nodes count the relaxations' work (solver.RELAX_PER_NODE)
    best = ai.par_line(game, ai.thinking_nodes("hard", budget))
    assert best.proven
    state = rules.State("standard", (seed,), (game,))
    rng = random.Random(0)
    while not state.over:
        state, _ = rules.apply(state, 0, ai.choose_action(state, 0, "hard", rng, budget), rng)
    assert state.game.score == best.lower


def test_hard_values_a_clear_by_its_par():
    """Seed 26 can be cleared in deal 1 (Par 50): HARD, not seeing the Pack, clears it
    there (the player that only asked whether the pyramid could be cleared at all ended
    it in deal 3, on 20)."""
    state = rules.new_game({"seeds": [26]}, random.Random(0))
    rng = random.Random(26)
    while not state.over:
        state, _ = rules.apply(state, 0, ai.choose_action(state, 0, "hard", rng, 0.3), rng)
    assert state.game.cleared_in == 1 and state.game.score == 50


def _spent_by_a_move(monkeypatch, state, budget_s: float) -> tuple[int, int]:
    """HARD's nodes for one move, as it charges them: every solver call's nodes and
    ``ai.CALL_NODES``; and the calls."""
    calls = []
    solve_par = solver.solve_par

    def counted(*args, **kwargs):
        sol = solve_par(*args, **kwargs)
        calls.append(sol.nodes)
        return sol

    monkeypatch.setattr(solver, "solve_par", counted)
    ai.choose_action(state, 0, "hard", random.Random(0), budget_s)
    monkeypatch.undo()
    return sum(calls) + ai.CALL_NODES * len(calls), len(calls)


@pytest.mark.parametrize("budget_s", [0.05, 0.2, 1.0])
def test_a_deal_1_move_with_many_choices_keeps_to_its_budget(monkeypatch, budget_s):
    """Seed 39 opens with six moves and no King: 16 samples of six moves at the
    floor of 300 nodes each came to 28,800 nodes on a budget of 5,000 (or 20,000), and
    every evaluation also costs its call.  The move now spends its budget, one sample
    at the floor when that is more, and a search may end a little past its own budget
    (the solver checks it between nodes): 5 % at most here."""
    state = rules.new_game({"seeds": [39]}, random.Random(0))
    moves = len([a for a in rules.game_actions(state.game) if a is not END])
    assert moves == 6
    spent, calls = _spent_by_a_move(monkeypatch, state, budget_s)
    assert calls >= moves
    floor = moves * (ai.MIN_EVAL_NODES + ai.CALL_NODES)
    assert spent <= max(ai.thinking_nodes("hard", budget_s), floor) * 1.05


def _plain_solver():
    """The solver's source as a plain Python module (whether or not it is compiled)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "_plain_pyramid_solver", Path(solver.__file__).with_name("solver.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert not module.COMPILED
    return module


def test_a_deal_1_move_counts_its_relaxations_work(monkeypatch):
    """The work of a move, measured from outside the solver's own count: the nodes it
    expands (move generation), the states its two main relaxations explore (the
    entries of their tables in every position searched: ``solver.RELAX_PER_NODE`` of
    them cost about a node) and ``ai.CALL_NODES`` a call.  In deal 1 the relaxations
    did some 30 states a node, uncounted, so a move on the server's budget took up to
    6 s instead of about 1 s; now they are part of the budget."""
    plain = _plain_solver()
    nodes, calls, positions = [0], [0], []
    children, position = plain._Search.children, plain._Position.__init__
    solve_par = plain.solve_par

    def count_node(self, *args):
        nodes[0] += 1
        return children(self, *args)

    def keep_position(self, game):
        position(self, game)
        positions.append(self)

    def count_call(*args, **kwargs):
        calls[0] += 1
        return solve_par(*args, **kwargs)

    monkeypatch.setattr(plain._Search, "children", count_node)
    monkeypatch.setattr(plain._Position, "__init__", keep_position)
    monkeypatch.setattr(plain, "solve_par", count_call)
    monkeypatch.setattr(ai, "solver", plain)
    budget_s = 0.2
    ai.choose_action(rules.new_game({"seeds": [39]}, random.Random(0)), 0, "hard",
                     random.Random(0), budget_s)
    tables = {id(t): len(t) for pos in positions for t in (pos.memo["relax"], pos.memo["stack"])}
    states = sum(tables.values())
    assert nodes[0] and states and calls[0]
    work = nodes[0] + states // plain.RELAX_PER_NODE + calls[0] * ai.CALL_NODES
    assert work <= ai.thinking_nodes("hard", budget_s)


def test_hint_and_auto():
    state = rules.new_game({"seeds": [5]}, random.Random(0))
    move = ai.hint(state, budget_s=0.1)
    assert move in set(rules.legal_actions(state, 0))
    done = ai.play_out(state, "easy", random.Random(0), budget_s=0.05)
    assert done.game.over


def test_render_fits_and_reads_without_color():
    state = rules.new_game({"mode": "tournament"}, random.Random(4))
    state, _ = rules.apply(state, 0, rules.DEAL)
    view = render.view_for(state, 0)
    assert "pack" not in view and "seeds" not in view  # the Pack order stays hidden
    import json
    json.dumps(view)
    for width in (60, 80):
        for color in (True, False):
            text = render.render(view, width=width, color=color)
            plain = render.render(view, width=width, color=False)
            for line in text.split("\n"):
                assert render._visible_len(line) <= width
            if not color:
                assert "\x1b" not in text
    assert " 7  [" in plain and "Pack (P)" in plain and "redeals left: 2" in plain
    assert "running total" in plain


def test_notation_of_solver_moves_round_trips():
    sol = solver.solve(Game.dealt(0), "pyramid")
    for action in sol.moves:
        assert notation.parse_action(notation.format_action(action)) == action


def test_benchmarks_run(capsys, monkeypatch):
    import runpy
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    for script, extra in (("bench/pyramid_solver.py", ["--par-limit", "0.2"]),
                          ("bench/pyramid_ai.py", ["--level", "normal", "--budget", "0.02",
                                                   "--best-nodes", "20000"])):
        monkeypatch.setattr(sys, "argv", [script, "--deals", "2", *extra])
        runpy.run_path(str(root / script), run_name="__main__")
    out = capsys.readouterr().out
    assert "goal pyramid" in out and "mean Par" in out
    assert "gap to the best from the start of deal 2" in out


def test_solver_is_compiled_and_current():
    """Where there is a C compiler, installing builds the solver with mypyc (setup.py),
    and records a hash of every module the build was made from. The build is not redone
    when they change: an edit is not seen until `pip install -e .` runs again, so a build
    whose sources changed since fails here."""
    import shutil
    import sysconfig
    st = solver_build.status()
    if not solver.COMPILED:
        cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
        headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
        why = f" ({st.reason})" if st.reason else ""
        assert not (shutil.which(cc) and headers.exists()), (
            f"a C compiler ({cc}) and Python's headers are here but the solver runs as "
            f"plain Python{why}: `pip install -e .` did not build it "
            "(`pip install -v -e .` says why)")
        pytest.skip("no C compiler or no Python headers: the solver runs as plain Python")
    assert st.record is not None and st.record["compiled"], (
        "the compiled solver has no record of its build: run `.venv/bin/pip install -e .` "
        "again")
    assert not st.changed, (f"{', '.join(st.changed)} changed after the solver was built: "
                            "run `.venv/bin/pip install -e .` again")
    assert st.current
    assert solver_build.describe(st)[1].endswith("the compiled build (mypyc)")


def _project_copy(tmp_path):
    """The modules the solver build is made from, copied under ``tmp_path``."""
    root = Path(solver_build.ROOT)
    for name in solver_build.build_sources(root):
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((root / name).read_bytes())
    return tmp_path


def test_the_build_is_made_from_the_solver_and_what_it_imports():
    names = solver_build.build_sources()
    assert {"games/pyramid/solver.py", "games/pyramid/cards.py", "games/pyramid/rules.py",
            "games/errors.py", "games/outcome.py", "games/__init__.py",
            "games/pyramid/__init__.py"} <= set(names)
    assert "games/pyramid/solver_build.py" not in names  # the solver does not import it
    assert not any(name.startswith(("server/", "commands/")) for name in names)


def test_a_changed_module_of_the_build_makes_it_stale(tmp_path):
    root = _project_copy(tmp_path)
    record = solver_build.make_record(True, "", root)
    here = root / "games" / "pyramid"
    solver_build.write_record(here, record)
    assert solver_build.status(True, here, root).current
    assert solver_build.describe(solver_build.status(True, here, root))[0] == logging.INFO
    # an edit to a module the solver only imports (mypyc reads its types, inlines its
    # constants) makes the build stale as surely as one to the solver itself
    rules_py = here / "rules.py"
    rules_py.write_text(rules_py.read_text() + "\n# edited\n")
    st = solver_build.status(True, here, root)
    assert st.changed == ("games/pyramid/rules.py",) and not st.current
    level, line = solver_build.describe(st)
    assert level == logging.WARNING and "older than its sources" in line
    assert "games/pyramid/rules.py changed" in line
    # a file's time alone changes nothing
    rules_py.write_bytes((Path(solver_build.ROOT) / "games/pyramid/rules.py").read_bytes())
    os.utime(rules_py, (0, 0))
    assert solver_build.status(True, here, root).current


def test_a_failed_build_is_told_with_its_reason(tmp_path):
    root = _project_copy(tmp_path)
    here = root / "games" / "pyramid"
    solver_build.write_record(here, solver_build.make_record(
        False, "the C compiler cc exited with status 1", root))
    level, line = solver_build.describe(solver_build.status(False, here, root))
    assert level == logging.WARNING
    assert line == ("the Pyramid solver runs as plain Python: the compiled build failed "
                    "(the C compiler cc exited with status 1)")
    (here / solver_build.RECORD).unlink()  # never built (run from a checkout)
    level, line = solver_build.describe(solver_build.status(False, here, root))
    assert line.startswith("the Pyramid solver runs as plain Python (it was not built")
