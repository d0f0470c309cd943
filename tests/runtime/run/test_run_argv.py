"""``mcp-codegen run``'s quick command-line reader agrees with argparse wherever it answers."""

from __future__ import annotations

import pytest

from mcp_codegen._cli.run import _quick_options, build_parser

PLAIN = [
    ["pkg.server:mcp"],
    ["--generated", "out", "pkg.server:mcp"],
    ["--generated=out", "--strict", "pkg.server:create_server(repository=None)"],
    ["--no-fast-path", "--no-gc-pause", "pkg:main"],
    ["pkg.server:mcp", "--strict", "--no-gc-pause", "--no-fast-path"],
]
#: What only argparse may judge: help, abbreviations, missing or extra targets, unknown flags.
LEFT_TO_ARGPARSE = [
    [],
    ["-h"],
    ["--help"],
    ["--gen", "out", "pkg:mcp"],
    ["--generated"],
    ["--generated", "--strict", "pkg:mcp"],
    ["--gc", "pkg:mcp"],
    ["pkg:mcp", "other:mcp"],
    ["--unknown", "pkg:mcp"],
]


@pytest.mark.parametrize("argv", PLAIN, ids=" ".join)
def test_a_plain_command_line_reads_as_argparse_reads_it(argv: list[str]) -> None:
    quick = _quick_options(argv)
    assert quick is not None
    assert vars(quick) == vars(build_parser().parse_args(argv))


@pytest.mark.parametrize("argv", LEFT_TO_ARGPARSE, ids=" ".join)
def test_anything_else_is_left_to_argparse(argv: list[str]) -> None:
    assert _quick_options(argv) is None
