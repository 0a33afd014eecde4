"""The ``GameKind`` contract (server/hosting.py): a game described once, by its ``PlaySpec``
(games/spec.py: engine functions every game gives, defaults for the rest), and a kind that
adds what needs the parlor, is hosted once and is its game's service."""

from __future__ import annotations

import random
import re

import attrs
import pytest

from commands import app as commands_app
from commands.app import assemble
from games.outcome import Outcome
from games.pyramid import match
from games.spec import PlaySpec
from server.bus import LocalBus
from server.config import Config
from server.hosting import GameKind, Seat
from server.services import pyramid, triad, triptycha
from server.services.games import GameHost
from tests.conftest import make_config
from tests.support import tictactoe
from tests.support.tictactoe import TicTacToe


def make_host(delay: float = 0.25) -> GameHost:
    # registering and the defaults touch neither the database nor the accounts
    return GameHost(None, LocalBus(), None, is_online=lambda _: True, reconnect_grace=1,
                    computer_delay=delay)


def test_a_spec_without_an_engine_function_cannot_be_made():
    with pytest.raises(TypeError) as err:
        PlaySpec(key="half", title="Half", prefix="HALF", gmcp_package="Half.Game",
                 apply=tictactoe.apply)
    for function in ("outcome", "to_move", "parse_action", "render", "speak"):
        assert function in str(err.value)


def test_a_game_is_described_once_and_its_kind_repeats_none_of_it():
    """The engine, the words and the views are the spec's alone: the kind adds what needs
    the parlor and forwards nothing (issue: three descriptions of one game)."""
    described = {field.name for field in attrs.fields(PlaySpec)} - set(GameKind.FACTS)
    assert not described & set(vars(GameKind)), described & set(vars(GameKind))
    for kind in (TicTacToe(), *commands_app.default_kinds(make_config("sqlite+aiosqlite:///:memory:"))):
        for name in GameKind.FACTS:
            assert getattr(kind, name) == getattr(kind.spec, name), (kind.key, name)
    assert TicTacToe.spec is tictactoe.SPEC


def test_a_kind_is_hosted_once_and_found_by_its_key():
    host, other = make_host(), make_host()
    kind = TicTacToe()
    host.register(kind)
    assert kind.parlor is host.parlor and host.kind("ttt") is kind
    with pytest.raises(ValueError, match="registered twice"):
        host.register(TicTacToe())
    with pytest.raises(ValueError, match="hosted already"):
        other.register(kind)


def test_what_a_kind_does_not_override_is_what_the_host_assumes():
    host = make_host(delay=0.25)
    kind = TicTacToe()
    host.register(kind)
    state = tictactoe.new_game({}, random.Random(1))
    seats = (Seat(1, "Alice"), Seat(2, "Bob"))
    assert kind.seats_of(state, seats) is seats
    assert kind.spec.presence(state, 0, False) is None and kind.spec.presence(state, 0, True) is None
    assert kind.spec.audience(state, 0, []) is None
    assert kind.spec.counts(Outcome(None, "board full")) is True
    assert kind.spec.describe_move(state, 0, "PLAY 5", "Alice") is None
    assert kind.pace(None, 1) == 0.25
    assert kind.arm_clock(state) is None  # no clock in the options
    clocked = tictactoe.new_game({"clock": 5.0}, random.Random(1))
    assert kind.arm_clock(clocked) == (5.0, 0, tictactoe.Resign())
    assert kind.spec.is_ranked({"ranked": True}) and not kind.spec.is_ranked({})
    assert kind.spec.describe_outcome(state, 7, Outcome(1, "three in a row"), ("Alice", "Bob")) \
        == "Game #7: Bob wins (three in a row)."
    assert kind.spec.describe_outcome(state, 7, Outcome(None, "board full"), ("Alice", "Bob")) \
        == "Game #7 ends in a draw (board full)."
    assert kind.spec.describe_outcome(state, 7, Outcome(None, "resigned"), ("Alice",)) \
        == "Game #7 is over (resigned)."


