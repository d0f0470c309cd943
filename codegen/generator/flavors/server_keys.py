"""Which server object each tool of a module is registered on: the ``x-codegen.server`` key.

A package may compose several servers (fastmcp ``main.mount(jira, namespace="jira")`` or
``import_server``, several SDK servers behind one app), and tools of different servers may
share a name. Each generated entry of a framework flavor therefore names its server as
``"module:attribute"``: the module that binds the server object at its top level by assignment
(not by import), the same name ``generated/__servers__.py`` records it under
(``codegen.generator.flavors.servers.find_servers``). Tool names must be unique per server only.

A tool whose decorator is reached through a parameter or an object (a registration function,
a method) gets no key: its server is unknown before run time, and its name must then be unique
across the whole project (``codegen.generator.pipeline``).
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

from codegen.generator.model import ScannedModule


def server_keys(
    module: ScannedModule, loaded: ModuleType, root: Path, output: Path
) -> dict[str, str]:
    """Tool name -> ``"module:attribute"`` of the server object its decorator is called on, for
    the module's tools whose decorator receiver is a server a project module binds."""
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
    if not receivers:
        return {}
    from codegen.generator.flavors.servers import find_servers

    found = {
        id(server): path
        for path, _, _, server in find_servers(root, output, (Path(module.path).parent,))
    }
    return {name: found[id(value)] for name, value in receivers.items() if id(value) in found}
