"""Stage 2b (in the isolated worker): JSON Schemas from resolved types with pydantic ``TypeAdapter``.

Inputs go through a ``TypedDict`` of the parameters (seed 000); outputs use serialization mode. The
schemas returned here are raw pydantic output plus defaults; ``transforms`` cleans them afterwards.
"""

from __future__ import annotations

import inspect
import json
import math
import types
import typing
from dataclasses import dataclass
from typing import Annotated, Any, NotRequired, Union

import docstring_parser
import pydantic
import pydantic_core
from pydantic import TypeAdapter
from pydantic.fields import FieldInfo
from typing_extensions import TypedDict

from codegen.errors import Diagnostic
from codegen.model import JSON, InspectedTool, ScannedModule
from codegen.resolve import ResolvedParameter, ResolvedTool, ResolveFailure
from codegen.transforms import referenced_definitions

#: Output types that are MCP content already: they get no output schema (seed 000's blocklist).
CONTENT_TYPE_NAMES = frozenset(
    {
        "CallToolResult",
        "ServerResult",
        "TextContent",
        "ImageContent",
        "AudioContent",
        "ResourceLink",
        "EmbeddedResource",
        "ContentBlock",
        "ToolResult",  # fastmcp
    }
)
PERMISSIVE_INPUT: dict[str, JSON] = {"type": "object", "additionalProperties": True}


def _qualified_names(cls: type) -> set[str]:
    names = set()
    for klass in getattr(cls, "__mro__", (cls,)):
        module = getattr(klass, "__module__", "")
        names.add(f"{module}.{getattr(klass, '__qualname__', '')}")
    return names


def _strip_annotated(tp: Any) -> Any:
    while typing.get_origin(tp) is Annotated:
        tp = typing.get_args(tp)[0]
    return tp


def _union_members(tp: Any) -> tuple[Any, ...]:
    tp = _strip_annotated(tp)
    if typing.get_origin(tp) in (Union, types.UnionType):
        return tuple(_strip_annotated(a) for a in typing.get_args(tp))
    return (tp,)


def is_injected(annotation: Any, injected_types: frozenset[str]) -> bool:
    """True when the annotation (or any non-None member of its union) is an injected type."""
    members = [m for m in _union_members(annotation) if m is not type(None)]
    return bool(members) and all(
        isinstance(m, type) and _qualified_names(m) & injected_types for m in members
    )


def _is_content_type(tp: Any) -> bool:
    tp = _strip_annotated(tp)
    origin = typing.get_origin(tp)
    if origin in (list, tuple, typing.Sequence) or (
        isinstance(origin, type) and origin.__name__ in {"Sequence", "Iterable"}
    ):
        return any(_is_content_type(a) for a in typing.get_args(tp) if a is not Ellipsis)
    if origin in (Union, types.UnionType):
        return any(_is_content_type(a) for a in typing.get_args(tp))
    if not isinstance(tp, type):
        return False
    return any(
        klass.__name__ in CONTENT_TYPE_NAMES
        and getattr(klass, "__module__", "").split(".")[0] in {"mcp", "fastmcp", "mcp_types"}
        for klass in tp.__mro__
    )


def has_no_output_schema(annotation: Any) -> bool:
    """``-> None``, no annotation, ``Any`` and MCP content types get no output schema."""
    return (
        annotation is inspect.Signature.empty
        or annotation is None
        or annotation is type(None)
        or _strip_annotated(annotation) is Any
        or _is_content_type(annotation)
    )


def _describe_failure(exc: Exception) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text.split("For further information")[0].strip()


def parse_docstring(doc: str | None) -> tuple[str | None, dict[str, str]]:
    """Tool description and parameter descriptions (Google, NumPy and Sphinx styles)."""
    if not doc:
        return None, {}
    parsed = docstring_parser.parse(doc)
    parts = [p.strip() for p in (parsed.short_description, parsed.long_description) if p]
    description = "\n\n".join(p for p in parts if p) or None
    params = {
        p.arg_name: " ".join(p.description.split())
        for p in parsed.params
        if p.description and p.description.strip()
    }
    return description, params


def _json_defaults(
    adapter: TypeAdapter[Any], defaults: dict[str, Any], positions: dict[str, Any], path: str
) -> dict[str, JSON]:
    """All defaults as JSON in one pass, serialised as pydantic serialises each parameter type."""
    try:
        dumped = adapter.dump_python(defaults, mode="json")
        json.dumps(dumped, allow_nan=False)
        return {name: _set_in_order(defaults[name], value) for name, value in dumped.items()}
    except (pydantic_core.PydanticSerializationError, ValueError, TypeError):
        pass
    problems = []
    for name, value in defaults.items():  # find the culprit(s) for a precise message
        try:
            json.dumps(pydantic_core.to_jsonable_python(value), allow_nan=False)
        except (pydantic_core.PydanticSerializationError, ValueError, TypeError) as exc:
            pos = positions[name]
            problems.append(
                Diagnostic(
                    path,
                    pos.line,
                    pos.column,
                    f"default of {name!r} ({value!r:.60}) cannot be serialised "
                    f"as JSON ({exc}); use a JSON-compatible default",
                )
            )
    if not problems:
        first = next(iter(defaults))
        pos = positions[first]
        problems.append(
            Diagnostic(
                path,
                pos.line,
                pos.column,
                "the defaults cannot be serialised as JSON; use JSON-compatible defaults",
            )
        )
    raise ResolveFailure(problems)


