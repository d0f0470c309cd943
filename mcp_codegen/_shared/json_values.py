"""JSON values as JSON Schema sees them (``1 == 1.0``, ``1 != true``): their type, identity,
equality, and where two of them differ. The only such helpers in the tree."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any

from mcp_codegen._shared.json_pointer import child

JSON = Any  # None, bool, int, float, str, list, tuple or dict


class _Absent:
    """Marks a key or item missing on one side (distinct from a JSON ``null``)."""

    _instance: _Absent | None = None

    def __new__(cls) -> _Absent:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()


def json_type(value: JSON) -> str:
    """The JSON Schema type name of a JSON value (an integral float is an integer)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    return "object"


def value_key(value: JSON) -> str:
    """A hashable identity with JSON equality: ``1 == 1.0`` but ``1 != true``."""

    def normal(item: JSON) -> JSON:
        if isinstance(item, bool) or item is None or isinstance(item, str):
            return item
        if isinstance(item, int | float):
            return ["#num", str(Fraction(item))] if math.isfinite(item) else ["#num", str(item)]
        if isinstance(item, list | tuple):
            return [normal(x) for x in item]
        return {str(k): normal(v) for k, v in item.items()}

    return json.dumps(normal(value), sort_keys=True, ensure_ascii=False)


def json_equal(first: JSON, second: JSON) -> bool:
    """Equality of JSON values: like ``==``, except that ``true`` is not ``1``."""
    if isinstance(first, bool) or isinstance(second, bool):
        return type(first) is type(second) and first == second
    if isinstance(first, dict):
        return (
            isinstance(second, dict)
            and first.keys() == second.keys()
            and all(json_equal(first[key], second[key]) for key in first)
        )
    if isinstance(first, list | tuple):
        return (
            isinstance(second, list | tuple)
            and len(first) == len(second)
            and all(json_equal(a, b) for a, b in zip(first, second, strict=True))
        )
    return bool(first == second)


def same_value(first: JSON, second: JSON) -> bool:
    """JSON equality where ``ABSENT`` equals only itself."""
    if first is ABSENT or second is ABSENT:
        return first is second
    return value_key(first) == value_key(second)


def differences(
    first: JSON,
    second: JSON,
    pointer: str = "",
    *,
    ordered_keys: bool = False,
    whole_scalar_lists: bool = False,
) -> list[tuple[str, JSON, JSON]]:
    """``(pointer, first value, second value)`` of every innermost place where two JSON values
    differ under ``json_equal``; ``ABSENT`` stands for a missing key or item.

    ``ordered_keys``: two objects with the same keys in another order differ as wholes.
    ``whole_scalar_lists``: arrays differ as wholes unless they have the same length and hold
    objects or arrays (then item by item).
    """
    found: list[tuple[str, JSON, JSON]] = []

    def walk(a: JSON, b: JSON, at: str) -> None:
        if isinstance(a, dict) and isinstance(b, dict):
            if ordered_keys and list(a) != list(b) and a.keys() == b.keys():
                found.append((at, a, b))
                return
            for key in [*a, *(k for k in b if k not in a)]:
                walk(a.get(key, ABSENT), b.get(key, ABSENT), child(at, key))
        elif isinstance(a, list | tuple) and isinstance(b, list | tuple):
            if whole_scalar_lists and (
                len(a) != len(b) or not any(isinstance(item, dict | list | tuple) for item in a)
            ):
                if not json_equal(a, b):
                    found.append((at, a, b))
                return
            for index in range(max(len(a), len(b))):
                walk(
                    a[index] if index < len(a) else ABSENT,
                    b[index] if index < len(b) else ABSENT,
                    f"{at}/{index}",
                )
        elif a is ABSENT or b is ABSENT:
            if a is not b:
                found.append((at, a, b))
        elif not json_equal(a, b):
            found.append((at, a, b))

    walk(first, second, pointer)
    return found
