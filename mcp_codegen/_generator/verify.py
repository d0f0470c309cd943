"""``mcp-codegen verify --against module:object``: prove a migration changes nothing clients see.

The user's existing server object is imported in a child process (the generator never imports
user code itself), asked for ``tools/list`` over its own framework's JSON-RPC stream
(``mcp_codegen._registration.served``), and compared with the generated modules, tool by tool and key by key.
Each difference is reported as ``tool -> JSON pointer -> theirs / ours``.

The child is ``python -m mcp_codegen._generator.verify TARGET``; it writes one JSON document to the original
stdout and nothing else (user output goes to stderr).

Runs in: parent, worker.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_codegen._generator.constants.bytecode_semantics import compile_as_bytecode
from mcp_codegen._generator.workers.prestart import with_package_path, worker_environment
from mcp_codegen._registration.factory_calls import FactoryCallError, parse_factory_call
from mcp_codegen._registration.served import HANDSHAKE_PROTOCOL_VERSION
from mcp_codegen._shared.diagnostics import ExitCode
from mcp_codegen._shared.format import PRIVATE_KEY, tool_server
from mcp_codegen._shared.json_values import ABSENT, differences
from mcp_codegen._shared.reader import GeneratedModuleError, read_tree, wire_tools

FLAVOR_OF_FRAMEWORK = {"mcp": "mcp", "mcp1": "mcp", "fastmcp": "fastmcp", "lowlevel": None}
FRAMEWORK_NAMES = {
    "mcp": "an MCP SDK 2.x MCPServer",
    "mcp1": "an MCP SDK 1.x FastMCP",
    "fastmcp": "a fastmcp.FastMCP",
    "lowlevel": "a low-level MCP SDK Server",
}


@dataclass(frozen=True)
class Mismatch:
    """One difference: ``pointer`` is an RFC 6901 JSON pointer into the tool's dict."""

    tool: str
    pointer: str
    theirs: Any
    ours: Any

    def __str__(self) -> str:
        return (
            f"{self.tool} -> {self.pointer or '(whole tool)'} -> "
            f"theirs: {_show(self.theirs)} / ours: {_show(self.ours)}"
        )


def _show(value: Any) -> str:
    if value is ABSENT:
        return "(absent)"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 200 else text[:197] + "..."


def compare_tools(theirs: list[dict[str, Any]], ours: list[dict[str, Any]]) -> list[Mismatch]:
    """Every difference between two tools/list payloads, matched by tool name (order ignored)."""
    their_tools = {tool["name"]: tool for tool in theirs}
    our_tools = {tool["name"]: tool for tool in ours}
    found: list[Mismatch] = []
    for name in [*their_tools, *(n for n in our_tools if n not in their_tools)]:
        if name not in our_tools:
            found.append(Mismatch(name, "", "listed", ABSENT))
        elif name not in their_tools:
            found.append(Mismatch(name, "", ABSENT, "listed"))
        else:
            found.extend(
                Mismatch(name, pointer, a, b)
                for pointer, a, b in differences(their_tools[name], our_tools[name])
            )
    return found


# --- the child process -------------------------------------------------------------------


def load_target(target: str) -> Any:
    """``module:attr.path`` or ``module:factory(literal arguments)`` (optionally followed by a
    chain, ``module:factory('x').mcp``) -> the server object (imports user code; a coroutine's
    result is awaited)."""
    module_name, colon, attribute = target.partition(":")
    if not colon or not module_name or not attribute:
        raise ValueError(
            f"--against {target!r}: write module:object (e.g. app.server:mcp) or module:factory() "
            "(e.g. app.server:make_server())"
        )
    if "(" in attribute:  # a factory call (and chain), with literal arguments only
        try:
            call = parse_factory_call(target)
        except FactoryCallError as exc:
            raise ValueError(f"--against {exc}") from None
        obj: Any = importlib.import_module(module_name)
        for part in call.qualname.split("."):
            if not hasattr(obj, part):
                raise ValueError(
                    f"--against {target!r}: {module_name} has no attribute {call.qualname!r}"
                )
            obj = getattr(obj, part)
        return call.call()
    obj = importlib.import_module(module_name)
    for part in attribute.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"--against {target!r}: {module_name} has no attribute {attribute!r}")
        obj = getattr(obj, part)
    return obj


def _same_server(key: str, server: Any) -> bool:
    """``key`` (a generated tool's ``module:attribute`` server) names ``server`` itself."""
    try:
        return load_target(key) is server
    except BaseException:  # a key that no longer imports names no server of this run
        return False


def child_main(target: str, keys: list[str]) -> int:
    """Print ``{"framework", "tools", "same"}`` or ``{"error"}`` as JSON on the original stdout;
    ``same``: the ``keys`` that name the target's server object."""
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # whatever user code prints goes to stderr
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    sys.path.insert(0, os.getcwd())
    compile_as_bytecode()  # the modules run the code the build's workers ran
    # the child only, after stdout is moved: the SDK is imported where user code runs
    from mcp_codegen._registration.served import UnsupportedServer, framework_of, list_served_tools

    try:
        server = load_target(target)
        framework = framework_of(server)
        tools = list_served_tools(server)
        same = [key for key in keys if _same_server(key, server)]
        payload: dict[str, Any] = {"framework": framework, "tools": tools, "same": same}
    except (ValueError, UnsupportedServer) as exc:
        payload = {"error": str(exc)}
    except BaseException as exc:
        payload = {"error": f"importing or listing {target} failed: {type(exc).__name__}: {exc}"}
    channel.write(json.dumps(payload))
    channel.flush()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # user threads and atexit hooks must not delay or alter the answer


