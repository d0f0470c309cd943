"""The child process that imports user code: ``python -m codegen.worker``.

Protocol (pickles, each prefixed by an 8-byte big-endian length):
- in, on stdin: a settings dict, then one ``ScannedModule`` per message, then ``None``; a dict
  among them adds settings (the flavor);
- out, on the original stdout: ``("ready",)``, then ``("start", module)``, ``("tool", module)``
  for each tool and ``("done", module, tools, diagnostics)`` per module, and ``("finished",)``.

The original stdout and stdin are moved out of reach first: anything user code prints, even from
C, lands on stderr, and a module that reads stdin at import gets EOF instead of hanging.
"""

from __future__ import annotations

import os
import pickle
import struct
import sys
from pathlib import Path
from typing import Any, BinaryIO

from codegen.errors import Diagnostic
from codegen.model import InspectedTool, ScannedModule


def write_message(stream: BinaryIO, message: object) -> None:
    payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(struct.pack(">Q", len(payload)) + payload)
    stream.flush()


def read_message(stream: BinaryIO) -> Any:
    header = stream.read(8)
    if len(header) < 8:
        raise EOFError
    (size,) = struct.unpack(">Q", header)
    return pickle.loads(stream.read(size))


def _inspect_module(
    module: ScannedModule,
    injected: frozenset[str],
    permissive_fallback: bool,
    events: BinaryIO,
    flavor: str = "clean",
) -> tuple[list[InspectedTool], list[Diagnostic]]:
    from codegen.resolve import ResolveFailure, import_module, resolve_tool
    from codegen.schema import inspect_tool

    try:
        loaded = import_module(module)
    except ResolveFailure as failure:
        return [], failure.diagnostics
    tools, diagnostics = [], []
    framework_tools = []  # flavors "mcp"/"fastmcp": the framework describes them, all at once
    for tool in module.tools:
        write_message(events, ("tool", module.module))
        try:
            resolved = resolve_tool(module, loaded, tool)
            if flavor != "clean":
                framework_tools.append(resolved)
                continue
            tools.append(inspect_tool(module, resolved, injected, permissive_fallback))
        except ResolveFailure as failure:
            diagnostics.extend(failure.diagnostics)
        except RecursionError:
            diagnostics.append(
                Diagnostic(
                    module.relative_path,
                    tool.position.line,
                    tool.position.column,
                    f"the types of {tool.name!r} nest too deeply to describe",
                )
            )
        except Exception as exc:
            diagnostics.append(
                Diagnostic(
                    module.relative_path,
                    tool.position.line,
                    tool.position.column,
                    f"cannot build the schema of {tool.name!r}: {type(exc).__name__}: {exc}",
                )
            )
    if framework_tools:
        tools.extend(_framework_module(module, framework_tools, injected, flavor, diagnostics))
    return tools, diagnostics


def _framework_module(
    module: ScannedModule,
    resolved: list[Any],
    injected: frozenset[str],
    flavor: str,
    diagnostics: list[Diagnostic],
) -> list[InspectedTool]:
    """Flavors "mcp"/"fastmcp": the framework's own tools/list entry for each tool."""
    from codegen.flavors import build_module_tools

    try:
        built, problems = build_module_tools(flavor, module, resolved, injected)
    except ImportError as exc:
        diagnostics.append(Diagnostic(module.relative_path, 1, 1, str(exc)))
        return []
    except Exception as exc:
        diagnostics.append(
            Diagnostic(
                module.relative_path,
                1,
                1,
                f"flavor {flavor!r} could not list the tools of {module.module}: "
                f"{type(exc).__name__}: {exc}",
            )
        )
        return []
    diagnostics.extend(problems)
    return [
        InspectedTool(
            name=name,
            input_schema=None,
            output_schema=None,
            description=None,
            parameter_descriptions={},
            flavored=flavored,
        )
        for name, flavored in built.items()
    ]


def _preload(flavor: str) -> None:
    """Import the flavor's framework while the parent is still scanning (it costs ~1 s)."""
    if flavor == "clean":
        return
    try:
        from codegen.flavors import build_module_tools  # noqa: F401

        if flavor == "mcp":
            from codegen.flavors.mcp import new_server
        else:
            from codegen.flavors.fastmcp import new_server
        new_server()
    except Exception:  # reported per module, with a position, when the module is built
        pass


def main() -> None:
    events = os.fdopen(os.dup(1), "wb")
    requests = os.fdopen(os.dup(0), "rb")
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    settings = read_message(requests)
    for entry in reversed(settings["sys_path"]):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    injected = frozenset(settings["injected"])
    # Pay for pydantic while the parent is still scanning sources.
    if settings.get("output"):
        from codegen.resolve import guard_output_package

        guard_output_package(Path(settings["output"]))
    import codegen.schema  # noqa: F401

    _preload(settings.get("flavor", "clean"))
    write_message(events, ("ready",))
    while (module := read_message(requests)) is not None:
        write_message(events, ("start", module.module))
        tools, diagnostics = _inspect_module(
            module,
            injected,
            settings["permissive_fallback"],
            events,
            settings.get("flavor", "clean"),
        )
        write_message(events, ("done", module.module, tools, diagnostics))
    # Every file this process imported: the build cache's dependency set.
    loaded = [
        f for m in list(sys.modules.values()) if isinstance(f := getattr(m, "__file__", None), str)
    ]
    write_message(events, ("dependencies", loaded))
    write_message(events, ("finished",))
    events.close()
    sys.stdout.flush()
    sys.stderr.flush()
    # Skip interpreter teardown: user modules' atexit hooks and threads must not delay or alter us.
    os._exit(0)


if __name__ == "__main__":
    main()
