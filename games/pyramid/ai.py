"""Pyramid's computer player and HINT.

docs/rules/pyramid.md, "Play modes": the computer "knows only what a person would:
the pyramid and the cards turned up, never the order of the face-down Pack".  So:

- ``knowledge(game)`` is what a player with a perfect memory knows: the pyramid, the
  Waste Pile, the Pack's top card and, from deal 2 on, the whole Pack order (the
  Pack is then the Waste Pile of deal 1 turned over: every card of it has been
  turned face up, in that order).  In deal 1 the cards under the Pack top are known
  only as a set (the cards not seen anywhere else), never in order.
- "normal" and "hard" play for Par (docs/rules/pyramid.md, "Par Pyramid"): a clear in
  deal 1 is worth 50, in deal 2 35, in deal 3 20, less the cards left in the Waste; no
  clear is minus every card left.  They differ in their budget (``NODE_SHARE``) and in
  how many orders of the unseen cards they sample in deal 1 (``SAMPLES``).
- From deal 2 on nothing is hidden from a remembering player, so "normal" and "hard"
  play the first move of the solver's best Par line from the position
  (``solver.solve_par``): whenever the solver proves the best within the budget, the
  line reaches it.
- In deal 1, "normal" and "hard" rank the moves by perfect-information Monte Carlo:
  orders of the unseen cards are drawn from the player's own rng (the true order is
  never read), every move is played in each, and the solver's best Par from there is
  that move's value in that sample, so a clear counts for the Par it is worth (an
  early clear over a late one).  The move with the best mean wins.
- "easy" forgets and stays greedy.

Budgets (``budget_s``) are node counts, not time: ``budget_s`` seconds are
``NODES_PER_SECOND`` solver nodes a second (a fixed rate), of which each level uses
its ``NODE_SHARE``, so the same position with the same budget and the same rng
gives the same move on a busy machine or an idle one, compiled or not.  A move's nodes
are all its searches' nodes, the states their relaxations explore included (the
solver charges ``solver.RELAX_PER_NODE`` of them as a node: early in deal 1 they are
most of the work), and ``CALL_NODES`` for each solver call; in deal 1 a sample is begun
only while the budget left pays for one (``_sampled_move``).  So a move's CPU time
follows its budget: about a second at most for the server's 1.0 (it was up to 6 s
when only the searches' own nodes counted).  The thinking thread's CPU time is only a
last guard (``solver.guard_for``): should it stop the thinking first, the move may
depend on the machine, and a warning is logged.

It plays only through ``legal_actions`` / ``apply`` (moves come from ``legal_actions``).
"""

from __future__ import annotations

import logging
import random

import attrs

from games.pyramid import solver
from games.pyramid.rules import (
    END,
    PACK,
    WASTE,
    Action,
    Game,
    State,
    game_actions,
    legal_actions,
    play,
)

LEVELS = ("easy", "normal", "hard")
#: the solver nodes a second of budget buys: about the compiled solver's pace in the
#: player's many small searches (a fixed rate, not a measurement)
NODES_PER_SECOND = 100_000
#: the share of the budget's solver nodes each level thinks with
NODE_SHARE = {"easy": 0.0, "normal": 0.25, "hard": 1.0}
#: orders of the unseen cards sampled in deal 1
SAMPLES = {"easy": 0, "normal": 6, "hard": 16}
#: the fewest nodes one sampled evaluation gets: when the budget cannot give every
#: move that many in every sample, fewer orders are sampled (one at least)
MIN_EVAL_NODES = 300
#: what one solver call costs beyond its nodes, in nodes (setting the position up,
#: replaying the line it finds through the rules: about 1.7 ms compiled, where a node
#: with its relaxations' states, ``solver.RELAX_PER_NODE``, takes some 7 µs): charged to
#: the budget for each evaluation
CALL_NODES = 250

log = logging.getLogger(__name__)


