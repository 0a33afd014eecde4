"""Triptycha: triangular tile battles on a board of 9 niches (``TT`` commands).

``rules`` is the engine, ``notation`` reads and prints actions and rules, ``render``
draws a view, ``ai`` plays.  See docs/rules/triptycha.md.
"""

from .rules import (Action, Done, Draw, Flip, Lay, Options, Resign, Rotate, Rules, State,
                    Take, apply, close_trading, legal_actions, may_view_opponent, new_game,
                    outcome, result, to_move, transfers)
from .tiles import Held, Tile

PREFIX = "TT"
NAME = "Triptycha"

__all__ = ["Action", "Done", "Draw", "Flip", "Held", "Lay", "Options", "Resign", "Rotate",
           "Rules", "State", "Take", "Tile", "apply", "close_trading", "legal_actions",
           "may_view_opponent", "new_game", "outcome", "result", "to_move", "transfers",
           "PREFIX", "NAME"]
