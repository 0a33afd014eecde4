"""GMCP and MSSP for MUD clients, NAWS width, and hostile bytes at the socket."""

from __future__ import annotations

import asyncio
import socket


from tests.support.client import Client
from tests.support.waits import until


async def test_gmcp_room_and_game_state_and_mssp(parlor, clients):
    mud = await Client.connect_mud(parlor.port)
    await mud.create("Mudder")
    for _ in range(20):
        if mud.mssp:
            break
        await asyncio.sleep(0.05)
    mssp = mud.mssp[0]
    assert mssp["NAME"] == "Esterport" and int(mssp["PLAYERS"]) >= 0
    # what MUD listings read: when it started, the codebase, rooms, what clients get
    assert int(mssp["UPTIME"]) > 1_700_000_000 and mssp["CODEBASE"] == "Esterport"
    assert int(mssp["ROOMS"]) >= 5 and mssp["GMCP"] == "1" and mssp["MCCP"] == "0"
    rooms = [d for p, d in mud.gmcp if p == "Room.Info"]
    assert rooms and rooms[-1]["num"] == "plaza" and "north" in rooms[-1]["exits"]
    status = [d for p, d in mud.gmcp if p == "Char.Status"]
    assert status[-1] == {"room": "plaza", "area": "Esterport", "game": None}
    await mud.cmd("north", "Tile Shop")
    await until(lambda: [d for p, d in mud.gmcp if p == "Room.Info"][-1]["num"] == "shop"
                and [d for p, d in mud.gmcp if p == "Char.Status"][-1]["room"] == "shop",
                "Room.Info and Char.Status say the shop")

    parlor.host.computer_delay = 0.0
    await mud.cmd("ttt challenge computer", "Mudder vs Computer")
    await asyncio.sleep(0.3)
    games = [d for p, d in mud.gmcp if p == "Ttt.Game"]
    assert games and games[-1]["players"] == ["Mudder", "Computer(normal)"]
    assert games[-1]["seat"] == 0 and "cells" in games[-1]["view"]
    # a status bar's line: which game, who moves, whether it is your move
    game = [d for p, d in mud.gmcp if p == "Char.Status"][-1]["game"]
    assert game["title"] == "Noughts and Crosses" and game["players"] == games[-1]["players"]
    assert game["your_move"] == (game["to_move"] == ["Mudder"])
    await mud.cmd("ttt resign", "wins")
    await until(lambda: [d for p, d in mud.gmcp if p == "Char.Status"][-1] == {"game": None},
                "Char.Status says no game")
    await mud.close()


async def test_naws_width_is_respected(parlor):
    narrow = await Client.connect(parlor.port, cols=50)
    await narrow.create("Narrow")
    out = await narrow.cmd("look", "Exits:")
    assert max(len(line) for line in out.splitlines()) <= 50
    await narrow.close()


async def _raw(port: int, payload: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(payload)
    await writer.drain()
    data = b""
    try:
        while True:
            chunk = await asyncio.wait_for(reader.read(65536), 1.0)
            if not chunk:
                break
            data += chunk
    except asyncio.TimeoutError:
        pass
    writer.close()
    return data


async def test_garbage_at_the_socket_never_crashes_the_server(parlor):
    payloads = [
        b"\xff" * 5000,                                  # IAC flood
        b"\xff\xfa\x18" + b"A" * 10000,                  # unterminated subnegotiation
        b"\xc3\x28\xa0\xa1\xe2\x28\xa1 invalid utf-8\r\n",
        b"x" * 100_000 + b"\r\n",                        # an overlong line
        bytes(range(256)) * 4,
        b"\r\n\r\n\r\n\x00\x00\r\x00",
    ]
    for payload in payloads:
        await _raw(parlor.port, payload)
    # still serving, and a plain client gets the welcome in UTF-8
    data = await _raw(parlor.port, b"")
    assert b"Welcome to" in data
    nc = socket.create_connection(("127.0.0.1", parlor.port))
    nc.close()
    c = await Client.connect(parlor.port)
    await c.create("Survivor")
    await c.cmd("say caf\u00e9 \u2014 ok", "caf\u00e9 \u2014 ok")
    await c.close()


async def test_a_client_slow_to_answer_the_options_is_offered_gmcp_when_it_answers(parlor):
    """A browser on a busy machine answered DO TTYPE after its session had begun (past
    the half second the server waits): it was offered no GMCP, ever, and /play's pane
    stayed on its login form. The offer now comes with the answer, and GMCP agreed
    after login sends what a login sends (the name first)."""
    IAC, WILL, DO, SB, TTYPE, GMCP = b"\xff", b"\xfb", b"\xfd", b"\xfa", b"\x18", b"\xc9"
    reader, writer = await asyncio.open_connection("127.0.0.1", parlor.port)
    seen = b""

    async def until(wanted: bytes) -> None:
        nonlocal seen
        while wanted not in seen:
            seen += await asyncio.wait_for(reader.read(4096), 5)

    try:
        await until(b"Name:")  # the session began with DO TTYPE unanswered
        assert IAC + WILL + GMCP not in seen
        for line in (b"new", b"Slowpoke", b"hunter22", b"hunter22"):
            writer.write(line + b"\r\n")
            await writer.drain()
            await until(b"Welcome, Slowpoke!" if line == b"hunter22" and seen.count(
                b"Type it again") else b": ")
        await until(b"> ")
        assert IAC + WILL + GMCP not in seen
        writer.write(IAC + WILL + TTYPE)  # the answer, at last
        await until(IAC + WILL + GMCP)
        writer.write(IAC + DO + GMCP)
        await until(IAC + SB + GMCP + b"Char.Name")
        await until(b"Room.Info")
    finally:
        writer.close()
