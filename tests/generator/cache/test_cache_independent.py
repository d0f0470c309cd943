"""A build's answer never depends on the cache (issue 35, item 2), on the synthetic corpora:
a cold build, a warm one, a ``--no-cache`` one, a cold one under another hash seed and a warm
one from the cache that one made give the same exit code, diagnostics and tree. The same check
runs on every published server of ``nox -s realworld`` (``check_cache_independence``).

The corpora include modules whose tools the generator reports (a form it cannot read, found
only by importing the module): before the fix, the cold build reported them and the warm
build, which imports nothing, wrote a tree without them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.realworld.check_realworld import Outcome, check_cache_independence, codegen
from tests.helpers.corpus import FIXTURES

pytestmark = [pytest.mark.process, pytest.mark.slow]

INSPECTION = Path(__file__).resolve().parents[1] / "inspection"

#: (corpus directory, its import package, flavor, the cold build's exit code)
CORPORA = [
    (INSPECTION / "forms_sdk", "forms_sdk", "mcp", 2),
    (FIXTURES / "published" / "patterns_errors", "published.patterns_errors", "mcp", 2),
    (FIXTURES / "published" / "fastmcp_style", "published.fastmcp_style", "fastmcp", 0),
    (FIXTURES / "hashseed" / "hashseed_tools", "hashseed.hashseed_tools", "clean", 0),
]


@pytest.mark.parametrize(
    ("corpus", "package", "flavor", "exit_code"), CORPORA, ids=[c[1] for c in CORPORA]
)
def test_the_cache_never_changes_the_answer(
    tmp_path: Path, corpus: Path, package: str, flavor: str, exit_code: int
) -> None:
    target = tmp_path.joinpath(*package.split("."))
    shutil.copytree(corpus, target, ignore=shutil.ignore_patterns("__pycache__"))
    for parent in target.relative_to(tmp_path).parents:
        (tmp_path / parent / "__init__.py").touch()
    (tmp_path / "pyproject.toml").write_text(
        "[tool.mcp-codegen]\n"
        f'sources = ["{target.relative_to(tmp_path).as_posix()}"]\n'
        f'output = "generated"\nflavor = "{flavor}"\n',
        encoding="utf-8",
    )
    cold = codegen(tmp_path, "generate")
    assert cold.returncode == exit_code, cold.stderr
    out = Outcome(package, package, "0", flavor)
    check_cache_independence(tmp_path, cold, out)
    assert not out.problems, "\n".join(out.problems)
    assert out.cache_independent


TOOL_CLASSES = FIXTURES / "published" / "forms" / "j_tool_classes"
#: the factory's module re-exports the server class of another module (``jt.core``, which does
#: the registering), and imports the tool classes: no frame of the registrations is in it
FACTORY_MODULE = """
from jt.core import NotesServer
from jt.tools.admin import AdminTools
from jt.tools.notes import NoteTools

__all__ = ["AdminTools", "NoteTools", "NotesServer"]
"""


def _answer(root: Path, *args: str) -> tuple[int, list[str], dict[str, bytes]]:
    """A build's exit code, diagnostics and tree."""
    shutil.rmtree(root / "generated", ignore_errors=True)
    done = codegen(root, "generate", *args)
    out = root / "generated"
    tree = {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*.py"))}
    return done.returncode, done.stderr.splitlines(), tree


def _tool_classes_project(root: Path) -> Path:
    """Form (j) as package ``jt`` under ``root`` (its SDK 2.x server module as ``jt.core``),
    configured with the factory ``jt.server:NotesServer('notes').mcp``; returns the package."""
    package = root / "jt"
    shutil.copytree(TOOL_CLASSES, package, ignore=shutil.ignore_patterns("__pycache__"))
    for path in package.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("published.forms.j_tool_classes", "jt"), encoding="utf-8")
    (package / "server_sdk2.py").rename(package / "core.py")
    (root / "pyproject.toml").write_text(
        "[tool.mcp-codegen]\n"
        'sources = ["jt/server.py", "jt/tools"]\n'
        'output = "generated"\nflavor = "mcp"\n'
        "factories = [\"jt.server:NotesServer('notes').mcp\"]\n",
        encoding="utf-8",
    )
    return package


@pytest.mark.parametrize("edit", ["stops importing", "starts importing"])
def test_an_edit_of_a_factorys_module_reaches_the_tool_classes_it_imports(
    tmp_path: Path, edit: str
) -> None:
    """The scan of a tool module reads the configured factory's module (which of its classes
    that module imports: ``scan.factory_reach``), so its entry depends on that file: after the
    factory's module stops or starts importing a tool class, the warm build is the cold one."""
    package = _tool_classes_project(tmp_path)
    server = package / "server.py"
    full = FACTORY_MODULE.lstrip("\n")
    without = full.replace("from jt.tools.admin import AdminTools\n", "")
    assert without != full
    first, second = (full, without) if edit == "stops importing" else (without, full)
    server.write_text(first, encoding="utf-8")
    before = _answer(tmp_path)
    server.write_text(second, encoding="utf-8")
    warm, cold = _answer(tmp_path), _answer(tmp_path, "--no-cache")
    assert warm == cold
    assert before != cold  # the edit changes the answer: drop_note is the factory's or not


