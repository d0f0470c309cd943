"""A tool's input schema, decided here and nowhere else: which parameters it lists (injected
ones left out, variadic and positional-only ones refused), their ``TypedDict`` for pydantic
(seed 000), described alone or with the rest of the module, the JSON defaults, the permissive
fallback, the final shape (docstring descriptions, transforms, ``additionalProperties: false``),
and an ``input_schema=`` override, which replaces all of it in every flavor.

Runs in: worker, parent. The worker describes; the parent finishes raw schemas
(``final_input_schema``) and never imports pydantic, so the functions that describe import it.
"""

from __future__ import annotations

import copy
import inspect
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, NotRequired, Union

from mcp_codegen._generator.inspection.resolve import (
    ResolvedParameter,
    ResolvedTool,
    ResolveFailure,
)
from mcp_codegen._generator.inspection.unsupported import (
    pydantic_message,
    schema_errors,
    unsupported_parameter,
)
from mcp_codegen._generator.model import JSON, InspectedTool, ScannedModule, ScannedTool
from mcp_codegen._generator.schema.hints import union_members
from mcp_codegen._shared.diagnostics import Diagnostic
from mcp_codegen._shared.schema_transforms import Memo, clean, referenced_definitions

if TYPE_CHECKING:
    from pydantic.fields import FieldInfo

#: The decorator option that replaces the inferred input schema.
OVERRIDE = "input_schema"
#: The schema of the configured permissive fallback: any object.
PERMISSIVE_INPUT: dict[str, JSON] = {"type": "object", "additionalProperties": True}


def _qualified_names(cls: type) -> set[str]:
    names = set()
    for klass in getattr(cls, "__mro__", (cls,)):
        module = getattr(klass, "__module__", "")
        names.add(f"{module}.{getattr(klass, '__qualname__', '')}")
    return names


def is_injected(annotation: Any, injected_types: frozenset[str]) -> bool:
    """True when the annotation (or any non-None member of its union) is an injected type."""
    members = [m for m in union_members(annotation) if m is not type(None)]
    return bool(members) and all(
        isinstance(m, type) and _qualified_names(m) & injected_types for m in members
    )


def _is_hidden(param: ResolvedParameter, injected: frozenset[str]) -> bool:
    return param.annotation is not inspect.Parameter.empty and is_injected(
        param.annotation, injected
    )


def hidden_parameters(
    resolved: ResolvedTool, injected: frozenset[str], accepted: frozenset[str] = frozenset()
) -> list[str]:
    """Parameters a client never sends: those of configured injected types (the runtime supplies
    them), or every one when ``input_schema=`` replaces the schema and the framework (whose
    decorator options are ``accepted``) has no such option: it may refuse ones only the override
    can describe (``**kwargs``)."""
    if OVERRIDE in resolved.scanned.options and OVERRIDE not in accepted:
        return [p.name for p in resolved.parameters]
    return [p.name for p in resolved.parameters if _is_hidden(p, injected)]


def _input_field(param: ResolvedParameter) -> tuple[Any, Any, FieldInfo | None]:
    """The TypedDict field type for a parameter, and its default (``empty`` when required)."""
    # pydantic (~60 ms to import): the parent imports this module and never describes
    import pydantic_core
    from pydantic.fields import FieldInfo

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


def _none_default_warning(path: str, name: str, position: Any) -> Diagnostic:
    return Diagnostic(
        path,
        position.line,
        position.column,
        f"parameter {name!r} defaults to None but its type does not allow "
        f"None; treating it as Optional — write `{name}: ... | None = None`",
        severity="warning",
    )


def plan_input(tool: ResolvedTool, injected: frozenset[str], path: str) -> InputPlan:
    """The TypedDict of the tool's parameters (injected ones left out) and their defaults."""
    # pydantic (~60 ms to import): the parent imports this module and never describes
    from typing_extensions import TypedDict

    from mcp_codegen._generator.schema.batch import SCHEMA_ONLY

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
        if _is_hidden(param, injected):
            continue
        annotation, default, field_info = _input_field(param)
        if (
            default is None
            and annotation is not Any
            and type(None) not in union_members(annotation)
        ):
            warnings.append(_none_default_warning(path, param.name, positions[param.name]))
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


