"""The errors a rules engine raises on purpose: each carries a message a player can read."""


class RuleError(ValueError):
    """A player asked for something the rules do not allow; ``str(err)`` says why."""


class BadNotation(RuleError):
    """The text could not be read as an action (syntax)."""


class IllegalAction(RuleError):
    """The action is well formed but not allowed in this state."""


class BadOption(BadNotation):
    """A word after ``<PREFIX> CHALLENGE <person>`` is not one of the game's options. The
    command that read the options shows its usage line with the message."""


def quoted(typed: str, most: int = 10) -> str:
    """What a player typed, quoted in a message: ``'7;1'``; a longer word is cut to ``most``
    characters with "…" (``'xxxxxxxxx…'``), so that a refusal that quotes a line's worth
    of typing is still one line."""
    return repr(typed if len(typed) <= most else typed[:most - 1] + "\u2026")
