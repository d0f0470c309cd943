"""``recorded_digest`` and ``regenerate_command`` read a generated file's head without ``re``
(imported before ``mcp-codegen run``'s first answer otherwise); the oracle is the regular
expression each one replaced, on generated heads and on hand-picked near misses."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from mcp_codegen._shared.format import (
    DEFAULT_REGENERATE,
    REGENERATE_PREFIX,
    recorded_digest,
    regenerate_command,
)

DIGEST = "0123456789abcdef" * 4


def _digest_by_re(head: bytes) -> str | None:
    found = re.search(rb'^SOURCE_SHA256 = "([0-9a-f]{64})"$', head, re.MULTILINE)
    return found.group(1).decode() if found else None


def _command_by_re(head: bytes) -> str:
    prefix = re.escape(REGENERATE_PREFIX.encode())
    found = re.search(rb"^" + prefix + rb"(.+)$", head, re.MULTILINE)
    return found.group(1).decode().strip() if found else DEFAULT_REGENERATE


pieces = st.sampled_from(
    [
        b"\n",
        b"\r\n",
        b"\r",
        b" ",
        b'"',
        b"x",
        b"A",
        b"0",
        b"f",
        DIGEST.encode(),
        DIGEST[:63].encode(),
        DIGEST.upper().encode(),
        b'SOURCE_SHA256 = "',
        REGENERATE_PREFIX.encode(),
        b"nox -s codegen",
        b"# Regenerate with:",
        b"FORMAT = 2",
    ]
)
heads = st.lists(pieces, max_size=12).map(b"".join)


@settings(max_examples=600, deadline=None)
@given(heads)
@example(f'SOURCE_SHA256 = "{DIGEST}"\n'.encode())
@example(f'x = 1\nSOURCE_SHA256 = "{DIGEST}"'.encode())
@example(f'SOURCE_SHA256 = "{DIGEST}"\r\n'.encode())
@example(f'SOURCE_SHA256 = "{DIGEST}" \n'.encode())
@example(f' SOURCE_SHA256 = "{DIGEST}"\n'.encode())
@example(f'SOURCE_SHA256 = "{DIGEST.upper()}"\n'.encode())
@example(f'SOURCE_SHA256 = "{DIGEST}0"\n'.encode())
@example(f"{REGENERATE_PREFIX}nox -s codegen\n".encode())
@example(f"{REGENERATE_PREFIX}\n{REGENERATE_PREFIX}  make gen \r\n".encode())
@example(f"x{REGENERATE_PREFIX}a\n".encode())
@example(REGENERATE_PREFIX.encode())
def test_heads_read_as_the_regular_expressions_read_them(head: bytes) -> None:
    assert recorded_digest(head) == _digest_by_re(head)
    assert regenerate_command(head) == _command_by_re(head)
