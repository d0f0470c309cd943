"""Identity and equality of JSON values as JSON Schema sees them (``1 == 1.0``, ``1 != true``)."""

from __future__ import annotations

import json
import math
from fractions import Fraction

from codegen.diff.changes import ABSENT, JSON


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
