"""Builds the Pyramid solver (games/pyramid/solver.py) as a C extension with mypyc, when
it can: the same code, about four times as fast.  Without mypyc, a C compiler, or should
mypyc refuse the module, the solver runs as plain Python (``solver.COMPILED`` says
which; tests/unit/test_pyramid_solver.py checks the build is there and current)."""

import sys
from pathlib import Path

from setuptools import setup

# An editable install builds in place, next to the source.  A build left from an older
# source must not outlive a failed one: it would be imported instead of the new source.
for built in Path(__file__).parent.glob("games/pyramid/solver*.so"):
    built.unlink()

ext_modules = []
try:
    from mypyc.build import mypycify

    # only the solver is compiled; the modules it imports stay plain Python, and their
    # types are read without reporting on them
    ext_modules = mypycify(["--follow-imports=silent", "games/pyramid/solver.py"],
                           opt_level="3")
except (Exception, SystemExit) as exc:  # no mypyc; or it exits on a type error
    print(f"warning: the Pyramid solver stays plain Python: {exc!r}", file=sys.stderr)
for ext in ext_modules:
    ext.optional = True  # no working C compiler: plain Python too

setup(ext_modules=ext_modules)
