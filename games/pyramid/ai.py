"""Pyramid's computer player and HINT.

docs/rules/pyramid.md, "Play modes": the computer "knows only what a person would:
the pyramid and the cards turned up, never the order of the face-down Pack".  So:

- ``knowledge(game)`` is what a player with a perfect memory knows: the pyramid, the
  Waste Pile, the Pack's top card and, from deal 2 on, the whole Pack order (the
  Pack is then the Waste Pile of deal 1 turned over: every card of it has been
  turned face up, in that order).  In deal 1 the cards under the Pack top are known
  only as a set (the cards not seen anywhere else), never in order.
- In deal 1 the player ranks moves by a heuristic ("easy") or, at "normal" (4
  samples) and "hard" (16), by sampling orders of the unseen cards from its own rng and asking the solver how
  often each move still clears the pyramid (perfect-information Monte Carlo: the
  true order is never read).
- From deal 2 on nothing is hidden from a remembering player, so "normal" and
  "hard" follow the solver's line; "easy" forgets and stays greedy.

It plays only through ``legal_actions`` / ``apply`` (moves come from
``legal_actions``) and keeps to its time budget.
"""

from __future__ import annotations

import random
import time

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


def _solver_move(game: Game, budget_s: float) -> Action | None:
    """With nothing hidden: the first move of a solver line (Par if it finishes in
    time, else a pyramid-clearing line), or None."""
    sol = solver.solve(game, "pyramid", max_nodes=200_000, time_limit=budget_s * 0.5)
    if sol.result == "win" and sol.moves:
        return sol.moves[0]
    if game.pyramid_left == 0:
        par = solver.solve(game, "par", max_nodes=200_000, time_limit=budget_s * 0.5)
        if par.moves:
            return par.moves[0]
    return None


def _sampled_move(game: Game, rng: random.Random, budget_s: float, max_rounds: int = 16) -> Action:
    """Deal 1 at "hard": rank candidate moves by how often the pyramid can still be
    cleared over sampled orders of the unseen cards."""
    deadline = time.perf_counter() + budget_s * 0.9
    actions = [a for a in game_actions(game) if a is not END]
    if len(actions) == 1:
        return actions[0]
    wins = {a: 0.0 for a in actions}
    rounds = 0
    while time.perf_counter() < deadline and rounds < max_rounds:
        sample = _determinize(game, rng)
        for a in actions:
            after, _ = play(sample, a)
            left = deadline - time.perf_counter()
            if left <= 0:
                break
            sol = solver.solve(after, "pyramid", max_nodes=3_000, time_limit=min(left, 0.05))
            wins[a] += {"win": 1.0, "lose": 0.0}.get(sol.result, 0.5)
        rounds += 1
    return max(actions, key=lambda a: (wins[a], _heuristic(game, a)))


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
    if level != "easy" and game.deal > 1:
        move = _solver_move(game, budget_s)
    elif level != "easy":
        move = _sampled_move(game, rng, budget_s, 16 if level == "hard" else 4)
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
