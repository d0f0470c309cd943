"""``python_literal`` writes exactly what its first, straightforward version wrote (hypothesis):
same text for any JSON-like value, nested lists, tuples (records) and dicts, at any starting
depth, and a ``TypeError`` for the same values (non-string keys, non-finite floats, sets,
subclasses, ...). The reference is the previous implementation, kept here in behaviour."""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_codegen._generator.render.literal import (
    INDENT,
    INLINE_WIDTH,
    python_literal,
    string_literal,
)


def ref_scalar(value: Any) -> str | None:
    if value is None or value is True or value is False:
        return repr(value)
    if type(value) is int:
        return repr(value)
    if type(value) is float:
        if not math.isfinite(value):
            raise TypeError("non-finite")
        return repr(value)
    if type(value) is str:
        return string_literal(value)
    return None


def ref_write(value: Any, depth: int, out: list[str], record: bool = False) -> None:
    scalar = ref_scalar(value)
    if scalar is not None:
        out.append(scalar)
        return
    pad = INDENT * depth
    inner = pad + INDENT
    kind = type(value)
    if kind is dict:
        if not value:
            out.append("{}")
            return
        out.append("{\n")
        for key, item in value.items():
            if type(key) is not str:
                raise TypeError("key")
            out.append(f"{inner}{string_literal(key)}: ")
            ref_write(item, depth + 1, out)
            out.append(",\n")
        out.append(pad + "}")
        return
    if kind is list or kind is tuple:
        open_, close = ("[", "]") if kind is list else ("(", ")")
        if not value:
            out.append(open_ + close)
            return
        flat = [ref_scalar(item) for item in value]
        if all(item is not None for item in flat):
            one_line = (
                open_
                + ", ".join(flat)  # type: ignore[arg-type]
                + ("," if kind is tuple and len(flat) == 1 else "")
                + close
            )
            if record or len(one_line) + len(inner) <= INLINE_WIDTH:
                out.append(one_line)
                return
        out.append(open_ + "\n")
        for item in value:
            out.append(inner)
            ref_write(item, depth + 1, out, record=kind is tuple and type(item) is tuple)
            out.append(",\n")
        out.append(pad + close)
        return
    raise TypeError("value")


def reference(value: Any, depth: int) -> Any:
    out: list[str] = []
    try:
        ref_write(value, depth, out)
    except TypeError:
        return TypeError
    return "".join(out)


def current(value: Any, depth: int) -> Any:
    try:
        return python_literal(value, depth)
    except TypeError:
        return TypeError


class Text(str):
    pass


scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()
    | st.text(max_size=30)
    | st.sampled_from(["x" * 40, "y" * 90, "\u2028", '"\\'])
)
odd = st.sampled_from([Text("a"), {1, 2}, OrderedDict(a=1), b"x", 1j, math.inf])
values = st.recursive(
    scalars | odd.filter(lambda _: False),
    lambda children: (
        st.lists(children, max_size=6)
        | st.lists(children, max_size=4).map(tuple)
        | st.dictionaries(st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=25,
)
hostile = st.recursive(
    scalars | odd,
    lambda children: (
        st.lists(children, max_size=3)
        | st.lists(children, max_size=3).map(tuple)
        | st.dictionaries(st.text(max_size=3) | st.integers(), children, max_size=3)
    ),
    max_leaves=8,
)


@pytest.mark.slow
@pytest.mark.process
@settings(
    max_examples=2000,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(values | hostile, st.integers(0, 4))
def test_python_literal_equals_the_reference(value: Any, depth: int) -> None:
    assert current(value, depth) == reference(value, depth)
