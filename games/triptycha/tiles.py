"""Triptycha tiles: the value a player owns, and the way it sits in a hand.

A tile is a triangle with three corner numbers and a primary (centre) number, each
0..10.  ``Tile.corners`` are read with the tile pointing up: (T, BL, BR).

In a hand a tile has an orientation (``up``) and a rotation (``turn``, 0..2); see
``Held``.  Corners of a held tile are positional:

* pointing up:   (T, BL, BR)
* pointing down: (TL, TR, B)

``ROTATE`` turns the tile 120 degrees clockwise (up: T->BR->BL->T; down:
TL->TR->B->TL).  ``FLIP`` mirrors it top to bottom (T<->B, BL<->TL, BR<->TR).
"""

from __future__ import annotations

import attrs

RARITIES = ("common", "uncommon", "rare", "legendary")
MAX_NUMBER = 10

#: The corner pairs of the three edges, by edge index, as positions in the
#: positional corner tuple.  Up tile: 0=left (T,BL), 1=right (T,BR), 2=bottom
#: (BL,BR).  Down tile: 0=top (TL,TR), 1=left (TL,B), 2=right (TR,B).
EDGE_CORNERS = ((0, 1), (0, 2), (1, 2))
EDGE_NAMES = {True: ("left", "right", "bottom"), False: ("top", "left", "right")}
CORNER_NAMES = {True: ("T", "BL", "BR"), False: ("TL", "TR", "B")}


def _number(inst, attribute, value):
    if type(value) is not int or not 0 <= value <= MAX_NUMBER:
        raise ValueError(f"{attribute.name} must be an integer 0..{MAX_NUMBER}, not {value!r}")


def _corners(inst, attribute, value):
    if len(value) != 3:
        raise ValueError(f"a tile has 3 corners, not {len(value)}")
    for v in value:
        if type(v) is not int or not 0 <= v <= MAX_NUMBER:
            raise ValueError(f"corners must be integers 0..{MAX_NUMBER}, not {value!r}")


@attrs.frozen
class Tile:
    """One tile instance: ``id`` is the instance id, the rest comes from its design."""

    id: int
    corners: tuple[int, int, int] = attrs.field(converter=tuple, validator=_corners)
    primary: int = attrs.field(validator=_number)
    name: str = ""
    rarity: str = attrs.field(default="common", validator=attrs.validators.in_(RARITIES))
    collection: str = ""

    @property
    def sum(self) -> int:
        """All four numbers added (shown as ``Sum: N`` under a hand tile)."""
        return sum(self.corners) + self.primary


def rotate_corners(corners: tuple[int, int, int], up: bool) -> tuple[int, int, int]:
    """Turn positional corners 120 degrees clockwise.

    Up (T, BL, BR): the number at T goes to BR, BR's to BL, BL's to T.
    Down (TL, TR, B): TL's goes to TR, TR's to B, B's to TL.
    """
    a, b, c = corners
    return (b, c, a) if up else (c, a, b)


def flip_corners(corners: tuple[int, int, int], up: bool) -> tuple[int, int, int]:
    """Mirror positional corners top to bottom: T<->B, BL<->TL, BR<->TR."""
    a, b, c = corners
    # up (T, BL, BR) -> down (TL=BL, TR=BR, B=T); down (TL, TR, B) -> up (T=B, BL=TL, BR=TR)
    return (b, c, a) if up else (c, a, b)


def edge_scores(corners, primary: int, inversion: bool) -> tuple[int, int, int]:
    """The edge score on each edge: the two corners on it plus the primary
    (Inversion/Confusion: minus the primary)."""
    sign = -1 if inversion else 1
    return tuple(corners[i] + corners[j] + sign * primary for i, j in EDGE_CORNERS)


@attrs.frozen
class Held:
    """A tile in a player's game hand: its orientation, rotation and, once laid, its niche.

    ``turn`` counts rotations so that ``corners`` is ``Tile.corners`` turned ``turn``
    times as an up tile, then flipped if the tile points down.  ``niche`` (1..9) is
    set once the tile is laid; its facing then stays as it was laid.
    """

    tile: Tile
    up: bool = True
    turn: int = attrs.field(default=0, validator=attrs.validators.in_((0, 1, 2)))
    niche: int | None = None

    @property
    def corners(self) -> tuple[int, int, int]:
        c = self.tile.corners
        for _ in range(self.turn):
            c = rotate_corners(c, True)
        return c if self.up else flip_corners(c, True)

    def rotated(self) -> "Held":
        """``ROTATE``: 120 degrees clockwise."""
        # Turning a down tile clockwise equals turning its up form counter-clockwise.
        step = 1 if self.up else 2
        return attrs.evolve(self, turn=(self.turn + step) % 3)

    def flipped(self) -> "Held":
        """``FLIP``: mirror top to bottom (up <-> down)."""
        return attrs.evolve(self, up=not self.up)

    def edge_scores(self, inversion: bool) -> tuple[int, int, int]:
        return edge_scores(self.corners, self.tile.primary, inversion)

    def facings(self):
        """The three facings of this tile in its present orientation ((up, turn) pairs)."""
        return [(self.up, t) for t in range(3)]


def facing_corners(tile: Tile, up: bool, turn: int) -> tuple[int, int, int]:
    """Positional corners of ``tile`` held with the given orientation and rotation."""
    return Held(tile, up, turn).corners


def random_tile(rng, tile_id: int, collection: str = "Practice", max_sum: int = 32) -> Tile:
    """A tile with random numbers 0..10 summing to at most ``max_sum`` (for practice
    decks, tests and benchmarks)."""
    while True:
        nums = [rng.randint(0, MAX_NUMBER) for _ in range(4)]
        if sum(nums) <= max_sum:
            break
    rarity = RARITIES[min(3, sum(nums) // 9)]
    return Tile(tile_id, tuple(nums[:3]), nums[3], f"{collection} {tile_id}", rarity, collection)


def random_deck(rng, size: int, first_id: int, collection: str = "Practice") -> tuple[Tile, ...]:
    return tuple(random_tile(rng, first_id + k, collection) for k in range(size))


def name_forms(name: str) -> list[str]:
    """A tile's name from longest to shortest, each made of whole words
    (docs/design.md, Screens, principle 6): "a painted tile of the Ferryman", "painted
    tile of the Ferryman", "painted (Ferryman)", "painted". A name of another shape
    gives itself and its words without the article, then its first word."""
    words = name.split()
    bare = words[1:] if len(words) > 1 and words[0].lower() in ("a", "an", "the") else words
    forms = [name, " ".join(bare)]
    if "tile" in bare[1:2] and len(bare) > 3 and bare[2] == "of":
        place = bare[4:] if bare[3].lower() == "the" and len(bare) > 4 else bare[3:]
        forms.append(f"{bare[0]} ({' '.join(place)})")
    forms.append(bare[0] if bare else name)
    return list(dict.fromkeys(f for f in forms if f))


def short_name(name: str, room: int) -> str:
    """The longest form of ``name`` that fits ``room`` columns; the shortest form when
    none does (a word is never cut)."""
    forms = name_forms(name)
    return next((f for f in forms if len(f) <= room), forms[-1])
