"""No audience is told what it may not see (docs/design.md, principle 5): a property test
over random play of each game, through the real host.

Every game event on the bus is a frame for one audience: each human seat on its account
topic, the watchers on the game topic. The local bus delivers inside the host's publish,
after the new state is in place, so each frame is checked, as it arrives, against the
engine's own state of that moment (``game.state``), by rules written here from the rules
pages, not by asking the game's ``view_for`` again:

* Triptycha (docs/rules/triptycha.md): no frame names a tile (by its instance id,
  anywhere in the frame, or by ``#id`` or its name in the lines) of another seat's hand
  that is not laid, or of another seat's deck; watchers see no unlaid hand tile. Open:
  the Truth rule (both players, and so the watchers, see both hands), and the winner's
  look at the loser's hand while trading. A finished game's own lines may name the
  tiles that change owner (Plunder, Take).
* Triad (docs/rules/triad.md): no frame holds a card (a natural card by its code; a
  Capstone too, in the view) that its audience neither holds nor has seen shown at the
  showdown: other seats' hands, discards and the stock stay face down.
* Pyramid (docs/rules/pyramid.md): no frame shows a card of the face-down Pack below its
  top (a view shows only the pyramid, the Pack's top and the Waste's top of the board it
  draws; an action's lines name only cards face up before or after it). In a Use Same Deck
  tournament between two people, nobody but its player sees a deal, or hears of its
  moves, before both have finished it: the watchers' board of a deal not finished by both
  holds no card, the other seat's and the watchers' lines of a move in it name none, and
  no frame repeats the row 7 of a deal its audience may not see yet.
* Triad Dice hides nothing: the watchers' view (and each seat's) is the engine's view of
  that moment, a consistency check.

``test_the_check_catches_a_view_shown_to_the_wrong_audience`` switches a rule off (a
kind whose ``view_for`` gives the watchers seat 0's view, or each seat the other's) and
shows that the check fails.
"""

from __future__ import annotations

import asyncio
import functools
import json
import random
import re
import tempfile
import traceback
from collections import Counter
from typing import Any, Callable

import attrs
import pytest
import sqlalchemy as sa
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from commands.app import assemble
from games.dice import render as dice_render
from games.errors import RuleError
from games.pyramid import ai as pyr_ai
from games.pyramid import rules as pyr_rules
from games.pyramid.cards import card_text
from games.triad import ai as triad_ai
from games.triad import rules as triad_rules
from games.triad import table as triad_table
from games.triptycha import rules as tt_rules
from server.hosting import Seat
from server.models import GameRecord
from server.services.games import GameError
from tests.conftest import make_config

#: The engine's own Triad Dice view, kept before any test may switch a kind's off.
DICE_VIEW = dice_render.view_for


#: Each example plays whole games: a failure is reported as found (its seed and options),
#: not shrunk, which would replay games for minutes.
NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)


class Leak(AssertionError):
    """Some audience was told what it may not see."""


