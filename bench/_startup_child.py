"""One measured process for bench/startup.py. Imports nothing before the measured part.

Usage: python _startup_child.py MODE WORKDIR
  floor      import one literal module holding the tools/list payload
  ours       mcp_codegen.runtime: load the generated modules, list the tools (fresh copies)
  sdk        MCPServer: import the tool modules, register every tool, await list_tools()
  sdk-import import mcp.server.lowlevel only: the cost every SDK-based server pays first
  empty      nothing: the interpreter's own start
  sdk-serve  serve the `sdk` setup over stdio (for the spawn-to-response measurement)
  floor-serve the stdio floor: answer initialize and tools/list from the literal module, no more

Prints "T_START T_READY TOOL_COUNT PEAK_RSS_KIB PAYLOAD_BYTES" (perf_counter is CLOCK_MONOTONIC on
Linux, so the parent compares it with its own spawn time).
"""

import time

T_START = time.perf_counter()

import sys  # noqa: E402 - after the first timestamp on purpose

MODE, WORKDIR = sys.argv[1], sys.argv[2]


def _sdk_server():  # type: ignore[no-untyped-def]
    """An MCPServer with every synthetic tool registered by the SDK's own decorator."""
    import importlib
    import pkgutil

    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    sys.path.insert(0, WORKDIR)
    package = importlib.import_module("synth")
    app = MCPServer("sdk-bench")
    for info in pkgutil.iter_modules(package.__path__, "synth."):
        module = importlib.import_module(info.name)
        for value in list(vars(module).values()):
            options = getattr(value, "__mcp_codegen_tool__", None)
            if options is None or value.__module__ != module.__name__:
                continue
            hints = {"readOnlyHint": options.get("read_only")} if "read_only" in options else {}
            hints.update(options.get("annotations") or {})
            app.tool(
                title=options.get("title"),
                description=options.get("description"),
                annotations=ToolAnnotations(**hints) if hints else None,
            )(value)
    return app


if MODE == "floor":
    sys.path.insert(0, WORKDIR)
    import floor_tools

    tools = floor_tools.TOOLS
elif MODE == "ours":
    from mcp_codegen.runtime import load_tools

    tools = load_tools(WORKDIR + "/generated").list_tools()
elif MODE == "sdk":
    import asyncio

    tools = asyncio.run(_sdk_server().list_tools())
elif MODE == "sdk-import":
    import mcp.server.lowlevel  # noqa: F401

    tools = []
elif MODE == "empty":
    tools = []
elif MODE == "sdk-serve":
    _sdk_server().run("stdio")
    raise SystemExit(0)
elif MODE == "floor-serve":
    import json

    sys.path.insert(0, WORKDIR)
    import floor_tools

    for line in sys.stdin.buffer:
        message = json.loads(line)
        if "id" not in message:
            continue
        if message["method"] == "initialize":
            result: dict[str, object] = {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "floor", "version": "0"},
            }
        else:
            result = {"tools": floor_tools.TOOLS}
        answer = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        sys.stdout.write(json.dumps(answer, separators=(",", ":")) + "\n")
        sys.stdout.flush()
    raise SystemExit(0)
else:
    raise SystemExit(f"unknown mode {MODE!r}")

T_READY = time.perf_counter()

import json  # noqa: E402
import resource  # noqa: E402

peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
if MODE == "sdk":
    payload = [tool.model_dump(by_alias=True, mode="json", exclude_none=True) for tool in tools]
else:
    payload = tools
size = len(json.dumps(payload, separators=(",", ":")))
sys.stdout.write(f"{T_START!r} {T_READY!r} {len(tools)} {peak_kib} {size}\n")
