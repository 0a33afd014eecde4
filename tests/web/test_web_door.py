"""The web door against a running parlor: pages, JSON, live boards, and /play, a browser's
session over WebSocket that is the same session a telnet client gets."""

from __future__ import annotations

import asyncio
import json
import re

import httpx
import pytest
from websockets.exceptions import InvalidStatus

from server.config import Config, WebSection
from server.web import WebDoor, WebDoorError
from tests.web.wsclient import WsPlayer


def ws_url(door: WebDoor) -> str:
    return door.url.replace("http://", "ws://") + "play/ws"


async def dice_vs_computer(clients) -> tuple[object, int]:  # noqa: ANN001
    alice = await clients("Alice")
    out = await alice.cmd("dice challenge computer easy",
                          r"Game #(\d+): Triad Dice, Alice vs Computer")
    return alice, int(re.search(r"Game #(\d+)", out).group(1))


# -- configuration -------------------------------------------------------------------------
def test_web_section_defaults_and_overrides(tmp_path):
    assert Config().web == WebSection()
    assert (Config().web.host, Config().web.port, Config().web.enabled) == ("127.0.0.1", 8080, True)
    path = tmp_path / "c.toml"
    path.write_text('[web]\nport = 9000\nenabled = false\norigins = ["https://x.org"]\n')
    config = Config.load(path)
    assert (config.web.port, config.web.enabled) == (9000, False)
    assert config.web.origins == ("https://x.org",)
    assert config.with_overrides(web_port=0).web.port == 0
    path.write_text("[web]\nport = 'eighty'\n")
    with pytest.raises(ValueError, match="port should be int"):
        Config.load(path)


async def test_a_taken_port_is_a_clear_error(parlor, door):
    other = WebDoor(parlor, host="127.0.0.1", port=door.port)
    with pytest.raises(WebDoorError, match=f"cannot listen on 127.0.0.1:{door.port}"):
        await other.start()


# -- pages and JSON ------------------------------------------------------------------------
async def test_pages_and_api_show_a_game_in_play(parlor, door, http, clients):
    alice, number = await dice_vs_computer(clients)
    page = (await http.get("/")).text
    assert "Who is here (1)" in page and 'href="/players/Alice"' in page
    assert f'href="/games/{number}"' in page and "Computer(easy)" in page
    listing = (await http.get("/games")).text
    assert f"#{number}" in listing and "Triad Dice" in listing
    board = await http.get(f"/games/{number}")
    assert board.status_code == 200
    assert 'class="board dice"' in board.text and "<pre" not in board.text
    assert board.headers["content-security-policy"].startswith("default-src 'self'")
    assert board.headers["x-content-type-options"] == "nosniff"
    game = parlor.host.live[number]
    async with game.lock:  # the computer waits: the answer and the game agree
        api = (await http.get(f"/api/games/{number}")).json()
    assert api["id"] == number and api["kind"] == "dice" and api["moves"] == game.version
    assert api["view"] == json.loads(json.dumps(game.view(None)))
    assert api["players"] == ["Alice", "Computer(easy)"]
    assert "seed" not in api and "state" not in api
    assert (await http.get("/api/games")).json()["games"][0]["id"] == number
    who = (await http.get("/api/who")).json()
    assert who["online"] == 1 and who["players"][0]["name"] == "Alice"
    assert who["players"][0]["games"] == [{"id": number, "kind": "dice"}]
    me = (await http.get("/api/players/alice")).json()
    assert me["name"] == "Alice" and me["online"] and me["cubits"] == 1000
    assert "password_hash" not in json.dumps(me) and "settings" not in me
    assert "Alice" in (await http.get("/players/ALICE")).text


