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
