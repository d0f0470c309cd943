"""Run in a fresh process by tests/runtime/hook: install the hook, import a server, report as JSON.

Usage: python probe_hook.py GENERATED MODULE:OBJECT FRAMEWORK [--strict] [--call TOOL JSON]

Counts the framework's inference entry points (SDK ``func_metadata``, fastmcp
``ParsedFunction.from_function``) while the server module is imported and its tools listed,
then again after one call; records which frameworks were imported and every warning.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import warnings
from typing import Any

import anyio


def main() -> None:
    generated, target, framework, *rest = sys.argv[1:]
    strict = "--strict" in rest
    call = rest[rest.index("--call") + 1 : rest.index("--call") + 3] if "--call" in rest else None
    from mcp_codegen.runtime import use_generated

    warnings.simplefilter("always")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # Relative to the project it runs in: a relative path would be relative to the
        # configuration above this file (this repository's; docs/configuration.md).
        use_generated(os.path.abspath(generated), strict=strict)
        imported_before = _frameworks()
        counter = _count_inference(framework)
        try:
            module, _, attribute = target.partition(":")
            server = getattr(importlib.import_module(module), attribute)
        except Exception as exc:  # reported, the test decides
            print(json.dumps({"error": f"{type(exc).__name__}: {exc}"}))
            return
        imported_after = _frameworks()
        listed = anyio.run(_list, server, framework)
        at_start = counter["n"]
        answer = anyio.run(_call, server, framework, call[0], json.loads(call[1])) if call else None
    print(
        json.dumps(
            {
                "frameworks_before_import": imported_before,
                "frameworks_after_import": imported_after,
                "inferred_at_start": at_start,
                "inferred_after_call": counter["n"],
                "tools": listed,
                "answer": answer,
                "warnings": [f"{w.category.__name__}: {w.message}" for w in caught],
                "warned_at": [[w.filename, w.lineno] for w in caught],
            }
        )
    )


def _frameworks() -> list[str]:
    names = ("mcp.server.mcpserver", "mcp.server.fastmcp", "fastmcp")
    return sorted(name for name in names if name in sys.modules)


def _count_inference(framework: str) -> dict[str, int]:
    counter = {"n": 0}

    def counted(function: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            counter["n"] += 1
            return function(*args, **kwargs)

        return wrapper

    if framework == "mcp":
        from mcp.server.mcpserver.tools import base

        base.func_metadata = counted(base.func_metadata)
    else:
        from fastmcp.tools.function_parsing import ParsedFunction

        original = ParsedFunction.from_function.__func__
        ParsedFunction.from_function = classmethod(counted(original))  # type: ignore[method-assign]
    return counter


async def _list(server: Any, framework: str) -> list[dict[str, Any]]:
    async with _client(server, framework) as client:
        tools = (await client.list_tools()).tools if framework == "mcp" else None
        if tools is None:
            tools = (await client.list_tools_mcp()).tools
    return [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in tools]


async def _call(server: Any, framework: str, name: str, arguments: dict[str, Any]) -> Any:
    async with _client(server, framework) as client:
        call = client.call_tool if framework == "mcp" else client.call_tool_mcp
        result = await call(name, arguments)
    return result.model_dump(by_alias=True, mode="json", exclude_none=True)


def _client(server: Any, framework: str) -> Any:
    if framework == "mcp":
        from mcp.client import Client

        return Client(server)
    import fastmcp

    return fastmcp.Client(server)


if __name__ == "__main__":
    main()
