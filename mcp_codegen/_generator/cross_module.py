"""Checks that span the modules of a build, made once every module is in.

Tool names chosen by factory servers (and, in the framework flavors, every name across modules),
``factories`` entries that define no tool, which source each registration a server made belongs
to (the cache keeps it with that module), and which code counts as the project's for the
omission check.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mcp_codegen._generator.config import Config
from mcp_codegen._generator.discover import module_name_for
from mcp_codegen._generator.model import ModuleDefinition, ScannedModule, SourceFile, ToolDefinition
from mcp_codegen._registration.factory_calls import parse_factory_call
from mcp_codegen._shared.diagnostics import Diagnostic
from mcp_codegen._shared.format import tool_server


def registrations_by_source(
    registrations: list[Any], sources: list[SourceFile], scanned_by: dict[str, ScannedModule]
) -> dict[str, list[Any]]:
    """The registrations each source's cache entry keeps (``registrations.attributed``)."""
    # Imported here: only a build that inspected or read modules attributes registrations.
    from mcp_codegen._generator.inspection.registrations import attributed, registers_at_import

    imported_alone = {}
    for source in sources:
        module = scanned_by.get(source.relative_path)
        if module.inspectable if module is not None else registers_at_import(source.data):
            imported_alone[os.path.realpath(source.path)] = source.relative_path
    return attributed(registrations, imported_alone)


def project_dirs(config: Config, sources: list[SourceFile]) -> list[str]:
    """The project root and each source's top-level package directory: code the project owns."""
    found = {str(config.root)}
    for source in sources:
        top = os.path.join(source.import_root, source.module.split(".")[0])
        if os.path.isdir(top):
            found.add(top)
    return sorted(found)


def named_modules(config: Config) -> frozenset[str]:
    """The modules ``run_targets`` and ``factories`` name: their servers are the project's."""
    return frozenset(
        entry.partition(":")[0].strip() for entry in (*config.run_targets, *config.factories)
    )


def unused_factories(
    config: Config, scanned: list[ScannedModule], source_paths: Iterable[Path]
) -> list[Diagnostic]:
    """A ``factories`` entry that defines none of the scanned tools is a mistake in the config.
    ``source_paths``: every file of ``sources``, with tools or not."""
    used = {tool.factory for module in scanned for tool in module.tools}
    unused = [call for call in config.factories if call.strip() not in used]
    if not unused:
        return []
    modules = {module_name_for(path, config.python_path)[0] for path in source_paths}
    return [
        Diagnostic(
            config.relative(config.config_file),
            0,
            0,
            f"factories: {call} {_unused_factory_reason(call, modules)}",
        )
        for call in unused
    ]


def _unused_factory_reason(call: str, source_modules: set[str]) -> str:
    factory = parse_factory_call(call)  # the configuration checked it when it was loaded
    module, function = factory.module, factory.qualname
    if module not in source_modules:
        return (
            "defines no tool found in `sources` (no tool decorator inside that function); add "
            "the factory's file to `sources`, or remove the entry"
        )
    return (
        f"registers no tool itself: {module} is in `sources`, but {function}() holds no tool "
        "decorator or registration call (the functions it calls in other modules are read "
        f"where they are defined, without this entry); remove the entry, or register the "
        f"tools inside {function}()"
    )


def name_clashes(definitions: list[ModuleDefinition], *, per_server: bool) -> list[Diagnostic]:
    """Tool names known only after the build must be unique too: names chosen by factory
    servers, and in the framework flavors every name across modules (``duplicate_names``
    checked the names written in source before, within each module).

    ``per_server``: a name may repeat on different servers (a composed package: fastmcp
    ``mount`` / ``import_server``, several SDK servers), each keyed by ``x-codegen.server`` or
    its factory call; a tool whose server is unknown (no key) clashes with every other."""
    seen: dict[str, list[tuple[ModuleDefinition, ToolDefinition]]] = {}
    clashes = []
    for definition in definitions:
        for tool in definition.tools:
            earlier = seen.setdefault(tool.name, [])
            other = next(
                (
                    (d, t)
                    for d, t in earlier
                    if _clash(tool, t, per_server) and d.source is not definition.source
                ),
                None,
            )
            earlier.append((definition, tool))
            if other is None:
                continue
            where = other[0].source.relative_path
            server = _server_of(tool)
            on = f" on server {server}" if per_server and server is not None else ""
            hint = (
                "change the factory's arguments in `factories` or one of the names"
                if "factory" in tool.extra or "factory" in other[1].extra
                else "pass a distinct name= to one of them"
            )
            clashes.append(
                Diagnostic(
                    definition.source.relative_path,
                    tool.position.line,
                    tool.position.column,
                    f"duplicate tool name {tool.name!r}{on}: also generated at {where}:"
                    f"{other[1].position.line}:{other[1].position.column}; {hint}",
                )
            )
    return clashes


def _server_of(tool: ToolDefinition) -> str | None:
    return tool_server(tool.extra)


def _clash(tool: ToolDefinition, other: ToolDefinition, per_server: bool) -> bool:
    if not per_server:  # clean: one flat list; source names were checked before
        return "factory" in tool.extra or "factory" in other.extra
    mine, theirs = _server_of(tool), _server_of(other)
    return mine is None or theirs is None or mine == theirs
