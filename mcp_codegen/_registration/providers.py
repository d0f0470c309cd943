"""Which of a server's tools come from no registration: the one rule behind the build's provider
check (``_generator/inspection/registrations.py`` records, ``omissions.py`` reports) and its
server probe (``_generator/flavors/servers.py``).

fastmcp builds some servers' tools at run time from something other than a Python function:
``FastMCP.from_openapi`` / ``from_fastapi`` (an OpenAPI document), ``create_proxy`` / ``as_proxy``
(the server it proxies), or a ``Provider`` subclass of the user's. No registration makes them,
so mcp-codegen has no function to read a schema from. fastmcp 3.x and later attach such tools
as a provider (``FastMCP(providers=[...])``, ``add_provider``); fastmcp 2.x as a server class
(``FastMCPOpenAPI``, ``FastMCPProxy``) that fills its tool store directly.

Not counted: a ``LocalProvider`` (its tools are registrations, watched one by one), a mounted
server (``FastMCPProvider``: its own registrations and providers are watched where it is
built), and a provider whose class lists no tools (skills: resources only). Classes are
matched by name within fastmcp, so this module imports no framework. Standard library only.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: what each known kind builds its tools from (shown in messages); others: their own code
_BUILT_FROM = {
    "OpenAPIProvider": "an OpenAPI document",
    "FastMCPOpenAPI": "an OpenAPI document",
    "ProxyProvider": "the server it proxies",
    "FastMCPProxy": "the server it proxies",
    "SessionProvider": "fastmcp's own session functions (create_session, end_session)",
}
#: fastmcp 2.x server classes whose tools no registration makes
SERVER_CLASSES = ("FastMCPOpenAPI", "FastMCPProxy")
#: how deep nested aggregates and mounts are followed (a cycle ends there)
_DEPTH = 8


def built_from(kind: str) -> str:
    """What a provider kind (its class name) builds its tools from, for a message."""
    return _BUILT_FROM.get(kind, "its own code")


def _fastmcp_classes(value: Any) -> set[str]:
    """The names of the fastmcp classes among ``value``'s class and bases."""
    return {
        cls.__name__
        for cls in type(value).__mro__
        if (getattr(cls, "__module__", "") or "").split(".")[0] == "fastmcp"
    }


def _lists_tools(provider: Any) -> bool:
    """Whether ``provider``'s class overrides fastmcp's ``Provider._list_tools`` (which lists
    none)."""
    for cls in type(provider).__mro__:
        if "_list_tools" in vars(cls):
            return not (cls.__name__ == "Provider" and cls.__module__.startswith("fastmcp."))
    return False


def tool_providers(provider: Any, *, into_servers: bool, depth: int = 0) -> list[str]:
    """The class names of the providers in ``provider`` (unwrapped, aggregates expanded) whose
    tools no registration makes; with ``into_servers``, a mounted server's too."""
    classes = _fastmcp_classes(provider)
    if depth > _DEPTH or "LocalProvider" in classes:
        return []
    if "FastMCP" in classes or "FastMCPProvider" in classes:
        if not into_servers:
            return []
        server = provider if "FastMCP" in classes else getattr(provider, "server", None)
        return server_tool_providers(server, depth + 1)
    inner = getattr(provider, "_inner", None)
    if "_WrappedProvider" in classes and inner is not None:
        return tool_providers(inner, into_servers=into_servers, depth=depth + 1)
    if "AggregateProvider" in classes:
        found: list[str] = []
        for each in list(getattr(provider, "providers", ())):
            found += tool_providers(each, into_servers=into_servers, depth=depth + 1)
        return found
    return [type(provider).__name__] if _lists_tools(provider) else []


def server_tool_providers(server: Any, depth: int = 0) -> list[str]:
    """The kinds of tool-building providers of a fastmcp ``server``, its mounted servers'
    included (sorted, each once); empty for any other server."""
    classes = _fastmcp_classes(server)
    found: list[str] = []
    if "FastMCP" in classes and hasattr(server, "_local_provider"):  # fastmcp 3.x and later
        for provider in list(getattr(server, "providers", ())):
            found += tool_providers(provider, into_servers=True, depth=depth + 1)
    elif "FastMCP" in classes:  # fastmcp 2.x: its class, and its mounted servers
        found += [name for name in SERVER_CLASSES if name in classes]
        mounted = getattr(server, "_mounted_servers", None)
        values = mounted.values() if isinstance(mounted, dict) else mounted or ()
        for mount in list(values) if depth <= _DEPTH else ():
            found += server_tool_providers(getattr(mount, "server", mount), depth + 1)
    return sorted(set(found))
