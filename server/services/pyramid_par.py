"""Pyramid's Par tournament (``TOURNEY CREATE PYR PAR <deals>``): every entrant plays the
same set of deals, drawn when the tournament is made, alone; they are ranked by their
total Par (docs/rules/pyramid.md, "Par Pyramid scoring").

Each entrant's deals are one ordinary Pyramid game (a tournament of ``deals`` games, one
seat, stored and recorded as any Pyramid game is), *sealed*: ``games.pyramid.match``
decides that nobody but its player sees a sealed table or hears of its moves, and every
door (OBSERVE, REPLAY, EXAMINE, the web pages, their JSON and live streams) asks the kind
(``PlaySpec.withheld``) before it shows a game. When the last entrant's game is over the
tournament is finished: every entrant's stored game is unsealed in one transaction, and
only then does the solver work out the best Par of each deal (``solver.solve_for``, in
Pyramid's worker process: ``server/services/pyramid_worker.py``), shown beside each
entrant's score.

Decisions:

* The deals (their seeds) are drawn at creation from the system's randomness and kept in
  the tournament's state under ``sealed``, which nothing shows before the end.
* The entrants connected when it starts get their game at once; one not connected (or
  already playing Pyramid) forfeits (a no-show: ranked last, with no score).
* A deal not finished counts minus the cards left, a deal never dealt minus 52
  (``match.deal_scores``): EXIT gives up the rest. SAVE and NEW are refused.
* Before the end the standings show who has played how many deals, never a score (a
  score tells something of a deal); totals, places and per-deal scores come at the end.
* An entrant who drops mid-game finds the game waiting on reconnect (a solitaire has no
  CLAIM); the tournament waits for every game to end.
"""

from __future__ import annotations

import logging
import secrets
import time
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from games.pyramid import match, rules
from server.hosting import GameKind, Seat
from server.models import GameRecord
from server.services.live import GameError, LiveGame
from server.services.pyramid_worker import SOLUTION_LIMIT, solve
from server.text import counted

if TYPE_CHECKING:
    from server.services.meeting_models import TournamentRecord
    from server.services.tournaments import Tournaments

log = logging.getLogger(__name__)

MAX_DEALS = 12


