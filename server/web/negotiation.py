"""What a request's headers ask of a page's representation: gzip, or a 304 for the copy
it holds. Plain functions of header values, used by the parlor's page copies
(``server/web/cache.py``) and by the web door's front (``server/web/front.py``), which
serves the copies it keeps without the parlor."""

from __future__ import annotations


def accepts_gzip(header: str) -> bool:
    """Whether an Accept-Encoding value takes gzip (``gzip`` or ``*`` with a q above 0)."""
    if "gzip" not in header and "*" not in header:
        return False
    for part in header.split(","):
        name, _, params = part.partition(";")
        if name.strip().lower() not in ("gzip", "x-gzip", "*"):
            continue
        q = params.strip().lower()
        if q.startswith("q="):
            try:
                return float(q[2:]) > 0
            except ValueError:
                return False
        return True
    return False


def matches(header: str | None, tag: str) -> bool:
    """Whether an If-None-Match value names ``tag`` (weakly compared, as RFC 9110 says
    for GET) or is ``*``."""
    if not header:
        return False
    if header.strip() == "*":
        return True
    return any(t.strip().removeprefix("W/") == tag for t in header.split(","))
