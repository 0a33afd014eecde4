"""The event bus: services publish, sessions subscribe.

Topics are strings: ``"chat"``, ``"room:plaza"``, ``"account:42"``, ``"game:7"``,
``"all"``. An event is a small frozen value; a subscriber is a plain callable that must
not block (sessions queue text and return). Today the bus is in-process; the interface
is what ``server/redis_bus.py`` implements to link several server nodes.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Callable, Protocol

import attrs

log = logging.getLogger(__name__)


@attrs.frozen
class Event:
    """``type`` names what happened ("say", "tell", "game.update"); ``data`` carries it
    (plain data: JSON on the way to another node)."""

    type: str
    data: dict[str, Any] = attrs.field(factory=dict)


Subscriber = Callable[[str, Event], None]


class Bus(Protocol):
    # Whether every event published on any node reaches this one now, and how often the
    # bus has come back after losing the others (what was published meanwhile may never
    # have arrived): what a copy kept current by events checks before it trusts itself.
    connected: bool
    heals: int

    def subscribe(self, topic: str, fn: Subscriber) -> None: ...
    def unsubscribe(self, topic: str, fn: Subscriber) -> None: ...
    def publish(self, topic: str, event: Event) -> None: ...
    def subscribers(self, topic: str) -> int: ...
    def wanted(self, topic: str) -> bool: ...


SMALL = 8  # a topic with at most this many subscribers keeps them in a tuple


class LocalBus:
    """Delivers events to subscribers in this process, in order, at once."""

    connected = True  # there is no other node to lose
    heals = 0

    def __init__(self) -> None:
        # topic -> subscribers, in the order they came: a tuple while they are few (most
        # topics have one: "account:42" is every player's, a dict costs 232 bytes), an
        # insertion-ordered dict (None values) once there are more than SMALL
        self._subs: dict[str, tuple[Subscriber, ...] | dict[Subscriber, None]] = {}

    def subscribe(self, topic: str, fn: Subscriber) -> None:
        subs = self._subs.get(topic, ())
        if fn in subs:
            return
        if isinstance(subs, dict):
            subs[fn] = None
        elif len(subs) < SMALL:
            self._subs[topic] = (*subs, fn)
        else:
            self._subs[topic] = dict.fromkeys((*subs, fn))

    def unsubscribe(self, topic: str, fn: Subscriber) -> None:
        subs = self._subs.get(topic)
        if subs is None or fn not in subs:
            return
        if isinstance(subs, dict):
            del subs[fn]
        else:
            subs = self._subs[topic] = tuple(f for f in subs if f != fn)
        if not subs:
            del self._subs[topic]

    def publish(self, topic: str, event: Event) -> None:
        """Deliver ``event`` to every subscriber of ``topic``. It goes through JSON on
        the way, as it would between nodes: a live object cannot travel (a TypeError
        says so at once), and no subscriber shares the publisher's objects."""
        if topic in self._subs:
            self.deliver(topic, Event(event.type, json.loads(json.dumps(event.data))))

    def deliver(self, topic: str, event: Event) -> None:
        """Hand ``event`` (plain data already, as from another node) to the subscribers
        of ``topic`` here."""
        subs = self._subs.get(topic, ())
        for fn in tuple(subs) if isinstance(subs, dict) else subs:
            try:
                fn(topic, event)
            except Exception:  # one broken subscriber must not starve the others
                log.exception("subscriber %r failed on %s %s", fn, topic, event.type)

    def subscribers(self, topic: str) -> int:
        return len(self._subs.get(topic, ()))

    def wanted(self, topic: str) -> bool:
        """Whether anyone may hear an event on ``topic`` (else it need not be made)."""
        return topic in self._subs
