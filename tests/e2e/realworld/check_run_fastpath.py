"""Real servers published on PyPI through ``mcp-codegen run`` with the stdio fast path.

Run by ``nox -s realworld`` after ``check_realworld.py``, in each environment, with that
environment's Python::

    python tests/e2e/realworld/check_run_fastpath.py --env sdk2

For each run of servers.toml listed below for this environment: its temporary project (as
check_realworld.py writes it) with ``run_targets = [its against target]`` (a server object, or a
factory call such as ``mcp_server_git.server:create_server(repository=None)``), ``mcp-codegen
generate``, which must record the target's initialize answer and listing, then three stdio sessions, each sending initialize, initialized and tools/list at
once: the plain server (its module imported, ``.run()``), ``mcp-codegen run --no-fast-path``
and ``mcp-codegen run`` (the fast path). The initialize answers must be byte-identical across
the three, tools/list byte-identical between the two ``run`` sessions and equal as JSON to the
plain server's (the generator's own exactness is check_realworld.py's business; a tool it lists
as ``not_exact`` there is reported, not failed). Prints spawn -> tools/list per setup, and the
time the server alone takes to import (and, for a factory call, to build). Exits 1 when an expectation is not met.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
sys.path.insert(0, str(HERE))

from check_realworld import load_expectations, package_dir, write_project  # noqa: E402

#: env -> the runs of servers.toml served through the fast path; each run's ``against`` (a
#: module:object or a factory call) is the ``mcp-codegen run`` target and its ``run_targets``.
#: Not lean-lsp: it pins mcp 2.2.0, whose mcp_types is not the release the fast path's wire
#: shapes came from, so ``mcp-codegen run`` serves it without the fast path (by design); nor the
#: SDK 1.x, fastmcp 2.x and 3.x environments (their mcp 1.x has no mcp_types at all). Only runs
#: that generate exactly can be served: not cloudwatch, eks (clear errors) or clickhouse (its
#: unserved chDB tool's error stops generate). The noxfile runs this script for these envs.
FAST_PATH_RUNS: dict[str, list[str]] = {
    "sdk2": ["duckduckgo-sdk2", "git-factory"],
    "fastmcp": ["word", "motherduck-factory"],
    # fastmcp 4.0.11: its stdio run announces only tools.listChanged (NotificationOptions(
    # tools_changed=True)); the probe takes those options (served.stdio_initialization_options)
    "clickhouse": ["keboola"],
}
OPENING = (
    json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "realworld", "version": "0"},
            },
        }
    )
    + '\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
    + '{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n'
).encode()


def session(command: list[str], cwd: Path) -> tuple[dict[int, bytes], float]:
    """Raw answers to ids 1 and 2, and spawn -> tools/list ms."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(OPENING)
    process.stdin.flush()
    answers: dict[int, bytes] = {}
    while len(answers) < 2:
        line = process.stdout.readline()
        if not line:
            break
        try:
            message = json.loads(line)
        except ValueError:  # a server that prints to stdout (word's start-up lines)
            continue
        if isinstance(message, dict) and message.get("id") in (1, 2):
            answers[message["id"]] = line.rstrip(b"\n")
    elapsed = (time.perf_counter() - started) * 1000
    process.stdin.close()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
    return answers, elapsed


