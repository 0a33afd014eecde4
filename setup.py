"""Builds the Pyramid solver's search as a C extension with mypyc, when it can."""

from setuptools import setup

try:
    from mypyc.build import mypycify
except ImportError:  # no mypyc: the solver runs as plain Python
    ext_modules = []
else:
    ext_modules = mypycify(["--follow-imports=silent", "games/pyramid/solver.py"], opt_level="3")
    for ext in ext_modules:
        ext.optional = True  # no C compiler: the solver runs as plain Python

setup(ext_modules=ext_modules)
