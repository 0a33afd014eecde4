"""A test whose fixture's teardown hangs fails after its time, saying where it waited.

The suite's configuration (pyproject.toml: pytest-timeout, fixtures included) and its
plugin (tests/support/hangs.py) run here on a small test file of their own, in a child
pytest: its async fixture's teardown waits for ever, as the cluster fixtures' did.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

HUNG = '''
import asyncio
import pytest


async def never_set():
    await asyncio.Event().wait()


@pytest.fixture
async def node():
    yield "alpha"
    await never_set()  # a stop that never returns


async def test_with_a_node(node):
    assert node == "alpha"


def test_after_it():
    pass
'''


def test_a_hung_teardown_fails_with_the_stack_of_what_it_awaited(tmp_path):
    (tmp_path / "test_hung.py").write_text(textwrap.dedent(HUNG))
    options = ["asyncio_mode=auto", "asyncio_default_fixture_loop_scope=function",
               "timeout=3", "timeout_method=signal", "timeout_func_only=false"]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "tests.support.hangs",
         "-c", os.devnull, "--rootdir", str(tmp_path), *(f"-o{o}" for o in options),
         "-q", str(tmp_path / "test_hung.py")],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
        text=True, timeout=120)
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "2 passed, 1 error" in out, out  # its call passed; its teardown failed; the next ran
    assert "Timeout: test_hung.py::test_with_a_node ran over 3 s" in out, out
    assert "in node" in out and "in never_set" in out, out  # the awaiting chain, task by task
    assert "asyncio task(s) of" in out, out
