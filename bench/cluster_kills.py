"""A node killed, or paused past its lease, again and again with a game in flight:
nothing acknowledged is lost, nothing is applied twice, no game is stuck.

    .venv/bin/python bench/cluster_kills.py                       # 20 kills, 20 pauses
    .venv/bin/python bench/cluster_kills.py --kills 3 --pauses 3  # a short run

Two nodes on a throwaway PostgreSQL and Redis (the test suite's), each an ``esterport
serve`` process. Each round: ProbeC on node b challenges ProbeA on node a, so node b
drives the game (Noughts and Crosses, the test game); ProbeC and ProbeA each play a move
and see it acknowledged; node b is killed (SIGKILL); ProbeC logs in on node a (a client
behind the balancer does the same) and sends her next move until it is played, which
is when node a has taken the game over from the database; the game is played to its
end; node b is started again and ProbeC logs in there for the next round.

A pause round is the same with SIGSTOP instead of SIGKILL: node b is stopped for
``--pause`` seconds (three leases by default), node a adopts the game and ProbeC plays
on there; then node b is woken (SIGCONT) with its stale copy of the game, ProbeC logs in
on node b again and plays her last move there: node b must play it where the game is
driven now (node a), not on its stale copy. Its time is from SIGCONT until that move is
played.

At the end every game's stored moves (REPLAY) are compared with the moves the players
saw acknowledged, in order, and ``esterport admin audit`` is run. Prints the takeover
times (from the kill until the move is played) and the verdict; exits 1 on any loss.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import load  # noqa: E402  (bench/load.py: its server processes)
from cluster import node_config, player, stores  # noqa: E402  (bench/cluster.py)

MOVES = [("C", 1), ("A", 5), ("C", 2), ("A", 4), ("C", 3)]  # ProbeC wins: 1, 2, 3
KILL_AFTER = 2  # moves acknowledged before the kill


def start_node(folder: Path, config: Path, label: str) -> load.ServerProcess:
    node = load.ServerProcess(label, [sys.executable, "-m", "commands.app", "serve",
                                      "--config", str(config)],
                              folder / f"{label.replace(' ', '-')}-{time.monotonic_ns()}.log")
    node.wait_port()
    return node


async def play(me, line: str, cell: int, retry: bool, number: int) -> None:
    """Send ``cell`` until ``line`` is acknowledged (``retry``: while a node takes the
    game over), else once."""
    while True:
        me.send(f"ttt play {cell}")
        reply = await me.expect(rf"({re.escape(line)}|did not answer|not your turn|no game"
                                r"|not playing|You are not|You have no|another server"
                                r"|being moved)[^\n]*", timeout=30)
        if line in reply:
            return
        if not retry:
            raise AssertionError(f"game #{number}: {line} refused: {reply!r}")
        await asyncio.sleep(0.1)


async def one_round(folder: Path, config_b: Path, a_port: int, node_b: load.ServerProcess,
                    first: bool, pause: float = 0.0
                    ) -> tuple[int, float, float, list[str], load.ServerProcess]:
    """One game, one kill (or, with ``pause``, one SIGSTOP of that many seconds); (its
    number, the takeover time, the time from the wake until a move there is played, the
    moves acknowledged, node b: restarted after a kill)."""
    alice = await player(a_port, "ProbeA", first)
    carol = await player(node_b.port, "ProbeC", first)
    await alice.cmd("who probe", "ProbeC", timeout=20)
    await carol.cmd("ttt challenge ProbeA", "You challenge", timeout=20)
    await alice.expect("challenges you", timeout=20)
    alice.send("ttt accept ProbeC")
    out = await carol.expect(r"Game #\d+: Noughts and Crosses", timeout=20)
    number = int(re.search(r"Game #(\d+)", out).group(1))
    await alice.expect("begins", timeout=20)
    clients = {"A": alice, "C": carol}
    acknowledged = []
    took = woke = 0.0
    stale = None  # ProbeC's session on the paused node
    for k, (who, cell) in enumerate(MOVES):
        if k == KILL_AFTER:
            killed = time.perf_counter()
            if pause:
                node_b.proc.send_signal(signal.SIGSTOP)
                stale = carol
            else:
                node_b.proc.kill()
                node_b.proc.wait()
                node_b.fh.close()
            carol = clients["C"] = await player(a_port, "ProbeC", False)
        if pause and k == len(MOVES) - 1:  # node b wakes; ProbeC's last move is typed there
            left = pause - (time.perf_counter() - killed)
            if left > 0:
                await asyncio.sleep(left)
            node_b.proc.send_signal(signal.SIGCONT)
            waking = time.perf_counter()
            await carol.close()
            carol = clients["C"] = await player(node_b.port, "ProbeC", False)
        me = clients[who]
        line = f"Probe{who}: PLAY {cell}"
        await play(me, line, cell, k == KILL_AFTER or pause and k == len(MOVES) - 1, number)
        if k == KILL_AFTER:
            took = time.perf_counter() - killed
        if pause and k == len(MOVES) - 1:
            woke = time.perf_counter() - waking
        acknowledged.append(line)
    await alice.expect("wins", timeout=20)
    for c in (alice, carol, *([stale] if stale else [])):
        await c.close()
    if pause:
        return number, took, woke, acknowledged, node_b
    return number, took, woke, acknowledged, start_node(folder, config_b, "node b")


async def stored_moves(port: int, number: int) -> list[str]:
    """The game's moves as REPLAY lists them from the database."""
    reader = await player(port, "ProbeA", False)
    out = await reader.cmd(f"replay {number}", r"\d+\. ProbeC: PLAY 3", timeout=20)
    await reader.close()
    return re.findall(r"^\s*\d+\. (Probe\w: PLAY \d)", out.split("REPLAY")[-1], re.M)


