"""A game has one entry (docs/design.md, principle 9): modules that serve every game name
none.

A game's own files are its package ``games/<game>/``, its service and models
(``server/services/<game>.py``, ``server/services/<game>_*.py``), its commands
(``commands/<game>.py``), its web folder (``server/web/templates/games/<key>/``: its
templates, and its browser pane's script and styles), and its line in
``commands/app.py``, where the application is assembled. Every other module of
``server/`` and ``commands/``, every other web template, and the door's scripts and
styles (``server/web/static/``) are generic: this test reads their code, templates,
scripts and styles (not docstrings, not comments) and counts the words that name a game
(its package's name, its key, its command prefix; a key may have digits: ``c4``). The
games are those with a package (``games/<game>/spec.py``). It prints every place it finds.
"""

from __future__ import annotations

import ast
import importlib
import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _games() -> dict[str, tuple[str, str]]:
    """Each game package's name -> its key and its command prefix (its ``SPEC``)."""
    found = {}
    for spec in sorted(ROOT.glob("games/*/spec.py")):
        play = importlib.import_module(f"games.{spec.parent.name}.spec").SPEC
        found[spec.parent.name] = (play.key, play.prefix)
    return found


GAMES = _games()
# Every word that names a game: package names, keys, prefixes (TT, TRIAD, PYR, DICE)
NAMING = {word.lower() for name, (key, prefix) in GAMES.items() for word in (name, key, prefix)}
# Triptycha's tile economy: its database hooks, under the name of what they keep
TRIPTYCHA_TILES = "server/services/tiles.py"
# Words of identifiers and text: ``pyramid_service`` and ``TriadTables`` are two words
# each, ``TTT`` (another game's prefix) is one, and digits stay with the letters before
# them (``c4``, ``C4Board``: a key may have them).
WORD = re.compile(r"[A-Z]?[a-z]+[0-9]*|[A-Z]+[0-9]*(?![a-z])")
# The door's scripts and styles
SCRIPTS = (".js", ".css")


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
             *ROOT.glob("server/web/templates/**/*.html"),
             *(p for p in ROOT.glob("server/web/**/*") if p.suffix in SCRIPTS)]
    return sorted(p for p in found if not _own(p.relative_to(ROOT).as_posix()))


def _naming(text: str, naming: set[str] = NAMING) -> list[str]:
    return [w for w in WORD.findall(text) if w.lower() in naming]


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


def _in_script(source: str) -> list[tuple[int, str]]:
    """(line, word) of each naming word in a script or a style sheet, its comments
    (``//`` to the line's end, ``/* ... */``) blanked; a string is read whole, so a
    ``//`` inside one (an address) is no comment."""
    kept, i, n = [], 0, len(source)
    while i < n:
        c = source[i]
        if c in "'\"`":
            end = i + 1
            while end < n and source[end] != c:
                end += 2 if source[end] == "\\" else 1
            kept.append(source[i:end + 1])
            i = end + 1
        elif source.startswith("/*", i):
            end = source.find("*/", i + 2)
            end = n if end < 0 else end + 2
            kept.append("\n" * source.count("\n", i, end))
            i = end
        elif source.startswith("//", i):
            end = source.find("\n", i)
            i = n if end < 0 else end
        else:
            kept.append(c)
            i += 1
    text = "".join(kept)
    return [(n, w) for n, line in enumerate(text.splitlines(), 1) for w in _naming(line)]


def game_names_in_generic_modules() -> dict[str, list[tuple[int, str]]]:
    """Every generic file that names a game, with where and which word."""
    found = {}
    for path in _generic_files():
        source = path.read_text(encoding="utf-8")
        hits = (_in_python(source) if path.suffix == ".py" else
                _in_script(source) if path.suffix in SCRIPTS else _in_template(source))
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
    assert _own("server/web/templates/games/pyr/pane.js")
    assert not _own("server/models.py") and not _own("commands/basics.py")
    assert not _own("server/web/static/board.js")
    # scripts and styles: code and strings count, comments do not
    script = ('// Triad\nconst a = "dice"; /* Pyramid\n TT */ let url = "http://x//y";\n'
              'f(pyramidHidden); // TT\n.board.triptycha { } /* Dice */\n')
    assert _in_script(script) == [(2, "dice"), (4, "pyramid"), (5, "triptycha")]
    # a key with a digit is a word of its own: c4 in c4_board and C4Board, not in c44
    assert _naming("c4_board C4Board games/c4/ c44 connect4", {"c4"}) == ["c4", "C4", "c4"]
    assert GAMES["triptycha"] == ("tt", "TT") and "pyr" in NAMING


def test_generic_modules_name_no_game():
    found = game_names_in_generic_modules()
    count = sum(map(len, found.values()))
    print(f"\n{count} game name(s) in {len(found)} generic file(s)")
    for rel, hits in found.items():
        print(f"  {rel}: " + ", ".join(f"{line}:{word}" for line, word in hits))
    assert count == 0, f"{count} game name(s) in generic modules: {', '.join(found)}"


def test_each_game_is_hosted_from_its_play_spec():
    """A game says how it is played as data (``games/<game>/spec.py``); its service hosts
    that spec (``GameKind.spec``) and adds only what needs the parlor, rewiring nothing."""
    from commands.app import GAMES
    from server.hosting import GameKind

    for game in GAMES:
        kind = game.kind
        assert issubclass(kind, GameKind), kind
        assert kind.spec.__class__.__module__ == "games.spec"
        assert (kind.key, kind.prefix, kind.title) == (kind.spec.key, kind.spec.prefix,
                                                       kind.spec.title)
        rewired = [name for name, value in vars(kind).items()
                   if isinstance(value, staticmethod) and hasattr(GameKind, name)]
        assert not rewired, f"{kind.__name__} rewires {', '.join(rewired)}"
