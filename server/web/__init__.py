"""The web door: the parlor over HTTP and WebSocket (pages, live boards, the browser
client /play).

``door.py`` is the door as the parlor starts it (:class:`~server.web.door.WebDoor`);
``front.py`` the process of its own that speaks HTTP to browsers for it; ``app.py`` the
pages (Starlette), ``play.py`` the browser client's WebSocket, ``live.py`` the live
boards, ``cache.py`` the copies of pages drawn once per change.

This module imports nothing itself, so that the front's process (``python -m
server.web.front``) loads the few modules it uses and not the parlor's; ``WebDoor`` and
``WebDoorError`` are found in ``door.py`` when asked for.
"""

from __future__ import annotations

from typing import Any

__all__ = ["WebDoor", "WebDoorError"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from server.web import door

        return getattr(door, name)
    raise AttributeError(f"module 'server.web' has no attribute {name!r}")
