"""Triad's sit-and-go (``TOURNEY CREATE TRIAD SITGO <stack> [<opening>]``): up to six
entrants a table, every one with the same stack; tables are merged as players go bust;
the last stack standing wins.

The tables are ordinary Triad tables (``server/services/triad.py``), opened by the
director and marked with the tournament's number (nobody else may sit at one, and no
computer player). The stacks are **real cubits**: each entrant's stack is their buy-in,
moved from their account to the table by the ledger as at any table ("triad buy-in"),
and back when they stand up or the table closes ("triad cash-out"). So cubits are never
made or lost (``esterport admin audit`` checks the ledger and every table's ledger), and
the prize is simply the pot of the game: the winner leaves with nearly every entrant's
stack. Moving a player to another table is a cash-out at one and a buy-in of the same
stack at the other, between hands.

The director looks at its tables between hands (every ``TICK_S``) and, in order:

1. a player whose stack can no longer pay the opening bet is out (their place is the
   number of players still in, plus one); they stand up with what is left of it;
2. a table closed by itself (one player left who can pay) sends that player on;
3. when the players still in fit on fewer tables, the smallest table between hands is
   broken up: its players stand up, to be seated at the others; else when two tables
   are two or more players apart, a player of the fullest moves to the emptiest;
4. players waiting for a seat sit at the table with the fewest players (a new table
   when there is none with a free seat and two or more are waiting);
5. a table between hands with two players who can pay is dealt its next hand at once.

When one player is left they win; the tournament is over. A player who disconnects is
handled as at any table: they pass or fold at their turns and stand up (their stack back
in their account) when the hand ends, unless back in time; one who stands up so is out
of the tournament, with the stack they had. A player not connected when it starts, or
without the stack in their account, does not play (a no-show: nothing is taken).
"""

from __future__ import annotations

import asyncio
import logging
import math
from typing import TYPE_CHECKING, Any, Protocol

from games.errors import RuleError
from games.triad import rules
from games.triad.table import DEFAULT_SEATS, Leave, Table, state_from_json, table_options
from server.hosting import ParlorAccess, Seat
from server.models import GameRecord
from server.services.live import GameError, LiveGame
from server.services.tournaments import TournamentMoved
from server.text import counted

if TYPE_CHECKING:
    from server.services.accounts import Accounts
    from server.services.meeting_models import TournamentRecord
    from server.services.tournaments import Tournaments

log = logging.getLogger(__name__)

TICK_S = 0.2
MAX_TABLES = 8                       # so up to 6 x 8 = 48 entrants
STACK_IN_OPENINGS = 10               # a stack is at least this many opening bets
DEFAULT_OPENING_SHARE = 20           # the default opening bet: a twentieth of the stack


class Tables(Protocol):
    """Triad's tables as a sit-and-go reads them (``TriadTables`` in
    server/services/triad.py, which hands itself to :class:`SitAndGo`): the kind's key,
    the parlor it is hosted in, the accounts, and a seat at a table."""

    @property
    def key(self) -> str: ...

    @property
    def hosted(self) -> ParlorAccess: ...

    @property
    def accounts(self) -> "Accounts": ...

    async def join(self, account_id: int, name: str, number: int,
                   stack: int | None = None, director: bool = False) -> LiveGame: ...


