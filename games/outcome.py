"""How a game ended, as a value (python-chess's ``Outcome``)."""

from __future__ import annotations

import attrs


@attrs.frozen
class Outcome:
    """``winner`` is a seat number, or None for a draw or a game with no single winner.

    ``reason`` is a short phrase for players ("three dice removed", "resignation").
    ``scores`` holds per-seat figures where the game has them (niches, Par score).
    """

    winner: int | None
    reason: str
    scores: tuple[int, ...] = ()

    def to_json(self) -> dict:
        return {"winner": self.winner, "reason": self.reason, "scores": list(self.scores)}

    @classmethod
    def from_json(cls, data: dict) -> "Outcome":
        return cls(data["winner"], data["reason"], tuple(data.get("scores", ())))
