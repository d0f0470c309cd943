"""Which server object each tool of a module is registered on: the ``x-codegen.server`` key.

A package may compose several servers (fastmcp ``main.mount(jira, namespace="jira")`` or
``import_server``, several SDK servers behind one app), and tools of different servers may
share a name. Each generated entry of a framework flavor therefore names its server as
``"module:attribute"``: the module that binds the server object at its top level by assignment
(not by import), the same name ``generated/__servers__.py`` records it under
(``mcp_codegen._generator.flavors.servers.find_servers``). Tool names must be unique per server only.

A tool whose decorator is reached through a parameter or an object (a registration function,
a method) gets no key: its server is unknown before run time, and its name must then be unique
across the whole project (``mcp_codegen._generator.pipeline``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from mcp_codegen._generator.model import ScannedModule


def server_keys(
    module: ScannedModule, loaded: ModuleType, root: Path, output: Path
) -> dict[str, str]:
    """Tool name -> ``"module:attribute"`` of the server object its decorator is called on, for
    the module's tools whose decorator receiver is a server a project module binds."""
    receivers = decorator_receivers(module, loaded)
    if not receivers:
        return {}
    # the whole top-level package the module belongs to (sources may live in site-packages)
    package = Path(module.import_root, module.module.split(".")[0]).resolve()
    return {
        name: key
        for name, value in receivers.items()
        if (key := _bound_at(value, root.resolve(), output.resolve(), package)) is not None
    }


def decorator_receivers(module: ScannedModule, loaded: ModuleType) -> dict[str, Any]:
    """Tool name -> the object its decorator is called on (``mcp`` of ``@mcp.tool()``), for the
    module's tools decorated through a module-level name after import."""
    receivers: dict[str, Any] = {}
    for tool in module.tools:
        head, dot, _ = tool.decorator.rpartition(".")
        if tool.factory is not None or not dot or "<locals>" in tool.qualname:
            continue
        value: Any = loaded
        for part in head.split("."):
            value = getattr(value, part, None)
            if value is None:
                break
        if value is not None:
            receivers[tool.name] = value
    return receivers


#: (module name, package dir) -> its top-level assignments (name -> line) when it is a project module, else
#: None: a worker asks for every tool module, and resolving every module's path each time
#: would cost more than the tools (``find_servers``'s rule, remembered per worker).
_ASSIGNED: dict[tuple[str, Path], dict[str, int] | None] = {}


def _bound_at(value: Any, root: Path, output: Path, package: Path) -> str | None:
    """``"module:attribute"`` of the first binding (by module, then attribute) of ``value`` by
    a top-level assignment in a project module: the object name ``find_servers`` gives it."""
    # only a framework flavor's worker calls this: at the top, every worker would load json (~4 ms)
    from mcp_codegen._generator.flavors.servers import is_project_module, top_level_assignments
    from mcp_codegen._registration.served import UnsupportedServer, framework_of

    try:
        framework_of(value)
    except UnsupportedServer:
        return None
    best: tuple[str, str] | None = None
    for name, loaded in list(sys.modules.items()):
        if (name, package) not in _ASSIGNED:
            path = is_project_module(name, loaded, root, output, (package,))
            _ASSIGNED[name, package] = top_level_assignments(path) if path is not None else None
        assigned = _ASSIGNED[name, package]
        if not assigned:
            continue
        namespace = vars(loaded)
        for attribute in assigned:
            if namespace.get(attribute) is value and (best is None or (name, attribute) < best):
                best = (name, attribute)
    return f"{best[0]}:{best[1]}" if best is not None else None


def unlisted_names(module: ScannedModule, loaded: ModuleType) -> set[str]:
    """The module's tools whose server, after import, does not list them: removed at import
    (fastmcp ``disable(names=/tags=)`` or ``local_provider.remove_tool``, the SDK's
    ``remove_tool``). Each server is asked for ``tools/list`` over its own JSON-RPC stream,
    without entering its lifespan; a server that cannot be listed so marks nothing."""
    by_server: dict[int, tuple[Any, list[str]]] = {}
    for name, server in decorator_receivers(module, loaded).items():
        by_server.setdefault(id(server), (server, []))[1].append(name)
    unlisted: set[str] = set()
    for server, names in by_server.values():
        try:
            listed = _listed_names(server)
        except Exception:  # not a server, or one listed only with its lifespan: as before
            continue
        unlisted.update(name for name in names if name not in listed)
    return unlisted


def _listed_names(server: Any) -> set[str]:
    """The names ``server`` lists at ``tools/list``, without entering its lifespan: over its
    own JSON-RPC stream (SDK 2.x, fastmcp), or by its own ``list_tools`` handler (SDK 1.x
    ``FastMCP``, whose low-level run would enter the lifespan)."""
    # anyio comes only with a framework (mcp, fastmcp); served loads json: framework flavors only
    import anyio

    from mcp_codegen._registration.served import (
        HANDSHAKE_PROTOCOL_VERSION,
        framework_of,
        opening_answers,
    )

    if framework_of(server) == "mcp1":
        return {tool.name for tool in anyio.run(server.list_tools)}
    _, pages = anyio.run(lambda: opening_answers(server, HANDSHAKE_PROTOCOL_VERSION, listing=True))
    return {tool.get("name") for page in pages or [] for tool in page.get("tools", [])}
