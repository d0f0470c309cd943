"""``mcp-codegen run "pkg.server:create_server(...)"``: servers built by factories get a record
keyed by the call, and the fast path serves them (SDK 2.x and fastmcp)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mcp_codegen._shared.format import SERVERS_FILE, check_servers
from mcp_codegen._shared.reader import parse_literal_module
from tests.helpers.project import Project, codegen_env
from tests.runtime.run.run_support import INITIALIZED, exchange, initialize, request, run_command

pytestmark = pytest.mark.process

CALL = "pkg.server:create_server(namespace='team_')"
SERVERS = {
    "mcp": '''
        import os

        from mcp.server.mcpserver import MCPServer


        def create_server(namespace: str = "") -> MCPServer:
            server = MCPServer(f"{namespace}notes", instructions="Notes.")

            @server.tool(name=f"{namespace}add", description=f"Add for {namespace}.")
            def add(a: int, b: int) -> int:
                return a + b

            @server.tool()
            def echo(text: str) -> str:
                """Say it back."""
                return text

            return server


        def unsteady_server() -> MCPServer:
            server = MCPServer("unsteady", version=os.environ.get("DEMO_VERSION", "dev"))

            @server.tool()
            def shout(text: str) -> str:
                """Say it louder."""
                return text.upper()

            return server


        if os.environ.get("DEMO_FAIL"):  # an import that fails, sources as generated
            raise RuntimeError("slow dependency missing")
        ''',
    "fastmcp": '''
        import os

        from fastmcp import FastMCP


        def create_server(namespace: str = "") -> FastMCP:
            server = FastMCP(f"{namespace}notes", instructions="Notes.")

            @server.tool(name=f"{namespace}add", description=f"Add for {namespace}.")
            def add(a: int, b: int) -> int:
                return a + b

            @server.tool
            def echo(text: str) -> str:
                """Say it back."""
                return text

            return server


        def unsteady_server() -> FastMCP:
            server = FastMCP("unsteady", version=os.environ.get("DEMO_VERSION", "dev"))

            @server.tool
            def shout(text: str) -> str:
                """Say it louder."""
                return text.upper()

            return server


        if os.environ.get("DEMO_FAIL"):  # an import that fails, sources as generated
            raise RuntimeError("slow dependency missing")
        ''',
}


def _records(root: Path) -> dict[str, dict[str, object]]:
    path = root / "generated" / SERVERS_FILE
    values = parse_literal_module(path.read_text(encoding="utf-8"), str(path))
    return {record["object"]: record for record in check_servers(values, str(path))}


@pytest.fixture(scope="module", params=["mcp", "fastmcp"])
def built(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = Project(tmp_path_factory.mktemp(request.param))
    project.write("pkg/__init__.py", "")
    project.write("pkg/server.py", SERVERS[request.param])
    project.configure(
        'sources = ["pkg"]\n'
        f'flavor = "{request.param}"\n'
        f'factories = ["{CALL}", "pkg.server:unsteady_server()"]\n'
    )
    done = project.run("generate", env=codegen_env(DEMO_VERSION="1.2.3"))
    assert done.returncode == 0, done.stderr
    # the one warning: at the def of the factory whose answer depends on the environment
    warnings = [line for line in done.stderr.splitlines() if ": warning: " in line]
    assert len(warnings) == 1, done.stderr
    assert warnings[0].startswith(
        "pkg/server.py:21:1: warning: server pkg.server:unsteady_server(): its initialize"
    ), warnings
    # deterministic: the same bytes again without the cache
    before = project.snapshot()
    again = project.run("generate", "--no-cache", env=codegen_env(DEMO_VERSION="1.2.3"))
    assert again.returncode == 0, again.stderr
    assert project.snapshot() == before
    return project.root


def _run(
    root: Path, target: str, messages: list[object], expect: set[int], *options: str, **env: str
):
    return exchange(
        run_command("generated", target, *options),
        messages,
        expect,
        cwd=root,
        env=codegen_env(PYTHONPATH=str(root), **env),
        timeout=60,
    )


OPENING = [initialize(), INITIALIZED, request(2, "tools/list")]


@pytest.mark.slow
def test_record_keyed_by_the_call(built: Path) -> None:
    records = _records(built)
    assert set(records) == {CALL, "pkg.server:unsteady_server()"}
    record = records[CALL]
    assert record["source"] == "pkg/server.py" and record["line"] == 6
    assert record["tools"] == ("team_add", "echo") or record["tools"] == ("echo", "team_add")
    initialize_answers = record["initialize"]
    assert isinstance(initialize_answers, dict)
    assert initialize_answers["2025-11-25"]["serverInfo"]["name"] == "team_notes"
    assert records["pkg.server:unsteady_server()"]["initialize"] is None


@pytest.mark.parametrize("target", [CALL, "pkg.server:create_server( namespace = 'team_' )"])
def test_same_answers(built: Path, target: str) -> None:
    """Byte-identical with and without the fast path, however the call is spaced."""
    messages = [
        *OPENING,
        request(3, "tools/call", {"name": "team_add", "arguments": {"a": 1, "b": 2}}),
        request(4, "tools/call", {"name": "team_add", "arguments": {"a": "x"}}),
        request(5, "tools/list"),
        request(6, "ping"),
    ]
    expect = {1, 2, 3, 4, 5, 6}
    fast, _, err = _run(built, target, messages, expect)
    plain, _, _ = _run(built, target, messages, expect, "--no-fast-path")
    assert set(fast) == expect, err
    assert fast == plain
    assert [t["name"] for t in json.loads(fast[2])["result"]["tools"]] in (
        ["team_add", "echo"],
        ["echo", "team_add"],
    )


@pytest.mark.parametrize("target", [CALL, "pkg.server:create_server(namespace = 'team_')"])
def test_answers_before_the_factory_runs(built: Path, tmp_path: Path, target: str) -> None:
    """The factory's module fails to import: the fast path still answers the opening from the
    record of the call (so the record was found for this spelling); plain answers nothing. The
    call after the opening needs the server, so the failed import is reported."""
    root = tmp_path / "p"
    shutil.copytree(built, root, ignore=shutil.ignore_patterns("__pycache__"))
    call = request(3, "tools/call", {"name": "team_add", "arguments": {}})
    fast, _, err = _run(root, target, [*OPENING, call], {1, 2}, DEMO_FAIL="1")
    plain, _, _ = _run(root, target, OPENING, {1, 2}, "--no-fast-path", DEMO_FAIL="1")
    assert set(fast) == {1, 2}, err
    assert b'"team_add"' in fast[2]
    assert plain == {}
    assert "slow dependency missing" in err


def test_unrecorded_call_runs_without_the_fast_path(built: Path, tmp_path: Path) -> None:
    """Another argument, or the server whose answer was not recorded: served by the framework
    (the failing import proves nothing was answered from literals)."""
    root = tmp_path / "p"
    shutil.copytree(built, root, ignore=shutil.ignore_patterns("__pycache__"))
    for target in ("pkg.server:create_server(namespace='other_')", "pkg.server:unsteady_server()"):
        fast, _, err = _run(root, target, OPENING, {1, 2}, DEMO_FAIL="1")
        assert fast == {}, target
        assert "slow dependency missing" in err
        assert (
            f"mcp-codegen run: note: the stdio fast path is off for {target}: " in err
        )  # never silently


def test_a_bad_call_is_refused(built: Path) -> None:
    _, _, err = _run(built, "pkg.server:create_server(namespace=name)", OPENING, set())
    assert "is not a literal" in err
