"""Nothing secret and nothing live: every page and API answer of a running parlor escapes
what players chose, and never shows what a watcher may not see (a Triad hand, a
Triptycha hand, the order of the Pyramid Pack)."""

from __future__ import annotations

import asyncio
import json
import re
from urllib.parse import quote

from games.pyramid.cards import card_text
from server.hosting import Seat

HOSTILE = ("<script>x</script>", '"><img src=x>\x1b[2J', "a&b\x1b]0;t\x07")


async def walk(http, numbers: list[int], names: list[str]) -> dict[str, str]:  # noqa: ANN001
    """Every page and API answer about ``numbers`` and ``names``; path -> body. A game's
    live stream is read up to its first update (or its end)."""
    paths = ["/", "/games", "/play", "/rankings", "/pyramid/top10", "/api/who", "/api/games",
             "/api/pyramid/top10", "/seeks", "/api/seeks", "/tournaments", "/api/tournaments",
             "/tournaments/1", "/api/tournaments/1"]
    for kind in ("ttt", "dice", "tt", "triad", "pyr"):
        paths += [f"/rankings/{kind}", f"/api/rankings/{kind}"]
    for n in numbers:
        paths += [f"/games/{n}", f"/api/games/{n}", f"/games/{n}/replay", f"/api/games/{n}/replay",
                  f"/games/{n}/replay?move=0", f"/games/{n}/replay?move=1",
                  f"/api/games/{n}/replay?move=1"]
    for name in names:
        paths += [f"/players/{quote(name, safe='')}", f"/api/players/{quote(name, safe='')}"]
    bodies = {}
    for path in paths:
        r = await http.get(path)
        assert r.status_code in (200, 404), (path, r.status_code, r.text[:300])
        if path.startswith("/api/"):
            assert r.headers["content-type"] == "application/json"
        bodies[path] = r.text
    streams = [f"/games/{n}/events" for n in numbers] + [
        "/seeks/events", "/tournaments/events", "/tournaments/1/events"]
    for stream in streams:
        text = ""
        async with http.stream("GET", stream) as r:
            if r.status_code == 200:
                async def first() -> None:
                    nonlocal text
                    async for line in r.aiter_lines():
                        text += line + "\n"
                        if line.startswith("data: "):
                            return
                await asyncio.wait_for(first(), 10)
        bodies[stream] = text
    return bodies


def html_of(path: str, body: str) -> list[str]:
    """The HTML in an answer: a page, or the board HTML inside a stream's JSON."""
    if path.endswith("/events"):
        return [(lambda d: d.get("board", "") + d.get("html", ""))(json.loads(line[6:]))
                for line in body.splitlines() if line.startswith("data: ")]
    return [] if path.startswith("/api/") else [body]


async def test_every_page_escapes_what_players_chose(parlor, door, http, clients):
    accounts = [await parlor.accounts.create(name, "", computer=True) for name in HOSTILE[:2]]
    seats = tuple(Seat(a.id, a.name) for a in accounts)
    finished = await parlor.host.start_game("ttt", seats, {"ranked": True})
    for seat, cell in ((0, 1), (1, 4), (0, 2), (1, 5), (0, 3)):
        await parlor.host.act_text(seats[seat].account_id, "ttt", f"PLAY {cell}")
    assert finished.outcome is not None
    live = await parlor.host.start_game("ttt", seats, {})
    await parlor.host.act_text(seats[0].account_id, "ttt", "PLAY 5")
    # a seek and a tournament in their names (entered through the services)
    await parlor.host.seeks.post("dice", seats[0], {"ranked": True})
    tournament = await parlor.host.tournaments.create("dice", "swiss", 2, {}, seats[1],
                                                      admin=True)
    for seat in seats:
        await parlor.host.tournaments.join(tournament.id, seat)
    bob = await clients("Bob")
    await bob.cmd(f"say {HOSTILE[0]} {HOSTILE[2]}", "You say")
    await bob.cmd(f"observe {live.id}", "You are now watching")
    bodies = await walk(http, [finished.id, live.id], [a.name for a in accounts] + ["Bob"])
    seen_escaped = 0
    for path, body in bodies.items():
        for html in html_of(path, body):
            assert "<script>x" not in html and "<img src=x>" not in html, path
            assert "\x1b" not in html and "\x07" not in html, path
            seen_escaped += html.count("&lt;script&gt;x&lt;/script&gt;")
    assert seen_escaped >= 10
    # the JSON says what the name is (as data), and is served as JSON only
    game = json.loads(bodies[f"/api/games/{live.id}"])
    assert game["players"] == [HOSTILE[0], HOSTILE[1]]
    records = json.loads(bodies["/api/rankings/ttt"])
    assert {r["name"] for r in records["rankings"]} == {HOSTILE[0], HOSTILE[1]}
    assert json.loads(bodies["/api/seeks"])["seeks"][0]["name"] == HOSTILE[0]
    standings = json.loads(bodies["/api/tournaments/1"])["standings"]["rows"]
    assert {r["name"] for r in standings} == {HOSTILE[0], HOSTILE[1]}
    for path in ("/seeks", "/seeks/events", "/tournaments/1", "/tournaments/1/events"):
        assert any("&lt;script&gt;x&lt;/script&gt;" in h for h in html_of(path, bodies[path])), path


def strings(value) -> set[str]:  # noqa: ANN001
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings(v) for v in value.values())) if value else set()
    if isinstance(value, (list, tuple)):
        return set().union(*(strings(v) for v in value)) if value else set()
    return set()


def private(game) -> set[str]:  # noqa: ANN001
    """What each seat sees that a watcher does not (cards, tiles, hand names)."""
    public = strings(game.view(None))
    return {s for seat in range(len(game.seats)) for s in strings(game.view(seat)) - public
            if len(s) >= 2}


def leaks(secret: str, body: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(secret)}(?![\w])", body) is not None


async def test_hidden_information_never_appears(parlor, door, http, clients):
    await parlor.load_default_data()     # the Triptycha collections and starter sets
    alice = await clients("Alice")
    bob = await clients("Bob")
    await alice.cmd("tt challenge computer easy", r"Alice vs Computer\(easy\) begins")
    out = await alice.cmd("triad open 10 seats 2 buyin 100", r"table #(\d+)")
    table = int(re.search(r"table #(\d+)", out).group(1))
    await bob.cmd(f"triad join {table}", "Bob sits down")
    await alice.cmd("triad start", "Hand 1")
    await bob.cmd("pyr new", r"Game #\d+: Pyramid, Bob begins")
    games = {g.kind.key: g for g in parlor.host.live.values()}
    assert set(games) == {"tt", "triad", "pyr"}
    secrets = {key: private(game) for key, game in games.items()}
    pyramid = games["pyr"].state.matches[0].game
    secrets["pyr"] |= {card_text(c) for c in pyramid.pack[1:]}
    assert all(secrets.values()), secrets  # each game has something to hide right now
    secret_cards = set(secrets["triad"]) | set(secrets["pyr"])
    bodies = await walk(http, sorted(g.id for g in games.values()), ["Alice", "Bob"])
    for path, body in bodies.items():
        for key, hidden in secrets.items():
            for secret in hidden:
                if secret in secret_cards:   # short card codes: as a card, in HTML or JSON
                    assert f">{secret}<" not in body, (path, key, secret)
                    assert f'"{secret}"' not in body, (path, key, secret)
                else:
                    assert not leaks(secret, body), (path, key, secret)
    for game in games.values():
        assert str(game.seed) not in "".join(bodies.values())
