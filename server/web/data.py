"""What the web door shows, as plain JSON-able data, read from the parlor's services.

Every page and its ``/api/`` twin are drawn from the same dict, built here and only
here, so the two cannot disagree about what is public. What goes in is chosen field by
field: a game gives what its watchers' frame holds (``LiveGame.frame(None)``: its number,
kind, seats' names, version, result and the view a telnet watcher is shown), never its
state, seed or options; an account gives what FINGER shows, never its password hash,
settings or admin data.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any, Protocol

from server.frames import Frame
from server.hosting import GameKind
from server.services.correspondence import days_a_move
from server.services.games import GameError, GameHost, LiveGame
from server.services import notify
from server.services.ratings import (CORRESPONDENCE, PROVISIONAL_RD, Ratings, pool,
                                     pool_title, rating_text)

if TYPE_CHECKING:
    from server.db import Database
    from server.online import Online
    from server.services.accounts import Accounts
    from server.world import World

MAX_WHO = 50  # players listed on the front page (as WHO)


class Sources(Protocol):
    """The parlor's parts the web door's data is read from: the games, who is online and
    where, the accounts, the ratings and the database (the records of games played)."""

    host: GameHost
    online: "Online"
    world: "World"
    accounts: "Accounts"
    ratings: Ratings
    db: "Database"


def kinds(parlor: Sources) -> list[dict[str, Any]]:
    return [{"key": k.key, "prefix": k.prefix, "title": k.title,
             "correspondence": k.correspondence}
            for k in parlor.host.kinds.values()]


def who(parlor: Sources) -> dict[str, Any]:
    sessions, _ = parlor.online.named_from("", MAX_WHO)
    players = []
    for s in sessions:
        players.append({
            "name": s.name,
            "where": parlor.world.rooms[s.room].name,
            "idle": int(s.idle()),
            "games": [{"id": g.id, "kind": g.kind.key} for g in parlor.host.games_of(s.account_id)],
        })
    return {"online": parlor.online.count, "players": players}


def summary(frame: Frame, watchers: int) -> dict[str, Any]:
    """One game, as a list shows it (no board), from a frame of it (``LiveGame.frame``)."""
    seats = frame.seats
    return {
        "id": frame.game,
        "kind": frame.kind_key,
        "title": frame.kind_title,
        "players": [s.name for s in seats if not s.left],
        "seats": [{"seat": i, "name": s.name, "computer": s.computer, "left": s.left}
                  for i, s in enumerate(seats)],
        "ranked": frame.ranked,
        "moves": frame.version,
        "to_move": [seats[s].name for s in frame.to_move],
        "watchers": watchers,
        "finished": frame.finished,
        "result": frame.result,
    }


def game_summary(parlor: Sources, game: LiveGame) -> dict[str, Any]:
    """One game in play, as a list shows it (no board)."""
    return summary(game.frame(None, with_view=False), parlor.host.watchers(game.id))


def board(frame: Frame, watchers: int) -> dict[str, Any]:
    """One game with its board, from a watchers' frame (what a telnet watcher is shown)."""
    return {**summary(frame, watchers), "view": frame.view}


def game_board(parlor: Sources, game: LiveGame) -> dict[str, Any]:
    """One game with its board as it stands: the watchers' frame."""
    return board(game.frame(None), parlor.host.watchers(game.id))


async def games_in_play(parlor: Sources, kind: GameKind | None = None
                        ) -> list[dict[str, Any]]:
    """Every game in play, on this node and (in a cluster) the others."""
    return [summary(f, f.watchers)
            for f in await parlor.host.frames_in_play(kind.key if kind else None)]


async def replay(parlor: Sources, number: int, move: int | None) -> dict[str, Any]:
    """A stored game after ``move`` moves (all when None), as a watcher would see it.

    :raises GameError: no such game, or no such move.
    """
    game, moves = await parlor.host.replay(number, move)
    upto = len(moves) if move is None else move
    return {
        **game_board(parlor, game),
        "move": upto,
        "total": len(moves),
        "moves": [{"seq": m.seq, "name": game.seats[m.seat].name if m.seat is not None
                   and 0 <= m.seat < len(game.seats) else "", "notation": m.notation}
                  for m in moves],
        "finished": game.outcome is not None,
        "result": GameHost.describe_outcome(game, game.outcome) if game.outcome else None,
    }


