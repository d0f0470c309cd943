"""A run target bound in a module outside the project and ``sources`` (an installed package
whose tools directory is the source, as lean-lsp-mcp's) is still recorded, at its own line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcp_codegen._shared.format import SERVERS_FILE, check_servers
from mcp_codegen._shared.reader import parse_literal_module
from tests.helpers.project import Project, codegen_env

pytestmark = pytest.mark.process

SERVER = """
    from mcp.server.mcpserver import MCPServer


    mcp = MCPServer("outside", instructions="Installed elsewhere.")

    from lib_pkg.tools import maths  # noqa: E402,F401 - registers the tools
    """
TOOLS = '''
    from lib_pkg.server import mcp


    @mcp.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b
    '''


def _generate(
    tmp_path: Path, source: str, targets: list[str]
) -> tuple[Path, dict[str, dict[str, object]]]:
    """Generate a project beside ``tmp_path/lib`` whose source is ``lib/<source>``; the records
    file and its records by object, after a build with no warning."""
    project = Project(tmp_path / "project")
    project.configure(
        f"sources = {json.dumps([str(tmp_path / 'lib' / source)])}\n"
        f'flavor = "mcp"\nrun_targets = {json.dumps(targets)}\n'
    )
    done = project.run("generate", env=codegen_env(PYTHONPATH=str(tmp_path / "lib")))
    assert done.returncode == 0, done.stderr
    assert ": warning: " not in done.stderr, done.stderr
    path = project.root / "generated" / SERVERS_FILE
    values = parse_literal_module(path.read_text(encoding="utf-8"), str(path))
    return path, {record["object"]: record for record in check_servers(values, str(path))}


def test_run_target_outside_the_project(tmp_path: Path) -> None:
    library = Project(tmp_path / "lib")
    library.write("lib_pkg/__init__.py", "")
    library.write("lib_pkg/server.py", SERVER)
    library.write("lib_pkg/tools/__init__.py", "")
    library.write("lib_pkg/tools/maths.py", TOOLS)
    path, records = _generate(tmp_path, "lib_pkg/tools", ["lib_pkg.server:mcp"])
    record = records["lib_pkg.server:mcp"]
    assert (record["source"], record["line"]) == ("lib_pkg/server.py", 4)
    assert record["tools"] == ("add",)
    assert record["initialize"]["2025-11-25"]["instructions"] == "Installed elsewhere."
    assert str(tmp_path) not in path.read_text(encoding="utf-8")  # no absolute path


COMMON = """
    from mcp.server.mcpserver import MCPServer

    mcp = MCPServer("common")
    """
CACHE = '''
    from lib_pkg.common.server import mcp


    @mcp.tool()
    def ping(host: str) -> str:
        """Ping a host."""
        return host
    '''
MAIN = """
    from lib_pkg.common.server import mcp
    from lib_pkg.tools import cache  # noqa: F401 - registers the tools


    def main() -> None:
        mcp.run()
    """


def test_a_server_bound_in_a_source_module_without_tools_is_the_projects(
    tmp_path: Path,
) -> None:
    """An installed package configured whole (``sources = [".../lib_pkg"]``) binds its server in
    a module with no tools (awslabs-memcached-mcp-server's ``common/server.py``): the run target
    ``lib_pkg.main:mcp`` imports it from there. It was "not bound at the top level of a project
    module", so no record: only the tool modules' directories counted as the project's."""
    library = Project(tmp_path / "lib")
    for name, text in [
        ("__init__.py", ""),
        ("common/__init__.py", ""),
        ("common/server.py", COMMON),
        ("tools/__init__.py", ""),
        ("tools/cache.py", CACHE),
        ("main.py", MAIN),
    ]:
        library.write(f"lib_pkg/{name}", text)
    _, records = _generate(tmp_path, "lib_pkg", ["lib_pkg.main:mcp", "lib_pkg.main:main"])
    record = records["lib_pkg.main:mcp"]
    assert (record["source"], record["line"]) == ("lib_pkg/common/server.py", 3)
    assert record["tools"] == ("ping",) and record["initialize"] is not None
    # ``main`` runs the one server its module imports (it binds none itself): "binds 0 server
    # objects at top level" before
    started = records["lib_pkg.main:main"]
    assert started["initialize"] == record["initialize"]
