"""Default values of optional parameters as JSON: checked against their own type and serialised
as pydantic serialises that type, with a positioned diagnostic for each one that cannot be."""

from __future__ import annotations

import json
import math
from typing import Any, Protocol

import pydantic
import pydantic_core
from pydantic import TypeAdapter
from typing_extensions import TypedDict

from mcp_codegen._generator.inspection.resolve import ResolveFailure
from mcp_codegen._generator.model import JSON
from mcp_codegen._generator.schema.hints import union_members
from mcp_codegen._shared.diagnostics import Diagnostic


class InputPlan(Protocol):
    """What this module reads of ``mcp_codegen._generator.schema.inputs.InputPlan`` (which calls
    it, so it cannot be imported here)."""

    arguments: Any
    fields: dict[str, Any]
    defaults: dict[str, Any]
    annotations: dict[str, Any]
    positions: dict[str, Any]


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


def _plain_json_default(value: Any, annotation: Any) -> bool:
    """``None`` for an optional type, or a str/int/bool/float default of exactly that type."""
    if value is None:
        return type(None) in union_members(annotation)
    kind = type(value)
    if kind is float and not math.isfinite(value):
        return False
    return kind in (str, int, bool, float) and annotation is kind


def _checked_defaults(plan: InputPlan) -> dict[str, Any]:
    """The defaults that are not plain JSON values of exactly their type: they need pydantic."""
    return {
        name: value
        for name, value in plan.defaults.items()
        if not _plain_json_default(value, plan.annotations[name])
    }


def module_defaults(plans: dict[int, InputPlan]) -> dict[int, dict[str, JSON]]:
    """The checked defaults of many tools (key -> plan) validated and serialised by one
    ``TypeAdapter`` instead of one per tool (building an adapter costs milliseconds; a module
    of 50 tools built a dozen): key -> that tool's checked defaults as JSON.

    Fields are validated and serialised independently of each other, so each value comes out
    as the tool's own adapter gives it. Empty when anything fails: each tool then checks its own
    defaults, which is also how a problem gets its diagnostic and position.
    """
    fields: dict[str, Any] = {}
    values: dict[str, Any] = {}
    owners: dict[str, tuple[int, str]] = {}
    for key, plan in plans.items():
        for name, value in _checked_defaults(plan).items():
            field = f"f{len(fields)}"
            fields[field], values[field], owners[field] = plan.fields[name], value, (key, name)
    if len(fields) < 2:
        return {}
    try:
        adapter = TypeAdapter(TypedDict("ModuleDefaults", fields))  # type: ignore[operator]
        adapter.validate_python(values)
        dumped = adapter.dump_python(values, mode="json")
        json.dumps(dumped, allow_nan=False)
    except Exception:
        return {}
    found: dict[int, dict[str, JSON]] = {}
    for field, value in dumped.items():
        key, name = owners[field]
        found.setdefault(key, {})[name] = _set_in_order(values[field], value)
    return found


def input_defaults(
    plan: InputPlan, path: str, checked_json: dict[str, JSON] | None = None
) -> dict[str, JSON]:
    """The defaults as JSON; those that are not plain JSON are validated against their type.
    ``checked_json``: those already validated and serialised (``module_defaults``)."""
    json_defaults: dict[str, JSON] = {
        name: value
        for name, value in plan.defaults.items()
        if _plain_json_default(value, plan.annotations[name])
    }
    checked = {name: value for name, value in plan.defaults.items() if name not in json_defaults}
    if not checked:
        return json_defaults
    if checked_json is not None and checked_json.keys() == checked.keys():
        json_defaults.update({name: checked_json[name] for name in checked})
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
