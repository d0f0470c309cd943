"""The wheel is what the tests test (issue 10, item 7; issue 34, items 1-2).

Builds the wheel, installs it with its ``server`` extra and fastmcp into a fresh virtual
environment that cannot see this repository (created from a temporary directory, no
``PYTHONPATH``), and drives the installed ``mcp-codegen`` command on projects outside the
repository:

- a plain ``@tool`` project (flavor clean): ``generate``, ``check``, ``export`` and ``serve``
  (over stdio, with the official MCP client); the generated files equal what the source tree
  generates, their header names the installed version;
- a real ``MCPServer`` project (mcp SDK 2.x) and a real ``fastmcp.FastMCP`` project (fastmcp 4.x):
  generate -> no-op generate -> check -> run -> export -> diff. The no-op ``generate`` and
  ``check`` are build-cache hits: no user code is imported (each tool module writes a marker
  when it is imported) and no cache entry is written. ``run`` lists, over stdio with the
  official client, exactly what the framework serving the same module lists, and a call
  answers as the framework's does;

and checks what the wheel holds: ``mcp_codegen`` (with ``py.typed`` and the templates) and its
dist-info, nothing else at the top level, and the MIT license in its metadata.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

import mcp_codegen
from tests.helpers.project import REPO, run_codegen

pytestmark = [pytest.mark.process, pytest.mark.e2e, pytest.mark.slow]

DISTRIBUTION = "mcp-schema-codegen"
WHEELHOUSE = (
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / f"{DISTRIBUTION}-tests"
)
MARKER = "imported.marker"
#: Written first in every tool module: a build that imports user code leaves the marker.
MARK_IMPORT = f'from pathlib import Path\n\nPath(__file__).with_name("{MARKER}").write_text("x")\n'
TOOLS = '''
import colorsys  # a backport of this name in site-packages must not replace the stdlib's

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
#: The framework projects' server module: ``{head}`` builds the server, ``{tool}`` decorates.
FRAMEWORK_TOOLS = '''
from typing import Annotated, Literal

from pydantic import BaseModel, Field

{head}


class Note(BaseModel):
    title: str
    body: str = ""


@{tool}
def add_note(title: str, body: str = "") -> Note:
    """Add a note."""
    return Note(title=title, body=body)


@{tool}
def find_notes(
    query: str,
    limit: Annotated[int, Field(ge=1, le=50)] = 10,
    order: Literal["new", "old"] = "new",
) -> list[str]:
    """Find notes.

    Args:
        query: Words to look for.
    """
    return [query.title()][:limit]
'''
FRAMEWORKS = {
    "mcp": ('from mcp.server.mcpserver import MCPServer\n\nmcp = MCPServer("notes")', "mcp.tool()"),
    "fastmcp": ('from fastmcp import FastMCP\n\nmcp = FastMCP("notes")', "mcp.tool"),
}


def _run(
    command: list[str], cwd: Path, env: dict[str, str], expect: int = 0
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == expect, f"{' '.join(command)}:\n{done.stdout}\n{done.stderr}"
    return done


def _write_project(root: Path) -> Path:
    (root / "shop").mkdir(parents=True)
    (root / "shop" / "__init__.py").write_text("")
    (root / "shop" / "tools.py").write_text(MARK_IMPORT + textwrap.dedent(TOOLS))
    (root / "pyproject.toml").write_text('[tool.mcp-codegen]\nsources = ["shop"]\n')
    return root


def _write_framework_project(root: Path, flavor: str) -> Path:
    head, decorator = FRAMEWORKS[flavor]
    (root / "app").mkdir(parents=True)
    (root / "app" / "__init__.py").write_text("")
    source = FRAMEWORK_TOOLS.format(head=head, tool=decorator)
    (root / "app" / "server.py").write_text(MARK_IMPORT + source)
    (root / "pyproject.toml").write_text(
        f'[tool.mcp-codegen]\nsources = ["app"]\nflavor = "{flavor}"\n'
        'run_targets = ["app.server:mcp"]\n'
    )
    (root / ".gitignore").write_text(f"{MARKER}\n")
    return root


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted((root / "generated").rglob("*.py"))
        if "__pycache__" not in p.parts
    }


def _requirement(name: str) -> str:
    """``name``'s requirement as the test extra pins it (one source for the versions)."""
    test = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    (found,) = [r for r in test["test"] if re.match(rf"{name}\b", r)]
    return found


