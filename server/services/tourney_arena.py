"""The arena system of the tournament director (``server/services/tournaments.py``),
Lichess's: for a set time, whoever is free (connected, not playing, not paused) is
paired at the director's next look at the clock, near their rank and never with their
last opponent again unless no one else is there to play (``pairing.arena_pairings``); a
win is 2 points, a draw 1, doubled while on fire (after two wins in a row). When the
time is up no one is paired any more; the games still in play count, and the arena ends
with the last of them.

Its state: ``minutes``, ``options``, ``ends_at`` (set when it begins), ``entrants``
(``paused``: WITHDRAW while it runs; JOIN again resumes) and ``pairings``: a list of
pairing waves, each a list of ``{first, second, game, score}`` like Swiss rounds.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Any, Callable, Protocol

from server.config import TournamentsSection
from server.hosting import GameKind
from server.services.live import GameError, LiveGames
from server.services.pairing import Entrant, arena_pairings, arena_points
from server.text import counted

if TYPE_CHECKING:
    from server.services.meeting_models import TournamentRecord

MAX_MINUTES = 24 * 60


class Director(Protocol):
    """The tournament director as an arena reads it (``Tournaments`` in
    server/services/tournaments.py, which hands itself to :class:`Arena`): its
    settings (the minute), who is connected, the games in play, and a row saved, a
    wave of pairings opened, the tournament finished."""

    settings: TournamentsSection
    games: LiveGames
    is_online: Callable[[int], bool]

    async def save(self, row: "TournamentRecord", state: dict[str, Any],
                   status: str) -> None: ...

    async def open_round(self, row: "TournamentRecord", state: dict[str, Any],
                         pairs: list[tuple[int, int]], bye: int | None) -> None: ...

    async def finish(self, row: "TournamentRecord", state: dict[str, Any],
                     winner: str) -> None: ...


def games_of(state: dict[str, Any]) -> dict[int, list[dict[str, Any]]]:
    """Each entrant's pairings, in the order they were made."""
    mine: dict[int, list[dict[str, Any]]] = {e["id"]: [] for e in state["entrants"]}
    for wave in state["pairings"]:
        for p in wave:
            mine[p["first"]].append(p)
            mine[p["second"]].append(p)
    return mine


def score_for(p: dict[str, Any], who: int) -> float:
    return p["score"] if p["first"] == who else 1 - p["score"]


class Arena:
    name = "arena"
    late_entry = True

    def __init__(self, director: Director) -> None:
        self.director = director

    def check(self, kind: GameKind, minutes: int) -> None:
        if not 1 <= minutes <= MAX_MINUTES:
            raise GameError(f"An arena lasts 1 to {MAX_MINUTES} minutes.")

    def title(self, kind: GameKind, minutes: int, opts: str) -> str:
        return (f"{kind.title} Arena, {minutes} minute{'' if minutes == 1 else 's'}"
                f"{' (' + opts + ')' if opts else ''}")

    def initial_state(self, minutes: int, options: dict[str, Any]) -> dict[str, Any]:
        return {"minutes": minutes, "options": options, "entrants": [], "pairings": [],
                "ends_at": None}

    def progress(self, row: "TournamentRecord") -> str:
        ends_at = row.state.get("ends_at")
        if ends_at is None or row.status != "running":
            return counted(row.state["minutes"], "minute")
        left = ends_at - time.time()
        if left <= 0:
            return "time is up; the last games are played out"
        return f"{counted(math.ceil(left / self.director.settings.minute_seconds), 'minute')} left"

    def standings(self, row: "TournamentRecord") -> list[dict[str, Any]]:
        """{entrant, points, games, wins, fire}, best first: by points, then wins."""
        table = []
        for who, mine in games_of(row.state).items():
            done = [score_for(p, who) for p in mine if p["score"] is not None]
            points, fire = arena_points(done)
            table.append({"id": who, "points": points, "games": len(done),
                          "wins": sum(1 for s in done if s == 1), "fire": fire})
        by_id = {e["id"]: e for e in row.state["entrants"]}
        table.sort(key=lambda t: (-t["points"], -t["wins"], t["games"], t["id"]))
        return [{"entrant": by_id[t.pop("id")], **t} for t in table]

    def start_failed(self, state: dict[str, Any], p: dict[str, Any]) -> None:
        """A paired game could not start: it is forgotten, and both are paused (JOIN
        resumes), so they are not paired into the same failure again and again."""
        for wave in state["pairings"]:
            if p in wave:
                wave.remove(p)
        state["entrants"] = [{**e, "paused": True} if e["id"] in (p["first"], p["second"])
                             else e for e in state["entrants"]]

    async def begin(self, row: "TournamentRecord", state: dict[str, Any]) -> None:
        state["ends_at"] = time.time() + state["minutes"] * self.director.settings.minute_seconds
        await self.director.save(row, state, "running")
        await self.advance(row, state)

    async def advance(self, row: "TournamentRecord", state: dict[str, Any]) -> None:
        """On the clock and after a result: pair whoever is free; when time is up and
        the last game is over, finish."""
        mine = games_of(state)
        busy = {i for wave in state["pairings"] for p in wave if p["score"] is None
                for i in (p["first"], p["second"])}
        if time.time() >= state["ends_at"]:
            if not busy:
                await self.director.finish(row, state, self.standings(row)[0]["entrant"]["name"])
            return
        waiting = [e for e in state["entrants"] if not e.get("paused")
                   and e["id"] not in busy and self.director.is_online(e["id"])
                   and self.director.games.game_of(e["id"], row.kind) is None]
        if len(waiting) < 2:
            return
        # two who just met wait for someone else, unless no one else is there to play
        # (withdrawn or gone): an arena of two plays on rather than stand still
        playing = [e for e in state["entrants"]
                   if not e.get("paused") and self.director.is_online(e["id"])]
        ranks = {t["entrant"]["id"]: k for k, t in enumerate(self.standings(row))}
        pairs = arena_pairings([
            Entrant(e["id"], rating=e["rating"],
                    seats=tuple(0 if p["first"] == e["id"] else 1 for p in mine[e["id"]]),
                    opponents=tuple(p["second"] if p["first"] == e["id"] else p["first"]
                                    for p in mine[e["id"]]))
            for e in waiting], ranks, again=len(playing) == 2)
        if pairs:
            await self.director.open_round(row, state, pairs, None)
