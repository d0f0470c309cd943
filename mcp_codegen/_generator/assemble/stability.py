"""Process state that leaks into a tool's schema: refused, at the position of its source.

The workers pin the hash seed, time zone and locale (``mcp_codegen._generator.workers.prestart``). What they cannot pin
is refused here: a set in a decorator value (listed in the order of whichever process iterates
it), an object's default ``repr`` (its memory address changes on every run), and an absolute path
of this checkout or of the Python installation (different on every machine). Each would make
``generate`` disagree with itself, or the generated file with another machine's.
"""

from __future__ import annotations

import json
import re
import sysconfig
from collections.abc import Iterator
from pathlib import Path

from mcp_codegen._generator.config import Config
from mcp_codegen._generator.model import (
    JSON,
    ModuleDefinition,
    Position,
    ScannedModule,
    ToolDefinition,
)
from mcp_codegen._shared.diagnostics import Diagnostic
from mcp_codegen._shared.json_pointer import child, tokens

#: ``object.__repr__``: ``<pkg.Thing object at 0x7f3a2c1d>``, ``<function f at 0x7f...>``.
_ADDRESS = re.compile(r"<[^<>]{0,200}? at 0x[0-9A-Fa-f]{4,}>")
#: Wire keys of a tool and the decorator option that sets each.
_OPTION_OF_KEY = {"_meta": "meta", "inputSchema": "input_schema", "outputSchema": "output_schema"}


def machine_paths(config: Config) -> dict[str, str]:
    """Absolute directories that differ between machines, each with what it is."""
    paths = {str(config.root): "the project's checkout"}
    for key in ("purelib", "platlib"):
        paths.setdefault(sysconfig.get_paths()[key], "the Python installation")
    return {path: what for path, what in paths.items() if len(Path(path).parts) >= 2}


def _path_pattern(paths: dict[str, str]) -> re.Pattern[str]:
    longest_first = sorted(paths, key=len, reverse=True)
    return re.compile("|".join(re.escape(p) for p in longest_first) + r"(?![\w.-])")


def child_pointer(pointer: str, key: object) -> str:
    """The JSON pointer (RFC 6901) of ``key`` inside the value at ``pointer``."""
    return child(pointer, key)


def pointer_parts(pointer: str) -> list[str]:
    """The keys of a JSON pointer, unescaped."""
    return tokens(pointer)


def strings(value: JSON, pointer: str = "") -> Iterator[tuple[str, str]]:
    """Every string in ``value`` (dict keys too) with its JSON pointer."""
    if isinstance(value, str):
        yield pointer, value
    elif isinstance(value, dict):
        for key, item in value.items():
            child = child_pointer(pointer, key)
            if isinstance(key, str):
                yield child, key
            yield from strings(item, child)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from strings(item, f"{pointer}/{index}")


def value_position(module: ScannedModule, tool: ToolDefinition, pointer: str) -> Position:
    """Where the value at ``pointer`` of a tool comes from: a parameter, a decorator argument, or
    the tool's definition."""
    scanned = next((t for t in module.tools if t.position == tool.position), None)
    if scanned is None:
        return tool.position
    parts = pointer_parts(pointer)
    if parts[:2] == ["inputSchema", "properties"] and len(parts) > 2:
        for parameter in scanned.parameters:
            if parameter.name == parts[2]:
                return parameter.position
    if parts:
        option = _OPTION_OF_KEY.get(parts[0], parts[0])
        return scanned.option_positions.get(option, tool.position)
    return tool.position


def sets(value: JSON, pointer: str = "") -> Iterator[tuple[str, JSON]]:
    """Every set or frozenset in ``value`` (a decorator value written as ``{"a", "b"}``)."""
    if isinstance(value, set | frozenset):
        yield pointer, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from sets(item, child_pointer(pointer, key))
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from sets(item, f"{pointer}/{index}")


def _unordered(found: JSON) -> str:
    listed = sorted(found, key=repr)
    return (
        "is a set: JSON has no sets, and the order a set is listed in follows the process's "
        f"hash seed; write a list in the order you want, e.g. {listed!r:.80}"
    )


def _reasons(wire: dict[str, JSON], paths: dict[str, str]) -> Iterator[tuple[str, str]]:
    """(JSON pointer, what is wrong and how to fix it) for each unstable value of one tool."""
    for pointer, found in sets(wire):
        yield pointer, _unordered(found)
    pattern = _path_pattern(paths)
    for pointer, text in strings(wire):
        if (address := _ADDRESS.search(text)) is not None:
            yield (
                pointer,
                (
                    f"contains an object's repr with its memory address ({address.group()!r}), "
                    "which changes on every run; give the object a __repr__ without its "
                    "address, or write the value literally"
                ),
            )
        elif (path := pattern.search(text)) is not None:
            yield (
                pointer,
                (
                    f"contains the absolute path {path.group()!r} of {paths[path.group()]}, "
                    "which differs on every machine; use a path relative to the project (or "
                    "to the file), or write the value literally"
                ),
            )


def _suspect(definition: ModuleDefinition, paths: dict[str, str]) -> bool:
    """A cheap first look: the module's tools as one JSON text (``json`` is C code; walking
    every string in Python cost ~2.5% of a build). A set cannot be encoded at all."""
    try:
        text = json.dumps([tool.wire for tool in definition.tools], ensure_ascii=False)
    except (TypeError, ValueError):
        return True
    return " at 0x" in text or any(json.dumps(p, ensure_ascii=False)[1:-1] in text for p in paths)


def leaked_state(definition: ModuleDefinition, config: Config) -> list[Diagnostic]:
    """Errors for sets, memory addresses and machine paths in the module's tools."""
    paths = machine_paths(config)
    if not _suspect(definition, paths):
        return []
    problems = []
    for tool in definition.tools:
        reported: set[Position] = set()
        for pointer, reason in _reasons(tool.wire, paths):
            where = value_position(definition.source, tool, pointer)
            if where in reported:  # one problem per parameter or argument is enough to act on
                continue
            reported.add(where)
            problems.append(
                Diagnostic(
                    definition.source.relative_path,
                    where.line,
                    where.column,
                    f"the value at {pointer} of tool {tool.name!r} {reason}",
                )
            )
    return problems