def _record(r) -> dict[str, Any]:  # noqa: ANN001 - a Rating row
    return {
        "rating": round(r.rating), "rd": round(r.rd), "text": rating_text(r.rating, r.rd),
        "provisional": r.rd > PROVISIONAL_RD,
        "ranked": {"wins": r.ranked_wins, "losses": r.ranked_losses, "draws": r.ranked_draws},
        "unranked": {"wins": r.unranked_wins, "losses": r.unranked_losses,
                     "draws": r.unranked_draws},
    }


async def rankings(parlor: Sources, kind: GameKind, *,
                   correspondence: bool = False) -> dict[str, Any]:
    """A game's rankings and records; ``correspondence``: its games by correspondence,
    rated in a pool of their own (``/rankings/<game>/corr``)."""
    key = pool(kind.key, 1 if correspondence else None)
    ranked = await parlor.ratings.rankings(key)
    records = await parlor.ratings.records(key)
    return {
        "kind": key, "title": pool_title({kind.key: kind.title}, key),
        "correspondence": correspondence,
        "rankings": [{"place": i, "name": name, **_record(r)}
                     for i, (name, r) in enumerate(ranked, 1)],
        "records": [{"name": name, **_record(r)} for name, r in records],
        "levels": [] if correspondence else [{"level": level, "rating": rating}
                                             for level, rating in kind.level_ratings],
    }


COMPUTER = re.compile(r"computer\((easy|normal|hard)\)", re.IGNORECASE)
LAST = 10  # finished games of each game listed on a player's page (as FINGER)


async def last_games(parlor: Sources, account_id: int, level: str | None = None
                     ) -> list[dict[str, Any]]:
    """A player's last finished games of each game (the computer's: those it played at
    ``level``), newest first, each with its result for them and its replay's address;
    the games in the parlor's order."""
    found = await notify.last_games(parlor.db, account_id, LAST, level=level)
    order = [k for k in parlor.host.kinds if k in found] + sorted(
        k for k in found if k not in parlor.host.kinds)
    listed = []
    for key in order:
        kind = parlor.host.kinds.get(key)
        games = []
        for r in found[key]:
            seats = r.seats or []
            mine = notify.seat_of(seats, account_id, level)
            games.append({
                "id": r.id,
                "players": [s.get("name", "?") for s in seats],
                "opponents": [s.get("name", "?") for i, s in enumerate(seats) if i != mine],
                "result": notify.result_for(kind, r, mine),
                "date": time.strftime("%Y-%m-%d", time.gmtime(r.updated_at)),
                "replay": f"/games/{r.id}/replay"})
        listed.append({"kind": key, "title": kind.title if kind else key, "games": games})
    return listed


async def player(parlor: Sources, name: str) -> dict[str, Any] | None:
    """What FINGER shows of an account, or None when there is none by that name. A
    computer player's name (``Computer(normal)``, as its seats are called) shows the
    computer's account at that level: its rating in each game, its recent games."""
    computer = COMPUTER.fullmatch(name)
    if computer:
        level = computer[1].lower()
        acc = await parlor.accounts.get("Computer")
        if acc is None or not acc.is_computer:
            return None
        return {
            "name": f"Computer({level})", "admin": False, "computer": True, "online": False,
            "where": None, "idle": None, "last_seen": None, "last_seen_ago": None,
            "member_since": time.strftime("%Y-%m-%d", time.gmtime(acc.created_at)),
            "cubits": None, "ratings": [], "playing": [], "correspondence": [],
            "levels": [{"kind": k.key, "title": k.title, "rating": rating}
                       for k in parlor.host.kinds.values()
                       for lv, rating in k.level_ratings if lv == level],
            "last_games": await last_games(parlor, acc.id, level),
        }
    acc = await parlor.accounts.get(name)
    if acc is None:
        return None
    online = parlor.online.present(acc.id)
    ratings = []
    titles = {key: kind.title for key, kind in parlor.host.kinds.items()}
    for r in await parlor.ratings.for_account(acc.id):
        ratings.append({"kind": r.kind, "title": pool_title(titles, r.kind),
                        "page": "/rankings/" + (r.kind.removesuffix(CORRESPONDENCE) + "/corr"
                                                if r.kind.endswith(CORRESPONDENCE) else r.kind),
                        **_record(r)})
    return {
        "name": acc.name,
        "admin": acc.is_admin,
        "computer": acc.is_computer,
        "online": online is not None,
        "where": parlor.world.rooms[online.room].name if online else None,
        "idle": int(online.idle()) if online else None,
        "last_seen": acc.last_seen_at,
        "last_seen_ago": (int(time.time() - acc.last_seen_at) if acc.last_seen_at else None),
        "member_since": time.strftime("%Y-%m-%d", time.gmtime(acc.created_at)),
        "cubits": acc.cubits,
        "ratings": ratings,
        "playing": [game_summary(parlor, g) for g in parlor.host.games_of(acc.id)
                    if g.days is None],
        "correspondence": await correspondence(parlor, acc.id, acc.name),
        "levels": [],
        "last_games": await last_games(parlor, acc.id),
    }


