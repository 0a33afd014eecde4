"""Mudlet as far as the Esterport package goes: the package's script run by a Lua 5.1
interpreter under a small fake of Mudlet's API (``mudlet_fake.lua``), fed the GMCP a
real client received, and read back: what the script sent, what it wrote to the main
window, and its own window's title and text."""

from __future__ import annotations

import asyncio
import io
import math
import zipfile
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import attrs

FAKE = Path(__file__).parent / "mudlet_fake.lua"
WITHIN = 10.0  # seconds the interpreter has to answer one command


def lua_literal(value: Any) -> str:
    """A JSON value as a Lua expression, read as Mudlet reads GMCP's JSON: arrays from
    1, null as ``NULL`` (Mudlet's yajl.null: neither nil nor a table)."""
    if value is None:
        return "NULL"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        assert math.isfinite(value), value
        return repr(value)
    if isinstance(value, str):
        return '"' + "".join(chr(b) if 32 <= b < 127 and b not in (34, 92) else f"\\{b:03d}"
                             for b in value.encode("utf-8")) + '"'
    if isinstance(value, list):
        return "{" + ", ".join(lua_literal(item) for item in value) + "}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"[{lua_literal(str(k))}] = {lua_literal(v)}"
                               for k, v in value.items()) + "}"
    raise TypeError(f"not a JSON value: {value!r}")


def package_script(data: bytes) -> str:
    """The Lua Mudlet runs from a ``.mpackage``: the scripts of its XML, in order."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        root = ElementTree.fromstring(archive.read("esterport.xml"))
    return "\n".join(script.findtext("script") or "" for script in root.iter("Script"))


@attrs.frozen
class Report:
    """What one command left: GMCP the script sent, text written to the main window,
    and its window's title and lines."""

    sent: tuple[str, ...]
    main: tuple[str, ...]
    title: str
    text: tuple[str, ...]


class FakeMudlet:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.sent: list[str] = []   # every sendGMCP, in order
        self.main: list[str] = []   # everything written to the main window

    @classmethod
    async def start(cls, lua: str, script: Path) -> tuple["FakeMudlet", Report]:
        """Run ``script`` under the fake with the interpreter ``lua``; the report of its
        loading."""
        process = await asyncio.create_subprocess_exec(
            lua, str(FAKE), str(script), stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        me = cls(process)
        return me, await me._report()

    async def gmcp(self, package: str, data: Any) -> Report:
        return await self._command(f"GMCP {package} {lua_literal(data)}")

    async def event(self, name: str, argument: str = "") -> Report:
        return await self._command(f"EVENT {name} {argument}".rstrip())

    async def _command(self, line: str) -> Report:
        assert "\n" not in line
        self.process.stdin.write(line.encode("utf-8") + b"\n")
        await self.process.stdin.drain()
        return await self._report()

    async def _report(self) -> Report:
        sent, main, title, text = [], [], "", []
        while True:
            raw = await asyncio.wait_for(self.process.stdout.readline(), WITHIN)
            if not raw:
                err = await asyncio.wait_for(self.process.stderr.read(), WITHIN)
                raise AssertionError(f"the Lua interpreter stopped: {err.decode()}")
            line = raw.decode("utf-8").rstrip("\n")
            word, _, rest = line.partition(" ")
            if word == "END":
                break
            if word == "SEND":
                sent.append(rest)
            elif word == "MAIN":
                main.append(rest)
            elif word == "TITLE":
                title = rest
            elif word == "TEXT":
                text.append(rest)
        self.sent.extend(sent)
        self.main.extend(main)
        return Report(tuple(sent), tuple(main), title, tuple(text))

    async def close(self) -> None:
        if self.process.returncode is None:
            self.process.stdin.close()
            try:
                await asyncio.wait_for(self.process.wait(), WITHIN)
            except asyncio.TimeoutError:
                self.process.kill()
                await self.process.wait()
