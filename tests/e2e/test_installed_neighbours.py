"""Only the project's own servers count: a project module that imports another installed MCP
server package (whose own module-level server registers its tools at import) generates exactly
the project's tools, cold, warm and with ``--no-cache`` (issue 35, item 1).

Two real distributions are built and installed here (hatchling, ``pip install --target``), one
importing the other; the oracle is the project's server itself, listed by the official SDK in a
fresh interpreter.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mcp_codegen._shared.reader import read_tree
from tests.helpers.project import codegen_env, run_codegen

pytestmark = [pytest.mark.process, pytest.mark.slow]

PYPROJECT = """
    [build-system]
    requires = ["hatchling"]
    build-backend = "hatchling.build"

    [project]
    name = "{name}"
    version = "1.0"

    [tool.hatch.build.targets.wheel]
    packages = ["{package}"]
    """

OTHER = {
    "pyproject.toml": PYPROJECT.format(name="other-mcp-server", package="otherpkg"),
    "otherpkg/__init__.py": """
        from otherpkg import server as server
        """,
    "otherpkg/server.py": """
        from mcp.server.mcpserver import MCPServer

        mcp = MCPServer("other")


        @mcp.tool(name="run_query")
        def run_query(sql: str) -> str:
            return sql


        def register_more() -> None:
            mcp.add_tool(list_tables)


        def list_tables() -> list[str]:
            return []


        register_more()
        """,
    "otherpkg/helpers.py": """
        from otherpkg.server import mcp as _server


        def shout(text: str) -> str:
            return text.upper() + _server.name
        """,
}

PROJECT = {
    "pyproject.toml": PYPROJECT.format(name="project-mcp-server", package="projsrv"),
    "projsrv/__init__.py": "",
    "projsrv/server.py": """
        from mcp.server.mcpserver import MCPServer

        from otherpkg.helpers import shout

        mcp = MCPServer("project")


        @mcp.tool()
        def greet(name: str) -> str:
            return shout(name)


        @mcp.tool(name="project_count")
        def count(items: list[int]) -> int:
            return len(items)
        """,
}

#: no index, no build isolation: hatchling from this environment, nothing downloaded
PIP_INSTALL = (sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation")
PIP_INSTALL += ("--no-index",)

LIST_TOOLS = """
import asyncio, json
from projsrv.server import mcp
print(json.dumps(sorted(t.name for t in asyncio.run(mcp.list_tools()))))
"""


def _distribution(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Both distributions installed into one target directory (the project imports the other)."""
    base = tmp_path_factory.mktemp("neighbours")
    target = base / "site"
    for name, files in (("other", OTHER), ("project", PROJECT)):
        distribution = _distribution(base / name, files)
        subprocess.run(
            [*PIP_INSTALL, "--target", str(target), str(distribution)],
            check=True,
            capture_output=True,
        )
    assert (target / "otherpkg" / "server.py").is_file()
    assert any(target.glob("other_mcp_server-1.0.dist-info"))
    return target