# -- the harness -----------------------------------------------------------------------------
class Audiences:
    """Subscribes, before the game starts, to the watchers' topic of the next game and to
    its human players' account topics, and checks each frame as it arrives:
    ``check(self, audience, data, before, now)`` returns what it finds wrong (``before``:
    the state of the version before, once seen); ``notice(self, audience, text, now)``
    the same of a notice to a player."""

    def __init__(self, parlor, check: Callable[..., list[str]], humans: dict[int, int],  # noqa: ANN001
                 number: int, notice: Callable[..., list[str]] | None = None) -> None:
        self.parlor = parlor
        self.check = check
        self.notice = notice
        self.humans = humans  # seat -> account id
        self.number = number  # the game's number
        self.states: dict[int, Any] = {}
        self.leaks: list[str] = []
        self.errors: list[str] = []
        self.frames: Counter = Counter()  # audience -> frames checked
        self.versions: dict[int | None, list[int]] = {}
        for seat, account in humans.items():
            parlor.bus.subscribe(f"account:{account}", functools.partial(self._on, seat))
        parlor.bus.subscribe(f"game:{number}", functools.partial(self._on, None))

    @classmethod
    async def of_next_game(cls, parlor, check: Callable[..., list[str]],  # noqa: ANN001, ANN206
                           humans: dict[int, int], **more: Any):
        """For the game the parlor starts next (a fresh database's numbers run on)."""
        async with parlor.db.session() as tx:
            number = (await tx.scalar(sa.select(sa.func.max(GameRecord.id))) or 0) + 1
        return cls(parlor, check, humans, number, **more)

    @property
    def game(self):  # noqa: ANN201
        """The live game (the host's own object, kept after it ends)."""
        game = self.parlor.host.live.get(self.number)
        if game is not None:
            self._game = game
        return getattr(self, "_game", None)

    def started(self, game) -> None:  # noqa: ANN001
        """``game`` has started: the one whose frames are checked."""
        assert game.id == self.number, "another game started first"
        self._game = game

    def _on(self, audience: int | None, topic: str, event) -> None:  # noqa: ANN001
        # the bus logs and swallows a subscriber's exception: keep every one
        try:
            self._check(audience, topic, event)
        except Exception:  # noqa: BLE001
            self.errors.append(traceback.format_exc())

    def _check(self, audience: int | None, topic: str, event) -> None:  # noqa: ANN001
        game, data = self.game, event.data
        if game is None or not event.type.startswith("game.") or data.get("game") != game.id:
            if game is not None and event.type == "notice" and self.notice is not None:
                for problem in self.notice(self, audience, data["text"], game.state):
                    self.leaks.append(f"notice to {_who(audience)}: {problem}: {data['text']!r}")
            return
        assert data["seat"] == audience, (topic, data["seat"], audience)
        assert data["version"] == game.version, "the frame is not of the state now"
        now = game.state
        self.states.setdefault(game.version, now)
        before = self.states.get(game.version - 1)
        self.frames[audience] += 1
        self.versions.setdefault(audience, []).append(game.version)
        for problem in self.check(self, audience, data, before, now):
            self.leaks.append(f"v{data['version']} {event.type} to {_who(audience)}: {problem}"
                              f"; lines {data['lines']!r}")

    def verdict(self) -> None:
        assert not self.errors, self.errors[0]
        for audience in (None, *self.humans):
            # each audience is told every version, in order (the watchers from the start,
            # a player from sitting down)
            told = self.versions.get(audience, [])
            assert told, f"{_who(audience)}: told nothing"
            first = 0 if audience is None else told[0]
            assert told == list(range(first, first + len(told))), (_who(audience), told)
        if self.leaks:
            game = self.game
            raise Leak(f"game #{game.id} (options {game.options}, dealt from seed {game.seed}): "
                       f"{len(self.leaks)} leaks; the first:\n" + "\n".join(self.leaks[:5]))


def _who(audience: int | None) -> str:
    return "the watchers" if audience is None else f"seat {audience}"


async def _parlor_run(scenario, *args, patch: Callable | None = None) -> Audiences:  # noqa: ANN001
    """Run ``scenario(parlor, *args)`` on a fresh parlor (SQLite in a temporary directory);
    ``patch(parlor)`` first, to switch a rule off."""
    with tempfile.TemporaryDirectory() as tmp:
        parlor = assemble(make_config(f"sqlite+aiosqlite:///{tmp}/e.db"))
        await parlor.start()
        try:
            if patch is not None:
                patch(parlor)
            return await scenario(parlor, *args)
        finally:
            await parlor.stop()


def run(scenario, *args, patch: Callable | None = None) -> Audiences:  # noqa: ANN001
    return asyncio.run(_parlor_run(scenario, *args, patch=patch))


async def _people(parlor, *names: str) -> list:  # noqa: ANN001
    return [await parlor.accounts.create(name, "secret") for name in names]


async def _drive(parlor, game, humans: dict[int, int], choose, rng: random.Random,  # noqa: ANN001
                 until: Callable[[], bool] | None = None, lead: float = 0.0,
                 steps: int = 4000) -> None:
    """Play the human seats (``choose(state, seat, rng)``, a random one of those to move,
    seat 0 first with odds ``lead``) until the game ends or ``until()``; computer seats
    move by themselves."""
    kind, host = game.kind, parlor.host
    for _ in range(steps):
        if game.outcome is not None or (until is not None and until()):
            return
        movers = [s for s in kind.spec.to_move(game.state) if s in humans]
        if not movers:
            await asyncio.sleep(0.005)
            continue
        seat = 0 if 0 in movers and rng.random() < lead else rng.choice(movers)
        action = choose(game.state, seat, rng)
        try:
            await host.act(humans[seat], kind.key, action)
        except (RuleError, GameError):  # the state moved on under the choice
            await asyncio.sleep(0)
    raise AssertionError(f"{kind.key}: the game did not end")