async def test_wrong_addresses_get_one_clear_line(parlor, door, http):
    cases = {
        "/games/999": (404, "There is no game #999."),
        "/games/99999999999999999999": (404, "There is no game #"),
        "/games/1/replay": (404, "There is no game #1."),
        "/games/1/replay?move=x": (400, "move should be a whole number"),
        "/rankings/chess": (404, "There is no game called that. Games: TT, DICE"),
        "/players/nobody": (404, "There is no player by that name."),
        "/nowhere": (404, "There is no page here."),
    }
    for path, (status, message) in cases.items():
        r = await http.get(path)
        assert r.status_code == status, path
        assert message in r.text, (path, r.text)
        api = await http.get("/api" + path if not path.startswith("/nowhere") else "/api/nowhere")
        if api.status_code != 404 or path.startswith("/games/1/replay?"):
            continue
        assert "error" in api.json()
    assert (await http.get("/api/games/1/replay?move=x")).json() == {
        "error": "move should be a whole number (0 is the start)."}
    r = await http.post("/games")
    assert r.status_code == 405
    huge = await http.get("/", headers={"x-junk": "a" * 70000})
    assert huge.status_code in (400, 431)


async def ttt_game(clients) -> tuple[object, object, int]:  # noqa: ANN001
    alice = await clients("Alice")
    bob = await clients("Bob")
    await alice.cmd("ttt challenge bob", "You challenge Bob")
    await bob.expect("Alice challenges you to Noughts and Crosses")
    bob.send("ttt accept alice")
    out = await alice.expect(r"Game #(\d+): Noughts and Crosses, Alice vs Bob")
    await bob.expect("begins")
    return alice, bob, int(out.rsplit("Game #", 1)[1].split(":")[0])


async def test_replay_steps_through_a_finished_game(parlor, door, http, clients):
    alice, bob, number = await ttt_game(clients)
    game = parlor.host.live[number]
    for who, cell in ((alice, 1), (bob, 4), (alice, 2), (bob, 5)):
        await who.cmd(f"ttt play {cell}", f": PLAY {cell}")
    await alice.cmd("ttt play 3", "Alice wins \\(three in a row\\)")
    assert game.outcome is not None
    page = await http.get(f"/games/{number}/replay")
    assert "After move 5 of 5" in page.text and "Alice wins" in page.text
    first = await http.get(f"/games/{number}/replay?move=1")
    assert "After move 1 of 5" in first.text and 'href="?move=2"' in first.text
    api = (await http.get(f"/api/games/{number}/replay?move=2")).json()
    assert (api["move"], api["total"]) == (2, 5)
    assert [(m["name"], m["notation"]) for m in api["moves"]] == [
        ("Alice", "PLAY 1"), ("Bob", "PLAY 4"), ("Alice", "PLAY 2"), ("Bob", "PLAY 5"),
        ("Alice", "PLAY 3")]
    assert api["view"] == json.loads(json.dumps(game.kind.spec.view_for(
        (await parlor.host.replay(number, 2))[0].state, None)))
    assert (await http.get(f"/games/{number}/replay?move=9")).status_code == 404


async def test_rankings_and_records(parlor, door, http, clients):
    r = await http.get("/rankings/DICE")
    assert "Nobody has played a ranked game of Triad Dice yet" in r.text
    assert "No game of Triad Dice has finished yet" in r.text
    alice, number = await dice_vs_computer(clients)
    await alice.cmd("dice resign", "resign|wins")
    for _ in range(100):
        if number not in parlor.host.live:
            break
        await asyncio.sleep(0.02)
    data = (await http.get("/api/rankings/dice")).json()
    names = {r["name"]: r for r in data["records"]}
    assert names["Alice"]["unranked"]["losses"] == 1
    assert data["rankings"] == []
    page = (await http.get("/rankings/dice")).text
    assert 'href="/players/Alice"' in page and "0-1-0" in page


async def test_top10_page(parlor, door, http):
    r = await http.get("/pyramid/top10")
    assert r.status_code == 200 and "The Top 10 is empty" in r.text
    assert (await http.get("/api/pyramid/top10")).json() == {"top10": []}


