"""The child process that imports user code: ``python -m codegen.worker``.

Protocol (pickles, each prefixed by an 8-byte big-endian length):
- in, on stdin: a settings dict, then one ``ScannedModule`` per message, then ``None``;
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
) -> tuple[list[InspectedTool], list[Diagnostic]]:
    from codegen.resolve import ResolveFailure, import_module, resolve_tool
    from codegen.schema import inspect_tool

    try:
        loaded = import_module(module)
    except ResolveFailure as failure:
        return [], failure.diagnostics
    tools, diagnostics = [], []
    for tool in module.tools:
        write_message(events, ("tool", module.module))
        try:
            resolved = resolve_tool(module, loaded, tool)
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
    return tools, diagnostics


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
    import codegen.schema  # noqa: F401

    write_message(events, ("ready",))
    while (module := read_message(requests)) is not None:
        write_message(events, ("start", module.module))
        tools, diagnostics = _inspect_module(
            module, injected, settings["permissive_fallback"], events
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
