"""Small pure pieces of the parlor: text hygiene, throttles, Glicko-2, config, registry."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from commands.app import GAMES
from commands.registry import Command, build
from server.config import Config
from server.glicko2 import Glicko, update
from server.pacing import RateLimiter
from server.text import clean, strip_sgr, visible_len, wrap
from server.throttle import LoginThrottle, Sliding
from server.world import World


@pytest.mark.parametrize("raw, shown", [
    ("plain text", "plain text"),
    ("\x1b[31mred\x1b[0m", "red"),
    ("\x1b]0;title\x07after", "after"),
    ("\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\", "link"),
    ("bell\x07", "bell"),
    ("\x9b2Jclear", "clear"),
    ("bidi\u202etrick", "biditrick"),
    ("tab\there", "tab here"),
    ("é 日本 ok", "é 日本 ok"),
    ("\x1bPdcs payload\x1b\\x", "x"),
])
def test_clean_strips_escapes_and_controls(raw, shown):
    assert clean(raw) == shown


@given(st.text())
@settings(max_examples=300)
def test_clean_output_never_holds_a_control_character(text):
    out = clean(text)
    assert "\x1b" not in out and "\x9b" not in out
    assert all(ord(c) >= 32 and not 0x7f <= ord(c) < 0xa0 for c in out)


def test_visible_len_ignores_colour_and_counts_wide_characters():
    assert visible_len("\x1b[1;31mabc\x1b[0m") == 3
    assert visible_len("日本") == 4
    assert strip_sgr("\x1b[32mgo\x1b[0m") == "go"
    assert all(len(line) <= 30 for line in wrap("word " * 40, 30))


def test_login_throttle_delays_grow_after_max_failures():
    """Past the allowance each failure makes the next try wait longer (5, 10, 20 ...),
    up to the lockout, counted from the last failure: a delay, never a hard lock."""
    now = [0.0]
    t = LoginThrottle(max_failures=3, window=600, lockout=30, clock=lambda: now[0],
                      first_delay=5)
    for _ in range(2):
        t.fail("addr:1", "name:bob")
    assert t.wait("addr:1", "name:bob") == 0
    t.fail("addr:1", "name:bob")
    assert t.wait("name:bob") == 5
    assert t.wait("addr:2", "name:carol") == 0
    now[0] = 5
    assert t.wait("name:bob") == 0
    t.fail("name:bob")
    assert t.wait("name:bob") == 10
    for delay in (20, 30, 30):
        now[0] += 100
        t.fail("name:bob")
        assert t.wait("name:bob") == delay
    t.succeed("name:bob")
    assert t.wait("name:bob") == 0


def test_login_throttle_window_forgets_old_failures():
    now = [0.0]
    t = LoginThrottle(max_failures=3, window=10, lockout=100, clock=lambda: now[0])
    t.fail("k")
    t.fail("k")
    now[0] = 20
    t.fail("k")
    assert t.wait("k") == 0


def test_sliding_counts_events_within_its_window_per_key():
    now = [0.0]
    s = Sliding(limit=2, window=10, clock=lambda: now[0])
    assert s.wait("a") == 0 and s.count("a") == 0
    s.add("a")
    assert s.count("a") == 1 and s.wait("a") == 0
    now[0] = 4
    s.add("a")
    s.add("b")
    assert s.count("a") == 2 and s.wait("a") == 6  # the first event leaves the window at 10
    now[0] = 10
    assert s.count("a") == 1 and s.wait("a") == 0
    s.added_elsewhere("a")  # another node's
    assert s.wait("a") == 4
    now[0] = 30
    assert s.count("a") == 0 and s.count("b") == 0
    s.add("c")  # a window after the last prune: keys whose events all passed go
    assert set(s._events) == {"c"}


def test_rate_limiter_allows_a_burst_then_refuses():
    r = RateLimiter(rate=0.0001, burst=5)
    assert [r.allow() for _ in range(7)] == [True] * 5 + [False] * 2


def test_glicko2_matches_glickmans_worked_example():
    player = Glicko(1500, 200, 0.06)
    after = update(player, [(Glicko(1400, 30), 1), (Glicko(1550, 100), 0),
                            (Glicko(1700, 300), 0)])
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.rd == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=1e-5)


def test_glicko2_no_games_only_widens_rd():
    after = update(Glicko(1500, 200, 0.06), [])
    assert after.rating == 1500 and after.rd > 200


def test_config_file_in_the_repo_loads_and_matches_the_defaults():
    """Every section, and each game's own table ([games.<key>]) as its game reads it."""
    config = Config.load("config.toml")
    assert attrs.evolve(config, games=attrs.evolve(config.games, own={})) == Config()
    for game in GAMES:
        kind = game.kind
        if kind.Settings is not None:
            assert config.games.settings(kind.key, kind.Settings, kind.old_settings) \
                == kind.Settings(), kind.key
    config.games.check_read({name for g in GAMES for name in (g.key, *g.kind.old_settings)})