@dataclass
class ModuleSchemas:
    """Raw input schemas of a module's tools, described by pydantic in one pass.

    One ``TypeAdapter`` over a tuple of every tool's parameter TypedDict builds each shared type
    (a dataclass, a model used by many tools) once and generates one JSON Schema whose ``$defs``
    the tools share; each tool gets its own root and the definitions it reaches. Tools missing
    here are described one by one (``input_schema``), which is also how errors get positions.
    """

    inputs: dict[int, tuple[InputPlan, JSON]]
    #: id(tool) -> its defaults that need pydantic, checked together (``check_defaults``)
    defaults: dict[int, dict[str, JSON]] = field(default_factory=dict)
    #: id(tool) -> its plan, for every tool planned here (described together or not)
    plans: dict[int, InputPlan] = field(default_factory=dict)


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
    # The root and its property dicts are this tool's own: ``raw_input_schema`` adds defaults.
    root = {**body, "properties": {k: dict(v) for k, v in body.get("properties", {}).items()}}
    rest = {n: d for n, d in defs.items() if n != name}
    if rest:
        root["$defs"] = rest
    return root


def describe_inputs(
    module: ScannedModule, tools: list[ResolvedTool], injected: frozenset[str]
) -> ModuleSchemas:
    """The input schemas of the module's tools (those without an override) in one pass; their
    defaults are checked by ``check_defaults``."""
    # pydantic (~60 ms to import): the parent imports this module and never describes
    from mcp_codegen._generator.schema.batch import described_together

    plans: dict[int, InputPlan] = {}
    for tool in tools:
        if OVERRIDE in tool.scanned.options:
            continue
        try:
            plans[id(tool)] = plan_input(tool, injected, module.relative_path)
        except Exception:  # described one by one, which reports the problem with a position
            continue
    inputs: dict[int, tuple[InputPlan, JSON]] = {}
    if len(plans) > 1:
        described = described_together([p.arguments for p in plans.values()], "validation")
        for (key, plan), schema in zip(plans.items(), described or (), strict=False):
            root = _unwrap_root(schema)
            if root is not None:
                inputs[key] = (plan, root)
    return ModuleSchemas(inputs, plans=plans)


def check_defaults(schemas: ModuleSchemas) -> None:
    """The defaults of the planned tools that need pydantic, checked together."""
    # pydantic (~60 ms to import): the parent imports this module and never describes
    from mcp_codegen._generator.schema.defaults import module_defaults

    schemas.defaults = module_defaults(schemas.plans)


def input_schema(
    tool: ResolvedTool,
    injected: frozenset[str],
    warnings: list[Diagnostic],
    path: str,
    batch: ModuleSchemas | None = None,
) -> tuple[JSON, dict[str, JSON]]:
    """Raw input schema and the JSON defaults of optional parameters."""
    # pydantic (~60 ms to import): the parent imports this module and never describes
    from pydantic import TypeAdapter

    from mcp_codegen._generator.schema.defaults import input_defaults

    prepared = batch.inputs.get(id(tool)) if batch is not None else None
    plan = prepared[0] if prepared is not None else plan_input(tool, injected, path)
    warnings.extend(plan.warnings)
    checked = batch.defaults.get(id(tool)) if batch is not None and prepared is not None else None
    defaults = input_defaults(plan, path, checked)
    if prepared is not None:
        return prepared[1], defaults
    return TypeAdapter(plan.arguments).json_schema(mode="validation"), defaults


def _at_parameter(tool: ResolvedTool, injected: frozenset[str], path: str) -> Diagnostic | None:
    """The parameter pydantic could not describe, as an error at that parameter."""
    return unsupported_parameter(
        tool.scanned,
        plan_input(tool, injected, path).annotations,
        path,
        "give it a type pydantic can describe (a JSON value: str, int, a list, a BaseModel, ...) "
        "or pass input_schema= in the decorator",
    )