async def correspondence(parlor: Sources, account_id: int, name: str) -> list[dict[str, Any]]:
    """A player's correspondence games in play, as MYGAMES orders them (those waiting for
    their move first, the longest waiting first): who is to move, and the time left."""
    now = time.time()
    return [{"id": g.game, "kind": g.kind.key, "title": g.kind.title, "opponent": g.opponent,
             "to_move": name if g.mine else g.opponent, "your_move": g.mine,
             "days": g.days, "clock": days_a_move(g.days), "left": g.left(now),
             "deadline": g.deadline}
            for g in await parlor.host.correspondence.letters(account_id)]


# -- seeks ---------------------------------------------------------------------------------
def seeks(parlor: Sources) -> dict[str, Any]:
    """Every open seek, oldest first. The page is anonymous, so formulas (which hide
    seeks from one player) hide nothing here; nor is the owner's account number shown."""
    listed = []
    for seek in sorted(parlor.host.seeks.by_id.values(), key=lambda s: s.id):
        kind = parlor.host.kinds.get(seek.kind_key)
        listed.append({
            "id": seek.id, "kind": seek.kind_key, "title": kind.title if kind else seek.kind_key,
            "name": seek.name, "rating": seek.rating, "rd": seek.rd,
            "rating_text": rating_text(seek.rating, seek.rd),
            "low": seek.low, "high": seek.high, "range": seek.range_text,
            "ranked": seek.ranked,
            "options": _other_options(kind.spec.describe_options(seek.options) if kind else ""),
            "describe": seek.describe,
            "age": max(0, int(time.time() - seek.created)),
        })
    return {"seeks": listed}


def _other_options(words: str) -> str:
    """A game's options in its words, less "ranked"/"unranked" (a column of its own)."""
    return ", ".join(part for part in words.split(", ")
                     if part.strip().lower() not in ("ranked", "unranked", ""))


def seeks_status(listing: dict[str, Any]) -> str:
    n = len(listing["seeks"])
    return "Nobody is seeking a game." if n == 0 else (
        "1 seek is open." if n == 1 else f"{n} seeks are open.")


# -- tournaments ---------------------------------------------------------------------------
# The director's standings rows, read generically: a dict (its keys, but the entrant's,
# are columns), or a tuple (entrant, number, ...) whose numbers are named by the system.
COLUMNS = {"swiss": (("points", "Points"), ("buchholz", "Buchholz"),
                     ("sonneborn_berger", "Sonneborn-Berger"))}
ENTRANT_KEYS = ("entrant", "id", "name", "rating", "withdrawn",
                "fire")  # an arena's "on fire" is no column of numbers
RESULTS = {1.0: "1-0", 0.5: "½-½", 0.0: "0-1"}


def _title(key: str) -> str:
    return key.replace("_", " ").capitalize()


def standings(svc: Any, row: Any) -> dict[str, Any]:
    """``Tournaments.standings(row)`` as a table: its columns, and a row per entrant
    (place, name, rating, withdrawn, and a value for each column)."""
    columns: list[tuple[str, str]] = []
    rows = []
    for place, entry in enumerate(svc.standings(row), 1):
        if isinstance(entry, dict):
            entrant = entry.get("entrant", entry)
            values = {k: v for k, v in entry.items() if k not in ENTRANT_KEYS}
            named = [(k, _title(k)) for k in values]
        else:
            entrant, *numbers = entry
            named = list(COLUMNS.get(row.system, (("points", "Points"),)))[:len(numbers)]
            named += [(f"tie_break_{i}", f"Tie-break {i}")
                      for i in range(len(named), len(numbers))]
            values = {k: v for (k, _), v in zip(named, numbers)}
        for column in named:
            if column not in columns:
                columns.append(column)
        rows.append({"place": place, "name": entrant.get("name", "?"),
                     "rating": entrant.get("rating"),
                     "withdrawn": bool(entrant.get("withdrawn")), "values": values})
    return {"columns": [{"key": k, "title": t} for k, t in columns], "rows": rows}