class SitAndGo:
    """The ``sitgo`` system of Triad's tournaments (its kind's ``tournament_systems``)."""

    name = "sitgo"
    number = "stack"
    columns = (("#", "place"), ("Player", "name"), ("Table", "table"), ("Stack", "stack"))

    def __init__(self, kind: Tables) -> None:
        self.kind = kind
        self.director: "Tournaments | None" = None
        self.running: dict[int, asyncio.Task] = {}

    # -- making one --------------------------------------------------------------------
    def parse_options(self, words: list[str]) -> dict[str, Any]:
        """``[<opening>]``: the opening bet (default: a twentieth of the stack)."""
        if len(words) > 1 or (words and not words[0].isdigit()):
            raise GameError("A sit-and-go takes one option: the opening bet, a number "
                            "(TOURNEY CREATE TRIAD SITGO <stack> [<opening>]).")
        return {"opening": int(words[0])} if words else {}

    def new(self, stack: int, options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        opening = options.get("opening")
        opening = max(1, stack // DEFAULT_OPENING_SHARE) if opening is None else int(opening)
        if opening < 1:
            raise GameError("The opening bet is at least 1 cubit.")
        if stack < opening * STACK_IN_OPENINGS:
            raise GameError(f"A stack is at least {STACK_IN_OPENINGS} opening bets "
                            f"({opening * STACK_IN_OPENINGS} cubits with an opening bet of "
                            f"{opening}).")
        try:
            table_options(opening, None, DEFAULT_SEATS, stack)
        except RuleError as err:
            raise GameError(str(err)) from None
        return (f"Triad sit-and-go, stacks of {stack}, opening {opening}",
                {"stack": stack, "opening": opening, "max": DEFAULT_SEATS * MAX_TABLES,
                 "entrants": [], "tables": [], "players": {}, "pending": [], "out": [],
                 "winner": None})

    # -- starting ----------------------------------------------------------------------
    async def begin(self, director: "Tournaments", row: "TournamentRecord") -> dict[str, Any]:
        """Seat the entrants at balanced tables with equal stacks (the no-shows do not
        play); the state to save. The director's rounds start at once."""
        self.director = director
        state = dict(row.state)
        stack = state["stack"]
        entrants = [e for e in state["entrants"] if not e.get("withdrawn")]
        if len(entrants) > state["max"]:
            raise GameError(f"A sit-and-go seats at most {state['max']} entrants.")
        players: dict[str, Any] = {}
        playing = []
        for e in entrants:
            account = await self.kind.accounts.get_by_id(e["id"])
            if not director.is_online(e["id"]) or account is None or account.cubits < stack \
                    or self.kind.hosted.game_of(e["id"], self.kind.key) is not None:
                players[str(e["id"])] = {"name": e["name"], "status": "no-show"}
                director.tell(e["id"], f"Tournament {row.id} began without you (not "
                                       f"connected, at a table, or without {stack} cubits).")
                continue
            playing.append(e)
        if len(playing) < 2:
            raise GameError("A sit-and-go needs two entrants able to play (connected, "
                            f"with {stack} cubits, at no other table).")
        count = math.ceil(len(playing) / DEFAULT_SEATS)
        groups = [playing[i::count] for i in range(count)]  # balanced: sizes differ by one
        tables = []
        for group in groups:
            game = await self._open(row.id, state, group[0], stack)
            tables.append(game.id)
            for e in group[1:]:
                await self.kind.join(e["id"], e["name"], game.id, stack, director=True)
            for e in group:
                players[str(e["id"])] = {"name": e["name"], "status": "in", "table": game.id}
                director.tell(e["id"], f"Tournament {row.id}: you sit at Triad table "
                                       f"#{game.id} with {stack} cubits.")
        state.update(players=players, tables=tables, playing=len(playing))
        self.start_rounds(director, row.id)
        return state

    async def _open(self, number: int, state: dict[str, Any], entrant: dict,
                    stack: int) -> LiveGame:
        """A table of the tournament, ``entrant`` sitting down at it with ``stack`` (the
        table's buy-in: what the opener brings)."""
        options = {**table_options(state["opening"], None, DEFAULT_SEATS, stack),
                   "tournament": number}
        return await self.kind.hosted.start_game(
            self.kind.key, (Seat(entrant["id"], entrant["name"]),), options)

    def start_rounds(self, director: "Tournaments", number: int) -> None:
        self.director = director
        task = self.running.get(number)
        if task is None or task.done():
            self.running[number] = director.spawn(self._rounds(number))

    async def restore(self, director: "Tournaments", row: "TournamentRecord") -> None:
        if row.status == "running":
            self.start_rounds(director, row.id)

    # -- the director's rounds ---------------------------------------------------------
    async def _rounds(self, number: int) -> None:
        while True:
            try:
                if not await self._tick(number):
                    return
            except TournamentMoved:  # another node's change got in first: look again
                pass
            except Exception:
                log.exception("sit-and-go %d: a round of the director failed", number)
            await asyncio.sleep(TICK_S)

    async def _tick(self, number: int) -> bool:
        """One look at the tables (the module's steps 1 to 5); False once it is over."""
        director = self.director
        assert director is not None
        async with director.lock:
            row = await director.get(number)
            if row.status != "running":
                return False
            state = {**row.state, "players": {k: dict(v) for k, v in
                                              row.state["players"].items()},
                     "pending": list(row.state["pending"]), "out": list(row.state["out"]),
                     "tables": list(row.state["tables"])}
            before = repr(row.state)
            opening = state["opening"]
            for table_id in list(state["tables"]):
                game = self.kind.hosted.game(table_id)
                if game is None:  # closed by itself: its players stood up
                    await self._closed(state, table_id)
                    continue
                table: Table = game.state
                if table.game.phase != "hand_over":
                    continue
                for pos, seat in enumerate(table.places):
                    if seat is None or table.seats[seat].computer is not None:
                        continue
                    stack = table.game.seats[pos].stack or 0
                    if stack < opening:
                        await self._act(game, seat, Leave())
                        self._out(state, table.seats[seat].account_id, stack)
                        if self.kind.hosted.game(table_id) is None:
                            break
                if self.kind.hosted.game(table_id) is None:
                    await self._closed(state, table_id)
                    continue
                self._note_left(state, game)
            await self._balance(state, number)
            await self._seat_pending(state, number)
            alive = self._alive(state)
            if len(alive) <= 1 and not any(self.kind.hosted.game(t) for t in state["tables"]):
                await self._finish(row, state, alive)
                return False
            if repr(state) != before:
                await director.save(row, state, row.status)
        await self._deal(state)
        return True

    def _alive(self, state: dict[str, Any]) -> list[str]:
        return [k for k, p in state["players"].items() if p["status"] in ("in", "waiting")]

    def _out(self, state: dict[str, Any], account_id: int, stack: int | None,
             why: str = "bust") -> None:
        """A player is out: placed after everyone still in."""
        p = state["players"][str(account_id)]
        if p["status"] not in ("in", "waiting"):
            return
        place = len(self._alive(state))
        p.update(status="out", place=place, stack=stack, why=why, table=None)
        state["out"].append(str(account_id))
        assert self.director is not None
        back = "your stack went" if stack is None else f"{counted(stack, 'cubit')} went"
        self.director.tell(account_id, f"You are out of the sit-and-go in place {place} "
                                       f"({back} back to your account).")

    def _note_left(self, state: dict[str, Any], game: LiveGame) -> None:
        """Players still 'in' at a table they have stood up from (away, or TRIAD LEAVE):
        out, with the stack they took."""
        table: Table = game.state
        seated = {table.seats[s].account_id for s in table.places if s is not None}
        for key, p in list(state["players"].items()):
            if p["status"] == "in" and p.get("table") == game.id and int(key) not in seated:
                self._out(state, int(key), None, "left")

    async def _closed(self, state: dict[str, Any], table_id: int) -> None:
        """A table that closed: whoever could still pay waits for a seat; the rest are out."""
        state["tables"].remove(table_id)
        async with self.kind.hosted.db.session() as tx:
            record = await tx.get(GameRecord, table_id)
        table = state_from_json(record.state)
        stacks = {table.seats[s].account_id: table.game.seats[pos].stack or 0
                  for pos, s in enumerate(table.places) if s is not None}
        for key, p in list(state["players"].items()):
            if p["status"] != "in" or p.get("table") != table_id:
                continue
            stack = stacks.get(int(key))
            if stack is None:
                self._out(state, int(key), None, "left")
            elif stack < state["opening"]:
                self._out(state, int(key), stack)
            else:
                p.update(status="waiting", table=None, stack=stack)
                state["pending"].append(key)

    async def _balance(self, state: dict[str, Any], number: int) -> None:
        """Break up the smallest table between hands when the players fit on fewer."""
        live = [self.kind.hosted.game(t) for t in state["tables"]]
        live = [g for g in live if g is not None]
        alive = len(self._alive(state))
        between = [g for g in live if g.state.game.phase == "hand_over"]
        if len(live) <= max(1, math.ceil(alive / DEFAULT_SEATS)):
            await self._even(state, number, live, between)
            return
        if not between:
            return
        smallest = min(between, key=lambda g: sum(1 for s in g.state.places if s is not None))
        table: Table = smallest.state
        moving = []
        for pos, seat in enumerate(table.places):
            if seat is not None:
                moving.append((table.seats[seat].account_id, seat,
                               table.game.seats[pos].stack or 0))
        for account_id, seat, stack in moving:
            if self.kind.hosted.game(smallest.id) is not None:  # else closed: stacks back
                await self._act(smallest, seat, Leave())
            p = state["players"].get(str(account_id))
            if p is not None and p["status"] == "in":
                p.update(status="waiting", table=None, stack=stack)
                state["pending"].append(str(account_id))
                assert self.director is not None
                self.director.tell(account_id, f"Tournament {number}: table #{smallest.id} "
                                               "is broken up; you move with your stack.")
        if smallest.id in state["tables"]:
            state["tables"].remove(smallest.id)

    async def _even(self, state: dict[str, Any], number: int, live: list[LiveGame],
                    between: list[LiveGame]) -> None:
        """Tables two or more players apart: one player of the fullest table (between
        hands) moves, with their stack, to the table with the fewest."""
        def seated(game: LiveGame) -> int:
            return sum(1 for s in game.state.places if s is not None)

        if len(live) < 2 or not between:
            return
        fullest = max(between, key=seated)
        if seated(fullest) - min(seated(g) for g in live) < 2:
            return
        table: Table = fullest.state
        pos = next(p for p in reversed(range(len(table.places))) if table.places[p] is not None)
        seat = table.places[pos]
        account_id, stack = table.seats[seat].account_id, table.game.seats[pos].stack or 0
        await self._act(fullest, seat, Leave())
        p = state["players"].get(str(account_id))
        if p is not None and p["status"] == "in":
            p.update(status="waiting", table=None, stack=stack)
            state["pending"].append(str(account_id))
            assert self.director is not None
            self.director.tell(account_id, f"Tournament {number}: you move from table "
                                           f"#{fullest.id} to even the tables.")

    async def _seat_pending(self, state: dict[str, Any], number: int) -> None:
        """Players waiting for a seat sit at the table with the fewest players, or at a
        new table when two or more wait and no table has room."""
        director = self.director
        assert director is not None
        while state["pending"]:
            key = state["pending"][0]
            p = state["players"][key]
            live = [g for g in (self.kind.hosted.game(t) for t in state["tables"])
                    if g is not None and g.state.free_position() is not None]
            if live:
                game = min(live, key=lambda g: sum(1 for s in g.state.places if s is not None))
                try:
                    await self.kind.join(int(key), p["name"], game.id, p["stack"],
                                         director=True)
                except (GameError, RuleError) as err:
                    state["pending"].pop(0)
                    self._out(state, int(key), p["stack"], "left")
                    log.info("sit-and-go %d: %s could not move: %s", number, p["name"], err)
                    continue
            elif len(state["pending"]) >= 2:
                try:
                    game = await self._open(number, state, {"id": int(key), "name": p["name"]},
                                            p["stack"])
                except (GameError, RuleError) as err:
                    state["pending"].pop(0)
                    self._out(state, int(key), p["stack"], "left")
                    log.info("sit-and-go %d: %s could not move: %s", number, p["name"], err)
                    continue
                state["tables"].append(game.id)
            else:
                return  # one waiting, nowhere to sit: the winner, if nobody else is in
            state["pending"].pop(0)
            p.update(status="in", table=game.id)
            director.tell(int(key), f"Tournament {number}: you sit at Triad table "
                                    f"#{game.id} with {counted(p['stack'], 'cubit')}.")

    async def _deal(self, state: dict[str, Any]) -> None:
        """Deal the next hand at every table between hands that can play one."""
        for table_id in state["tables"]:
            game = self.kind.hosted.game(table_id)
            if game is None:
                continue
            table: Table = game.state
            if table.game.phase != "hand_over":
                continue
            able = [pos for pos in range(len(table.game.seats))
                    if table.places[pos] is not None and rules.can_play(table.game, pos)]
            if len(able) < 2:
                continue
            await self._act(game, table.places[able[0]], rules.Action("DEAL"))

    async def _act(self, game: LiveGame, seat: int, action: Any) -> None:
        try:
            await self.kind.hosted.act_for(game.id, seat, action)
        except (GameError, RuleError) as err:  # the table moved on meanwhile
            log.info("sit-and-go: table #%d: %s", game.id, err)

    async def _finish(self, row: "TournamentRecord", state: dict[str, Any],
                      alive: list[str]) -> None:
        director = self.director
        assert director is not None
        if alive:
            winner = state["players"][alive[0]]
            winner.update(status="winner", place=1, table=None)
            state["winner"] = int(alive[0])
            state["pending"] = []
        await director.save(row, state, "finished")
        name = state["players"][alive[0]]["name"] if alive else "nobody"
        for e in state["entrants"]:
            director.tell(e["id"], f"Tournament {row.id} ({row.title}) is over: {name} "
                                   f"wins. (TOURNEY {row.id} shows the standings.)")

    # -- standings (plain data: the TOURNEY command and the web pages) -------------------
    def standings(self, row: "TournamentRecord") -> list[dict[str, Any]]:
        """One dict per entrant: those still in by stack (their table's stack now),
        then those out by place."""
        rows = []
        for e in row.state["entrants"]:
            p = row.state["players"].get(str(e["id"]), {"status": "entered"})
            stack, table = p.get("stack"), p.get("table")
            if p.get("status") == "in" and table is not None:
                game = self.kind.hosted.game(table)
                if game is not None:
                    t: Table = game.state
                    pos = next((i for i, s in enumerate(t.places) if s is not None
                                and t.seats[s].account_id == e["id"]), None)
                    stack = t.game.seats[pos].stack if pos is not None else stack
            rows.append({"id": e["id"], "name": e["name"], "status": p.get("status"),
                         "place": p.get("place"), "table": table, "stack": stack,
                         "withdrawn": bool(e.get("withdrawn")),
                         "forfeit": p.get("status") == "no-show"})
        rows.sort(key=lambda x: (x["place"] is None and x["status"] not in ("in", "waiting"),
                                 x["place"] or 0, -(x["stack"] or 0), x["name"]))
        return rows

    def report(self, row: "TournamentRecord") -> dict[str, Any]:
        return {"system": self.name, "status": row.status, "stack": row.state["stack"],
                "opening": row.state["opening"], "tables": list(row.state["tables"]),
                "winner": row.state.get("winner"), "standings": self.standings(row)}

    def summary_lines(self, row: "TournamentRecord") -> list[str]:
        state = row.state
        head = f"Stacks of {state['stack']} cubits, opening bet {state['opening']}"
        if row.status == "open":
            return [f"Open: {head}; up to {state['max']} entrants, six a table."]
        if row.status == "running":
            tables = ", ".join(f"#{t}" for t in state["tables"]) or "none"
            return [f"Running: {head}; tables {tables}; "
                    f"{counted(len(self._alive(state)), 'player')} in."]
        winner = state["players"].get(str(state.get("winner")), {}).get("name", "nobody")
        return [f"Over: {head}; {winner} is the last stack standing."]


__all__ = ["SitAndGo"]
