"""Tournament pairing and standings, pure (no I/O): Swiss (Dutch-style, with byes and
first-move balance; Buchholz and Sonneborn–Berger tie-breaks) and arena (Lichess's
scoring: win 2, draw 1, doubled after two wins in a row; pairing by rank, no immediate
rematch).

Both pair by a maximum-weight matching (``networkx.max_weight_matching``, Edmonds'
blossom). A blossom over everyone is cubic in the entrants, so the ranked list is cut
into windows of at most ``WINDOW`` players, cut at a score group's end where one falls
near; whoever a window leaves unpaired floats down into the next (the Dutch system's
floaters). A window but the last (which is two windows long, for the floaters) makes no
rematch and no pair that would give a player two first moves more than second moves
(or fewer): such players float down. ``bench/pairing.py`` measures it at 1,000 entrants
(under 1 s a round here).
"""

from __future__ import annotations

from typing import Iterable, Sequence

import attrs

WINDOW = 40       # players matched at once
REPEAT = 10**7    # the cost of a pairing repeated (only when nothing else is left)
SEAT_CLASH = 10**6  # both would go to two first moves more than second (or fewer)
SEAT_RUN = 5000     # both had the same seat twice running


@attrs.frozen
class Entrant:
    """One player as pairing sees them: ``score`` in points (a win 1, a draw 0.5; arena:
    its own points), ``rating`` to rank equal scores, ``seats``: the seat (0: first
    move) of each game played, ``opponents``: each game's opponent (None: a bye)."""

    id: int
    score: float = 0.0
    rating: float = 1500.0
    seats: tuple[int, ...] = ()
    opponents: tuple[int | None, ...] = ()

    @property
    def balance(self) -> int:
        """First moves had minus second moves had."""
        return sum(1 if s == 0 else -1 for s in self.seats)

    @property
    def byes(self) -> int:
        return sum(1 for o in self.opponents if o is None)


def _ranked(entrants: Iterable[Entrant]) -> list[Entrant]:
    return sorted(entrants, key=lambda e: (-e.score, -e.rating, e.id))


def _first(a: Entrant, b: Entrant) -> tuple[Entrant, Entrant]:
    """Who of two gets seat 0 (the first move): the one who has had it less; then the
    one who had the second move last; then the higher ranked (``a``)."""
    if a.balance != b.balance:
        return (a, b) if a.balance < b.balance else (b, a)
    last_a = a.seats[-1] if a.seats else None
    last_b = b.seats[-1] if b.seats else None
    if last_a != last_b:
        return (a, b) if last_a != 0 else (b, a)
    return a, b


def _seat_cost(a: Entrant, b: Entrant) -> int:
    """Both want the same seat: both have had more first moves (or both fewer)."""
    if a.balance > 0 and b.balance > 0 or a.balance < 0 and b.balance < 0:
        return SEAT_CLASH * min(abs(a.balance), abs(b.balance))
    if a.seats and b.seats and a.seats[-2:] == b.seats[-2:] and len(a.seats) > 1 \
            and a.seats[-1] == a.seats[-2]:
        return SEAT_RUN
    return 0


