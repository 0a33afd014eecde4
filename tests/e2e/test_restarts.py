"""Restarts nobody notices (server/holder): ``esterport serve --hold`` keeps every telnet
connection while the parlor reloads (SIGHUP) or is killed (kill -9), with real clients:
Debian telnet in tmux, and telnetlib3's client."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from server.holder.process import serving_parlor
from tests.conftest import require_program, stop_process, write_config
from tests.support.client import Client
from tests.support.tmux import Screen

GAP = "The parlor is restarting; what you typed runs in a moment."
CARRY_ON = "The parlor has restarted; carry on."


class Held:
    """``esterport serve --hold`` in a child process: the holder, and the parlor it runs."""

    def __init__(self, tmp_path, config: Path | None = None) -> None:  # noqa: ANN001
        """``config``: a file of the test's own (it names its pid file, if it wants one);
        by default ``write_config``'s, with a pid file."""
        if config is None:
            config = tmp_path / "config.toml"
            config.write_text(open(write_config(tmp_path)).read().replace(
                "[server]\n", f'[server]\npid_file = "{tmp_path}/esterport.pid"\n', 1))
        self.config = config
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "commands.app", "serve", "--hold", "--config",
             str(self.config)], stderr=subprocess.PIPE, text=True, cwd=os.getcwd())
        self.log: list[str] = []
        self.started = threading.Event()
        self.port = 0
        threading.Thread(target=self._read, daemon=True).start()
        assert self.started.wait(60), "the held parlor did not start:\n" + "".join(self.log[-30:])
        self.first = self.parlor()

    def _read(self) -> None:
        for line in self.proc.stderr:
            self.log.append(line)
            if "Connect with: telnet" in line and not self.port:
                self.port = int(line.rsplit(" ", 1)[1])
                self.started.set()

    def parlor(self, other_than: int | None = None, within: float = 30.0) -> int:
        """The pid of the parlor the holder runs now (a new one, given the old)."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            found = serving_parlor(self.proc.pid)
            if found is not None and found != other_than:
                return found
            time.sleep(0.05)
        raise AssertionError("no parlor under the holder:\n" + "".join(self.log[-30:]))

    def attached(self, count: int, within: float = 30.0) -> None:
        """Wait until the holder has handed its connections to a parlor ``count`` times."""
        deadline = time.monotonic() + within
        while sum("attached" in line for line in self.log) < count:
            assert time.monotonic() < deadline, "".join(self.log[-30:])
            time.sleep(0.05)

    def spare(self, within: float = 60.0) -> int:
        """Wait until the holder's spare parlor has loaded since the last attach; its pid."""
        deadline = time.monotonic() + within
        while True:
            text = "".join(self.log).rsplit(" attached;", 1)[-1]
            found = re.search(r"a spare parlor \(pid (\d+)\) is loaded", text)
            if found:
                return int(found.group(1))
            assert time.monotonic() < deadline, "no spare:\n" + "".join(self.log[-30:])
            time.sleep(0.05)

    def reload(self) -> None:
        self.proc.send_signal(signal.SIGHUP)

    def stop(self) -> None:
        stop_process(self.proc, within=40)


@pytest.fixture
def held(tmp_path):
    server = Held(tmp_path)
    yield server
    server.stop()


def seen_times(screen: Screen, text: str, times: int, within: float = 30.0) -> list[str]:
    """Wait until ``text`` is on ``times`` lines of the screen and its scrollback."""
    deadline = time.monotonic() + within
    while True:
        lines = screen.lines()
        if sum(text in line for line in lines) >= times:
            return lines
        if time.monotonic() > deadline:
            raise AssertionError(f"{text!r} not seen {times} times:\n" + "\n".join(lines[-24:]))
        time.sleep(0.1)


def pyramid_hint(screen: Screen, asked: int) -> str | None:
    """Ask for a hint (the ``asked``-th) and return its move, or None if none is left."""
    screen.type("pyr hint")
    deadline = time.monotonic() + 60   # the solver is CPU-bound: slow on a busy machine
    while time.monotonic() < deadline:
        found = re.findall(r"Hint: PYR ([^()]+?) \(|(No move is possible\.)|(\(PYR D\)\.)",
                           "\n".join(screen.lines()))
        if len(found) >= asked:
            move, none, deal = found[asked - 1]
            return None if none else "d" if deal else move
        time.sleep(0.1)
    raise AssertionError("no answer to PYR HINT:\n" + "\n".join(screen.lines()[-24:]))


