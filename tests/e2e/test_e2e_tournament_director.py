"""The tournament director's manners, over real sockets: a no-show's wait, forfeit and
bar; invitations told now or at the next login; scheduled tournaments from the
configuration, opened ahead, started or cancelled at their time; the config checked."""

from __future__ import annotations

import asyncio
import logging
import time

import attrs
import pytest

from commands.app import assemble
from server.config import Config, ScheduledTournament, TournamentsSection
from server.services.tourney_schedule import next_start
from tests.conftest import make_config
from tests.support.client import Client


async def _parlor(sqlite_url: str, **tournaments):  # noqa: ANN202
    config = attrs.evolve(make_config(sqlite_url), tournaments=TournamentsSection(**tournaments))
    parlor = assemble(config)
    await parlor.start()
    return parlor


async def _players(parlor, *names: str) -> list[Client]:  # noqa: ANN001
    return [await (await Client.connect(parlor.port)).create(n) for n in names]


async def test_a_no_show_forfeits_after_the_wait_and_is_barred(sqlite_url):
    parlor = await _parlor(sqlite_url, no_show_seconds=1.5, tick=0.2, no_show_bar_hours=2)
    ann, bea = await _players(parlor, "Ann", "Bea")
    try:
        await ann.cmd("tourney create ttt swiss 1", "Tournament 1 is open")
        await ann.cmd("tourney join 1", "You enter")
        await bea.cmd("tourney join 1", "You enter")
        await bea.close()
        await asyncio.sleep(0.3)
        began = time.monotonic()
        await ann.cmd("tourney start 1", "you play Bea, who is not connected; they have 1.5 "
                      "seconds to come, or they forfeit")
        out = await ann.expect(r"Tournament 1 \(.*\) is over: Ann wins", timeout=5)
        assert time.monotonic() - began >= 1.4 and "Game #" not in out
        await ann.cmd("tourney 1", r"Ann - Bea: 1-0 \(forfeit\)")
        bea = (await _players_login(parlor, "Bea"))
        await bea.expect(r"While you were away(.|\n)*You did not come to your game in "
                         r"tournament 1 \(.*\): you forfeit it(.|\n)*?> ")
        await ann.cmd("tourney create ttt swiss 2", "Tournament 2 is open")
        out = await bea.cmd("tourney join 2", r"\n> ")
        assert "You did not come to your game in tournament 1; you may enter tournaments " \
               "again at" in out and len(out.strip().splitlines()) == 2
        assert [e["name"] for e in (await parlor.host.tournaments.get(2)).state["entrants"]] == []
        await bea.close()
    finally:
        await ann.close()
        await parlor.stop()


async def _players_login(parlor, name: str) -> Client:  # noqa: ANN001
    return await (await Client.connect(parlor.port)).login(name)


async def test_a_late_comer_within_the_wait_plays(sqlite_url):
    parlor = await _parlor(sqlite_url, no_show_seconds=20, tick=0.2)
    ann, bea = await _players(parlor, "Ann", "Bea")
    try:
        await ann.cmd("tourney create ttt swiss 1", "Tournament 1 is open")
        await ann.cmd("tourney join 1", "You enter")
        await bea.cmd("tourney join 1", "You enter")
        await bea.close()
        await asyncio.sleep(0.3)
        await ann.cmd("tourney start 1", "who is not connected")
        await ann.cmd("tourney 1", r"Ann - Bea: waiting")
        bea = await _players_login(parlor, "Bea")
        await bea.expect(r"Game #1: Noughts and Crosses, Ann vs Bea begins", timeout=5)
        bea.send("ttt resign")
        await ann.expect(r"Tournament 1 \(.*\) is over: Ann wins", timeout=5)
        assert (await parlor.host.tournaments.barred(2)) is None
        await bea.close()
    finally:
        await ann.close()
        await parlor.stop()