async def _told_of_the_end(audiences: Audiences) -> None:
    for _ in range(300):
        if audiences.game.outcome is not None:
            return
        await asyncio.sleep(0.01)


# -- Triptycha -------------------------------------------------------------------------------
def _tile_ids(value: Any) -> set[int]:
    """The ids of every tile a JSON value holds (a tile is a dict with an id and corners)."""
    found: set[int] = set()
    if isinstance(value, dict):
        if "id" in value and "corners" in value:
            found.add(value["id"])
        for v in value.values():
            found |= _tile_ids(v)
    elif isinstance(value, list):
        for v in value:
            found |= _tile_ids(v)
    return found


def _tt_open(state, seat: int | None, owner: int) -> bool:  # noqa: ANN001
    """Whether ``owner``'s hand is open to ``seat`` (None: the watchers): under Truth
    either player may look at the other's hand, and what both players may see a watcher
    may; while trading the winner may look at the loser's."""
    if seat is None:
        return state.rules.truth
    if state.rules.truth and state.phase in ("draw", "play"):
        return True
    return state.phase == "trading" and seat == tt_rules.result(state).winner


def _tt_secret(state, seat: int | None) -> dict[int, str]:  # noqa: ANN001
    """The tiles ``seat`` may not see now, id -> name: the other seat's unlaid hand tiles
    (unless open) and its deck."""
    secret: dict[int, str] = {}
    laid = {h.tile.id for hand in state.hands for h in hand if h.niche is not None}
    for owner in (0, 1):
        if owner == seat:
            continue
        for tile in state.decks[owner]:
            secret[tile.id] = tile.name
        for held in state.hands[owner]:
            if _tt_open(state, seat, owner):
                secret.pop(held.tile.id, None)
    for tid in laid:
        secret.pop(tid, None)
    return secret


def _tt_seen(state, seat: int | None) -> dict[int, str]:  # noqa: ANN001
    everything = {t.id: t.name for deck in state.decks for t in deck}
    everything.update({h.tile.id: h.tile.name for hand in state.hands for h in hand})
    secret = _tt_secret(state, seat)
    return {tid: name for tid, name in everything.items() if tid not in secret}


def check_triptycha(audiences: Audiences, seat: int | None, data: dict, before, now) -> list[str]:  # noqa: ANN001
    secret = _tt_secret(now, seat)
    problems = []
    shown = _tile_ids({k: v for k, v in data.items() if k != "lines"}) & set(secret)
    if shown:
        problems.append(f"tiles {sorted(shown)} of a hidden hand or deck in the frame")
    said = " ".join(data["lines"])
    # the end's own lines name the tiles that change owner: a finished game hides nothing
    moved = {tid for tid, _, _ in tt_rules.transfers(now)} if data["finished"] else set()
    hidden = {tid: name for tid, name in secret.items() if tid not in moved}
    named = {int(n) for n in re.findall(r"#(\d+)", said)} & set(hidden)
    if named:
        problems.append(f"tiles {sorted(named)} of a hidden hand or deck named in the lines")
    seen = {name for tid, name in _tt_seen(now, seat).items()} | {secret[t] for t in moved
                                                                  if t in secret}
    for name in {name for name in hidden.values() if name and name not in seen}:
        if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", said):
            problems.append(f"the hidden tile {name!r} named in the lines")
    return problems


def _tt_choose(state, seat: int, rng: random.Random):  # noqa: ANN001, ANN202
    """A random legal action: mostly laying and drawing, sometimes turning a tile in the
    hand (told to its player alone), rarely resigning."""
    actions = list(tt_rules.legal_actions(state, seat))
    weights = [0.005 if isinstance(a, tt_rules.Resign) else
               1.0 if isinstance(a, (tt_rules.Rotate, tt_rules.Flip)) else 5.0
               for a in actions]
    kinds = Counter(type(a) for a in actions)
    weights = [w / kinds[type(a)] for w, a in zip(weights, actions)]  # per kind, not per move
    return rng.choices(actions, weights)[0]