class ParTournament:
    """The ``par`` system of Pyramid's tournaments (its kind's ``tournament_systems``)."""

    name = "par"
    number = "number of deals"
    columns = (("#", "place"), ("Player", "name"), ("Deals", "played"),
               ("Par", "total"), ("Scores", "scores"))

    def __init__(self, kind: GameKind) -> None:
        self.kind = kind
        self.by_game: dict[int, int] = {}  # an entrant's game in play -> its tournament
        self.director: "Tournaments | None" = None

    # -- making one --------------------------------------------------------------------
    def parse_options(self, words: list[str]) -> dict[str, Any]:
        if words:
            raise GameError(f"A Par tournament takes no options (got {' '.join(words)!r}).")
        return {}

    def new(self, deals: int, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The title and first state of a Par tournament of ``deals`` deals."""
        if not 1 <= deals <= MAX_DEALS:
            raise GameError(f"A Par tournament has 1 to {MAX_DEALS} deals.")
        seeds = [secrets.randbits(32) for _ in range(deals)]
        return (f"Pyramid Par, {counted(deals, 'deal')}",
                {"deals": deals, "entrants": [], "results": {}, "best": None,
                 "sealed": {"seeds": seeds}})

    # -- running it --------------------------------------------------------------------
    async def begin(self, director: "Tournaments", row: "TournamentRecord") -> dict[str, Any]:
        """Start every entrant's game (the no-shows forfeit); the state to save."""
        self.watch(director)
        state = dict(row.state)
        results: dict[str, Any] = {}
        seeds = state["sealed"]["seeds"]
        options = {"mode": "tournament", "seeds": seeds, "sealed": f"Par tournament {row.id}"}
        for e in state["entrants"]:
            if e.get("withdrawn"):
                continue
            if not director.is_online(e["id"]):
                results[str(e["id"])] = {"forfeit": True, "game": None}
                director.tell(e["id"], f"Tournament {row.id} began without you: a no-show "
                                       "forfeits.")
                continue
            try:
                game = await director.start(self.kind, (Seat(e["id"], e["name"]),), options)
            except GameError as err:
                results[str(e["id"])] = {"forfeit": True, "game": None}
                director.tell(e["id"], f"Tournament {row.id}: your deals could not start "
                                       f"({err}); you forfeit.")
                continue
            self.by_game[game.id] = row.id
            results[str(e["id"])] = {"game": game.id, "scores": None}
            director.tell(e["id"], f"Tournament {row.id} ({row.title}): your deals are game "
                                   f"#{game.id}. Nobody sees them until every entrant has "
                                   "played them.")
        state["results"] = results
        return state

    def watch(self, director: "Tournaments") -> None:
        if self.director is None:
            self.director = director
            director.games.listeners.append(self._game_changed)

    def _game_changed(self, game: LiveGame, here: bool) -> None:
        if here or game.id not in self.by_game or self.director is None:
            return
        number = self.by_game.pop(game.id)
        if game.outcome is None:
            return  # let go, not finished: the node that drives it now writes its result
        self.director.spawn(self._result(number, game.id, match.deal_scores(game.state)))

    async def _result(self, number: int, game_id: int, scores: tuple[int, ...]) -> None:
        try:
            await self.director.until_written(
                lambda: self._result_now(number, game_id, scores))
        except Exception:
            log.exception("Par tournament %d: game #%d's result failed", number, game_id)

    async def _result_now(self, number: int, game_id: int, scores: tuple[int, ...]) -> None:
        director = self.director
        assert director is not None
        async with director.lock:
            row = await director.get(number)
            state = dict(row.state)
            results = dict(state["results"])
            for key, r in results.items():
                if r.get("game") == game_id:
                    results[key] = {**r, "scores": list(scores)}
            state["results"] = results
            over = all(r.get("forfeit") or r.get("scores") is not None
                       for r in results.values())
            if not over:
                await director.save(row, state, row.status)
                return
            await self._unseal(state)
            await director.save(row, state, "finished")
        first = [x["name"] for x in self.standings(row) if x["place"] == 1]
        said = (f"{first[0]} wins" if len(first) == 1 else "nobody wins" if not first else
                f"{first[0]} and {first[1]} share first place" if len(first) == 2 else
                f"{len(first)} entrants share first place")
        for e in row.state["entrants"]:
            director.tell(e["id"], f"Tournament {row.id} ({row.title}) is over: {said}. "
                                   f"(TOURNEY {row.id} shows the standings.)")
        director.spawn(self._best(number))

    async def _unseal(self, state: dict[str, Any]) -> None:
        """Every entrant's stored game, unsealed in one transaction."""
        assert self.director is not None
        ids = [r["game"] for r in state["results"].values() if r.get("game")]
        async with self.director.db.session() as tx:
            for record in await tx.scalars(sa.select(GameRecord).where(GameRecord.id.in_(ids))):
                table = match.state_from_json(record.state)
                record.state = match.state_to_json(match.unseal(table))
                record.updated_at = time.time()
            await tx.commit()

    async def _best(self, number: int) -> None:
        """The solver's best Par of each deal, once the tournament is over."""
        director = self.director
        assert director is not None
        try:
            row = await director.get(number)
            best = []
            for seed in row.state["sealed"]["seeds"]:
                found = await solve(rules.Game.dealt(seed), "par", SOLUTION_LIMIT)
                best.append({"score": found.score, "lower": found.lower, "upper": found.upper,
                             "proven": found.proven})
            async with director.lock:
                row = await director.get(number)
                await director.save(row, {**row.state, "best": best}, row.status)
        except Exception:
            log.exception("Par tournament %d: the solver's best Par failed", number)

    async def restore(self, director: "Tournaments", row: "TournamentRecord") -> None:
        """After a restart: the entrants' games in play, found again."""
        self.watch(director)
        if row.status == "running":
            for r in row.state["results"].values():
                if r.get("game") and r.get("scores") is None:
                    self.by_game[r["game"]] = row.id

    # -- standings (plain data: the TOURNEY command and the web pages) -------------------
    def standings(self, row: "TournamentRecord") -> list[dict[str, Any]]:
        """One dict per entrant, best first: name, played (deals finished so far),
        and once the tournament is over its place, total and per-deal scores (None
        before: a score tells something of a deal)."""
        state = row.state
        over = row.status == "finished"
        results = state.get("results", {})
        rows = []
        for e in state["entrants"]:
            r = results.get(str(e["id"]), {})
            scores = r.get("scores")
            played = state["deals"] if scores is not None else None
            live = self.kind.hosted.game(r["game"]) if r.get("game") and scores is None \
                else None
            if live is not None:  # how far the entrant is: a count, never a score
                played = len(live.state.matches[0].scores)
            rows.append({
                "id": e["id"], "name": e["name"], "withdrawn": bool(e.get("withdrawn")),
                "game": r.get("game"), "forfeit": bool(r.get("forfeit")),
                "played": played,
                "total": sum(scores) if over and scores is not None else None,
                "scores": list(scores) if over and scores is not None else None,
                "place": None})
        if over:
            rows.sort(key=lambda x: (x["total"] is None, -(x["total"] or 0), x["name"]))
            place, last = 0, object()
            for k, x in enumerate(rows, 1):
                if x["total"] is None:
                    break
                if x["total"] != last:
                    place, last = k, x["total"]
                x["place"] = place
        return rows

    def report(self, row: "TournamentRecord") -> dict[str, Any]:
        """The standings and what else a page shows: the deals' best Par (once over)."""
        over = row.status == "finished"
        best = row.state.get("best") if over else None
        return {"system": self.name, "status": row.status, "deals": row.state["deals"],
                "standings": self.standings(row), "best": best,
                "seeds": row.state["sealed"]["seeds"] if over else None}

    def summary_lines(self, row: "TournamentRecord") -> list[str]:
        """The lines under the standings: the state of play, the best Par per deal."""
        deals = row.state["deals"]
        if row.status == "open":
            return [f"Open: {counted(deals, 'deal')}, the same for every entrant."]
        if row.status == "running":
            return ["Running: scores are shown when every entrant has played every deal."]
        best = row.state.get("best")
        if best is None:
            return ["Over. The solver is working out the best Par of each deal."]
        marks = [f"{b['score']:+d}" if b["proven"] else f"{b['lower']:+d}..{b['upper']:+d}"
                 for b in best]
        return [f"Over. The solver's best Par, deal by deal: {' '.join(marks)} "
                f"(net {sum(b['score'] for b in best):+d})."]


__all__ = ["MAX_DEALS", "ParTournament"]