# -- live boards ---------------------------------------------------------------------------
async def read_events(lines, until: str, timeout: float = 10.0) -> list[tuple[str, dict]]:
    """Server-sent events from ``lines`` (a response's ``aiter_lines()``) up to one of
    kind ``until``. Keep ``lines`` for as long as the stream must stay open: an iterator
    of httpx's that is dropped half read is closed when it is collected, and its
    connection with it (the server then sees the watcher leave)."""
    events: list[tuple[str, dict]] = []
    kind = None

    async def reading() -> None:
        nonlocal kind
        async for line in lines:
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                events.append((kind, json.loads(line[6:])))
                if kind == until:
                    return

    await asyncio.wait_for(reading(), timeout)
    return events


async def test_live_board_streams_each_move(parlor, door, http, clients):
    alice, bob, number = await ttt_game(clients)
    async with http.stream("GET", f"/games/{number}/events") as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        lines = response.aiter_lines()
        first = await read_events(lines, "update")
        assert first[-1][1]["summary"]["moves"] == 0
        assert door.watchers.open[number] == 1
        await alice.cmd("ttt play 5", "Alice: PLAY 5")
        update = await read_events(lines, "update")
        assert update[-1][1]["summary"]["moves"] == 1
        assert any("Alice" in line for line in update[-1][1]["lines"])
    for _ in range(100):
        if number not in door.watchers.open:
            break
        await asyncio.sleep(0.02)
    assert number not in door.watchers.open


async def test_watchers_per_game_are_bounded(parlor, http, clients):
    limited = WebDoor(parlor, host="127.0.0.1", port=0)
    limited.watchers.limit = 1
    await limited.start()
    try:
        _, number = await dice_vs_computer(clients)
        async with httpx.AsyncClient(base_url=limited.url.rstrip("/"), timeout=10) as web:
            async with web.stream("GET", f"/games/{number}/events") as one:
                lines = one.aiter_lines()   # kept: the stream stays open while it lives
                await read_events(lines, "update")
                two = await web.get(f"/games/{number}/events")
                assert two.status_code == 503
                assert "as many live watchers as it may" in two.text
    finally:
        await limited.stop()


# -- /play ---------------------------------------------------------------------------------
async def test_play_is_a_session_like_telnet(parlor, door, clients):
    player = await WsPlayer.connect(ws_url(door), cols=77, origin=door.url.rstrip("/"))
    assert player.ws.subprotocol == "telnet.mudstandards.org"
    await player.create("Webby")
    assert player.echo_changes[:2] == [True, False]   # the password was asked with echo off
    session = parlor.online.named("Webby")
    assert session is not None and session.address == "127.0.0.1"
    assert session.width == 77
    await player.naws(120)
    for _ in range(50):
        if session.width == 120:
            break
        await asyncio.sleep(0.02)
    assert session.width == 120
    bob = await clients("Bob")
    await bob.cmd("say hello <b>web</b>", "You say")
    await player.expect(r"Bob says, \"hello <b>web</b>\"")
    await player.cmd("who", "Webby")
    await player.cmd("dice challenge computer easy", "Webby vs Computer")
    assert any(pkg == "Dice.Game" for pkg, _ in player.gmcp)
    await player.close()
    for _ in range(100):
        if parlor.online.named("Webby") is None:
            break
        await asyncio.sleep(0.02)
    assert parlor.online.named("Webby") is None and session.closed


class SilentOnNaws(WsPlayer):
    """A page whose answer to DO NAWS never comes (as when it comes after the shell has
    started: telnetlib3 waits half a second for it)."""

    async def naws(self, cols: int, rows: int = 40) -> None:
        self.cols = cols


@pytest.mark.parametrize(("query", "widest"), [("?cols=40&rows=20", 40), ("", 80),
                                                ("?cols=abc&rows=20", 80),
                                                ("?cols=9999&rows=20", 80)])