async def play_triptycha(parlor, seed: int, rules: list[str]) -> Audiences:  # noqa: ANN001
    await parlor.seed()  # the starter tiles every new account gets
    alice, bob = await _people(parlor, "Alice", "Bob")
    humans = {0: alice.id, 1: bob.id}
    audiences = await Audiences.of_next_game(parlor, check_triptycha, humans)
    kind = parlor.host.kind("tt")
    game = await parlor.host.start_game(
        "tt", (Seat(alice.id, alice.name), Seat(bob.id, bob.name)), kind.spec.parse_options(rules))
    audiences.started(game)
    await _drive(parlor, game, humans, _tt_choose, random.Random(seed))
    return audiences


TT_RULES = st.tuples(st.booleans(), st.booleans(), st.booleans(), st.integers(0, 3)).map(
    lambda r: ["truth"] * r[0] + ["random"] * r[1] + ["plunder"] * r[2]
    + (["take", str(r[3])] if r[3] else []))


@settings(phases=NO_SHRINK, max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rules=TT_RULES)
def test_triptycha_hands_and_decks_stay_hidden(seed, rules):
    run(play_triptycha, seed, rules).verdict()


# -- Triad -----------------------------------------------------------------------------------
TRIAD_CARD = re.compile(r"(?<![0-9A-Za-z])(?:1[0-4]|[2-9])[BPGR](?![0-9A-Za-z])")


def check_triad(audiences: Audiences, seat: int | None, data: dict, before, now) -> list[str]:  # noqa: ANN001
    hand = now.game
    position = now.position(seat)
    shown = {p: set(cards) for p, cards in hand.shown}
    may = set().union(*shown.values()) if shown else set()
    if position is not None:
        may |= set(hand.seats[position].cards)
    problems = []
    named = set(TRIAD_CARD.findall(json.dumps(data))) - may
    if named:
        problems.append(f"cards {sorted(named)} face down to this audience")
    for entry in data["view"]["seats"]:
        if entry["empty"] or entry["seat"] == position or entry["seat"] in shown:
            continue
        if entry["cards"] or entry["hand_name"]:
            problems.append(f"position {entry['seat']}'s hand {entry['cards']} "
                            f"({entry['hand_name']}) in the view")
    return problems


def _triad_choose(table, seat: int, rng: random.Random):  # noqa: ANN001, ANN202
    """The easy computer player's action, or now and then any legal one (a fold, a raise
    of any size, any discard)."""
    position = table.position(seat)
    if rng.random() < 0.7:
        return triad_ai.choose_action(table.game, position, "easy", rng, 0.05)
    return rng.choice(list(triad_rules.legal_actions(table.game, position)))


async def play_triad(parlor, seed: int, computers: int, hands: int,  # noqa: ANN001
                     limit: int | None = None) -> Audiences:
    """Alice opens a table, Bob joins, ``computers`` computer players sit down; they play
    ``hands`` hands (fewer if a stack runs out), then Alice and Bob leave."""
    alice, bob = await _people(parlor, "Alice", "Bob")
    tables, host = parlor.host.kind("triad"), parlor.host
    humans = {0: alice.id, 1: bob.id}
    audiences = await Audiences.of_next_game(parlor, check_triad, humans)
    game = await tables.open(alice.id, alice.name, triad_table.table_options(1, limit, 4, 40))
    audiences.started(game)
    await tables.join(bob.id, bob.name, game.id)
    if computers:
        await tables.add_bots(alice.id, computers, "easy")
    rng = random.Random(seed)

    def between_hands() -> bool:
        return game.state.game.phase == "hand_over"

    for _ in range(hands):
        if game.outcome is not None:
            break
        seated = [s for s in humans if game.seat_of(humans[s]) is not None]
        if not seated:
            break
        try:
            await host.act_text(humans[rng.choice(seated)], "triad", "DEAL")
        except (RuleError, GameError):
            break  # no two can pay the opening bet: the table closes
        await _drive(parlor, game, humans, _triad_choose, rng, until=between_hands)
    for seat in humans:
        if game.outcome is None and game.seat_of(humans[seat]) is not None:
            await host.act_text(humans[seat], "triad", "LEAVE", seat_change=True)
    await _told_of_the_end(audiences)
    return audiences


@settings(phases=NO_SHRINK, max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), computers=st.integers(0, 2), hands=st.integers(1, 3),
       limit=st.sampled_from([2, None]))
def test_triad_face_down_cards_stay_hidden(seed, computers, hands, limit):
    run(play_triad, seed, computers, hands, limit).verdict()


# -- Pyramid ---------------------------------------------------------------------------------
PYR_CARD = re.compile(r"(?<![0-9A-Za-z])(?:10|[2-9AJQK])[SHDC](?![0-9A-Za-z])")


