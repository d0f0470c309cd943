"""Every ``mcp-codegen`` subcommand's ``--help`` says what the command does."""

from __future__ import annotations

import re

import pytest

from mcp_codegen._cli.commands import build_parser, dispatch

COMMANDS = sorted(build_parser()._subparsers._group_actions[0].choices)  # type: ignore[union-attr]


def test_the_command_list_is_complete() -> None:
    """The parametrisation below covers the commands the user sees (not a stale copy)."""
    assert {"generate", "check", "watch", "export", "serve", "run", "diff"} <= set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_help_opens_with_a_description(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        dispatch([command, "--help"])
    assert stopped.value.code in (0, None)
    text = capsys.readouterr().out
    usage, _, rest = text.partition("\n\n")
    assert usage.startswith(f"usage: mcp-codegen {command}")
    description = rest.split("\n\n")[0]
    # a sentence, not the next section's heading ("options:", "positional arguments:")
    assert re.match(r"[A-Z][^\n]*\w", description), text
    assert not description.rstrip().endswith(":"), text
