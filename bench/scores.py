"""What the computer-player benches share: the interval of a match's score."""

from __future__ import annotations


def interval(scores: list[float]) -> tuple[float, float]:
    """A 95 % interval of the mean of ``scores`` (each 0, ½ or 1; normal approximation),
    kept within 0..1."""
    n = len(scores)
    if n < 2:
        return 0.0, 1.0
    mean = sum(scores) / n
    sd = (sum((x - mean) ** 2 for x in scores) / (n - 1)) ** 0.5
    half = 1.96 * sd / n ** 0.5
    return max(0.0, mean - half), min(1.0, mean + half)