@pytest.mark.parametrize("flavor", ["mcp", "clean"])
def test_an_edit_of_a_constant_another_module_defines(tmp_path: Path, flavor: str) -> None:
    """The scan reads a constant of another module from its source (``constants``): the entry
    of the module that uses it depends on that file, so the warm build is the cold one."""
    package = tmp_path / "cst"
    package.mkdir()
    (package / "__init__.py").touch()
    (package / "names.py").write_text('PREFIX = "notes"\nNAME = PREFIX + "_get"\n', "utf-8")
    (package / "tools.py").write_text(
        "from mcp.server.mcpserver import MCPServer\n\n"
        "from cst.names import NAME\n\n"
        'mcp = MCPServer("cst")\n\n\n'
        '@mcp.tool(name=NAME, description="Get " + NAME)\n'
        "def get(key: str) -> str:\n    return key\n",
        encoding="utf-8",
    )
    (tmp_path / "pyproject.toml").write_text(
        "[tool.mcp-codegen]\n"
        'sources = ["cst/tools.py"]\n'
        f'output = "generated"\nflavor = "{flavor}"\n',
        encoding="utf-8",
    )
    before = _answer(tmp_path)
    assert before[0] == 0, before[1]
    (package / "names.py").write_text('PREFIX = "memo"\nNAME = PREFIX + "_get"\n', "utf-8")
    warm, cold = _answer(tmp_path), _answer(tmp_path, "--no-cache")
    assert warm == cold
    assert before != cold and any(b"memo_get" in text for text in cold[2].values())


def test_an_edit_of_a_call_site_the_printed_factory_entry_names(tmp_path: Path) -> None:
    """The scan reads the factory's call sites in other project files for the entry its error
    prints (``scan.factory_entry``); a module with errors is not stored, so after an edit of
    the calling module the warm build prints the new call, as the cold one does."""
    package = tmp_path / "fct"
    package.mkdir()
    (package / "__init__.py").touch()
    (package / "server.py").write_text(
        "from mcp.server.mcpserver import MCPServer\n\n\n"
        "def create_server(read_only):\n"
        '    mcp = MCPServer("fct")\n\n'
        "    @mcp.tool()\n"
        "    def get(key: str) -> str:\n        return key\n\n"
        "    return mcp\n",
        encoding="utf-8",
    )
    main = package / "main.py"
    main.write_text("from fct.server import create_server\n\napp = create_server(True)\n", "utf-8")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.mcp-codegen]\nsources = ["fct/server.py"]\noutput = "generated"\nflavor = "mcp"\n',
        encoding="utf-8",
    )
    before = _answer(tmp_path)
    assert before[0] == 2 and "fct.server:create_server(True)" in "\n".join(before[1])
    main.write_text(main.read_text("utf-8").replace("(True)", "(read_only=False)"), "utf-8")
    warm, cold = _answer(tmp_path), _answer(tmp_path, "--no-cache")
    assert warm == cold
    assert "fct.server:create_server(read_only=False)" in "\n".join(cold[1]), cold[1]


#: a tool class whose module also registers its closures at import, on a server of its own: the
#: module is inspected without the factory's module and stored without error
REGISTERED_AT_IMPORT = """

from mcp.server.mcpserver import MCPServer

standalone = MCPServer("admin")
AdminTools({}).register_tools(standalone)
"""


def test_a_factorys_module_that_starts_importing_a_class_registered_at_import(
    tmp_path: Path,
) -> None:
    """A tool class already registered at import by its own module (so its entry is stored
    and does not depend on the factory's module) that the factory's module then starts
    importing: its tools become the factory's (``scan.factory_reach``). The module's cache key
    holds what the scan read from the factory's module, so the warm build is the cold one
    (before, the warm build kept the stored scan: no ``factory`` in its tool's metadata)."""
    package = _tool_classes_project(tmp_path)
    admin = package / "tools" / "admin.py"
    admin.write_text(admin.read_text(encoding="utf-8") + REGISTERED_AT_IMPORT, encoding="utf-8")
    server = package / "server.py"
    full = FACTORY_MODULE.lstrip("\n")
    server.write_text(full.replace("from jt.tools.admin import AdminTools\n", ""), encoding="utf-8")
    before = _answer(tmp_path)
    assert before[0] == 0, before[1]
    server.write_text(full, encoding="utf-8")
    warm, cold = _answer(tmp_path), _answer(tmp_path, "--no-cache")
    assert warm == cold
    admin_module = "jt/tools/admin.py"
    assert b"NotesServer('notes').mcp" not in before[2][admin_module]
    assert b"NotesServer('notes').mcp" in cold[2][admin_module]  # drop_note is the factory's now
