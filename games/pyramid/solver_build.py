"""Which Pyramid solver runs: the compiled build or plain Python, and whether the build
is current.

``setup.py`` compiles ``games/pyramid/solver.py`` with mypyc into a C extension. mypyc
compiles that one module, but it reads the types of every project module the solver
imports (and of theirs, and of their packages) and builds their constants into the C
code: the build is made from all of them. When it builds, ``setup.py`` writes a record
beside the extension (``solver_build.json``): whether the build succeeded, why not when
it failed, and a SHA-256 of each of those modules. :func:`status` compares the record
with the sources as they are now; :func:`describe` is the line the server logs at start.

The standard library only: ``setup.py`` loads this file by its path, before anything of
the project is installed.
"""

from __future__ import annotations

import ast
import hashlib
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path

RECORD = "solver_build.json"
HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]  # the folder holding ``games/``
SOLVER = "games/pyramid/solver.py"
REBUILD = "pip install -e . again (in the project folder)"


def _module_file(root: Path, module: str) -> Path | None:
    """The file of project module ``module`` under ``root`` (None: not the project's)."""
    base = root.joinpath(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _imports(tree: ast.AST) -> set[str]:
    """Every module an import statement anywhere in ``tree`` names (absolute imports;
    the project uses no relative ones), with ``from a import b``'s ``a.b`` too."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module)
            out.update(f"{node.module}.{alias.name}" for alias in node.names)
    return out


def build_sources(root: Path = ROOT) -> list[str]:
    """The modules the build is made from, as paths relative to ``root``, sorted: the
    solver, every project module it imports (directly or not) and their packages'
    ``__init__.py`` -- what mypyc reads when it compiles the solver."""
    found: set[Path] = set()
    todo = [root / SOLVER]
    while todo:
        path = todo.pop()
        if path in found:
            continue
        found.add(path)
        parts = path.relative_to(root).parts
        for depth in range(1, len(parts)):  # the packages holding it
            init = root.joinpath(*parts[:depth], "__init__.py")
            if init.is_file():
                todo.append(init)
        tree = ast.parse(path.read_bytes(), str(path))
        for module in _imports(tree):
            if module.split(".")[0] == parts[0]:  # the project's own package (games)
                target = _module_file(root, module)
                if target is not None:
                    todo.append(target)
    return sorted(p.relative_to(root).as_posix() for p in found)


def digests(root: Path = ROOT) -> dict[str, str]:
    """SHA-256 of each module the build is made from, by path."""
    return {name: hashlib.sha256((root / name).read_bytes()).hexdigest()
            for name in build_sources(root)}


def make_record(compiled: bool, reason: str = "", root: Path = ROOT) -> dict:
    """What ``setup.py`` writes: whether the build succeeded, why not, and the sources'
    digests (taken at build time, from the files the build read)."""
    return {"compiled": compiled, "reason": reason, "sources": digests(root)}


def write_record(directory: Path, record: dict) -> Path:
    path = Path(directory) / RECORD
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path


def read_record(directory: Path = HERE) -> dict | None:
    try:
        return json.loads((Path(directory) / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


@dataclass(frozen=True)
class Status:
    """``compiled``: the solver imported is the C extension. ``record``: what the last
    build wrote (None: no build was recorded here). ``changed``: the modules whose
    source differs from what the build was made from (added or gone ones too)."""

    compiled: bool
    record: dict | None
    changed: tuple[str, ...] = field(default=())

    @property
    def current(self) -> bool:
        """The compiled build runs, and it was made from the sources as they are."""
        return (self.compiled and self.record is not None and bool(self.record.get("compiled"))
                and not self.changed)

    @property
    def reason(self) -> str:
        return (self.record or {}).get("reason", "")


def status(compiled: bool | None = None, directory: Path = HERE, root: Path = ROOT) -> Status:
    """The solver's build as it stands (``compiled``: default, whether the imported
    ``games.pyramid.solver`` is the extension)."""
    if compiled is None:
        from games.pyramid.solver import COMPILED
        compiled = COMPILED
    record = read_record(directory)
    changed: tuple[str, ...] = ()
    if record is not None and record.get("compiled"):
        built = record.get("sources", {})
        now = digests(root)
        changed = tuple(sorted(name for name in set(built) | set(now)
                               if built.get(name) != now.get(name)))
    return Status(compiled, record, changed)


def describe(st: Status | None = None) -> tuple[int, str]:
    """The log level and the line that says which solver runs."""
    st = status() if st is None else st
    built = st.record is not None and bool(st.record.get("compiled"))
    if st.compiled and not built:
        return logging.WARNING, ("the Pyramid solver is a compiled build that recorded no "
                                 f"sources, so it may be older than them: run {REBUILD}")
    if st.compiled and st.changed:
        return logging.WARNING, ("the Pyramid solver is a compiled build older than its "
                                 f"sources ({', '.join(st.changed)} changed since): the "
                                 f"build runs, not those changes; run {REBUILD}")
    if st.compiled:
        return logging.INFO, "the Pyramid solver is the compiled build (mypyc)"
    if st.record is None:
        return logging.INFO, ("the Pyramid solver runs as plain Python (it was not built "
                              f"here: {REBUILD} compiles it)")
    if not built:
        return logging.WARNING, ("the Pyramid solver runs as plain Python: the compiled "
                                 f"build failed ({st.reason or 'no reason recorded'})")
    return logging.WARNING, ("the Pyramid solver runs as plain Python: its compiled build "
                             f"is missing; run {REBUILD}")