def _cards(text: str) -> list[str]:
    return PYR_CARD.findall(text)


def _face_up(match) -> set[str]:  # noqa: ANN001
    """What a match's board shows: the pyramid, the Pack's top and the Waste's top."""
    deal = match.game
    up = {card_text(c) for c in deal.pyramid if c is not None}
    if deal.pack:
        up.add(card_text(deal.pack[0]))
    if deal.waste:
        up.add(card_text(deal.waste[-1]))
    return up


def _removed(match) -> set[str]:  # noqa: ANN001
    """The cards gone from a match's deal (removed in pairs or as Kings): no secret."""
    deal = match.game
    left = {c for c in deal.pyramid if c is not None} | set(deal.pack) | set(deal.waste)
    return {card_text(c) for c in range(52) if c not in left}


def _deal_open(table, number: int) -> bool:  # noqa: ANN001
    """Whether deal ``number`` may be seen by others than its player: always, unless Use
    Same Deck at a table of two still in play; then once both have finished it."""
    if not table.same_deck or len(table.matches) < 2 or table.closed or \
            all(m.over for m in table.matches):
        return True
    return all(len(m.scores) >= number for m in table.matches)


def _runs(cards: list[str], seq: list[str], n: int) -> bool:
    """Whether ``n`` cards of ``seq`` in a row appear in a row in ``cards``."""
    if len(seq) < n:
        return False
    wanted = {tuple(seq[i:i + n]) for i in range(len(seq) - n + 1)}
    return any(tuple(cards[i:i + n]) in wanted for i in range(len(cards) - n + 1))


def _row7(match) -> list[str]:  # noqa: ANN001
    return [card_text(c) for c in match.game.pyramid[21:28] if c is not None]


def _pyr_hidden_runs(table, seat: int | None, cards: list[str]) -> list[str]:  # noqa: ANN001
    """A deal ``seat`` may not see (another seat's deal not open yet, unless ``seat``
    plays that same deal), or the face-down order of any Pack, among ``cards``: a deal
    is recognised by the cards left in its row 7, in order (four or more), a Pack's
    order by six of its face-down cards in a row; no other board repeats either by
    chance."""
    problems = []
    for j, match in enumerate(table.matches):
        number = match.game_no
        mine = seat is not None and seat < len(table.matches) and \
            table.matches[seat].game_no == number
        row7 = _row7(match)
        if j != seat and not mine and not _deal_open(table, number) and len(row7) >= 4 \
                and _runs(cards, row7, len(row7)):
            problems.append(f"seat {j}'s deal {number}, not finished by both, shown")
        if _runs(cards, [card_text(c) for c in match.game.pack[1:]], 6):
            problems.append(f"the face-down Pack of seat {j}'s deal {number} in order")
    return problems


def check_pyramid(audiences: Audiences, seat: int | None, data: dict, before, now) -> list[str]:  # noqa: ANN001
    problems = []
    board = 0 if seat is None else seat
    in_view = _cards(json.dumps(data["view"]))
    if not _deal_open(now, now.matches[board].game_no) and seat is None:
        if in_view:
            problems.append(f"cards {sorted(set(in_view))} of seat 0's deal "
                            f"{now.matches[0].game_no}, not finished by both, in the view")
    else:
        # the last move's cards: removed from the deal (gone, as the lines told), or the
        # Waste's top; nothing of the Pack
        extra = set(in_view) - _face_up(now.matches[board]) - _removed(now.matches[board])
        if extra:
            problems.append(f"cards {sorted(extra)} in the view that seat {board}'s board "
                            "does not show")
    said = _cards(" ".join(data["lines"]))
    actor = data.get("actor")
    if said and actor is not None and before is not None:
        number = before.matches[actor].game_no
        if actor != seat and not _deal_open(now, number):
            problems.append(f"cards {said} of seat {actor}'s move in deal {number}, not "
                            "finished by both, in the lines")
        extra = set(said) - _face_up(before.matches[actor]) - _face_up(now.matches[actor])
        if extra:
            problems.append(f"cards {sorted(extra)} face down before and after the move")
    problems += _pyr_hidden_runs(now, seat, in_view + said)
    return problems


def check_pyramid_notice(audiences: Audiences, seat: int | None, text: str, now) -> list[str]:  # noqa: ANN001
    """A notice to a player (the solver's verdict on a deal) names no deal it may not see."""
    return _pyr_hidden_runs(now, seat, _cards(text))