def _set_in_order(value: Any, dumped: JSON) -> JSON:
    """A set default as a sorted list: pydantic lists it in iteration order, which follows the
    hash seed of whatever process serialises it."""
    if isinstance(value, set | frozenset) and isinstance(dumped, list):
        return sorted(dumped, key=lambda item: json.dumps(item, sort_keys=True))
    return dumped


_SCHEMA_ONLY = pydantic.ConfigDict(defer_build=True)


def _plain_json_default(value: Any, annotation: Any) -> bool:
    """``None`` for an optional type, or a str/int/bool/float default of exactly that type."""
    if value is None:
        return type(None) in _union_members(annotation)
    kind = type(value)
    if kind is float and not math.isfinite(value):
        return False
    return kind in (str, int, bool, float) and annotation is kind


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
class _InputPlan:
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


def _plan_input(tool: ResolvedTool, injected: frozenset[str], path: str) -> _InputPlan:
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
            and type(None) not in _union_members(annotation)
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
    arguments.__pydantic_config__ = _SCHEMA_ONLY  # type: ignore[attr-defined]
    return _InputPlan(arguments, fields, defaults, annotations, positions, warnings)


def _input_defaults(plan: _InputPlan, path: str) -> dict[str, JSON]:
    """The defaults as JSON; those that are not plain JSON are validated against their type."""
    json_defaults: dict[str, JSON] = {
        name: value
        for name, value in plan.defaults.items()
        if _plain_json_default(value, plan.annotations[name])
    }
    checked = {name: value for name, value in plan.defaults.items() if name not in json_defaults}
    if not checked:
        return json_defaults
    # Validated through a TypedDict of just these fields: the same field types, so the same errors
    # and the same JSON, without building a validator for every parameter.
    subset = TypedDict(  # type: ignore[operator]
        f"{plan.arguments.__name__}Defaults", {name: plan.fields[name] for name in checked}
    )
    adapter = TypeAdapter(subset)
    problems = []
    try:
        adapter.validate_python(checked)
    except pydantic.ValidationError as exc:
        for error in exc.errors():
            if error["type"] == "missing" or not error["loc"]:
                continue
            name = str(error["loc"][0])
            pos = plan.positions[name]
            problems.append(
                Diagnostic(
                    path,
                    pos.line,
                    pos.column,
                    f"default of {name!r} violates its own type: {error['msg']}; fix the "
                    "default or the annotation",
                )
            )
    if problems:
        raise ResolveFailure(problems)
    json_defaults.update(_json_defaults(adapter, checked, plan.positions, path))
    return json_defaults


def input_schema(
    tool: ResolvedTool,
    injected: frozenset[str],
    warnings: list[Diagnostic],
    path: str,
    batch: ModuleSchemas | None = None,
) -> tuple[JSON, dict[str, JSON]]:
    """Raw input schema and the JSON defaults of optional parameters."""
    prepared = batch.inputs.get(id(tool)) if batch is not None else None
    plan = prepared[0] if prepared is not None else _plan_input(tool, injected, path)
    warnings.extend(plan.warnings)
    defaults = _input_defaults(plan, path)
    if prepared is not None:
        return prepared[1], defaults
    return TypeAdapter(plan.arguments).json_schema(mode="validation"), defaults


def Optional_(annotation: Any) -> Any:
    return Union[annotation, None]  # noqa: UP007 - works for any annotation object


_OUTPUT_CACHE: dict[Any, JSON] = {}


def _schema_only_adapter(annotation: Any) -> TypeAdapter[Any]:
    """A TypeAdapter that builds the core schema only (no validator or serializer)."""
    try:
        return TypeAdapter(annotation, config=_SCHEMA_ONLY)
    except pydantic.PydanticUserError:  # models and dataclasses bring their own config
        return TypeAdapter(annotation)


def output_schema(tool: ResolvedTool) -> JSON:
    """Serialization-mode schema of the return type; ``None`` when the tool has none.

    Tools of one module often share a return type (``str``, one result model), so schemas are
    cached per annotation object for the life of the worker. Raw schemas are never mutated
    (the transforms build new ones), so tools that share an annotation share its schema.
    """
    annotation = tool.return_annotation
    if has_no_output_schema(annotation):
        return None
    try:
        cached = _OUTPUT_CACHE.get(annotation)
    except TypeError:  # unhashable annotation metadata
        return _schema_only_adapter(annotation).json_schema(mode="serialization")
    if cached is None:
        cached = _OUTPUT_CACHE[annotation] = _schema_only_adapter(annotation).json_schema(
            mode="serialization"
        )
    return cached


