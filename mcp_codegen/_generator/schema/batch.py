"""One pydantic pass per module (``describe_module``): every tool's parameter ``TypedDict`` and every
uncached return type described together, so shared types are built once."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import TypeAdapter

from mcp_codegen._generator.inspection.resolve import ResolvedTool
from mcp_codegen._generator.model import JSON, ScannedModule
from mcp_codegen._generator.schema.defaults import module_defaults
from mcp_codegen._generator.schema.hints import SCHEMA_ONLY, has_no_output_schema
from mcp_codegen._generator.schema.inputs import InputPlan, plan_input
from mcp_codegen._generator.schema.outputs import OUTPUT_CACHE
from mcp_codegen._shared.schema_transforms import referenced_definitions


@dataclass
class ModuleSchemas:
    """Raw input schemas of a module's tools, described by pydantic in one pass.

    One ``TypeAdapter`` over a tuple of every tool's parameter TypedDict builds each shared type
    (a dataclass, a model used by many tools) once and generates one JSON Schema whose ``$defs``
    the tools share; each tool gets its own root and the definitions it reaches. Tools missing
    here are described one by one (``input_schema``), which is also how errors get positions.
    """

    inputs: dict[int, tuple[InputPlan, JSON]]
    #: id(tool) -> its defaults that need pydantic, checked together (``module_defaults``)
    defaults: dict[int, dict[str, JSON]] = field(default_factory=dict)


def _reachable(root: JSON, defs: dict[str, JSON], memo: dict[str, set[str]]) -> set[str]:
    """Names of the definitions ``root`` refers to, directly or through other definitions."""
    found: set[str] = set()
    pending = list(referenced_definitions(root, set()) & defs.keys())
    while pending:
        name = pending.pop()
        if name in found:
            continue
        found.add(name)
        if name not in memo:
            memo[name] = referenced_definitions(defs[name], set()) & defs.keys()
        pending.extend(memo[name])
    return found


def _described_together(types_: list[Any], mode: str) -> list[JSON] | None:
    """Each type's raw JSON Schema (with the ``$defs`` it reaches) from one pydantic pass.

    ``None`` when the pass fails or pydantic had to qualify a definition name because two types
    share a short name: described one by one, each would get the short name.
    """
    try:
        combined = TypeAdapter(tuple[tuple(types_)], config=SCHEMA_ONLY).json_schema(mode=mode)  # type: ignore[misc]
    except Exception:
        return None
    defs: dict[str, JSON] = combined.get("$defs", {})
    items = combined.get("prefixItems")
    if (
        any("__" in name for name in defs)
        or not isinstance(items, list)
        or len(items) != len(types_)
    ):
        return None
    memo: dict[str, set[str]] = {}
    schemas = []
    for item in items:
        reached = _reachable(item, defs, memo)
        schema = dict(item)
        if reached:
            schema["$defs"] = {name: defs[name] for name in sorted(reached)}
        schemas.append(schema)
    return schemas


def _unwrap_root(schema: JSON) -> JSON | None:
    """``{"$ref": X, "$defs": {X: body, ...}}`` as ``body`` with the other definitions it needs."""
    ref = schema.get("$ref")
    defs = schema.get("$defs", {})
    name = ref[len("#/$defs/") :] if isinstance(ref, str) and ref.startswith("#/$defs/") else None
    if name is None or name not in defs or len(schema) != 2:
        return None
    body = defs[name]
    if name in referenced_definitions(
        body, set()
    ):  # a TypedDict of parameters cannot refer to itself
        return None
    # The root and its property dicts are this tool's own: ``inspect_tool`` adds defaults to them.
    root = {**body, "properties": {k: dict(v) for k, v in body.get("properties", {}).items()}}
    rest = {n: d for n, d in defs.items() if n != name}
    if rest:
        root["$defs"] = rest
    return root


def describe_module(
    module: ScannedModule, tools: list[ResolvedTool], injected: frozenset[str]
) -> ModuleSchemas:
    """Describe the tools' inputs, and their not yet cached outputs, in one pass each."""
    plans: dict[int, InputPlan] = {}
    for tool in tools:
        if "input_schema" in tool.scanned.options:
            continue
        try:
            plans[id(tool)] = plan_input(tool, injected, module.relative_path)
        except Exception:  # described one by one, which reports the problem with a position
            continue
    inputs: dict[int, tuple[InputPlan, JSON]] = {}
    if len(plans) > 1:
        described = _described_together([p.arguments for p in plans.values()], "validation")
        for (key, plan), schema in zip(plans.items(), described or (), strict=False):
            root = _unwrap_root(schema)
            if root is not None:
                inputs[key] = (plan, root)
    pending = []
    for tool in tools:
        annotation = tool.return_annotation
        if "output_schema" in tool.scanned.options or has_no_output_schema(annotation):
            continue
        try:
            if annotation not in OUTPUT_CACHE and annotation not in pending:
                pending.append(annotation)
        except TypeError:  # unhashable: described one by one
            continue
    if len(pending) > 1:
        described = _described_together(pending, "serialization")
        for annotation, schema in zip(pending, described or (), strict=False):
            OUTPUT_CACHE[annotation] = schema
    return ModuleSchemas(inputs, module_defaults(plans))
