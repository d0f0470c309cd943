"""Tools of servers built by factories (config ``factories``), as those servers list them.

Runs in the worker process. Each configured call is made once; the server it returns is asked
for ``tools/list`` over its own framework's JSON-RPC stream (``mcp_codegen._registration.served``), and each
tool the scanner found inside the factory is matched to the served tool whose registered
function has that qualname.
"""

from __future__ import annotations

import inspect
import os
from dataclasses import replace
from typing import Any

from mcp_codegen._generator.flavors.common import (
    FlavoredTool,
    accepted_options,
    apply_codegen_options,
    at_tool,
)
from mcp_codegen._generator.flavors.fastmcp import result_shape as fastmcp_result_shape
from mcp_codegen._generator.flavors.mcp import result_shape as mcp_result_shape
from mcp_codegen._generator.inspection.registrations import (
    function_location,
    made_by_factory,
    recorded,
    recorded_count,
    recording,
)
from mcp_codegen._generator.model import InspectedTool, ScannedModule, ScannedTool
from mcp_codegen._registration.factory_calls import parse_factory_call, registered_functions
from mcp_codegen._registration.served import UnsupportedServer, framework_of, list_served_tools
from mcp_codegen._shared.diagnostics import Diagnostic

#: the flavor that reproduces each framework ``framework_of`` names
_FLAVOR_OF = {"mcp": "mcp", "mcp1": "mcp", "fastmcp": "fastmcp"}
#: factory call -> the server (or the exception) its one call of this module's build gave
_CALLED: dict[str, Any] = {}
#: factory call -> (real path, line, column, tool name) of each registration its call made
_SITES: dict[str, list[tuple[str, int, int, str]]] = {}


def _call_once(text: str, source: str) -> Any:
    """The server of factory call ``text``, called once per module (``source``, its relative
    path): the expansion of its call sites and the build of its tools see the same
    registrations. Raises what the call raised. Where each registration of the call was made is
    kept (``_SITES``), and its records are marked as the factory's (``Registration.factory``):
    the omission check takes the tools an import registers at the same sites as generated."""
    if text not in _CALLED:
        mark = recorded_count()
        try:
            with recording():
                _CALLED[text] = parse_factory_call(text).call()
        except BaseException as exc:  # user code may raise anything: re-raised at each use
            _CALLED[text] = _Raised(exc)
        _SITES[text] = [
            (os.path.realpath(file), line, column, record.name)
            for record in recorded()[mark:]
            if record.provider is None
            for file, line, column in record.frames
        ]
        made_by_factory(mark, text, source)
    found = _CALLED[text]
    if isinstance(found, _Raised):
        raise found.exc
    return found


def _listing(server: Any) -> list[dict[str, Any]]:
    """What the factory's server lists, without entering its lifespan (a build must not start
    what a running server starts: a browser, a pool, a sign-in), unless listing needs it."""
    try:
        return list_served_tools(server, lifespan=False)
    except Exception:  # a listing that reads the lifespan's state, as the records probe allows
        return list_served_tools(server)


class _Raised:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


def expand_call_sites(module: ScannedModule) -> ScannedModule:
    """``module`` with each call site inside a configured factory that registers a function
    defined elsewhere (``setup()`` looping ``app.add_tool(fn, name=name, ...)`` over tuples of
    other modules: ``ScannedTool.registered_at`` with a ``factory``) replaced by one tool per
    function the factory's server registers there, under the name it registers it by. The
    tools the scanner found otherwise in the module keep their functions. Unchanged when there
    is no such site or the call fails (reported when the tools are built)."""
    _CALLED.clear()
    _SITES.clear()
    sites = [t for t in module.tools if t.factory is not None and t.registered_at is not None]
    if not sites:
        return module
    path = os.path.realpath(module.path)
    tools: list[ScannedTool] = []
    for tool in module.tools:
        if tool not in sites:
            tools.append(tool)
            continue
        assert tool.factory is not None
        try:
            server = _call_once(tool.factory, module.relative_path)
            registered = registered_functions(server, framework_of(server))
        except BaseException:  # reported at the tool when it is built
            tools.append(tool)
            continue
        site = tool.registered_at
        assert site is not None
        at_site = {
            name
            for file, line, column, name in _SITES.get(tool.factory, [])
            if (file, line, column) == (path, site.line, site.column)
        }
        names = sorted(name for name in registered if name in at_site)
        if not names:  # registered nothing there: reported at the tool when it is built
            tools.append(tool)
            continue
        tools.extend(
            replace(tool, name=name, options={**tool.options, "name": name}) for name in names
        )
    return replace(module, tools=tuple(tools))


def _unwrapped(function: Any) -> Any:
    return inspect.unwrap(function) if callable(function) else function


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
    first = group[0]
    try:
        server = _call_once(text, module.relative_path)
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
    served = {entry["name"]: entry for entry in _listing(server)}
    by_qualname: dict[str, list[str]] = {}
    registered = registered_functions(server, framework)
    for name, function in registered.items():
        function = _unwrapped(function)
        if getattr(function, "__module__", None) == module.module:
            by_qualname.setdefault(getattr(function, "__qualname__", ""), []).append(name)
    accepted = accepted_options(server.tool)
    shape = _result_shape(flavor)
    inspected: list[InspectedTool] = []
    diagnostics: list[Diagnostic] = []
    for tool in group:
        if tool.registered_at is not None:  # expanded call site: the name it registered
            names = [tool.name] if tool.name in registered else []
        else:
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
                **_defined_elsewhere(module, tool, registered.get(names[0])),
            )
        )
    return inspected, diagnostics


def _defined_elsewhere(module: ScannedModule, tool: ScannedTool, function: Any) -> dict[str, Any]:
    """``InspectedTool.function`` / ``function_sha256`` of an expanded call site's tool: the
    function its server received, where the hook looks it up, and the digest of its file when
    another file defines it (as ``workers.child`` records them for registered tools)."""
    if tool.registered_at is None or function is None:
        return {}
    where, digest = function_location(function, module.path)
    return {"function": where, "function_sha256": digest}


def _result_shape(flavor: str) -> Any:
    return mcp_result_shape if flavor == "mcp" else fastmcp_result_shape