async def test_the_welcome_fits_the_window_the_address_gives(parlor, door, query, widest):
    """The page puts its window's size on the address, so the welcome is drawn to it
    even before (or without) NAWS; a size that is no window's is ignored."""
    player = await SilentOnNaws.connect(ws_url(door) + query, origin=door.url.rstrip("/"))
    try:
        welcome = await player.expect("Type your name to log in")
        lines = [line for line in welcome.splitlines() if line.strip()]
        assert lines and max(len(line) for line in lines) <= widest, welcome
    finally:
        await player.close()


async def test_play_refuses_a_foreign_origin_and_a_missing_subprotocol(parlor, door):
    with pytest.raises(InvalidStatus) as refused:
        await WsPlayer.connect(ws_url(door), origin="https://evil.example")
    assert refused.value.response.status_code == 403
    with pytest.raises(InvalidStatus) as refused:
        await WsPlayer.connect(ws_url(door), subprotocols=("json.example",))
    assert refused.value.response.status_code == 403
    assert not parlor.connections


async def test_play_counts_against_the_per_address_cap(sqlite_url):
    from commands.app import assemble
    from tests.conftest import make_config
    from tests.support.client import Client

    parlor = assemble(make_config(sqlite_url, max_connections_per_address=2))
    await parlor.start()
    door = WebDoor(parlor, host="127.0.0.1", port=0)
    await door.start()
    try:
        telnet = await Client.connect(parlor.port)
        await telnet.expect("Name: ")
        web = await WsPlayer.connect(ws_url(door))
        await web.expect("Name: ")
        third = await WsPlayer.connect(ws_url(door))
        said = await third.closed_by_server()
        assert "Too many connections from your address (at most 2)" in said
        await telnet.close()
        await web.close()
    finally:
        await parlor.stop()


async def test_play_bounds_message_size_and_rate(parlor, door):
    player = await WsPlayer.connect(ws_url(door))
    await player.expect("Name: ")
    await player.ws.send(b"x" * (parlor.config.web.max_message + 1))
    await player.closed_by_server()
    assert player.ws.close_code == 1009
    player = await WsPlayer.connect(ws_url(door))
    await player.expect("Name: ")
    for _ in range(parlor.config.web.message_burst + 5):
        try:
            await player.ws.send(b"a")
        except Exception:
            break
    await player.closed_by_server()
    assert player.ws.close_code == 1008   # policy, as documented, and why
    assert "messages a second" in player.ws.close_reason


async def test_login_throttle_applies_to_the_browser(parlor, door, clients):
    await (await clients("Alice")).close()
    player = await WsPlayer.connect(ws_url(door))
    await player.expect("Name: ")
    for _ in range(parlor.config.login.max_failures):
        await player.cmd("Alice", "Password: ")
        await player.cmd("wrong", "Wrong password")
    await player.cmd("Alice", "Too many failed logins; try again in")


async def test_stopping_the_parlor_closes_browser_sessions(sqlite_url):
    from commands.app import assemble
    from tests.conftest import make_config

    parlor = assemble(make_config(sqlite_url))
    await parlor.start()
    door = WebDoor(parlor, host="127.0.0.1", port=0)
    await door.start()
    player = await WsPlayer.connect(ws_url(door))
    await player.create("Webby")
    await parlor.stop()
    said = await player.closed_by_server()
    assert "Esterport is shutting down. Your games are saved." in said
    assert parlor.before_stop == []


async def test_the_address_is_the_sockets_unless_a_trusted_proxy_says(sqlite_url):
    import attrs

    from commands.app import assemble
    from tests.conftest import make_config

    forged = {"X-Forwarded-For": "203.0.113.9"}
    for trusted, expected in (((), "127.0.0.1"), (("127.0.0.1",), "203.0.113.9")):
        config = make_config(sqlite_url)
        config = attrs.evolve(config, web=attrs.evolve(config.web, trusted_proxies=trusted))
        parlor = assemble(config)
        await parlor.start()
        door = WebDoor(parlor, host="127.0.0.1", port=0)
        await door.start()
        try:
            player = await WsPlayer.connect(ws_url(door), headers=forged)
            await player.expect("Name: ")
            assert [s.address for s in parlor.connections] == [expected]
            await player.close()
        finally:
            await parlor.stop()


