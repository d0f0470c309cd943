"""The distribution installs as itself (issue 10, item 7).

Builds the wheel, installs it with its ``server`` extra into a fresh virtual environment that
cannot see this repository (created from a temporary directory, no ``PYTHONPATH``), and drives
the installed ``mcp-codegen`` command on a small project outside the repository: ``generate``,
``check``, ``export`` and ``serve`` (over stdio, with the official MCP client). The generated
files must equal what the source tree generates for the same project, and their header must
name the version the installed distribution reports.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

import mcp_codegen
from tests.helpers.project import REPO, run_codegen

pytestmark = [pytest.mark.process, pytest.mark.e2e]

DISTRIBUTION = "mcp-schema-codegen"
WHEELHOUSE = (
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / f"{DISTRIBUTION}-tests"
)
TOOLS = '''
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from mcp_codegen.decorators import tool


class Book(BaseModel):
    title: str
    year: int


@tool(read_only=True)
def find_books(
    query: str,
    limit: Annotated[int, Field(ge=1, le=50)] = 10,
    sort: Literal["title", "year"] = "title",
) -> list[Book]:
    """Find books.

    Args:
        query: Words to look for.
    """
    return [Book(title=query.title(), year=2001)][:limit]
'''


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}"
    return done


def _write_project(root: Path) -> Path:
    (root / "shop").mkdir(parents=True)
    (root / "shop" / "__init__.py").write_text("")
    (root / "shop" / "tools.py").write_text(textwrap.dedent(TOOLS).lstrip())
    (root / "pyproject.toml").write_text('[tool.mcp-codegen]\nsources = ["shop"]\n')
    return root


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted((root / "generated").rglob("*.py"))
        if "__pycache__" not in p.parts
    }


def _install(python: Path, wheel: Path, work: Path, env: dict[str, str]) -> None:
    """``pip install WHEEL[server]`` into ``python``'s venv, the dependencies from a wheelhouse
    kept between runs (a local install takes seconds; asking the indexes for ~35 packages took
    30 s and more). A wheelhouse that lacks something is filled from the index first."""
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    local = [*pip, "--python", str(python), "install", "-q", "--no-index"]
    local += ["--find-links", str(WHEELHOUSE), f"{wheel}[server]"]
    if WHEELHOUSE.is_dir():
        done = subprocess.run(local, cwd=work, env=env, capture_output=True, timeout=300)
        if done.returncode == 0:
            return
    _run([*pip, "download", "-q", "-d", str(WHEELHOUSE), f"{wheel}[server]"], work, env)
    (WHEELHOUSE / wheel.name).unlink(missing_ok=True)  # always install the wheel just built
    _run(local, work, env)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A fresh venv with the built wheel, and an environment that points nowhere near REPO."""
    work = tmp_path_factory.mktemp("install")
    assert not work.resolve().is_relative_to(REPO)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    wheels = work / "wheels"
    # --no-build-isolation: hatchling comes from the test extra, not from the index.
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
    _run([*build, "-w", str(wheels), str(REPO)], work, env)
    (wheel,) = wheels.glob("*.whl")
    assert wheel.name == f"mcp_schema_codegen-{mcp_codegen.__version__}-py3-none-any.whl"
    venv = work / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], work, env)
    _install(venv / "bin" / "python", wheel, work, env)
    env["PATH"] = os.pathsep.join([str(venv / "bin"), env.get("PATH", "")])
    return venv, env


def test_the_distribution_name_is_the_one_in_pyproject() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["name"] == DISTRIBUTION
    assert project["scripts"] == {"mcp-codegen": "mcp_codegen.cli:main"}
    assert "version" in project["dynamic"]  # from mcp_codegen.__version__, one source of truth


@pytest.mark.slow
def test_installed_wheel_generates_checks_exports_and_serves(
    installed: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    venv, env = installed
    python, command = str(venv / "bin" / "python"), str(venv / "bin" / "mcp-codegen")
    root = _write_project(tmp_path / "elsewhere")

    where = _run(
        [
            python,
            "-c",
            "import mcp_codegen, importlib.metadata as m; "
            f"print(mcp_codegen.__file__); print(m.version({DISTRIBUTION!r}))",
        ],
        root,
        env,
    ).stdout.splitlines()
    assert Path(where[0]).is_relative_to(venv), where  # the wheel's copy, not the source tree
    version = where[1]
    assert version == mcp_codegen.__version__
    assert _run([command, "--version"], root, env).stdout.strip() == f"mcp-codegen {version}"

    generated = _run([command, "generate"], root, env)
    assert "1 tools in 1 modules" in generated.stdout, generated.stdout
    module = (root / "generated" / "shop" / "tools.py").read_text()
    assert module.splitlines()[0] == (
        f"# Generated by mcp-codegen {version} from shop/tools.py. Do not edit by hand."
    )
    assert f'GENERATOR_VERSION = "{version}"' in module.splitlines()

    # The source tree, run on a copy of the same project, writes the same bytes.
    twin = _write_project(tmp_path / "twin")
    assert run_codegen(twin, "generate").returncode == 0
    assert _tree(root) == _tree(twin)

    checked = _run([command, "check", "--no-cache"], root, env)
    assert "generated/ is up to date (2 files)" in checked.stdout

    exported: dict[str, Any] = json.loads(_run([command, "export"], root, env).stdout)
    (tool,) = exported["tools"]
    assert tool["name"] == "find_books"
    assert tool["inputSchema"]["required"] == ["query"]
    assert tool["inputSchema"]["properties"]["limit"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 50,
        "default": 10,
    }
    assert tool["annotations"] == {"readOnlyHint": True}

    async def session() -> tuple[str, list[dict[str, Any]], dict[str, Any]]:
        params = StdioServerParameters(
            command=command, args=["serve", "--generated", "generated"], cwd=str(root), env=env
        )
        with anyio.fail_after(60):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
                negotiated = (await client.initialize()).protocol_version
                listed = await client.list_tools()
                called = await client.call_tool("find_books", {"query": "dune", "limit": 1})
                return (
                    negotiated,
                    [t.model_dump(by_alias=True, exclude_none=True) for t in listed.tools],
                    called.model_dump(by_alias=True),
                )

    negotiated, listed, called = anyio.run(session)
    # The server lists the variant of the revision the client negotiated (README, "Protocol
    # revisions"); `export --protocol` prints the same variant from the installed command.
    for_client = json.loads(_run([command, "export", "--protocol", negotiated], root, env).stdout)
    assert listed == for_client["tools"]
    assert called["isError"] is False
    assert called["structuredContent"] == {"result": [{"title": "Dune", "year": 2001}]}


@pytest.mark.slow
def test_no_source_tree_leaks_into_the_venv(installed: tuple[Path, dict[str, str]]) -> None:
    venv, env = installed
    paths = _run(
        [str(venv / "bin" / "python"), "-c", "import sys, json; print(json.dumps(sys.path))"],
        Path("/"),
        env,
    )
    assert not any(Path(p).is_relative_to(REPO) for p in json.loads(paths.stdout) if p)
