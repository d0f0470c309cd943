"""``mcp-codegen init``: finds the servers, writes ``[tool.mcp-codegen]`` (the rest of the file
byte for byte), generates, and prints a client configuration that a client can start."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tests.helpers.client_config import framework_tools, listed_tools, mcp_servers
from tests.helpers.project import Project

#: A src/ layout on the SDK 2.x server: a decorated tool, add_tool, a registration function
#: called with the server and a client, and a factory the project calls with a literal.
SDK_FILES = {
    "src/notes/__init__.py": "",
    "src/notes/server.py": '''
        from mcp.server.mcpserver import MCPServer

        from notes.extra import register_search_tools

        mcp = MCPServer("notes")


        @mcp.tool()
        def add_note(title: str, body: str = "") -> str:
            """Add a note."""
            return title


        def count(words: list[str]) -> int:
            """Count words."""
            return len(words)


        mcp.add_tool(count)
        register_search_tools(mcp, object())
        ''',
    "src/notes/extra.py": '''
        def register_search_tools(app, client):
            @app.tool()
            def search(query: str, limit: int = 10) -> list[str]:
                """Search the notes."""
                return [query] * limit
        ''',
    "src/notes/admin.py": """
        from mcp.server.mcpserver import MCPServer


        def create_admin(prefix: str) -> MCPServer:
            server = MCPServer("admin")

            @server.tool(name=f"{prefix}_purge")
            def purge(days: int) -> int:
                return days

            return server


        if __name__ == "__main__":
            create_admin("notes").run()
        """,
}

PYPROJECT = '[project]\nname = "notes"  # kept as written\nversion = "0.1"\n\n[tool.other]\nx = 1'


@pytest.mark.slow
@pytest.mark.process
def test_init_writes_generates_and_prints_a_config_a_client_starts(
    project: Project, tmp_path: Path
) -> None:
    for path, text in SDK_FILES.items():
        project.write(path, text)
    (project.root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    done = project.run("init")
    assert done.returncode == 0, done.stdout + done.stderr
    text = (project.root / "pyproject.toml").read_text(encoding="utf-8")
    assert text.startswith(PYPROJECT + "\n")  # the file's own bytes, then the table
    table = tomllib.loads(text)["tool"]["mcp-codegen"]
    assert table == {
        "sources": ["src/notes"],
        "flavor": "mcp",
        "run_targets": ["notes.server:mcp"],
        "factories": ["notes.admin:create_admin('notes')"],  # the literal call in admin.py
    }
    servers = mcp_servers(done.stdout)
    assert [s["args"][-1] for s in servers if s["command"] != "uvx"] == [
        "notes.server:mcp",
        "notes.admin:create_admin('notes')",
    ]
    entry = servers[0]
    elsewhere = tmp_path / "client-home"
    elsewhere.mkdir()
    listed = listed_tools(entry, elsewhere)
    theirs = framework_tools("notes.server:mcp", "mcp", project.root / "src")
    assert sorted(listed) == ["add_note", "count", "search"]
    assert listed == theirs
    again = project.run("generate")
    assert again.returncode == 0 and "0 written" in again.stdout, again.stdout + again.stderr


@pytest.mark.process
def test_a_factory_argument_init_cannot_fill_is_marked_and_never_generated(
    project: Project,
) -> None:
    (project.root / "pyproject.toml").unlink()  # no pyproject.toml: init writes mcp-codegen.toml
    project.write(
        "pkg/server.py",
        """
        from fastmcp import FastMCP


        def create_server(db_path: str, read_only: bool = True) -> FastMCP:
            app = FastMCP("db")

            @app.tool(name=f"query_{db_path}")
            def query(sql: str) -> list[str]:
                return [sql]

            return app
        """,
    )
    done = project.run("init")
    assert done.returncode == 2, done.stdout + done.stderr
    text = (project.root / "mcp-codegen.toml").read_text(encoding="utf-8")
    table = tomllib.loads(text)["tool"]["mcp-codegen"]
    assert table == {"sources": ["pkg"], "flavor": "fastmcp"}  # no entry that would guess
    assert "give db_path a literal value" in text
    assert '#   "pkg.server:create_server(db_path=...)"' in text
    assert "pkg/server.py:8:5: tool 'query' is registered on `app`" in done.stderr
    assert project.snapshot() == {}  # nothing generated


@pytest.mark.process
def test_init_refuses_an_existing_table_unless_forced(project: Project) -> None:
    project.write("pkg/__init__.py", "")
    project.write(
        "pkg/tools.py",
        "from mcp_codegen.decorators import tool\n\n\n@tool\ndef f(x: int) -> int:\n    return x\n",
    )
    original = (
        '[project]\nname = "p"\n\n[tool.mcp-codegen]\nsources = ["old"]\n\n[tool.after]\ny = 2\n'
    )
    (project.root / "pyproject.toml").write_text(original, encoding="utf-8")
    refused = project.run("init", "--no-generate")
    assert refused.returncode == 2
    assert refused.stderr.startswith(
        f"{project.root / 'pyproject.toml'}:4:1: [tool.mcp-codegen] already exists"
    )
    assert "--force" in refused.stderr
    assert (project.root / "pyproject.toml").read_text(encoding="utf-8") == original
    forced = project.run("init", "--force", "--no-generate")
    assert forced.returncode == 0, forced.stderr
    data = tomllib.loads((project.root / "pyproject.toml").read_text(encoding="utf-8"))
    assert data["project"] == {"name": "p"} and data["tool"]["after"] == {"y": 2}
    assert data["tool"]["mcp-codegen"] == {"sources": ["pkg"], "flavor": "clean"}


@pytest.mark.process
def test_init_without_tools_writes_nothing(project: Project) -> None:
    (project.root / "pyproject.toml").unlink()
    project.write("pkg/__init__.py", "def helper() -> None: ...\n")
    done = project.run("init")
    assert done.returncode == 2
    assert "no tool found" in done.stderr
    assert not (project.root / "pyproject.toml").exists()
    assert not (project.root / "mcp-codegen.toml").exists()


@pytest.mark.slow
@pytest.mark.process
def test_the_run_target_is_the_module_that_runs_the_server(project: Project) -> None:
    """The server is created in app.py, its tools are in tools.py, and server.py imports both
    and runs it: `app:mcp` alone would list no tool."""
    (project.root / "pyproject.toml").unlink()
    project.write("pkg/app.py", 'from fastmcp import FastMCP\n\nmcp = FastMCP("split")\n')
    project.write(
        "pkg/tools.py",
        '''
        from pkg.app import mcp


        @mcp.tool
        def echo(text: str) -> str:
            """Say it back."""
            return text
        ''',
    )
    project.write(
        "pkg/server.py",
        """
        from pkg import tools  # noqa: F401
        from pkg.app import mcp

        if __name__ == "__main__":
            mcp.run()
        """,
    )
    done = project.run("init")
    assert done.returncode == 0, done.stdout + done.stderr
    table = tomllib.loads((project.root / "mcp-codegen.toml").read_text())["tool"]["mcp-codegen"]
    assert table["run_targets"] == ["pkg.server:mcp"] and table["flavor"] == "fastmcp"
    verified = project.run("--config", "mcp-codegen.toml", "verify", "--against", "pkg.server:mcp")
    assert verified.returncode == 0, verified.stdout + verified.stderr
