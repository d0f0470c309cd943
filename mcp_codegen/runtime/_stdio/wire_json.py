"""The front's JSON: ``json.loads``/``json.dumps`` with the fast path's options, without ``re``.

Standard library only. Importing ``json`` imports ``re`` (and ``enum``, ``re._compiler``,
``re._parser``...) for the whitespace and string patterns of its pure-Python fallbacks: a few
milliseconds before the first answer of ``mcp-codegen run``, most of its fixed start-up over the
interpreter's floor on small servers (docs/fastpath-run.md). The work itself is done by the C
accelerator ``_json`` either way; this module calls it the way ``json`` does for these options
(``JSONDecoder.decode`` / ``JSONEncoder.encode`` with ``c_make_scanner`` / ``c_make_encoder``), so
the objects and the bytes are the same (tests/runtime/stdio/test_wire_json.py compares them with
``json`` on generated documents). Without ``_json`` (another interpreter), ``json`` is used.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

#: JSON's insignificant whitespace (``json.decoder.WHITESPACE``).
_SPACE = " \t\n\r"


class _Context:
    """What ``_json.make_scanner`` reads from a ``JSONDecoder``."""

    def __init__(
        self, parse_constant: Callable[[str], Any], object_pairs_hook: Callable[..., Any]
    ) -> None:
        self.strict = True
        self.object_hook = None
        self.object_pairs_hook = object_pairs_hook
        self.parse_float = float
        self.parse_int = int
        self.parse_constant = parse_constant


def _not_serializable(value: object) -> Any:
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


def loader(
    parse_constant: Callable[[str], Any], object_pairs_hook: Callable[..., Any]
) -> Callable[[str], Any]:
    """``lambda text: json.loads(text, parse_constant=..., object_pairs_hook=...)``; every
    refusal is a ``ValueError`` (``json.JSONDecodeError`` is one)."""
    try:
        # json's accelerator without json and re (~8 ms before the first answer)
        from _json import make_scanner
    except ImportError:  # pragma: no cover - CPython always has the accelerator
        # json (~8 ms with re): only on this error path
        import json

        return lambda text: json.loads(
            text, parse_constant=parse_constant, object_pairs_hook=object_pairs_hook
        )
    scan = make_scanner(_Context(parse_constant, object_pairs_hook))

    def loads(text: str) -> Any:
        if text.startswith("\ufeff"):
            raise ValueError("Unexpected UTF-8 BOM")
        start = len(text) - len(text.lstrip(_SPACE))
        try:
            value, end = scan(text, start)
        except StopIteration:
            raise ValueError("Expecting value") from None
        except SystemError:
            # CPython 3.11's scanner raises its errors as json.decoder.JSONDecodeError, which it
            # looks up in sys.modules without importing it: with ``json`` not imported yet, a
            # malformed document (``{"a": 1``) ends in a SystemError instead. ``json`` itself,
            # imported now, reads it again and raises the real error (only on this error path).
            import json

            return json.loads(
                text, parse_constant=parse_constant, object_pairs_hook=object_pairs_hook
            )
        if text[end:].strip(_SPACE):
            raise ValueError("Extra data")
        return value

    return loads


def compact_dumper() -> Callable[[Any], str]:
    """``lambda value: json.dumps(value, ensure_ascii=False, allow_nan=False,
    separators=(",", ":"))``."""
    try:
        # json's accelerator without json and re (~8 ms before the first answer)
        from _json import encode_basestring, make_encoder
    except ImportError:  # pragma: no cover - CPython always has the accelerator
        # json (~8 ms with re): only on this error path
        import json

        return lambda value: json.dumps(
            value, ensure_ascii=False, allow_nan=False, separators=(",", ":")
        )

    def dumps(value: Any) -> str:
        if isinstance(value, str):
            return encode_basestring(value)  # type: ignore[no-any-return]
        # a new encoder per call, as ``json.dumps`` makes one: ``markers`` holds the
        # containers being encoded (circular references are refused, a ValueError)
        encode = make_encoder(
            {}, _not_serializable, encode_basestring, None, ":", ",", False, False, False
        )
        return "".join(encode(value, 0))

    return dumps
