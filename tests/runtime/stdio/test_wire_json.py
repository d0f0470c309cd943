"""The front's JSON (``_stdio.wire_json``) against ``json`` itself, the oracle: the same values
and refusals when reading, the same text when writing, and no ``re`` imported for either."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mcp_codegen.runtime._stdio import wire_json
from tests.helpers.project import REPO, codegen_env


def _refuse(constant: str) -> Any:
    raise ValueError(constant)


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise ValueError("duplicate key")
    return result


LOADS = wire_json.loader(_refuse, _unique)
DUMPS = wire_json.compact_dumper()

values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=20,
)


def _json_loads(text: str) -> tuple[str, Any]:
    try:
        return "ok", json.loads(text, parse_constant=_refuse, object_pairs_hook=_unique)
    except (ValueError, RecursionError):
        return "refused", None


def _wire_loads(text: str) -> tuple[str, Any]:
    try:
        return "ok", LOADS(text)
    except (ValueError, RecursionError):
        return "refused", None


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(values)
def test_writes_what_json_dumps_writes(value: Any) -> None:
    expected = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    assert DUMPS(value) == expected
    assert _wire_loads(expected) == _json_loads(expected)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), {"a": [float("-inf")]}])
def test_refuses_what_json_refuses_to_write(value: Any) -> None:
    with pytest.raises(ValueError):
        json.dumps(value, allow_nan=False)
    with pytest.raises(ValueError):
        DUMPS(value)
    circular: list[Any] = []
    circular.append(circular)
    with pytest.raises(ValueError):
        DUMPS(circular)
    with pytest.raises(TypeError):
        DUMPS({"a": {1, 2}})


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(
    st.one_of(
        st.text(alphabet=' \t\n\r{}[]":,0123456789.eE+-truefalsnNIaiy\\u\ufeff\x00x', max_size=30),
        values.map(lambda value: json.dumps(value, allow_nan=False)),
        st.tuples(values, st.sampled_from(["", " ", "\n", " x", ",1", "\t\r", "\x0b"])).map(
            lambda pair: f"{json.dumps(pair[0])}{pair[1]}"
        ),
    )
)
@example('{"a":1,"a":2}')
@example("NaN")
@example("[1, -Infinity]")
@example("\ufeff{}")
@example(" \n{} \r\n")
@example("\x0b{}")
@example("")
@example("   ")
@example('"\\ud800"')
@example("[" * 5000 + "]" * 5000)
def test_reads_what_json_reads(text: str) -> None:
    assert _wire_loads(text) == _json_loads(text)


@pytest.mark.process
def test_neither_imports_re() -> None:
    code = (
        "import sys\n"
        "from mcp_codegen.runtime._stdio import wire_json\n"
        "loads = wire_json.loader(float, dict)\n"
        "dumps = wire_json.compact_dumper()\n"
        'assert dumps(loads(\'{"a": [1, 2.5, "\\u00e9", null]}\')) == '
        '\'{"a":[1,2.5,"\\u00e9",null]}\'\n'
        "print(sorted(name for name in ('re', 'json', 'enum') if name in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=codegen_env(),
        check=True,
    )
    assert done.stdout.strip() == "[]"


#: ``json`` not imported, then one malformed document read: how it was refused.
_FRESH_REFUSAL = (
    "import sys\n"
    "from mcp_codegen.runtime._stdio import wire_json\n"
    "assert 'json.decoder' not in sys.modules\n"
    "loads = wire_json.loader(float, dict)\n"
    "try:\n"
    "    loads(sys.argv[1])\n"
    "except ValueError:\n"
    "    print('ValueError')\n"
)


@pytest.mark.process
@pytest.mark.parametrize(
    "text",
    ['{"jsonrpc": "2.0", "id": 7, "params": {', '{"a": 1', '{"a" 1}', "{", '["\\x"]', "[1,"],
)
def test_refuses_a_malformed_document_before_json_is_imported(text: str) -> None:
    # The front reads its first messages before anything imports ``json``; CPython 3.11's
    # scanner then failed with a SystemError on a truncated object (it raises its errors through
    # json.decoder, which it does not import), and the server died on the first malformed line.
    assert _json_loads(text) == ("refused", None)
    done = subprocess.run(
        [sys.executable, "-c", _FRESH_REFUSAL, text],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=codegen_env(),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ValueError"