async def test_stopping_the_door_ends_live_streams(parlor, clients, caplog):
    door = WebDoor(parlor, host="127.0.0.1", port=0)
    await door.start()
    _, number = await dice_vs_computer(clients)
    async with httpx.AsyncClient(base_url=door.url.rstrip("/"), timeout=10) as web:
        async with web.stream("GET", f"/games/{number}/events") as stream:
            lines = stream.aiter_lines()
            await read_events(lines, "update")
            await door.stop()
            [line async for line in lines]   # the stream has ended
            assert not door.streams
    # it ended by itself: uvicorn did not have to cancel it after its grace period
    assert "graceful shutdown exceeded" not in caplog.text
    assert door.stop not in parlor.before_stop


async def test_a_trickled_request_head_is_cut_off(sqlite_url):
    import attrs

    from commands.app import assemble
    from tests.conftest import make_config

    config = make_config(sqlite_url)
    config = attrs.evolve(config, web=attrs.evolve(config.web, request_timeout=0.3))
    parlor = assemble(config)
    await parlor.start()
    door = WebDoor(parlor, host="127.0.0.1", port=0)
    await door.start()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", door.port)
        writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n")   # and never the end of the head
        answer = await asyncio.wait_for(reader.read(), 10)
        assert answer.startswith(b"HTTP/1.1 400") and b"too slow" in answer
        writer.close()
        async with httpx.AsyncClient(base_url=door.url.rstrip("/"), timeout=10) as web:
            assert (await web.get("/")).status_code == 200    # a whole head is answered
    finally:
        await parlor.stop()


async def test_rankings_pages_show_the_computer_levels(http):
    """The levels' ratings as bench/level_ratings.py measured them (games/<g>/levels.json)."""
    from games.dice.spec import SPEC as DICE
    from games.triad.spec import SPEC as TRIAD

    data = (await http.get("/api/rankings/dice")).json()
    assert data["levels"] == [{"level": level, "rating": rating}
                              for level, rating in DICE.level_ratings]
    assert [row["level"] for row in data["levels"]] == ["easy", "normal", "hard", "expert"]
    page = (await http.get("/rankings/triad")).text
    assert "The computer&#39;s levels" in page or "The computer's levels" in page
    hard = dict(TRIAD.level_ratings)["hard"]
    assert f"HARD <span class=\"computer-level\">{hard}</span>" in page


async def test_pages_link_players_games_and_replays(parlor, door, http, clients):
    """A computer player has a page (its seats are named ``Computer(<level>)``); a
    player's page lists their finished games with replay links; /favicon.ico is there."""
    alice = await clients("Alice")
    await alice.cmd("dice challenge computer easy", r"begins")
    await alice.cmd("dice resign", r"wins|resign")
    page = await http.get("/players/Computer%28easy%29")
    assert page.status_code == 200 and "Computer(easy)" in page.text
    assert "/replay" in page.text
    page = await http.get("/players/Alice")
    assert page.status_code == 200
    assert 'href="/games/' in page.text and "/replay" in page.text
    data = (await http.get("/api/players/Alice")).json()
    [dice] = data["last_games"]
    assert (dice["kind"], dice["title"]) == ("dice", "Triad Dice")
    assert dice["games"][0]["replay"].endswith("/replay")
    assert dice["games"][0]["players"] == ["Alice", "Computer(easy)"]
    assert dice["games"][0]["result"] == "lost"
    assert (await http.get("/players/Computer%28nonsense%29")).status_code == 404
    icon = await http.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg")
