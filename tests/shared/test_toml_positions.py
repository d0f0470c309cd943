"""TOML positions for diagnostics (``mcp_codegen._shared.toml_positions``): tomllib gives none,
so each is found in the text, and every lookup falls back to the table's header, then 1:1."""

from __future__ import annotations

import tomllib

import pytest

from mcp_codegen._shared.toml_positions import (
    header_position,
    key_position,
    parse_error_position,
    text_position,
)

TEXT = """\
[project]
name = "x"

[tool.mcp-codegen]
sources = ["tools"]
  "box_field" = "value"

[tool.mcp-codegen.diff]
fail_on = "sometimes"

[[change]]
tool = "a"
rule = "tool-removed"

[[change]]
tool = "b"
  reason = ""
"""


def test_a_parse_error_is_where_tomllib_says() -> None:
    with pytest.raises(tomllib.TOMLDecodeError) as caught:
        tomllib.loads('a = 1\nb = "unclosed\n')
    assert parse_error_position(str(caught.value)) == (2, 14)
    assert parse_error_position("no position here") == (1, 1)


def test_a_key_is_found_in_its_table_only() -> None:
    assert key_position(TEXT, "tool.mcp-codegen", "sources") == (5, 1)
    assert key_position(TEXT, "tool.mcp-codegen", "box_field") == (6, 3)  # quoted, indented
    assert key_position(TEXT, "tool.mcp-codegen", "name") == (4, 1)  # not there: the header
    assert key_position(TEXT, "tool.mcp-codegen", "fail_on") == (4, 1)  # a sub-table's key
    assert key_position(TEXT, "nowhere", "name") == (1, 1)


def test_a_key_of_one_entry_of_an_array_of_tables() -> None:
    assert key_position(TEXT, "change", "tool", occurrence=0) == (12, 1)
    assert key_position(TEXT, "change", "tool", occurrence=1) == (16, 1)
    assert key_position(TEXT, "change", "reason", occurrence=1) == (17, 3)
    assert key_position(TEXT, "change", "reason", occurrence=0) == (11, 1)  # its header
    assert key_position(TEXT, "change", "rule") == (13, 1)  # any entry


def test_text_is_found_in_a_table_and_its_sub_tables() -> None:
    assert text_position(TEXT, "sometimes", "tool.mcp-codegen") == (9, 12)
    assert text_position(TEXT, "absent", "tool.mcp-codegen.diff") == (8, 1)
    assert header_position(TEXT, "tool.mcp-codegen.diff") == (8, 1)
    assert header_position(TEXT, "tool") == (1, 1)
