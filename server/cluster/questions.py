"""Asking another node something and waiting for its answer."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from server.bus import Event
from server.redis_bus import NODE

if TYPE_CHECKING:
    from server.cluster.link import Link


class Questions:
    """A question is an event on the asked node's own topic (``node:<name>``) with a key;
    its answer an ``answer`` event with that key on the asking node's. The asking waits a
    bounded time, and ends at once when the asked node is found gone."""

    def __init__(self, link: "Link") -> None:
        self.link = link
        self._count = 0
        # questions awaiting answers: key -> (answer, the node asked)
        self._waiting: dict[str, tuple[asyncio.Future, str]] = {}

    async def ask(self, node: str, what: str, timeout: float,
                  data: dict[str, Any]) -> dict | None:
        """Ask ``node`` something (an event ``what`` on its own topic) and wait for its
        answer; None when it does not come in ``timeout`` seconds or the node is gone."""
        self._count += 1
        key = f"{self.link.node}:{self._count}"
        future = asyncio.get_running_loop().create_future()
        self._waiting[key] = (future, node)
        self.link.bus.publish(NODE + node, Event(what, {"key": key,
                                                        "from": self.link.node, **data}))
        try:
            return await asyncio.wait_for(future, timeout)
        except asyncio.TimeoutError:
            return None
        finally:
            self._waiting.pop(key, None)

    def answer(self, data: dict[str, Any], **answer: Any) -> None:
        """Answer the question ``data`` (as it was asked here)."""
        self.link.bus.publish(NODE + data["from"], Event("answer", {"key": data["key"],
                                                                    **answer}))

    def answered(self, data: dict[str, Any]) -> None:
        """An answer came to a question asked here."""
        future, _node = self._waiting.get(data.get("key"), (None, None))
        if future is not None and not future.done():
            future.set_result(data)

    def node_gone(self, node: str) -> None:
        """``node`` is gone: what it was asked will never be answered."""
        for future, asked in list(self._waiting.values()):
            if asked == node and not future.done():
                future.set_result(None)
