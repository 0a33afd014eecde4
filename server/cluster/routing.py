"""Which node a typed line runs on, and running it there: a game's command goes to the
node driving the player's game, an answer to a challenge to the challenger's node."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

from server.db import LOST, connection_lost
from server.relay import RELAY_TIMEOUT, RelayedSession, apply_relayed, session_view

if TYPE_CHECKING:
    from server.cluster.games import GameTable
    from server.cluster.lease import Lease
    from server.cluster.link import Link
    from server.cluster.offers import OffersElsewhere
    from server.cluster.parlor import LocalParlor
    from server.cluster.questions import Questions
    from server.session import Session

log = logging.getLogger(__name__)


def _number(word: str) -> int | None:
    """A game's number as typed ("7" or "#7"), or None."""
    digits = word.lstrip("#")
    return int(digits) if digits.isdecimal() and len(word) < 12 else None


class Router:
    """Lines typed here that run on another node (:meth:`route`, :meth:`relay`), and
    lines relayed here from another node (:meth:`run`)."""

    def __init__(self, link: "Link", parlor: "LocalParlor", lease: "Lease",
                 games: "GameTable", questions: "Questions", offers: "OffersElsewhere") -> None:
        self.link = link
        self.parlor = parlor
        self.lease = lease
        self.games = games
        self.questions = questions
        self.offers = offers

    def route(self, session: "Session", line: str) -> str | None:
        """The node a typed line must run on, when it is not this one: a game's command
        goes to the node driving the player's game of that kind, and an answer to a
        challenge to the node of the player who made it."""
        word, _, rest = line.partition(" ")
        host = self.parlor.host
        games = self.games
        kind = host.kind_named(word)
        sub, _, more = rest.strip().partition(" ")
        account_id = session.account.id
        if kind is not None:
            if host.game_of(account_id, kind.key) is not None:
                return None
            owner = games.owner_for(account_id, kind.key)
            if owner is not None:
                return owner
            if sub.lower() in ("accept", "decline") and more:
                return self._node_of_player(more.split()[0])
            if sub.lower() == "accept":
                return self._offered_from(account_id, kind.key)
            for word in more.split()[:1]:  # a game of that kind named by number (TRIAD
                number = _number(word)      # JOIN 7, DICE DISPLAY 7)
                known = games.get(number) if number is not None else None
                if known is not None and known[1] == kind.key:
                    return known[0]
            return None
        if word.lower() in ("turn", "last", "claim"):
            return self._node_of_own(session, sub)
        if word.lower() in ("accept", "decline") and rest:
            return self._node_of_player(sub)
        if word.lower() == "accept":
            return self._offered_from(account_id, None)
        if word.lower() in ("observe", "watch", "resume", "adjourn") \
                and (number := _number(sub)) is not None:
            known = games.get(number)
            return known[0] if known is not None else None
        if word.lower() == "adjourn":
            return self._node_of_own(session, "")
        return None

    def _node_of_own(self, session: "Session", word: str) -> str | None:
        """Where TURN, LAST and CLAIM run: with a game named (``word``), on the node
        driving the player's game of it; without, on the one other node driving every
        game they play and watch, if none is driven here."""
        host = self.parlor.host
        games = self.games
        account_id = session.account.id
        kind = host.kind_named(word) if word else None
        if kind is not None:
            return None if host.game_of(account_id, kind.key) is not None else \
                games.owner_for(account_id, kind.key)
        if host.games_of(account_id) or any(n in host.live for n in session.watching):
            return None
        nodes = {games.owner_for(account_id, key) for key in host.kinds}
        nodes |= {known[0] for n in session.watching if (known := games.get(n)) is not None}
        nodes.discard(None)
        return nodes.pop() if len(nodes) == 1 else None

    def _offered_from(self, account_id: int, kind_key: str | None) -> str | None:
        """A bare ACCEPT: the node of the one offer to ``account_id``, when it was made
        on another node (several offers: ACCEPT runs here and asks which)."""
        here, _ = self.parlor.host.offers.pending(account_id)
        if any(kind_key is None or o.kind.key == kind_key for o in here):
            return None
        return self.offers.node_of_one(account_id, kind_key)

    def _node_of_player(self, name: str) -> str | None:
        """The other node the player called ``name`` is on (None: here, or nobody)."""
        player = self.parlor.online.named(name)
        node = getattr(player, "node", None)
        return node if isinstance(node, str) and node != self.link.node else None

    async def relay(self, node: str, session: "Session", line: str) -> None:
        """Run ``line`` on ``node`` for ``session``, and show here what it wrote. When
        that node dies meanwhile, or no longer drives the game (it was paused, and the
        game adopted), or the game is being taken over (``node`` is ""), the line waits
        for the node that drives it next (or this one) and runs there: the game refuses
        it if it was played already."""
        games = self.games
        session.begin_reply()
        try:
            kind = self.parlor.host.kind_named(line.partition(" ")[0])
            number = None if kind is None else games.number_of(session.account.id, kind.key)
            for _attempt in range(3):
                if node:
                    answer = await self.questions.ask(node, "run", RELAY_TIMEOUT, {
                        "account": session.account.id, "line": line,
                        "view": session_view(session), "game": number})
                    if answer is not None and not answer.get("moved"):
                        apply_relayed(session, answer["out"], answer["view"])
                        return
                deadline = time.monotonic() + self.lease.seconds * 2 + 1
                while time.monotonic() < deadline:  # until another node drives it
                    await asyncio.sleep(0.2)
                    if number is not None:
                        await games.lookup(number)
                    moved = self.route(session, line)
                    if moved is None or moved and moved != node:
                        break  # here (or nowhere: then here says so), or its new node
                else:
                    break
                if moved is None:
                    await self.parlor.registry.dispatch(session, line)
                    return
                node = moved
            session.write("That game's server did not answer in time; try again in a "
                          "moment.")
        finally:
            session.end_reply()

    async def run(self, data: dict[str, Any]) -> None:
        """A command relayed here from another node: run it for a stand-in session. About
        a game this node does not drive (any more), it answers ``moved``: the asking node
        finds the node that does. The asking node always gets an answer: if this fails,
        one line saying so."""
        parlor, questions = self.parlor, self.questions
        await self.lease.fence()
        number = data.get("game")
        if number is not None and int(number) not in parlor.host.live:
            questions.answer(data, moved=True)
            return
        out: list[list[Any]] = []
        view = data.get("view", {})
        try:
            account = await parlor.accounts.get_by_id(int(data["account"]))
            if account is not None:
                stand_in = RelayedSession(parlor, account, view)
                await parlor.registry.dispatch(stand_in, data["line"])
                out = stand_in.out
                view = session_view(stand_in)  # type: ignore[arg-type]
        except Exception as err:  # noqa: BLE001
            log.exception("relayed command %r failed", str(data.get("line"))[:200])
            out = [["text", LOST if connection_lost(err) else
                    "Sorry, something went wrong with that command; it has been logged."]]
        questions.answer(data, out=out, view=view)