def knowledge(game: Game) -> dict:
    """What a remembering player knows of ``game``: JSON-able, hides the unseen order."""
    pack_known = game.deal > 1
    return {
        "pyramid": list(game.pyramid),
        "waste": list(game.waste),
        "pack_top": game.pack[0] if game.pack else None,
        "pack": list(game.pack) if pack_known else None,
        "unseen": sorted(game.pack[1:]) if not pack_known else [],
        "deal": game.deal,
    }


def _determinize(game: Game, rng: random.Random) -> Game:
    """A game consistent with what the player knows: in deal 1 the unseen cards
    (as a set) are put under the Pack top in an order drawn from ``rng``."""
    if game.deal > 1 or len(game.pack) < 3:
        return game
    rest = sorted(game.pack[1:])  # the set is known; its order is not used
    rng.shuffle(rest)
    return attrs.evolve(game, pack=(game.pack[0],) + tuple(rest))


def _heuristic(game: Game, action: Action) -> float:
    """Greedy preference: Kings, then pairs that dig deepest into the pyramid, then
    pairs with the Pack/Waste, then D; never END."""
    if action is END:
        return -1e9
    if action.kind == "deal":
        return 0.0
    score = 10.0
    gone = {s for s in action.spots if s not in (PACK, WASTE)}
    for spot in gone:
        row, col = (int(x) for x in spot.split(","))
        score += 20.0 + 3.0 * (7 - row)
        for pcol in (col - 1, col):  # the cards this one half-covers
            if 1 <= pcol <= row - 1:
                others = {f"{row},{pcol}", f"{row},{pcol + 1}"} - {spot}
                if all(o in gone or game.card_at(o) is None for o in others):
                    score += 8.0  # it becomes available
    if len(action.spots) == 1:
        score += 50.0  # a King costs nothing
    return score


def _greedy(game: Game) -> Action:
    actions = [a for a in game_actions(game) if a is not END]
    return max(actions, key=lambda a: _heuristic(game, a))


@attrs.define
class _Clock:
    """The CPU-time guard of one move (``solver.cpu_time``): never the budget, only a
    last resort."""

    deadline: float
    fired: bool = False

    def left(self) -> float:
        return max(0.0, self.deadline - solver.cpu_time())

    def passed(self) -> bool:
        if not self.fired and solver.cpu_time() > self.deadline:
            self.fired = True
        return self.fired

    def note(self, sol: solver.Solution) -> solver.Solution:
        self.fired = self.fired or sol.timed_out
        return sol


def thinking_nodes(level: str, budget_s: float) -> int:
    """The solver nodes ``level`` may spend on one move with a budget of ``budget_s``."""
    return int(budget_s * NODES_PER_SECOND * NODE_SHARE[level])


