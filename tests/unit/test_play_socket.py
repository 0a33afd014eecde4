"""A /play session's socket (``server/web/play.py``, ``PlaySocket``), on its own: the
frames it reads go to the telnet protocol as they arrive, what that protocol writes in
a turn goes out as one binary message, and in a held parlor the bytes of a frame not
yet whole travel with the session so that the next parlor reads on from them."""

from __future__ import annotations

import asyncio
import base64
import types

from websockets.frames import Frame, Opcode
from websockets.protocol import Protocol, Side, State

from server.holder.messages import Carried
from server.web.held import wire_size
from server.web.play import PlaySocket


class Transport(asyncio.Transport):
    """The socket's transport: what is written, and whether it reads."""

    def __init__(self) -> None:
        super().__init__()
        self.written = bytearray()
        self.closed = self.paused = False

    def write(self, data) -> None:  # noqa: ANN001
        self.written += data

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.closed = True

    def pause_reading(self) -> None:
        self.paused = True

    def resume_reading(self) -> None:
        self.paused = False

    def get_write_buffer_size(self) -> int:
        return 0


class Telnet:
    """The telnet protocol the session runs on, as far as the socket sees it."""

    def __init__(self) -> None:
        self.read: list[bytes] = []
        self.ended = False
        self._transport = None
        self.pause_on_read = False

    def connection_made(self, transport) -> None:  # noqa: ANN001
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        self.read.append(data)
        if self.pause_on_read:
            self._transport.pause_reading()

    def connection_lost(self, exc) -> None:  # noqa: ANN001
        self.ended = True
        self._transport = None


def parlor(max_message: int = 1 << 16, per_second: float = 100.0, burst: int = 100):
    """The parlor as a /play session sees it: its [web] settings and its telnet side."""
    web = types.SimpleNamespace(max_message=max_message, messages_per_second=per_second,
                                message_burst=burst)
    shell = types.SimpleNamespace(config=types.SimpleNamespace(web=web), holder=None,
                                  handing_over=False, telnets=[])

    def telnet_connection() -> Telnet:
        shell.telnets.append(Telnet())
        return shell.telnets[-1]

    shell.telnet_connection = telnet_connection
    return shell


def opened(shell, *, carried: Carried | None = None, max_size: int = 1 << 16,  # noqa: ANN001
           held: bool = True) -> tuple[PlaySocket, Transport]:
    conn = Protocol(Side.SERVER, state=State.OPEN, max_size=max_size)
    first = base64.b64decode(carried.stream) if carried and carried.stream else b""
    session = PlaySocket(shell, conn, ("198.51.100.7", 5000), held=held, carried=carried,
                         first=first)
    transport = Transport()
    session.connection_made(transport)
    return session, transport


def browser_frames(*messages: bytes) -> bytes:
    """What a browser sends: each message in one masked binary frame."""
    client = Protocol(Side.CLIENT, state=State.OPEN)
    for message in messages:
        client.send_binary(message)
    return b"".join(client.data_to_send())


def sent_by_server(data: bytes) -> list[Frame]:
    client = Protocol(Side.CLIENT, state=State.OPEN)
    client.receive_data(data)
    return client.events_received()


async def test_a_frame_cut_by_a_hand_over_is_read_whole_by_the_next_parlor():
    long = b"say " + b"x" * 300 + b"\r\n"   # a 2-byte length: 8 bytes of head
    wire = browser_frames(b"look\r\n", long)
    assert wire_size(Frame(Opcode.BINARY, b"look\r\n")) == 12
    shell = parlor()
    before, transport = opened(shell)
    before.data_received(wire[:12 + 100])      # the first whole, the second begun
    assert shell.telnets[0].read == [b"look\r\n"]
    assert before.side is before and before.tail == wire[12:112]
    await before.hold_still()
    assert transport.paused
    before.let_go()
    assert before.handed_over and transport.closed and not shell.telnets[0].ended
    carried = Carried(conn=1, websocket=True, stream=base64.b64encode(before.tail).decode())
    after, _ = opened(shell, carried=carried)
    after.data_received(wire[112:])           # the rest, from the socket
    assert shell.telnets[1].read == [long]
    assert after.tail == b""


async def test_what_is_written_in_a_turn_goes_as_one_message_and_pings_are_answered():
    shell = parlor()
    session, transport = opened(shell)
    client = Protocol(Side.CLIENT, state=State.OPEN)
    client.send_ping(b"hi")
    session.data_received(b"".join(client.data_to_send()))
    session.write(b"\xff\xfb\x01")
    session.write(b"Name: ")
    assert session.get_write_buffer_size() == 9
    await asyncio.sleep(0)   # the turn ends
    session.close()
    frames = sent_by_server(bytes(transport.written))
    assert [(f.opcode, bytes(f.data)) for f in frames[:2]] == [
        (Opcode.PONG, b"hi"), (Opcode.BINARY, b"\xff\xfb\x01Name: ")]
    assert frames[2].opcode is Opcode.CLOSE
    assert not shell.telnets[0].ended   # until the browser answers
    client.send_close(1000)
    session.data_received(b"".join(client.data_to_send()))
    assert shell.telnets[0].ended and transport.closed
    session.connection_lost(None)   # (the timer's abort, had the answer not come)


async def test_input_waits_while_the_session_takes_none_and_comes_in_order():
    shell = parlor()
    session, transport = opened(shell)
    telnet = shell.telnets[0]
    telnet.pause_on_read = True
    session.data_received(browser_frames(b"one\r\n", b"two\r\n", b"three\r\n"))
    assert telnet.read == [b"one\r\n"] and transport.paused
    telnet.pause_on_read = False
    session.resume_reading()
    assert telnet.read == [b"one\r\n", b"two\r\n", b"three\r\n"] and not transport.paused


async def test_a_hand_over_gives_the_session_all_that_was_read():
    shell = parlor()
    session, transport = opened(shell)
    telnet = shell.telnets[0]
    telnet.pause_on_read = True   # a busy session
    session.data_received(browser_frames(b"one\r\n", b"two\r\n"))
    assert telnet.read == [b"one\r\n"]
    await session.hold_still()
    assert telnet.read == [b"one\r\n", b"two\r\n"] and transport.paused


async def test_what_a_browser_may_not_send_ends_the_session_not_the_parlor():
    shell = parlor()
    session, transport = opened(shell, max_size=64)
    session.data_received(browser_frames(b"y" * 100))   # over max_size
    frames = sent_by_server(bytes(transport.written))
    assert frames[-1].opcode is Opcode.CLOSE and frames[-1].data[:2] == b"\x03\xf1"  # 1009
    assert shell.telnets[0].ended


async def test_too_many_messages_close_the_socket_with_the_reason():
    shell = parlor(per_second=1.0, burst=2)
    session, transport = opened(shell)
    session.data_received(browser_frames(b"a", b"b", b"c", b"d"))
    assert shell.telnets[0].read == [b"a", b"b"]
    frames = sent_by_server(bytes(transport.written))
    assert frames[-1].opcode is Opcode.CLOSE
    assert b"more than 1 messages a second" in bytes(frames[-1].data)
