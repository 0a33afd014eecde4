"""The Swiss system of the tournament director (``server/services/tournaments.py``):
a fixed number of rounds, each paired when the last result of the one before is in
(Dutch pairing, byes, first moves balanced: ``server/services/pairing.py``); standings
by points, then Buchholz, then Sonneborn–Berger.

Its state (in the row's JSON): ``rounds``, ``options``, ``entrants`` and ``pairings``: a
list of rounds, each a list of pairings ``{first, second, game, score}`` (``second``
None: a bye; ``score``: the first player's, None while unplayed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from server.hosting import GameKind
from server.services.live import GameError
from server.services.pairing import Entrant, Result, swiss_pairings, swiss_standings

if TYPE_CHECKING:
    from server.services.meeting_models import TournamentRecord

MAX_ROUNDS = 15


class Director(Protocol):
    """The tournament director as a Swiss reads it (``Tournaments`` in
    server/services/tournaments.py, which hands itself to :class:`Swiss`): a round
    opened, and the tournament finished."""

    async def open_round(self, row: "TournamentRecord", state: dict[str, Any],
                         pairs: list[tuple[int, int]], bye: int | None) -> None: ...

    async def finish(self, row: "TournamentRecord", state: dict[str, Any],
                     winner: str) -> None: ...


def results(state: dict[str, Any]) -> list[Result]:
    return [Result(p["first"], p["second"], p["score"])
            for rnd in state["pairings"] for p in rnd if p["score"] is not None]


def history(state: dict[str, Any]) -> tuple[dict[int, list[int]], dict[int, list[int | None]]]:
    """Each entrant's seats (0: the first move) and opponents (None: a bye), in order."""
    seats: dict[int, list[int]] = {e["id"]: [] for e in state["entrants"]}
    opponents: dict[int, list[int | None]] = {e["id"]: [] for e in state["entrants"]}
    for rnd in state["pairings"]:
        for p in rnd:
            opponents[p["first"]].append(p["second"])
            if p["second"] is not None:  # a bye is no first move
                seats[p["first"]].append(0)
                seats[p["second"]].append(1)
                opponents[p["second"]].append(p["first"])
    return seats, opponents


class Swiss:
    name = "swiss"
    late_entry = False

    def __init__(self, director: Director) -> None:
        self.director = director

    def check(self, kind: GameKind, rounds: int) -> None:
        if not 1 <= rounds <= MAX_ROUNDS:
            raise GameError(f"A Swiss tournament has 1 to {MAX_ROUNDS} rounds.")

    def title(self, kind: GameKind, rounds: int, opts: str) -> str:
        return (f"{kind.title} Swiss, {rounds} round{'' if rounds == 1 else 's'}"
                f"{' (' + opts + ')' if opts else ''}")

    def initial_state(self, rounds: int, options: dict[str, Any]) -> dict[str, Any]:
        return {"rounds": rounds, "options": options, "entrants": [], "pairings": []}

    def progress(self, row: "TournamentRecord") -> str:
        return f"round {len(row.state['pairings'])} of {row.state['rounds']}"

    def standings(self, row: "TournamentRecord") -> list[tuple[dict, float, float, float]]:
        """(entrant, points, Buchholz, Sonneborn–Berger), best first."""
        by_id = {e["id"]: e for e in row.state["entrants"]}
        table = swiss_standings(by_id, results(row.state))
        return [(by_id[i], pts, bh, sb) for i, pts, bh, sb in table]

    def start_failed(self, state: dict[str, Any], p: dict[str, Any]) -> None:
        """A paired game could not start: a forfeit, half a point each."""
        p["score"], p["forfeit"] = 0.5, True

    async def begin(self, row: "TournamentRecord", state: dict[str, Any]) -> None:
        await self._pair(row, state)

    async def advance(self, row: "TournamentRecord", state: dict[str, Any]) -> None:
        """After a result: when the round is complete, pair the next, or finish."""
        if not state["pairings"] or any(p["score"] is None for p in state["pairings"][-1]):
            return
        if len(state["pairings"]) >= state["rounds"]:
            await self.director.finish(row, state, self.standings(row)[0][0]["name"])
            return
        await self._pair(row, state)

    async def _pair(self, row: "TournamentRecord", state: dict[str, Any]) -> None:
        points = {e["id"]: p for e, p, _, _ in self.standings(row)}
        seats, opponents = history(state)
        playing = [e for e in state["entrants"] if not e.get("withdrawn")]
        pairs, bye = swiss_pairings([
            Entrant(e["id"], points[e["id"]], e["rating"], tuple(seats[e["id"]]),
                    tuple(opponents[e["id"]])) for e in playing])
        await self.director.open_round(row, state, pairs, bye)
        await self.advance(row, state)  # a round of byes and forfeits only is over at once
