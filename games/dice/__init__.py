"""Triad Dice (prefix ``DICE``): the abstract 6x6 dice game of ``docs/rules/dice.md``.

``rules`` holds the engine, ``notation`` the text and JSON forms, ``render`` the board
drawing and GMCP view, ``ai`` the computer player.
"""

from . import notation, rules
from .rules import (Action, Move, Remove, Resign, State, apply, legal_actions, new_game,
                    outcome, to_move)

__all__ = ["rules", "notation", "Action", "Move", "Remove", "Resign", "State", "apply",
           "legal_actions", "new_game", "outcome", "to_move"]