async def test_invitations_are_told_now_or_at_login(sqlite_url):
    parlor = await _parlor(sqlite_url)
    ann, bea, cal = await _players(parlor, "Ann", "Bea", "Cal")
    try:
        await cal.close()
        await ann.cmd("tourney create ttt arena 30", "Tournament 1 is open: Noughts and "
                      "Crosses Arena, 30 minutes")
        await ann.cmd("tourney invite 1 Bea", "You invite Bea to tournament 1")
        await bea.expect("Ann invites you to tournament 1: Noughts and Crosses Arena, 30 "
                         r"minutes \(unranked\). \(TOURNEY JOIN 1 enters it.\)")
        await ann.cmd("tourney invite 1 Bea", "Bea has been invited to tournament 1 already")
        await ann.cmd("tourney invite 1 Ann", "You need no invitation")
        await ann.cmd("tourney invite 9 Bea", "There is no tournament 9")
        await ann.cmd("tourney invite 1 Nobody", "There is no player named Nobody")
        await ann.cmd("tourney invite 1", "Usage: TOURNEY INVITE")
        await ann.cmd("tourney invite 1 Cal", "You invite Cal")
        await asyncio.sleep(0.2)
        cal = await _players_login(parlor, "Cal")
        await cal.expect(r"While you were away \(1\):\s+\S+ \S+ Ann invites you to tournament 1")
        await cal.close()
    finally:
        await ann.close()
        await bea.close()
        await parlor.stop()


def _entry(**kw) -> ScheduledTournament:
    return Config.from_dict({"tournaments": {"schedule": [kw]}}).tournaments.schedule[0]


def test_the_next_start_of_a_daily_and_a_weekly_entry():
    wed = 1_795_000_000.0  # 2026-11-18 10:13:20 UTC, a Wednesday
    assert time.gmtime(wed).tm_wday == 2
    daily = _entry(game="dice", system="swiss", rounds=6, at="18:00")
    assert time.strftime("%a %H:%M", time.gmtime(next_start(daily, wed))) == "Wed 18:00"
    assert next_start(daily, next_start(daily, wed)) == next_start(daily, wed)
    assert next_start(daily, next_start(daily, wed) + 1) == next_start(daily, wed) + 86400
    weekly = _entry(game="dice", system="swiss", rounds=6, at="09:30", day="Monday")
    assert time.strftime("%a %d %H:%M", time.gmtime(next_start(weekly, wed))) == "Mon 23 09:30"


@pytest.mark.parametrize("entry, error", [
    ({"game": "chess", "system": "swiss", "at": "10:00"}, "no game 'chess' is hosted here"),
    ({"game": "dice", "system": "swiss", "at": "10:00", "options": ["purple"]}, "entry 1: "),
])
def test_a_bad_scheduled_game_is_one_line_at_assembly(sqlite_url, entry, error):
    config = attrs.evolve(make_config(sqlite_url),
                          tournaments=Config.from_dict({"tournaments": {"schedule": [entry]}})
                          .tournaments)
    with pytest.raises(ValueError, match=error) as err:
        assemble(config)
    assert "\n" not in str(err.value)


async def test_scheduled_tournaments_open_ahead_and_start_or_cancel(sqlite_url, caplog):
    at = time.strftime("%H:%M", time.gmtime(time.time() + 12 * 3600))
    parlor = await _parlor(sqlite_url, open_minutes=30, schedule=(
        _entry(game="ttt", system="swiss", rounds=1, at=at),
        _entry(game="ttt", system="arena", minutes=5, at=at, day="daily"),
        _entry(game="pyr", system="par", rounds=6, at=at),
        _entry(game="pyr", system="swiss", rounds=3, at=at)))
    svc = parlor.host.tournaments
    ann, bea = await _players(parlor, "Ann", "Bea")
    try:
        due = next_start(svc.schedule[0], time.time())
        with caplog.at_level(logging.ERROR):
            await svc.tick(now=due - 31 * 60)
            assert await svc.listing() == []
            await svc.tick(now=due - 29 * 60)
            await svc.tick(now=due - 28 * 60)  # opened once
        rows = sorted(await svc.listing(), key=lambda r: r.id)
        assert [(r.system, r.status, r.starts_at) for r in rows] == [
            ("swiss", "open", due), ("arena", "open", due), ("par", "open", due)]
        assert "scheduled tournament 4 (pyr swiss" in caplog.text \
            and "for games of two" in caplog.text  # refused by the director: not opened
        await ann.cmd("tourney", r"Noughts and Crosses Swiss, 1 round \(unranked\) +open +0")
        await ann.cmd(f"tourney {rows[0].id}", "Starts at ")
        await ann.cmd(f"tourney join {rows[0].id}", "You enter")
        await bea.cmd(f"tourney join {rows[0].id}", "You enter")
        await bea.cmd(f"tourney join {rows[1].id}", "You enter")
        await svc.tick(now=due)
        await ann.expect(rf"Tournament {rows[0].id} \(.*\) begins")
        await bea.expect(rf"Tournament {rows[1].id} \(.*\) is cancelled: fewer than two "
                         "entered")
        assert (await svc.get(rows[0].id)).status == "running"
        assert (await svc.get(rows[1].id)).status == "cancelled"
    finally:
        await ann.close()
        await bea.close()
        await parlor.stop()


