"""A resume token is replaced at every login (server/services/resume.py, server/login.py):
after a login anywhere, by password or by a token, only the token that login was given
logs anyone in. An attack campaign found an old token still good after a password login
elsewhere, until QUIT."""

from __future__ import annotations

import asyncio

from tests.support.client import Client


async def _page(parlor) -> tuple[Client, list]:  # noqa: ANN001
    """A browser-like client that lists ``Esterport.Resume`` before it logs in, as the
    /play page does; what GMCP brings is in the returned list."""
    page = await Client.connect_mud(parlor.port)
    await page.expect("Name: ")
    page.writer.send_gmcp("Core.Supports.Set", ["Esterport.Resume 1"])
    return page, page.gmcp


async def _log_in(page: Client, name: str) -> None:
    """The password login, at the Name: prompt ``_page`` has already seen."""
    await page.cmd(name, "Password: ")
    await page.cmd("secret", "Exits:")


async def _token(gmcp: list, seen: int = 0) -> str:
    """The newest ``Esterport.Resume`` token after the first ``seen`` (bounded wait)."""
    for _ in range(250):
        tokens = [data["token"] for package, data in gmcp if package == "Esterport.Resume"]
        if len(tokens) > seen:
            return tokens[-1]
        await asyncio.sleep(0.02)
    raise AssertionError("no resume token came")


async def test_a_password_login_elsewhere_ends_the_old_token(parlor, clients):
    await (await clients("Alice")).close()
    page, gmcp = await _page(parlor)
    await _log_in(page, "Alice")
    old = await _token(gmcp)
    await page.close()                      # the page drops: its token is good for a while
    await clients("Alice", new=False)       # Alice logs in with her password elsewhere
    assert await parlor.resume.redeem(old) is None
    thief = await clients()
    await thief.expect("Name: ")
    await thief.cmd(f"#resume {old}", r"cannot be resumed")


async def test_a_resumed_login_ends_every_other_token(parlor, clients):
    await (await clients("Alice")).close()
    account = await parlor.accounts.get("Alice")
    first, _ = await parlor.resume.issue(account.id)   # a page somewhere
    second, _ = await parlor.resume.issue(account.id)  # a newer one replaces it
    assert await parlor.resume.redeem(first) is None
    page, gmcp = await _page(parlor)
    await page.cmd(f"#resume {second}", r"Exits:")    # resumed: a new token is issued
    newest = await _token(gmcp)
    assert newest not in (first, second)
    third, _ = await parlor.resume.issue(account.id)
    assert await parlor.resume.redeem(newest) is None  # only the newest is ever good
    assert await parlor.resume.redeem(third) == account.id
    await page.close()


async def test_a_token_still_logs_its_page_back_in(parlor, clients):
    """The rotation ends other tokens, never the page's own: a drop, then back in."""
    await (await clients("Alice")).close()
    page, gmcp = await _page(parlor)
    await _log_in(page, "Alice")
    token = await _token(gmcp)
    await page.close()
    again, gmcp = await _page(parlor)
    await again.cmd(f"#resume {token}", r"Exits:")
    fresh = await _token(gmcp)
    await again.close()
    back, _ = await _page(parlor)
    await back.cmd(f"#resume {fresh}", r"Exits:")
    await back.close()