def _probe_nodes(nodes: int) -> int:
    """The root probes' budget in a Par search of ``nodes`` (they run when it is at
    least six times theirs): the solver's own, or a sixth of a smaller budget."""
    return max(1, min(solver.PROBE_NODES, nodes // 6))


def par_line(game: Game, nodes: int, clock: _Clock | None = None,
             shared: dict | None = None) -> solver.Solution:
    """The solver's best Par line from ``game`` (every card known) on ``nodes`` nodes,
    its relaxations' work included (``solver.RELAX_PER_NODE``); ``shared``: the tables
    of the pyramid alone, kept from one search to the next (``solver.solve_par``)."""
    left = clock.left() if clock is not None else solver.GUARD_SECONDS
    sol = solver.solve_par(game, max_nodes=nodes, time_limit=left,
                           probe_nodes=_probe_nodes(nodes),
                           relax_per_node=solver.RELAX_PER_NODE, shared=shared)
    return clock.note(sol) if clock is not None else sol


def _par_move(game: Game, nodes: int, clock: _Clock) -> Action | None:
    """With nothing hidden: the first move of the solver's best Par line."""
    sol = par_line(game, nodes, clock)
    return sol.moves[0] if sol.moves else None


def _value(game: Game, nodes: int, clock: _Clock, shared: dict) -> tuple[float, int]:
    """The best Par the solver finds from ``game`` (all cards known) on ``nodes``, and
    what that cost: the nodes the solver spent and ``CALL_NODES``."""
    if game.over:
        return float(game.score), 0
    sol = par_line(game, nodes, clock, shared)
    return float(sol.lower), sol.nodes + CALL_NODES


def _eval_budget(nodes: int, samples: int, moves: int) -> tuple[int, int]:
    """(samples, nodes an evaluation) for ``moves`` moves on a budget of ``nodes``: each
    evaluation (one move in one sample) costs its nodes and ``CALL_NODES``, so that they
    all fit in ``nodes``; when they cannot all have ``MIN_EVAL_NODES``, fewer samples
    (one at least: then the move spends ``moves`` evaluations at the floor)."""
    samples = max(1, min(samples, nodes // (moves * (MIN_EVAL_NODES + CALL_NODES))))
    return samples, max(MIN_EVAL_NODES, nodes // (samples * moves) - CALL_NODES)


def _sampled_move(game: Game, rng: random.Random, nodes: int, samples: int,
                  clock: _Clock) -> Action:
    """Deal 1: rank the moves by their mean Par over sampled orders of the unseen
    cards (the same orders for every move), each valued by the solver.

    The budget is ``nodes`` in all: an evaluation may cost more than its share (the
    solver checks its budget between nodes, and the first nodes of a deal 1 position
    can take many relaxation states), so a sample is begun only if the budget left
    would pay for the dearest sample so far (the first always is)."""
    actions = [a for a in game_actions(game) if a is not END]
    if len(actions) == 1:
        return actions[0]
    samples, per = _eval_budget(nodes, samples, len(actions))
    totals = {a: 0.0 for a in actions}
    spent = dearest = 0
    shared: dict = {}  # the solver's tables of each pyramid, for this move's searches
    for done in range(samples):
        if clock.passed() or (done and spent + dearest > nodes):
            break
        sample = _determinize(game, rng)
        before = spent
        for a in actions:
            after, _ = play(sample, a)
            value, cost = _value(after, per, clock, shared)
            totals[a] += value
            spent += cost
        dearest = max(dearest, spent - before)
    return max(actions, key=lambda a: (totals[a], _heuristic(game, a)))


def choose_action(state: State, seat: int, level: str = "normal",
                  rng: random.Random | None = None, budget_s: float = 1.0) -> Action:
    """The computer's move for seat 0 of ``state`` (see the module docstring)."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}")
    rng = rng or random.Random()
    legal = list(legal_actions(state, seat))
    if not legal:
        raise ValueError("no move: the match is over")
    game = state.game
    kings = [a for a in legal if a.kind == "remove" and len(a.spots) == 1]
    if kings:
        return kings[0]
    move = None
    nodes = thinking_nodes(level, budget_s)
    if level != "easy":
        clock = _Clock(solver.cpu_time() + solver.guard_for(budget_s))
        if game.deal > 1:
            move = _par_move(game, nodes, clock)
        else:
            move = _sampled_move(game, rng, nodes, SAMPLES[level], clock)
        if clock.fired:
            log.warning("Pyramid %s: the CPU-time guard (%.1f s) stopped the thinking "
                        "before its node budget: this move may depend on the load",
                        level, solver.guard_for(budget_s))
    if move is None or move not in legal:
        move = _greedy(game)
    return move


def hint(state: State, seat: int = 0, budget_s: float = 0.5) -> Action | None:
    """HINT: the best move the engine finds from what the player can see (the
    "hard" player's choice), or None when no move but END is left."""
    if not any(a is not END for a in legal_actions(state, seat)):
        return None
    return choose_action(state, seat, "hard", random.Random(0), budget_s)


def play_out(state: State, level: str = "normal", rng: random.Random | None = None,
             budget_s: float = 1.0) -> State:
    """AUTO: let the computer finish the current game."""
    from games.pyramid.rules import apply

    rng = rng or random.Random()
    game_no = state.game_no
    while not state.over and state.game_no == game_no and not state.game.over:
        state, _ = apply(state, 0, choose_action(state, 0, level, rng, budget_s), rng)
    return state
