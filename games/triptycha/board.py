"""The Triptycha board: a triangle of side 3 cut into 9 triangular niches.

::

    row 1:          1(up)
    row 2:     2(up) 3(down) 4(up)
    row 3: 5(up) 6(down) 7(up) 8(down) 9(up)

Niche numbers (1..9) are what players see; engine arrays are indexed by cell
``i = niche - 1``.  Edge indices are those of ``tiles.EDGE_CORNERS``: up niche
0=left, 1=right, 2=bottom; down niche 0=top, 1=left, 2=right.
"""

from __future__ import annotations

from .tiles import EDGE_NAMES

NICHES = tuple(range(1, 10))
CELLS = 9
ROWS = ((1,), (2, 3, 4), (5, 6, 7, 8, 9))

#: Does the niche point up?  Indexed by cell.
UP = (True, True, False, True, True, False, True, False, True)

_EDGE = {("up", n): i for i, n in enumerate(EDGE_NAMES[True])}
_EDGE.update({("down", n): i for i, n in enumerate(EDGE_NAMES[False])})

#: The shared edges: (niche a, a's edge, niche b, b's edge).
TOUCHING = (
    (1, "bottom", 3, "top"),
    (2, "right", 3, "left"),
    (3, "right", 4, "left"),
    (2, "bottom", 6, "top"),
    (4, "bottom", 8, "top"),
    (5, "right", 6, "left"),
    (6, "right", 7, "left"),
    (7, "right", 8, "left"),
    (8, "right", 9, "left"),
)


def _build_neighbours():
    table = [[] for _ in range(CELLS)]
    for a, ea, b, eb in TOUCHING:
        ia, ib = a - 1, b - 1
        edge_a = _EDGE[("up" if UP[ia] else "down", ea)]
        edge_b = _EDGE[("up" if UP[ib] else "down", eb)]
        table[ia].append((ib, edge_a, edge_b))
        table[ib].append((ia, edge_b, edge_a))
    return tuple(tuple(sorted(row)) for row in table)


#: NEIGHBOURS[i] = ((j, my edge, their edge), ...) in ascending cell order.
NEIGHBOURS = _build_neighbours()


def orientation_name(niche: int) -> str:
    return "up" if UP[niche - 1] else "down"