def _pairing(p: dict[str, Any], names: dict[int, str]) -> dict[str, Any]:
    """One pairing of a round: its players by name, its game and its result (the first
    player's score, as the director keeps it)."""
    ids = p["players"] if "players" in p else [
        i for i in (p.get("first"), p.get("second")) if i is not None]
    bye = "players" not in p and p.get("second") is None
    score, game = p.get("score"), p.get("game")
    if bye:
        result = "bye"
    elif score is None:
        result = "playing" if game is not None else "to be played"
    elif isinstance(score, (int, float)):
        result = RESULTS.get(float(score), f"{score:g}")
    else:
        result = str(score)
    if p.get("forfeit") and not bye:
        result += " (forfeit)"
    return {"players": [names.get(i, "?") for i in ids], "bye": bye, "game": game,
            "href": f"/games/{game}" if game is not None else None,
            "score": score, "forfeit": bool(p.get("forfeit")), "result": result}


def _round_text(status: str, played: int, rounds: int | None) -> str:
    if status == "open":
        if not rounds:
            return "Open for entrants."
        return f"Open for entrants; {rounds} round{'s' if rounds != 1 else ''}."
    of = f" of {rounds}" if rounds else ""
    return f"{status.capitalize()}; round {played}{of}."


def tournament_summary(svc: Any, row: Any, parlor: Sources) -> dict[str, Any]:
    """One tournament, as the list shows it."""
    state = row.state or {}
    kind = parlor.host.kinds.get(row.kind)
    played, rounds = len(state.get("pairings", ())), state.get("rounds")
    winner = None
    if row.status == "finished":
        table = standings(svc, row)["rows"]
        winner = table[0]["name"] if table else None
    return {"id": row.id, "title": row.title, "kind": row.kind,
            "kind_title": kind.title if kind else row.kind, "system": row.system,
            "status": row.status, "round": played, "rounds": rounds,
            "progress": (_round_text(row.status, played, rounds) if row.status == "open"
                         else f"{row.status.capitalize()}; {svc.progress(row)}."),
            "entrants": len(state.get("entrants", ())), "winner": winner,
            "href": f"/tournaments/{row.id}"}


async def tournaments(parlor: Sources) -> dict[str, Any]:
    """Every tournament open or running, and the lately finished and lately cancelled
    (a bounded few), newest first."""
    svc = parlor.host.tournaments
    rows = await svc.listing() + await svc.over()
    listed = [tournament_summary(svc, r, parlor) for r in rows]
    return {status: [t for t in listed if t["status"] == status]
            for status in ("open", "running", "finished", "cancelled")}


def tournaments_status(listing: dict[str, Any]) -> str:
    cancelled = (f", {len(listing['cancelled'])} lately cancelled"
                 if listing["cancelled"] else "")
    return (f"{len(listing['open'])} open, {len(listing['running'])} running, "
            f"{len(listing['finished'])} lately finished{cancelled}.")


async def tournament(parlor: Sources, number: int) -> dict[str, Any]:
    """One tournament: what it is, its standings, every round's pairings (newest first).

    :raises GameError: there is no such tournament."""
    svc = parlor.host.tournaments
    row = await svc.get(number)
    state = row.state or {}
    entrants = state.get("entrants", ())
    names = {e["id"]: e.get("name", "?") for e in entrants}
    rounds = state.get("pairings", ())
    return {
        **tournament_summary(svc, row, parlor),
        "version": row.version,
        "standings": standings(svc, row),
        "rounds_paired": [
            {"number": k, "current": k == len(rounds) and row.status == "running",
             "pairings": [_pairing(p, names) for p in rnd]}
            for k, rnd in reversed(list(enumerate(rounds, 1)))],
    }


__all__ = ["GameError", "kinds", "who", "summary", "game_summary", "board", "game_board",
           "games_in_play", "replay", "rankings", "player", "last_games", "seeks",
           "tournaments", "tournament", "standings"]