async def test_an_arena_takes_late_entrants_and_pauses(sqlite_url):
    parlor = await _parlor(sqlite_url, tick=0.2)
    ann, bea, cal = await _players(parlor, "Ann", "Bea", "Cal")
    try:
        await ann.cmd("tourney create ttt arena 30", "Tournament 1 is open")
        await ann.cmd("tourney create ttt knockout 3", r"There is no KNOCKOUT tournament "
                      r"of Noughts and Crosses; there are SWISS, ARENA\.")
        await ann.cmd("tourney join 1", "You enter")
        await bea.cmd("tourney join 1", "You enter")
        await ann.cmd("tourney start 1", r"Game #1: Noughts and Crosses, \w+ vs \w+ begins")
        await cal.cmd("tourney join 1", "You enter tournament 1")  # late, and welcome
        await ann.cmd("tourney 1", r"Running; \d+ minutes left\.(.|\n)*Points +Games +Wins")
        await cal.cmd("tourney withdraw 1", "You withdraw from tournament 1")
        await cal.cmd("tourney 1", r"Cal \(paused\)")
        bea.send("ttt resign")
        await ann.expect(r"Game #1: Ann wins")
        # Ann and Bea just met, but Cal is paused: no one else is there, so they meet again
        await bea.expect(r"Game #2: Noughts and Crosses, \w+ vs \w+ begins", timeout=3)
        await cal.cmd("tourney join 1", "You enter tournament 1")  # back from the pause
        await asyncio.sleep(1)
        assert len(parlor.host.live) == 1  # Cal waits for one of them to be free
        bea.send("ttt resign")
        await ann.expect(r"Game #2: Ann wins")
        await cal.expect(r"Game #3: Noughts and Crosses, \w+ vs \w+ begins", timeout=3)
        await cal.cmd("tourney join 1", "You have entered tournament 1 already")
        await ann.cmd("tourney create ttt swiss 2", "You may run 1 tournament at a time")
    finally:
        for c in (ann, bea, cal):
            await c.close()
        await parlor.stop()


async def test_a_wait_for_a_no_show_outlives_a_restart(sqlite_url):
    parlor = await _parlor(sqlite_url, no_show_seconds=3, tick=0.2)
    ann, bea = await _players(parlor, "Ann", "Bea")
    await ann.cmd("tourney create ttt swiss 1", "Tournament 1 is open")
    await ann.cmd("tourney join 1", "You enter")
    await bea.cmd("tourney join 1", "You enter")
    await bea.close()
    await asyncio.sleep(0.3)
    await ann.cmd("tourney start 1", "who is not connected")
    await ann.close()
    await parlor.stop()
    parlor = await _parlor(sqlite_url, no_show_seconds=3, tick=0.2)  # the same database
    try:
        ann = await _players_login(parlor, "Ann")
        await ann.expect(r"Tournament 1 \(.*\) is over: Ann wins", timeout=6)
        assert (await parlor.host.tournaments.barred(2)) is not None
        await ann.close()
    finally:
        await parlor.stop()