def test_kinds_take_only_the_facts_that_vary():
    assert not GameHost.takes_rematches(triad.TriadTables())   # a table: players come and go
    assert not GameHost.takes_rematches(pyramid.Pyramid())     # a solitaire (or two at once)
    assert GameHost.takes_rematches(triptycha.Triptycha()) and GameHost.takes_rematches(TicTacToe())
    assert triad.TriadTables().open_table and pyramid.Pyramid().simultaneous
    assert not pyramid.Pyramid().spec.counts(Outcome(None, match.SAVED_REASON))


def test_a_kind_reaches_the_parlor_only_through_its_narrow_port():
    """A kind holds no game host: what it may ask of the parlor is ``Parlor``'s, and the
    object it is given has nothing else to reach (no bus, no offers, no sessions)."""
    host = make_host()
    kind = TicTacToe()
    host.register(kind)
    reachable = {name for name in vars(kind.parlor) if not name.startswith("_")}
    assert reachable == {"db", "accounts", "computer_delay", "is_online"}
    assert not any(value is host for value in vars(kind).values())
    assert not any(value is host for value in vars(kind.parlor).values())
    with pytest.raises(RuntimeError, match="not hosted"):
        TicTacToe().hosted


async def test_each_parlor_gets_its_own_kinds_and_finds_each_service_one_way(tmp_path):
    config = make_config(f"sqlite+aiosqlite:///{tmp_path}/x.db")
    first, second = assemble(config), assemble(config)
    for key in ("tt", "dice", "triad", "pyr", "ttt"):
        assert first.host.kind(key) is not second.host.kind(key)
        assert first.host.kind(key).parlor is first.host.parlor
    assert isinstance(first.host.kind(pyramid.KEY), pyramid.Pyramid)
    assert isinstance(first.host.kind(triad.KEY), triad.TriadTables)
    tt = first.host.kind(triptycha.KEY)
    assert tt.tiles is tt.tiles and tt.tiles.db is first.db
    assert tt.trade_timeout == triptycha.Settings().trade_timeout
    assert first.host.kind(triad.KEY).action_timeout == triad.Settings().action_timeout
    await first.db.close()
    await second.db.close()


async def test_a_game_reads_its_own_settings_and_the_old_keys_still_work(tmp_path):
    """``[games.<key>]`` is the game's own table; a key of ``[games]`` a game used to be
    set by still sets it; a key or table no game reads is refused, by name."""
    url = f"sqlite+aiosqlite:///{tmp_path}/x.db"
    parlor = assemble(Config.from_dict({"database": {"url": url}, "games": {
        "tt": {"trade_timeout": 7}, "triad_action_timeout": 9}}))
    assert parlor.host.kind(triptycha.KEY).trade_timeout == 7.0
    assert parlor.host.kind(triad.KEY).action_timeout == 9.0
    await parlor.db.close()
    for games, refused in (({"tt": {"trade_timout": 7}}, "'trade_timout' in [games.tt]"),
                           ({"trade_timout": 7}, "'trade_timout' in [games]"),
                           ({"chess": {"clock": 5}}, "[games.chess]"),
                           ({"tt": {"trade_timeout": "soon"}}, "[games.tt] trade_timeout")):
        with pytest.raises(ValueError, match=re.escape(refused)):
            assemble(Config.from_dict({"database": {"url": url}, "games": games}))


async def test_tiles_are_wired_where_the_application_is_assembled(tmp_path):
    """The starter set and the tile data files are Triptycha's, handed over by its kind
    where the application is assembled, not the host's."""
    parlor = assemble(make_config(f"sqlite+aiosqlite:///{tmp_path}/x.db"))
    assert {"accounts", "collections", "tiles"} <= set(parlor.seeders)
    assert parlor.host.kind(triptycha.KEY).on_new_account in parlor.accounts._new_account_hooks
    await parlor.db.close()


def test_the_host_is_handed_actions_not_text_to_parse_back():
    """RESIGN/CLAIM, a clock running out and a player leaving or coming back reach the
    host as the engine's own actions; text is parsed once, from what a player typed."""
    kinds = [*commands_app.default_kinds(make_config("sqlite+aiosqlite:///:memory:")), TicTacToe()]
    for kind in kinds:
        action = kind.resign_action
        assert action is not None and not isinstance(action, str), kind.key
        assert kind.spec.parse_action(kind.spec.format_action(action)) == action, kind.key
