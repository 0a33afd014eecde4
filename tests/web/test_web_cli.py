"""``esterport serve`` opens the web door beside the telnet port (its pages drawn in the
parlor, served by the front it starts)."""

from __future__ import annotations

import asyncio
import os
import re
import socket
import subprocess
import sys
import threading

import httpx

from tests.conftest import write_config
from tests.support.client import Client


def serve(config: str, *extra: str) -> tuple[subprocess.Popen, list[str], int]:
    proc = subprocess.Popen([sys.executable, "-m", "commands.app", "serve", "--no-hold", "--config",
                             config, *extra], stderr=subprocess.PIPE, text=True, cwd=os.getcwd())
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if "Connect with: telnet" in line:
            threading.Thread(target=proc.stderr.read, daemon=True).start()
            return proc, seen, int(line.rsplit(" ", 1)[1])
    raise RuntimeError("the server did not start:\n" + "".join(seen[-30:]))


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


async def test_serve_opens_the_web_door_on_its_port(tmp_path):
    proc, said, port = await asyncio.to_thread(serve, write_config(tmp_path))
    try:
        door = next(re.search(r"point a browser at (http://\S+)", line) for line in said
                    if "point a browser at" in line)
        url = door.group(1)
        async with httpx.AsyncClient(timeout=10) as http:
            page = await http.get(url)
            assert page.status_code == 200 and "Who is here (0)" in page.text
            alice = await (await Client.connect(port)).create("Alice")
            who = (await http.get(url + "api/who")).json()
            assert [p["name"] for p in who["players"]] == ["Alice"]
            await alice.close()
    finally:
        await asyncio.to_thread(stop, proc)


async def test_a_taken_web_port_leaves_telnet_serving(tmp_path):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        busy = taken.getsockname()[1]
        proc, said, port = await asyncio.to_thread(serve, write_config(tmp_path),
                                                   "--web-port", str(busy))
        try:
            assert any(f"the web door cannot listen on 127.0.0.1:{busy}; serving telnet only"
                       in line for line in said), said
            await (await Client.connect(port)).create("Alice")
        finally:
            await asyncio.to_thread(stop, proc)
    finally:
        taken.close()


def fronts_of(pid: int) -> list[int]:
    """The web door fronts ``pid`` started that still run."""
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as children:
            for child in children.read().split():
                with open(f"/proc/{child}/cmdline", "rb") as cmdline:
                    if b"server.web.front" in cmdline.read():
                        found.append(int(child))
    return found


def running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def test_the_web_front_ends_with_its_parlor_even_killed(tmp_path):
    """The front serves the door's port in a process of its own; a parlor killed with -9
    cannot stop it, and it ends by itself when its link to the parlor closes."""
    for kill in (False, True):
        folder = tmp_path / ("killed" if kill else "stopped")
        folder.mkdir()
        config = write_config(folder)   # the front is the default
        proc, said, port = await asyncio.to_thread(serve, config)
        try:
            fronts = fronts_of(proc.pid)
            assert len(fronts) == 1, fronts
            url = next(re.search(r"point a browser at (http://\S+)", line).group(1)
                       for line in said if "point a browser at" in line)
            async with httpx.AsyncClient(timeout=10) as http:
                assert (await http.get(url + "api/who")).status_code == 200
            if kill:
                proc.kill()
            else:
                proc.terminate()
            await asyncio.to_thread(proc.wait, 15)
            for _ in range(100):
                if not running(fronts[0]):
                    break
                await asyncio.sleep(0.1)
            assert not running(fronts[0]), "the front outlived its parlor"
        finally:
            await asyncio.to_thread(stop, proc)
