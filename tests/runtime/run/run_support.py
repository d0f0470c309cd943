"""Drive ``mcp-codegen run`` over raw stdio: pipelined JSON-RPC lines in, answers out by id; and
the generated projects the run tests drive."""

from __future__ import annotations

import json
import os
import selectors
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.helpers.project import Project, codegen_env, run_codegen

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / "tests" / "fixtures"


def line(message: Any) -> bytes:
    return (message if isinstance(message, str) else json.dumps(message)).encode() + b"\n"


def initialize(revision: str = "2025-11-25", request_id: int = 1) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": revision,
            "capabilities": {},
            "clientInfo": {"name": "same-answers", "version": "1"},
        },
    }


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def request(request_id: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def exchange(
    command: list[str],
    messages: list[Any],
    expect: set[int],
    *,
    cwd: Path = REPO,
    env: dict[str, str] | None = None,
    timeout: float = 120,
) -> tuple[dict[Any, bytes], list[bytes], str]:
    """Send every message at once (pipelined), read until each id in ``expect`` is answered;
    returns the raw answer lines by id, the raw notification lines, and stderr."""
    process = subprocess.Popen(
        command,
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env or codegen_env(),
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(b"".join(line(m) for m in messages))
    process.stdin.flush()
    answers: dict[Any, bytes] = {}
    notifications: list[bytes] = []
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    buffer = b""
    try:
        while not expect <= set(answers) and time.monotonic() < deadline:
            if not selector.select(timeout=1):
                continue
            chunk = os.read(process.stdout.fileno(), 1 << 16)
            if not chunk:
                break
            buffer += chunk
            while b"\n" in buffer:
                raw, buffer = buffer.split(b"\n", 1)
                message = json.loads(raw)
                if "id" in message and "method" not in message:
                    answers[message["id"]] = raw
                else:
                    notifications.append(raw)
    finally:
        process.stdin.close()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    stderr = process.stderr.read().decode("utf-8", "replace") if process.stderr else ""
    return answers, notifications, stderr


def _generate_published(root: Path, package: str, flavor: str, target: str) -> None:
    root.mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        "[tool.mcp-codegen]\n"
        f"sources = {json.dumps([str(FIXTURES / 'published' / package)])}\n"
        'output = "generated"\n'
        f'flavor = "{flavor}"\n'
        f"python_path = {json.dumps([str(REPO), str(FIXTURES)])}\n"
        f"run_targets = {json.dumps([target])}\n",
        encoding="utf-8",
    )
    env = codegen_env(PYTHONPATH=f"{REPO}:{FIXTURES}")
    done = run_codegen(root, "generate", env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    servers = (root / "generated" / "__servers__.py").read_text()
    assert f'"object": "{target}"' in servers


def build_published_project(root: Path, package: str, flavor: str) -> str:
    """Corpus package ``package`` generated in ``flavor`` with its server as the run target, as
    a project at ``root``; the target."""
    target = f"published.{package}.server:mcp"
    _copy_of(
        f"published-{package}-{flavor}",
        lambda at: _generate_published(at, package, flavor, target),
        root,
    )
    return target


#: The demo server of the fast-path project tests, one per flavor: two tools, a slow or failing
#: import on request (``DEMO_SLOW``, ``DEMO_FAIL``).
SERVERS = {
    "mcp": '''
        import os
        import time

        from mcp.server.mcpserver import MCPServer

        if os.environ.get("DEMO_FAIL"):
            raise RuntimeError("slow dependency missing")
        time.sleep(float(os.environ.get("DEMO_SLOW", "0")))

        mcp = MCPServer("demo", instructions="A demo server.")


        @mcp.tool()
        def add(a: int, b: int) -> int:
            """Add two numbers."""
            return a + b


        @mcp.tool()
        def echo(text: str) -> str:
            """Say it back."""
            return text
        ''',
    "fastmcp": '''
        import os
        import time

        from fastmcp import FastMCP

        if os.environ.get("DEMO_FAIL"):
            raise RuntimeError("slow dependency missing")
        time.sleep(float(os.environ.get("DEMO_SLOW", "0")))

        mcp = FastMCP("demo", instructions="A demo server.")


        @mcp.tool
        def add(a: int, b: int) -> int:
            """Add two numbers."""
            return a + b


        @mcp.tool
        def echo(text: str) -> str:
            """Say it back."""
            return text
        ''',
}


def _generate_demo(root: Path, flavor: str) -> None:
    project = Project(root)
    project.write("pkg/__init__.py", "")
    project.write("pkg/server.py", SERVERS[flavor])
    project.configure(f'sources = ["pkg"]\nflavor = "{flavor}"\n')
    done = project.run("generate")
    assert done.returncode == 0, done.stderr
    assert (root / "generated" / "__servers__.py").is_file()


def demo_project(root: Path, flavor: str) -> Path:
    """The demo server in ``flavor``, generated (``pkg/server.py``, target ``pkg.server:mcp``), as
    a project at ``root``."""
    _copy_of(f"demo-{flavor}", lambda at: _generate_demo(at, flavor), root)
    return root


_GENERATED_ROOT = tempfile.TemporaryDirectory(prefix="run-projects-")  # removed at exit


def _copy_of(name: str, generate: Callable[[Path], None], destination: Path) -> None:
    """Copy into ``destination`` the project ``generate`` makes, generated once per test process
    (``mcp-codegen generate`` imports the framework in three processes: seconds) and never run
    in, so each copy is the freshly generated project."""
    pristine = Path(_GENERATED_ROOT.name) / name
    if not pristine.is_dir():
        partial = pristine.with_name(f"{name}.partial")
        shutil.rmtree(partial, ignore_errors=True)
        generate(partial)
        partial.rename(pristine)  # a failed generation is retried by the next test, not reused
    shutil.copytree(pristine, destination, dirs_exist_ok=True)


def run_command(generated: str, target: str, *options: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "mcp_codegen",
        "run",
        *options,
        "--generated",
        generated,
        target,
    ]


def assert_same_answers(target: str, *, cwd: Path, env: dict[str, str]) -> None:
    """``mcp-codegen run --generated generated TARGET`` with and without the fast path, every
    message sent at once (so the calls arrive before the server has loaded): initialize, ping,
    tools/list, a tools/call of every listed tool with no arguments (invalid for most, valid or
    raising for the rest), an unknown tool, resources/list, prompts/list and an unknown method.
    Every answer and notification must be byte-identical (the oracle is ``--no-fast-path``)."""
    command = [sys.executable, "-m", "mcp_codegen", "run", "--generated", "generated", target]
    opening = [initialize(), INITIALIZED, request(2, "ping"), request(3, "tools/list")]
    listed, _, err = exchange(command, opening, {1, 2, 3}, cwd=cwd, env=env)
    assert set(listed) == {1, 2, 3}, err
    names = [tool["name"] for tool in json.loads(listed[3])["result"]["tools"]]
    assert names
    calls = [
        request(10 + index, "tools/call", {"name": name, "arguments": {}})
        for index, name in enumerate(names)
    ]
    tail = [
        request(4, "tools/call", {"name": "no_such_tool", "arguments": {}}),
        request(5, "resources/list"),
        request(6, "prompts/list"),
        request(7, "no/such/method"),
    ]
    messages = [*opening, *calls, *tail]
    expect = {1, 2, 3, 4, 5, 6, 7, *range(10, 10 + len(names))}
    fast, fast_notes, fast_err = exchange(command, messages, expect, cwd=cwd, env=env)
    plain, plain_notes, plain_err = exchange(
        [*command[:4], "--no-fast-path", *command[4:]], messages, expect, cwd=cwd, env=env
    )
    assert set(plain) == expect, plain_err
    assert set(fast) == expect, fast_err
    different = [i for i in sorted(expect) if fast[i] != plain[i]]
    assert not different, [(fast[i], plain[i]) for i in different[:3]]
    assert fast_notes == plain_notes


def with_client(
    command: list[str],
    steps: Any,
    *,
    cwd: Path,
    env: dict[str, str],
    on_message: Any = None,
) -> tuple[Any, str]:
    """Start ``command`` as a stdio server for the official client (``mcp.ClientSession`` over
    ``stdio_client``) and run ``await steps(session)`` (the session is not initialized yet);
    returns what it returned (or the exception it raised) and what the server wrote to stderr.
    ``on_message``: the session's ``message_handler`` (notifications from the server)."""
    import tempfile

    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    parameters = StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=str(cwd))
    extra = {"message_handler": on_message} if on_message is not None else {}

    async def run(errlog: Any) -> Any:
        try:
            async with (
                stdio_client(parameters, errlog=errlog) as (read, write),
                ClientSession(read, write, **extra) as session,
            ):
                with anyio.fail_after(120):
                    return await steps(session)
        except Exception as exc:  # the server refused or went away: what the client sees
            return exc

    with tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:
        found = anyio.run(run, errlog)
        errlog.seek(0)
        return found, errlog.read()
