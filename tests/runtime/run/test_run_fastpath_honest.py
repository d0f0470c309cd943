"""The fast path never answers what the server would not (issue 34.3), seen by the official client.

Each case drives ``mcp-codegen run`` over stdio with ``mcp.ClientSession`` + ``stdio_client``:
a target that cannot be imported, a changed source, a deleted or corrupt generated module, a
tool module the target never imports, a target with no record, and what only the import can
tell (a listed tool that is not registered, a registered one that was not listed).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.helpers.project import REPO, Project, codegen_env
from tests.runtime.run.run_support import run_command, with_client

pytestmark = pytest.mark.process

SERVERS = {
    "mcp": '''
        import os
        import time

        from mcp.server.mcpserver import MCPServer

        time.sleep(float(os.environ.get("DEMO_SLOW", "0")))

        mcp = MCPServer("demo")


        @mcp.tool()
        def add(a: int, b: int) -> int:
            """Add two numbers."""
            return a + b


        def hidden(text: str) -> str:
            """Registered unless DEMO_HIDE is set."""
            return text


        def extra(text: str) -> str:
            """Registered only when DEMO_EXTRA is set."""
            return text


        if not os.environ.get("DEMO_HIDE"):
            mcp.add_tool(hidden)
        if os.environ.get("DEMO_EXTRA"):
            mcp.add_tool(extra)
        ''',
    "fastmcp": '''
        import os
        import time

        from fastmcp import FastMCP

        time.sleep(float(os.environ.get("DEMO_SLOW", "0")))

        mcp = FastMCP("demo")


        @mcp.tool
        def add(a: int, b: int) -> int:
            """Add two numbers."""
            return a + b


        def hidden(text: str) -> str:
            """Registered unless DEMO_HIDE is set."""
            return text


        def extra(text: str) -> str:
            """Registered only when DEMO_EXTRA is set."""
            return text


        if not os.environ.get("DEMO_HIDE"):
            mcp.add_tool(hidden)
        if os.environ.get("DEMO_EXTRA"):
            mcp.add_tool(extra)
        ''',
}
#: A tool module that registers on the server but that the server module never imports.
SHOUT = '''
    from pkg.server import mcp


    @mcp.tool{call}
    def shout(text: str) -> str:
        """Shout it."""
        return text.upper()
    '''
TARGET = "pkg.server:mcp"


def _project(root: Path, flavor: str, *, run_targets: bool) -> Project:
    project = Project(root)
    project.write("pkg/__init__.py", "")
    project.write("pkg/server.py", SERVERS[flavor])
    project.write("pkg/shout.py", SHOUT.format(call="()" if flavor == "mcp" else ""))
    targets = f'run_targets = ["{TARGET}"]\n' if run_targets else ""
    project.configure(f'sources = ["pkg"]\nflavor = "{flavor}"\n{targets}')
    return project


@pytest.fixture(scope="module", params=["mcp", "fastmcp"])
def built(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated project whose server module does not import ``pkg.shout`` (no run_targets:
    the record is found by scanning)."""
    root = tmp_path_factory.mktemp(request.param)
    done = _project(root, request.param, run_targets=False).run("generate")
    assert done.returncode == 0, done.stderr
    return root


def _copy(built: Path, tmp: Path) -> Path:
    ignore = shutil.ignore_patterns("__pycache__", ".mcp-codegen-cache")
    shutil.copytree(built, tmp / "p", ignore=ignore)
    return tmp / "p"


def _session(
    root: Path, steps: Any, *options: str, cwd: Path | None = None, **env: str
) -> tuple[Any, str]:
    pythonpath = env.pop("PYTHONPATH", str(root))
    return with_client(
        run_command(str(root / "generated"), TARGET, *options),
        steps,
        cwd=cwd or root,
        env=codegen_env(PYTHONPATH=pythonpath, **env),
    )


async def _list_and_call(session: Any) -> dict[str, Any]:
    initialized = await session.initialize()
    listed = await session.list_tools()
    names = [tool.name for tool in listed.tools]
    calls = {}
    for name in names:
        arguments = {"a": 1, "b": 2} if name == "add" else {"text": "x"}
        result = await session.call_tool(name, arguments)
        calls[name] = (result.is_error, [block.text for block in result.content])
    return {"initialize": initialized, "names": names, "calls": calls}


def _lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.strip()]


