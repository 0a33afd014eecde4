"""A game added as a plugin has everything a game has (docs/design.md, principle 9).

Noughts and crosses (``tests/support/tictactoe.py`` and its web board,
``tests/support/tictactoe_web/board.html``) is hosted because the config's ``[games]
extra`` names it, and no project file names it. Over a real parlor, with telnet clients
and the web door on real sockets, it gets: challenges, play, its telnet board, its own web
board (live page, JSON and replay), GMCP, OBSERVE, REPLAY and screen-reader lines.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import httpx

from tests.conftest import TEST_GAME, make_config
from tests.support.client import Client
from server.web import WebDoor

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ("server", "commands", "games", "migrations")
NAMES = re.compile(r"tictactoe|noughts|\bttt\b", re.IGNORECASE)


def test_nothing_but_its_own_files_names_the_plugin():
    """Its only way in is the config: no file of the project names it."""
    assert TEST_GAME in make_config("sqlite+aiosqlite://").games.extra
    named = [path.relative_to(ROOT).as_posix()
             for package in PROJECT for path in sorted((ROOT / package).rglob("*"))
             if path.suffix in (".py", ".html", ".toml", ".js", ".css")
             and NAMES.search(path.read_text(encoding="utf-8"))]
    assert not named, f"the plugin game is named in {', '.join(named)}"


async def _gmcp(mud: Client, package: str, count: int) -> list[dict]:
    """The GMCP messages of ``package`` the client has, once it has ``count`` of them."""
    for _ in range(100):
        found = [data for pkg, data in mud.gmcp if pkg == package]
        if len(found) >= count:
            return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"{count} {package} message(s) expected, got {mud.gmcp!r}")


async def test_challenge_play_boards_gmcp_observe_replay_and_spoken_lines(parlor, clients):
    door = WebDoor(parlor, host="127.0.0.1", port=0)
    await door.start()
    try:
        async with httpx.AsyncClient(base_url=door.url.rstrip("/"), timeout=10) as http:
            await _play_it_everywhere(parlor, clients, http)
    finally:
        await door.stop()


async def _play_it_everywhere(parlor, clients, http: httpx.AsyncClient) -> None:  # noqa: ANN001
    alice = await Client.connect_mud(parlor.port)  # a MUD client: GMCP
    await alice.create("Alice")
    bob = await clients("Bob")
    carol = await clients("Carol")  # watches, with a screen reader
    await carol.cmd("set screenreader on", "Screen reader mode is now ON")

    # a challenge, and the game it starts, drawn on telnet
    await alice.cmd("help ttt", r"Start: +CHALLENGE")
    await alice.cmd("ttt challenge bob", "You challenge Bob")
    await bob.expect("Alice challenges you to Noughts and Crosses")
    bob.send("ttt accept alice")
    start = await bob.expect(r"Game #(\d+): Noughts and Crosses, Alice vs Bob(.|\n)*? 7 \| 8 \| 9")
    number = int(re.search(r"Game #(\d+)", start).group(1))
    assert " 1 | 2 | 3" in start and "---+---+---" in start

    # OBSERVE, read out: one row a line, no drawing
    seen = await carol.cmd(f"observe {number}", r"Row 3: empty, empty, empty\.")
    assert "Row 1: empty, empty, empty." in seen and "---+---" not in seen

    # the web door draws the plugin's own board, live and as JSON
    page = await http.get(f"/games/{number}")
    assert page.status_code == 200 and 'class="board ttt"' in page.text
    assert (await http.get(f"/api/games/{number}")).json()["view"]["cells"] == [None] * 9

    # play: a rule error is one line; each move is told to the other player and watcher
    await alice.cmd("ttt play 1", "Alice: PLAY 1")
    await carol.expect(r"X takes cell 1\.")
    await bob.cmd("ttt play 1", "Cell 1 is taken")
    await bob.cmd("ttt play 5", "Bob: PLAY 5")
    await carol.expect(r"O takes cell 5\.")
    page = await http.get(f"/games/{number}")
    assert "cell 1: Alice" in page.text and "cell 5: Bob" in page.text

    # GMCP: the game's state, as JSON, on every change
    states = await _gmcp(alice, "Ttt.Game", 3)
    assert states[-1]["view"]["cells"][:5] == [0, None, None, None, 1]

    await alice.cmd("ttt play 2", "Alice: PLAY 2")
    await bob.cmd("ttt play 9", "Bob: PLAY 9")
    await alice.cmd("ttt play 3", r"Alice wins \(three in a row\)")
    await carol.expect("Alice wins")

    # REPLAY: drawn on telnet, read out for the screen reader, and on the web
    replayed = await bob.cmd(f"replay {number} 2", r"After move 2 of 5(.|\n)*? 7 \| 8 \| 9")
    assert " X | 2 | 3" in replayed.split("After move 2")[1] and " 4 | O | 6" in replayed
    spoken = await carol.cmd(f"replay {number} 2", r"After move 2 of 5(.|\n)*?Row 3: .*")
    spoken = spoken.split("After move 2")[1]
    assert "Row 1: X, empty, empty." in spoken and "Row 2: empty, O, empty." in spoken
    assert "---+---" not in spoken
    page = await http.get(f"/games/{number}/replay", params={"move": 2})
    assert page.status_code == 200 and 'class="board ttt"' in page.text
    assert "cell 1: Alice" in page.text and "cell 2 empty" in page.text
    assert (await http.get(f"/games/{number}")).text.count('class="board ttt"') == 1
    await alice.close()
