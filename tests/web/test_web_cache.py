"""Pages drawn once per change and sent as the same bytes; static files gzip'd, with
ETags and addresses a browser may keep (``server/web/cache.py``)."""

from __future__ import annotations

import gzip
from pathlib import Path

import httpx
import pytest

from server.web import data
from tests.web.test_web_door import ttt_game

STATIC = Path(__file__).resolve().parents[2] / "server" / "web" / "static"


def counted_renders(door, monkeypatch) -> list[str]:  # noqa: ANN001
    """Every page template the door renders, by name."""
    pages = door.app.state.pages
    drawn: list[str] = []
    real = pages.render

    def counting(template: str, **context):  # noqa: ANN003, ANN202
        drawn.append(template)
        return real(template, **context)

    monkeypatch.setattr(pages, "render", counting)
    return drawn


async def test_the_front_page_is_drawn_once_and_shows_a_new_game_at_once(
        parlor, door, http, clients, monkeypatch):
    drawn = counted_renders(door, monkeypatch)
    # a copy is also drawn again once REDRAW old (0.25 s): a loaded machine can take
    # that long between two requests, and this test is about changes only
    monkeypatch.setattr("server.web.app.REDRAW", 600.0)
    first, again = await http.get("/"), await http.get("/")
    assert first.status_code == again.status_code == 200
    assert "Nobody is connected right now." in first.text
    assert drawn.count("index.html") == 1 and first.content == again.content
    assert first.headers["etag"] == again.headers["etag"]
    alice, bob, number = await ttt_game(clients)   # two log in, their game starts
    page = await http.get("/")
    assert "Who is here (2)" in page.text and f'href="/games/{number}"' in page.text
    assert drawn.count("index.html") == 2 and page.headers["etag"] != first.headers["etag"]
    games = await http.get("/games")
    assert f"#{number}" in games.text
    assert (await http.get("/api/games")).json()["games"][0]["id"] == number


async def test_a_browser_holding_the_front_page_is_told_304(parlor, door, http):
    page = await http.get("/")
    tag = page.headers["etag"]
    assert page.headers["cache-control"] == "no-cache"
    again = await http.get("/", headers={"if-none-match": tag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == tag
    assert again.headers["content-security-policy"].startswith("default-src 'self'")
    stale = await http.get("/", headers={"if-none-match": '"not-this-one"'})
    assert stale.status_code == 200 and stale.content == page.content


async def test_a_games_page_and_json_are_made_once_a_move(parlor, door, http, clients,
                                                         monkeypatch):
    alice, bob, number = await ttt_game(clients)
    drawn = counted_renders(door, monkeypatch)
    boards = []
    real = data.board
    monkeypatch.setattr(data, "board", lambda frame, watchers: boards.append(1)
                        or real(frame, watchers))
    one, two = await http.get(f"/api/games/{number}"), await http.get(f"/api/games/{number}")
    assert one.json()["moves"] == two.json()["moves"] == 0 and len(boards) == 1
    page = await http.get(f"/games/{number}")
    await http.get(f"/games/{number}")
    assert drawn.count("game.html") == 1
    before = len(boards)
    await alice.cmd("ttt play 5", "Alice: PLAY 5")
    moved = await http.get(f"/api/games/{number}")
    assert (await http.get(f"/api/games/{number}")).content == moved.content
    assert moved.json()["moves"] == 1 and len(boards) == before + 1
    assert moved.headers["etag"] != one.headers["etag"]
    after = await http.get(f"/games/{number}")
    assert drawn.count("game.html") == 2 and after.text != page.text


async def raw(http: httpx.AsyncClient, path: str, **headers: str) -> tuple[httpx.Response,
                                                                          bytes]:
    """``path``'s response and its body as sent (not decompressed)."""
    request = http.build_request("GET", path, headers=headers)
    response = await http.send(request, stream=True)
    try:
        body = b"".join([chunk async for chunk in response.aiter_raw()])
    finally:
        await response.aclose()
    return response, body


async def test_static_files_are_gzipped_when_asked_and_plain_when_not(http):
    script = (STATIC / "play.js").read_bytes()
    packed, body = await raw(http, "/static/play.js", **{"accept-encoding": "gzip, deflate"})
    assert packed.status_code == 200 and packed.headers["content-encoding"] == "gzip"
    assert packed.headers["vary"] == "Accept-Encoding"
    assert packed.headers["content-type"] == "text/javascript; charset=utf-8"
    assert gzip.decompress(body) == script and len(body) < len(script) / 2
    plain, body = await raw(http, "/static/play.js", **{"accept-encoding": "identity"})
    assert "content-encoding" not in plain.headers and body == script
    refused, body = await raw(http, "/static/style.css", **{"accept-encoding": "gzip;q=0"})
    assert "content-encoding" not in refused.headers
    assert body == (STATIC / "style.css").read_bytes()
    # two representations, two tags; each one's own is 304
    assert packed.headers["etag"] != plain.headers["etag"]
    for sent, encoding in ((packed, "gzip"), (plain, "identity")):
        again, body = await raw(http, "/static/play.js", **{
            "accept-encoding": encoding, "if-none-match": sent.headers["etag"]})
        assert again.status_code == 304 and body == b""
        assert again.headers["etag"] == sent.headers["etag"]
    other, _ = await raw(http, "/static/play.js", **{
        "accept-encoding": "identity", "if-none-match": packed.headers["etag"]})
    assert other.status_code == 200
    missing = await http.get("/static/nothing.js")
    assert missing.status_code == 404


async def test_pages_name_static_files_by_digest_so_a_reload_fetches_nothing(http):
    page = (await http.get("/play")).text
    for name in ("play.js", "board.js", "style.css"):
        found = [part.split('"')[0] for part in page.split(f'"/static/{name}?v=')[1:]]
        assert len(found) == 1, (name, page)
        kept = await http.get(f"/static/{name}?v={found[0]}")
        assert kept.status_code == 200
        assert kept.headers["cache-control"] == "public, max-age=31536000, immutable"
    unversioned = await http.get("/static/play.js")
    assert unversioned.headers["cache-control"] == "no-cache"
    wrong = await http.get("/static/play.js?v=0123456789ab")   # an older digest
    assert wrong.headers["cache-control"] == "no-cache"


@pytest.mark.parametrize("encoding", ["gzip", "identity"])
async def test_a_page_is_gzipped_only_when_asked(http, encoding):
    response, body = await raw(http, "/play", **{"accept-encoding": encoding})
    text = gzip.decompress(body) if encoding == "gzip" else body
    assert b"<!doctype html>" in text
    assert response.headers.get("content-encoding") == (
        "gzip" if encoding == "gzip" else None)
