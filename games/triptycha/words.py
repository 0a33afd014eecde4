"""Triptycha in words: a game's options (the rules words, ``TT CHALLENGE <person> Random
Take 2``, kept as a flat dict so that ``ranked`` sits where the parlor looks for it) and
one line for each thing that happens, with the players' names."""

from __future__ import annotations

from typing import Any

import attrs

from . import notation
from .rules import Rules


def rules_of(options: dict[str, Any]) -> Rules:
    """The Rules of a game's options (keys missing, e.g. ``ranked`` against the computer,
    take their defaults)."""
    known = {f.name for f in attrs.fields(Rules)}
    return Rules(**{k: v for k, v in options.items() if k in known})


def parse_options(words: list[str]) -> dict[str, Any]:
    return notation.rules_to_json(notation.parse_rules(words))


def describe_options(options: dict[str, Any]) -> str:
    return notation.format_rules(rules_of(options))


def describe_event(event: Any, names: tuple[str, ...] = ()) -> str | None:
    """The event's sentence, with the players' ``names`` (in seat order)."""
    text = getattr(event, "text", None)
    return text(names or None) if callable(text) else None
