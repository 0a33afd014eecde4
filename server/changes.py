"""How often what the public pages show has changed, readable from another process.

The web door's front (``server/web/front.py``) keeps the copies of public pages the
parlor sends it, and must not send one after what it shows has changed: a player who
has just moved and reloads the game's page must see the move. So the parts whose state
the pages draw count each change here (``Online``: who is on; ``LiveGames``: the games
in play, their seats and moves; the web door's pages: seeks and tournaments), and the
count lives in a page of memory shared with the front, which compares it with the count
a copy was made at before it sends the copy. A change counted before the parlor answers
the player who made it is seen by any page read after that answer.

What is not counted (a game's watchers coming and going) shows within the time the
front keeps a copy at most (``server/web/front.py``, ``KEEP_MOST``).
"""

from __future__ import annotations

import mmap
import os
import struct

CELL = struct.Struct("=Q")   # the count: 8 bytes, written and read whole


class Changes:
    """The count, and the memory it is shared in once :meth:`share` is called."""

    def __init__(self) -> None:
        self.count = 0
        self._fd: int | None = None
        self._memory: mmap.mmap | None = None

    def __call__(self) -> None:
        """Something the public pages show changed."""
        self.count += 1
        if self._memory is not None:
            CELL.pack_into(self._memory, 0, self.count)

    def share(self) -> int:
        """A descriptor of the memory the count is kept in, for another process to map
        with :func:`reader`; the caller closes it once it has passed it on."""
        if self._fd is None:
            self._fd = os.memfd_create("esterport-changes", os.MFD_CLOEXEC)
            os.ftruncate(self._fd, mmap.PAGESIZE)
            self._memory = mmap.mmap(self._fd, mmap.PAGESIZE)
            CELL.pack_into(self._memory, 0, self.count)
        return os.dup(self._fd)


def reader(fd: int):  # noqa: ANN201
    """A function that reads the count shared at ``fd`` (see :meth:`Changes.share`)."""
    memory = mmap.mmap(fd, mmap.PAGESIZE, prot=mmap.PROT_READ)
    return lambda: CELL.unpack_from(memory, 0)[0]