# --- the command --------------------------------------------------------------------------


class VerifyError(Exception):
    """The comparison could not be made (bad target, import failure, no generated modules)."""


def their_tools(
    target: str, root: Path, python_path: tuple[Path, ...] = (), timeout: float = 60.0
) -> tuple[str, list[dict[str, Any]]]:
    """Import ``target`` in a child process and return its framework and tools/list."""
    payload = _served(target, root, python_path, timeout, [])
    return payload["framework"], payload["tools"]


def _served(
    target: str, root: Path, python_path: tuple[Path, ...], timeout: float, keys: list[str]
) -> dict[str, Any]:
    """The child's answer for ``target``: its framework, tools/list, and which of ``keys``
    name the same server object."""
    # The generator's worker conditions (hash seed, time zone, locale): a value the server builds
    # by iterating a set is then the one that was generated.
    env = with_package_path(worker_environment(), str(root), *map(str, python_path))
    try:
        completed = subprocess.run(
            [sys.executable, "-m", "mcp_codegen._generator.verify", target, *keys],
            cwd=root,
            env=env,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise VerifyError(
            f"importing and listing {target} did not finish within {timeout:g} s"
        ) from None
    try:
        payload = json.loads(completed.stdout.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        tail = completed.stderr.decode("utf-8", "replace").strip().splitlines()[-8:]
        raise VerifyError(
            f"the process importing {target} ended (exit code {completed.returncode}) without "
            "an answer" + ("; its last output:\n  " + "\n  ".join(tail) if tail else "")
        ) from None
    if "error" in payload:
        raise VerifyError(payload["error"])
    return payload


def _servers(modules: list[dict[str, Any]]) -> list[str]:
    """The servers the tree's tools are generated for (``x-codegen.server`` or the factory
    call), in tree order."""
    found = (
        tool_server(tool.get(PRIVATE_KEY)) for module in modules for tool in module.get("TOOLS", ())
    )
    return list(dict.fromkeys(server for server in found if server is not None))


def _target_modules(
    modules: list[dict[str, Any]], servers: list[str], target: str, same: list[str]
) -> list[dict[str, Any]]:
    """The tree as far as it is ``target``'s: when the tree holds several servers and one of
    them is the target (the same object, or the same factory call), that server's tools and
    those whose server is not known before run time; else the whole tree."""
    mine = {key for key in servers if key == target or key in same}
    if len(servers) < 2 or not mine:
        return modules
    return [
        {
            **module,
            "TOOLS": tuple(
                tool
                for tool in module.get("TOOLS", ())
                if (server := tool_server(tool.get(PRIVATE_KEY))) is None or server in mine
            ),
        }
        for module in modules
    ]


def run(
    target: str, output: Path, root: Path, python_path: tuple[Path, ...], timeout: float
) -> int:
    """The ``verify`` command: print mismatches, return the exit code (0 same, 1 differ, 2 error)."""
    try:
        manifest, modules = read_tree(output)
        servers = _servers(modules)
        keys = [key for key in servers if "(" not in key] if len(servers) > 1 else []
        served = _served(target, root, python_path, timeout, keys)
    except (GeneratedModuleError, VerifyError) as exc:
        print(f"mcp-codegen verify: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    framework, theirs = served["framework"], served["tools"]
    # Their listing comes from an ``initialize`` handshake: compare the variant it negotiated.
    mine = _target_modules(modules, servers, target, served["same"])
    ours = wire_tools(mine, HANDSHAKE_PROTOCOL_VERSION)
    mismatches = compare_tools(theirs, ours)
    for mismatch in mismatches:
        print(mismatch)
    if not mismatches:
        own = f" of its server (the tree holds {len(servers)})" if mine is not modules else ""
        print(
            f"mcp-codegen verify: the {len(ours)} generated tools{own} equal what {target} "
            f"({FRAMEWORK_NAMES[framework]}) serves"
        )
        return ExitCode.OK
    tools = len({m.tool for m in mismatches})
    print(
        f"mcp-codegen verify: {len(mismatches)} difference(s) in {tools} tool(s) between {target} "
        f"({FRAMEWORK_NAMES[framework]}) and the generated modules",
        file=sys.stderr,
    )
    expected = FLAVOR_OF_FRAMEWORK[framework]
    flavor = manifest.get("FLAVOR")
    if expected is not None and flavor != expected:
        print(
            f'hint: the generated modules use flavor "{flavor}"; set flavor = "{expected}" in '
            "[tool.mcp-codegen] and regenerate to serve what this server serves",
            file=sys.stderr,
        )
    return ExitCode.STALE


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(
            "usage: python -m mcp_codegen._generator.verify module:object [server key ...]",
            file=sys.stderr,
        )
        sys.exit(2)
    target, keys = sys.argv[1], sys.argv[2:]
    del sys.argv[1:]  # user code sees no arguments, as a server started without any
    child_main(target, keys)
