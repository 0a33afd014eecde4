"""What a new parlor does, and does not do, for a session it carries on after a restart:
the parts of a restart's gap that wait on the database or resend what the client has.

The whole restart (a holder, real clients, reloads and kills) is tests/e2e/test_restarts.py
and bench/reload.py; these check the pieces one at a time, in process."""

from __future__ import annotations

from alembic import command

from server.holder import messages
from server.holder.link import carried
from server.session import Session
from tests.hardening.conftest import quiet_config
from tests.hardening.harness import FakeTerminal, Harness


class Resumes:
    """Counts the resume tokens the parlor issues."""

    def __init__(self, parlor) -> None:  # noqa: ANN001
        self.issued = 0
        real = parlor.resume.issue

        async def issue(account_id: int) -> tuple[str, str]:
            self.issued += 1
            return await real(account_id)

        parlor.resume.issue = issue


async def carry_on(harness: Harness, name: str, digest: str | None) -> Session:
    """A /play page's session, as a new parlor carries it on (``enter(carried=True)``)."""
    parlor = harness.parlor
    account = await parlor.accounts.get(name)
    terminal = FakeTerminal()
    terminal.gmcp_on = True
    session = Session(parlor, terminal)
    session.gmcp_supports = frozenset({"esterport.resume"})
    session.resume_digest = digest
    parlor.connections.open.add(session)
    await parlor.connections.enter(session, account, carried=True)
    session.flush()
    return session


async def test_a_carried_page_keeps_its_resume_token_and_its_client_what_gmcp_told_it(sqlite_url):
    """A page carried on with its token's digest gets no new token in the gap (a write to
    the database each) and its client is not sent again what GMCP told it (its name, its
    room); one carried without a digest (from a parlor before this) is issued one."""
    harness = await Harness.start(quiet_config(sqlite_url))
    try:
        await harness.parlor.accounts.create("Pia", "secret1")
        await harness.parlor.accounts.create("Ned", "secret1")
        resumes = Resumes(harness.parlor)
        kept = await carry_on(harness, "Pia", "d" * 64)
        assert resumes.issued == 0 and kept.resume_digest == "d" * 64
        assert kept.terminal.gmcp == []
        assert "The parlor has restarted; carry on." in kept.terminal.data.decode("utf-8", "replace")
        fresh = await carry_on(harness, "Ned", None)
        assert resumes.issued == 1 and fresh.resume_digest
        assert [p for p, _ in fresh.terminal.gmcp] == ["Esterport.Resume"]
    finally:
        await harness.stop()


async def test_the_holder_keeps_the_digest_of_a_pages_resume_token(sqlite_url):
    """What the holder keeps of a session carries its resume token's digest, through the
    protocol's JSON, and a message from an older parlor without it reads as none."""
    harness = await Harness.start(quiet_config(sqlite_url))
    try:
        player = await harness.player("Pia")
        player.session.resume_digest = "e" * 64
        kept = carried(7, player.session)
        version, back = messages.decode(messages.encode(messages.Update(kept)))
        assert back.carried.resume_digest == "e" * 64
        older = messages.encode(messages.Update(messages.Carried(conn=7)))
        assert messages.decode(older)[1].carried.resume_digest == ""
    finally:
        await harness.stop()


async def test_a_schema_at_the_newest_revision_is_not_migrated_again(sqlite_url, monkeypatch):
    """A restart's new parlor finds the schema at the newest revision and leaves it, with
    no lock taken and no alembic run in the gap; its migrations' files were read once."""
    harness = await Harness.start(quiet_config(sqlite_url))
    try:
        db = harness.parlor.db
        assert db.newest_revision()

        def no_upgrade(*args, **kwargs):  # noqa: ANN002, ANN003
            raise AssertionError("alembic ran on a schema at the newest revision")

        def no_lock(key: int):  # noqa: ANN202
            raise AssertionError("the migration lock was taken")

        monkeypatch.setattr(command, "upgrade", no_upgrade)
        monkeypatch.setattr(db, "exclusive", no_lock)
        await db.migrate()
    finally:
        await harness.stop()