def _windows(ranked: list[Entrant]) -> Iterable[list[Entrant]]:
    """The ranked list cut into windows, each ending at a score group's end when one
    falls in its last quarter."""
    start = 0
    while start < len(ranked):
        end = min(len(ranked), start + WINDOW)
        if end < len(ranked):
            for cut in range(end, start + WINDOW * 3 // 4, -1):
                if ranked[cut - 1].score != ranked[cut].score:
                    end = cut
                    break
        yield ranked[start:end]
        start = end


def _match(players: list[Entrant], cost) -> tuple[list[tuple[Entrant, Entrant]], list[Entrant]]:  # noqa: ANN001
    """A maximum-cardinality matching of least total ``cost(i, j)`` (indices into
    ``players``; None: never this pair); returns the pairs and who is left."""
    # imported when a tournament is first paired, not with the parlor: networkx is about
    # 12 MB and 25,000 objects that every full garbage collection would scan (0.1 s once)
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(range(len(players)))
    top = 0
    edges = []
    for i in range(len(players)):
        for j in range(i + 1, len(players)):
            c = cost(i, j)
            if c is None:
                continue
            edges.append((i, j, c))
            top = max(top, c)
    graph.add_weighted_edges_from((i, j, top + 1 - c) for i, j, c in edges)
    matched = nx.max_weight_matching(graph, maxcardinality=True)
    pairs = [(players[min(i, j)], players[max(i, j)]) for i, j in matched]
    used = {p.id for pair in pairs for p in pair}
    return sorted(pairs, key=lambda p: players.index(p[0])), [p for p in players if p.id not in used]


def swiss_pairings(entrants: Sequence[Entrant]
                   ) -> tuple[list[tuple[int, int]], int | None]:
    """One Swiss round: pairs (seat 0's id, seat 1's id), best boards first, and the id
    given the bye (None when the number is even).

    The bye goes to the lowest ranked player who has had the fewest byes. Within a
    window the cost of a pair is: a rematch (``REPEAT``), the score difference, a clash
    of seats, and the distance from the Dutch pairing (the top half of a score group
    against its bottom half, in order)."""
    ranked = _ranked(entrants)
    bye = None
    if len(ranked) % 2:
        fewest = min(e.byes for e in ranked)
        bye = next(e for e in reversed(ranked) if e.byes == fewest)
        ranked.remove(bye)
    groups: dict[float, list[int]] = {}
    for index, e in enumerate(ranked):
        groups.setdefault(e.score, []).append(index)
    place = {}  # id -> (index in its score group, size of the group)
    for members in groups.values():
        for k, index in enumerate(members):
            place[ranked[index].id] = (k, len(members))
    pairs: list[tuple[Entrant, Entrant]] = []
    floaters: list[Entrant] = []
    windows = list(_windows(ranked))
    if len(windows) > 1:  # the last window takes all that float down: give it room
        windows[-2:] = [windows[-2] + windows[-1]]
    for k, window in enumerate(windows):
        players = floaters + window
        strict = k < len(windows) - 1

        def cost(i: int, j: int) -> int | None:
            a, b = players[i], players[j]
            seat = _seat_cost(a, b)
            repeat = b.id in a.opponents
            if strict and (repeat or seat >= SEAT_CLASH):
                return None  # they float down to the next window instead
            c = REPEAT if repeat else 0
            c += int(abs(a.score - b.score) * 2) ** 2 * 1000 + seat
            (ka, n), (kb, _) = place[a.id], place[b.id]
            if a.score == b.score:
                c += abs(abs(kb - ka) - n // 2) * 10
            return c

        matched, floaters = _match(players, cost)
        pairs.extend(matched)
    assert not floaters, "an even number of players always pairs in the last window"
    return [tuple(p.id for p in _first(a, b)) for a, b in pairs], (bye.id if bye else None)


# -- standings ---------------------------------------------------------------------------------
@attrs.frozen
class Result:
    """A finished pairing: seat 0's id, seat 1's id (None: a bye for seat 0), and seat
    0's score in it (1, 0.5, 0)."""

    first: int
    second: int | None
    score: float


def swiss_standings(ids: Iterable[int], results: Iterable[Result]
                    ) -> list[tuple[int, float, float, float]]:
    """(id, points, Buchholz, Sonneborn–Berger), best first. A bye counts a win; an
    opponent's score counts in Buchholz as it stands, and Sonneborn–Berger adds the
    scores of the opponents beaten and half of those drawn."""
    points = {i: 0.0 for i in ids}
    games: dict[int, list[tuple[int | None, float]]] = {i: [] for i in points}
    for r in results:
        points[r.first] += r.score if r.second is not None else 1.0
        games[r.first].append((r.second, r.score if r.second is not None else 1.0))
        if r.second is not None:
            points[r.second] += 1 - r.score
            games[r.second].append((r.first, 1 - r.score))
    table = []
    for i in points:
        opponents = [(o, s) for o, s in games[i] if o is not None]
        buchholz = sum(points[o] for o, _ in opponents)
        sb = sum(points[o] * s for o, s in opponents)
        table.append((i, points[i], buchholz, sb))
    return sorted(table, key=lambda t: (-t[1], -t[2], -t[3], t[0]))


# -- arena -------------------------------------------------------------------------------------
def arena_points(results: Sequence[float]) -> tuple[int, bool]:
    """A player's arena score from their results in order (1, 0.5, 0): win 2, draw 1,
    loss 0, doubled while on fire (after two wins in a row, until a game is not won);
    and whether they are on fire now."""
    total, streak = 0, 0
    for r in results:
        fire = streak >= 2
        total += (2 if r == 1 else 1 if r == 0.5 else 0) * (2 if fire else 1)
        streak = streak + 1 if r == 1 else 0
    return total, streak >= 2


def arena_pairings(waiting: Sequence[Entrant], ranks: dict[int, int], *,
                   again: bool = False) -> list[tuple[int, int]]:
    """Pair the players waiting in an arena: near in rank (``ranks``: id -> place in the
    standings), never their last opponent again (two who would be wait for the next
    pairing, as does an odd one out) unless ``again`` (they are the only two left to
    play); seats by the first-move balance."""
    players = sorted(waiting, key=lambda e: (ranks.get(e.id, 0), e.id))
    pairs: list[tuple[Entrant, Entrant]] = []
    floaters: list[Entrant] = []
    for start in range(0, len(players), WINDOW):
        window = floaters + players[start:start + WINDOW]

        def cost(i: int, j: int) -> int:
            a, b = window[i], window[j]
            last = a.opponents[-1:] == (b.id,) or b.opponents[-1:] == (a.id,)
            return ((REPEAT if last else 0) + abs(ranks.get(a.id, 0) - ranks.get(b.id, 0)) * 10
                    + _seat_cost(a, b))

        matched, floaters = _match(window, cost)
        pairs.extend(matched)
    return [tuple(p.id for p in _first(a, b)) for a, b in pairs
            if again or (a.opponents[-1:] != (b.id,) and b.opponents[-1:] != (a.id,))]
