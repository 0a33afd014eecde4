"""The errors a rules engine raises on purpose: each carries a message a player can read."""


class RuleError(ValueError):
    """A player asked for something the rules do not allow; ``str(err)`` says why."""


class BadNotation(RuleError):
    """The text could not be read as an action (syntax)."""


class IllegalAction(RuleError):
    """The action is well formed but not allowed in this state."""


class AmbiguousAction(RuleError):
    """The text matches more than one action."""
