"""Triad Dice: the rules as ``docs/rules/dice.md`` states them.

Board
    A 6x6 grid.  Cells are numbered ``row * 6 + col`` with row 0 = row "1" (the
    challenger's home row) and col 0 = column "a"; ``cell_name(14) == "c3"``.
    ``State.cells`` is a tuple of 36 small ints: ``0`` is an empty cell, ``1..3`` a
    die of seat 0 (the challenger) showing 1..3, ``4..6`` a die of seat 1 showing 1..3
    (``encode_die(seat, value)``, ``die_owner(c)``, ``die_value(c)``).

Setup (``new_game``)
    Each player's six dice are rolled and put on their home row (seat 0 row 1, seat 1
    row 6) sorted ascending from that player's own left to right: seat 0 reads
    ascending a1..f1, seat 1 (facing the other way) ascending f6..a6.  The starting
    player is drawn with the rng unless ``options["starter"]`` fixes it (rematches).

A turn (``apply`` with a ``Move``)
    Choose an own die, turn it to a *different* value and move it exactly that many
    cells in one of the 8 directions, never through or onto a die, never off the
    board.  Only when no die of the player can move at all may the player instead
    change one die's value in place (``Move(cell, value, None)``) or move one die its
    current value without changing it (``Move(cell, None, direction)``).

Triads
    Three dice on three consecutive cells of a row, column or diagonal, both players
    among them, values all equal or all different.  Only Triads the action just formed
    count; every such Triad contains the die acted on (a die that leaves a cell cannot
    complete a line, and a pair of values is completed by exactly one third value, so
    a die changed in place breaks any Triad it stood in).  So the new Triads are
    exactly the Triads through the acted die's final cell (``triads_through``).
    When one or more form, the mover removes one of their own dice that is in one of
    them: the engine removes it when there is exactly one such die, otherwise the turn
    waits for ``Remove(cell)`` from the mover.  Three removals win.

Draws
    The same position (board and player to move) a third time, or 200 turns in a row
    without a removal.  Positions are counted at the start of each turn; a removal
    makes every earlier position impossible, so ``State.history`` only keeps the
    positions since the last removal.  ``Resign`` is accepted from either seat at any
    time while the game runs (it is not listed by ``legal_actions``).
"""

from __future__ import annotations

from typing import ClassVar, Iterator, Sequence

import attrs

from games.errors import IllegalAction
from games.outcome import Outcome

SIZE = 6
CELLS = SIZE * SIZE
SEATS = (0, 1)
VALUES = (1, 2, 3)
DICE_PER_PLAYER = 6
REMOVALS_TO_WIN = 3
QUIET_TURN_LIMIT = 200
REPETITIONS_FOR_DRAW = 3

#: Directions as the board is drawn (row 6 at the top): N is toward row 6.
DIRECTIONS: dict[str, tuple[int, int]] = {
    "N": (0, 1), "NE": (1, 1), "E": (1, 0), "SE": (1, -1),
    "S": (0, -1), "SW": (-1, -1), "W": (-1, 0), "NW": (-1, 1),
}
DIRECTION_NAMES: tuple[str, ...] = tuple(DIRECTIONS)


# --------------------------------------------------------------------------- cells

