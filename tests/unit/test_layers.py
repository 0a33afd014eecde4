"""Layers point one way (docs/design.md, principle 7): ``commands/`` -> ``server/`` ->
``games/``.

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


# -- no import cycle between files ---------------------------------------------------------
# What runs when a module is imported: its imports at the top (in ``if``/``try`` blocks
# too), not those inside functions nor under ``if TYPE_CHECKING:``.
def _is_type_checking(test: ast.expr) -> bool:
    return ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
            or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def _at_import(body: list[ast.stmt]):  # noqa: ANN202
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If):
            if not _is_type_checking(node.test):
                yield from _at_import(node.body)
            yield from _at_import(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, *(h.body for h in node.handlers), node.orelse,
                          node.finalbody):
                yield from _at_import(block)


def _imported_at_import(name: str, path: Path) -> set[str]:
    """The project modules ``name`` imports when it is imported (``from server import
    cli`` is the module server.cli; ``from server.hosting import GameKind`` is
    server.hosting)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in _at_import(tree.body):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names if alias.name in MODULES)
            continue
        if node.level:
            base = package.split(".")
            base = base[:len(base) - node.level + 1]
            module = ".".join([*base, *([node.module] if node.module else [])])
        else:
            module = node.module or ""
        for alias in node.names:
            if f"{module}.{alias.name}" in MODULES:
                out.add(f"{module}.{alias.name}")
            elif module in MODULES:
                out.add(module)
    out.discard(name)
    return out


def import_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` (module -> the modules it imports), as the path that closes
    it (``[a, b, a]``), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        path.append(module)
        for other in sorted(graph.get(module, ())):
            if state.get(other) == 1:
                return path[path.index(other):] + [other]
            if other not in state:
                found = visit(other)
                if found:
                    return found
        path.pop()
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state:
            found = visit(module)
            if found:
                return found
    return None


def test_the_cycle_finder_finds_a_cycle():
    assert import_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert import_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_no_import_cycle_between_files():
    graph = {name: _imported_at_import(name, path) for name, path in MODULES.items()}
    assert "server.hosting" in graph["server.app"]
    cycle = import_cycle(graph)
    assert cycle is None, f"an import cycle: {' -> '.join(cycle)}"


# -- commands reach the parlor only through their Context (commands/registry.py) -------------
# registry.py builds the Context (and dispatches); app.py assembles the parlor itself.
BEHIND_THE_DOOR = {"commands.registry", "commands.app"}
HANDLER_MODULES = sorted(n for n in MODULES if _top(n) == "commands" and n not in BEHIND_THE_DOOR)


def _context_members() -> set[str]:
    """The public names ``Context`` defines (its fields, properties and methods)."""
    tree = ast.parse(MODULES["commands.registry"].read_text(encoding="utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Context")
    names = set()
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {n for n in names if not n.startswith("_")}


def test_the_context_keeps_the_parlor_private():
    members = _context_members()
    assert {"session", "command", "host", "accounts", "tell", "log_admin"} <= members
    assert "parlor" not in members


@pytest.mark.parametrize("name", HANDLER_MODULES)
def test_commands_never_reach_the_parlor(name):
    """No ``x.parlor`` (``ctx.parlor``, ``session.parlor``, ``ctx._parlor``) in a handler
    module: the Context is the only door from a command to the parlor."""
    path = MODULES[name]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    wrong = sorted(f"line {n.lineno}: .{n.attr}" for n in ast.walk(tree)
                   if isinstance(n, ast.Attribute) and n.attr in ("parlor", "_parlor"))
    assert not wrong, f"{name} reaches the parlor: {', '.join(wrong)}"


@pytest.mark.parametrize("name", HANDLER_MODULES)
def test_commands_use_only_what_the_context_offers(name):
    """Every ``ctx.<name>`` a handler reads is something ``Context`` defines."""
    members = _context_members()
    path = MODULES[name]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    wrong = sorted({f"ctx.{n.attr}" for n in ast.walk(tree)
                    if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                    and n.value.id == "ctx" and n.attr not in members})
    assert not wrong, f"{name} uses what Context does not offer: {', '.join(wrong)}"
