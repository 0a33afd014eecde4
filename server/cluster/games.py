"""Which node drives each game: the games table in Redis, this node's mirror of the
other nodes' part of it, and games changing hands (a dead node's adopted, a stopping
node's handed over, a lost one swept up)."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import Counter
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError

from server.frames import Frame, OtherSchema
from server.redis_bus import PREFIX
from server.services.live import GameUnreachable

if TYPE_CHECKING:
    from server.cluster.lease import Lease
    from server.cluster.link import Link
    from server.cluster.parlor import LocalParlor
    from server.cluster.questions import Questions

log = logging.getLogger(__name__)

GAMES = PREFIX + "games"  # game number -> {"node", "kind", "players"}
ASK_TIMEOUT = 3.0   # seconds a node waits for another's list of games or board
SWEEP_EVERY = 5     # beats between two sweeps for games in play that no live node drives
HAND_OVER_TIMEOUT = 3.0  # seconds a stopping node waits for another to take a game
DRAIN_TIMEOUT = 10.0     # seconds a stopping node spends handing its games over, at most
LIST_FRESH = 1.0    # seconds another node's list of games is shown again without asking

# a game another node drives: (its node, its kind's key, its players' account ids); the
# node is "" while the game is being taken over from a node that died
DrivenElsewhere = tuple[str, str, tuple[int, ...]]


class GameTable:
    """The games table (``<prefix>games``: game number -> the node driving it, its kind,
    its players) holds every game in play. This node writes its own games into it as they
    change (and again every beat: Redis may have lost them) and mirrors the others' in
    memory (``number in table``, :meth:`get`, :meth:`owner_for`), so a command about a
    game driven elsewhere knows where to go without asking.

    Ownership itself is the store's: a node adopting a game raises its epoch there
    (``GameHost.restore``), so a node that loses the race in Redis loses it there too."""

    def __init__(self, link: "Link", parlor: "LocalParlor", lease: "Lease",
                 questions: "Questions") -> None:
        self.link = link
        self.parlor = parlor
        self.lease = lease
        self.questions = questions
        self.elsewhere: dict[int, DrivenElsewhere] = {}  # the games other nodes drive
        self._where: dict[tuple[int, str], int] = {}  # (player, kind key) -> game number
        # the other nodes' games, as last asked: kind key (None: all) -> (when, the asking)
        self._lists: dict[str | None, tuple[float, asyncio.Task]] = {}
        # games their node said it drives no more: number -> (that node, when: monotonic).
        # The table may still list one for a moment (the node's write comes after its
        # word), and a read of it then must not bring the game back (``_stale``)
        self._gone: dict[int, tuple[str, float]] = {}

    def __contains__(self, number: int) -> bool:
        return number in self.elsewhere

    def __len__(self) -> int:
        return len(self.elsewhere)

    def __repr__(self) -> str:
        return f"GameTable(elsewhere={self.elsewhere!r})"

    def get(self, number: int) -> DrivenElsewhere | None:
        """Game ``number``, when another node drives it (or it is being taken over)."""
        return self.elsewhere.get(number)

    def number_of(self, account_id: int, kind_key: str) -> int | None:
        """The number of ``account_id``'s game of that kind, when another node drives it."""
        return self._where.get((account_id, kind_key))

    def owner_for(self, account_id: int, kind_key: str) -> str | None:
        """The node driving ``account_id``'s game of that kind, when another node does."""
        number = self._where.get((account_id, kind_key))
        return self.elsewhere[number][0] if number is not None else None

    # -- the mirror -------------------------------------------------------------------
    async def load(self) -> None:
        """Mirror the other live nodes' games, as the table has them."""
        table = await self.link.redis.hgetall(GAMES)
        entries = {int(k): json.loads(v) for k, v in table.items()}
        alive = await self.lease.alive({e["node"] for e in entries.values()})
        for number, entry in entries.items():
            if entry["node"] in alive and entry["node"] != self.link.node:
                self.remember(number, entry)

    def remember(self, number: int, entry: dict[str, Any]) -> None:
        """Game ``number`` is driven elsewhere, as ``entry`` (the table's) says."""
        self.forget(number)
        players = tuple(int(p) for p in entry["players"])
        self.elsewhere[number] = (entry["node"], entry["kind"], players)
        for player in players:
            self._where[(player, entry["kind"])] = number

    def forget(self, number: int) -> None:
        known = self.elsewhere.pop(number, None)
        if known is not None:
            for player in known[2]:
                if self._where.get((player, known[1])) == number:
                    del self._where[(player, known[1])]

    def heard(self, data: dict[str, Any]) -> None:
        """Another node's news of one of its games (``game`` on the ``cluster`` topic):
        ``entry`` None when it drives it no more."""
        number = int(data["number"])
        if data.get("entry") is None:
            self._gone[number] = (data["node"], time.monotonic())
            known = self.elsewhere.get(number)
            if known is not None and known[0] in (data["node"], ""):
                self.forget(number)
        else:
            self._gone.pop(number, None)
            self.remember(number, data["entry"])

    def _stale(self, number: int, entry: dict[str, Any]) -> bool:
        """Whether the table's ``entry`` for game ``number`` is one its node has just
        said it dropped (within a lease: by then its node has cleared it)."""
        gone = self._gone.get(number)
        return gone is not None and gone[0] == entry["node"] \
            and time.monotonic() - gone[1] < self.lease.seconds

    async def lookup(self, number: int) -> None:
        """Learn from the games table which live node drives game ``number`` now."""
        raw = await self.link.redis.hget(GAMES, str(number))
        if raw is None:
            return
        entry = json.loads(raw)
        if entry["node"] != self.link.node and not self._stale(number, entry) \
                and await self.lease.alive({entry["node"]}):
            self.remember(number, entry)

    # -- this node's games ------------------------------------------------------------
    def entry_of(self, game: Any) -> dict[str, Any]:
        """Game ``game``'s entry in the games table: driven here, of its kind, by whom."""
        players = [s.account_id for s in game.seats if s.computer is None and not s.left]
        return {"node": self.link.node, "kind": game.kind.key, "players": players}

    def changed(self, game: Any, here: bool) -> None:
        """A game driven here changed, or is driven here no more (``LiveGames.listeners``):
        the table and the other nodes are told."""
        entry = self.entry_of(game)
        self.link.control("game", number=game.id, entry=entry if here else None)
        if here:
            self.link.spawn(self.link.redis.hset(GAMES, str(game.id), json.dumps(entry)))
        else:
            self.link.spawn(self._release(game.id))

    def announce_all(self) -> None:
        """Every game driven here, to the others and into the table again."""
        for game in list(self.parlor.host.live.values()):
            self.changed(game, True)

    async def _release(self, number: int) -> None:
        """Game ``number`` is no longer driven here: out of the games table, unless
        another node has taken it since."""
        raw = await self.link.redis.hget(GAMES, str(number))
        if raw is not None and json.loads(raw)["node"] == self.link.node:
            await self.link.redis.hdel(GAMES, str(number))

    async def take(self, number: int, owner: str) -> bool:
        """Whether this node is to drive game ``number``, stored as driven by ``owner``
        (at start, or when its node died): it is, when it is its owner, or when no live
        node is and this node wins the race for it in Redis."""
        node = self.link.node
        if owner == node:
            return True
        if owner and await self.lease.alive({owner}):
            return False
        return bool(await self.link.redis.set(PREFIX + f"adopt:{number}", node, nx=True,
                                              px=int(self.lease.seconds * 1000)))

    # -- a node that died -------------------------------------------------------------
    def node_gone(self, node: str) -> None:
        """``node`` stopped or its lease lapsed: its games are taken over (each by one
        node). Until then a command about one of them waits (``Router.relay``)."""
        for number, (owner, kind, players) in list(self.elsewhere.items()):
            if owner == node:
                self.elsewhere[number] = ("", kind, players)  # being taken over
        self.link.spawn(self.adopt(node))

    async def adopt(self, node: str) -> None:
        """A node died: take over the games it drove (each by one node only: the one that
        wins the race in Redis, then in the store), and learn who took the others."""
        host = self.parlor.host
        table = await self.link.redis.hgetall(GAMES)
        orphans = {n for n, (owner, _k, _p) in self.elsewhere.items() if owner in ("", node)}
        orphans |= {int(k) for k, v in table.items() if json.loads(v)["node"] == node}
        for number in sorted(orphans):
            known = self.elsewhere.get(number)
            if number in host.live or known is not None and known[0] not in ("", node):
                continue  # its new node has told us already
            if await host.restore(self.take, only=number):  # the store says who drove it
                self.forget(number)  # driven here now
                log.warning("cluster: node %s is gone; this node drives game #%d now",
                            node, number)
            else:
                await self.lookup(number)

    async def reconcile(self, sweep: bool) -> None:
        """Make the games table and this node's mirror of it agree with what is driven
        where, once a beat: every game driven here is in the table under this node (Redis
        may have lost it, restarted empty); a game another live node says it drives
        either is not this node's any more (its epoch rose: let go here) or is (the table
        is written again); the other nodes' games are mirrored as the table has them.
        With ``sweep`` (every few beats), a game in play in the store that no live node
        drives (its adopter died too, or the adoption was lost) is adopted."""
        host, redis, node = self.parlor.host, self.link.redis, self.link.node
        table = {int(k): json.loads(v) for k, v in (await redis.hgetall(GAMES)).items()}
        alive = await self.lease.alive({e["node"] for e in table.values()} - {node})
        alive.add(node)
        claimed = [g for g in list(host.live.values())
                   if table.get(g.id, {}).get("node") not in (node, None)
                   and table[g.id]["node"] in alive]
        stored = await host.epochs([g.id for g in claimed]) if claimed else {}
        for game in list(host.live.values()):
            entry = table.get(game.id)
            if game in claimed and stored.get(game.id) != game.epoch:
                continue  # let go below
            if entry is None or entry["node"] != node:
                await redis.hset(GAMES, str(game.id), json.dumps(self.entry_of(game)))
        for game in claimed:
            if stored.get(game.id) != game.epoch and host.games.holds(game):
                log.warning("cluster: game #%d is driven by node %s now; let go here",
                            game.id, table[game.id]["node"])
                host.games.drop(game)
        for number, entry in table.items():
            if entry["node"] == node and number not in host.live:
                await self._release(number)  # over or let go here, and not cleared then
            elif entry["node"] != node and entry["node"] in alive and number not in host.live \
                    and not self._stale(number, entry):
                known = self.elsewhere.get(number)
                if known is None or known[0] != entry["node"]:
                    self.remember(number, entry)
        now = time.monotonic()
        for number, (_node, when) in list(self._gone.items()):
            if now - when >= self.lease.seconds:
                del self._gone[number]
        if sweep:
            await self._sweep()

    async def _sweep(self) -> None:
        """Adopt the games in play in the store whose node is not alive (and not this
        one): nothing in play is left undriven, whatever was lost on the way."""
        host = self.parlor.host
        # a game stored in the last lease is left alone: it may be starting on its node
        drivers = await host.drivers(before=time.time() - self.lease.seconds)
        nodes = {n for n in drivers.values() if n and n != self.link.node}
        alive = await self.lease.alive(nodes)
        for number, owner in sorted(drivers.items()):
            if number in host.live or owner in alive:
                continue
            if await host.restore(self.take, only=number):  # ours (yet not here), or undriven
                self.forget(number)
                log.warning("cluster: game #%d was driven by no live node; this node "
                            "drives it now", number)

    async def purge(self, node: str) -> None:
        """Take a dead node's games out of the games table (any node may: it is
        idempotent; a game taken over names its new node)."""
        entries = await self.link.redis.hgetall(GAMES)
        dead = [k for k, v in entries.items() if json.loads(v)["node"] == node]
        if dead:
            await self.link.redis.hdel(GAMES, *dead)

    # -- a node that stops hands its games over ----------------------------------------
    async def drain(self) -> bool:
        """This node is stopping: hand each game it drives to another live node (the one
        driving fewest), and return once each is taken (each within
        ``HAND_OVER_TIMEOUT``, all within ``DRAIN_TIMEOUT``), so that no command about
        it waits for this node's lease to lapse. False when no other node takes games
        (nor Redis answers in time): then this node's games go to whichever node notices
        it gone, as after a kill."""
        try:
            return await asyncio.wait_for(self._drain(), DRAIN_TIMEOUT)
        except (asyncio.TimeoutError, RedisError, OSError) as err:
            log.warning("cluster: this node's games are not all handed over (%r)", err)
            return False

    async def _drain(self) -> bool:
        host = self.parlor.host
        handed: set[int] = set()
        await self.lease.beat()  # marked draining: no node hands its games here now
        takers = await self.lease.takers()
        while takers and (games := sorted((g for g in host.live.values()
                                           if g.id not in handed), key=lambda g: g.id)):
            table = await self.link.redis.hgetall(GAMES)
            load = Counter(json.loads(v)["node"] for v in table.values())
            handing = []
            for game in games:  # games started meanwhile go in the next pass
                node = min(takers, key=lambda n: (load[n], n))
                load[node] += 1
                handed.add(game.id)
                handing.append(self._hand_over(game, node))
            await asyncio.gather(*handing)
        return bool(takers)

    async def _hand_over(self, game: Any, node: str) -> None:
        """Hand ``game`` to ``node``: under the game's lock nothing is played on it here
        (and all it was is stored) while ``node`` takes it from the store; once it has,
        this node lets it go. Untaken, it stays here."""
        host = self.parlor.host
        async with game.lock:
            if host.live.get(game.id) is not game:
                return  # over meanwhile
            answer = await self.questions.ask(node, "adopt", HAND_OVER_TIMEOUT,
                                              {"game": game.id})
            if answer is None or answer.get("entry") is None:
                log.warning("cluster: node %s did not take game #%d", node, game.id)
                return
            self.remember(game.id, answer["entry"])  # this node's players' commands go there
            host.games.drop(game)  # let go, not finished (its ``outcome`` is None)
        log.info("cluster: game #%d handed to node %s", game.id, node)

    async def take_over(self, data: dict[str, Any]) -> None:
        """A stopping node hands game ``data["game"]`` here: drive it from the store (its
        clock and computer turns go on here), then answer with its games-table entry
        (None: not taken)."""
        parlor = self.parlor
        entry = None
        try:
            number = int(data["game"])
            if not parlor.draining:
                self.forget(number)
                await parlor.host.restore(only=number)
            game = parlor.host.live.get(number)
            if game is not None:
                entry = self.entry_of(game)
                await self.link.redis.hset(GAMES, str(number), json.dumps(entry))
        except (RedisError, OSError):
            pass  # taken all the same: the games table has it again when Redis heals
        except Exception:
            log.exception("cluster: game %r handed here could not be taken", data.get("game"))
        self.questions.answer(data, entry=entry)

    # -- the other nodes' games, as their watchers see them -----------------------------
    def frames_here(self, kind_key: str | None) -> list[dict[str, Any]]:
        """The watchers' frames of the games driven here, as JSON (another node asked)."""
        host = self.parlor.host
        return [g.frame(None, with_view=False).watched(host.watchers(g.id)).to_json()
                for g in host.live.values() if kind_key is None or g.kind.key == kind_key]

    def frame_here(self, number: int) -> dict[str, Any] | None:
        """Game ``number``'s watchers' frame, with its view, as JSON, if it is driven
        here."""
        host = self.parlor.host
        game = host.live.get(number)
        return None if game is None else \
            game.frame(None).watched(host.watchers(game.id)).to_json()

    async def frames(self, kind_key: str | None) -> list[Frame]:
        """The games the other nodes drive (GAMES, the web's lists), asked of each: once
        for every GAMES typed at the same time, and again after ``LIST_FRESH`` seconds
        (a crowd typing GAMES costs the other nodes one question a second)."""
        now = time.monotonic()
        asked = self._lists.get(kind_key)
        if asked is None or now - asked[0] > LIST_FRESH or \
                asked[1].done() and asked[1].exception() is not None:
            asked = (now, asyncio.create_task(self._ask_frames(kind_key)))
            self._lists[kind_key] = asked
        return await asyncio.shield(asked[1])

    async def _ask_frames(self, kind_key: str | None) -> list[Frame]:
        nodes = sorted({node for node, kind, _p in self.elsewhere.values()
                        if node and (kind_key is None or kind == kind_key)})
        ask = self.questions.ask
        answers = await asyncio.gather(*(ask(n, "frames", ASK_TIMEOUT, {"kind": kind_key})
                                         for n in nodes))
        frames = []
        for data in (f for answer in answers if answer for f in answer["frames"]):
            try:
                frames.append(Frame.from_json(data))
            except OtherSchema:  # a node of another release, during a rolling reload
                continue
        return frames

    async def frame(self, game_id: int) -> Frame | None:
        """A game another node drives, as its watchers see it (a web page's board)."""
        known = self.elsewhere.get(game_id)
        if known is None:
            if await self.parlor.host.epochs([game_id]):  # in play, its node died
                raise GameUnreachable(game_id)
            return None
        answer = None
        if known[0]:
            answer = await self.questions.ask(known[0], "frame", ASK_TIMEOUT,
                                              {"game": game_id})
        if answer is None or answer["frame"] is None:
            raise GameUnreachable(game_id)  # dead, paused, or being taken over
        try:
            return Frame.from_json(answer["frame"])
        except OtherSchema:  # a node of another release: asked again once it is reloaded
            raise GameUnreachable(game_id) from None