CLIENTS = {"telnet": "{path} 127.0.0.1 {port}",
           "tt++": "{path} -e '#session esterport 127.0.0.1 {port}'"}
CLOSED = ("Connection closed", "SESSION 'esterport' DIED")  # telnet's, TinTin++'s words


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_a_client_plays_on_through_a_reload_and_a_parlor_kill(held, client):
    """Debian telnet and TinTin++ at 80x24: a Pyramid deal played by the hints, the
    parlor reloaded after two moves and killed (kill -9) after four; the connection never
    closes, the deal is played to its end, and its REPLAY lists every move once."""
    path = require_program(client)
    screen = Screen(CLIENTS[client].format(path=path, port=held.port))
    try:
        screen.wait_for("Type your name")
        for line in ("new", "Rhea", "secret1", "secret1"):
            screen.type(line)
            time.sleep(0.3)
        screen.wait_for("Welcome, Rhea!")
        screen.type("pyr new")
        screen.wait_for("Deal 1 of 3")
        moves: list[str] = []
        hints = 0
        while len(moves) < 8:
            if len(moves) == 2 and held.parlor() == held.first:
                held.reload()
                held.attached(2)
                screen.wait_for(CARRY_ON, 30)
            if len(moves) == 4 and sum(CARRY_ON in line for line in screen.lines()) == 1:
                os.kill(held.parlor(), signal.SIGKILL)
                screen.type("look")   # typed in the gap: it runs once the parlor is back
                held.attached(3)
                lines = seen_times(screen, "Exits:", 2)   # at login, and the LOOK
                assert sum(CARRY_ON in line for line in lines) == 2
            hints += 1
            move = pyramid_hint(screen, hints)
            if move is None:
                break
            screen.type(f"pyr {move}")
            moves.append(move)
            seen_times(screen, "[your move]", len(moves) + 1 + (len(moves) > 2) + (len(moves) > 4))
        screen.type("pyr end")   # the deal ends as it stands
        screen.wait_for("Game #1 is over", 20)
        assert len(moves) >= 5, moves
        lines = screen.lines()
        text = "\n".join(lines)
        assert not any(words in text for words in CLOSED)
        # LOOK typed in the kill's gap is told of it at most once (or not at all when the
        # spare was up before the client sent it: a quiet machine's spare takes 0.2 s)
        assert text.count(GAP) <= 1
        assert sum(CARRY_ON in line for line in lines) == 2
        screen.type("replay 1")
        lines = screen.wait_for("shows the board after that move", 10)
        listed = "\n".join(lines).rsplit("replay 1", 1)[-1]
        numbers = [int(n) for n in re.findall(r"(?m)^\s*(\d+)\. ", listed)]
        # every move once, in order (PYR END is the last)
        assert numbers == list(range(1, len(numbers) + 1)), listed
        assert len(numbers) >= len(moves), (numbers, moves)
        screen.type("quit")
        assert closed(screen), "QUIT did not end the connection"
    finally:
        screen.close()


