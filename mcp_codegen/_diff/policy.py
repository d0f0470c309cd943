"""The review policy: ``[tool.mcp-codegen.diff]`` (levels per rule, ``fail_on``, excluded tools)
and the reviewed acknowledgements file (``mcp-schema-changes.toml``), applied to a report.

Every problem in either file is a ``path:line:col`` diagnostic (exit 2); an unknown rule ID
suggests the closest one. ``tomllib`` gives no positions, so a key or value is located by
searching the text of its table (``mcp_codegen._shared.toml_positions``), falling back to the
table's header.
"""

from __future__ import annotations

import difflib
import fnmatch
import json
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from mcp_codegen._diff.changes import Change, ChangeKind, Level
from mcp_codegen._shared.diagnostics import CodegenError, Diagnostic
from mcp_codegen._shared.project_config import ConfigError, read_config
from mcp_codegen._shared.toml_positions import key_position, parse_error_position, text_position

TABLE = "tool.mcp-codegen.diff"
ACKNOWLEDGEMENTS = "mcp-schema-changes.toml"
#: ``fail_on`` values: a level (fail on changes at it or above), or never; the CLI's older
#: ``breaking`` and ``any`` mean ``error`` and ``info``.
FAIL_ON = {"error": Level.ERROR, "warn": Level.WARN, "info": Level.INFO, "never": None}
FAIL_ON_ALIASES = {"breaking": "error", "any": "info"}
#: The table's keys, snake_case as every key of ``[tool.mcp-codegen]`` (``fail-on`` and
#: ``docs-url`` are read too, with a warning: ``mcp_codegen._shared.project_config``).
_KEYS = {
    "fail_on": "one of error, warn, info, never",
    "rules": "a table of rule ID = level (error, warn, info or off)",
    "exclude": "a list of tool-name patterns (fnmatch), for experimental tools",
    "acknowledgements": f"the path of the acknowledgements file (default {ACKNOWLEDGEMENTS})",
    "docs_url": "the https:// address of the rules page (docs/diff-rules.md as you host it); "
    "SARIF links each rule to its section there",
}
_ENTRY_KEYS = ("tool", "rule", "pointer", "reason")


@dataclass(frozen=True)
class Acknowledgement:
    """One reviewed change: tool, rule and pointer name it; ``line`` is its header's line."""

    tool: str
    rule: str
    pointer: str
    reason: str
    line: int = 0

    def matches(self, change: Change) -> bool:
        return (self.tool, self.rule, self.pointer) == (
            change.tool,
            change.kind.rule,
            change.pointer,
        )


@dataclass(frozen=True)
class Policy:
    levels: dict[str, Level]
    fail_on: str = "error"  # a key of FAIL_ON
    exclude: tuple[str, ...] = ()
    acknowledgements_file: Path | None = None
    acknowledgements: tuple[Acknowledgement, ...] = ()
    docs_url: str | None = None  # the rules page; None: the distribution's, if it names one

    def level(self, kind: ChangeKind) -> Level | None:
        """The configured level of ``kind``'s rule; None: its default."""
        return self.levels.get(kind.rule)

    def excluded(self, tool: str) -> bool:
        return any(fnmatch.fnmatchcase(tool, pattern) for pattern in self.exclude)


def suggestion(name: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.5)
    return f"did you mean {close[0]!r}?" if close else "see docs/diff-rules.md for the rule IDs"


