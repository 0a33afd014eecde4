"""Pyramid's services on a real database (SQLite and PostgreSQL): the TOP 10, saved
tournaments, per-player config, a tournament against the computer across a restart;
and the table the host plays (one engine match per seat) as a value."""

from __future__ import annotations

import asyncio
import random
import re
import time

import attrs
import pytest
import sqlalchemy as sa

from commands.app import assemble
from games.errors import IllegalAction
from games.pyramid import notation, rules
from server.app import Parlor
from server.hosting import Seat
from server.models import GameRecord, PyramidSave, PyramidTopScore, Rating
from server.services import pyramid
from server.services.games import GameError
from server.services.pyramid import (Close, Prefs, Table, Told, apply, audience, choose_action,
                                     counts, new_table, outcome, to_move, view_for)
from tests.conftest import make_config

KEY = "pyr"


@pytest.fixture
async def parlor(db_url):
    """A parlor on the test database, listening on an ephemeral port."""
    p = assemble(make_config(db_url))
    await p.start()
    yield p
    await p.stop()


async def player(parlor: Parlor, name: str) -> Seat:
    account = await parlor.accounts.create(name, "secret")
    return Seat(account.id, account.name)


async def wait_until(predicate, timeout: float = 10.0) -> None:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(0.02)


# -- the table as a value -----------------------------------------------------------------------
def table_of(n: int = 2, computer=(False, True), same_deck=False, seed=1) -> Table:  # noqa: ANN001
    return new_table({"mode": "tournament"}, tuple(computer[:n]), same_deck, random.Random(seed))


def test_seats_play_their_own_matches_at_once_and_hear_of_each_other_at_game_ends():
    table = table_of()
    assert to_move(table) == (0, 1)
    assert table.matches[0].seeds != table.matches[1].seeds
    after, events = apply(table, 1, rules.DEAL)
    assert after.matches[0] == table.matches[0] and after.matches[1] != table.matches[1]
    assert audience(after, 1, events) == (1,)  # only the mover sees an ordinary move
    ended, events = apply(after, 1, rules.END)
    assert any(isinstance(e, Told) and isinstance(e.event, rules.GameOver) for e in events)
    assert audience(ended, 1, events) is None  # a game's end: everyone
    assert audience(table_of(1, (False,)), 0, []) is None
    view = view_for(ended, 0)
    assert view["others"][0]["scores"] == [ended.matches[1].scores[0]]
    assert view["others"][0]["game_no"] == 2


def test_with_the_same_deck_the_computer_plays_a_deal_after_the_person():
    table = table_of(same_deck=True)
    assert table.matches[0].seeds == table.matches[1].seeds
    assert to_move(table) == (0,)
    with pytest.raises(IllegalAction, match="waits until the deal is played"):
        apply(table, 1, rules.DEAL)
    assert view_for(table, 0)["waiting"] and "plays each deal after you" in pyramid.render(
        view_for(table, 0), color=False, names=("Alice", "Computer"))
    table, _ = apply(table, 0, rules.END)          # the person finishes deal 1
    assert to_move(table) == (0, 1) and not view_for(table, 0)["waiting"]
    table, _ = apply(table, 1, rules.END)          # the computer plays deal 1 ...
    assert to_move(table) == (0,)                  # ... and waits for deal 2
    two_people = table_of(computer=(False, False), same_deck=True)
    assert to_move(two_people) == (0, 1)           # two people both play at once


def test_the_board_fits_80_columns_with_the_other_players_running_score():
    table = table_of()
    for _ in range(5):
        table, _ = apply(table, 0, rules.END)
        table, _ = apply(table, 1, rules.END)
    names = ("Abcdefghijklmnop", "Computer(normal)")
    for seat in (0, 1, None):
        text = pyramid.render(view_for(table, seat), width=80, color=False, names=names)
        assert all(len(line) <= 80 for line in text.split("\n")), text
        assert "game 6 of 6" in text and "net -260" in text
    coloured = pyramid.render(view_for(table, 0), width=80, color=True, names=names)
    assert "\x1b[" in coloured
    assert pyramid.render(view_for(table, 0), width=80, color=False, names=names) == \
        re.sub(r"\x1b\[[0-9;]*m", "", coloured)


