"""What the holder and the parlor say to each other (server/holder/messages.py), and the
channel that carries it with a descriptor (server/holder/channel.py)."""

from __future__ import annotations

import asyncio
import json
import os
import socket

import pytest

from server.holder import messages
from server.holder.channel import Channel, pair
from server.holder.messages import (Carried, HandedOver, Hello, Hold, Release, Reload, Resume,
                                    Resumed, Stop, Update, Window)

CARRIED = Carried(conn=7, address="203.0.113.9", port=4711, account=42,
                  window=Window(cols=100, rows=40), terminal="XTERM", gmcp=True,
                  supports=("esterport.spoken",), client="Mudlet 4.17", pending="say hi\n")


@pytest.mark.parametrize("message", [
    Hello(pid=123), Hold(CARRIED), Update(CARRIED), Release(conn=7), HandedOver(),
    Resume(CARRIED), Resumed(count=3, next_conn=9), Reload(), Stop(),
])
def test_every_message_round_trips(message):
    version, back = messages.decode(messages.encode(message))
    assert version == messages.VERSION and back == message


def test_a_newer_field_is_ignored_and_a_missing_one_defaults():
    """An older parlor reads a newer holder's message (and the other way round)."""
    body = json.loads(messages.encode(Update(CARRIED)))
    body["carried"]["colour_depth"] = 256           # a field a later release adds
    del body["carried"]["client"]                   # one an earlier release lacked
    body["v"] = messages.VERSION + 1
    version, back = messages.decode(json.dumps(body).encode())
    assert version == messages.VERSION + 1
    assert back.carried.client is None and back.carried.window == Window(100, 40)


@pytest.mark.parametrize("data", [b"", b"not json", b"[]", b'{"type": "Hello"}',
                                  b'{"type": "Teleport", "v": 1}',
                                  b'{"type": "Release", "v": 1, "conn": {"a": 1}, "x": 2}',
                                  b'{"type": "Hello", "v": 1, "nope": 1}'])
def test_what_is_not_a_message_is_one_clear_error(data):
    with pytest.raises(messages.Unknown):
        messages.decode(data)


async def test_the_channel_carries_messages_in_order_with_a_descriptor():
    """A thousand messages queued in one turn (more than the socket buffer holds at
    once) arrive whole and in order; a descriptor sent with one is the same socket."""
    ours, theirs = pair()
    got: list = []
    done = asyncio.Event()

    def received(message, fd):  # noqa: ANN001
        got.append((message, fd))
        if isinstance(message, Stop):
            done.set()

    sender = Channel(ours, lambda m, fd: None, lambda: None)
    receiver = Channel(theirs, received, lambda: None)
    left, right = socket.socketpair()
    try:
        sender.send(Hold(CARRIED), left.fileno())
        left.close()   # the channel sent its own duplicate
        for n in range(1000):
            sender.send(Release(conn=n))
        sender.send(Stop())
        async with asyncio.timeout(10):
            await done.wait()
        assert await sender.drained(5)
        (first, fd), *rest = got
        assert first == Hold(CARRIED) and fd is not None
        assert [m.conn for m, _ in rest[:-1]] == list(range(1000))
        os.write(fd, b"through the holder")
        assert right.recv(100) == b"through the holder"
        os.close(fd)
    finally:
        right.close()
        sender.close()
        receiver.close()


async def test_the_other_end_gone_is_said_once():
    ours, theirs = pair()
    gone = asyncio.Event()
    calls = []
    channel = Channel(ours, lambda m, fd: None, lambda: (calls.append(1), gone.set()))
    theirs.close()
    async with asyncio.timeout(5):
        await gone.wait()
    channel.send(Stop())   # nothing to send to: dropped, no error
    assert calls == [1] and channel.closed
