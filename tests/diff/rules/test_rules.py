"""Every change kind is a documented rule, and every rule's example fires exactly that rule."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from mcp_codegen._diff.changes import ChangeKind
from mcp_codegen._diff.classify import diff_sides
from mcp_codegen._diff.clients import ClientSettings, client_changes
from mcp_codegen._diff.revisions import Side, ToolEntry
from mcp_codegen._diff.rule_docs import RULE_DOCS
from mcp_codegen._diff.rules import DOCS_FILE, all_rules, rules_markdown


def as_side(tools: tuple[dict[str, Any], ...], protocols: tuple[str, ...] | None = None) -> Side:
    extra = {"protocols": protocols} if protocols is not None else {}
    entries = {
        tool["name"]: ToolEntry(
            tool["name"], copy.deepcopy(tool), "pkg/tools.py", "pkg/tools.py", 3, **extra
        )
        for tool in tools
    }
    return Side(label="example", tools=entries, version="1.0.0", exists=True)


def test_every_kind_has_exactly_one_entry() -> None:
    ids = [kind.rule for kind in ChangeKind]
    assert sorted(set(RULE_DOCS) - set(ids)) == [], "entries for rules that do not exist"
    assert [i for i in ids if i not in RULE_DOCS] == [], "kinds without a documentation entry"
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("kind", list(ChangeKind), ids=lambda kind: kind.rule)
def test_rule_ids_are_kebab_case(kind: ChangeKind) -> None:
    assert re.fullmatch(r"[a-z]+(-[a-z]+)*", kind.rule)
    assert ChangeKind.from_rule(kind.rule) is kind


@pytest.mark.parametrize("rule_id", list(RULE_DOCS))
def test_example_fires_exactly_its_rule(rule_id: str) -> None:
    doc = RULE_DOCS[rule_id]
    old_protocols, new_protocols = doc.protocols or (None, None)
    base, head = as_side(doc.before, old_protocols), as_side(doc.after, new_protocols)
    if doc.settings is None:
        changes = diff_sides(base, head)
    else:  # a client-aware rule: only what the configured clients see
        changes = client_changes(base, head, ClientSettings(**doc.settings))
    assert [change.kind.rule for change in changes] == [rule_id], [c.message for c in changes]


def test_docs_page_is_rendered_from_the_entries() -> None:
    assert DOCS_FILE.read_text(encoding="utf-8") == rules_markdown(), (
        "docs/diff-rules.md is stale: run `python -m mcp_codegen._diff.rules --write`"
    )
    for rule in all_rules().values():
        assert f"\n## {rule.id}\n" in rules_markdown()
