"""The protocol revisions are listed once (``mcp_codegen._shared.protocols.REVISIONS``): the
``protocol`` config key, ``export --protocol`` and docs/configuration.md agree."""

from __future__ import annotations

import re

from mcp_codegen._cli.commands import build_parser
from mcp_codegen._shared.protocols import REVISIONS
from tests.helpers.project import REPO


def _export_protocol_choices() -> tuple[str, ...]:
    commands = build_parser()._subparsers._group_actions[0]  # type: ignore[union-attr]
    export = commands.choices["export"]
    (option,) = [a for a in export._actions if "--protocol" in a.option_strings]
    return tuple(option.choices)


def test_export_takes_the_revisions_the_config_takes() -> None:
    assert _export_protocol_choices() == REVISIONS


def test_the_configuration_page_lists_the_same_revisions() -> None:
    text = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    (row,) = [line for line in text.splitlines() if line.startswith("| `protocol` |")]
    assert tuple(re.findall(r'`"(\d{4}-\d\d-\d\d)"`', row)) == REVISIONS
    assert "`export --protocol` takes the same revisions" in row
