"""JSON text for comparing what two servers answered: equal strings mean equal JSON.

``json.dumps`` keeps ``true`` and ``1`` apart (Python's ``True == 1`` does not), so comparing
these strings is stricter than comparing the values. Three spellings for three questions:

- ``exact_json``: the same values *and* the same key order (one line, for call answers);
- ``exact_json_lines``: the same question, one item per line, for readable assertion diffs;
- ``unordered_json``: the same JSON values whatever the key order (tools/list entries, whose key
  order the frameworks do not promise).

``same`` asks the first question of Python values that need not be JSON (tuples, floats such as
``-0.0``), as the renderer and transform tests compare one implementation's output with another's.
"""

from __future__ import annotations

import json
from typing import Any


def exact_json(value: Any) -> str:
    """JSON text: equal only for the same values in the same order (``true`` is not ``1``)."""
    return json.dumps(value, ensure_ascii=False)


def exact_json_lines(value: Any) -> str:
    """As ``exact_json``, one item per line (assertion messages show a readable diff)."""
    return json.dumps(value, ensure_ascii=False, indent=1)


def unordered_json(value: Any) -> str:
    """JSON text in which equal JSON values are equal strings, whatever their key order
    (``true`` is not ``1``)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, indent=1)


def same(left: Any, right: Any) -> bool:
    """Equal with types and dict order: ``1 == 1.0 == True`` and ``[] == ()`` do not count."""
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        return list(left) == list(right) and all(same(left[k], right[k]) for k in left)
    if isinstance(left, list | tuple):
        return len(left) == len(right) and all(map(same, left, right))
    if isinstance(left, float):
        return repr(left) == repr(right)  # -0.0 stays -0.0
    return bool(left == right)
