"""The event bus: services publish, sessions subscribe.

Topics are strings: ``"chat"``, ``"room:plaza"``, ``"account:42"``, ``"game:7"``,
``"all"``. An event is a small frozen value; a subscriber is a plain callable that must
not block (sessions queue text and return). Today the bus is in-process; the interface
is what ``server/cluster.py``'s Redis bus implements to link several server nodes.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from typing import Any, Callable, Protocol

import attrs

log = logging.getLogger(__name__)


@attrs.frozen
class Event:
    """``kind`` names what happened ("say", "tell", "game.update"); ``data`` carries it."""

    kind: str
    data: dict[str, Any] = attrs.field(factory=dict)


Subscriber = Callable[[str, Event], None]


class Bus(Protocol):
    def subscribe(self, topic: str, fn: Subscriber) -> None: ...
    def unsubscribe(self, topic: str, fn: Subscriber) -> None: ...
    def publish(self, topic: str, event: Event) -> None: ...
    def subscribers(self, topic: str) -> int: ...
    def wanted(self, topic: str) -> bool: ...


class LocalBus:
    """Delivers events to subscribers in this process, in order, at once."""

    def __init__(self) -> None:
        # topic -> subscribers, as an insertion-ordered set (a dict with None values)
        self._subs: dict[str, dict[Subscriber, None]] = defaultdict(dict)

    def subscribe(self, topic: str, fn: Subscriber) -> None:
        self._subs[topic][fn] = None

    def unsubscribe(self, topic: str, fn: Subscriber) -> None:
        subs = self._subs.get(topic)
        if subs is not None:
            subs.pop(fn, None)
            if not subs:
                del self._subs[topic]

    def publish(self, topic: str, event: Event) -> None:
        """Deliver ``event`` to every subscriber of ``topic``. It goes through JSON on
        the way, as it would between nodes: a live object cannot travel (a TypeError
        says so at once), and no subscriber shares the publisher's objects."""
        if topic in self._subs:
            self.deliver(topic, Event(event.kind, json.loads(json.dumps(event.data))))

    def deliver(self, topic: str, event: Event) -> None:
        """Hand ``event`` (plain data already, as from another node) to the subscribers
        of ``topic`` here."""
        subs = tuple(self._subs.get(topic, ()))
        for fn in subs:
            try:
                fn(topic, event)
            except Exception:  # one broken subscriber must not starve the others
                log.exception("subscriber %r failed on %s %s", fn, topic, event.kind)

    def subscribers(self, topic: str) -> int:
        return len(self._subs.get(topic, ()))

    def wanted(self, topic: str) -> bool:
        """Whether anyone may hear an event on ``topic`` (else it need not be made)."""
        return topic in self._subs
