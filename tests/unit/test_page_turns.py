"""Page requests take turns with the players (``server/web/app.py``, ``DoorApp``): at
most ``at_once`` are answered at a time, and between two turns the event loop runs
whatever else is ready, as a telnet command; live streams and WebSockets take no turn."""

from __future__ import annotations

import asyncio

from server.web.app import DoorApp


class Inner:
    """An ASGI app that counts the requests inside it at once; a page "draws" for
    ``work`` loop-free steps (no await), as a cached page is sent, or awaits ``wait``."""

    def __init__(self, wait: float = 0.0) -> None:
        self.inside = 0
        self.most = 0
        self.order: list[str] = []
        self.wait = wait
        self.state = object()

    async def __call__(self, scope, receive, send) -> None:  # noqa: ANN001
        self.inside += 1
        self.most = max(self.most, self.inside)
        self.order.append(scope["path"])
        if self.wait:
            await asyncio.sleep(self.wait)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        self.inside -= 1


def _request(app, path: str, kind: str = "http"):  # noqa: ANN001, ANN202
    async def send(message: dict) -> None:
        pass

    async def receive() -> dict:
        return {"type": "http.request"}

    return app({"type": kind, "path": path}, receive, send)


async def test_no_more_than_at_once_pages_are_answered_together():
    inner = Inner(wait=0.01)
    door = DoorApp(inner, at_once=2)
    await asyncio.gather(*(_request(door, "/") for _ in range(8)))
    assert inner.most == 2 and len(inner.order) == 8


async def test_the_players_work_runs_between_two_turns():
    """Eight readers' requests arrive in one turn of the loop; a player's command made
    ready at the same time runs after at most ``at_once`` pages, not after all eight."""
    inner = Inner()
    door = DoorApp(inner, at_once=1)
    pages = [asyncio.ensure_future(_request(door, f"/page{i}")) for i in range(8)]
    asyncio.get_running_loop().call_soon(lambda: inner.order.append("telnet"))
    await asyncio.gather(*pages)
    assert inner.order.index("telnet") <= 1, inner.order


async def test_streams_and_websockets_take_no_turn():
    inner = Inner(wait=0.05)
    door = DoorApp(inner, at_once=1)
    held = asyncio.ensure_future(_request(door, "/"))        # holds the one turn
    await asyncio.sleep(0.01)
    await asyncio.wait_for(asyncio.gather(_request(door, "/games/7/events"),
                                          _request(door, "/play/ws", "websocket")), 1.0)
    assert inner.most == 3   # both went in beside the page holding the turn
    await held


def test_the_door_app_keeps_the_inner_apps_state():
    inner = Inner()
    assert DoorApp(inner, at_once=1).state is inner.state
