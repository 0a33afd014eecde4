"""Challenges and seeks across nodes: the offers made on other nodes, mirrored here, and
seek numbers and takings shared by every node."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from server.hosting import Seat
from server.redis_bus import PREFIX
from server.services.offers import Offer

if TYPE_CHECKING:
    from server.cluster.link import Link
    from server.cluster.parlor import LocalParlor


class OffersElsewhere:
    """Every offer made or gone on a node is told on the ``cluster`` topic (``offer``);
    the other nodes mirror it, so PENDING and ACCEPT here see it."""

    def __init__(self, link: "Link", parlor: "LocalParlor") -> None:
        self.link = link
        self.parlor = parlor
        self.offers: dict[tuple[str, int], Offer] = {}  # (node, offer number) -> offer

    def to(self, account_id: int) -> list[Offer]:
        """The offers made on other nodes to ``account_id``."""
        return [o for o in self.offers.values() if o.target.account_id == account_id]

    def node_of_one(self, account_id: int, kind_key: str | None) -> str | None:
        """The node of the one offer made elsewhere to ``account_id`` (of that kind, or of
        any); None when there are none or several."""
        there = {node for (node, _n), o in self.offers.items()
                 if o.target.account_id == account_id
                 and (kind_key is None or o.kind.key == kind_key)}
        return there.pop() if len(there) == 1 else None

    def changed(self, offer: Offer, made: bool) -> None:
        """An offer made or gone here (``OfferBook.listeners``): told to the others."""
        self.link.control("offer", id=offer.id, made=made, kind=offer.kind.key,
                          challenger=offer.challenger.to_json(),
                          target=offer.target.to_json(), options=offer.options,
                          created=offer.created, rematch_of=offer.rematch_of,
                          swapped=offer.swapped)

    def heard(self, data: dict[str, Any]) -> None:
        """An offer made or gone on another node."""
        key = (data["node"], int(data["id"]))
        kind = self.parlor.host.kinds.get(data["kind"])
        if not data["made"] or kind is None:
            self.offers.pop(key, None)
            return
        self.offers[key] = Offer(key[1], kind, Seat.from_json(data["challenger"]),
                                 Seat.from_json(data["target"]), data["options"],
                                 float(data["created"]), data["rematch_of"], data["swapped"])

    def node_gone(self, node: str) -> None:
        """``node`` stopped or died: its offers lapse."""
        for key in [k for k in self.offers if k[0] == node]:
            del self.offers[key]

    async def new_seek_id(self) -> int:
        """A seek's number, the same on every node."""
        return int(await self.link.redis.incr(PREFIX + "seek-ids"))

    async def claim_seek(self, number: int) -> bool:
        """Whether this node is the one to take seek ``number`` (two nodes may try at once)."""
        return bool(await self.link.redis.set(PREFIX + f"seek-taken:{number}",
                                              self.link.node, nx=True, ex=3600))
