"""SET FORMULA: a player's own rule for the opponents they will meet (FICS's formula).

A formula is an expression over the would-be opponent and the game: ``rating`` and
``rd`` (the opponent's in that game), ``ranked`` (true or false), ``game`` (the game's
key: "dice", "triptycha"…) and ``options`` (the game's options as words, lower
case: ``"take 1" in options``). It has numbers, strings, comparisons, ``+ - * /``,
``and``/``or``/``not`` (also ``&& || !``) and parentheses, and nothing else: it is parsed
once into a tree of those nodes only, never run as Python.

>>> f = Formula.parse("rating >= 1400 && rd < 200 || !ranked")
>>> f.fails({"rating": 1500, "rd": 50, "ranked": True, "game": "dice", "options": "ranked"})
>>> f.fails({"rating": 1300, "rd": 50, "ranked": True, "game": "dice", "options": "ranked"})
'rating 1300, rd 50, ranked'
"""

from __future__ import annotations

import ast
import operator
import re
from typing import Any

import attrs

MAX_LENGTH = 200
NAMES = ("rating", "rd", "ranked", "game", "options")
CONSTANTS = {"true": True, "false": False}

_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt,
            ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
            ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}
_ARITH = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
          ast.Div: lambda a, b: a / b if b else 0.0}


class FormulaError(ValueError):
    """A formula that cannot be read; the message says why, for the player."""


def _normalise(text: str) -> str:
    """FICS spellings to Python's: ``&&``, ``||``, ``!`` (not ``!=``), a single ``=``."""
    text = text.replace("&&", " and ").replace("||", " or ")
    text = re.sub(r"!(?!=)", " not ", text)
    text = re.sub(r"(?<![<>=!])=(?!=)", "==", text)
    return re.sub(r"\b(AND|OR|NOT|TRUE|FALSE|IN)\b", lambda m: m.group(1).lower(), text)


def _check(node: ast.AST) -> None:
    """Refuse every node but the few a formula may have."""
    if isinstance(node, ast.Expression):
        _check(node.body)
    elif isinstance(node, ast.BoolOp):
        for value in node.values:
            _check(value)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
        _check(node.operand)
    elif isinstance(node, ast.BinOp) and type(node.op) in _ARITH:
        _check(node.left)
        _check(node.right)
    elif isinstance(node, ast.Compare) and all(type(op) in _COMPARE for op in node.ops):
        _check(node.left)
        for value in node.comparators:
            _check(value)
    elif isinstance(node, ast.Name):
        if node.id not in NAMES and node.id not in CONSTANTS:
            raise FormulaError(f"A formula knows {', '.join(NAMES)}; not {node.id!r}.")
    elif isinstance(node, ast.Constant):
        if not isinstance(node.value, (int, float, str)) or isinstance(node.value, bool):
            raise FormulaError("A formula's values are numbers and quoted words.")
    else:
        raise FormulaError("A formula has comparisons (<, <=, =, !=, >=, >, in), "
                           "+ - * /, and, or, not and parentheses; nothing else.")


def _eval(node: ast.AST, env: dict[str, Any]) -> Any:
    if isinstance(node, ast.BoolOp):
        values = (_eval(v, env) for v in node.values)
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.UnaryOp):
        value = _eval(node.operand, env)
        return (not value) if isinstance(node.op, ast.Not) else -_number(value)
    if isinstance(node, ast.BinOp):
        return _ARITH[type(node.op)](_number(_eval(node.left, env)),
                                     _number(_eval(node.right, env)))
    if isinstance(node, ast.Compare):
        left = _eval(node.left, env)
        for op, right_node in zip(node.ops, node.comparators):
            right = _eval(right_node, env)
            try:
                if not _COMPARE[type(op)](left, right):
                    return False
            except TypeError:  # "dice" < 3: false, not an error at play time
                return False
            left = right
        return True
    if isinstance(node, ast.Name):
        return CONSTANTS[node.id] if node.id in CONSTANTS else env.get(node.id)
    return node.value  # a Constant (checked)


def _number(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) else 0.0


@attrs.frozen
class Formula:
    """A parsed formula; ``text`` is as the player typed it."""

    text: str
    tree: ast.Expression = attrs.field(eq=False, repr=False)

    @classmethod
    def parse(cls, text: str) -> "Formula":
        """:raises FormulaError: the text is no formula."""
        text = " ".join(text.split())
        if not text:
            raise FormulaError("An empty formula; SET FORMULA OFF removes yours.")
        if len(text) > MAX_LENGTH:
            raise FormulaError(f"A formula is at most {MAX_LENGTH} characters.")
        try:
            tree = ast.parse(_normalise(text), mode="eval")
        except (SyntaxError, ValueError):
            raise FormulaError(f"{text!r} is not a formula (e.g. rating > 1400 && !ranked)."
                               ) from None
        _check(tree)
        return cls(text, tree)

    def passes(self, env: dict[str, Any]) -> bool:
        return bool(_eval(self.tree.body, env))

    def fails(self, env: dict[str, Any]) -> str | None:
        """None when ``env`` passes; else the facts it failed on, as words."""
        if self.passes(env):
            return None
        return describe(env)


def describe(env: dict[str, Any]) -> str:
    """The facts a formula saw: "rating 1300, rd 50, ranked"."""
    return (f"rating {round(env.get('rating') or 0)}, rd {round(env.get('rd') or 0)}, "
            f"{'ranked' if env.get('ranked') else 'unranked'}")


def facts(rating: float, rd: float, ranked: bool, game: str, options: str) -> dict[str, Any]:
    """What a formula is asked about one opponent in one game."""
    return {"rating": round(rating), "rd": round(rd), "ranked": bool(ranked),
            "game": game, "options": options.lower()}
