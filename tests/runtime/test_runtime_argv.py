"""The runtime's quick command-line reader agrees with argparse wherever it answers at all."""

from __future__ import annotations

import pytest

from mcp_codegen.runtime._serve.server import _parser, _quick_options

PLAIN = [
    [],
    ["--generated", "out"],
    ["--generated=out", "--path", "a", "--path=b", "--path", "c"],
    ["--transport", "stdio", "--log-level", "DEBUG", "--name", "shop"],
    ["--transport=http", "--host", "0.0.0.0", "--port", "9000", "--http-path", "/x"],
    ["--strict-output", "--no-fast-path", "--call-timeout", "2.5"],
    ["--max-message-bytes", "1024", "--call-timeout=1e3", "--generated="],
    ["--port", " 8001 "],
]
#: What only argparse may judge: help, abbreviations, bad values, values that look like flags.
LEFT_TO_ARGPARSE = [
    ["-h"],
    ["--help"],
    ["--gen", "out"],
    ["--generated"],
    ["--generated", "--path"],
    ["--port", "eighty"],
    ["--transport", "carrier-pigeon"],
    ["--log-level", "debug"],
    ["--call-timeout", "-1"],
    ["--strict-output=yes"],
    ["positional"],
    ["--", "--generated"],
    ["--unknown", "x"],
]


@pytest.mark.parametrize("argv", PLAIN, ids=" ".join)
def test_a_plain_command_line_reads_as_argparse_reads_it(argv: list[str]) -> None:
    quick = _quick_options(argv)
    assert quick is not None
    assert vars(quick) == vars(_parser("prog").parse_args(argv))


@pytest.mark.parametrize("argv", LEFT_TO_ARGPARSE, ids=" ".join)
def test_anything_else_is_left_to_argparse(argv: list[str]) -> None:
    assert _quick_options(argv) is None
