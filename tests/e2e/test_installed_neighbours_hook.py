"""The hook's side of "only the project's own servers" (issue 35, item 1): a project module that
imports another installed MCP server package (whose own module-level server registers its tools
at import) starts under ``use_generated(strict=True)`` and ``mcp-codegen run --strict``, lists
exactly the project's tools, and leaves the other package's tools to its framework (inferred,
not refused, not hooked), on the SDK 2.x ``MCPServer`` and on fastmcp.

Two real distributions per framework are built and installed (hatchling, ``pip install
--target``), one importing the other, as in ``test_installed_neighbours``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mcp_codegen._shared.reader import read_tree
from tests.e2e.test_installed_neighbours import PIP_INSTALL, PYPROJECT
from tests.helpers.client_config import framework_tools, listed_tools
from tests.helpers.project import REPO, codegen_env, run_codegen

pytestmark = [pytest.mark.process, pytest.mark.slow]

#: framework -> (import of the server class, the class)
FRAMEWORKS = {
    "mcp": ("from mcp.server.mcpserver import MCPServer", "MCPServer"),
    "fastmcp": ("from fastmcp import FastMCP", "FastMCP"),
}


def _packages(framework: str) -> tuple[dict[str, str], dict[str, str]]:
    """The other package (its own server, two tools) and the project (importing it)."""
    imports, server = FRAMEWORKS[framework]
    other = {
        "pyproject.toml": PYPROJECT.format(name=f"other-{framework}", package=f"other_{framework}"),
        f"other_{framework}/__init__.py": "",
        f"other_{framework}/server.py": f"""
            {imports}

            mcp = {server}("other")


            @mcp.tool(name="run_query")
            def run_query(sql: str) -> str:
                return sql


            def list_tables(schema: str = "public") -> list[str]:
                return [schema]


            mcp.add_tool(list_tables)
            """,
        f"other_{framework}/helpers.py": f"""
            from other_{framework}.server import mcp as _server


            def shout(text: str) -> str:
                return text.upper() + _server.name
            """,
    }
    project = {
        "pyproject.toml": PYPROJECT.format(
            name=f"project-{framework}", package=f"proj_{framework}"
        ),
        f"proj_{framework}/__init__.py": "",
        f"proj_{framework}/server.py": f"""
            {imports}

            from other_{framework}.helpers import shout

            mcp = {server}("project")


            @mcp.tool()
            def greet(name: str) -> str:
                return shout(name)


            @mcp.tool(name="project_count")
            def count(items: list[int]) -> int:
                return len(items)
            """,
    }
    return other, project


_HOOKED = """
import json, sys
from mcp_codegen.runtime import use_generated
from tests.helpers import corpus
framework, generated = sys.argv[1], sys.argv[2]
use_generated(generated, strict=True)
project = __import__(f"proj_{framework}.server", fromlist=["mcp"]).mcp
other = __import__(f"other_{framework}.server", fromlist=["mcp"]).mcp
client = corpus.sdk_client_tools if framework == "mcp" else corpus.fastmcp_client_tools
if framework == "mcp":
    kinds = {
        server: {t.name: type(t).__name__ for t in obj._tool_manager.list_tools()}
        for server, obj in (("project", project), ("other", other))
    }
else:
    kinds = {
        server: {
            c.name: type(c).__name__
            for k, c in obj._local_provider._components.items() if k.startswith("tool:")
        }
        for server, obj in (("project", project), ("other", other))
    }
print(json.dumps({"project": client(project), "other": client(other), "kinds": kinds}))
"""


def _distribution(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def _site(base: Path, framework: str) -> Path:
    """Both distributions of ``framework`` installed into one target directory."""
    target = base / "site"
    for name, files in zip(("other", "project"), _packages(framework), strict=True):
        distribution = _distribution(base / f"dist-{name}", files)
        subprocess.run(
            [*PIP_INSTALL, "--target", str(target), str(distribution)],
            check=True,
            capture_output=True,
        )
    return target


@pytest.mark.parametrize("framework", sorted(FRAMEWORKS))
def test_the_hook_leaves_another_packages_server_alone(tmp_path: Path, framework: str) -> None:
    site = _site(tmp_path, framework)
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text(
        "[tool.mcp-codegen]\n"
        f"sources = [{json.dumps(str(site / f'proj_{framework}'))}]\n"
        f"python_path = [{json.dumps(str(site))}]\n"
        f'output = "generated"\nflavor = "{framework}"\n',
        encoding="utf-8",
    )
    done = run_codegen(root, "generate")
    assert done.returncode == 0, done.stderr
    _, modules = read_tree(root / "generated")
    assert sorted(t["name"] for m in modules for t in m["TOOLS"]) == ["greet", "project_count"]
    target = f"proj_{framework}.server:mcp"
    plain = framework_tools(target, framework, site)
    other_plain = framework_tools(f"other_{framework}.server:mcp", framework, site)
    assert sorted(plain) == ["greet", "project_count"]
    assert sorted(other_plain) == ["list_tables", "run_query"]

    env = codegen_env(PYTHONPATH=os.pathsep.join([str(REPO), str(site)]))
    hooked = subprocess.run(
        [sys.executable, "-W", "error", "-c", _HOOKED, framework, str(root / "generated")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    # strict: no refusal of the other package's tools, and no StaleSchemaWarning (-W error)
    assert hooked.returncode == 0, hooked.stderr
    listings = json.loads(hooked.stdout.strip().splitlines()[-1])
    assert listings["project"] == plain
    assert listings["other"] == other_plain  # inferred by its framework, as without the hook
    lazy = {"mcp": "LazySdkTool", "fastmcp": "GeneratedFunctionTool"}[framework]
    assert set(listings["kinds"]["project"].values()) == {lazy}  # the project's: hooked
    assert lazy not in listings["kinds"]["other"].values()  # the other package's: untouched

    for fast_path in ("", "1"):  # the front in place, and the plain start
        served = listed_tools(
            {
                "command": sys.executable,
                "args": [
                    "-m",
                    "mcp_codegen",
                    "run",
                    "--strict",
                    "--generated",
                    "generated",
                    target,
                ],
                "env": {"PYTHONPATH": env["PYTHONPATH"], "MCP_CODEGEN_NO_FAST_PATH": fast_path},
            },
            root,
        )
        assert served == plain, fast_path

    # The project's own server is still checked: its source changed since generation, and its
    # first tool is refused
    server = site / f"proj_{framework}" / "server.py"
    server.write_text(
        server.read_text(encoding="utf-8")
        + "\n\n@mcp.tool()\ndef added(x: int) -> int:\n    return x\n",
        encoding="utf-8",
    )
    refused = subprocess.run(
        [sys.executable, "-c", _HOOKED, framework, str(root / "generated")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert refused.returncode == 1, refused.stderr
    assert "GeneratedSchemaError: refusing to start (strict): tool 'greet'" in refused.stderr
    assert f"proj_{framework}/server.py changed since generation" in refused.stderr
    assert "run_query" not in refused.stderr and "list_tables" not in refused.stderr
