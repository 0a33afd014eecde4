"""Triptycha notation: the only code that turns text into actions and rules and back,
plus the exact JSON codec of ``State``.

Actions (what follows ``TT``; all case-insensitive; ``<2>`` may be written ``2``)::

    DRAW <tile>   LAY <tile> [IN] <niche>   ROTATE <tile>   FLIP <tile>
    TAKE <number>   DONE   RESIGN

Rules words: ``Truth Random Inversion Undercut Confusion Plunder Take <1..5> Ranked
Disc <collection>``.
"""

from __future__ import annotations

from collections.abc import Sequence

from games.errors import BadNotation

from .rules import (Action, Done, Draw, Flip, Lay, Options, Resign, Rotate, Rules, State,
                    Take)
from .tiles import Held, Tile

USAGE = {
    "DRAW": "Usage: TT DRAW <tile>",
    "LAY": "Usage: TT LAY <tile> [IN] <niche>",
    "ROTATE": "Usage: TT ROTATE <tile>",
    "FLIP": "Usage: TT FLIP <tile>",
    "TAKE": "Usage: TT TAKE <number>",
    "DONE": "Usage: TT DONE",
    "RESIGN": "Usage: TT RESIGN",
}
_ONE_NUMBER = {"DRAW": Draw, "ROTATE": Rotate, "FLIP": Flip, "TAKE": Take}


def _words(text) -> list[str]:
    if isinstance(text, str):
        return text.split()
    return [w for piece in text for w in str(piece).split()]


def _number(word: str, usage: str) -> int:
    w = word.strip()
    if w.startswith("<") and w.endswith(">"):
        w = w[1:-1]
    if not w.isdecimal() or len(w) > 4:
        raise BadNotation(usage)
    return int(w)


def parse_action(text: str | Sequence[str]) -> Action:
    """Read an action from the words after ``TT``.

    >>> parse_action("lay <2> in 5")
    Lay(tile=2, niche=5)

    :raises BadNotation: with the usage line of that command.
    """
    words = _words(text)
    if not words:
        raise BadNotation("Usage: TT LAY <tile> [IN] <niche> (or DRAW, ROTATE, FLIP, "
                          "TAKE, DONE, RESIGN)")
    verb, args = words[0].upper(), words[1:]
    if verb in _ONE_NUMBER:
        if len(args) != 1:
            raise BadNotation(USAGE[verb])
        return _ONE_NUMBER[verb](_number(args[0], USAGE[verb]))
    if verb == "LAY":
        if len(args) == 3 and args[1].upper() == "IN":
            args = [args[0], args[2]]
        if len(args) != 2:
            raise BadNotation(USAGE[verb])
        return Lay(_number(args[0], USAGE[verb]), _number(args[1], USAGE[verb]))
    if verb in ("DONE", "RESIGN"):
        if args:
            raise BadNotation(USAGE[verb])
        return Done() if verb == "DONE" else Resign()
    raise BadNotation(f"Unknown Triptycha action {words[0]!r}; try LAY, ROTATE, FLIP, DRAW, "
                      "TAKE, DONE or RESIGN.")


def format_action(action: Action) -> str:
    """The canonical text of an action: ``parse_action(format_action(a)) == a``."""
    if isinstance(action, Lay):
        return f"LAY {action.tile} IN {action.niche}"
    for verb, kind in _ONE_NUMBER.items():
        if isinstance(action, kind):
            return f"{verb} {action.tile}"
    if isinstance(action, Done):
        return "DONE"
    if isinstance(action, Resign):
        return "RESIGN"
    raise TypeError(f"not a Triptycha action: {action!r}")


# --------------------------------------------------------------------------- rules words

RULE_WORDS = ("truth", "random", "inversion", "undercut", "confusion", "plunder", "take",
              "ranked", "disc")
RULES_USAGE = ("Rules: Truth, Random, Inversion, Undercut, Confusion, Plunder, "
               "Take <1-5>, Ranked, Disc <collection>.")


