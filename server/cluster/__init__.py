"""Several nodes, one parlor: the bus between nodes and who is online on which.

With ``[cluster] redis`` set, each server process is one *node* of a parlor whose nodes
share one PostgreSQL (the one store) and one Redis (fan-out, presence, leases). Redis
is used for what it is made for and nothing is built by hand on top of it beyond this:

* The bus between nodes is ``server/redis_bus.py``'s :class:`RedisBus`.
* The roster (``roster.py``): every logged-in player of every node, in a Redis hash
  (``<prefix>roster``: account id -> where they are) that a node reads once when it
  starts, and kept current by the ``cluster`` topic (who logs in, moves, goes idle,
  leaves). Each node mirrors it in memory, so WHO, FINGER, TELL and LOOK answer from
  memory. A node that stops renewing its heartbeat key (killed) is dropped from every
  mirror, and its players with it, within ``[cluster] lease`` seconds and a beat.
* Control goes over the same topic (``node.py``, this node's :class:`Cluster`): a login
  on node B takes over the session on node A (the newer login wins, on every node
  alike), an admin's @KICK reaches the node of the player kicked, @SHUTDOWN every node,
  ``@SHUTDOWN NODE <name>`` one; the login throttles and the per-address cap count every
  node's events.
* Games: each is driven by one node (``games.py``: the games table); a command about it
  typed on another node is relayed there (``routing.py``, ``server/relay.py``), and a
  dead node's games are taken over by the others. A node that stops hands its games over
  first (``drain``), each to the live node driving fewest, and closes its sessions once
  they have been taken.
* Ownership is proven, not hoped (``lease.py``). The store names the node driving each
  game and its epoch, a fencing token: an adoption raises it (a compare-and-set on the
  stored epoch and version), and every write of a game is made under the epoch its
  writer holds, so a node that lost a game can store nothing more of it. Each node holds
  a lease (its heartbeat key); a node that finds its lease lapsed (it was paused with
  SIGSTOP, or cut off from Redis, longer than ``lease``) acts on no game before the
  store has said which are still its own (``fence``): the others are let go, and their
  commands relayed to the node that adopted them. Frames carry the epoch, and consumers
  drop older ones.
* Nothing is left undriven: once a beat each node writes its own games into the games
  table again (Redis may have lost them) and mirrors the others' from it, and every few
  beats it adopts any game in play in the store whose node is not alive.

Challenges and seeks made on one node are seen on every node (``offers.py``); a node
asks another something over that node's own topic (``questions.py``); every part tells
the others, and writes to Redis, through the node's ``Link`` (``link.py``), and reads
the parlor as ``LocalParlor`` (``parlor.py``); the tournament
director's lock is shared (``lock.py``); ``esterport reload --rolling`` reloads node
after node (``rolling.py``).

When Redis goes away each node says so once in its log, goes on serving its own players
(their games are in the database), and heals when Redis is back: it subscribes again and
writes its players into the roster again.
"""

from server.cluster.lock import ClusterLock
from server.cluster.node import Cluster
from server.cluster.rolling import reload_nodes

__all__ = ["Cluster", "ClusterLock", "reload_nodes"]