def _install(python: Path, wheel: Path, work: Path, env: dict[str, str]) -> None:
    """``pip install WHEEL[server] fastmcp`` into ``python``'s venv, the dependencies from a
    wheelhouse kept between runs (a local install takes seconds; asking the indexes for ~60
    packages took 30 s and more). A wheelhouse that lacks something is filled from the index
    first."""
    wanted = [f"{wheel}[server]", _requirement("fastmcp")]
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    local = [*pip, "--python", str(python), "install", "-q", "--no-index"]
    local += ["--find-links", str(WHEELHOUSE), *wanted]
    if WHEELHOUSE.is_dir():
        done = subprocess.run(local, cwd=work, env=env, capture_output=True, timeout=300)
        if done.returncode == 0:
            return
    _run([*pip, "download", "-q", "-d", str(WHEELHOUSE), *wanted], work, env)
    (WHEELHOUSE / wheel.name).unlink(missing_ok=True)  # always install the wheel just built
    _run(local, work, env)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of this checkout, built without an index round-trip."""
    work = tmp_path_factory.mktemp("wheel")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    # --no-build-isolation: hatchling comes from the test extra, not from the index.
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
    _run([*build, "-w", str(work), str(REPO)], work, env)
    (built,) = work.glob("*.whl")
    assert built.name == f"mcp_schema_codegen-{mcp_codegen.__version__}-py3-none-any.whl"
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A fresh venv with the built wheel, and an environment that points nowhere near REPO."""
    work = tmp_path_factory.mktemp("install")
    assert not work.resolve().is_relative_to(REPO)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["FASTMCP_SHOW_SERVER_BANNER"] = "false"
    venv = work / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], work, env)
    python = venv / "bin" / "python"
    _install(python, wheel, work, env)
    # An obsolete backport named like a standard module (PyPI's `pathlib`, `typing`) in
    # site-packages: the interpreter imports the standard one, and so must a build's workers
    # (the clean project's tool module imports it).
    (_site_packages(venv) / "colorsys.py").write_text('raise ImportError("the backport")\n')
    imported = _run([str(python), "-c", "import colorsys; print(colorsys.__file__)"], work, env)
    assert not Path(imported.stdout.strip()).is_relative_to(venv)
    env["PATH"] = os.pathsep.join([str(venv / "bin"), env.get("PATH", "")])
    return venv, env


def _site_packages(venv: Path) -> Path:
    (found,) = (venv / "lib").glob("python3.*/site-packages")
    return found


def test_the_distribution_name_is_the_one_in_pyproject() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["name"] == DISTRIBUTION
    assert project["scripts"] == {"mcp-codegen": "mcp_codegen._cli:main"}
    assert "version" in project["dynamic"]  # from mcp_codegen.__version__, one source of truth


def test_the_wheel_installs_mcp_codegen_and_nothing_else(wheel: Path) -> None:
    """Nothing named ``codegen`` (another PyPI project's name) or anything else besides
    ``mcp_codegen``; typed (PEP 561), its templates inside, the MIT license in its metadata."""
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        dist_info = f"mcp_schema_codegen-{mcp_codegen.__version__}.dist-info"
        assert {name.split("/")[0] for name in names} == {"mcp_codegen", dist_info}
        assert "mcp_codegen/py.typed" in names
        templates = sorted(n.rsplit("/", 1)[1] for n in names if n.endswith(".jinja"))
        assert templates == sorted(p.name for p in (REPO / "templates").glob("*.jinja"))
        assert all(n.startswith("mcp_codegen/templates/") for n in names if n.endswith(".jinja"))
        metadata = archive.read(f"{dist_info}/METADATA").decode()
        license_text = archive.read(f"{dist_info}/licenses/LICENSE").decode()
    assert "License-Expression: MIT" in metadata.splitlines()
    assert "License-File: LICENSE" in metadata.splitlines()
    assert license_text == (REPO / "LICENSE").read_text()
    assert license_text.startswith("MIT License")


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

    _assert_cache_hits(command, root, root / "shop", env)
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

    serve = StdioServerParameters(
        command=command, args=["serve", "--generated", "generated"], cwd=str(root), env=env
    )
    negotiated, listed, called = anyio.run(
        _session, serve, "find_books", {"query": "dune", "limit": 1}
    )
    # The server lists the variant of the revision the client negotiated (README, "Protocol
    # revisions"); `export --protocol` prints the same variant from the installed command.
    for_client = json.loads(_run([command, "export", "--protocol", negotiated], root, env).stdout)
    assert listed == for_client["tools"]
    assert called["isError"] is False
    assert called["structuredContent"] == {"result": [{"title": "Dune", "year": 2001}]}