def parse_rules(words: str | Sequence[str]) -> Rules:
    """Read rule variants (any order, case-insensitive).

    ``Disc`` takes the following words up to the next rule word as the collection name.

    :raises BadNotation: an unknown word, a bad Take count, or ``inversion`` with
        ``undercut`` (use ``confusion``).
    """
    ws = _words(words)
    flags = dict(truth=False, random=False, inversion=False, undercut=False, plunder=False,
                 ranked=False)
    take = 0
    disc = None
    said = set()
    i = 0
    while i < len(ws):
        w = ws[i].lower()
        i += 1
        if w not in RULE_WORDS:
            raise BadNotation(f"Unknown rule {ws[i - 1]!r}. {RULES_USAGE}")
        said.add(w)
        if w == "confusion":
            flags["inversion"] = flags["undercut"] = True
        elif w == "take":
            if i >= len(ws) or not ws[i].isdecimal() or not 1 <= int(ws[i]) <= 5:
                raise BadNotation("Take needs a number of tiles from 1 to 5: Take <1-5>.")
            n = int(ws[i])
            i += 1
            if take and take != n:
                raise BadNotation("Take is given twice with different numbers.")
            take = n
        elif w == "disc":
            name = []
            while i < len(ws) and ws[i].lower() not in RULE_WORDS:
                name.append(ws[i])
                i += 1
            if not name:
                raise BadNotation("Disc needs a collection: Disc <collection>.")
            disc = " ".join(name)
        else:
            flags[w] = True
    if "inversion" in said and "undercut" in said:
        raise BadNotation("Inversion cannot be combined with Undercut; use Confusion instead.")
    return Rules(take=take, disc=disc, **flags)


def format_rules(rules: Rules) -> str:
    """The rules in force as words ``parse_rules`` reads back ("Standard" if none)."""
    out = []
    if rules.truth:
        out.append("Truth")
    if rules.random:
        out.append("Random")
    if rules.confusion:
        out.append("Confusion")
    elif rules.inversion:
        out.append("Inversion")
    elif rules.undercut:
        out.append("Undercut")
    if rules.plunder:
        out.append("Plunder")
    if rules.take:
        out.append(f"Take {rules.take}")
    if rules.ranked:
        out.append("Ranked")
    if rules.disc is not None:
        out.append(f"Disc {rules.disc}")
    return " ".join(out) if out else "Standard"


# --------------------------------------------------------------------------- JSON


def tile_to_json(t: Tile) -> dict:
    return {"id": t.id, "corners": list(t.corners), "primary": t.primary, "name": t.name,
            "rarity": t.rarity, "collection": t.collection}


def tile_from_json(d: dict) -> Tile:
    return Tile(d["id"], tuple(d["corners"]), d["primary"], d["name"], d["rarity"],
                d["collection"])


def rules_to_json(r: Rules) -> dict:
    return {"truth": r.truth, "random": r.random, "inversion": r.inversion,
            "undercut": r.undercut, "plunder": r.plunder, "take": r.take, "ranked": r.ranked,
            "disc": r.disc}


def rules_from_json(d: dict) -> Rules:
    return Rules(**d)


def _held_to_json(h: Held) -> dict:
    return {"tile": tile_to_json(h.tile), "up": h.up, "turn": h.turn, "niche": h.niche}


def _held_from_json(d: dict) -> Held:
    return Held(tile_from_json(d["tile"]), d["up"], d["turn"], d["niche"])


def state_to_json(s: State) -> dict:
    return {
        "rules": rules_to_json(s.rules),
        "decks": [[tile_to_json(t) for t in deck] for deck in s.decks],
        "hands": [[_held_to_json(h) for h in hand] for hand in s.hands],
        "control": list(s.control),
        "phase": s.phase,
        "turn": s.turn,
        "resigned": s.resigned,
        "taken": list(s.taken),
        "last_niche": s.last_niche,
        "last_flipped": list(s.last_flipped),
    }


def state_from_json(d: dict) -> State:
    return State(
        rules=rules_from_json(d["rules"]),
        decks=tuple(tuple(tile_from_json(t) for t in deck) for deck in d["decks"]),
        hands=tuple(tuple(_held_from_json(h) for h in hand) for hand in d["hands"]),
        control=tuple(d["control"]),
        phase=d["phase"],
        turn=d["turn"],
        resigned=d["resigned"],
        taken=tuple(d["taken"]),
        last_niche=d.get("last_niche"),
        last_flipped=tuple(d.get("last_flipped", ())),
    )


def options_from_json(d: dict) -> Options:
    """Options as the server may store them: ``{"decks": [[tile...], [tile...]], "rules": {...}}``."""
    return Options(tuple(tuple(tile_from_json(t) for t in deck) for deck in d["decks"]),
                   rules_from_json(d["rules"]))
