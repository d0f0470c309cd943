"""Shared by the "mcp" and "fastmcp" flavors (runs in the worker process, beside user code).

A flavor builds each tool with the framework's own inference, then serves the tools on a fresh
framework server and records what ``tools/list`` sends. The generated module holds those dicts,
so the runtime serves them without inferring anything: equal to the framework by construction.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcp_codegen._generator.inspection.resolve import ResolvedTool
from mcp_codegen._generator.model import JSON, ScannedModule, ScannedTool
from mcp_codegen._generator.schema.inputs import flavored_input_schema
from mcp_codegen._generator.schema.outputs import flavored_output_schema
from mcp_codegen._registration.served import mcp_types as _mcp_types
from mcp_codegen._shared.diagnostics import Diagnostic
from mcp_codegen._shared.format import PRIVATE_KEY

#: Decorator options that belong to mcp-codegen's own ``@tool``; no framework decorator has them.
CODEGEN_OPTIONS = frozenset({"input_schema", "output_schema", "box_field"})
#: Set by the scanner beside ``annotations`` (``mcp_codegen._generator.scan.files.ANNOTATIONS_AS_WRITTEN``).
ANNOTATIONS_AS_WRITTEN = "annotations_as_written"
#: Top-level tool keys in the order the generated modules write them; others follow, sorted.
TOOL_KEY_ORDER = (
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "icons",
    "execution",
    "_meta",
)


@dataclass
class FlavoredTool:
    """One tool as the framework serves it, plus how the runtime must shape its results."""

    wire: dict[str, JSON]
    box_field: str | None = None
    private: dict[str, JSON] = field(default_factory=dict)  # extra ``x-codegen`` keys

    def as_message(self) -> dict[str, JSON]:
        """Plain data for the worker protocol (no class needed to unpickle it)."""
        return {"wire": self.wire, "box": self.box_field, PRIVATE_KEY: self.private}


def at_tool(module: ScannedModule, tool: ScannedTool, message: str, key: str = "") -> Diagnostic:
    """A diagnostic at the tool, or at its decorator argument ``key`` when given."""
    where = tool.option_positions.get(key, tool.position) if key else tool.position
    return Diagnostic(module.relative_path, where.line, where.column, message)


def presented_function(resolved: ResolvedTool, hidden: list[str]) -> Callable[..., Any]:
    """The function handed to the framework: the tool itself, or a stand-in whose signature
    leaves out the injected parameters (a framework would otherwise try to describe them).

    The tool itself is the object its decorator received (``resolved.received``): a
    functools.wraps wrapper that rewrites ``__doc__`` gives the framework that description, as
    it does at import; the framework follows ``__wrapped__`` for the signature on its own.
    """
    function = resolved.function
    received = resolved.received if resolved.received is not None else function
    if not hidden:
        return received
    signature = inspect.signature(function)
    resolved_types = {p.name: p.annotation for p in resolved.parameters}
    kept = [
        p.replace(annotation=resolved_types.get(p.name, p.annotation))
        for p in signature.parameters.values()
        if p.name not in hidden
    ]
    if inspect.iscoroutinefunction(function):

        async def stand_in(*args: Any, **kwargs: Any) -> Any:
            return await function(*args, **kwargs)

    else:

        def stand_in(*args: Any, **kwargs: Any) -> Any:
            return function(*args, **kwargs)

    for attribute in ("__module__", "__name__", "__qualname__", "__doc__"):
        setattr(stand_in, attribute, getattr(received, attribute, None))
    # get_type_hints() resolves `-> None` to NoneType; the framework sees the None the source
    # wrote, and fastmcp gives such a tool no output schema where NoneType gets a boxed null.
    returns = None if resolved.return_annotation is type(None) else resolved.return_annotation
    stand_in.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=kept, return_annotation=returns
    )
    annotations = {
        p.name: p.annotation for p in kept if p.annotation is not inspect.Parameter.empty
    }
    if returns is not inspect.Signature.empty:
        annotations["return"] = returns
    stand_in.__annotations__ = annotations
    return stand_in


def accepted_options(decorator: Callable[..., Any]) -> frozenset[str]:
    """Keyword arguments a framework's ``tool()`` decorator accepts."""
    return frozenset(
        name
        for name, p in inspect.signature(decorator).parameters.items()
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and name != "name_or_fn"
    )


def framework_arguments(options: dict[str, JSON], accepted: frozenset[str]) -> dict[str, Any]:
    """The decorator keyword arguments as the framework's own types.

    The scanner normalised ``ToolAnnotations(...)`` calls and the shorthands to a dict of wire
    names, and ``Icon(...)`` calls to dicts; both are validated back into the framework's models
    (which is what the framework does with a dict argument too). A ``ToolAnnotations(...)``
    call is rebuilt from its keywords as written: SDK 1.x serves ``read_only_hint=True`` as an
    extra field named so, not as ``readOnlyHint``.
    """
    types = _mcp_types()
    arguments: dict[str, Any] = {}
    written = options.get(ANNOTATIONS_AS_WRITTEN)
    for key, value in options.items():
        if key not in accepted:
            continue
        if key == "annotations" and isinstance(written, dict) and _camel(written) == value:
            value = types.ToolAnnotations(**written)
        elif key == "annotations" and isinstance(value, dict):
            value = types.ToolAnnotations.model_validate(value)
        elif key == "icons" and isinstance(value, list):
            value = [types.Icon.model_validate(icon) for icon in value]
        elif key == "tags" and isinstance(value, list | tuple | set | frozenset):
            value = set(value)
        arguments[key] = value
    return arguments


def _camel(keywords: dict[str, Any]) -> dict[str, Any]:
    def camel(name: str) -> str:
        head, *rest = name.split("_")
        return head + "".join(part.title() for part in rest)

    return {camel(key): value for key, value in keywords.items()}


def unsupported_options(
    module: ScannedModule, tool: ScannedTool, accepted: frozenset[str], framework: str
) -> list[Diagnostic]:
    """Decorator options the framework's ``tool()`` would reject (codegen's own are handled)."""
    return [
        at_tool(
            module,
            tool,
            f"{framework} has no tool option {key}=; remove it, or use the flavor of the framework "
            "this source is written for",
            key,
        )
        for key in tool.options
        if key not in accepted and key not in CODEGEN_OPTIONS and key != ANNOTATIONS_AS_WRITTEN
    ]


def apply_codegen_options(
    tool: ScannedTool, flavored: FlavoredTool, accepted: frozenset[str]
) -> FlavoredTool:
    """mcp-codegen's own options, explicit in source, win over the framework's inference
    (``input_schema=``, ``output_schema=``, ``box_field=``: decided in ``schema.inputs`` and
    ``schema.outputs``); the tool's keys in the order the generated modules write them."""
    wire, private = dict(flavored.wire), dict(flavored.private)
    flavored_input_schema(wire, tool.options, accepted)
    box_field = flavored_output_schema(wire, flavored.box_field, private, tool.options, accepted)
    ordered = {key: wire[key] for key in TOOL_KEY_ORDER if key in wire}
    ordered.update({key: wire[key] for key in sorted(wire) if key not in TOOL_KEY_ORDER})
    return FlavoredTool(ordered, box_field, private)
