"""Pyramid's services on a real database (SQLite and PostgreSQL): the TOP 10, saved
tournaments, per-player config, a tournament against the computer across a restart;
and the solver's lines as typed. (The table the host plays, one engine match per seat, is
a pure engine: tests/unit/test_pyramid_match.py.)"""

from __future__ import annotations

import attrs
import pytest
import sqlalchemy as sa

from commands.app import assemble
from games.pyramid import match, notation
from server.app import Parlor
from server.hosting import Seat
from server.models import GamePlayer, GameRecord, Rating
from server.services.pyramid_models import PyramidSave, PyramidTopScore
from server.services import pyramid
from server.services.games import GameError
from server.services.pyramid import Prefs
from tests.conftest import make_config
from tests.support.waits import until

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


# -- the solver's lines ---------------------------------------------------------------------------
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
    svc = parlor.host.kind(pyramid.KEY)
    await player(parlor, "Alice")
    account = await parlor.accounts.get("Alice")
    assert svc.prefs(account) == Prefs()
    await svc.set_prefs(account, Prefs(speed="slow", errors=False, same_deck=True, sound="off"))
    again = await parlor.accounts.get("Alice")
    assert Prefs.from_settings(again.settings) == Prefs("slow", False, True, "off")
    assert svc.delay(account.id) == 2.0 * parlor.host.computer_delay


async def test_top10_keeps_the_ten_best_scores_above_zero(parlor):
    svc = parlor.host.kind(pyramid.KEY)
    alice = await player(parlor, "Alice")
    # a real tournament played out below par does not enter
    game = await svc.start_tournament(alice)
    for _ in range(6):
        await parlor.host.act_text(alice.account_id, KEY, "END")
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


async def test_the_last_deal_is_found_in_the_store_however_many_games_came_after(parlor):
    """PYR SOLUTION's deal, once the server no longer has it in memory (a restart), is the
    player's newest finished deal in the database, however many games others finished
    since."""
    svc = parlor.host.kind(pyramid.KEY)
    alice, bob = await player(parlor, "Alice"), await player(parlor, "Bob")
    game = await svc.start_tournament(alice)
    for _ in range(6):
        await parlor.host.act_text(alice.account_id, KEY, "END")
    assert game.outcome is not None
    since = range(game.id + 1, game.id + 251)   # Bob's, finished after it (as if)
    async with parlor.db.session() as tx:
        await tx.execute(sa.insert(GameRecord.__table__), [
            dict(id=n, kind=KEY, status="finished", seats=[bob.to_json()], options={},
                 ranked=False, seed=0, initial_state={}, state={}, version=0,
                 created_at=0.0, updated_at=0.0) for n in since])
        await tx.execute(sa.insert(GamePlayer.__table__),
                         [dict(account_id=bob.account_id, game_id=n) for n in since])
        await tx.commit()
    svc._last.clear()   # as after a restart
    deal = await svc.last_deal(alice.account_id)
    assert deal is not None and (deal.game_id, deal.game_no) == (game.id, 6)


async def test_save_puts_a_tournament_away_and_restore_takes_it_up_exactly(parlor):
    svc = parlor.host.kind(pyramid.KEY)
    alice = await player(parlor, "Alice")
    game = await svc.start_tournament(alice, "easy", same_deck=True)
    await parlor.host.act_text(alice.account_id, KEY, "END")       # deal 1: the computer may play it
    await until(lambda: len(game.state.matches[1].scores) == 1)
    await parlor.host.act_text(alice.account_id, KEY, "D")
    await until(lambda: not game.thinking)
    await parlor.host.act_text(alice.account_id, KEY, "SAVE")
    assert game.outcome.reason == match.SAVED_REASON
    saved = await svc.saves(alice.account_id)
    assert len(saved) == 1 and saved[0].summary.startswith("against Computer(easy), game 2 of 6")
    kept = match.state_from_json(saved[0].state)
    assert kept == attrs.evolve(game.state, closed="", closer=None)
    async with parlor.db.session() as tx:   # a saved game is not a result
        assert await tx.get(Rating, (alice.account_id, KEY)) is None

    restored = await svc.restore(alice, saved[0])
    assert restored.state == kept and restored.seats == game.seats
    assert await svc.saves(alice.account_id) == []
    await until(lambda: not restored.thinking)
    assert len(restored.state.matches[1].scores) == 1  # the computer still waits on deal 2
    # the same save cannot be taken up twice; nothing is left behind by the refusal
    await parlor.host.act_text(alice.account_id, KEY, "EXIT")
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
        svc = parlor.host.kind(pyramid.KEY)
        alice = await player(parlor, "Alice")
        game = await svc.start_tournament(alice, "easy", same_deck=True)
        await parlor.host.act_text(alice.account_id, KEY, "END")
        await until(lambda: len(game.state.matches[1].scores) == 1)
        await until(lambda: not game.thinking)
        state = game.state
    finally:
        await parlor.stop()
    parlor = assemble(make_config(db_url))
    await parlor.start()
    try:
        game = parlor.host.game_of(alice.account_id, KEY)
        assert game is not None and game.state == state
        for _ in range(5):
            await parlor.host.act_text(alice.account_id, KEY, "END")
        # the computer played on (its solver is CPU-bound: slow on a busy machine)
        await until(lambda: game.outcome is not None, 60)
        assert len(game.outcome.scores) == 2 and game.state.matches[1].over
        async with parlor.db.session() as tx:
            record = await tx.get(GameRecord, game.id)
            assert record.status == "finished" and record.result["scores"] == list(
                game.outcome.scores)
    finally:
        await parlor.stop()


@pytest.mark.parametrize("seed, expected", [
    (34, "Deal 34 could not have been won: the pyramid cannot be cleared; the best possible "
         "Par score was -3 (the pyramid not cleared, 3 cards left), and your -10 fell 7 "
         "short of it."),
])
def test_the_verdict_says_the_best_par_in_one_sentence(seed, expected):
    """The verdict's wording on a deal whose pyramid cannot be cleared (the exact best
    Par, how that line ends, and the player's score against it)."""
    from games.pyramid import rules, solver

    best = solver.solve_par(rules.Game.dealt(seed))
    assert best.proven
    line = pyramid.Line(best, "lose", "lose")
    assert pyramid.verdict_text(f"deal {seed}", line, -10, seed) == expected
