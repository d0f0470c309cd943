"""Check requests and shape results like the SDK's per-revision wire models, stdlib only.

The tables in ``_wire_shapes`` are extracted from the SDK's models. ``conforms`` is stricter than
pydantic (no coercion at all), so whatever it accepts, the SDK accepts and reads the same way;
``dump`` gives what ``model_dump(by_alias=True, mode="json", exclude_none=True)`` gives after
validation, or raises ``Doubt`` where it cannot be sure. The fast path hands a message it doubts
to the SDK, so the client always gets the SDK's answer.
"""

from __future__ import annotations

from codegen.runtime._wire_shapes import MODELS

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds to import, and this runs before the first answer
    from typing import Any

_SCALARS: dict[str, tuple[type, ...]] = {"str": (str,), "int": (int,), "float": (float,)}


class Doubt(Exception):
    """The fast path cannot prove what the SDK would answer: the SDK must answer."""


def conforms(value: Any, shape: Any) -> bool:
    """Whether ``value`` validates against ``shape`` without any coercion."""
    if shape == "any":
        return True
    if shape == "bool":
        return value is True or value is False
    if isinstance(shape, str):
        return isinstance(value, _SCALARS[shape]) and not isinstance(value, bool)
    (kind, inner), *_ = shape.items()
    if kind == "optional":
        return value is None or conforms(value, inner)
    if kind == "union":
        return any(conforms(value, member) for member in inner)
    if kind == "literal":
        return any(type(value) is type(option) and value == option for option in inner)
    if kind == "list":
        return isinstance(value, list) and all(conforms(item, inner) for item in value)
    if kind == "dict":
        return isinstance(value, dict) and all(
            isinstance(key, str) and conforms(item, inner) for key, item in value.items()
        )
    if kind == "model":
        return _model_conforms(value, MODELS[inner])
    return False  # "absent" only wraps request params; anything else is unknown: doubt


def _model_conforms(value: Any, model: dict[str, Any]) -> bool:
    if not isinstance(value, dict):
        return False
    declared = set()
    for alias, shape, required in model["fields"]:
        declared.add(alias)
        if alias not in value:
            if required:
                return False
        elif not conforms(value[alias], shape):
            return False
    return model["extra"] != "forbid" or set(value) <= declared


def params_conform(params: Any, shape: Any, *, present: bool) -> bool:
    """Whether a request's ``params`` (``present``: the key was in the message) validate."""
    if isinstance(shape, dict) and "absent" in shape:
        return not present or conforms(params, shape["absent"])
    return present and conforms(params, shape)


def dump(value: Any, shape: Any) -> Any:
    """``value`` validated and dumped as the SDK's model for ``shape`` dumps it; ``Doubt``."""
    if shape == "any":
        return value
    if isinstance(shape, str):
        if not conforms(value, shape):
            raise Doubt(f"expected {shape}")
        return value
    (kind, inner), *_ = shape.items()
    if kind == "optional":
        return None if value is None else dump(value, inner)
    if kind == "union":
        for member in inner:
            if conforms(value, member):
                return dump(value, member)
        raise Doubt("no union member fits")
    if kind == "literal":
        if not conforms(value, shape):
            raise Doubt("not a literal option")
        return value
    if kind == "list":
        if not isinstance(value, list):
            raise Doubt("expected a list")
        return [dump(item, inner) for item in value]
    if kind == "dict":
        if not isinstance(value, dict) or not all(isinstance(key, str) for key in value):
            raise Doubt("expected an object")
        return {key: dump(item, inner) for key, item in value.items()}
    if kind == "model":
        return _dump_model(value, MODELS[inner])
    raise Doubt(f"unknown shape {kind}")


def _dump_model(value: Any, model: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Doubt("expected an object")
    out: dict[str, Any] = {}
    declared = set()
    for alias, shape, required in model["fields"]:
        declared.add(alias)
        if alias not in value:
            if required:
                raise Doubt(f"{alias} is required")
            continue
        dumped = dump(value[alias], shape)
        if dumped is not None:  # exclude_none
            out[alias] = dumped
    if model["extra"] == "allow":
        # Extra keys follow the declared fields, in input order, None values excluded.
        out.update(
            (key, item) for key, item in value.items() if key not in declared and item is not None
        )
    elif model["extra"] == "forbid" and set(value) - declared:
        raise Doubt("unexpected keys")
    return out
