"""A game's browser pane comes from its own web folder (docs/design.md, "The browser pane
per game"): its script and styles are served as ``/static/games/<key>/...`` with the
static files' digests, ETags and gzip; /play tells the pane where each game's are (none
for a game without, which gets the generic pane); a game's pages link its styles; and a
game that lists its moves sends them to its players (GMCP ``legal``)."""

from __future__ import annotations

import gzip
import html
import json
import re
from pathlib import Path

from server.web.cache import Statics
from tests.support.client import Client
from tests.web.test_web_cache import raw
from tests.web.test_web_door import ttt_game

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "server" / "web" / "templates" / "games"


def test_a_game_folder_s_scripts_and_styles_are_served_and_its_templates_are_not(tmp_path):
    """A game's folder (a plugin's, with a key that has a digit) adds its web files under
    ``games/<key>/``; its templates and hidden files stay out."""
    own = tmp_path / "c4_web"
    own.mkdir()
    (own / "pane.js").write_text("// the pane\n" * 100)
    (own / "pane.css").write_text(".board.c4 { color: red; }\n")
    (own / "board.html").write_text("<table></table>")
    (own / ".pane.js.swp").write_text("x")
    statics = Statics(tmp_path / "nothing", {"c4": own})
    assert sorted(statics.files) == ["games/c4/pane.css", "games/c4/pane.js"]
    assert statics.files["games/c4/pane.js"].media_type == "text/javascript; charset=utf-8"
    assert statics.files["games/c4/pane.js"].gzipped() is not None   # made at start
    assert statics.find("games/c4/pane.js").startswith("/static/games/c4/pane.js?v=")
    assert statics.find("games/c5/pane.js") is None


async def test_play_names_each_game_s_pane_and_serves_it_like_any_static_file(http):
    page = (await http.get("/play")).text
    found = re.search(r"data-games='([^']*)'", page)
    games = {g["key"]: g for g in json.loads(html.unescape(found.group(1)))}
    assert set(games) == {"tt", "dice", "triad", "pyr", "ttt"}
    # the plugin has no pane of its own (the generic one draws it); it plays in pairs
    assert games["ttt"] == {"key": "ttt", "prefix": "TTT", "title": "Noughts and Crosses",
                            "gmcp": "Ttt.Game", "pairs": True, "challenge": "TTT CHALLENGE",
                            "js": None, "css": None}
    assert [k for k, g in games.items() if g["pairs"]] == ["tt", "dice", "ttt"]
    # what the lobby's Challenge form types before a name: Pyramid offers a tournament
    assert {k: g["challenge"] for k, g in games.items()} == {
        "tt": "TT CHALLENGE", "dice": "DICE CHALLENGE", "triad": None,
        "pyr": "PYR TOUR HUMAN", "ttt": "TTT CHALLENGE"}
    for key in ("tt", "dice", "triad", "pyr"):
        for name, media in (("js", "text/javascript"), ("css", "text/css")):
            address = games[key][name]
            assert address.startswith(f"/static/games/{key}/pane.{name}?v="), address
            source = (TEMPLATES / key / f"pane.{name}").read_bytes()
            kept, body = await raw(http, address, **{"accept-encoding": "gzip"})
            assert kept.status_code == 200
            assert kept.headers["content-type"] == f"{media}; charset=utf-8"
            assert kept.headers["cache-control"] == "public, max-age=31536000, immutable"
            assert kept.headers["content-encoding"] == "gzip" and gzip.decompress(body) == source
            again, body = await raw(http, address, **{
                "accept-encoding": "gzip", "if-none-match": kept.headers["etag"]})
            assert again.status_code == 304 and body == b""
    # a game's templates are not static files
    assert (await http.get("/static/games/dice/board.html")).status_code == 404
    # the lobby's buttons: a game's own (start.html), or "vs computer"
    starts = page.split('<template id="pane-start">')[1].split("</template>")[0]
    assert re.findall(r'data-(?:level|line)="([^"]+)"', starts) == [
        "TT CHALLENGE COMPUTER", "DICE CHALLENGE COMPUTER", "TRIAD OPEN", "PYR NEW",
        "PYR TOUR NONE", "PYR TOUR COMPUTER", "TTT CHALLENGE COMPUTER"]


async def test_a_game_s_pages_link_its_styles_and_only_its_own(parlor, http, clients):
    await parlor.load_default_data()
    dora = await clients("Dora")
    await dora.cmd("dice challenge computer easy", "begins")
    number = next(g.id for g in parlor.host.live.values() if g.kind.key == "dice")
    for path in (f"/games/{number}", f"/games/{number}/replay?move=0"):
        page = (await http.get(path)).text
        assert re.findall(r'href="(/static/games/[^"?]+)', page) == ["/static/games/dice/pane.css"]
    _, _, played = await ttt_game(clients)   # no styles of its own
    assert "/static/games/" not in (await http.get(f"/games/{played}")).text


async def test_a_game_that_lists_its_moves_sends_them_to_its_players(parlor):
    """``legal`` in a player's GMCP frames, in the game's notation: the moves they may
    make now (none while it is the other's move); a watcher gets none."""
    alice = await Client.connect_mud(parlor.port)
    bob = await Client.connect_mud(parlor.port)
    carol = await Client.connect_mud(parlor.port)
    try:
        for mud, name in ((alice, "Alice"), (bob, "Bob"), (carol, "Carol")):
            await mud.create(name)
        await alice.cmd("ttt challenge bob", "You challenge Bob")
        await bob.cmd("ttt accept alice", "begins")
        number = next(iter(parlor.host.live))
        await carol.cmd(f"observe {number}", "Noughts and Crosses")
        await alice.cmd("ttt play 5", "PLAY 5")
        await bob.expect("PLAY 5")
        await carol.expect("PLAY 5")
        frames = {name: [d for p, d in mud.gmcp if p == "Ttt.Game" and d["version"] >= 1]
                  for mud, name in ((alice, "Alice"), (bob, "Bob"), (carol, "Carol"))}
        after = {name: got[-1] for name, got in frames.items()}
        assert after["Bob"]["legal"] == [f"PLAY {n}" for n in (1, 2, 3, 4, 6, 7, 8, 9)]
        assert after["Alice"]["legal"] == []
        assert "legal" not in after["Carol"]
    finally:
        for mud in (alice, bob, carol):
            await mud.close()