def test_a_target_that_cannot_be_imported_is_never_answered(built: Path, tmp_path: Path) -> None:
    """The package is not on the path: nothing is answered from the records (no listing
    followed by a crash), one line names the real cause, with and without --strict."""
    for options in ((), ("--strict",)):
        found, stderr = _session(
            built, _list_and_call, *options, cwd=tmp_path, PYTHONPATH=str(REPO)
        )
        assert isinstance(found, Exception), found
        assert _lines(stderr) == [
            f"mcp-codegen run: cannot load {TARGET}: No module named 'pkg'"
        ], stderr


def test_a_target_that_cannot_be_imported_is_named_even_without_a_generated_tree(
    tmp_path: Path,
) -> None:
    """Started where there is no configuration and no ``generated/`` (a client starts servers
    from ``/``), for a package on no path: the cause is the target, not the missing tree."""
    done = subprocess.run(
        [sys.executable, "-m", "mcp_codegen", "run", "nosuch.server:mcp"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=codegen_env(),
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert _lines(done.stderr) == [
        "mcp-codegen run: cannot load nosuch.server:mcp: No module named 'nosuch'"
    ], done.stderr


def test_a_module_the_target_never_imports_is_not_listed(built: Path) -> None:
    """``pkg.shout`` registers ``shout`` on the server, but ``pkg.server`` never imports it:
    the fast path lists what the server registers, and every listed tool can be called."""
    fast, stderr = _session(built, _list_and_call)
    plain, _ = _session(built, _list_and_call, "--no-fast-path")
    assert not isinstance(fast, Exception), stderr
    assert fast["names"] == plain["names"] == ["add", "hidden"]
    assert fast["calls"] == plain["calls"]
    assert not any(error for error, _ in fast["calls"].values())
    assert "Traceback" not in stderr and "note:" not in stderr


@pytest.mark.slow
def test_check_fails_on_a_run_target_that_never_registers_a_tool(tmp_path: Path) -> None:
    """With ``run_targets``, generate and check refuse the tool the target never registers,
    at the tool, with the fix; importing the module in the server fixes it."""
    project = _project(tmp_path, "mcp", run_targets=True)
    for command in ("generate", "check"):
        done = project.run(command)
        assert done.returncode == 2, done.stderr
        assert (
            "pkg/shout.py:5:1: tool 'shout' is generated from pkg.shout, but the run target "
            "pkg.server:mcp never registers it: importing pkg.server does not import pkg.shout"
        ) in done.stderr
        assert (
            "import pkg.shout in pkg.server, name as the run target a module that imports both "
            "(module:object), or remove pkg/shout.py from `sources`"
        ) in (done.stderr)
    assert not (tmp_path / "generated").exists()
    server = tmp_path / "pkg" / "server.py"
    server.write_text(server.read_text() + "\nimport pkg.shout  # noqa: E402\n")
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    found, stderr = _session(tmp_path, _list_and_call)
    assert not isinstance(found, Exception), stderr
    assert found["names"] == ["add", "hidden", "shout"]
    assert found["calls"]["shout"] == (False, ["X"])


def test_a_changed_source_turns_the_fast_path_off_in_one_line(built: Path, tmp_path: Path) -> None:
    """A source the target imports changed: one line says so and the server runs plain (the
    listing is the framework's, with the new description); --strict refuses, naming the file."""
    root = _copy(built, tmp_path)
    server = root / "pkg" / "server.py"
    server.write_text(server.read_text().replace("Add two numbers.", "Add two integers."))

    async def listing(session: Any) -> list[str]:
        await session.initialize()
        return [tool.description for tool in (await session.list_tools()).tools]

    found, stderr = _session(root, listing)
    assert found[0] == "Add two integers.", stderr
    notes = [line for line in _lines(stderr) if "mcp-codegen run" in line]
    assert notes == [
        f"mcp-codegen run: note: the stdio fast path is off for {TARGET}: {server} changed "
        f"since {root / 'generated' / '__servers__.py'} was generated; run `mcp-codegen generate` to "
        "turn it on again (the server starts plain)"
    ], stderr
    refused, stderr = _session(root, listing, "--strict")
    assert isinstance(refused, Exception)
    assert _lines(stderr) == [
        f"mcp-codegen run: refusing to start (strict): {server} changed since "
        f"{root / 'generated' / '__servers__.py'} was generated; run `mcp-codegen generate`"
    ], stderr


@pytest.mark.parametrize("damage", ["deleted", "corrupt"])
def test_a_broken_generated_module_is_refused_without_a_traceback(
    built: Path, tmp_path: Path, damage: str
) -> None:
    root = _copy(built, tmp_path)
    generated = root / "generated" / "pkg" / "server.py"
    if damage == "deleted":
        generated.unlink()
    else:
        generated.write_text(generated.read_text() + "\nimport os\n")
    for options in ((), ("--strict",), ("--no-fast-path",)):
        found, stderr = _session(root, _list_and_call, *options)
        assert isinstance(found, Exception), (options, found)
        lines = _lines(stderr)
        assert len(lines) == 1 and "Traceback" not in stderr, (options, stderr)
        assert lines[0].startswith(f"mcp-codegen run: refusing to start: {generated}"), lines
        assert lines[0].endswith("; run `mcp-codegen generate`"), lines


@pytest.mark.slow
def test_a_target_without_a_record_says_how_to_turn_the_fast_path_on(tmp_path: Path) -> None:
    """``pkg.app:mcp`` imports the server and binds none: no record, so one line gives the
    config line;
    with it in ``run_targets`` and regenerated, the fast path serves it without a word."""
    project = _project(tmp_path, "mcp", run_targets=False)
    project.write(
        "pkg/app.py", "import pkg.shout\nfrom pkg.server import mcp\n\n__all__ = ['mcp']\n"
    )
    assert project.run("generate").returncode == 0

    async def names(session: Any) -> list[str]:
        await session.initialize()
        return [tool.name for tool in (await session.list_tools()).tools]

    command = run_command(str(tmp_path / "generated"), "pkg.app:mcp")
    env = codegen_env(PYTHONPATH=str(tmp_path))
    found, stderr = with_client(command, names, cwd=tmp_path, env=env)
    assert found == ["add", "hidden", "shout"], stderr
    assert _lines(stderr) == [
        "mcp-codegen run: note: the stdio fast path is off for pkg.app:mcp: "
        f"{tmp_path / 'generated' / '__servers__.py'} has no record of it; add it to "
        'run_targets in [tool.mcp-codegen] (run_targets = ["pkg.app:mcp"]) and run '
        "`mcp-codegen generate`"
    ], stderr
    project.configure('sources = ["pkg"]\nflavor = "mcp"\nrun_targets = ["pkg.app:mcp"]\n')
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    found, stderr = with_client(command, names, cwd=tmp_path, env=env)
    assert found == ["add", "hidden", "shout"] and _lines(stderr) == [], stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    ("variable", "before", "after"),
    [("DEMO_HIDE", ["add", "hidden"], ["add"]), ("DEMO_EXTRA", ["add", "hidden"], None)],
)
def test_what_only_the_import_tells_is_corrected(
    built: Path, variable: str, before: list[str], after: list[str] | None
) -> None:
    """A listed tool the server turns out not to register, or one it registers that was not
    listed: known only once the server has loaded. fastmcp declares tools.listChanged, so the
    client receives notifications/tools/list_changed and the next tools/list is the corrected
    one; the SDK's MCPServer does not, so no notification is sent (its initialize says so) and
    one error names the tools. Either way, the list after the server loaded is the server's."""
    fastmcp = "fastmcp" in built.name
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if getattr(getattr(message, "root", message), "method", "") == (
            "notifications/tools/list_changed"
        ):
            changed.set()

    async def steps(session: Any) -> dict[str, Any]:
        initialized = await session.initialize()
        first = [tool.name for tool in (await session.list_tools()).tools]
        await session.call_tool("add", {"a": 1, "b": 2})  # the server has loaded by its answer
        if fastmcp:
            with anyio.fail_after(60):
                await changed.wait()
        second = [tool.name for tool in (await session.list_tools()).tools]
        return {"initialize": initialized, "first": first, "second": second}

    plain, _ = with_client(
        run_command(str(built / "generated"), TARGET, "--no-fast-path"),
        _list_and_call,
        cwd=built,
        env=codegen_env(PYTHONPATH=str(built), **{variable: "1"}),
    )
    # the import takes a while longer than the opening: the listing is answered before the
    # server is known (what this test is about), also with the listing stored
    found, stderr = with_client(
        run_command(str(built / "generated"), TARGET),
        steps,
        cwd=built,
        env=codegen_env(PYTHONPATH=str(built), DEMO_SLOW="2", **{variable: "1"}),
        on_message=on_message,
    )
    assert not isinstance(found, Exception), stderr
    assert found["initialize"] == plain["initialize"]
    tools = found["initialize"].capabilities.tools
    assert tools is not None and bool(tools.list_changed) is fastmcp
    assert found["first"] == before
    assert found["second"] == plain["names"] == (after or plain["names"])
    assert changed.is_set() is fastmcp
    errors = [line for line in _lines(stderr) if "error:" in line]
    if fastmcp:
        assert errors == [], stderr
    else:
        name = "hidden" if variable == "DEMO_HIDE" else "extra"
        assert len(errors) == 1 and f"'{name}'" in errors[0], stderr
        assert "does not declare tools.listChanged" in errors[0]
