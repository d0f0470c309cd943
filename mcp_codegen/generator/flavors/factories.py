"""Tools of servers built by factories (config ``factories``), as those servers list them.

Runs in the worker process. Each configured call is made once; the server it returns is asked
for ``tools/list`` over its own framework's JSON-RPC stream (``mcp_codegen.registration.served``), and each
tool the scanner found inside the factory is matched to the served tool whose registered
function has that qualname.
"""

from __future__ import annotations

import inspect
from typing import Any

from mcp_codegen.generator.flavors.common import (
    FlavoredTool,
    accepted_options,
    apply_codegen_options,
    at_tool,
)
from mcp_codegen.generator.model import InspectedTool, ScannedModule, ScannedTool
from mcp_codegen.registration.factory_calls import parse_factory_call, registered_functions
from mcp_codegen.shared.diagnostics import Diagnostic

#: the flavor that reproduces each framework ``framework_of`` names
_FLAVOR_OF = {"mcp": "mcp", "mcp1": "mcp", "fastmcp": "fastmcp"}


def build_factory_tools(
    flavor: str, module: ScannedModule, tools: list[ScannedTool]
) -> tuple[list[InspectedTool], list[Diagnostic]]:
    """The inspected tools of ``module`` defined inside configured factories."""
    inspected: list[InspectedTool] = []
    diagnostics: list[Diagnostic] = []
    calls: dict[str, list[ScannedTool]] = {}
    for tool in tools:
        assert tool.factory is not None
        calls.setdefault(tool.factory, []).append(tool)
    for text, group in calls.items():
        built, problems = _one_factory(flavor, module, text, group)
        inspected.extend(built)
        diagnostics.extend(problems)
    return inspected, diagnostics


def _one_factory(
    flavor: str, module: ScannedModule, text: str, group: list[ScannedTool]
) -> tuple[list[InspectedTool], list[Diagnostic]]:
    from mcp_codegen.registration.served import UnsupportedServer, framework_of, list_served_tools

    first = group[0]
    try:
        server = parse_factory_call(text).call()
        framework = framework_of(server)
    except UnsupportedServer as exc:
        return [], [at_tool(module, first, f"the factory call {text} returned no server: {exc}")]
    except BaseException as exc:  # user code may raise anything
        return [], [
            at_tool(
                module,
                first,
                f"calling the factory {text} raised {type(exc).__name__}: {exc}; fix the "
                "factory or its arguments in `factories`",
            )
        ]
    if _FLAVOR_OF.get(framework) != flavor:
        return [], [
            at_tool(
                module,
                first,
                f"the factory {text} builds a {framework} server, which flavor {flavor!r} does "
                f'not reproduce; set flavor = "{_FLAVOR_OF.get(framework, "mcp")}"',
            )
        ]
    served = {entry["name"]: entry for entry in list_served_tools(server)}
    by_qualname: dict[str, list[str]] = {}
    for name, function in registered_functions(server, framework).items():
        function = inspect.unwrap(function) if callable(function) else function
        if getattr(function, "__module__", None) == module.module:
            by_qualname.setdefault(getattr(function, "__qualname__", ""), []).append(name)
    accepted = accepted_options(server.tool)
    shape = _result_shape(flavor)
    inspected: list[InspectedTool] = []
    diagnostics: list[Diagnostic] = []
    for tool in group:
        names = sorted(by_qualname.get(tool.qualname, []))
        if len(names) != 1 or names[0] not in served:
            problem = (
                f"registers it under several names ({', '.join(names)}); register each function "
                "once"
                if len(names) > 1
                else "does not list it; the factory must register the tool each time it runs"
            )
            diagnostics.append(
                at_tool(module, tool, f"tool {tool.qualname}: the server of {text} {problem}")
            )
            continue
        entry = served[names[0]]
        box_field, private = shape(server, names[0], entry)
        flavored = FlavoredTool(entry, box_field, {**private, "factory": text})
        inspected.append(
            InspectedTool(
                name=tool.name,
                input_schema=None,
                output_schema=None,
                description=None,
                parameter_descriptions={},
                flavored=apply_codegen_options(tool, flavored, accepted).as_message(),
            )
        )
    return inspected, diagnostics


def _result_shape(flavor: str) -> Any:
    if flavor == "mcp":
        from mcp_codegen.generator.flavors.mcp import result_shape
    else:
        from mcp_codegen.generator.flavors.fastmcp import result_shape
    return result_shape