async def run(ns: argparse.Namespace) -> int:
    folder = Path(tempfile.mkdtemp(prefix="esterport-kills-"))
    started = stores()
    if started is None:
        return 2
    pg, redis = started
    nodes: list[load.ServerProcess] = []
    try:
        database = await pg.new_database()
        config_a, config_b = (node_config(folder, n, database, redis.url(), 100) for n in "ab")
        nodes = [start_node(folder, config_a, "node a"), start_node(folder, config_b, "node b")]
        games, times, lost = [], {"kill": [], "pause": [], "wake": []}, 0
        rounds = [what for k in range(max(ns.kills, ns.pauses))  # kills and pauses in turn
                  for what, n in (("kill", ns.kills), ("pause", ns.pauses)) if k < n]
        for k, what in enumerate(rounds):
            number, took, woke, acknowledged, nodes[1] = await one_round(
                folder, config_b, nodes[0].port, nodes[1], first=k == 0,
                pause=ns.pause if what == "pause" else 0.0)
            games.append((number, acknowledged))
            times[what].append(took)
            if what == "pause":
                times["wake"].append(woke)
            print(f"{what} {k + 1}: game #{number} taken over, its move played after "
                  f"{took:.1f} s" + (f"; woken after {ns.pause:g} s, a move typed on the "
                                     f"woken node played after {woke:.1f} s"
                                     if what == "pause" else ""), flush=True)
        for number, acknowledged in games:
            stored = await stored_moves(nodes[0].port, number)
            if stored != acknowledged:
                lost += 1
                print(f"game #{number}: acknowledged {acknowledged}, stored {stored}")
        audit = subprocess.run([sys.executable, "-m", "commands.app", "admin", "audit",
                                "--config", str(config_a)], cwd=ROOT, capture_output=True,
                               text=True)
        for what, label in (("kill", "kills: takeover"), ("pause", "pauses: takeover"),
                            ("wake", "wakes: a move on the woken node")):
            if times[what]:
                print(f"{len(times[what])} {label} median "
                      f"{statistics.median(times[what]):.1f} s, max {max(times[what]):.1f} s")
        # a stuck game ends the run (a move not acknowledged within 30 s raises)
        print(f"{len(games)} games, {5 * len(games)} acknowledged moves, {lost} games whose "
              f"stored moves differ (lost or doubled), none stuck; "
              f"admin audit: {(audit.stdout or audit.stderr).strip().splitlines()[-1]}")
        return 0 if lost == 0 and audit.returncode == 0 else 1
    finally:
        for node in nodes:
            if node.proc.poll() is None:
                node.stop()
        redis.stop()
        pg.stop()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kills", type=int, default=20)
    p.add_argument("--pauses", type=int, default=20)
    p.add_argument("--pause", type=float, default=18.0,
                   help="seconds a paused node stays stopped (default: three leases)")
    return asyncio.run(run(p.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