@pytest.mark.parametrize("flavor", sorted(FRAMEWORKS))
def test_a_framework_project_from_generate_to_diff(
    flavor: str, installed: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    """generate -> no-op generate -> check -> run -> export -> diff, all with the installed
    command, on a real ``MCPServer`` or ``fastmcp.FastMCP`` server."""
    venv, env = installed
    python, command = str(venv / "bin" / "python"), str(venv / "bin" / "mcp-codegen")
    root = _write_framework_project(tmp_path / flavor, flavor)

    generated = _run([command, "generate"], root, env)
    assert "2 tools in" in generated.stdout, generated.stdout
    assert (root / "generated" / "__servers__.py").is_file()  # the fast path's records
    _assert_cache_hits(command, root, root / "app", env)

    # run: the official client over stdio, against the framework serving the same module
    call = ("find_notes", {"query": "milk", "limit": 1})
    run = StdioServerParameters(
        command=command, args=["run", "app.server:mcp"], cwd=str(root), env=env
    )
    plain = StdioServerParameters(
        command=python, args=["-c", "import app.server as s; s.mcp.run()"], cwd=str(root), env=env
    )
    negotiated, listed, called = anyio.run(_session, run, *call)
    framework_negotiated, framework_listed, framework_called = anyio.run(_session, plain, *call)
    assert negotiated == framework_negotiated
    assert [t["name"] for t in listed] == ["add_note", "find_notes"]
    assert listed == framework_listed
    assert called == framework_called
    assert called["isError"] is False
    assert called["structuredContent"] == {"result": ["Milk"]}

    exported = json.loads(_run([command, "export", "--protocol", negotiated], root, env).stdout)
    assert exported["tools"] == framework_listed

    # diff: two states of the project in git; dropping an enum value of an input breaks clients
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    _run([*git, "init", "-q"], root, env)
    _run([*git, "add", "-A"], root, env)
    _run([*git, "commit", "-qm", "first"], root, env)
    server = root / "app" / "server.py"
    server.write_text(server.read_text().replace('Literal["new", "old"]', 'Literal["new"]'))
    _run([command, "generate"], root, env)
    diff = _run([command, "diff", "HEAD", "--format", "json"], root, env, expect=1)
    report = json.loads(diff.stdout)
    assert report["summary"]["breaking"] == 1, report
    (change,) = report["changes"]
    assert (change["kind"], change["tool"], change["severity"]) == (
        "input_enum_value_removed",
        "find_notes",
        "breaking",
    )


def _assert_cache_hits(command: str, root: Path, package: Path, env: dict[str, str]) -> None:
    """A no-op ``generate`` and ``check`` are build-cache hits: they import no user code (the
    tool module marks every import) and write no cache entry (an entry is written by replacing
    its file: a new inode)."""
    marker = package / MARKER
    assert marker.is_file(), "the first build must have imported the tools (else: no oracle)"
    entries = _entries(root)
    assert entries
    for verb, says in (("generate", "0 written, 0 removed"), ("check", "is up to date")):
        marker.unlink(missing_ok=True)
        done = _run([command, verb], root, env)
        assert says in done.stdout, done.stdout
        assert not marker.exists(), f"a no-op `{verb}` imported user code: a cache miss"
        assert _entries(root) == entries, f"a no-op `{verb}` wrote cache entries"


def _entries(root: Path) -> dict[str, int]:
    entries = root / ".mcp-codegen-cache" / "entries"
    return {p.relative_to(entries).as_posix(): p.stat().st_ino for p in entries.rglob("*")}


async def _session(
    params: StdioServerParameters, tool: str, arguments: dict[str, Any]
) -> tuple[str, list[dict[str, Any]], dict[str, Any]]:
    """The negotiated revision, the listed tools and one call's result (wire JSON)."""
    with anyio.fail_after(120):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            negotiated = (await client.initialize()).protocol_version
            listed = await client.list_tools()
            called = await client.call_tool(tool, arguments)
            return (
                negotiated,
                [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in listed.tools],
                called.model_dump(by_alias=True, mode="json", exclude_none=True),
            )


def test_no_source_tree_leaks_into_the_venv(installed: tuple[Path, dict[str, str]]) -> None:
    venv, env = installed
    paths = _run(
        [str(venv / "bin" / "python"), "-c", "import sys, json; print(json.dumps(sys.path))"],
        Path("/"),
        env,
    )
    assert not any(Path(p).is_relative_to(REPO) for p in json.loads(paths.stdout) if p)
