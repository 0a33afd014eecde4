"""What a player types, on its way in: plain ASCII is decoded (``LineReader.decode``)
and cleaned (``server.text.clean``) without the general machinery, to the same text."""

from __future__ import annotations

import codecs

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import server.telnet
import server.text
from server.telnet import LineReader
from server.text import clean


def _no(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
    pytest.fail("the general path was taken")


def test_a_plain_line_is_cleaned_as_it_is(monkeypatch):
    monkeypatch.setattr(server.text, "_ESCAPES", type("Never", (), {"sub": _no})())
    assert clean("say hello, world!") == "say hello, world!"
    assert clean("x" * 50, max_len=10) == "x" * 10


@settings(max_examples=500)
@given(st.text(st.characters(max_codepoint=0xff)))
def test_the_plain_path_cleans_as_the_general_one(text):
    general = server.text._ESCAPES.sub("", text.replace("\t", " "))
    if not general.isascii():
        general = general.translate(server.text._BLANK_LOOKING)
    general = "".join(ch for ch in general if ch.isprintable() or ch == " ")
    assert clean(text) == general or not text.isascii()


def test_ascii_bytes_are_decoded_without_a_decoder(monkeypatch):
    reader = LineReader(fn_encoding=lambda **kw: "utf-8")
    monkeypatch.setattr(server.telnet.codecs, "getincrementaldecoder", _no)
    assert reader.decode(b"look\r\n") == "look\r\n"
    assert reader._decoder is None


def test_a_character_split_between_reads_stays_whole():
    reader = LineReader(fn_encoding=lambda **kw: "utf-8")
    data = "h\u00e9\u65e5\r\n".encode()
    assert reader.decode(data[:2]) == "h" and reader._decoder is not None
    assert reader.decode(data[2:4]) == "\u00e9"  # the next bytes: ASCII or not, decoded on
    assert reader.decode(data[4:]) == "\u65e5\r\n" and reader._decoder is None
    assert reader.decode(b"ok\xff") == "ok\ufffd"
    assert codecs.lookup("utf-8")  # (the general path is still the codec's)
