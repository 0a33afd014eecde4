"""A hosted Pyramid match: one engine match (``rules.State``) per seat, all played at
once (docs/rules/pyramid.md, "Play modes"). ``rules`` plays one player's standard game or
tournament; this module is the table around those matches that the parlor hosts.

State
    :class:`Table`: ``matches[seat]`` is each seat's match, ``computer[seat]`` whether
    the computer plays it, ``same_deck`` (Use Same Deck: every match has the same
    seeds), and, once closed, the word that closed it and who did.

    * Standard play and a tournament alone: one seat.
    * A tournament against the computer: two seats, the second the computer's. With Use
      Same Deck it plays a deal only once every person has finished it
      (:func:`waiting_for_deal`), so its moves never tell of a deal still to be played.
    * A tournament against a person: two seats, each told only of their own moves
      (:func:`audience`), and of the other's when one of the other's games ends.
    * Use Same Deck, whoever plays: nobody but its player sees a deal, or hears of its
      moves, before every seat has finished it (:func:`is_shown`), since the others are
      dealt the same cards; the running scores are everyone's to see.
    * Sealed (``sealed``, a Par tournament's entrant playing its set of deals): nobody
      but its player sees a deal, or hears of its moves, until the table is unsealed
      (:func:`unseal`, when the tournament is over), since every entrant is dealt the
      same cards; :func:`withheld` says why to anyone who asks to see it.

Actions
    The match engine's (``rules.Action``: a pair, a King, ``D``, ``END``), for the seat's
    own match, and :class:`Close` (``SAVE``, ``EXIT``, ``NEW``, ``RESIGN``) for the whole
    table. :func:`check_close` is the one check of a Close (and of its refusal's words);
    ``apply`` raises :class:`games.errors.IllegalAction` and leaves the table unchanged.

Events
    :class:`MatchEvent` (an engine event of one seat's match) and :class:`Closed`; who hears
    them is :func:`audience` (an :class:`Audience`).

How a table ends (``outcome``)
    Played out (every match over), or closed: SAVE, EXIT and NEW are not counted in the
    records (:func:`counts`); RESIGN (EXIT against a person) is a loss for the closer.
"""

from __future__ import annotations

import random
from typing import Any, Iterator

import attrs

from games.errors import BadOption, IllegalAction, RuleError
from games.outcome import Outcome

from . import ai, notation, rules
from .cards import DECK_SIZE
from . import render as board

LEVELS = ai.LEVELS

# Closing a table (the words are its notation, stored in the move list).
SAVE, EXIT, RENEW, RESIGN = "SAVE", "EXIT", "NEW", "RESIGN"
CLOSE_WORDS = {SAVE: SAVE, EXIT: EXIT, RENEW: RENEW, RESIGN: RESIGN}
# Outcome reasons of tables that were closed rather than played out: not counted.
SAVED_REASON = "put away with PYR SAVE"
ABANDONED_REASON = "tournament abandoned"
RENEWED_REASON = "a new match begun"
NOT_COUNTED = frozenset({SAVED_REASON, ABANDONED_REASON, RENEWED_REASON})

#: Closes that are refused, by (who is at the table, the word): "standard" play, or a
#: tournament against a "person". A Close missing here is allowed.
CLOSE_REFUSALS = {
    ("standard", SAVE): "SAVE is for tournament play; a standard game is kept anyway "
                        "(PYR QUIT ends it).",
    ("standard", EXIT): "EXIT is for tournament play; in standard play PYR QUIT ends the "
                        "game.",
    ("standard", RENEW): "A new match is tournament play; in standard play PYR NEW "
                         "deals another game.",
    ("person", SAVE): "A tournament against a person cannot be saved; it waits for you "
                      "if you drop.",
    ("person", RENEW): "Against a person NEW would restart your opponent's tournament; "
                       "PYR EXIT resigns.",
    ("sealed", SAVE): "A Par tournament's deals cannot be saved: play them out (PYR EXIT "
                      "gives up).",
    ("sealed", RENEW): "A Par tournament's deals are dealt once: play them out (PYR EXIT "
                       "gives up).",
}  # each one line of 80 columns: a refusal is one line

