"""``[tool.mcp-codegen.diff]`` (levels, fail-on, exclude) and acknowledged breaks, through the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcp_codegen._cli.diff_options import main
from tests.diff.rules.trees import tool, write_tree

S = {"type": "string"}
BASE = [
    tool("search", {"q": S, "genre": {"enum": ["a", "b"]}}, ("q",)),
    tool("experimental_magic", {"x": S}),
]
# search: genre loses "b" (breaking), limit added (compatible); experimental_magic removed.
HEAD = [tool("search", {"q": S, "genre": {"enum": ["a"]}, "limit": {"type": "integer"}}, ("q",))]
ENUM = ("search", "input-enum-value-removed", "/inputSchema/properties/genre/enum")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write_tree(tmp_path / "base", BASE)
    write_tree(tmp_path / "head", HEAD)
    configure(tmp_path)
    return tmp_path


def configure(root: Path, diff_table: str = "") -> None:
    text = '[tool.mcp-codegen]\nsources = ["pkg"]\n'
    if diff_table:
        text += "\n[tool.mcp-codegen.diff]\n" + diff_table
    (root / "pyproject.toml").write_text(text, encoding="utf-8")


def diff(root: Path, capsys: Any, *extra: str) -> tuple[int, dict[str, Any] | None, str]:
    argv = [str(root / "base"), str(root / "head"), "--config", str(root / "pyproject.toml")]
    code = main([*argv, "--format", "json", *extra])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out.strip() else None, err


def rules(document: dict[str, Any]) -> dict[str, str]:
    return {c["rule"]: c["level"] for c in document["changes"]}


def test_defaults_fail_on_breaking_changes(project: Path, capsys: Any) -> None:
    code, document, _ = diff(project, capsys)
    assert code == 1
    assert rules(document) == {
        "input-enum-value-removed": "error",
        "input-optional-added": "info",
        "tool-removed": "error",
    }


def test_levels_exclude_and_fail_on(project: Path, capsys: Any) -> None:
    configure(
        project,
        'exclude = ["experimental_*"]\n'
        "[tool.mcp-codegen.diff.rules]\n"
        'input-enum-value-removed = "off"\n'
        'input-optional-added = "warn"\n',
    )
    code, document, _ = diff(project, capsys)
    assert rules(document) == {"input-optional-added": "warn"}
    assert code == 0  # fail-on error: a warning passes
    assert diff(project, capsys, "--fail-on", "warn")[0] == 1
    configure(project, 'fail_on = "info"\nexclude = ["experimental_*"]\n')
    code, document, _ = diff(project, capsys)
    assert code == 1 and "tool-removed" not in rules(document)
    assert diff(project, capsys, "--fail-on", "never")[0] == 0  # the flag beats the config


def test_unknown_rule_is_a_config_error_with_a_suggestion(project: Path, capsys: Any) -> None:
    configure(project, '[tool.mcp-codegen.diff.rules]\ninput-requried-added = "warn"\n')
    code, document, err = diff(project, capsys)
    assert (code, document) == (2, None)
    config = project / "pyproject.toml"
    assert err.strip() == (
        f"{config}:6:1: unknown rule 'input-requried-added'; did you mean 'input-required-added'?"
    )


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('fail_on = "sometimes"\n', "5:1: fail_on must be one of error, warn, info, never"),
        ('failon = "error"\n', "5:1: unknown key 'failon' in [tool.mcp-codegen.diff]; did you"),
        ('[tool.mcp-codegen.diff.rules]\ntool-removed = "fatal"\n', "6:1: the level of tool-r"),
    ],
)
def test_bad_diff_tables(project: Path, capsys: Any, table: str, message: str) -> None:
    configure(project, table)
    code, _, err = diff(project, capsys)
    assert code == 2
    assert err.startswith(f"{project / 'pyproject.toml'}:{message}")


def test_acknowledge_then_reason_then_stale(project: Path, capsys: Any) -> None:
    acks = project / "mcp-schema-changes.toml"
    code, _, err = diff(project, capsys, "--acknowledge")
    assert code == 0 and "wrote 2 acknowledgement(s)" in err
    text = acks.read_text()
    assert text.count("[[change]]") == 2 and text.count('reason = ""') == 2
    assert 'rule = "input-enum-value-removed"' in text and 'tool = "experimental_magic"' in text

    # An empty reason fails, at the reason's line.
    code, document, err = diff(project, capsys)
    reason_line = text.splitlines().index('reason = ""') + 1
    assert (code, document) == (2, None)
    assert err.startswith(f"{acks}:{reason_line}:1: the acknowledgement of ")

    acks.write_text(
        text.replace('reason = ""', 'reason = "the experiment ended"', 1).replace(
            'reason = ""', 'reason = "v2 drops genre b and the experiment"'
        )
    )
    code, document, err = diff(project, capsys)
    assert code == 0, err
    acknowledged = {
        (c["tool"], c["rule"], c["pointer"]): c["acknowledged"] for c in document["changes"]
    }
    assert acknowledged[ENUM] == "v2 drops genre b and the experiment"
    assert acknowledged[("experimental_magic", "tool-removed", "")] == "the experiment ended"
    assert document["stale_acknowledgements"] == []

    # The changelog carries the reasons.
    code = main(
        [
            str(project / "base"),
            str(project / "head"),
            "--config",
            str(project / "pyproject.toml"),
            "--write-changelog",
        ]
    )
    capsys.readouterr()
    changelog = (project / "CHANGELOG.md").read_text()
    assert "acknowledged: the experiment ended" in changelog

    # HEAD no longer removes the enum value: that entry matches nothing and is reported stale.
    write_tree(project / "head", [tool("search", {"q": S, "genre": {"enum": ["a", "b"]}}, ("q",))])
    code, document, err = diff(project, capsys)
    assert code == 0
    assert document["stale_acknowledgements"] == [
        {
            "tool": ENUM[0],
            "rule": ENUM[1],
            "pointer": ENUM[2],
            "reason": "v2 drops genre b and the experiment",
        }
    ]
    enum_entry = [i for i, line in enumerate(text.splitlines(), 1) if line == "[[change]]"][1]
    assert (
        f"{acks}:{enum_entry}:1: warning: stale acknowledgement: no input-enum-value-removed" in err
    )


def test_acknowledgement_with_an_unknown_rule(project: Path, capsys: Any) -> None:
    (project / "mcp-schema-changes.toml").write_text(
        '[[change]]\ntool = "search"\nrule = "tool-remved"\npointer = ""\nreason = "gone"\n'
    )
    code, _, err = diff(project, capsys)
    assert code == 2
    assert (
        "mcp-schema-changes.toml:3:1: unknown rule 'tool-remved'; did you mean 'tool-removed'?"
        in err
    )