def _read_toml(path: Path) -> tuple[str, dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
        return text, tomllib.loads(text)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        line, col = parse_error_position(str(exc))
        raise CodegenError(
            [Diagnostic(str(path), line, col, f"cannot parse TOML ({exc}); fix the syntax")]
        ) from None


def load_policy(config_file: Path, root: Path, *, drafting: bool = False) -> Policy:
    """``[tool.mcp-codegen.diff]`` of ``config_file``, and the acknowledgements it names (relative
    to ``root``); raises ``CodegenError`` with every problem found. ``drafting`` (``--acknowledge``)
    lets entries whose reason is still empty through."""
    text, table = "", {}
    if config_file.is_file():
        try:
            project = read_config(str(config_file))
        except ConfigError as exc:
            raise CodegenError([Diagnostic(exc.path, exc.line, exc.column, exc.message)]) from None
        text, table = project.text, project.table.get("diff", {})
    problems: list[Diagnostic] = []

    def problem(needle: str, message: str) -> None:
        if needle not in text:  # written in the old kebab-case spelling
            needle = needle.replace("_", "-")
        problems.append(Diagnostic(str(config_file), *text_position(text, needle, TABLE), message))

    if not isinstance(table, dict):
        problem("diff", f"[{TABLE}] must be a table")
        raise CodegenError(problems)
    for key in table:
        if key not in _KEYS:
            problem(key, f"unknown key {key!r} in [{TABLE}]; {suggestion(key, _KEYS)}")
    fail_on = "error"
    if "fail_on" in table:
        value = table["fail_on"]
        value = FAIL_ON_ALIASES.get(value, value) if isinstance(value, str) else value
        if not isinstance(value, str) or value not in FAIL_ON:
            problem("fail_on", f"fail_on must be {_KEYS['fail_on']}, got {table['fail_on']!r}")
        else:
            fail_on = value
    levels: dict[str, Level] = {}
    rules = table.get("rules", {})
    known = [kind.rule for kind in ChangeKind]
    if not isinstance(rules, dict):
        problem("rules", f"rules must be {_KEYS['rules']}")
        rules = {}
    for rule, level in rules.items():
        if rule not in known:
            problem(rule, f"unknown rule {rule!r}; {suggestion(rule, known)}")
        elif level not in {lv.value for lv in Level}:
            problem(rule, f"the level of {rule} must be error, warn, info or off, got {level!r}")
        else:
            levels[rule] = Level(level)
    exclude = table.get("exclude", [])
    if not isinstance(exclude, list) or not all(isinstance(p, str) for p in exclude):
        problem("exclude", f"exclude must be {_KEYS['exclude']}")
        exclude = []
    ack_name = table.get("acknowledgements", ACKNOWLEDGEMENTS)
    if not isinstance(ack_name, str):
        problem("acknowledgements", f"acknowledgements must be {_KEYS['acknowledgements']}")
        ack_name = ACKNOWLEDGEMENTS
    docs_url = table.get("docs_url")
    if docs_url is not None and not (
        isinstance(docs_url, str) and docs_url.startswith(("https://", "http://"))
    ):
        problem("docs_url", f"docs_url must be {_KEYS['docs_url']}")
        docs_url = None
    if problems:
        raise CodegenError(problems)
    ack_file = root / ack_name
    return Policy(
        levels=levels,
        fail_on=fail_on,
        exclude=tuple(exclude),
        acknowledgements_file=ack_file,
        acknowledgements=load_acknowledgements(ack_file, drafting) if ack_file.is_file() else (),
        docs_url=docs_url,
    )


def _entry_lines(text: str) -> list[int]:
    return [
        number
        for number, line in enumerate(text.splitlines(), start=1)
        if line.strip().replace(" ", "") == "[[change]]"
    ]


def load_acknowledgements(path: Path, drafting: bool = False) -> tuple[Acknowledgement, ...]:
    """The ``[[change]]`` entries of an acknowledgements file, checked: every key present and a
    string, a known rule, and a reason that says something."""
    text, data = _read_toml(path)
    problems: list[Diagnostic] = []
    unknown_top = [key for key in data if key != "change"]
    for key in unknown_top:
        problems.append(Diagnostic(str(path), 1, 1, f"unknown key {key!r}; entries are [[change]]"))
    entries = data.get("change", [])
    headers = _entry_lines(text)
    known = [kind.rule for kind in ChangeKind]
    found: list[Acknowledgement] = []
    for index, entry in enumerate(entries if isinstance(entries, list) else []):
        start = headers[index] if index < len(headers) else 1

        def at(key: str, index: int = index) -> tuple[int, int]:
            return key_position(text, "change", key, occurrence=index)

        bad = False
        for key in entry:
            if key not in _ENTRY_KEYS:
                hint = suggestion(key, _ENTRY_KEYS)
                problems.append(Diagnostic(str(path), *at(key), f"unknown key {key!r}; {hint}"))
                bad = True
        for key in _ENTRY_KEYS:
            if not isinstance(entry.get(key), str):
                problems.append(
                    Diagnostic(str(path), start, 1, f'this [[change]] needs {key} = "..."')
                )
                bad = True
        if bad:
            continue
        if entry["rule"] not in known:
            hint = suggestion(entry["rule"], known)
            problems.append(
                Diagnostic(str(path), *at("rule"), f"unknown rule {entry['rule']!r}; {hint}")
            )
        if not entry["reason"].strip() and not drafting:
            problems.append(
                Diagnostic(
                    str(path),
                    *at("reason"),
                    f"the acknowledgement of {entry['rule']} on {entry['tool']!r} has an empty "
                    "reason; say why this change is intended (reviewers read it in the changelog)",
                )
            )
        found.append(Acknowledgement(**{k: entry[k] for k in _ENTRY_KEYS}, line=start))
    if problems:
        raise CodegenError(problems)
    return tuple(found)


def apply_policy(
    changes: Iterable[Change], policy: Policy
) -> tuple[tuple[Change, ...], tuple[Acknowledgement, ...]]:
    """The changes the gate sees (excluded tools and ``off`` rules dropped, levels and
    acknowledgements attached), and the acknowledgements that matched nothing (stale)."""
    kept: list[Change] = []
    used: set[int] = set()
    for change in changes:
        if policy.excluded(change.tool):
            continue
        level = policy.level(change.kind)
        if level is Level.OFF:
            continue
        reason = None
        for index, ack in enumerate(policy.acknowledgements):
            if ack.matches(change):
                used.add(index)
                reason = ack.reason
                break
        kept.append(replace(change, level=level, acknowledged=reason))
    stale = tuple(a for i, a in enumerate(policy.acknowledgements) if i not in used)
    return tuple(kept), stale


def fails(changes: Iterable[Change], fail_on: Level | None) -> bool:
    """Whether an unacknowledged change is at ``fail_on`` or above (None: never)."""
    if fail_on is None:
        return False
    return any(
        change.acknowledged is None and change.effective_level.rank <= fail_on.rank
        for change in changes
    )


ACK_HEADER = (
    "# Acknowledged MCP tool schema changes: each entry below accepts one change from the base\n"
    "# branch to this one. Fill in every reason; `mcp-codegen diff` fails on an empty one and\n"
    "# reports entries that no longer match a change as stale (docs/review-workflow.md).\n"
)


def _toml_string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a TOML basic string is a JSON string


def acknowledgement_entries(changes: Iterable[Change]) -> str:
    """``[[change]]`` blocks with an empty reason, one per change."""
    blocks = []
    for change in changes:
        blocks.append(
            "\n[[change]]\n"
            f"tool = {_toml_string(change.tool)}\n"
            f"rule = {_toml_string(change.kind.rule)}\n"
            f"pointer = {_toml_string(change.pointer)}\n"
            f"# {change.message.replace(chr(10), ' ')}\n"
            'reason = ""\n'
        )
    return "".join(blocks)


def write_acknowledgements(path: Path, changes: list[Change]) -> None:
    """Append entries for ``changes`` to ``path`` (created with a header when missing)."""
    text = path.read_text(encoding="utf-8") if path.is_file() else ACK_HEADER
    if text and not text.endswith("\n"):
        text += "\n"
    path.write_text(text + acknowledgement_entries(changes), encoding="utf-8")