def closed(screen: Screen, within: float = 10.0) -> bool:
    """Whether the client said the connection closed (telnet's tmux ends with it)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if any(words in "\n".join(screen.lines()) for words in CLOSED):
                return True
        except subprocess.CalledProcessError:
            return True   # telnet exited, and its tmux session with it
        time.sleep(0.1)
    return False


async def speak_through_restarts(held: Held, speaker, listener, name: str,  # noqa: ANN001
                                 tag: str) -> tuple[int, int]:
    """``speaker`` (named ``name``) says <tag>1-1..<tag>1-20 while the parlor reloads,
    then <tag>2-1..<tag>2-20 across a kill -9 (the spare, loaded beside the parlor, takes
    every connection at once); ``listener`` hears each once, in order, and the speaker is
    told the parlor is back. Returns the killed parlor's pid and its spare's."""
    killed = spare = 0
    for round_, attached in ((1, 2), (2, 3)):
        if round_ == 1:
            held.reload()
        else:
            spare = await asyncio.to_thread(held.spare)
            os.kill(killed := held.parlor(), signal.SIGKILL)
        for n in range(1, 21):
            speaker.send(f"say {tag}{round_}-{n}")
            await asyncio.sleep(0.02)
        await asyncio.to_thread(held.attached, attached)
        await listener.expect(rf'{name} says, "{tag}{round_}-20"', timeout=30)
        heard = re.findall(rf'{name} says, "{tag}{round_}-(\d+)"', listener.seen)
        assert heard == [str(n) for n in range(1, 21)], heard
        await speaker.expect(CARRY_ON, timeout=30)
    return killed, spare


async def test_commands_typed_in_the_gap_run_once_in_order(held):
    """Two telnetlib3 clients; one says r1-1..r1-20 while the parlor reloads: the other
    hears each once, in order, and both stay connected; then the same across a kill -9."""
    speaker = await Client.connect(held.port)
    listener = await Client.connect(held.port)
    try:
        await speaker.create("Speaker")
        await listener.create("Listener")
        for player in (speaker, listener):   # away from the Plaza: where they stand goes on
            await player.cmd("east", "The Triptycha Hall")
        killed, spare = await speak_through_restarts(held, speaker, listener, "Speaker", "r")
        assert held.parlor(other_than=killed) == spare
        assert f"its spare (pid {spare}) takes its 2 connection(s)" in "".join(held.log)
        await speaker.cmd("who", "Listener")
        await listener.cmd("look", "The Triptycha Hall")
    finally:
        await speaker.close()
        await listener.close()


def web_door(held: Held) -> str:
    return next(line.rsplit(" ", 1)[1].strip() for line in held.log
                if "The web door is open" in line).rstrip("/")


async def test_play_sockets_stay_through_a_reload_and_a_kill(held):
    """Two browsers' /play WebSockets (the telnet stream in binary frames, as the page
    speaks it): one says b1-1..b1-20 while the parlor reloads, and b2-1..b2-20 across a
    kill -9; the other hears each once, in order. Neither socket closes, each is told of
    the gap and that the parlor is back, and both go on in their room and window."""
    from tests.web.wsclient import WsPlayer

    url = web_door(held).replace("http://", "ws://") + "/play/ws"
    speaker = await WsPlayer.connect(url, cols=90)
    listener = await WsPlayer.connect(url)
    try:
        await speaker.create("Wren")
        await listener.create("Lark")
        for player in (speaker, listener):
            await player.cmd("east", "The Triptycha Hall")
        await speak_through_restarts(held, speaker, listener, "Wren", "b")
        assert GAP in speaker.seen   # typed in the kill's gap: told why it waits
        assert not speaker.closed and not listener.closed
        await speaker.cmd("who", "Lark")
        await listener.cmd("look", "The Triptycha Hall")
        text = await speaker.cmd("help", "> ")
        assert max(map(len, text.splitlines())) <= 90   # its window went on too
    finally:
        await speaker.close()
        await listener.close()


def esterport_reload(held: Held) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "commands.app", "reload", "--config",
                           str(held.config)], capture_output=True, text=True, timeout=30)


async def test_a_kill_soon_after_each_reload_is_served_by_the_spare(held):
    """Reload, then kill -9 the new parlor once its spare has loaded, three times over: a
    parlor that took every connection at a reload is no crash loop, so each kill is
    served by the spare at once (not by a parlor started cold after a backoff)."""
    player = await Client.connect(held.port)
    try:
        await player.create("Steady")
        for attach in (2, 4, 6):
            held.reload()
            await asyncio.to_thread(held.attached, attach, 60)
            spare = await asyncio.to_thread(held.spare)
            os.kill(killed := held.parlor(), signal.SIGKILL)
            await asyncio.to_thread(held.attached, attach + 1, 60)
            assert held.parlor(other_than=killed) == spare
            assert f"its spare (pid {spare}) takes its 1 connection(s)" in "".join(held.log)
            await player.expect(CARRY_ON, timeout=30)
        assert "starting it again" not in "".join(held.log)
        await player.cmd("who", "Steady")
    finally:
        await player.close()


def test_esterport_reload_and_a_bad_configuration_refused(held):
    """``esterport reload`` (the holder's pid file, SIGHUP) starts a new parlor; with a
    configuration that does not load, the holder says why in one line and the parlor
    keeps running."""
    done = esterport_reload(held)
    assert done.returncode == 0, done.stderr
    held.attached(2)
    parlor = held.parlor(other_than=held.first)
    good = held.config.read_text()
    held.config.write_text(good + "\n[server]\nport = 'nine'\n")
    refused = esterport_reload(held)   # the command reads the file first
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    held.reload()                      # SIGHUP itself: the holder reads it and says no
    deadline = time.monotonic() + 15
    while not any("esterport: reload refused" in line for line in held.log):
        assert time.monotonic() < deadline, "".join(held.log[-20:])
        time.sleep(0.05)
    refused = [line for line in held.log if "esterport: reload refused" in line]
    assert len(refused) == 1, refused
    held.config.write_text(good)
    time.sleep(0.5)
    assert held.parlor() == parlor and held.proc.poll() is None


async def test_a_browser_page_stays_connected_through_a_reload_and_a_kill(held):
    """Chromium on /play plays a Pyramid deal by the hints; the parlor is reloaded after
    two moves and killed (kill -9) after four, and the player speaks in each gap. The
    page's WebSocket never closes (the holder keeps it: the page never says it is
    reconnecting), what was typed runs once each and in order, the deal is played to its
    end, and its REPLAY lists every move once."""
    from tests.e2e.test_web_browser import ARGS, screen_has, type_line

    chromium = require_program("chromium")
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        if os.environ.get("ESTERPORT_REQUIRE_CLIENTS") == "1":
            pytest.fail("playwright is required (ESTERPORT_REQUIRE_CLIENTS=1)")
        pytest.skip("playwright not installed")

    async def shown() -> str:
        return await page.locator("#screen").text_content()

    async def hint(asked: int) -> str | None:
        await type_line(page, "pyr hint")
        deadline = time.monotonic() + 60   # the solver is CPU-bound: slow on a busy machine
        while time.monotonic() < deadline:
            found = re.findall(r"Hint: PYR ([^()]+?) \(|(No move is possible\.)|(\(PYR D\)\.)",
                               await shown())
            if len(found) >= asked:
                move, none, deal = found[asked - 1]
                return None if none else "d" if deal else move
            await asyncio.sleep(0.1)
        raise AssertionError("no answer to PYR HINT:\n" + (await shown())[-2000:])

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium, args=ARGS)
        try:
            page = await browser.new_page(viewport={"width": 1100, "height": 800})
            await page.goto(web_door(held) + "/play")
            await screen_has(page, "Name: ")
            for line, prompt in (("new", "Choose a name: "), ("Pia", "Choose a password: "),
                                 ("secret1", "Type it again: "), ("secret1", "Welcome, Pia!")):
                await type_line(page, line)
                await screen_has(page, prompt)
            await type_line(page, "pyr new")
            await screen_has(page, "Deal 1 of 3")
            moves: list[str] = []
            while len(moves) < 8:
                for gap, (at, attached) in enumerate(((2, 2), (4, 3)), 1):
                    if len(moves) != at or (await shown()).count(CARRY_ON) >= gap:
                        continue
                    if gap == 1:
                        held.reload()
                    else:
                        await asyncio.to_thread(held.spare)
                        os.kill(held.parlor(), signal.SIGKILL)
                    for n in (1, 2, 3):   # typed in the gap: the socket holds them
                        await type_line(page, f"say w{gap}-{n}")
                    await asyncio.to_thread(held.attached, attached)
                    await screen_has(page, f'You say, "w{gap}-3"', timeout=30000)
                move = await hint(len(moves) + 1)
                if move is None:
                    break
                await type_line(page, f"pyr {move}")
                moves.append(move)
            await type_line(page, "pyr end")
            await screen_has(page, "Game #1 is over", timeout=20000)
            text = await shown()
            said = re.findall(r'You say, "(w\d-\d)"', text)
            assert said == ["w1-1", "w1-2", "w1-3", "w2-1", "w2-2", "w2-3"], text[-2000:]
            assert text.count(CARRY_ON) == 2, text[-2000:]
            assert "(reconnecting" not in text, text[-2000:]
            state = await page.evaluate("document.getElementById('state').textContent")
            assert "restarting" not in state, state
            assert len(moves) >= 5, moves
            await type_line(page, "replay 1")
            await screen_has(page, "shows the board after that move", timeout=10000)
            listed = (await page.locator("#screen").inner_text()).rsplit("replay 1", 1)[-1]
            numbers = [int(n) for n in re.findall(r"(?m)^\s*(\d+)\. ", listed)]
            assert numbers == list(range(1, len(numbers) + 1)), listed
            assert len(numbers) >= len(moves), (numbers, moves)
        finally:
            await browser.close()
