"""LOOK's "Here:" line (``server.world.describe_room``) is laid out once per change of
the room, not on every LOOK, and still tells who is here after every arrival and
departure; the plain fill ``server.text`` uses for ASCII paragraphs gives what textwrap
gives."""

from __future__ import annotations

import gc
import re
import textwrap
import weakref
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import server.text
import server.world
from server.session import Session
from server.text import _fill, wrap
from server.world import World, describe_room
from tests.hardening.harness import FakeTerminal

WORLD = World.load()
HERE = re.compile(r"Here: (.*?)(?: and (\d+) others?)?\.$", re.DOTALL)


class Room:
    """A parlor with one room (the start) whose sessions the test moves in and out."""

    def __init__(self) -> None:
        config = SimpleNamespace(
            login=SimpleNamespace(lines_per_second=10.0),
            server=SimpleNamespace(commands_per_second=10.0, command_burst=10, max_line=2000))
        self.present: set[Session] = set()
        self.parlor = SimpleNamespace(world=WORLD, config=config, online=SimpleNamespace(
            in_room=lambda room: self.present))

    def player(self, name: str, *, inside: bool = True) -> Session:
        s = Session(self.parlor, FakeTerminal())
        s.name = name
        if inside:
            self.present.add(s)
        return s

    def here(self, viewer: Session) -> tuple[list[str], int]:
        """The names the viewer's LOOK shows, and the count of the others."""
        text = describe_room(self.parlor.world, self.parlor.online, viewer)
        line = text.split("Here: ", 1)
        if len(line) == 1:
            return [], 0
        match = HERE.match("Here: " + line[1].replace("\n", " "))
        assert match, text
        return match.group(1).split(", "), int(match.group(2) or 0)


@pytest.fixture(autouse=True)
def _fresh():
    server.world._HERE.clear()


def test_a_second_look_in_an_unchanged_room_wraps_nothing(monkeypatch):
    room = Room()
    alice = room.player("Alice")
    for name in ("Bob", "Carol", "Dave"):
        room.player(name)
    calls = []
    monkeypatch.setattr(server.world, "wrap",
                        lambda *a, **k: calls.append(a) or wrap(*a, **k))
    first = describe_room(room.parlor.world, room.parlor.online, alice)
    assert describe_room(room.parlor.world, room.parlor.online, alice) == first
    assert first.endswith("Here: Bob, Carol, Dave.")
    assert [a[0] for a in calls if a[0].startswith("Here:")] == ["Here: Bob, Carol, Dave."]


def test_arrivals_and_departures_change_the_line():
    room = Room()
    alice, bob = room.player("Alice"), room.player("Bob")
    assert room.here(alice) == (["Bob"], 0) and room.here(bob) == (["Alice"], 0)
    carol = room.player("Carol")
    assert room.here(alice) == (["Bob", "Carol"], 0)
    room.present.discard(bob)  # one leaves and another comes: the same count
    room.player("Dave")
    assert room.here(alice) == (["Carol", "Dave"], 0)
    assert room.here(carol) == (["Alice", "Dave"], 0)
    room.present.discard(carol)
    room.present.discard(next(s for s in room.present if s.name == "Dave"))
    assert room.here(alice) == ([], 0)
    outside = room.player("Eve", inside=False)  # not in the room: everyone is another
    assert room.here(outside) == (["Alice"], 0)


def test_a_crowd_names_people_who_are_here_and_counts_the_rest(monkeypatch):
    monkeypatch.setattr(server.world, "MAX_NAMES", 3)
    room = Room()
    people = [room.player(f"P{i:02d}") for i in range(10)]
    for viewer in people[:6]:
        names, more = room.here(viewer)
        assert len(names) == 3 and more == 6 and viewer.name not in names
        assert {s.name for s in room.present} >= set(names)
    for i in range(4):  # the named leave, one at a time, and others come: never stale
        shown, _more = room.here(people[-1])
        gone = next(s for s in room.present if s.name == shown[0])
        room.present.discard(gone)
        room.player(f"New{i}")
        names, more = room.here(people[-1])
        assert gone.name not in names and more == 6
        assert {s.name for s in room.present} >= set(names)
    monkeypatch.setattr(server.world, "MAX_NAMES", 20)  # everyone named, sorted
    names, more = room.here(people[-1])
    assert names == sorted(s.name for s in room.present if s is not people[-1]) and more == 0


def test_the_line_is_laid_out_for_each_width():
    room = Room()
    alice = room.player("Alice")
    for i in range(30):
        room.player(f"Player{i:02d}")
    for width in (40, 80, 120, 40):
        alice.width = width
        text = describe_room(room.parlor.world, room.parlor.online, alice)
        assert all(len(line) <= width for line in server.text.strip_sgr(text).split("\n"))
        here = text[text.index("Here: "):]
        assert here.split("\n") == wrap(here.replace("\n", " "), width)


def test_a_player_gone_is_not_kept_alive_by_the_line():
    room = Room()
    alice, bob = room.player("Alice"), room.player("Bob")
    assert room.here(alice) == (["Bob"], 0)
    gone = weakref.ref(bob)
    room.present.discard(bob)
    del bob
    gc.collect()
    assert gone() is None
    assert room.here(alice) == ([], 0)


# -- the plain fill --------------------------------------------------------------------------
WORDS = st.lists(st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1,
                         max_size=25), min_size=1, max_size=40)


@settings(max_examples=400)
@given(WORDS, st.integers(min_value=20, max_value=120), st.sampled_from(["", " ", "    "]))
def test_the_plain_fill_is_what_textwrap_gives(words, width, indent):
    para = " ".join(words)
    want = textwrap.wrap(para, width=width, subsequent_indent=indent, break_long_words=True,
                         break_on_hyphens=False)
    got = _fill(para, width, indent)
    if max(map(len, words)) > width - len(indent):
        assert got is None  # a word longer than a line: textwrap's rules
    else:
        assert got == want
    assert wrap(para, width, indent) == want


@pytest.mark.parametrize("para", ["two  spaces", " lead", "trail ", "tab\there", "é accent",
                                  "x" * 90])
def test_other_paragraphs_are_left_to_textwrap(para):
    assert _fill(para, 40, "") is None
    assert wrap(para, 40, cache=False) == (textwrap.wrap(
        para, width=40, break_long_words=True, break_on_hyphens=False) if para.isascii()
        else wrap(para, 40, cache=False))


def test_a_plain_paragraph_does_not_go_through_textwrap(monkeypatch):
    monkeypatch.setattr(server.text.textwrap, "wrap", lambda *a, **k: pytest.fail("textwrap"))
    assert wrap("Here: Alice, Bob and Carol.", 20, cache=False) == ["Here: Alice, Bob and",
                                                                    "Carol."]
