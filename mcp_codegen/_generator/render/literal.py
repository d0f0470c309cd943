"""Render JSON-like data as Python literal source that round-trips exactly.

Only ``None``, ``bool``, ``int``, finite ``float``, ``str``, ``list``, ``tuple`` and ``dict`` with
string keys are accepted; anything else raises ``TypeError``, so no object's ``repr`` can ever
reach a generated file. Strings are escaped character by character: every character that is not
printable (NUL, controls, U+2028, lone surrogates, ...) becomes an escape sequence, so the output is
valid UTF-8 source whatever the input.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any, NoReturn

INDENT = "    "
INLINE_WIDTH = 88  # lists of scalars that fit stay on one line
_CODING = re.compile(r"coding([:=])")
_SIMPLE_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


@lru_cache(maxsize=65536)
def string_literal(text: str) -> str:
    """A double-quoted Python string literal equal to ``text``."""
    if text.isprintable() and "\\" not in text and '"' not in text:
        return f'"{text}"'
    out = ['"']
    for char in text:
        if char in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[char])
        elif char.isprintable():
            out.append(char)
        else:
            code = ord(char)
            if code <= 0xFF:
                out.append(f"\\x{code:02x}")
            elif code <= 0xFFFF:
                out.append(f"\\u{code:04x}")
            else:
                out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def comment_text(text: str) -> str:
    """Text safe inside a ``#`` comment: it can never end the comment line, and never reads as
    a source-encoding declaration (PEP 263: ``coding:``/``coding=`` on the first two lines, which
    an import would honour: ``utf-7`` turns ``+ACI-`` inside a string into a quote)."""
    safe = string_literal(text)[1:-1] if not text.isprintable() else text
    return _CODING.sub(r"coding \1", safe)


def _scalar(value: Any) -> str | None:
    if value is None or value is True or value is False:
        return repr(value)
    if type(value) is int:
        return repr(value)
    if type(value) is float:
        if not math.isfinite(value):
            raise TypeError(f"non-finite float {value!r} has no JSON form")
        return repr(value)
    if type(value) is str:
        return string_literal(value)
    return None


def python_literal(value: Any, depth: int = 0) -> str:
    """Multi-line literal: one dict key per line, trailing commas, 4-space indent.

    Lists of scalars stay on one line when they fit, so ``required`` and ``enum`` read naturally;
    tuples of scalars inside a tuple (records) always do.
    """
    out: list[str] = []
    _write(value, INDENT * depth, out)
    return "".join(out)


def lines_literal(values: Any) -> str:
    """A tuple of strings with one item per line, however short: two branches that each add an
    item then change different lines, and git merges them (the manifest's ``MODULES``)."""
    if not values:
        return "()"
    return "(\n" + "".join(f"{INDENT}{string_literal(str(v))},\n" for v in values) + ")"


def _write(value: Any, pad: str, out: list[str], record: bool = False) -> None:
    """Append the literal's text to ``out`` (one join at the end, whatever the nesting); ``pad``:
    the indentation of the line it starts on; ``record``: ``value`` is an item of a tuple.

    The hot path of rendering (600,000 values for 10,000 tools): a dict item or list item whose
    value is a scalar, the commonest, is appended as one piece without a call of its own.
    """
    kind = type(value)
    if kind is str:
        out.append(string_literal(value))
        return
    inner = pad + INDENT
    if kind is dict:
        if not value:
            out.append("{}")
            return
        out.append("{\n")
        for key, item in value.items():
            if type(key) is not str:
                raise TypeError(f"dict key {key!r} is not a string")
            item_kind = type(item)
            if item_kind is dict or item_kind is list or item_kind is tuple:
                out.append(f"{inner}{string_literal(key)}: ")
                _write(item, inner, out)
                out.append(",\n")
                continue
            text = string_literal(item) if item_kind is str else _scalar(item)
            if text is None:
                _unrenderable(item)
            out.append(f"{inner}{string_literal(key)}: {text},\n")
        out.append(pad + "}")
        return
    if kind is list or kind is tuple:
        open_, close = ("[", "]") if kind is list else ("(", ")")
        if not value:
            out.append(open_ + close)
            return
        flat = [_scalar(item) for item in value]
        if None not in flat:
            one_line = (
                open_
                + ", ".join(flat)  # type: ignore[arg-type]
                + ("," if kind is tuple and len(flat) == 1 else "")
                + close
            )
            # A tuple of scalars inside a tuple is a record (an ``x-codegen.fields`` entry):
            # one line, always.
            if record or len(one_line) + len(inner) <= INLINE_WIDTH:
                out.append(one_line)
                return
        out.append(open_ + "\n")
        for item, text in zip(value, flat, strict=True):
            if text is not None:
                out.append(f"{inner}{text},\n")
                continue
            out.append(inner)
            _write(item, inner, out, record=kind is tuple and type(item) is tuple)
            out.append(",\n")
        out.append(pad + close)
        return
    scalar = _scalar(value)
    if scalar is None:
        _unrenderable(value)
    out.append(scalar)  # type: ignore[arg-type]


def _unrenderable(value: Any) -> NoReturn:
    raise TypeError(f"{type(value).__name__} value {value!r:.80} cannot be rendered as a literal")
