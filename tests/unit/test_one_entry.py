"""A game has one entry (docs/design.md, principle 9): modules that serve every game name
none.

A game's own files are its package ``games/<game>/``, its service and models
(``server/services/<game>.py``, ``server/services/<game>_*.py``), its commands
(``commands/<game>.py``), its web templates (``server/web/templates/games/<key>/``), and
its line in ``commands/app.py``, where the application is assembled. Every other module
of ``server/`` and ``commands/``, and every other web template, is generic: this test
reads their code and templates (not docstrings, not comments) and counts the words that
name a game (its name, its key, its command prefix). It prints every place it finds.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GAMES = {"triptycha": "tt", "triad": "triad", "pyramid": "pyr", "dice": "dice"}
# Every word that names a game: names, keys, prefixes (TT, TRIAD, PYR, DICE)
NAMING = {*GAMES, *GAMES.values()}
# Triptycha's tile economy: its database hooks, under the name of what they keep
TRIPTYCHA_TILES = "server/services/tiles.py"
# Words of identifiers and text: ``pyramid_service`` and ``TriadTables`` are two words
# each, ``TTT`` (another game's prefix) is one.
WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def _own(rel: str) -> bool:
    """Whether the file at ``rel`` is one game's own."""
    path = Path(rel)
    if rel in ("commands/app.py", TRIPTYCHA_TILES):
        return True
    if path.parts[:4] == ("server", "web", "templates", "games"):
        return True
    stem = path.stem.split("_")[0]
    return stem in GAMES and path.parent.as_posix() in ("commands", "server/services")


def _generic_files() -> list[Path]:
    found = [*ROOT.glob("server/**/*.py"), *ROOT.glob("commands/**/*.py"),
             *ROOT.glob("server/web/templates/**/*.html")]
    return sorted(p for p in found if not _own(p.relative_to(ROOT).as_posix()))


def _naming(text: str) -> list[str]:
    return [w for w in WORD.findall(text) if w.lower() in NAMING]


def _docstrings(tree: ast.AST) -> set[tuple[int, int]]:
    """Where each docstring starts (line, column), as ``tokenize`` reports it."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):
                out.add((first.lineno, first.col_offset))
    return out


def _in_python(source: str) -> list[tuple[int, str]]:
    """(line, word) of each naming word in names and strings; comments are separate
    tokens and docstrings are skipped."""
    docs = _docstrings(ast.parse(source))
    hits = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.NAME or (tok.type == tokenize.STRING and tok.start not in docs):
            hits.extend((tok.start[0], w) for w in _naming(tok.string))
    return hits


def _in_template(source: str) -> list[tuple[int, str]]:
    """(line, word) of each naming word in a template, its comments blanked (kept as
    many lines, so the line numbers hold)."""
    def blank(match: re.Match) -> str:
        return "\n" * match.group(0).count("\n")
    source = re.sub(r"\{#.*?#\}|<!--.*?-->", blank, source, flags=re.S)
    return [(n, w) for n, line in enumerate(source.splitlines(), 1) for w in _naming(line)]


def game_names_in_generic_modules() -> dict[str, list[tuple[int, str]]]:
    """Every generic file that names a game, with where and which word."""
    found = {}
    for path in _generic_files():
        source = path.read_text(encoding="utf-8")
        hits = _in_python(source) if path.suffix == ".py" else _in_template(source)
        if hits:
            found[path.relative_to(ROOT).as_posix()] = hits
    return found


def test_the_count_sees_game_names_where_they_are():
    """The counter finds a name in code and skips docstrings and comments."""
    source = '"""Triptycha."""\nimport x  # Pyramid\nKEY = "dice"\npyramid_service = TriadTables\n'
    assert [w for _, w in _in_python(source)] == ["dice", "pyramid", "Triad"]
    assert _in_template('{# Triad #}\n<p class="board triptycha">TTT</p>') == [(2, "triptycha")]
    assert _own("commands/pyramid.py") and _own("server/services/pyramid_models.py")
    assert _own("server/web/templates/games/pyr/board.html")
    assert not _own("server/models.py") and not _own("commands/basics.py")


def test_generic_modules_name_no_game():
    found = game_names_in_generic_modules()
    count = sum(map(len, found.values()))
    print(f"\n{count} game name(s) in {len(found)} generic file(s)")
    for rel, hits in found.items():
        print(f"  {rel}: " + ", ".join(f"{line}:{word}" for line, word in hits))
    assert count == 0, f"{count} game name(s) in generic modules: {', '.join(found)}"


def test_each_game_is_hosted_from_its_play_spec():
    """A game says how it is played as data (``games/<game>/spec.py``); its service hosts
    that spec (``HostedGame``) and adds only what needs the parlor, rewiring nothing."""
    from commands.app import GAMES
    from server.hosting import GameKind, HostedGame

    for game in GAMES:
        kind = game.kind
        assert issubclass(kind, HostedGame), kind
        assert kind.spec.__class__.__module__ == "games.spec"
        assert (kind.key, kind.prefix, kind.title) == (kind.spec.key, kind.spec.prefix,
                                                       kind.spec.title)
        rewired = [name for name, value in vars(kind).items()
                   if isinstance(value, staticmethod) and hasattr(GameKind, name)]
        assert not rewired, f"{kind.__name__} rewires {', '.join(rewired)}"
