"""``mcp-codegen export --server``: one server's tools of a composed package, or its composed list.

In the framework flavors every generated tool names its server (``x-codegen.server``,
``"module:attribute"``), and servers of one package may share tool names. ``--server X``
prints the tools generated for ``X`` alone: its own decorators, names as written.
``--server X --composed`` prints what ``X`` itself lists at ``tools/list`` once its mounted
servers are added (fastmcp ``mount`` / ``import_server`` prefixes included): the server is
imported in a child process under ``use_generated(strict=True)``, so every tool is listed
from its generated entry and the framework applies the composition, exactly as
``mcp-codegen run`` serves it. Without ``--server``, a tree whose servers share a name has no
single list and ``export`` says so (exit 2).

Runs in: parent. (``python -m mcp_codegen._cli.export_servers`` is the child, a server process.)
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from mcp_codegen._generator.workers.prestart import with_package_path
from mcp_codegen._shared.format import PRIVATE_KEY, SERVER_KEY
from mcp_codegen._shared.project_config import runtime_settings


def servers_of(modules: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Server key -> the names of its generated tools, in tree order (keyed tools only)."""
    found: dict[str, list[str]] = {}
    for module in modules:
        for tool in module.get("TOOLS", ()):
            server = (tool.get(PRIVATE_KEY) or {}).get(SERVER_KEY)
            if isinstance(server, str):
                found.setdefault(server, []).append(tool["name"])
    return found


def shared_names(modules: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Tool name -> the servers it is generated for, for names on more than one server."""
    by_name: dict[str, list[str]] = {}
    for server, names in servers_of(modules).items():
        for name in names:
            by_name.setdefault(name, []).append(server)
    return {name: servers for name, servers in by_name.items() if len(servers) > 1}


def own_modules(modules: list[dict[str, Any]], server: str) -> list[dict[str, Any]]:
    """``modules`` with only the tools generated for ``server``."""
    return [
        {
            **module,
            "TOOLS": tuple(
                tool
                for tool in module.get("TOOLS", ())
                if (tool.get(PRIVATE_KEY) or {}).get(SERVER_KEY) == server
            ),
        }
        for module in modules
    ]


def composed_tools(output: Path, server: str, config_file: Path) -> list[Any]:
    """What ``server`` lists at ``tools/list`` with its generated entries (strict hook), read
    in a child process with the project's import roots (``src/`` layouts too, as ``run``);
    ``ValueError`` with the child's last words when it cannot."""
    root = config_file.parent
    env = with_package_path(
        dict(os.environ), str(root), *runtime_settings(str(config_file)).import_paths
    )
    done = subprocess.run(
        [sys.executable, "-m", "mcp_codegen._cli.export_servers", str(output), server],
        capture_output=True,
        cwd=root,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]
        raise ValueError(f"listing {server} failed: {' '.join(tail) or 'no output'}")
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def _child(output: str, target: str) -> None:
    """Import ``target`` under the strict hook and print its tools/list as JSON."""
    results = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # whatever user code prints goes to stderr
    # the child only, after stdout is moved: the parent never imports the runtime or the SDK
    from mcp_codegen._registration.served import list_served_tools
    from mcp_codegen.runtime import use_generated

    use_generated(output, strict=True)
    module_name, _, attribute = target.partition(":")
    value: Any = importlib.import_module(module_name)
    for part in attribute.split("."):
        value = getattr(value, part)
    json.dump(list_served_tools(value), results)
    results.close()


if __name__ == "__main__":
    _child(sys.argv[1], sys.argv[2])