def cell_name(cell: int) -> str:
    """``14 -> "c3"``."""
    return "abcdef"[cell % SIZE] + str(cell // SIZE + 1)


def cell_index(col: int, row: int) -> int | None:
    """The cell at 0-based (col, row), or None off the board."""
    if 0 <= col < SIZE and 0 <= row < SIZE:
        return row * SIZE + col
    return None


def encode_die(seat: int, value: int) -> int:
    return seat * 3 + value


def die_owner(c: int) -> int:
    """Seat owning the die code ``c`` (``c`` must not be 0)."""
    return (c - 1) // 3


def die_value(c: int) -> int:
    """Value shown by the die code ``c`` (``c`` must not be 0)."""
    return (c - 1) % 3 + 1


def _build_rays() -> tuple[tuple[tuple[int, ...], ...], ...]:
    rays = []
    for cell in range(CELLS):
        col, row = cell % SIZE, cell // SIZE
        per_dir = []
        for dcol, drow in DIRECTIONS.values():
            ray = []
            c, r = col + dcol, row + drow
            while 0 <= c < SIZE and 0 <= r < SIZE:
                ray.append(r * SIZE + c)
                c, r = c + dcol, r + drow
            per_dir.append(tuple(ray))
        rays.append(tuple(per_dir))
    return tuple(rays)


def _build_windows() -> tuple[tuple[tuple[int, int, int], ...], ...]:
    """For each cell, every run of three consecutive cells (in a row, column or
    diagonal) that contains it, each as a sorted triple."""
    axes = ((1, 0), (0, 1), (1, 1), (1, -1))
    windows: list[set[tuple[int, int, int]]] = [set() for _ in range(CELLS)]
    for cell in range(CELLS):
        col, row = cell % SIZE, cell // SIZE
        for dcol, drow in axes:
            run = [cell_index(col + k * dcol, row + k * drow) for k in range(3)]
            if None in run:
                continue
            triple = tuple(sorted(run))
            for member in triple:
                windows[member].add(triple)  # type: ignore[arg-type]
    return tuple(tuple(sorted(w)) for w in windows)


#: ``RAYS[cell][d]``: the cells from ``cell`` toward ``DIRECTION_NAMES[d]``, nearest first.
RAYS = _build_rays()
#: ``WINDOWS[cell]``: the triples of consecutive cells through ``cell``.
WINDOWS = _build_windows()
#: ``PAIRS[cell]``: for each window through ``cell``, the two other cells.
PAIRS = tuple(tuple(tuple(x for x in w if x != cell) for w in WINDOWS[cell]) for cell in range(CELLS))


def _is_triad_codes(a: int, b: int, c: int) -> bool:
    if not (a and b and c):
        return False
    owners = {die_owner(a), die_owner(b), die_owner(c)}
    if len(owners) != 2:
        return False
    values = {die_value(a), die_value(b), die_value(c)}
    return len(values) != 2


#: ``TRIAD[a * 49 + b * 7 + c]`` is True when the die codes a, b, c make a Triad.
TRIAD = tuple(_is_triad_codes(a, b, c) for a in range(7) for b in range(7) for c in range(7))


def is_triad(cells: Sequence[int], window: tuple[int, int, int]) -> bool:
    """Three occupied cells, both players among them, values all equal or all different."""
    x, y, z = window
    return TRIAD[cells[x] * 49 + cells[y] * 7 + cells[z]]


def triads_through(cells: Sequence[int], cell: int) -> tuple[tuple[int, int, int], ...]:
    """The Triads that contain ``cell`` (the new Triads after acting on that die)."""
    code = cells[cell]
    if not code:
        return ()
    return tuple(
        w for w, (p, q) in zip(WINDOWS[cell], PAIRS[cell])
        if TRIAD[code * 49 + cells[p] * 7 + cells[q]]
    )


def all_triads(cells: Sequence[int]) -> tuple[tuple[int, int, int], ...]:
    """Every Triad standing on the board (sorted), whether new or not."""
    found = {w for cell in range(CELLS) for w in WINDOWS[cell] if is_triad(cells, w)}
    return tuple(sorted(found))


def free_run(cells: Sequence[int], cell: int, d: int) -> int:
    """How many empty cells (at most 3) follow ``cell`` toward direction ``d``."""
    n = 0
    for target in RAYS[cell][d]:
        if cells[target] or n == 3:
            break
        n += 1
    return n


def moves_from(cells: Sequence[int], cell: int) -> Iterator[tuple[int, int, int]]:
    """Ordinary moves of the die on ``cell``: ``(new_value, direction_index, target)``."""
    old = die_value(cells[cell])
    rays = RAYS[cell]
    for d in range(8):
        ray = rays[d]
        for i, target in enumerate(ray[:3]):
            if cells[target]:
                break
            if i + 1 != old:
                yield i + 1, d, target


def has_ordinary_move(cells: Sequence[int], seat: int) -> bool:
    """True when some die of ``seat`` can change its value and move (a normal turn)."""
    lo, hi = seat * 3 + 1, seat * 3 + 3
    for cell in range(CELLS):
        if lo <= cells[cell] <= hi:
            for _ in moves_from(cells, cell):
                return True
    return False


def position_key(cells: Sequence[int], turn: int) -> str:
    """The position for repetition: board plus the player to move, e.g. ``"1230...:0"``."""
    return "".join(map(str, cells)) + ":" + str(turn)


# --------------------------------------------------------------------------- actions

def _check_cell(_inst, attribute, value) -> None:
    if not (isinstance(value, int) and 0 <= value < CELLS):
        raise ValueError(f"{attribute.name} must be a cell 0..35, not {value!r}")


def _check_value(_inst, _attribute, value) -> None:
    if value is not None and value not in VALUES:
        raise ValueError(f"value must be 1, 2, 3 or None, not {value!r}")


def _check_direction(_inst, _attribute, value) -> None:
    if value is not None and value not in DIRECTIONS:
        raise ValueError(f"direction must be one of {DIRECTION_NAMES} or None, not {value!r}")


@attrs.frozen(repr=False)
class Move:
    """Turn the die on ``cell`` to ``value`` and move it ``value`` cells ``direction``.

    Stalemate forms (only legal when no ordinary move exists): ``direction=None``
    changes the value in place; ``value=None`` moves the die its current value.
    """

    cell: int = attrs.field(validator=_check_cell)
    value: int | None = attrs.field(default=None, validator=_check_value)
    direction: str | None = attrs.field(default=None, validator=_check_direction)

    def __attrs_post_init__(self) -> None:
        if self.value is None and self.direction is None:
            raise ValueError("a Move needs a value, a direction or both")

    def __repr__(self) -> str:
        parts = [cell_name(self.cell)]
        if self.value is not None:
            parts.append(str(self.value))
        if self.direction is not None:
            parts.append(self.direction)
        return f"Move({' '.join(parts)})"


@attrs.frozen(repr=False)
class Remove:
    """Remove the mover's own die on ``cell`` after forming a Triad."""

    cell: int = attrs.field(validator=_check_cell)

    def __repr__(self) -> str:
        return f"Remove({cell_name(self.cell)})"


@attrs.frozen
class Resign:
    """Give up the game (either seat, at any time while it runs)."""


Action = Move | Remove | Resign


# --------------------------------------------------------------------------- events

@attrs.frozen
class DieMoved:
    """A die of ``seat`` went from ``origin`` to ``target`` (equal when changed in place).
    Its sentence goes on the line of the move that made it (games/__init__.py's facts)."""

    continues: ClassVar[bool] = True

    seat: int
    origin: int
    target: int
    old_value: int
    new_value: int

    def __str__(self) -> str:
        if self.origin == self.target:
            return f"die at {cell_name(self.origin)} turned from {self.old_value} to {self.new_value}"
        return (f"die moved from {cell_name(self.origin)} to {cell_name(self.target)}"
                f" showing {self.new_value}")


@attrs.frozen
class TriadsFormed:
    seat: int
    triads: tuple[tuple[int, int, int], ...]

    def __str__(self) -> str:
        lines = ", ".join("-".join(cell_name(c) for c in t) for t in self.triads)
        return f"Triad formed: {lines}" if len(self.triads) == 1 else f"Triads formed: {lines}"


@attrs.frozen
class RemovalRequired:
    seat: int
    cells: tuple[int, ...]

    def __str__(self) -> str:
        return "a die to remove must be chosen: " + ", ".join(map(cell_name, self.cells))


@attrs.frozen
class DieRemoved:
    seat: int
    cell: int
    chosen: bool  # False when the engine removed the only candidate

    @property
    def continues(self) -> bool:
        """A removal the player chose (DICE REMOVE) is told on the line of that action."""
        return self.chosen

    def __str__(self) -> str:
        return f"die removed at {cell_name(self.cell)}"


@attrs.frozen
class GameEnded:
    outcome: Outcome

    def __str__(self) -> str:
        if self.outcome.winner is None:
            return f"the game is drawn ({self.outcome.reason})"
        return f"seat {self.outcome.winner} wins ({self.outcome.reason})"


Event = DieMoved | TriadsFormed | RemovalRequired | DieRemoved | GameEnded


# --------------------------------------------------------------------------- state

@attrs.frozen(repr=False)
class State:
    """A Triad Dice position between turns (or waiting for the mover's removal).

    ``turn`` is the seat acting now; ``pending`` lists the cells the mover may remove
    (empty unless a removal must be chosen); ``history`` holds the position keys
    since the last removal (the current one last); ``quiet_turns`` counts turns since
    the last removal; ``turns`` counts completed turns; ``last_*`` mark the last move.
    """

    cells: tuple[int, ...] = attrs.field(converter=tuple)
    turn: int
    starter: int
    removed: tuple[int, int] = attrs.field(default=(0, 0), converter=tuple)
    pending: tuple[int, ...] = attrs.field(default=(), converter=tuple)
    turns: int = 0
    quiet_turns: int = 0
    history: tuple[str, ...] = attrs.field(default=(), converter=tuple)
    last_from: int | None = None
    last_to: int | None = None
    last_removed: int | None = None
    result: Outcome | None = None

    @cells.validator
    def _check_cells(self, _attribute, value) -> None:
        if len(value) != CELLS or any(not (0 <= c <= 6) for c in value):
            raise ValueError("cells must be 36 codes 0..6")

    def __repr__(self) -> str:
        rows = "/".join("".join(map(str, self.cells[r * SIZE:(r + 1) * SIZE])) for r in range(SIZE))
        return (f"State({rows} turn={self.turn} removed={self.removed}"
                f" pending={[cell_name(c) for c in self.pending]} turns={self.turns}"
                f" result={self.result})")

    def die_at(self, cell: int) -> tuple[int, int] | None:
        """``(seat, value)`` of the die on ``cell``, or None."""
        c = self.cells[cell]
        return (die_owner(c), die_value(c)) if c else None

    def dice_of(self, seat: int) -> tuple[int, ...]:
        """The cells holding ``seat``'s dice."""
        return tuple(i for i, c in enumerate(self.cells) if c and die_owner(c) == seat)


def new_game(options: dict | None = None, rng=None) -> State:
    """Roll and place both home rows; draw the starting player unless ``options["starter"]``."""
    options = options or {}
    cells = [0] * CELLS
    for seat in SEATS:
        values = sorted(rng.randint(1, 3) for _ in range(DICE_PER_PLAYER))
        for col, value in enumerate(values):
            if seat == 0:
                cells[col] = encode_die(0, value)
            else:  # seat 1 faces the other way: its left is column f
                cells[5 * SIZE + (SIZE - 1 - col)] = encode_die(1, value)
    starter = options.get("starter")
    if starter is None:
        starter = rng.randrange(2)
    if starter not in SEATS:
        raise ValueError(f"starter must be 0 or 1, not {starter!r}")
    cells_t = tuple(cells)
    return State(cells=cells_t, turn=starter, starter=starter,
                 history=(position_key(cells_t, starter),))


def to_move(state: State) -> tuple[int, ...]:
    """The seat that acts now (the mover also while a removal is pending)."""
    return () if state.result is not None else (state.turn,)


def outcome(state: State) -> Outcome | None:
    return state.result


def legal_actions(state: State, seat: int) -> Iterator[Move | Remove]:
    """Every board action ``seat`` may take now (``Resign`` is always possible and not listed).

    Ordinary moves when there is one; otherwise the two stalemate forms.
    """
    if state.result is not None or seat != state.turn:
        return
    if state.pending:
        for cell in state.pending:
            yield Remove(cell)
        return
    cells = state.cells
    own = state.dice_of(seat)
    found = False
    for cell in own:
        for value, d, _target in sorted(moves_from(cells, cell)):
            found = True
            yield Move(cell, value, DIRECTION_NAMES[d])
    if found:
        return
    for cell in own:
        old = die_value(cells[cell])
        for value in VALUES:
            if value != old:
                yield Move(cell, value, None)
        for d, name in enumerate(DIRECTION_NAMES):
            if free_run(cells, cell, d) >= old:
                yield Move(cell, None, name)


# --------------------------------------------------------------------------- apply

def _path_error(cells: Sequence[int], cell: int, steps: int, direction: str) -> str | None:
    """Why the die on ``cell`` cannot go ``steps`` cells ``direction``, or None if it can."""
    dcol, drow = DIRECTIONS[direction]
    col, row = cell % SIZE, cell // SIZE
    for k in range(1, steps + 1):
        c, r = col + k * dcol, row + k * drow
        target = cell_index(c, r)
        if target is None:
            end_c, end_r = col + steps * dcol, row + steps * drow
            if 0 <= end_c < 26 and end_r >= 0:
                where = "abcdefghijklmnopqrstuvwxyz"[end_c] + str(end_r + 1)
                return f"{where} is off the board"
            return (f"{steps} cell{'' if steps == 1 else 's'} {direction} from "
                    f"{cell_name(cell)} is off the board")
        if cells[target]:
            dest = cell_index(col + steps * dcol, row + steps * drow)
            if k == steps:
                return f"{cell_name(target)} is occupied"
            if dest is None:
                return f"the path from {cell_name(cell)} is blocked at {cell_name(target)}"
            return (f"the path from {cell_name(cell)} to {cell_name(dest)}"
                    f" is blocked at {cell_name(target)}")
    return None


def _check_move(state: State, seat: int, move: Move) -> int:
    """Validate ``move`` for ``seat``; return the target cell or raise IllegalAction."""
    cells = state.cells
    code = cells[move.cell]
    name = cell_name(move.cell)
    if not code:
        raise IllegalAction(f"there is no die on {name}")
    if die_owner(code) != seat:
        raise IllegalAction(f"{name} is not your die")
    old = die_value(code)
    stalemate_form = move.value is None or move.direction is None
    if stalemate_form:
        if has_ordinary_move(cells, seat):
            raise IllegalAction("you can still move a die: turn one to a new value and move "
                                "it (MOVE c1 3 NE)")
        if move.direction is None:
            if move.value == old:
                raise IllegalAction("a die must change its value")
            return move.cell
        error = _path_error(cells, move.cell, old, move.direction)
        if error:
            raise IllegalAction(error)
        return RAYS[move.cell][DIRECTION_NAMES.index(move.direction)][old - 1]
    if move.value == old:
        raise IllegalAction("a die must change its value")
    error = _path_error(cells, move.cell, move.value, move.direction)
    if error:
        if not any(True for _ in moves_from(cells, move.cell)):
            error += f" (and {name} cannot move at any new value)"
        raise IllegalAction(error)
    return RAYS[move.cell][DIRECTION_NAMES.index(move.direction)][move.value - 1]


def _end_turn(state: State, cells: tuple[int, ...], removed_cell: int | None,
              events: list, **last) -> State:
    """Finish the mover's turn: removal, win, next player, draw rules."""
    seat = state.turn
    removed = list(state.removed)
    if removed_cell is not None:
        removed[seat] += 1
    nxt = 1 - seat
    key = position_key(cells, nxt)
    if removed_cell is not None:
        history: tuple[str, ...] = (key,)
        quiet = 0
    else:
        history = state.history + (key,)
        quiet = state.quiet_turns + 1
    result = None
    if removed[seat] >= REMOVALS_TO_WIN:
        result = Outcome(seat, "three dice removed", tuple(removed))
    elif history.count(key) >= REPETITIONS_FOR_DRAW:
        result = Outcome(None, "threefold repetition", tuple(removed))
    elif quiet >= QUIET_TURN_LIMIT:
        result = Outcome(None, f"{QUIET_TURN_LIMIT} turns without a removal", tuple(removed))
    if result is not None:
        events.append(GameEnded(result))
    return attrs.evolve(
        state, cells=cells, turn=nxt, removed=tuple(removed), pending=(),
        turns=state.turns + 1, quiet_turns=quiet, history=history,
        last_removed=removed_cell, result=result, **last,
    )


def apply(state: State, seat: int, action: Action, rng=None) -> tuple[State, list]:
    """Play ``action`` for ``seat``; return the new state and the events.

    :raises IllegalAction: with a message for the player; ``state`` is never changed.
    """
    if state.result is not None:
        raise IllegalAction("the game is over")
    if seat not in SEATS:
        raise IllegalAction(f"there is no seat {seat}")
    events: list = []
    if isinstance(action, Resign):
        result = Outcome(1 - seat, "resignation", state.removed)
        events.append(GameEnded(result))
        return attrs.evolve(state, result=result, pending=()), events
    if seat != state.turn:
        raise IllegalAction("it is not your turn")
    if isinstance(action, Remove):
        if not state.pending:
            raise IllegalAction("there is no die to remove now")
        if action.cell not in state.pending:
            raise IllegalAction(f"{cell_name(action.cell)} is not one of the dice you may remove"
                                f" ({', '.join(map(cell_name, state.pending))})")
        cells = list(state.cells)
        cells[action.cell] = 0
        events.append(DieRemoved(seat, action.cell, True))
        return _end_turn(state, tuple(cells), action.cell, events), events
    if not isinstance(action, Move):
        raise IllegalAction(f"{action!r} is not a Triad Dice action")
    if state.pending:
        raise IllegalAction("first remove one of your dice: "
                            + ", ".join(map(cell_name, state.pending)))
    target = _check_move(state, seat, action)
    code = state.cells[action.cell]
    old = die_value(code)
    new = old if action.value is None else action.value
    cells = list(state.cells)
    cells[action.cell] = 0
    cells[target] = encode_die(seat, new)
    events.append(DieMoved(seat, action.cell, target, old, new))
    last = {"last_from": action.cell, "last_to": target}
    triads = triads_through(cells, target)
    if not triads:
        return _end_turn(state, tuple(cells), None, events, **last), events
    events.append(TriadsFormed(seat, triads))
    candidates = tuple(sorted({c for t in triads for c in t if die_owner(cells[c]) == seat}))
    if len(candidates) == 1:
        only = candidates[0]
        cells[only] = 0
        events.append(DieRemoved(seat, only, False))
        return _end_turn(state, tuple(cells), only, events, **last), events
    events.append(RemovalRequired(seat, candidates))
    return attrs.evolve(state, cells=tuple(cells), pending=candidates, last_removed=None,
                        **last), events
