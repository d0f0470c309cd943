"""What ``use_generated`` does at start-up: no inference, lazy patching, stale and strict modes.

A throw-away project holds an ``MCPServer`` app and a ``fastmcp.FastMCP`` app, each generated in
its framework's flavor by the real generator. Every check runs in a fresh process
(tests/runtime/hook/probe_hook.py, or ``mcp-codegen run``), so the patches never leak into this one.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.project import REPO, Project
from tests.runtime.hook.hook_support import drive, environment, hooked_command

pytestmark = pytest.mark.process
PROBE = Path(__file__).resolve().parent / "probe_hook.py"

SDK_TOOLS = '''
from typing import Annotated

from pydantic import Field

from pkg.app import mcp


@mcp.tool()
def add(a: int, b: Annotated[int, Field(ge=0, description="Second term.")] = 2) -> int:
    """Add two numbers."""
    return a + b


@mcp.tool(title="Shout")
def shout(text: str) -> str:
    """Upper-case the text."""
    return text.upper()
'''

FAST_TOOLS = '''
from fastmcp import FastMCP

fast = FastMCP("fast")


@fast.tool
def double(value: float) -> float:
    """Twice the value."""
    return value * 2
'''


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hook-project")
    project = Project(root)
    project.write("pkg/__init__.py", "")
    project.write(
        "pkg/app.py", 'from mcp.server.mcpserver import MCPServer\n\nmcp = MCPServer("t")\n'
    )
    project.write("pkg/tools.py", SDK_TOOLS)
    project.write("pkg/server.py", "from pkg import tools  # noqa: F401\nfrom pkg.app import mcp\n")
    project.write("pkg/fast.py", FAST_TOOLS)
    project.configure('sources = ["pkg/tools.py"]\nflavor = "mcp"\n')
    project.write(
        "fast.toml",
        '[tool.mcp-codegen]\nsources = ["pkg/fast.py"]\nflavor = "fastmcp"\noutput = "generated_fast"\n',
    )
    project.write(  # the MCPServer tools in the other framework's flavor
        "wrong.toml",
        '[tool.mcp-codegen]\nsources = ["pkg/tools.py"]\nflavor = "fastmcp"\noutput = "generated_wrong"\n',
    )
    for config in ("pyproject.toml", "fast.toml", "wrong.toml"):
        result = project.run("--config", str(root / config), "generate")
        assert result.returncode == 0, result.stderr
    return root


def _copy(project: Path, tmp_path: Path) -> Path:
    shutil.copytree(project, tmp_path / "p")
    return tmp_path / "p"


def _probe(root: Path, generated: str, target: str, framework: str, *extra: str) -> dict[str, Any]:
    env = environment()
    env["PYTHONPATH"] = f"{root}:{REPO}"
    done = subprocess.run(
        [sys.executable, str(PROBE), generated, target, framework, *extra],
        cwd=root, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _generated(root: Path, generated: str) -> list[dict[str, Any]]:
    from mcp_codegen.runtime import load_tools

    return load_tools(root / generated).list_tools()


@pytest.mark.slow
def test_mcpserver_lists_generated_schemas_without_inference(project: Path) -> None:
    report = _probe(project, "generated", "pkg.server:mcp", "mcp", "--call", "add", '{"a": 1}')
    assert report["warnings"] == []
    assert report["inferred_at_start"] == 0  # nothing inferred while importing and listing
    assert report["inferred_after_call"] == 1  # the called tool only, on its first call
    assert report["tools"] == _generated(project, "generated")
    assert report["answer"]["structuredContent"] == {"result": 3}
    # the framework the app does not use is never imported
    assert report["frameworks_before_import"] == []
    assert "fastmcp" not in report["frameworks_after_import"]


def test_fastmcp_lists_generated_schemas_without_inference(project: Path) -> None:
    report = _probe(
        project, "generated_fast", "pkg.fast:fast", "fastmcp", "--call", "double", '{"value": 2}'
    )
    assert report["warnings"] == []
    assert report["inferred_at_start"] == 0
    assert report["inferred_after_call"] == 1
    assert report["tools"] == _generated(project, "generated_fast")
    assert report["answer"]["structuredContent"] == {"result": 4.0}
    # (fastmcp itself imports the SDK's server package, MCPServer included, in mcp 2.x)
    assert report["frameworks_before_import"] == []


def test_changed_source_warns_once_per_tool_and_infers(project: Path, tmp_path: Path) -> None:
    root = _copy(project, tmp_path)
    tools = root / "pkg" / "tools.py"
    tools.write_text(tools.read_text().replace("return a + b", "return a + b + 0"))
    report = _probe(root, "generated", "pkg.server:mcp", "mcp")
    stale = [w for w in report["warnings"] if w.startswith("StaleSchemaWarning")]
    assert len(stale) == 2, report["warnings"]  # one per tool of the changed file, no more
    assert all("mcp-codegen generate" in w and "changed since generation" in w for w in stale)
    assert {"'add'", "'shout'"} == {w.split("tool ")[1].split(":")[0] for w in stale}
    # each at its tool's `@mcp.tool` line in the user's file, not in the SDK that registered it
    lines = tools.read_text().splitlines()
    decorators = {n + 1 for n, line in enumerate(lines) if line.startswith("@mcp.tool(")}
    assert len(decorators) == 2
    at = {
        tuple(w)
        for w, text in zip(report["warned_at"], report["warnings"], strict=True)
        if text in stale
    }
    assert at == {(str(tools), line) for line in decorators}, report["warned_at"]
    assert report["inferred_at_start"] == 2  # both inferred the framework's way
    assert report["tools"] == _generated(project, "generated")  # which still agrees


def test_tool_without_entry_warns_and_infers(project: Path, tmp_path: Path) -> None:
    root = _copy(project, tmp_path)
    (root / "pkg" / "extra.py").write_text(
        "from pkg.app import mcp\n\n\n@mcp.tool()\ndef late(x: int) -> int:\n    return x\n"
    )
    (root / "pkg" / "server.py").write_text(
        "from pkg import extra, tools  # noqa: F401\nfrom pkg.app import mcp\n"
    )
    report = _probe(root, "generated", "pkg.server:mcp", "mcp")
    assert len(report["warnings"]) == 1, report["warnings"]
    assert "tool 'late'" in report["warnings"][0] and "no generated entry" in report["warnings"][0]
    assert "mcp-codegen generate" in report["warnings"][0]
    assert report["inferred_at_start"] == 1  # only the new tool
    assert [t["name"] for t in report["tools"]] == ["late", "add", "shout"]  # import order


def test_strict_refuses_to_start(project: Path, tmp_path: Path) -> None:
    root = _copy(project, tmp_path)
    tools = root / "pkg" / "tools.py"
    tools.write_text(tools.read_text() + "\n# edited\n")
    report = _probe(root, "generated", "pkg.server:mcp", "mcp", "--strict")
    assert report["error"].startswith(
        "GeneratedSchemaError: refusing to start (strict): tool 'add'"
    )
    assert "mcp-codegen generate" in report["error"]
    done = _run_cli(root, "--strict")
    assert done.returncode == 2
    assert "mcp-codegen run: refusing to start (strict): tool 'add'" in done.stderr


def test_strict_starts_when_current(project: Path) -> None:
    report = _probe(project, "generated", "pkg.server:mcp", "mcp", "--strict")
    assert report["warnings"] == [] and report["inferred_at_start"] == 0


def test_clean_flavor_is_refused_with_a_clear_message() -> None:
    done = _run_cli(REPO, target="examples.bookshop:catalog", generated=str(REPO / "generated"))
    assert done.returncode == 2
    assert "FLAVOR 'clean'" in done.stderr and 'flavor = "mcp"' in done.stderr
    assert "mcp-codegen serve" in done.stderr


def test_the_manifest_is_checked_at_once_and_the_modules_at_the_first_lookup(
    project: Path, tmp_path: Path
) -> None:
    from mcp_codegen.runtime import GeneratedModuleError
    from mcp_codegen.runtime._hook.entries import GeneratedIndex

    with pytest.raises(GeneratedModuleError, match="no such directory"):
        GeneratedIndex(tmp_path / "missing", strict=False)
    root = _copy(project, tmp_path)
    module = root / "generated" / "pkg" / "tools.py"
    module.write_text(module.read_text(encoding="utf-8") + "\nimport os\n", encoding="utf-8")
    index = GeneratedIndex(root / "generated", strict=False)  # nothing but the manifest read yet

    def add(a: int, b: int = 2) -> int:
        return a + b

    add.__module__, add.__qualname__ = "pkg.tools", "add"
    with pytest.raises(
        GeneratedModuleError, match=r"tools\.py: not a literal-only generated module"
    ):
        index.entry(add, None, "mcp")


def test_wrong_framework_flavor_is_refused(project: Path) -> None:
    report = _probe(project, "generated_wrong", "pkg.server:mcp", "mcp")
    assert report["error"].startswith("GeneratedSchemaError:")
    assert 'needs flavor "mcp"' in report["error"]


def test_run_calls_a_function_target_with_argv(project: Path, tmp_path: Path) -> None:
    root = _copy(project, tmp_path)
    (root / "pkg" / "cli.py").write_text(
        "import sys\n\nfrom pkg.server import mcp\n\n\ndef main():\n"
        "    assert sys.argv == ['pkg.cli:main', '--flag', 'x'], sys.argv\n    mcp.run()\n"
    )
    answers = drive(
        [*hooked_command("pkg.cli:main", root / "generated"), "--", "--flag", "x"],
        [("shout", {"text": "hi"})],
        cwd=root,
    )
    assert [t["name"] for t in answers["tools"]] == ["add", "shout"]
    assert answers["answers"][0]["structuredContent"] == {"result": "HI"}


def _run_cli(
    root: Path, *options: str, target: str = "pkg.server:mcp", generated: str = "generated"
) -> subprocess.CompletedProcess[str]:
    env = environment()
    env["PYTHONPATH"] = f"{root}:{REPO}"
    return subprocess.run(
        hooked_command(target, Path(generated), *options),
        cwd=root, env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("pkg.server", "TARGET must be module:function or module:object"),
        ("pkg.nowhere:mcp", "cannot load pkg.nowhere:mcp: No module named 'pkg.nowhere'"),
        ("pkg.server:missing", "cannot load pkg.server:missing"),
        ("pkg.app:MCPServer.name", "pkg.app:MCPServer.name is neither callable nor has a .run"),
    ],
)
def test_run_refuses_a_bad_target(project: Path, target: str, message: str) -> None:
    done = _run_cli(project, target=target)
    assert done.returncode == 2, done.stderr
    assert f"mcp-codegen run: {message}" in done.stderr