def _at_tool(path: str, tool: ScannedTool, message: str, severity: str = "error") -> Diagnostic:
    return Diagnostic(path, tool.position.line, tool.position.column, message, severity)


def raw_input_schema(
    module: ScannedModule,
    tool: ResolvedTool,
    injected: frozenset[str],
    permissive_fallback: bool,
    warnings: list[Diagnostic],
    batch: ModuleSchemas | None = None,
) -> JSON:
    """The tool's raw input schema with its defaults in, ``None`` with an override; with
    ``permissive_fallback``, a tool pydantic cannot describe gets ``PERMISSIVE_INPUT``."""
    scanned, path = tool.scanned, module.relative_path
    if OVERRIDE in scanned.options:
        return None
    try:
        schema, defaults = input_schema(tool, injected, warnings, path, batch)
    except ResolveFailure as failure:
        variadic = any(p.kind in ("VAR_POSITIONAL", "VAR_KEYWORD") for p in tool.parameters)
        if not (permissive_fallback and variadic):
            raise
        message = failure.diagnostics[0].message
        warnings.append(
            _at_tool(
                path,
                scanned,
                f"{message}; using the permissive fallback schema (any object)",
                "warning",
            )
        )
        return dict(PERMISSIVE_INPUT)
    except schema_errors() as exc:
        if not permissive_fallback:
            problem = _at_parameter(tool, injected, path) or _at_tool(
                path,
                scanned,
                f"pydantic cannot describe the parameters of {scanned.name!r}: "
                f"{pydantic_message(exc)}; use a type pydantic supports or pass input_schema=",
            )
            raise ResolveFailure([problem]) from None
        warnings.append(
            _at_tool(
                path,
                scanned,
                f"pydantic cannot describe the parameters ({pydantic_message(exc)}); "
                "using the permissive fallback schema",
                "warning",
            )
        )
        return dict(PERMISSIVE_INPUT)
    for name, value in defaults.items():
        schema["properties"][name]["default"] = value
    return schema


def final_input_schema(
    tool: ScannedTool, inspected: InspectedTool, memo: Memo | None = None
) -> JSON:
    """The input schema the clean flavor serves: the override as written, the permissive
    fallback as seed 000 prints it, or the raw schema transformed with its docstring
    descriptions, closed by ``additionalProperties: false``."""
    if OVERRIDE in tool.options:
        return copy.deepcopy(tool.options[OVERRIDE])
    raw = inspected.input_schema
    if raw.get("additionalProperties") is True and "properties" not in raw:
        return dict(raw)  # the configured permissive fallback, kept as seed 000 prints it
    # Docstring descriptions go in before ``clean``: a parameter's own description is a sibling
    # of its type's ``$ref``, so it wins over the description of the type when that is inlined.
    raw = copy.copy(raw)
    raw["properties"] = {
        name: prop
        if "description" in prop or name not in inspected.parameter_descriptions
        else {**prop, "description": inspected.parameter_descriptions[name]}
        for name, prop in raw.get("properties", {}).items()
    }
    schema = clean(raw, memo)
    # Built in KEY_ORDER already; the subschemas were ordered by ``clean``.
    root: dict[str, JSON] = {"type": "object", "properties": schema["properties"]}
    if schema.get("required"):
        root["required"] = schema["required"]
    root["additionalProperties"] = False
    if "$defs" in schema:
        root["$defs"] = schema["$defs"]
    return root


def flavored_input_schema(
    wire: dict[str, JSON], options: dict[str, JSON], accepted: frozenset[str]
) -> None:
    """In a framework flavor, ``input_schema=`` (when the framework has no such option) replaces
    the schema the framework inferred in ``wire``."""
    if OVERRIDE in options and OVERRIDE not in accepted:
        wire["inputSchema"] = options[OVERRIDE]
