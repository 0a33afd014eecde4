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
from typing import TYPE_CHECKING, Any

from server.hosting import GameKind
from server.services.games import GameError, GameHost, LiveGame
from server.services.ratings import PROVISIONAL_RD, rating_text

if TYPE_CHECKING:
    from server.app import Parlor

MAX_WHO = 50  # players listed on the front page (as WHO)


def kinds(parlor: "Parlor") -> list[dict[str, str]]:
    return [{"key": k.key, "prefix": k.prefix, "title": k.title}
            for k in parlor.host.kinds.values()]


def who(parlor: "Parlor") -> dict[str, Any]:
    sessions, _ = parlor.named_from("", MAX_WHO)
    players = []
    for s in sessions:
        players.append({
            "name": s.name,
            "where": parlor.world.rooms[s.room].name,
            "idle": int(s.idle()),
            "games": [{"id": g.id, "kind": g.kind.key} for g in parlor.host.games_of(s.account_id)],
        })
    return {"online": parlor.online_count, "players": players}


def summary(frame: dict[str, Any], watchers: int) -> dict[str, Any]:
    """One game, as a list shows it (no board), from a frame of it (``LiveGame.frame``)."""
    seats = frame["seats"]
    return {
        "id": frame["game"],
        "kind": frame["kind"],
        "title": frame["kind_title"],
        "players": [s["name"] for s in seats if not s.get("left")],
        "seats": [{"seat": i, "name": s["name"], "computer": s.get("computer"),
                   "left": bool(s.get("left"))} for i, s in enumerate(seats)],
        "ranked": frame["ranked"],
        "moves": frame["version"],
        "to_move": [seats[s]["name"] for s in frame["to_move"]],
        "watchers": watchers,
        "finished": frame["finished"],
        "result": frame["result"],
    }


def game_summary(parlor: "Parlor", game: LiveGame) -> dict[str, Any]:
    """One game in play, as a list shows it (no board)."""
    return summary(game.frame(None, with_view=False), parlor.host.watchers(game.id))


def board(frame: dict[str, Any], watchers: int) -> dict[str, Any]:
    """One game with its board, from a watchers' frame (what a telnet watcher is shown)."""
    return {**summary(frame, watchers), "view": frame["view"]}


def game_board(parlor: "Parlor", game: LiveGame) -> dict[str, Any]:
    """One game with its board as it stands: the watchers' frame."""
    return board(game.frame(None), parlor.host.watchers(game.id))


async def games_in_play(parlor: "Parlor", kind: GameKind | None = None
                        ) -> list[dict[str, Any]]:
    """Every game in play, on this node and (in a cluster) the others."""
    return [summary(f, f["watchers"])
            for f in await parlor.host.frames_in_play(kind.key if kind else None)]


async def replay(parlor: "Parlor", number: int, move: int | None) -> dict[str, Any]:
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


async def rankings(parlor: "Parlor", kind: GameKind) -> dict[str, Any]:
    ranked = await parlor.ratings.rankings(kind.key)
    records = await parlor.ratings.records(kind.key)
    return {
        "kind": kind.key, "title": kind.title,
        "rankings": [{"place": i, "name": name, **_record(r)}
                     for i, (name, r) in enumerate(ranked, 1)],
        "records": [{"name": name, **_record(r)} for name, r in records],
        "levels": [{"level": level, "rating": rating} for level, rating in kind.level_ratings],
    }


COMPUTER = re.compile(r"computer\((easy|normal|hard)\)", re.IGNORECASE)
RECENT = 10  # finished games listed on a player's page


async def recent_games(parlor: "Parlor", account_id: int, level: str | None = None
                       ) -> list[dict[str, Any]]:
    """A player's last finished games, newest first, each with its replay's address (the
    computer's: those it played at ``level``)."""
    games = []
    for r in await parlor.host.history(account_id, RECENT * (3 if level else 1)):
        seats = r.seats or []
        if level and not any(s.get("computer") == level for s in seats):
            continue
        kind = parlor.host.kinds.get(r.kind)
        games.append({"id": r.id, "kind": r.kind, "title": kind.title if kind else r.kind,
                      "players": [s.get("name", "?") for s in seats],
                      "date": time.strftime("%Y-%m-%d", time.gmtime(r.updated_at)),
                      "replay": f"/games/{r.id}/replay"})
    return games[:RECENT]


async def player(parlor: "Parlor", name: str) -> dict[str, Any] | None:
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
            "cubits": None, "ratings": [], "playing": [],
            "levels": [{"kind": k.key, "title": k.title, "rating": rating}
                       for k in parlor.host.kinds.values()
                       for lv, rating in k.level_ratings if lv == level],
            "recent": await recent_games(parlor, acc.id, level),
        }
    acc = await parlor.accounts.get(name)
    if acc is None:
        return None
    online = parlor.present(acc.id)
    ratings = []
    for r in await parlor.ratings.for_account(acc.id):
        kind = parlor.host.kinds.get(r.kind)
        ratings.append({"kind": r.kind, "title": kind.title if kind else r.kind, **_record(r)})
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
        "playing": [game_summary(parlor, g) for g in parlor.host.games_of(acc.id)],
        "levels": [],
        "recent": await recent_games(parlor, acc.id),
    }


__all__ = ["GameError", "kinds", "who", "summary", "game_summary", "board", "game_board",
           "games_in_play", "replay", "rankings", "player"]
