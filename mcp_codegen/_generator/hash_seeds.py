"""``--vary-hash-seed``: build again with another hash seed and warn where a value changed.

Generation itself is stable (the workers pin ``PYTHONHASHSEED``), but a default or decorator
value that the code builds by iterating a set (``",".join(SOME_SET)``) still changes from one
server start to the next, so the generated schema can disagree with what the running function
uses. Comparing a second build is the only reliable detector, and it costs a second build (see
docs/decisions/0270-vary-hash-seed-on-request.md), so it is asked for, not done on every run.
"""

from __future__ import annotations

from typing import Any

from mcp_codegen._generator.assemble.stability import pointer_parts, value_position
from mcp_codegen._generator.config import Config
from mcp_codegen._generator.model import JSON, ModuleDefinition, ToolDefinition
from mcp_codegen._generator.pipeline import BuildResult, build
from mcp_codegen._generator.workers.prestart import WORKER_HASH_SEED
from mcp_codegen._shared.diagnostics import Diagnostic
from mcp_codegen._shared.json_values import differences

PROBE_HASH_SEED = "1"


def changed_pointers(ours: JSON, theirs: JSON) -> list[str]:
    """JSON pointers of the innermost values that differ; reordered keys and arrays of scalars
    differ as wholes (the order is what a hash seed changes)."""
    return [
        pointer
        for pointer, _, _ in differences(ours, theirs, ordered_keys=True, whole_scalar_lists=True)
    ]


def _lookup(value: JSON, pointer: str) -> Any:
    """The value at ``pointer``, or ``None`` where it has none."""
    for key in pointer_parts(pointer):
        if isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        elif isinstance(value, dict):
            value = value.get(key)
        else:
            return None
    return value


def _tools(definitions: tuple[ModuleDefinition, ...]) -> dict[tuple[str, str, int], Any]:
    """Each tool keyed by (source, function, occurrence): its name may be what changed."""
    keyed: dict[tuple[str, str, int], Any] = {}
    for definition in definitions:
        for tool in definition.tools:
            index = 0
            while (key := (definition.source.relative_path, tool.function, index)) in keyed:
                index += 1
            keyed[key] = (definition, tool)
    return keyed


def _warning(
    definition: ModuleDefinition, tool: ToolDefinition, pointer: str, ours: JSON, theirs: JSON
) -> Diagnostic:
    where = value_position(definition.source, tool, pointer)
    return Diagnostic(
        definition.source.relative_path,
        where.line,
        where.column,
        f"the value at {pointer or '/'} of tool {tool.name!r} changes with the hash seed "
        f"({_short(ours)} with PYTHONHASHSEED={WORKER_HASH_SEED}, {_short(theirs)} with "
        f"{PROBE_HASH_SEED}), so every server start may compute another one: it comes from "
        "iterating a set or frozenset (or from id(), the time or another per-process value); "
        "iterate sorted(...) instead. The generated file keeps the value of "
        f"PYTHONHASHSEED={WORKER_HASH_SEED}",
        severity="warning",
    )


def _short(value: JSON) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def compare_builds(ours: BuildResult, theirs: BuildResult) -> list[Diagnostic]:
    """Warnings for each value that differs between two builds of the same sources."""
    warnings = []
    their_tools = _tools(theirs.definitions)
    for key, (definition, tool) in _tools(ours.definitions).items():
        other = their_tools.get(key)
        if other is None:
            warnings.append(_warning(definition, tool, "", tool.name, None))
            continue
        other_tool: ToolDefinition = other[1]
        reported = set()
        for pointer in changed_pointers(tool.wire, other_tool.wire):
            where = value_position(definition.source, tool, pointer)
            if where in reported:
                continue
            reported.add(where)
            warnings.append(
                _warning(
                    definition,
                    tool,
                    pointer,
                    _lookup(tool.wire, pointer),
                    _lookup(other_tool.wire, pointer),
                )
            )
    return warnings


def vary_hash_seed(config: Config, baseline: BuildResult) -> list[Diagnostic]:
    """Build ``config`` again with another hash seed; a warning per value that changed."""
    if baseline.errors:
        return []
    ours = baseline if baseline.definitions else build(config, use_cache=False)
    theirs = build(config, use_cache=False, hash_seed=PROBE_HASH_SEED)
    if theirs.errors:
        first = theirs.errors[0]
        return [
            Diagnostic(
                first.path,
                first.line,
                first.column,
                f"with PYTHONHASHSEED={PROBE_HASH_SEED} the build fails: {first.message}",
                severity="warning",
            )
        ]
    return compare_builds(ours, theirs)
