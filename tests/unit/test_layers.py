"""Layers point one way (DESIGN.md, principle 7): ``commands/`` -> ``server/`` -> ``games/``.

Every import of every module (at the top, inside functions, under ``TYPE_CHECKING``) is
read from the source with ``ast``; nothing is imported to find them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("commands", "server", "games")


def _modules(package: str) -> dict[str, Path]:
    found = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _imports(name: str, path: Path) -> set[str]:
    """The absolute names of the modules ``name`` imports (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            out.add(module)
            # ``from server import cli`` imports the module server.cli
            out.update(f"{module}.{alias.name}" for alias in node.names)
    return out


MODULES = {name: path for package in PACKAGES for name, path in _modules(package).items()}
IMPORTS = {name: _imports(name, path) for name, path in MODULES.items()}


def _top(module: str) -> str:
    return module.split(".", 1)[0]


def test_the_scan_sees_the_packages():
    assert {"commands.registry", "server.app", "server.hosting", "games.errors"} <= set(MODULES)
    assert "server.hosting" in IMPORTS["server.app"]


@pytest.mark.parametrize("name", [n for n in MODULES if _top(n) == "server"])
def test_server_never_imports_commands(name):
    wrong = sorted(m for m in IMPORTS[name] if _top(m) == "commands")
    assert not wrong, f"{name} imports {', '.join(wrong)}"


@pytest.mark.parametrize("name", [n for n in MODULES if _top(n) == "games"])
def test_games_import_nothing_of_the_project_but_games(name):
    project = {"commands", "server", "tests", "bench", "migrations"}
    wrong = sorted(m for m in IMPORTS[name] if _top(m) in project)
    assert not wrong, f"{name} imports {', '.join(wrong)}"


def test_no_import_cycle_between_the_top_level_packages():
    edges = {(_top(name), _top(m)) for name, imported in IMPORTS.items() for m in imported
             if _top(m) in PACKAGES and _top(m) != _top(name)}
    for a, b in edges:
        assert (b, a) not in edges, f"{a} and {b} import each other"
    # and no longer cycle: the edges must fit the order commands -> server -> games
    rank = {p: i for i, p in enumerate(PACKAGES)}
    backwards = sorted((a, b) for a, b in edges if rank[a] > rank[b])
    assert not backwards, f"imports against the layers: {backwards}"
