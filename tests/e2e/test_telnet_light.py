"""An idle logged-in connection is kept small (server/telnet.py, server/session.py), and
telnet behaves as telnetlib3 does: the handlers each table resolves, GMCP and MSSP, a
window resized after login, a LINEMODE client's own character table."""

from __future__ import annotations

import asyncio

from telnetlib3.telopt import GMCP, LINEMODE, NAWS, TTYPE

from server.services.accounts import Member
from server.telnet import Writer
from tests.support.client import Client


def _session(parlor, name: str):  # noqa: ANN001, ANN202
    return next(s for s in parlor.online.sessions.values() if s.name == name)


async def test_a_logged_in_connection_holds_little_of_its_own(parlor, clients):
    await clients("Alice")
    session = _session(parlor, "Alice")
    protocol = session.terminal; writer = protocol.writer
    assert not hasattr(session, "__dict__")  # slots
    assert isinstance(session.account, Member)
    assert session._lines is None and session.watching == frozenset()
    mine = vars(writer)
    for table in Writer._HANDLER_TABLES:
        assert table not in mine
    for empty in ("always_will", "always_do", "rejected_will", "slctab", "ctx", "_linemode"):
        assert empty not in mine
    assert not writer._own_handlers  # every handler is the class's
    # what telnetlib3 kept per connection in a dict of 60 and 45 attributes
    assert len(mine) <= 24 and len(vars(protocol)) <= 20
    assert not any(v is False for v in writer.pending_option.values())


async def test_the_handler_tables_resolve_as_telnetlib3_wired_them(parlor, clients):
    await clients("Alice")
    session = _session(parlor, "Alice")
    protocol = session.terminal; writer = protocol.writer
    assert writer._iac_callback[b"\xf6"] == writer.handle_ayt  # IAC AYT
    assert writer._ext_callback[NAWS] == protocol.on_naws
    assert writer._ext_callback[TTYPE] == protocol.on_ttype
    assert writer._ext_callback[GMCP] == protocol.on_gmcp
    assert writer._ext_send_callback[NAWS] == writer.handle_send_naws
    assert b"\x00" not in writer._iac_callback and writer._iac_callback.get(b"\x00") is None

    def mine(*_args: object) -> None:
        return None

    writer.set_ext_callback(NAWS, mine)  # a handler of the connection's own is kept
    assert writer._ext_callback[NAWS] is mine and writer._own_handlers
    writer.set_ext_callback(NAWS, protocol.on_naws)  # and the class's again is not
    assert writer._ext_callback[NAWS] == protocol.on_naws and not writer._own_handlers


async def test_gmcp_mssp_and_a_resize_after_login_still_arrive(parlor):
    mud = await Client.connect_mud(parlor.port, cols=100)
    await mud.create("Mudder")
    for _ in range(40):
        if mud.mssp:
            break
        await asyncio.sleep(0.05)
    assert mud.mssp and mud.mssp[0]["NAME"] == "Esterport"
    mud.writer.send_gmcp("Core.Supports.Set", ["Esterport.Spoken 1"])
    await mud.cmd("look", "Exits:")
    session = _session(parlor, "Mudder")
    assert "esterport.spoken" in session.gmcp_supports
    assert session.width == 100
    mud.writer.protocol._extra["cols"] = 60  # the client's window shrinks: NAWS again
    mud.writer._send_naws()
    for _ in range(40):
        if session.width == 60:
            break
        await asyncio.sleep(0.05)
    assert session.width == 60
    await mud.close()


async def test_a_linemode_client_gets_its_own_character_table(parlor, clients):
    await clients("Alice")
    writer = _session(parlor, "Alice").terminal.writer
    shared = Writer.slctab
    writer.handle_will(LINEMODE)
    assert "slctab" in vars(writer) and writer.slctab is not shared
    assert Writer.slctab is shared


async def test_a_client_is_asked_only_for_its_language_and_terminal(parlor, clients):
    """NEW_ENVIRON asks for LANG, CHARSET and TERM, and keeps nothing else a client sends
    (telnetlib3 asked for a dozen names and whatever else the client volunteered, and kept
    it all in every connection)."""
    await clients("Alice")
    protocol = _session(parlor, "Alice").terminal
    assert protocol.on_request_environ() == ["LANG", "CHARSET", "TERM"]
    protocol.on_environ({"USER": "alice", "COLUMNS": "80", "lang": "en_US.UTF-8"})
    kept = {key for key in protocol._extra if key.isupper()}
    assert kept <= {"LANG", "CHARSET", "TERM"} and "LANG" in kept
