"""The ``factories`` entry an error suggests works as printed (issue 35, "follow the messages"):
pasted into the configuration, the next ``generate`` exits 0 with exactly the tools the
framework's own server lists for that call."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from mcp_codegen._generator.scan.factory_entry import factory_hint, suggest_factory_entry
from tests.helpers.client_config import framework_tools
from tests.helpers.project import Project

SERVERS = {
    "mcp": "from mcp.server.mcpserver import MCPServer as Server",
    "fastmcp": "from fastmcp import FastMCP as Server",
}

FACTORY = '''
{import_line}


def create_server(readonly: bool, prefix: str = "notes") -> Server:
    """Build the server; its tool names and descriptions come from the arguments."""
    server = Server("notes")

    @server.tool(name=f"{{prefix}}_get", description="read only" if readonly else "read-write")
    def get(key: str, limit: int = 3) -> list[str]:
        return [key] * limit

    if not readonly:

        @server.tool(name=f"{{prefix}}_put")
        def put(key: str, value: str) -> bool:
            return True

    return server
'''

MAIN = """
from pkg.server import create_server


def main() -> None:
    create_server(False, prefix="memo").run()
"""


def _entry(message: str) -> str:
    """The one ``factories = ["..."]`` entry a message prints."""
    found = re.findall(r'factories = \["([^"]+)"\]', message)
    assert found, message
    assert len(set(found)) == 1, found
    return found[0]


@pytest.mark.process
@pytest.mark.slow
@pytest.mark.parametrize("flavor", sorted(SERVERS))
def test_the_printed_entry_works_as_printed(project: Project, flavor: str) -> None:
    project.write("pkg/__init__.py", "")
    project.write("pkg/server.py", FACTORY.format(import_line=SERVERS[flavor]))
    project.write("pkg/main.py", MAIN)
    project.configure(f'sources = ["pkg"]\nflavor = "{flavor}"\n')
    first = project.run("generate")
    assert first.returncode == 2, first.stderr
    assert project.snapshot() == {}
    entry = _entry(first.stderr)
    assert entry == "pkg.server:create_server(False, prefix='memo')"  # pkg/main.py's call
    assert "as pkg/main.py:5 calls it" in first.stderr
    # follow the message literally: paste the entry into the configuration
    project.configure(
        f'sources = ["pkg"]\nflavor = "{flavor}"\nfactories = [{json.dumps(entry)}]\n'
    )
    second = project.run("generate")
    assert second.returncode == 0, second.stderr
    exported = project.run("export")
    assert exported.returncode == 0, exported.stderr
    ours = {tool["name"]: tool for tool in json.loads(exported.stdout)["tools"]}
    theirs = framework_tools(entry, flavor, project.root)
    assert sorted(ours) == ["memo_get", "memo_put"]
    assert ours == theirs


def _function(source: str) -> tuple[ast.Module, ast.FunctionDef]:
    tree = ast.parse(source)
    function = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    return tree, function


def test_defaults_make_a_complete_call(tmp_path: Path) -> None:
    tree, function = _function("def make(namespace: str = '', *, debug: bool = False): ...")
    entry = suggest_factory_entry("pkg.server", function, tmp_path, tree=tree)
    assert (entry.entry, entry.missing, entry.complete) == ("pkg.server:make()", (), True)


def test_a_literal_call_in_the_same_module_fills_the_arguments(tmp_path: Path) -> None:
    tree, function = _function(
        "def make(db, /, *, read_only: bool): ...\n"
        "def main():\n    x = make(path, read_only=True)\n    make('a.db', read_only=True)\n"
    )
    entry = suggest_factory_entry("pkg.server", function, tmp_path, tree=tree)
    # the first call passes a variable (not a literal): the second one is taken
    assert entry.entry == "pkg.server:make('a.db', read_only=True)"
    assert entry.complete


def test_a_call_that_misses_a_required_argument_is_not_taken(tmp_path: Path) -> None:
    tree, function = _function("def make(db, *, read_only: bool): ...\nmake('a.db')\n")
    entry = suggest_factory_entry("pkg.server", function, tmp_path, tree=tree)
    assert entry.entry == "pkg.server:make(db=..., read_only=...)"
    assert entry.missing == ("db", "read_only")
    assert not entry.complete


def test_calls_in_other_modules_count_only_through_an_import_of_that_function(
    tmp_path: Path,
) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("def make(x): ...\nmake(1)\n")  # another make
    (tmp_path / "pkg" / "b.py").write_text("from pkg import server\nserver.make(2)\n")
    (tmp_path / "pkg" / "c.py").write_text("from pkg.server import make as m\nm(3)\n")
    tree, function = _function("def make(x): ...\n")
    entry = suggest_factory_entry("pkg.server", function, tmp_path, tree=tree)
    assert (entry.entry, entry.call_site) == ("pkg.server:make(2)", "pkg/b.py:2")


#: ``server.add_tool(lookup, name=prefix + "_lookup")`` of a function another module defines, in
#: each framework's spelling; the module builds its own server with the same call at the bottom
ADD_TOOL = {
    "mcp": ("", 'server.add_tool(lookup, name=prefix + "_lookup")'),
    "fastmcp": (
        "from fastmcp.tools import Tool\n",
        'server.add_tool(Tool.from_function(lookup, name=prefix + "_lookup"))',
    ),
}

IMPORTED = """
{import_line}
{extra_import}from pkg.tools import lookup


