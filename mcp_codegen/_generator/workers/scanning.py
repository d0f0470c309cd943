"""The scan in a worker: one source at a time, and the ``scan`` role of a split session.

A ``scan`` worker imports libcst and the scanner, never pydantic or user code; each scan goes
back to the generator, which hands it with its source to an ``inspect`` worker
(``mcp_codegen._generator.workers.pool``).

Runs in: worker.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from mcp_codegen._generator.compiled_methods import Table
from mcp_codegen._generator.model import ScannedModule, SourceFile
from mcp_codegen._generator.scan.factory_reach import FactoryReach, factories_of
from mcp_codegen._generator.workers.messages import read_message, take_channels, write_message


def scan_reporting(
    source: SourceFile,
    decorators: list[str],
    factories: dict[str, dict[str, str]],
    reach: FactoryReach,
    on_tree: Callable[[Any], None] | None = None,
    framework: bool = False,
) -> ScannedModule | None:
    """``scan_source``, with a failure of the parser itself reported at the file; ``on_tree``
    gets the source's ``ast`` tree (a worker's ``SourceIndex``: not parsed twice)."""
    # Imported here: libcst is loaded only by scan workers, not by inspect-only ones.
    from mcp_codegen._generator.scan.files import scan_source

    try:
        return scan_source(
            source,
            decorators,
            factories_of(source, factories, reach),
            on_tree=on_tree,
            framework=framework,
        )
    except RecursionError:
        message = "the source nests too deeply to parse; split the deepest expression"
    except Exception as exc:
        message = f"cannot scan the source: {type(exc).__name__}: {exc}"
    return ScannedModule.failed(source, message)


def factory_keys(calls: list[str]) -> dict[str, dict[str, str]]:
    """module -> {factory qualname: call as configured} (the config validated each call).

    A method called further along the chain (``make().build()``) is keyed ``*.build``: the
    tools defined in a method of that name in the factory's module belong to the call too."""
    # Imported here: only factory calls are parsed, and it loads libcst.
    from mcp_codegen._registration.factory_calls import parse_factory_call

    found: dict[str, dict[str, str]] = {}
    for text in calls:
        call = parse_factory_call(text)
        keys = found.setdefault(call.module, {})
        keys[call.qualname] = call.text
        for step, following in zip(call.chain, call.chain[1:], strict=False):
            if step[0] == "attribute" and following[0] == "call":
                keys.setdefault(f"*.{step[1]}", call.text)
    return found


def scan_main(methods: Table | None = None) -> None:
    """A ``scan`` worker: ``("ready",)``, then per source ``("start", path)`` and
    ``("scanned", path, module)``; then ``("finished",)``. ``methods``: the compiled dataclass
    methods this process uses (``mcp_codegen._generator.compiled_methods``), saved when they
    grew."""
    requests, events = take_channels()
    import mcp_codegen._generator.scan.files  # noqa: F401

    if methods is not None:
        methods.save()  # libcst's, before the first source

    settings = read_message(requests)
    factories = factory_keys(settings.get("factories", []))
    reach = FactoryReach()
    write_message(events, ("ready",))
    while (source := read_message(requests)) is not None:
        write_message(events, ("start", source.relative_path))
        framework = settings["flavor"] != "clean"
        module = scan_reporting(
            source, settings["decorators"], factories, reach, framework=framework
        )
        write_message(events, ("scanned", source.relative_path, module))
    write_message(events, ("finished",))
    events.close()
    if methods is not None:
        methods.save()
    os._exit(0)
