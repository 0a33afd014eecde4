"""A /play WebSocket a held parlor takes over (server/web/held.py): the bytes of a frame
not yet whole travel with the session, and the next parlor reads on from them."""

from __future__ import annotations

import asyncio
import base64

from websockets.frames import Frame, Opcode
from websockets.protocol import Protocol, Side, State

from server.holder.messages import Carried
from server.web.held import ResumedWebSocket, wire_size


class Transport(asyncio.Transport):
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
    before = ResumedWebSocket(Carried(conn=1, websocket=True), max_size=1 << 16)
    before.connection_made(Transport())
    before.data_received(wire[:12 + 100])      # the first whole, the second begun
    assert (await before.receive())["bytes"] == b"look\r\n"
    assert before.tail == wire[12:112] and before.still
    before.hold_still()
    assert before.transport.paused
    carried = Carried(conn=1, websocket=True, stream=base64.b64encode(before.tail).decode())
    after = ResumedWebSocket(carried, max_size=1 << 16)
    after.connection_made(Transport())
    after.data_received(wire[112:])           # the rest, from the socket
    assert (await after.receive())["bytes"] == long
    assert after.tail == b""


async def test_a_resumed_socket_answers_pings_sends_binary_and_closes_cleanly():
    side = ResumedWebSocket(Carried(conn=2, address="198.51.100.7", port=5000,
                                    websocket=True), max_size=1 << 16)
    transport = Transport()
    side.connection_made(transport)
    assert (side.client.host, side.client.port) == ("198.51.100.7", 5000)
    client = Protocol(Side.CLIENT, state=State.OPEN)
    client.send_ping(b"hi")
    side.data_received(b"".join(client.data_to_send()))
    await side.send_bytes(b"\xff\xfb\x01Name: ")
    await side.close(1000)
    frames = sent_by_server(bytes(transport.written))
    assert [(f.opcode, bytes(f.data)) for f in frames[:2]] == [
        (Opcode.PONG, b"hi"), (Opcode.BINARY, b"\xff\xfb\x01Name: ")]
    assert frames[2].opcode is Opcode.CLOSE
    client.send_close(1000)   # the browser's answer ends it
    side.data_received(b"".join(client.data_to_send()))
    assert (await side.receive())["type"] == "websocket.disconnect"
    assert transport.closed
    side.connection_lost(None)   # (the timer's abort, had the answer not come)


async def test_what_a_browser_may_not_send_ends_the_session_not_the_parlor():
    side = ResumedWebSocket(Carried(conn=3, websocket=True), max_size=64)
    side.connection_made(Transport())
    side.data_received(browser_frames(b"y" * 100))   # over max_size
    assert (await side.receive()) == {"type": "websocket.disconnect", "code": 1009}