def test_outcomes_closing_and_what_counts():
    table = table_of()
    for _ in range(6):
        table, _ = apply(table, 0, rules.END)
    assert outcome(table) is None                  # the computer has not finished
    for _ in range(6):
        table, _ = apply(table, 1, rules.END)
    result = outcome(table)
    assert result.winner is None and result.scores == (-312, -312) and counts(result)
    saved, _ = apply(table_of(), 0, Close(pyramid.SAVE))
    assert outcome(saved).reason == pyramid.SAVED_REASON and not counts(outcome(saved))
    assert to_move(saved) == ()
    with pytest.raises(IllegalAction, match="closed"):
        apply(saved, 0, rules.DEAL)
    people = table_of(computer=(False, False))
    with pytest.raises(IllegalAction, match="cannot be saved"):
        apply(people, 0, Close(pyramid.SAVE))
    with pytest.raises(IllegalAction, match="restart your opponent"):
        apply(people, 0, Close(pyramid.RENEW))
    resigned, _ = apply(people, 1, Close(pyramid.EXIT))  # EXIT against a person resigns
    assert outcome(resigned).winner == 0 and counts(outcome(resigned))
    standard = new_table({"mode": "standard"}, (False,), False, random.Random(3))
    with pytest.raises(IllegalAction, match="tournament play"):
        apply(standard, 0, Close(pyramid.SAVE))
    ended, _ = apply(standard, 0, Close(pyramid.RESIGN))  # resigning a game ends it as it is
    assert outcome(ended).scores == (-52,) and counts(outcome(ended))


def test_notation_and_json_round_trip_and_hidden_information():
    table = table_of(same_deck=True)
    table, _ = apply(table, 0, rules.DEAL)
    assert pyramid.state_from_json(pyramid.state_to_json(table)) == table
    for text in ("SAVE", "EXIT", "NEW", "RESIGN", "7,1 6,3", "P W", "D", "END", "7,4"):
        action = pyramid.parse_action(text)
        assert pyramid.parse_action(pyramid.format_action(action)) == action
    with pytest.raises(IllegalAction):
        apply(table, 0, pyramid.parse_action("1,1"))
    view = view_for(table, 0)
    assert "pack" not in view and "seeds" not in view
    assert all("seeds" not in o and "pack" not in o for o in view["others"])


def test_the_computer_never_reads_the_face_down_pack(monkeypatch):
    """Two tables alike but for the order of the cards under the Pack's top: in deal 1
    the computer's choice is the same (it cannot tell them apart). The clock is stopped so
    that its searches are bounded by their node counts alone, the same in both runs."""
    monkeypatch.setattr(time, "perf_counter", lambda: 0.0)
    rng = random.Random(5)
    for seed in range(12):
        table = table_of(seed=seed)
        match = table.matches[1]
        game = match.game
        hidden = list(game.pack[1:])
        rng.shuffle(hidden)
        other_game = attrs.evolve(game, pack=(game.pack[0],) + tuple(hidden))
        other = attrs.evolve(table, matches=(table.matches[0],
                                             attrs.evolve(match, games=(other_game,))))
        a = choose_action(table, 1, "normal", random.Random(seed), 0.3)
        b = choose_action(other, 1, "normal", random.Random(seed), 0.3)
        assert a == b


async def test_a_solver_line_is_shown_as_typed_with_its_cards():
    seed = 3  # winnable, in deal 3 (Par +20)
    line = (await pyramid.best_line(seed)).best
    tokens = pyramid.line_tokens(seed, line.moves)
    typed = []
    for token in tokens:
        if token.startswith("D x"):
            typed.extend(["D"] * int(token[3:]))
        else:
            typed.append(token.split(" (")[0])
    assert [notation.parse_action(t) for t in typed] == list(line.moves)
    assert all("(" in t for t in tokens if not t.startswith("D"))
    full, cleared, _ = await pyramid.judge(seed)
    if line.result == "win":       # a line removing all 52 cards: the deal could be won
        assert full == "win" and cleared == "win"
    if full == "lose":
        assert line.result == "lose"


# -- services on the database -------------------------------------------------------------------
async def test_config_is_kept_with_the_account(parlor):
    svc = pyramid.service(parlor)
    await player(parlor, "Alice")
    account = await parlor.accounts.get("Alice")
    assert svc.prefs(account) == Prefs()
    await svc.set_prefs(account, Prefs(speed="slow", errors=False, same_deck=True, sound="off"))
    again = await parlor.accounts.get("Alice")
    assert Prefs.from_settings(again.settings) == Prefs("slow", False, True, "off")
    assert svc.delay(account.id) == 2.0 * parlor.host.computer_delay