def create_server(prefix: str) -> Server:
    server = Server("notes")
    {add_tool}
    return server


mcp = create_server("memo")
"""

TOOLS = '''
def lookup(key: str, limit: int = 3) -> list[str]:
    """Look a key up."""
    return [key] * limit
'''


def _generate_with(project: Project, flavor: str, entry: str) -> dict[str, dict]:
    """Paste ``entry`` into the configuration, generate (exit 0) and export the tree."""
    project.configure(
        f'sources = ["pkg"]\nflavor = "{flavor}"\nfactories = [{json.dumps(entry)}]\n'
    )
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    exported = project.run("export")
    assert exported.returncode == 0, exported.stderr
    return {tool["name"]: tool for tool in json.loads(exported.stdout)["tools"]}


@pytest.mark.process
@pytest.mark.slow
@pytest.mark.parametrize("flavor", sorted(SERVERS))
def test_a_factory_adding_an_imported_function_works_as_printed(
    project: Project, flavor: str
) -> None:
    """The factory registers a function of another module by call, under a name built from its
    parameter; the module also calls it at import. The printed entry, pasted, generates the
    tool at the ``add_tool`` call (the import's registration there is the same tool)."""
    extra_import, add_tool = ADD_TOOL[flavor]
    project.write("pkg/__init__.py", "")
    project.write("pkg/tools.py", TOOLS)
    server = IMPORTED.format(
        import_line=SERVERS[flavor], extra_import=extra_import, add_tool=add_tool
    )
    project.write("pkg/server.py", server)
    project.configure(f'sources = ["pkg"]\nflavor = "{flavor}"\n')
    first = project.run("generate")
    assert first.returncode == 2, first.stderr
    entry = _entry(first.stderr)
    assert entry == "pkg.server:create_server('memo')"
    ours = _generate_with(project, flavor, entry)
    assert sorted(ours) == ["memo_lookup"]
    assert ours == framework_tools(entry, flavor, project.root)


@pytest.mark.process
@pytest.mark.slow
def test_a_registration_the_entry_does_not_make_prints_the_entry_that_does(
    project: Project,
) -> None:
    """The configured call builds ``memo_*``, but the module's own server, built at import by
    ``create_server(False, prefix="other")``, registers ``other_*``: each error at a
    registration prints the entry of the call that made it, and that entry, pasted, generates
    exactly."""
    project.write("pkg/__init__.py", "")
    factory = FACTORY.format(import_line=SERVERS["mcp"])
    project.write("pkg/server.py", factory + '\n\nmcp = create_server(False, prefix="other")\n')
    project.configure(
        'sources = ["pkg"]\nflavor = "mcp"\n'
        "factories = [\"pkg.server:create_server(False, prefix='memo')\"]\n"
    )
    first = project.run("generate")
    assert first.returncode == 2, first.stderr
    for name in ("other_get", "other_put"):
        assert f"tool {name!r} is registered here under a name computed at run time" in (
            first.stderr
        )
    entry = _entry(first.stderr)
    assert entry == "pkg.server:create_server(False, prefix='other')"
    written = (project.root / "pkg/server.py").read_text().splitlines()
    line = 1 + written.index('mcp = create_server(False, prefix="other")')
    assert f"as pkg/server.py:{line} calls it" in first.stderr
    ours = _generate_with(project, "mcp", entry)
    assert sorted(ours) == ["other_get", "other_put"]
    assert ours == framework_tools(entry, "mcp", project.root)


#: a server class whose ``__init__`` calls the method that registers closures, built in another
#: module: as the class itself (a ``FastMCP`` subclass with ``self.tool(fn, name=...)``, as
#: mcp-server-qdrant) and as a class holding the server (``@self.mcp.tool(...)``)
SERVER_CLASSES = {
    "fastmcp": (
        """
from fastmcp import FastMCP


class NotesServer(FastMCP):
    def __init__(self, name: str, read_only: bool = False) -> None:
        super().__init__(name=name)
        self.read_only = read_only
        self.setup_tools()

    def setup_tools(self) -> None:
        async def find(query: str, limit: int = 3) -> list[str]:
            return [query] * limit

        self.tool(find, name="notes-find", description="Look notes up.")
""",
        "pkg.notes_server:NotesServer('notes')",
    ),
    "mcp": (
        """
from mcp.server.mcpserver import MCPServer


class NotesServer:
    def __init__(self, name: str, read_only: bool = False) -> None:
        self.mcp = MCPServer(name)
        self.setup_tools()

    def setup_tools(self) -> None:
        @self.mcp.tool(name="find", description="Look notes up.")
        async def find(query: str, limit: int = 3) -> list[str]:
            return [query] * limit
""",
        "pkg.notes_server:NotesServer('notes').mcp",
    ),
}


@pytest.mark.process
@pytest.mark.slow
@pytest.mark.parametrize("flavor", sorted(SERVER_CLASSES))
def test_a_server_class_built_in_another_module_prints_its_constructor(
    project: Project, flavor: str
) -> None:
    """Tools defined in a method that the class's ``__init__`` calls, on a server another module
    builds (``mcp = NotesServer("notes")``): the error prints the constructor's call, with the
    server attribute when the class holds the server, and that entry, pasted, generates what
    the framework lists for it (the message asked for `factories` without one)."""
    source, expected = SERVER_CLASSES[flavor]
    project.write("pkg/notes_server.py", source)
    project.write(
        "pkg/server.py", 'from pkg.notes_server import NotesServer\n\nmcp = NotesServer("notes")\n'
    )
    project.configure(f'sources = ["pkg"]\nflavor = "{flavor}"\n')
    first = project.run("generate")
    assert first.returncode == 2, first.stderr
    assert _entry(first.stderr) == expected
    assert "as pkg/server.py:3 calls it" in first.stderr
    ours = _generate_with(project, flavor, expected)
    assert sorted(ours) == ["find" if flavor == "mcp" else "notes-find"]
    assert ours == framework_tools(expected, flavor, project.root)


def test_a_method_the_constructor_does_not_call_gets_no_entry(tmp_path: Path) -> None:
    """Building the class registers nothing when ``__init__`` does not call the method: no
    entry is printed for it (pasted, it would generate nothing)."""
    path = tmp_path / "notes_server.py"
    path.write_text(
        "class NotesServer:\n"
        "    def __init__(self, name: str) -> None:\n"
        "        self.name = name\n\n"
        "    def setup_tools(self) -> None:\n"
        "        def find() -> None: ...\n"
    )
    qualname = "NotesServer.setup_tools.<locals>.find"
    assert factory_hint("pkg.notes_server", str(path), qualname, tmp_path, server="self") == ""
    path.write_text(path.read_text().replace("self.name = name", "self.setup_tools()"))
    assert factory_hint("pkg.notes_server", str(path), qualname, tmp_path, server="self") == (
        ' (e.g. factories = ["pkg.notes_server:NotesServer(name=...)"], with literal arguments; '
        "replace each ... with a literal value for name)"
    )
