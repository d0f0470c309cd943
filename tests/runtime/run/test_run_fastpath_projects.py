"""``mcp-codegen run`` with the fast path on small generated projects: freshness at load time,
``--strict``, and answers given before the server is even imported (SDK 2.x and fastmcp)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.helpers.project import Project, codegen_env
from tests.runtime.run.run_support import (
    INITIALIZED,
    demo_project,
    exchange,
    initialize,
    request,
    run_command,
)

pytestmark = pytest.mark.process


@pytest.fixture(scope="module", params=["mcp", "fastmcp"])
def built(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_project(tmp_path_factory.mktemp(request.param), request.param)


def _copy(built: Path, tmp: Path) -> Path:
    shutil.copytree(built, tmp / "p", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp / "p"


OPENING = [initialize(), INITIALIZED, request(2, "tools/list")]


def _run(root: Path, messages: list[object], expect: set[int], *options: str, **env: str):
    return exchange(
        run_command("generated", "pkg.server:mcp", *options),
        messages,
        expect,
        cwd=root,
        env=codegen_env(PYTHONPATH=str(root), **env),
        timeout=60,
    )


@pytest.mark.slow
def test_same_answers(built: Path) -> None:
    messages = [
        *OPENING,
        request(3, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}}),
        request(4, "tools/call", {"name": "add", "arguments": {"a": "x"}}),
        request(5, "tools/list"),
        request(6, "ping"),
    ]
    fast, _, err = _run(built, messages, {1, 2, 3, 4, 5, 6})
    plain, _, _ = _run(built, messages, {1, 2, 3, 4, 5, 6}, "--no-fast-path")
    assert set(fast) == {1, 2, 3, 4, 5, 6}, err
    assert fast == plain


@pytest.mark.slow
def test_answers_before_the_server_imports(built: Path) -> None:
    """A server whose import fails (what no cheap check before the first answer can see: its
    sources are as generated) still gets its opening answered from the literals; plain does
    not answer at all. Proves the answers come from the fast path, not the framework. The
    call after them needs the server, so the failed import is reported (at the end of input
    alone the process exits without waiting for the import)."""
    call = request(3, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
    fast, _, err = _run(built, [*OPENING, call], {1, 2}, DEMO_FAIL="1")
    plain, _, _ = _run(built, OPENING, {1, 2}, "--no-fast-path", DEMO_FAIL="1")
    assert set(fast) == {1, 2}
    assert b'"tools"' in fast[2] and b'"add"' in fast[2]
    assert plain == {}
    assert "slow dependency missing" in err


@pytest.mark.slow
def test_a_changed_source_is_served_plain(built: Path, tmp_path: Path) -> None:
    """A source changed since generation is seen before the first answer: one note, and the
    framework answers from the start (here: the new description), nothing listed stale."""
    root = _copy(built, tmp_path)
    server = root / "pkg" / "server.py"
    server.write_text(server.read_text().replace("Say it back.", "Say it back, louder."))
    messages = [*OPENING, request(3, "tools/call", {"name": "echo", "arguments": {"text": "x"}})]
    answers, notes, err = _run(root, messages, {1, 2, 3})
    plain, plain_notes, _ = _run(root, messages, {1, 2, 3}, "--no-fast-path")
    assert set(answers) == {1, 2, 3}, err
    assert answers == plain and notes == plain_notes
    assert b"louder" in answers[2]
    assert f"the stdio fast path is off for pkg.server:mcp: {server} changed" in err


def test_strict_refuses_a_stale_tree_before_answering(built: Path, tmp_path: Path) -> None:
    root = _copy(built, tmp_path)
    server = root / "pkg" / "server.py"
    server.write_text(server.read_text() + "\n# changed\n")
    answers, _, err = _run(root, OPENING, {1, 2}, "--strict")
    assert answers == {}
    assert "refusing to start (strict)" in err and "server.py" in err
    fresh, _, err = _run(built, OPENING, {1, 2}, "--strict")
    assert set(fresh) == {1, 2}, err


KEPT = '''
    import os

    from mcp.server.mcpserver import MCPServer

    mcp = MCPServer("demo")


    @mcp.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b


    @mcp.tool(
        description=os.environ.get("DEMO_DESCRIPTION", "Known at run time."),
    )  # mcp-codegen: framework
    def configured(text: str) -> str:
        return text
    '''


@pytest.mark.slow
def test_tools_kept_with_the_framework(tmp_path: Path) -> None:
    """A tool marked ``# mcp-codegen: framework`` is skipped with one note, its neighbours are
    generated, ``--strict`` starts, and tools/list comes from the framework (same bytes)."""
    project = Project(tmp_path)
    project.write("pkg/__init__.py", "")
    project.write("pkg/server.py", KEPT)
    project.configure('sources = ["pkg"]\nflavor = "mcp"\n')
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    notes = [line for line in done.stderr.splitlines() if "note:" in line]
    assert len(notes) == 1 and "'configured'" in notes[0] and "pkg/server.py:14:" in notes[0]
    assert "warning:" not in done.stderr  # the note says it: no records warning on top
    generated = (tmp_path / "generated" / "pkg" / "server.py").read_text()
    assert '"add"' in generated and "configured" not in generated
    servers = (tmp_path / "generated" / "__servers__.py").read_text()
    assert '"tools": None' in servers
    env = {"DEMO_DESCRIPTION": "Set by the deployment."}
    messages = [
        *OPENING,
        request(3, "tools/call", {"name": "configured", "arguments": {"text": "x"}}),
    ]
    answers = {}
    for options in ((), ("--no-fast-path",), ("--strict",)):
        answers[options], _, err = exchange(
            run_command("generated", "pkg.server:mcp", *options),
            messages,
            {1, 2, 3},
            cwd=tmp_path,
            env=codegen_env(PYTHONPATH=str(tmp_path), **env),
            timeout=60,
        )
        assert set(answers[options]) == {1, 2, 3}, err
    assert answers[()] == answers[("--no-fast-path",)] == answers[("--strict",)]
    assert b"Set by the deployment." in answers[()][2]