async def test_top10_keeps_the_ten_best_scores_above_zero(parlor):
    svc = pyramid.service(parlor)
    alice = await player(parlor, "Alice")
    # a real tournament played out below par does not enter
    game = await svc.start_tournament(alice)
    for _ in range(6):
        await parlor.host.act(alice.account_id, KEY, "END")
    assert game.outcome.scores == (-312,)
    assert await svc.top10() == []
    # twelve tournaments above zero: the ten best stay, in order (ties: the earlier first)
    async with parlor.db.session() as tx:
        for score in (5, 40, 12, 40, 3, 60, 7, 9, 11, 2, 80, 1):
            await svc._enter_top10(tx, alice, score, game.id, "")
        await tx.commit()
    rows = await svc.top10()
    assert [r.score for r in rows] == [80, 60, 40, 40, 12, 11, 9, 7, 5, 3]
    async with parlor.db.session() as tx:
        assert await tx.scalar(sa.select(sa.func.count()).select_from(PyramidTopScore)) == 10
        assert await svc._enter_top10(tx, alice, 3, game.id, "") is None   # not above the 10th
        assert await svc._enter_top10(tx, alice, 61, game.id, "Bob") == 2
        await tx.commit()
    assert [r.score for r in await svc.top10()][:3] == [80, 61, 60]


async def test_save_puts_a_tournament_away_and_restore_takes_it_up_exactly(parlor):
    svc = pyramid.service(parlor)
    alice = await player(parlor, "Alice")
    game = await svc.start_tournament(alice, "easy", same_deck=True)
    await parlor.host.act(alice.account_id, KEY, "END")       # deal 1: the computer may play it
    await wait_until(lambda: len(game.state.matches[1].scores) == 1)
    await parlor.host.act(alice.account_id, KEY, "D")
    await wait_until(lambda: not game.thinking)
    await parlor.host.act(alice.account_id, KEY, "SAVE")
    assert game.outcome.reason == pyramid.SAVED_REASON
    saved = await svc.saves(alice.account_id)
    assert len(saved) == 1 and saved[0].summary.startswith("against Computer(easy), game 2 of 6")
    kept = pyramid.state_from_json(saved[0].state)
    assert kept == attrs.evolve(game.state, closed="", closer=None)
    async with parlor.db.session() as tx:   # a saved game is not a result
        assert await tx.get(Rating, (alice.account_id, KEY)) is None

    restored = await svc.restore(alice, saved[0])
    assert restored.state == kept and restored.seats == game.seats
    assert await svc.saves(alice.account_id) == []
    await wait_until(lambda: not restored.thinking)
    assert len(restored.state.matches[1].scores) == 1  # the computer still waits on deal 2
    # the same save cannot be taken up twice; nothing is left behind by the refusal
    await parlor.host.act(alice.account_id, KEY, "EXIT")
    async with parlor.db.session() as tx:
        before = await tx.scalar(sa.select(sa.func.count()).select_from(GameRecord))
    with pytest.raises(GameError, match="no longer there"):
        await svc.restore(alice, saved[0])
    async with parlor.db.session() as tx:
        assert await tx.scalar(sa.select(sa.func.count()).select_from(GameRecord)) == before
        assert await tx.scalar(sa.select(sa.func.count()).select_from(PyramidSave)) == 0


async def test_a_tournament_against_the_computer_resumes_after_a_restart(db_url):
    parlor = assemble(make_config(db_url))
    await parlor.start()
    try:
        svc = pyramid.service(parlor)
        alice = await player(parlor, "Alice")
        game = await svc.start_tournament(alice, "easy", same_deck=True)
        await parlor.host.act(alice.account_id, KEY, "END")
        await wait_until(lambda: len(game.state.matches[1].scores) == 1)
        await wait_until(lambda: not game.thinking)
        state = game.state
    finally:
        await parlor.stop()
    parlor = assemble(make_config(db_url))
    await parlor.start()
    try:
        game = parlor.host.game_of(alice.account_id, KEY)
        assert game is not None and game.state == state
        for _ in range(5):
            await parlor.host.act(alice.account_id, KEY, "END")
        await wait_until(lambda: game.outcome is not None)  # the computer played on
        assert len(game.outcome.scores) == 2 and game.state.matches[1].over
        async with parlor.db.session() as tx:
            record = await tx.get(GameRecord, game.id)
            assert record.status == "finished" and record.result["scores"] == list(
                game.outcome.scores)
    finally:
        await parlor.stop()