def check(ident: str, workdir: Path) -> tuple[bool, str]:
    expectations = load_expectations()
    run = next(r for r in expectations["run"] if r["id"] == ident)
    import_name = expectations["servers"][run["server"]]["import"]
    target = run["against"]
    project = workdir / ident
    write_project(project, run, package_dir(import_name))
    with (project / "pyproject.toml").open("a", encoding="utf-8") as config:
        config.write(f"run_targets = {json.dumps([target])}\n")
    done = subprocess.run(
        [sys.executable, "-m", "mcp_codegen", "generate"],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        return False, f"{ident}: generate failed:\n{done.stderr}"
    module, _, attribute = target.partition(":")
    recorded = _recorded(project / "generated", target)
    if recorded != "initialize+tools":
        return False, f"| {ident} | | | | | | {target}: {recorded} |"
    # A script run in the realworld venv (no ``tests`` package): it asks the runtime's inside,
    # named by string, the question tests/runtime/runtime_support.py asks for pytest.
    import importlib

    fast_path_serves = importlib.import_module("mcp_codegen.runtime._hook.install").fast_path_serves
    if not fast_path_serves(str(project / "generated"), target):
        from importlib.metadata import version

        return False, (
            f"| {ident} | | | | | | recorded, but the fast path is off here: mcp_types "
            f"{version('mcp-types')} is not the release its wire shapes came from |"
        )
    # what the server alone costs before it can answer: importing its module and, for a
    # factory call, building it (wall ms, less an empty interpreter's start)
    import_ms = _wall_ms([sys.executable, "-c", f"import {module} as m; m.{attribute}"], project)
    import_ms -= _wall_ms([sys.executable, "-c", "pass"], project)
    command = [sys.executable, "-m", "mcp_codegen", "run", "--generated", "generated"]
    plain, plain_ms = session(  # the attribute may be a factory call
        [sys.executable, "-c", f"import {module} as m; m.{attribute}.run()"], project
    )
    hooked, hooked_ms = session([*command, "--no-fast-path", target], project)
    fast, fast_ms = session([*command, target], project)
    problems = []
    if not (plain.get(1) == hooked.get(1) == fast.get(1)) or 1 not in fast:
        problems.append("initialize answers differ")
    if fast.get(2) != hooked.get(2) or 2 not in fast:
        problems.append("tools/list differs between the fast path and the hook alone")
    elif json.loads(fast[2]) != json.loads(plain.get(2, b"null")):
        problems.append("tools/list differs from the plain server's (see check_realworld.py)")
    tools = len(json.loads(fast[2])["result"]["tools"]) if 2 in fast else 0
    line = (
        f"| {ident} | {tools} | {import_ms:,.0f} | {plain_ms:,.0f} | {hooked_ms:,.0f} | "
        f"{fast_ms:,.0f} | {'; '.join(problems) or 'ok'} |"
    )
    return not problems, line


def _wall_ms(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, capture_output=True, check=False)
    return (time.perf_counter() - started) * 1000


def _recorded(generated: Path, target: str) -> str:
    """What the tree records for ``target``: "initialize+tools" when the fast path answers
    initialize and tools/list itself."""
    from mcp_codegen._registration.factory_calls import is_factory_call, parse_factory_call
    from mcp_codegen._shared.format import SERVERS_FILE, check_servers
    from mcp_codegen._shared.reader import parse_literal_module

    path = generated / SERVERS_FILE
    if not path.is_file():
        return f"no {SERVERS_FILE}"
    key = parse_factory_call(target).target if is_factory_call(target) else target
    values = parse_literal_module(path.read_text(encoding="utf-8"), str(path))
    for record in check_servers(values, str(path)):
        if record["object"] == key:
            if record["initialize"] is None:
                return "recorded without initialize (see generate's warning)"
            return "initialize+tools" if record["tools"] is not None else "initialize only"
    return f"no record in {SERVERS_FILE}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", required=True, choices=sorted(FAST_PATH_RUNS))
    options = parser.parse_args()
    os.environ.setdefault("FASTMCP_SHOW_SERVER_BANNER", "false")  # fastmcp 3.x and later
    os.environ.setdefault("FASTMCP_SHOW_CLI_BANNER", "false")  # 2.x (its CLI only)
    print(
        "| server | tools | import (+ build) ms | plain ms | run --no-fast-path ms | run (fast path) ms | "
        "result |\n|---|---:|---:|---:|---:|---:|---|"
    )
    ok = True
    with tempfile.TemporaryDirectory(prefix="realworld-fastpath-") as workdir:
        for ident in FAST_PATH_RUNS[options.env]:
            passed, line = check(ident, Path(workdir))
            ok = ok and passed
            print(line, flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
