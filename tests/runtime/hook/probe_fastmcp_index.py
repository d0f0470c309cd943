"""Drives fastmcp's registration bookkeeping through random operations; prints the trace as JSON.

``python probe_fastmcp_index.py indexed|plain SEED COUNT``: ``indexed`` installs
``mcp_codegen.runtime._hook.fastmcp_index`` first (as ``use_generated`` does), ``plain`` is fastmcp
alone. The trace (each result or exception, ``_components`` order and the wire-schema cache
after every step) must be the same in both modes.
"""

from __future__ import annotations

import json
import random
import sys

from fastmcp import FastMCP
from fastmcp.server import server as fastmcp_server
from fastmcp.server.providers.local_provider import LocalProvider
from fastmcp.tools.base import Tool


def one(value: int) -> int:
    return value


def two(text: str, flag: bool = False) -> str:
    return text


def three(items: list[int]) -> int:
    return len(items)


def main() -> None:
    mode, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if mode == "indexed":
        from mcp_codegen.runtime._hook.fastmcp_index import install

        install(LocalProvider, Tool, fastmcp_server._SchemaCacheLocalProvider)
    rng = random.Random(seed)
    trace: list[object] = []
    for policy in ("error", "warn", "replace", "ignore"):
        app = FastMCP("probe", on_duplicate=policy)
        provider = app._local_provider
        for _ in range(count):
            name = rng.choice("abc")
            version = rng.choice([None, None, "1", "2", "10"])
            step = rng.random()
            try:
                if step < 0.6:
                    fn = rng.choice([one, two, three])
                    added = app.add_tool(Tool.from_function(fn, name=name, version=version))
                    outcome: object = ["added", added.key, added.parameters]
                elif step < 0.8:
                    provider.remove_tool(name, version=rng.choice([None, version]))
                    outcome = ["removed", name]
                elif step < 0.9:
                    app.add_resource(app.resource(f"res://{name}/{rng.randrange(3)}")(lambda: "x"))
                    outcome = ["resource"]
                elif step < 0.95:
                    provider._components.pop(rng.choice([*provider._components, "none"]), None)
                    outcome = ["popped behind fastmcp's back"]
                else:
                    provider._components.clear()
                    outcome = ["cleared behind fastmcp's back"]
            except Exception as error:  # the trace compares fastmcp's own errors
                outcome = ["error", type(error).__name__, str(error)]
            trace.append([outcome, list(provider._components), dict(app._wire_input_schemas)])
    indexed = "_codegen_tool_index" in vars(provider)
    print(json.dumps({"indexed": indexed, "trace": trace}, sort_keys=True, default=str))


if __name__ == "__main__":
    main()