def _pyr_choose(table, seat: int, rng: random.Random):  # noqa: ANN001, ANN202
    """The easy computer player's move, a draw, or now and then the end of the deal."""
    match = table.matches[seat]
    legal = list(pyr_rules.legal_actions(match, 0))
    roll = rng.random()
    if roll < 0.01:
        return pyr_rules.END
    if roll < 0.15:
        return rng.choice([a for a in legal if a is not pyr_rules.END])
    return pyr_ai.choose_action(match, 0, "easy", rng, 0.05)


async def play_pyramid(parlor, seed: int, same_deck: bool, lead: float) -> Audiences:  # noqa: ANN001
    """Two people's tournament; ``lead``: how much more often seat 0 moves than seat 1."""
    alice, bob = await _people(parlor, "Alice", "Bob")
    humans = {0: alice.id, 1: bob.id}
    audiences = await Audiences.of_next_game(parlor, check_pyramid, humans,
                                             notice=check_pyramid_notice)
    kind = parlor.host.kind("pyr")
    options = kind.spec.parse_options(["same" if same_deck else "own"])
    game = await parlor.host.start_game(
        "pyr", (Seat(alice.id, alice.name), Seat(bob.id, bob.name)), options)
    audiences.started(game)
    await _drive(parlor, game, humans, _pyr_choose, random.Random(seed), lead=lead)
    return audiences


@pytest.mark.parametrize("same_deck", [True, False], ids=["same-deck", "own-decks"])
@settings(phases=NO_SHRINK, max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), lead=st.sampled_from([0.0, 0.3, 0.6]))
def test_pyramid_pack_and_same_deck_deals_stay_hidden(same_deck, seed, lead):
    run(play_pyramid, seed, same_deck, lead).verdict()


# -- Triad Dice ------------------------------------------------------------------------------
def check_dice(audiences: Audiences, seat: int | None, data: dict, before, now) -> list[str]:  # noqa: ANN001
    if data["view"] != json.loads(json.dumps(DICE_VIEW(now, seat))):
        return ["the view is not the engine's view of the moment"]
    return []


async def play_dice(parlor, seed: int) -> Audiences:  # noqa: ANN001
    alice, bob = await _people(parlor, "Alice", "Bob")
    humans = {0: alice.id, 1: bob.id}
    audiences = await Audiences.of_next_game(parlor, check_dice, humans)
    kind = parlor.host.kind("dice")
    game = await parlor.host.start_game(
        "dice", (Seat(alice.id, alice.name), Seat(bob.id, bob.name)), kind.spec.parse_options([]))
    audiences.started(game)
    await _drive(parlor, game, humans,
                 lambda state, seat, rng: kind.spec.choose_action(state, seat, "easy", rng),
                 random.Random(seed))
    return audiences


@settings(phases=NO_SHRINK, max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_dice_watchers_see_the_engines_view(seed):
    run(play_dice, seed).verdict()


# -- the check catches a rule switched off ---------------------------------------------------
def _leaky(to: str):  # noqa: ANN202
    """A patch giving the watchers seat 0's view (``to`` "watchers"), or each seat the
    other seat's (``to`` "seats")."""

    def patch(key: str):  # noqa: ANN202
        def apply(parlor) -> None:  # noqa: ANN001
            kind = parlor.host.kind(key)
            honest = kind.spec.view_for

            def view_for(state, seat):  # noqa: ANN001, ANN202
                if to == "watchers":
                    return honest(state, 0 if seat is None else seat)
                return honest(state, 1 - seat if seat in (0, 1) else seat)

            kind.spec = attrs.evolve(kind.spec, view_for=view_for)
        return apply
    return patch


@pytest.mark.parametrize("to", ["watchers", "seats"])
@pytest.mark.parametrize("key, scenario, args", [
    ("tt", play_triptycha, (1, [])),
    ("triad", play_triad, (1, 1, 1)),
    ("pyr", play_pyramid, (1, True, 0.4)),
    ("dice", play_dice, (1,)),
], ids=["tt", "triad", "pyr", "dice"])
def test_the_check_catches_a_view_shown_to_the_wrong_audience(key, scenario, args, to):
    audiences = run(scenario, *args, patch=_leaky(to)(key))
    with pytest.raises(Leak):
        audiences.verdict()