#: docs/rules/pyramid.md ("Play modes"): in tournament play HINT, TOUR, AUTO and QUIT are replaced
#: by TOP10, SAVE, SCORE and EXIT. The parlor's commands that are no action of the table,
#: refused by (mode, command); SAVE, EXIT and NEW are Closes (``CLOSE_REFUSALS``).
COMMAND_REFUSALS = {
    ("tournament", "HINT"): "HINT is not available in tournament play.",
    ("tournament", "AUTO"): "AUTO is not available in tournament play.",
    ("tournament", "QUIT"): "In tournament play QUIT is replaced by EXIT (PYR EXIT).",
    ("tournament", "TOUR"): "You are in tournament play already (PYR EXIT leaves it; PYR "
                            "NEW starts anew).",
}


def sentence(text: str) -> str:
    """An engine message as a sentence: "9 + 5 is 14, not 13" -> "9 + 5 is 14, not 13."."""
    text = text.strip()
    if text and text[0].isalpha() and not (len(text) > 1 and text[1] in ",0123456789"):
        text = text[0].upper() + text[1:]
    return text if not text or text[-1] in ".!?" else text + "."


def _counted(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


# -- actions and events ------------------------------------------------------------------------
@attrs.frozen
class Close:
    """A table-wide action: SAVE (put away), EXIT (abandon; against a person, resign),
    NEW (a new match follows) or RESIGN."""

    what: str = attrs.field(validator=attrs.validators.in_((SAVE, EXIT, RENEW, RESIGN)))


@attrs.frozen
class MatchEvent:
    """An engine event of one seat's match, with what describing it needs."""

    seat: int
    mode: str
    games: int
    event: Any

    @property
    def new_phase(self) -> bool:
        """The engine event's fact (a new pass through the Pack: games/__init__.py)."""
        return bool(getattr(self.event, "new_phase", False))


@attrs.frozen
class Closed:
    seat: int
    what: str


# -- the table ---------------------------------------------------------------------------------
@attrs.frozen
class Table:
    """A hosted Pyramid game: ``matches[seat]`` is each seat's engine match."""

    matches: tuple[rules.State, ...] = attrs.field(converter=tuple)
    computer: tuple[bool, ...] = attrs.field(converter=tuple)
    same_deck: bool = False
    closed: str = ""          # "" in play, else the Close word that closed it
    closer: int | None = None
    sealed: str = ""          # what the deals are sealed for ("Par tournament 3"), or ""

    @property
    def mode(self) -> str:
        return self.matches[0].mode

    @property
    def humans(self) -> int:
        return sum(1 for c in self.computer if not c)

    @property
    def played_out(self) -> bool:
        return all(m.over for m in self.matches)

    def summary(self, seat: int) -> str:
        m = self.matches[seat]
        if m.mode == "standard":
            return f"standard game, {_counted(m.game.cards_left, 'card')} left"
        return f"game {m.game_no} of {m.n_games}, net {m.total:+d}"


def new_table(options: dict[str, Any], computer: tuple[bool, ...], same_deck: bool,
              rng: random.Random) -> Table:
    """A table of ``len(computer)`` seats: ``options["mode"]`` "standard" or "tournament";
    ``options["seeds"]`` the deals (a Par tournament's set) and ``options["sealed"]``
    what they are sealed for (see :func:`withheld`)."""
    mode = options.get("mode", "standard")
    sealed = str(options.get("sealed") or "")
    if options.get("seeds"):
        if len(computer) != 1 or any(computer):
            raise BadOption("A set of deals is played by one person alone.")
        match = rules.new_game({"mode": mode, "seeds": options["seeds"]}, rng)
        return Table(matches=(match,), computer=computer, sealed=sealed)
    if same_deck:
        first = rules.new_game({"mode": mode}, rng)
        matches = [rules.new_game({"mode": mode, "seeds": first.seeds}, rng)
                   for _ in computer]
    else:
        matches = [rules.new_game({"mode": mode}, rng) for _ in computer]
    return Table(matches=matches, computer=computer, same_deck=same_deck)


def waiting_for_deal(table: Table, seat: int) -> bool:
    """With Use Same Deck the computer plays a deal only once every person at the table
    has finished it."""
    if not (table.same_deck and table.computer[seat]):
        return False
    game_no = table.matches[seat].game_no
    return any(not m.over and len(m.scores) < game_no
               for i, m in enumerate(table.matches) if not table.computer[i])


def is_shown(table: Table, game_no: int) -> bool:
    """Whether deal ``game_no`` may be shown to anyone besides a seat playing it: never
    while the table is sealed; with Use Same Deck at a table of two only once every seat
    has finished it (the other would see the cards it is still to be dealt), or once the
    table is over."""
    if table.sealed:
        return False
    if not table.same_deck or len(table.matches) == 1 or table.closed or table.played_out:
        return True
    return all(len(m.scores) >= game_no for m in table.matches)


def withheld(table: Table) -> str | None:
    """Why nobody but its player may see the table at all now (OBSERVE, REPLAY, EXAMINE,
    the web pages and their JSON ask this first), or None when its other rules apply. It
    follows a colon ("Game #4 may not be shown: its deals are sealed ..."): lower case."""
    if table.sealed:
        return (f"its deals are sealed until {table.sealed} is over: nobody may see them "
                "before every entrant has played them.")
    return None


def unseal(table: Table) -> Table:
    """The table as it may be shown once what sealed it is over."""
    return attrs.evolve(table, sealed="")


def deal_scores(table: Table, seat: int = 0) -> tuple[int, ...]:
    """The Par score of each of ``seat``'s deals as a Par tournament counts them: a deal
    finished scores its Par; a deal left unfinished (the table closed) scores minus the
    cards left, and a deal never dealt minus all 52 (nothing of it was removed)."""
    match = table.matches[seat]
    scores = [g.score if g.over else -g.cards_left for g in match.games]
    return tuple(scores + [-DECK_SIZE] * (match.n_games - len(match.games)))


def to_move(table: Table) -> tuple[int, ...]:
    if table.closed:
        return ()
    return tuple(i for i, m in enumerate(table.matches)
                 if not m.over and not waiting_for_deal(table, i))


def check_close(table: Table, seat: int, what: str) -> str:
    """Whether ``seat`` may close the table with ``what``; the word that closes it (EXIT
    against a person resigns: RESIGN).

    :raises IllegalAction: the refusal, in the player's words (``CLOSE_REFUSALS``).
    """
    if table.closed:
        raise IllegalAction("This game is closed.")
    if not 0 <= seat < len(table.matches):
        raise IllegalAction("There is no such seat at this table.")
    who = "standard" if table.mode != "tournament" else (
        "person" if table.humans > 1 else "sealed" if table.sealed else "alone")
    refusal = CLOSE_REFUSALS.get((who, what))
    if refusal is not None:
        raise IllegalAction(refusal)
    return RESIGN if what == EXIT and who == "person" else what


def check_command(table: Table, command: str) -> None:
    """Whether the parlor's ``command`` (HINT, AUTO, QUIT, TOUR) is played in the table's
    mode.

    :raises IllegalAction: the refusal, in the player's words (``COMMAND_REFUSALS``).
    """
    refusal = COMMAND_REFUSALS.get((table.mode, command.upper()))
    if refusal is not None:
        raise IllegalAction(refusal)


def legal_actions(table: Table, seat: int) -> Iterator[Any]:
    """The actions ``seat`` may take now: its match's moves, then the Closes allowed."""
    if outcome(table) is not None or not 0 <= seat < len(table.matches):
        return
    if seat in to_move(table):
        yield from rules.legal_actions(table.matches[seat], 0)
    for what in (SAVE, EXIT, RENEW, RESIGN):
        try:
            check_close(table, seat, what)
        except IllegalAction:
            continue
        yield Close(what)


def _resign_ends_the_game(table: Table) -> bool:
    """Resigning a standard game (alone) ends it as it stands."""
    return table.mode == "standard" and len(table.matches) == 1


def apply(table: Table, seat: int, action: Any, rng: random.Random | None = None):
    """One seat's action on its own match, or a Close of the whole table."""
    if table.closed:
        raise IllegalAction("This game is closed.")
    if not 0 <= seat < len(table.matches):
        raise IllegalAction("There is no such seat at this table.")
    if isinstance(action, Close):
        what = check_close(table, seat, action.what)
        if what == RESIGN and _resign_ends_the_game(table):
            action = rules.END
        else:
            return attrs.evolve(table, closed=what, closer=seat), [Closed(seat, what)]
    match = table.matches[seat]
    if match.over:
        raise IllegalAction("You have played all your games; the others are still playing.")
    if waiting_for_deal(table, seat):
        raise IllegalAction("With Use Same Deck the computer waits until the deal is played.")
    try:
        new, events = rules.apply(match, 0, action, rng)
    except RuleError as err:
        raise type(err)(sentence(str(err))) from None
    matches = table.matches[:seat] + (new,) + table.matches[seat + 1:]
    told = [MatchEvent(seat, match.mode, match.n_games, e) for e in events]
    return attrs.evolve(table, matches=matches), told


def outcome(table: Table) -> Outcome | None:
    totals = tuple(m.total for m in table.matches)
    if table.closed == SAVE:
        return Outcome(None, SAVED_REASON, totals)
    if table.closed == EXIT:
        return Outcome(None, ABANDONED_REASON, totals)
    if table.closed == RENEW:
        return Outcome(None, RENEWED_REASON, totals)
    if table.closed == RESIGN:
        others = [i for i in range(len(table.matches)) if i != table.closer]
        winner = max(others, key=lambda i: totals[i]) if others else None
        return Outcome(winner, "resignation", totals)
    if not table.played_out:
        return None
    if len(table.matches) == 1:
        o = rules.outcome(table.matches[0])
        return Outcome(o.winner, o.reason, totals)
    best = max(totals)
    winners = [i for i, t in enumerate(totals) if t == best]
    order = sorted(range(len(totals)), key=lambda i: -totals[i])  # the winner's first
    return Outcome(winners[0] if len(winners) == 1 else None,
                   f"{rules.games_word(table.matches[0].n_games)} each, net Par "
                   + " vs ".join(f"{totals[i]:+d}" for i in order),
                   totals)


def counts(result: Outcome) -> bool:
    """Whether a finished table counts in the players' records (not when closed with SAVE,
    EXIT alone or against the computer, or NEW)."""
    return result.reason not in NOT_COUNTED and len(result.scores) > 1  # a solitaire:
    # never a win, a loss or a draw in the records (its Par scores go to the Top 10)


@attrs.frozen
class Audience:
    """Who hears an action in full (the parlor's ``PlaySpec.audience``): the players of
    ``seats`` (None: every player) and, if ``watchers``, the watchers. Everyone else hears
    only its ``public`` events (a game's end and score, the next deal), if any."""

    seats: tuple[int, ...] | None = None
    watchers: bool = True
    public: tuple = ()


#: Events that tell how far a player is, never a card: whoever may not hear the move hears them.
_PUBLIC = (rules.GameOver, rules.NewDeal)


def audience(table: Table, seat: int, events: list) -> Audience | None:
    """Who hears of ``seat``'s action that led to ``table`` (None: everyone, watchers too).

    At a table of two a player hears of the other's moves only when one of the other's
    games ends (the running score changes) or the table closes. With Use Same Deck, a
    move in a deal not yet finished by every seat (:func:`is_shown`) is heard by its
    player alone: the others, watchers included, hear only that a game ended and the next
    was dealt. ``table`` may also be a later table than the action's: then the answer is
    who may hear of the action now (REPLAY)."""
    if table.sealed:  # its player alone, even once it is over: not even a score
        return Audience(seats=(seat,), watchers=False)
    if len(table.matches) == 1 or table.closed:
        return None
    told = [e for e in events if isinstance(e, MatchEvent)]
    shown = all(is_shown(table, e.event.game_no) for e in told
                if not isinstance(e.event, rules.NewDeal))  # a deal dealt tells no card
    if shown and any(isinstance(e.event, rules.GameOver) for e in told):
        return None
    return Audience(seats=(seat,), watchers=shown,
                    public=tuple(e for e in told if isinstance(e.event, _PUBLIC)))


def choose_action(table: Table, seat: int, level: str | None, rng: random.Random,
                  budget_s: float = 1.0) -> rules.Action:
    """The computer's move in its own match: it sees what a person would (ai.py)."""
    level = level if level in LEVELS else "normal"
    return ai.choose_action(table.matches[seat], 0, level, rng, min(budget_s, 1.0))


# -- notation and JSON -------------------------------------------------------------------------
def parse_action(text: str) -> Any:
    """A Close word (``SAVE``, ``EXIT``, ``NEW``, ``RESIGN``) or a move of the match.

    :raises BadNotation: not an action, in a sentence.
    """
    words = text.upper().split()
    if len(words) == 1 and words[0] in CLOSE_WORDS:
        return Close(CLOSE_WORDS[words[0]])
    try:
        return notation.parse_action(text)
    except RuleError as err:
        raise type(err)(sentence(str(err))) from None


def format_action(action: Any) -> str:
    if isinstance(action, Close):
        return action.what
    return notation.format_action(action)


def state_to_json(table: Table) -> dict[str, Any]:
    data = {"game": "pyramid-table",
            "matches": [notation.state_to_json(m) for m in table.matches],
            "computer": list(table.computer), "same_deck": table.same_deck,
            "closed": table.closed, "closer": table.closer}
    if table.sealed:  # only a Par tournament's (stored tables keep their form)
        data["sealed"] = table.sealed
    return data


def state_from_json(data: dict[str, Any]) -> Table:
    return Table(matches=[notation.state_from_json(m) for m in data["matches"]],
                 computer=[bool(c) for c in data["computer"]],
                 same_deck=bool(data.get("same_deck")), closed=str(data.get("closed") or ""),
                 closer=data.get("closer"), sealed=str(data.get("sealed") or ""))


# -- what a player sees ------------------------------------------------------------------------
def view_for(table: Table, seat: int | None, now: Table | None = None) -> dict[str, Any]:
    """The engine's view of the seat's own match (a watcher: seat 0's), with the other
    seats' running scores. The Pack order and the deal seeds stay hidden, and so does
    every card of a deal that only its player may see yet (:func:`is_shown`): anyone
    else gets ``render.hidden_view``.

    ``now``: the table as it stands now, when ``table`` is a past point of it (REPLAY): a
    deal is shown if it may be now (all of a finished table)."""
    playing = seat is not None and 0 <= seat < len(table.matches)
    me = seat if playing else 0
    match = table.matches[me]
    if playing or is_shown(now or table, match.game_no):
        view = board.view_for(match)
    elif (now or table).sealed:
        view = board.hidden_view(match, withheld(now or table) or "")
    else:
        view = board.hidden_view(match)
    view.update(seat=seat, board_of=me, same_deck=table.same_deck, closed=table.closed,
                waiting=any(waiting_for_deal(table, i) for i in range(len(table.matches))
                            if i != me), others=[
                    {"seat": i, "computer": table.computer[i], "game_no": m.game_no,
                     "games": m.n_games, "scores": list(m.scores), "total": m.total,
                     "cards_left": m.game.cards_left, "over": m.over}
                    for i, m in enumerate(table.matches) if i != me])
    return view


def render(view: dict[str, Any], width: int = 80, color: bool = True,
           names: tuple[str, ...] = ("Alice", "Bob"), height: int = 24) -> str:  # noqa: ARG001
    """The engine's board, with the owner's name and the other players' running scores
    (before the how-to-move line; after everything on a hidden deal's board)."""
    lines = board.render(view, width=width, color=color, names=names).split("\n")
    at = len(lines) if view["game"] == board.HIDDEN else len(lines) - 1
    others = view.get("others") or []
    if others:
        owner = view.get("board_of", 0)
        if owner < len(names):
            lines[0] = f"{names[owner]}: {lines[0]}"
        extra = []
        for o in others:
            who = names[o["seat"]] if o["seat"] < len(names) else f"Seat {o['seat'] + 1}"
            if o["over"]:
                extra.append(f"{who}: all {o['games']} games played, net {o['total']:+d}")
            else:
                done = " ".join(f"{s:+d}" for s in o["scores"]) or "-"
                line = (f"{who}: game {o['game_no']} of {o['games']} "
                        f"({_counted(o['cards_left'], 'card')} left), scores {done}, "
                        f"net {o['total']:+d}")
                if len(line) > min(width, 80):  # the running score first; PYR SCORE has all
                    line = (f"{who}: game {o['game_no']} of {o['games']}, "
                            f"{_counted(o['cards_left'], 'card')} left, net {o['total']:+d}")
                extra.append(line)
        if view.get("waiting"):
            extra.append("(Use Same Deck: the computer plays each deal after you.)")
        lines[at:at] = extra
    return "\n".join(line if len(line) <= width or "\x1b" in line else line[:width]
                     for line in lines)


def render_changes(old: dict[str, Any], new: dict[str, Any], width: int = 80,
                   color: bool = True, names: tuple[str, ...] = ("Alice", "Bob")) -> str | None:
    """SET BOARD COMPACT: the engine's changed rows and Pack line
    (``board.render_changes``), and the line of another player whose game moved on."""
    text = board.render_changes(old, new, width=width, color=color)
    if text is None:
        return None
    lines = [text] if text else []
    before = {o["seat"]: o for o in old.get("others") or ()}
    for o in new.get("others") or ():
        was = before.get(o["seat"])
        if was is not None and (was["game_no"], was["total"], was["over"]) != (
                o["game_no"], o["total"], o["over"]):
            who = names[o["seat"]] if o["seat"] < len(names) else f"Seat {o['seat'] + 1}"
            lines.append(f"{who}: all {o['games']} games played, net {o['total']:+d}"
                         if o["over"] else
                         f"{who}: game {o['game_no']} of {o['games']}, net {o['total']:+d}")
    return "\n".join(lines)


_HOW = {"won": "all cards removed", "stuck": "no move left", "ended": "ended as it stood"}


def describe_event(event: Any, names: tuple[str, ...] = ()) -> str | None:  # noqa: ARG001
    """A match event's sentence (Pyramid's events name no player: each plays alone)."""
    if isinstance(event, Closed):
        return {SAVE: "The tournament is put away: PYR RESTORE takes it up again.",
                EXIT: "The tournament is abandoned.",
                RENEW: "This match is abandoned; a new one follows with the same settings.",
                RESIGN: None}.get(event.what)
    if not isinstance(event, MatchEvent):
        return None
    e = event.event
    if isinstance(e, rules.Removed):
        return f"{' + '.join(e.cards)} removed."
    if isinstance(e, rules.Discarded):
        nxt = f"{e.next_top} turned up" if e.next_top else "the Pack is empty"
        return f"{e.card} to the Waste Pile; {nxt}."
    if isinstance(e, rules.Redealt):
        left = f"{e.redeals_left} redeal{'s' if e.redeals_left != 1 else ''} left"
        return f"Redeal: the Waste Pile becomes the Pack (deal {e.deal} of 3, {left})."
    if isinstance(e, rules.PyramidCleared):
        return f"The pyramid is cleared in deal {e.deal}!"
    if isinstance(e, rules.GameOver):
        if event.mode == "standard":
            return None  # the game's result tells it (a result is told once)
        return (f"Game {e.game_no} of {event.games} over ({_HOW[e.how]}): Par score "
                f"{e.score:+d}, net {e.total:+d}.")
    if isinstance(e, rules.NewDeal):
        return f"Game {e.game_no} of {event.games} is dealt."
    return None


# -- options -----------------------------------------------------------------------------------
def parse_options(words: list[str]) -> dict[str, Any]:
    """``PYR CHALLENGE <person>|COMPUTER [SAME|OWN]``: a six-game tournament; SAME gives
    both the same deals, OWN each their own (default: the challenger's Use Same Deck).

    :raises BadOption: a word that is not an option.
    """
    options: dict[str, Any] = {"mode": "tournament"}
    for word in words:
        w = word.lower()
        if w in ("same", "samedeck"):
            options["same_deck"] = True
        elif w in ("own", "different"):
            options["same_deck"] = False
        else:
            raise BadOption(f"{word!r} is not an option: SAME (the same deals for both) or "
                              "OWN (each their own deals).")
    return options


def describe_options(options: dict[str, Any]) -> str:
    if options.get("mode") != "tournament":
        return "standard play"
    if options.get("restore"):
        return "a saved tournament"
    deals = {True: ", same deals", False: ", own deals"}.get(options.get("same_deck"), "")
    n = len(options.get("seeds") or ()) or rules.TOURNAMENT_GAMES  # a Par tournament's deals
    return f"a {rules.number_word(n)}-game tournament{deals}"
