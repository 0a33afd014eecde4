"""Builds the Pyramid solver (games/pyramid/solver.py) as a C extension with mypyc, when
it can: the same code, about four times as fast.  Without mypyc, a C compiler, or should
mypyc refuse the module, the solver runs as plain Python.

Every build leaves a record beside the extension (games/pyramid/solver_build.json,
written by games/pyramid/solver_build.py): whether it succeeded, why not, and a hash of
every module the build was made from.  The server logs at start which solver runs, and
tests/unit/test_pyramid_solver.py fails when the build is missing or older than its
sources.  A failed build also says so on the terminal: `pip install -q` hides what this
script prints, so the warning is written to /dev/tty too."""

import contextlib
import importlib.util
import io
import re
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
PACKAGE = HERE / "games" / "pyramid"
# the record's helpers, loaded by path: nothing of the project is installed yet
_spec = importlib.util.spec_from_file_location("_solver_build", PACKAGE / "solver_build.py")
solver_build = sys.modules[_spec.name] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(solver_build)

# pip runs this script to ask for requirements and metadata before it builds; only the
# run that builds (wheel, editable wheel, build_ext) tells the terminal of a failure
BUILDING = any(cmd in sys.argv for cmd in ("build_ext", "build", "bdist_wheel",
                                           "editable_wheel", "install", "develop"))


def warn(message: str) -> None:
    """A warning pip -q does not hide: stderr (shown by pip -v) and the terminal."""
    text = f"warning: {message}\n"
    sys.stderr.write(text)
    if not BUILDING:
        return
    try:
        with open("/dev/tty", "w") as tty:  # pip captures stdout and stderr, not this
            tty.write(text)
    except OSError:  # no terminal (CI, a service): the server's start-up log says it
        pass


def failed(reason: str, directories) -> None:
    """Record a failed build (the server logs it at start) and say so."""
    for directory in directories:
        solver_build.write_record(directory, solver_build.make_record(False, reason, HERE))
    warn(f"the Pyramid solver runs as plain Python: the compiled build failed ({reason})")


class BuildSolver(build_ext):
    """build_ext that records, beside the extension, whether it was built and from what."""

    def run(self) -> None:
        self.failures: list[str] = []
        super().run()
        build_py = self.get_finalized_command("build_py")
        directories = set()
        for ext in self.extensions:
            inplace_file, regular_file = self._get_inplace_equivalent(build_py, ext)
            directories.add(Path(regular_file).parent)
            if self.inplace:
                directories.add(Path(inplace_file).parent)
        if self.failures:
            failed("; ".join(self.failures), directories)
            return
        for directory in directories:
            solver_build.write_record(directory, solver_build.make_record(True, "", HERE))

    def build_extension(self, ext) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:  # the optional extension's failure is then only logged
            compiler = getattr(self.compiler, "compiler_so", None) or ["the C compiler"]
            status = re.search(r"exit (?:status|code) (-?\d+)", str(exc))
            detail = (f"exited with status {status.group(1)}" if status else
                      f"failed: {str(exc).strip()[:200] or repr(exc)}")
            failure = (f"the C compiler {compiler[0]} {detail}; `pip install -v` shows "
                       "its messages")
            if failure not in self.failures:
                self.failures.append(failure)
            # an older build of it must not be packed or copied in its place
            Path(self.get_ext_fullpath(ext.name)).unlink(missing_ok=True)
            raise


# An editable install builds in place, next to the source.  A build left from an older
# source must not outlive a failed one: it would be imported instead of the new source.
for built in PACKAGE.glob("solver*.so"):
    built.unlink()
(PACKAGE / solver_build.RECORD).unlink(missing_ok=True)

ext_modules = []
reason = ""
captured = io.StringIO()  # mypy's messages, to repeat and to quote the first
try:
    from mypyc.build import mypycify

    # only the solver is compiled; the modules it imports stay plain Python, and their
    # types are read without reporting on them
    with contextlib.redirect_stdout(captured):
        ext_modules = mypycify(["--follow-imports=silent", "games/pyramid/solver.py"],
                               opt_level="3")
except ImportError as exc:
    reason = f"mypyc is not installed: {exc}"
except (Exception, SystemExit) as exc:  # mypyc exits on a type error
    errors = [line for line in captured.getvalue().splitlines() if "error:" in line]
    reason = "mypyc refused it: " + (errors[0] if errors else repr(exc))
sys.stdout.write(captured.getvalue())
if reason:
    failed(reason, [PACKAGE])
for ext in ext_modules:
    ext.optional = True  # no working C compiler: plain Python too (BuildSolver says so)

setup(ext_modules=ext_modules, cmdclass={"build_ext": BuildSolver})