def test_config_refuses_unknown_keys_and_wrong_types():
    with pytest.raises(ValueError, match="unknown key"):
        Config.from_dict({"server": {"prot": 1}})
    with pytest.raises(ValueError, match="unknown section"):
        Config.from_dict({"sever": {}})
    with pytest.raises(ValueError, match="should be int"):
        Config.from_dict({"server": {"port": "4000"}})


def test_config_refuses_a_string_or_a_number_for_a_yes_no_setting():
    """TOML has true and false; "no" (a string) or 0 for a boolean setting is refused
    with the key's name, not loaded as a truthy string. A number setting refuses true."""
    for bad in ("no", "false", "off", 0, 1):
        with pytest.raises(ValueError, match=r"\[web\] enabled should be true or false"):
            Config.from_dict({"web": {"enabled": bad}})
    assert Config.from_dict({"web": {"enabled": False}}).web.enabled is False
    assert Config.from_dict({"server": {"fairness": True}}).server.fairness is True
    with pytest.raises(ValueError, match=r"\[server\] port should be int"):
        Config.from_dict({"server": {"port": True}})
    with pytest.raises(ValueError, match=r"\[login\] lines_per_second should be float"):
        Config.from_dict({"login": {"lines_per_second": False}})
    with pytest.raises(ValueError, match=r"\[web\] origins should be a list of strings"):
        Config.from_dict({"web": {"origins": [8080]}})
    with pytest.raises(ValueError, match=r"\[web\] origins should be a list of strings"):
        Config.from_dict({"web": {"origins": "https://example.org"}})


def test_world_data_is_connected_both_ways():
    world = World.load()
    for room in world.rooms.values():
        for target in room.exits.values():
            assert room.key in world.rooms[target].exits.values(), (room.key, target)


def test_registry_refuses_a_name_defined_twice():
    async def h(ctx, rest):  # noqa: ANN001
        pass
    with pytest.raises(ValueError, match="twice"):
        build([[Command("say", h, "SAY", "")], [Command("talk", h, "T", "", aliases=("say",))]])


def test_telnetlib3_log_flood_is_throttled_and_counted():
    import logging

    from server.cli import LogThrottle

    throttle = LogThrottle("telnetlib3", burst=3, window=10.0)

    def record(name: str, at: float) -> logging.LogRecord:
        r = logging.LogRecord(name, logging.WARNING, __file__, 1, "line", None, None)
        r.created = at
        return r

    flood = [throttle.filter(record("telnetlib3.server_base", 100.0 + i / 100))
             for i in range(1000)]
    assert flood.count(True) == 3
    assert all(throttle.filter(record("server.app", 100.5)) for _ in range(10))  # others pass
    later = record("telnetlib3.server_base", 111.0)
    assert throttle.filter(later)
    assert later.getMessage() == "(997 earlier telnetlib3 records dropped) line"


def test_an_amount_not_a_amount():
    from commands.args import whole_number
    from commands.registry import CommandError
    from server.text import a

    assert [a(w) for w in ("amount", "number", "Ace", "Undercroft", "tile")] == [
        "an amount", "a number", "an Ace", "an Undercroft", "a tile"]
    with pytest.raises(CommandError, match="'x' is not an amount"):
        whole_number("x", what="amount")