def _project(tmp_path: Path, site: Path) -> Path:
    """A project whose sources are the installed project package (as ``nox -s realworld``)."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text(
        "[tool.mcp-codegen]\n"
        f"sources = [{json.dumps(str(site / 'projsrv'))}]\n"
        f"python_path = [{json.dumps(str(site))}]\n"
        'output = "generated"\nflavor = "mcp"\n',
        encoding="utf-8",
    )
    return root


def _tree(root: Path) -> dict[str, bytes]:
    out = root / "generated"
    return {
        p.relative_to(out).as_posix(): p.read_bytes()
        for p in sorted(out.rglob("*.py"))
        if "__pycache__" not in p.parts
    }


def _served(site: Path) -> list[str]:
    env = {"PYTHONPATH": str(site), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    out = subprocess.run(
        [sys.executable, "-c", LIST_TOOLS], check=True, capture_output=True, text=True, env=env
    )
    return json.loads(out.stdout)


def test_another_packages_server_is_not_the_projects(tmp_path: Path, site: Path) -> None:
    served = _served(site)
    assert served == ["greet", "project_count"]  # the project's server never lists run_query
    root = _project(tmp_path, site)
    trees = {}
    for build, args, seed in [
        ("cold", (), "0"),
        ("warm", (), "0"),
        ("no-cache", ("--no-cache",), "0"),
        ("warm, another hash seed", (), "12345"),
    ]:
        shutil.rmtree(root / "generated", ignore_errors=True)
        done = run_codegen(root, "generate", "-v", *args, env=codegen_env(PYTHONHASHSEED=seed))
        assert done.returncode == 0, (build, done.stderr)
        # -v says what was left out, at the project's import line, naming the other server
        notes = [line for line in done.stderr.splitlines() if ": note: ignored " in line]
        assert len(notes) == 1, (build, done.stderr)
        assert notes[0].startswith(f"{site / 'projsrv' / 'server.py'}:3:1: note: ignored 2 ")
        assert "module otherpkg.server creates ('list_tables', 'run_query')" in notes[0]
        trees[build] = _tree(root)
        _, modules = read_tree(root / "generated")
        assert sorted(t["name"] for m in modules for t in m["TOOLS"]) == served, build
    assert all(tree == trees["cold"] for tree in trees.values())
    quiet = run_codegen(root, "generate")
    assert quiet.returncode == 0 and "note: ignored" not in quiet.stderr, quiet.stderr


def test_the_projects_own_registration_on_an_imported_server_still_counts(
    tmp_path: Path, site: Path
) -> None:
    """A tool the project's own code registers on another package's server is the project's:
    a form the generator cannot read there is an error, never a silent omission."""
    root = _project(tmp_path, site)
    local = root / "local"
    local.mkdir()
    (local / "extra.py").write_text(
        "from otherpkg.server import mcp\n\n\n"
        "def hidden(x: int) -> int:\n    return x\n\n\n"
        "register = mcp.add_tool\nfor function in [hidden]:\n    register(function)\n",
        encoding="utf-8",
    )
    text = (root / "pyproject.toml").read_text(encoding="utf-8")
    (root / "pyproject.toml").write_text(
        text.replace("sources = [", 'sources = ["local", '), encoding="utf-8"
    )
    for args in ((), (), ("--no-cache",)):
        done = run_codegen(root, "generate", *args)
        assert done.returncode == 2, done.stderr
        assert "local/extra.py:10:5: tool 'hidden' (hidden) is registered here" in done.stderr
        assert "run_query" not in done.stderr


NAMESPACE_PROJECT = """
    from mcp.server.mcpserver import MCPServer

    from awslabs.other_mcp_server.helpers import shout

    mcp = MCPServer("project")


    @mcp.tool()
    def greet(name: str) -> str:
        return shout(name)
    """

NAMESPACE_OTHER = """
    from mcp.server.mcpserver import MCPServer

    mcp = MCPServer("other")


    @mcp.tool(name="run_query")
    def run_query(sql: str) -> str:
        return sql
    """


def _namespace_site(base: Path, init: str | None) -> Path:
    """``site-packages/awslabs``, one directory shared by two distributions' portions (as pip
    installs ``awslabs.*`` servers): the project's ``project_mcp_server`` and another
    distribution's ``other_mcp_server``, whose module-level server the project's import fills.
    ``init``: the namespace's ``__init__.py`` (None: a PEP 420 package without one)."""
    site = base / "site-packages"
    files = {
        "awslabs/project_mcp_server/__init__.py": "",
        "awslabs/project_mcp_server/server.py": NAMESPACE_PROJECT,
        "awslabs/other_mcp_server/__init__.py": "",
        "awslabs/other_mcp_server/server.py": NAMESPACE_OTHER,
        "awslabs/other_mcp_server/helpers.py": """
            from awslabs.other_mcp_server.server import mcp as _server


            def shout(text: str) -> str:
                return text.upper() + _server.name
            """,
    }
    if init is not None:
        files["awslabs/__init__.py"] = init
    return _distribution(site, files)


@pytest.mark.parametrize(
    "init",
    [None, "__path__ = __import__('pkgutil').extend_path(__path__, __name__)\n"],
    ids=["pep420", "extend_path"],
)
def test_a_shared_namespace_counts_only_through_the_projects_portion(
    tmp_path: Path, init: str | None
) -> None:
    """``awslabs`` is every ``awslabs.*`` distribution's top-level package: only the portion
    that holds the project's files is the project's (realworld dynamodb), so the sibling
    distribution's server is ignored, cold, warm and with ``--no-cache``."""
    site = _namespace_site(tmp_path, init)
    root = tmp_path / "project"
    root.mkdir()
    sources = json.dumps([str(site / "awslabs" / "project_mcp_server")])
    (root / "pyproject.toml").write_text(
        f"[tool.mcp-codegen]\nsources = {sources}\npython_path = [{json.dumps(str(site))}]\n"
        'output = "generated"\nflavor = "mcp"\n',
        encoding="utf-8",
    )
    trees = []
    for args in ((), (), ("--no-cache",)):
        shutil.rmtree(root / "generated", ignore_errors=True)
        done = run_codegen(root, "generate", "-v", *args)
        assert done.returncode == 0, (args, done.stderr)
        assert "registered here" not in done.stderr and "run_query" in done.stderr, done.stderr
        assert "module awslabs.other_mcp_server.server creates ('run_query')" in done.stderr
        _, modules = read_tree(root / "generated")
        assert [t["name"] for m in modules for t in m["TOOLS"]] == ["greet"], args
        trees.append(_tree(root))
    assert trees[0] == trees[1] == trees[2]
