"""Trees generated under the old import name (``codegen``, before commit 599573c) are read, or
refused with the command that regenerates them, never with a traceback (issue 34, item 2).

The checked-in trees as they were at commit abaf215 (the last one before the rename) are put
beside today's sources in a copy of the project: the bookshop's ``generated/`` (flavor clean;
its sources changed with the rename, so its source hashes are stale) and the everything
example's (flavor mcp, with ``__servers__.py``). ``export``, ``check``, the runtime, ``run`` and
``use_generated`` are run on them from this checkout.
"""

from __future__ import annotations

import ast
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from mcp_codegen._generator.config import load_config
from tests.helpers.project import REPO, codegen_env, run_codegen

pytestmark = pytest.mark.process

OLD = "abaf215"  # the last commit before the rename
#: The old trees (the output directory of a configuration), by configuration.
TREES = {
    "pyproject.toml": "generated",
    "examples/everything/mcp-codegen.toml": "examples/everything/generated",
}


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Today's sources and configurations, with the generated trees of commit abaf215."""
    if _git("cat-file", "-e", f"{OLD}^{{commit}}").returncode != 0:
        pytest.skip(f"commit {OLD} is not in this clone (a shallow checkout)")
    root = tmp_path_factory.mktemp("old-trees")
    shutil.copy(REPO / "pyproject.toml", root)
    shutil.copytree(
        REPO / "examples",
        root / "examples",
        ignore=shutil.ignore_patterns("generated", "__pycache__", ".mcp-codegen-cache"),
    )
    for tree in TREES.values():
        names = _git("ls-tree", "-r", "--name-only", OLD, "--", tree).stdout.split()
        assert names, tree
        for name in names:
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(
                subprocess.check_output(["git", "-C", str(REPO), "show", f"{OLD}:{name}"])
            )
    return root


def _modules(tree: Path) -> list[dict[str, Any]]:
    """Every generated tool module's top-level literals, read with ``ast`` alone."""
    found = []
    for path in sorted(tree.rglob("*.py")):
        if path.name.startswith("__"):
            continue
        values = {}
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
                values[node.targets[0].id] = ast.literal_eval(node.value)
        found.append(values)
    return found


def _no_traceback(done: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr


@pytest.mark.parametrize("config", sorted(TREES))
def test_export_reads_an_old_tree(project: Path, config: str) -> None:
    done = run_codegen(project, "--config", config, "export")
    _no_traceback(done)
    assert done.returncode == 0, done.stderr
    names = [tool["name"] for tool in json.loads(done.stdout)["tools"]]
    expected = [t["name"] for m in _modules(project / TREES[config]) for t in m["TOOLS"]]
    assert sorted(names) == sorted(expected)
    assert names


@pytest.mark.parametrize("config", sorted(TREES))
def test_check_passes_an_old_tree_or_names_the_regenerate_command(
    project: Path, config: str
) -> None:
    """Stale whenever a source's content is not what the old module records (and otherwise
    whenever this release renders the tree differently); a stale tree names the configured
    regenerate command, and nothing ends in a traceback."""
    modules = _modules(project / TREES[config])
    base = project / Path(config).parent
    stale = any(
        hashlib.sha256((base / m["SOURCE_PATH"]).read_bytes()).hexdigest() != m["SOURCE_SHA256"]
        for m in modules
    )
    done = run_codegen(project, "--config", config, "check")
    _no_traceback(done)
    if stale:
        assert done.returncode == 1, done.stdout + done.stderr
    assert done.returncode in (0, 1), done.stdout + done.stderr
    if done.returncode == 1:
        regenerate = load_config(project / config).regenerate_command
        assert f"run `{regenerate}`" in done.stdout + done.stderr
    assert config != "pyproject.toml" or stale  # the bookshop's sources changed in the rename


def test_the_runtime_serves_the_old_bookshop_tree(project: Path) -> None:
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "mcp_codegen.runtime", "--generated", "generated"],
        cwd=str(project),
        env=codegen_env(PYTHONPATH=f"{REPO}:{project}"),
    )
    listed, called = anyio.run(_list_and_call, server, "search_books", {"query": "dune"})
    expected = [t["name"] for m in _modules(project / "generated") for t in m["TOOLS"]]
    assert sorted(t["name"] for t in listed) == sorted(expected)
    assert called["isError"] is False
    assert "result" in called["structuredContent"]


@pytest.mark.parametrize(
    "how",
    [
        ["-m", "examples.everything", "--strict"],  # use_generated(strict=True)
        [
            "-m",
            "mcp_codegen",
            "run",
            "--generated",
            "examples/everything/generated",
            "examples.everything.server:mcp",
        ],
    ],
    ids=["use_generated", "run"],
)
def test_the_old_everything_tree_serves_what_the_framework_serves(
    project: Path, how: list[str]
) -> None:
    """``use_generated`` and ``mcp-codegen run`` (its fast path reads the old
    ``__servers__.py``) list what the SDK's own inference lists (``--infer``)."""
    env = codegen_env(PYTHONPATH=f"{REPO}:{project}")

    def params(args: list[str]) -> StdioServerParameters:
        return StdioServerParameters(command=sys.executable, args=args, cwd=str(project), env=env)

    call = ("test_simple_text", {})
    framework, framework_called = anyio.run(
        _list_and_call, params(["-m", "examples.everything", "--infer"]), *call
    )
    listed, called = anyio.run(_list_and_call, params(how), *call)
    assert listed == framework
    assert called == framework_called


async def _list_and_call(
    params: StdioServerParameters, tool: str, arguments: dict[str, Any]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    with anyio.fail_after(120):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            listed = await client.list_tools()
            called = await client.call_tool(tool, arguments)
            return (
                [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in listed.tools],
                called.model_dump(by_alias=True, mode="json", exclude_none=True),
            )
