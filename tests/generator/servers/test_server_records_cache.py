"""The build cache knows what the server records depend on: a run target's module outside
``sources`` changes the records, so a cached build must not be reused after it changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_codegen._shared.format import SERVERS_FILE, check_servers
from mcp_codegen._shared.reader import parse_literal_module
from tests.helpers.project import Project

pytestmark = pytest.mark.process

APP = """
    from mcp.server.mcpserver import MCPServer

    mcp = MCPServer("demo")
    """
TOOLS = '''
    from pkg.app import mcp


    @mcp.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b
    '''
SERVER = """
    from pkg import tools  # noqa: F401 - registers the tools
    from pkg.app import mcp
    """
EXTRA = '''

@mcp.tool()
def shout(text: str) -> str:
    """Registered by the run target's module, which is not among `sources`."""
    return text.upper()
'''


def _record(root: Path) -> dict[str, object]:
    path = root / "generated" / SERVERS_FILE
    values = parse_literal_module(path.read_text(encoding="utf-8"), str(path))
    records = {record["object"]: record for record in check_servers(values, str(path))}
    return records["pkg.server:mcp"]


@pytest.mark.slow
def test_a_changed_run_target_module_is_probed_again(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write("pkg/__init__.py", "")
    project.write("pkg/app.py", APP)
    project.write("pkg/tools.py", TOOLS)
    server = project.write("pkg/server.py", SERVER)
    project.configure(
        'sources = ["pkg/tools.py"]\nflavor = "mcp"\nrun_targets = ["pkg.server:mcp"]\n'
    )
    first = project.run("generate")
    assert first.returncode == 0, first.stderr
    assert _record(tmp_path)["tools"] == ("add",)
    unchanged = project.snapshot()
    again = project.run("generate")  # nothing changed: the cached build, same bytes
    assert again.returncode == 0, again.stderr
    assert project.snapshot() == unchanged
    # only the run target's module changes (it is not among `sources`): it registers a tool
    # that has no generated entry, so the fast path must leave tools/list to the framework
    server.write_text(server.read_text(encoding="utf-8") + EXTRA)
    cached = project.run("generate")
    assert cached.returncode == 0, cached.stderr
    assert _record(tmp_path)["tools"] is None
    assert "no current generated entry (shout)" in cached.stderr
    with_cache = project.snapshot()
    fresh = project.run("generate", "--no-cache")
    assert fresh.returncode == 0, fresh.stderr
    assert project.snapshot() == with_cache