@dataclass
class ModuleSchemas:
    """Raw input schemas of a module's tools, described by pydantic in one pass.

    One ``TypeAdapter`` over a tuple of every tool's parameter TypedDict builds each shared type
    (a dataclass, a model used by many tools) once and generates one JSON Schema whose ``$defs``
    the tools share; each tool gets its own root and the definitions it reaches. Tools missing
    here are described one by one (``input_schema``), which is also how errors get positions.
    """

    inputs: dict[int, tuple[_InputPlan, JSON]]


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
        combined = TypeAdapter(tuple[tuple(types_)], config=_SCHEMA_ONLY).json_schema(mode=mode)  # type: ignore[misc]
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
    plans: dict[int, _InputPlan] = {}
    for tool in tools:
        if "input_schema" in tool.scanned.options:
            continue
        try:
            plans[id(tool)] = _plan_input(tool, injected, module.relative_path)
        except Exception:  # described one by one, which reports the problem with a position
            continue
    inputs: dict[int, tuple[_InputPlan, JSON]] = {}
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
            if annotation not in _OUTPUT_CACHE and annotation not in pending:
                pending.append(annotation)
        except TypeError:  # unhashable: described one by one
            continue
    if len(pending) > 1:
        described = _described_together(pending, "serialization")
        for annotation, schema in zip(pending, described or (), strict=False):
            _OUTPUT_CACHE[annotation] = schema
    return ModuleSchemas(inputs)


def inspect_tool(
    module: ScannedModule,
    tool: ResolvedTool,
    injected: frozenset[str],
    permissive_fallback: bool,
    batch: ModuleSchemas | None = None,
) -> InspectedTool:
    """Compute raw schemas for one resolved tool; failures become diagnostics.

    ``batch`` (from ``describe_module``) holds input schemas already described with the rest of
    the module; a tool without one there is described on its own.
    """
    scanned = tool.scanned
    path = module.relative_path
    warnings: list[Diagnostic] = []
    description, param_docs = parse_docstring(scanned.docstring)
    raw_input: JSON = None
    raw_output: JSON = None
    if "input_schema" not in scanned.options:
        try:
            schema, defaults = input_schema(tool, injected, warnings, path, batch)
            for name, value in defaults.items():
                schema["properties"][name]["default"] = value
            raw_input = schema
        except ResolveFailure as failure:
            variadic = any(p.kind in ("VAR_POSITIONAL", "VAR_KEYWORD") for p in tool.parameters)
            if not (permissive_fallback and variadic):
                raise
            warnings.append(
                Diagnostic(
                    path,
                    scanned.position.line,
                    scanned.position.column,
                    f"{failure.diagnostics[0].message}; using the permissive fallback "
                    "schema (any object)",
                    severity="warning",
                )
            )
            raw_input = dict(PERMISSIVE_INPUT)
        except (
            pydantic.PydanticSchemaGenerationError,
            pydantic.PydanticUserError,
            pydantic.errors.PydanticInvalidForJsonSchema,
            TypeError,
        ) as exc:
            if not permissive_fallback:
                raise ResolveFailure(
                    [
                        Diagnostic(
                            path,
                            scanned.position.line,
                            scanned.position.column,
                            f"pydantic cannot describe the parameters of {scanned.name!r}: "
                            f"{_describe_failure(exc)}; use a type pydantic supports or pass "
                            "input_schema=",
                        )
                    ]
                ) from None
            warnings.append(
                Diagnostic(
                    path,
                    scanned.position.line,
                    scanned.position.column,
                    f"pydantic cannot describe the parameters ({_describe_failure(exc)}); "
                    "using the permissive fallback schema",
                    severity="warning",
                )
            )
            raw_input = dict(PERMISSIVE_INPUT)
    if "output_schema" not in scanned.options:
        try:
            raw_output = output_schema(tool)
        except (
            pydantic.PydanticSchemaGenerationError,
            pydantic.PydanticUserError,
            pydantic.errors.PydanticInvalidForJsonSchema,
            TypeError,
        ) as exc:
            raise ResolveFailure(
                [
                    Diagnostic(
                        path,
                        scanned.position.line,
                        scanned.position.column,
                        f"pydantic cannot describe the return type of {scanned.name!r} "
                        f"({scanned.return_annotation_source}): {_describe_failure(exc)}; "
                        "use a type pydantic supports or pass output_schema=",
                    )
                ]
            ) from None
    return InspectedTool(
        name=scanned.name,
        input_schema=raw_input,
        output_schema=raw_output,
        description=description,
        parameter_descriptions=param_docs,
        diagnostics=tuple(warnings),
    )
