"""A tool's parameters as a ``TypedDict`` for pydantic (seed 000): injected ones left out, positions
kept for messages, defaults set aside for ``schema_defaults``."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Annotated, Any, NotRequired, Union

import pydantic_core
from pydantic.fields import FieldInfo
from typing_extensions import TypedDict

from mcp_codegen._generator.inspection.resolve import (
    ResolvedParameter,
    ResolvedTool,
    ResolveFailure,
)
from mcp_codegen._generator.schema.hints import SCHEMA_ONLY, is_injected, union_members
from mcp_codegen._shared.diagnostics import Diagnostic


def _input_field(param: ResolvedParameter) -> tuple[Any, Any, FieldInfo | None]:
    """The TypedDict field type for a parameter, and its default (``empty`` when required)."""
    annotation = Any if param.annotation is inspect.Parameter.empty else param.annotation
    default = param.default
    field_info = None
    if isinstance(default, FieldInfo):
        field_info = default
        if default.default_factory is not None:
            default = default.default_factory()  # type: ignore[call-arg]
        elif default.default is pydantic_core.PydanticUndefined:
            default = inspect.Parameter.empty
        else:
            default = default.default
    return annotation, default, field_info


@dataclass
class InputPlan:
    """The parameters of one tool as a TypedDict, before pydantic describes it."""

    arguments: Any  # the TypedDict class
    fields: dict[str, Any]  # its field types
    defaults: dict[str, Any]
    annotations: dict[str, Any]
    positions: dict[str, Any]
    warnings: list[Diagnostic]


_UNSUPPORTED_KINDS = {
    "VAR_POSITIONAL": (
        "variadic parameter *{name} cannot be described by a schema; pass input_schema= in the "
        "decorator, or set permissive_fallback = true"
    ),
    "VAR_KEYWORD": (
        "variadic parameter **{name} cannot be described by a schema; pass input_schema= in the "
        "decorator, or set permissive_fallback = true"
    ),
    "POSITIONAL_ONLY": (
        "positional-only parameter {name!r} cannot be passed by name in a tools/call; remove "
        "the `/` marker"
    ),
}


def _not_required(field_type: Any) -> Any:
    """``NotRequired[field_type]``, built afresh. typing caches subscriptions by equality, and
    ``Literal["b", "a"] == Literal["a", "b"]``: the cached result could carry another parameter's
    Literal (whichever this worker met first), in that one's order."""
    uncached = getattr(type(NotRequired).__getitem__, "__wrapped__", None)
    return NotRequired[field_type] if uncached is None else uncached(NotRequired, field_type)


def plan_input(tool: ResolvedTool, injected: frozenset[str], path: str) -> InputPlan:
    """The TypedDict of the tool's parameters (injected ones left out) and their defaults."""
    fields: dict[str, Any] = {}
    defaults: dict[str, Any] = {}
    annotations: dict[str, Any] = {}
    warnings: list[Diagnostic] = []
    positions = {p.name: p.position for p in tool.scanned.parameters}
    for param in tool.parameters:
        unsupported = _UNSUPPORTED_KINDS.get(param.kind)
        if unsupported is not None:
            pos = positions[param.name]
            message = unsupported.format(name=param.name)
            raise ResolveFailure([Diagnostic(path, pos.line, pos.column, message)])
        if param.annotation is not inspect.Parameter.empty and is_injected(
            param.annotation, injected
        ):
            continue
        annotation, default, field_info = _input_field(param)
        if (
            default is None
            and annotation is not Any
            and type(None) not in union_members(annotation)
        ):
            pos = positions[param.name]
            warnings.append(
                Diagnostic(
                    path,
                    pos.line,
                    pos.column,
                    f"parameter {param.name!r} defaults to None but its type does not allow "
                    f"None; treating it as Optional — write `{param.name}: ... | None = None`",
                    severity="warning",
                )
            )
            annotation = Optional_(annotation)
        field_type = Annotated[annotation, field_info] if field_info is not None else annotation
        if default is not inspect.Parameter.empty:
            field_type = _not_required(field_type)
            defaults[param.name] = default
        fields[param.name] = field_type
        annotations[param.name] = annotation
    arguments = TypedDict(f"{tool.scanned.function_name}Arguments", fields)  # type: ignore[operator]
    # Building pydantic's validator and serializer costs as much as the schema; only defaults that
    # are not plainly JSON values of exactly their annotated type need them.
    arguments.__pydantic_config__ = SCHEMA_ONLY  # type: ignore[attr-defined]
    return InputPlan(arguments, fields, defaults, annotations, positions, warnings)


def Optional_(annotation: Any) -> Any:
    return Union[annotation, None]  # noqa: UP007 - works for any annotation object
