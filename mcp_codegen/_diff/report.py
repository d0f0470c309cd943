"""A diff's result, the semver bump it implies (seed 004), and the CHANGELOG entry for it."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from mcp_codegen._diff.changes import Change, Severity
from mcp_codegen._diff.classify import diff_sides
from mcp_codegen._diff.clients import ClientSettings, client_changes
from mcp_codegen._diff.growth import SizeReport, size_report
from mcp_codegen._diff.policy import FAIL_ON, FAIL_ON_ALIASES, Acknowledgement, fails
from mcp_codegen._diff.revisions import Side
from mcp_codegen._shared.diagnostics import Diagnostic

SEMVER = re.compile(
    r"^(?P<major>0|[1-9]\d*)\.(?P<minor>0|[1-9]\d*)\.(?P<patch>0|[1-9]\d*)"
    r"(?:-(?P<pre>[0-9A-Za-z.-]+))?(?:\+(?P<build>[0-9A-Za-z.-]+))?$"
)

#: Unknown changes propose a major bump: they are never assumed compatible.
BUMP_FOR = {
    Severity.BREAKING: "major",
    Severity.UNKNOWN: "major",
    Severity.COMPATIBLE: "minor",
    Severity.NOTABLE: "patch",
}


@dataclass(frozen=True)
class DiffReport:
    """Everything a renderer needs: both sides' identity and the sorted changes."""

    base_label: str
    head_label: str
    base_version: str | None
    head_version: str | None
    base_tools: int
    head_tools: int
    changes: tuple[Change, ...]
    warnings: tuple[Diagnostic, ...] = ()
    #: How much tools/list grows or shrinks (None: not measured).
    size: SizeReport | None = None
    #: Acknowledgements that matched no change (``mcp-schema-changes.toml``).
    stale: tuple[Acknowledgement, ...] = ()
    #: Every tool name on either side, sorted (one JUnit test case each).
    tools: tuple[str, ...] = ()
    #: Tools left out by ``exclude`` in ``[tool.mcp-codegen.diff]``.
    excluded: tuple[str, ...] = ()
    #: The versions that decided inference on each side (None: the manifest records none).
    base_dependencies: Mapping[str, str] | None = None
    head_dependencies: Mapping[str, str] | None = None

    def dependency_changes(self) -> list[tuple[str, str | None, str | None]]:
        """``(name, base version, head version)`` for each recorded version that differs."""
        if self.base_dependencies is None or self.head_dependencies is None:
            return []
        names = sorted(set(self.base_dependencies) | set(self.head_dependencies))
        return [
            (name, self.base_dependencies.get(name), self.head_dependencies.get(name))
            for name in names
            if self.base_dependencies.get(name) != self.head_dependencies.get(name)
        ]

    def count(self, severity: Severity) -> int:
        return sum(1 for change in self.changes if change.severity is severity)

    @property
    def counts(self) -> dict[Severity, int]:
        found = Counter(change.severity for change in self.changes)
        return {severity: found[severity] for severity in Severity}

    @property
    def bump(self) -> str | None:
        """``major``, ``minor`` or ``patch``; None when nothing changed."""
        bumps = {BUMP_FOR[change.severity] for change in self.changes}
        return next((bump for bump in ("major", "minor", "patch") if bump in bumps), None)

    @property
    def proposed_version(self) -> str | None:
        """BASE's schema-set version bumped; HEAD's when BASE has none (a first release)."""
        if self.base_version is None:
            return self.head_version
        if self.bump is None:
            return self.base_version
        return bump_version(self.base_version, self.bump)

    @property
    def head_version_ok(self) -> bool | None:
        """Whether HEAD's recorded version is at least the proposed one (None: not comparable)."""
        proposed, head = self.proposed_version, self.head_version
        if proposed is None or head is None:
            return None
        try:
            return _precedence(head) >= _precedence(proposed)
        except ValueError:
            return None

    def changed_tools(self) -> list[str]:
        return list(dict.fromkeys(change.tool for change in self.changes))

    def fails(self, fail_on: str) -> bool:
        """Whether the exit status is 1: an unacknowledged change at the ``fail_on`` level or
        above (``error``: breaking and unknown by default; ``info``/``any``: any; ``never``)."""
        return fails(self.changes, FAIL_ON[FAIL_ON_ALIASES.get(fail_on, fail_on)])

    @property
    def acknowledged(self) -> tuple[Change, ...]:
        return tuple(change for change in self.changes if change.acknowledged is not None)


def build_report(
    base: Side, head: Side, tokenizer: str = "bytes/4", clients: ClientSettings | None = None
) -> DiffReport:
    """Diff two sides, and measure both tools/list payloads (tokens by ``tokenizer``); with
    ``clients``, add the client-aware changes (profiles, name budget, size limits)."""
    changes = diff_sides(base, head)
    if clients is not None:
        changes = sorted(changes + client_changes(base, head, clients), key=Change.sort_key)
    return DiffReport(
        base_label=base.label,
        head_label=head.label,
        base_version=base.version,
        head_version=head.version,
        base_tools=len(base.tools),
        head_tools=len(head.tools),
        changes=tuple(changes),
        warnings=base.warnings + head.warnings,
        size=size_report(base, head, tokenizer),
        tools=tuple(sorted(set(base.tools) | set(head.tools))),
        base_dependencies=base.dependencies,
        head_dependencies=head.dependencies,
    )


def _parts(version: str) -> tuple[int, int, int, str | None]:
    match = SEMVER.match(version)
    if match is None:
        raise ValueError(f"{version!r} is not a semantic version (MAJOR.MINOR.PATCH)")
    return int(match["major"]), int(match["minor"]), int(match["patch"]), match["pre"]


def _precedence(version: str) -> tuple[int, int, int, int]:
    major, minor, patch, pre = _parts(version)
    return major, minor, patch, 0 if pre else 1  # a pre-release precedes its release


def bump_version(version: str, bump: str) -> str:
    """Semver increment; a pre-release is first released (``1.0.0-rc.1`` + patch = ``1.0.0``)."""
    major, minor, patch, pre = _parts(version)
    if bump == "major":
        if pre and minor == 0 and patch == 0:
            return f"{major}.0.0"
        return f"{major + 1}.0.0"
    if bump == "minor":
        if pre and patch == 0:
            return f"{major}.{minor}.0"
        return f"{major}.{minor + 1}.0"
    if bump == "patch":
        return f"{major}.{minor}.{patch}" if pre else f"{major}.{minor}.{patch + 1}"
    raise ValueError(f"unknown bump {bump!r}")


# --- CHANGELOG ----------------------------------------------------------------------------------

CHANGELOG_HEADER = (
    "# Changelog\n\n"
    "Changes to the MCP tool schema set, newest first. Entries are written by "
    "`mcp-codegen diff --write-changelog`.\n"
)
SECTION_TITLES = {
    Severity.BREAKING: "Breaking",
    Severity.UNKNOWN: "Needs review (impact undecided)",
    Severity.COMPATIBLE: "Compatible",
    Severity.NOTABLE: "Notable",
}


def escape_markdown(text: str) -> str:
    """Text that renders as itself in a markdown list item or table cell.

    CommonMark lets any ASCII punctuation be backslash-escaped. Escaped here: what would start
    emphasis, code, HTML or entities, or end a table cell. A ``]`` is escaped only where a link
    could follow and an ``_`` only at a word boundary, so ``genres[]`` and ``in_stock`` read as
    they are.
    """
    text = re.sub(r"([\\`*<|~&])", r"\\\1", text)
    text = re.sub(r"\](?=[(\[:])", r"\\]", text)
    text = re.sub(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])", r"\\_", text)
    return text.replace("\n", " ")


def changelog_entry(report: DiffReport, date: str | None = None) -> str:
    """A Keep-a-Changelog style section for the proposed version; deterministic without a date."""
    version = report.proposed_version or "Unreleased"
    heading = f"## [{version}]" + (f" - {date}" if date else "")
    lines = [heading, ""]
    bump = f" ({report.bump})" if report.bump else ""
    lines.append(
        f"Schema set {report.base_version or 'none'} -> {version}{bump}: "
        f"{len(report.changes)} change(s) in {len(report.changed_tools())} tool(s)."
    )
    for severity in Severity:
        group = [c for c in report.changes if c.severity is severity]
        if not group:
            continue
        lines += ["", f"### {SECTION_TITLES[severity]}", ""]
        lines += [
            f"- `{c.tool}`: {escape_markdown(c.message)} (`{c.pointer or '/'}`)"
            + (f"; acknowledged: {escape_markdown(c.acknowledged)}" if c.acknowledged else "")
            for c in group
        ]
    return "\n".join(lines) + "\n"


def write_changelog(path: Path, report: DiffReport, date: str | None = None) -> None:
    """Insert (or replace) the proposed version's entry above the previous entries."""
    entry = changelog_entry(report, date)
    text = path.read_text(encoding="utf-8") if path.exists() else CHANGELOG_HEADER
    version = report.proposed_version or "Unreleased"
    lines = text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.startswith("## ")]
    same = [i for i in starts if _entry_version(lines[i]) == version]
    if same:
        begin = same[0]
        end = next((i for i in starts if i > begin), len(lines))
        lines[begin:end] = [entry + ("\n" if end < len(lines) else "")]
    else:
        at = starts[0] if starts else len(lines)
        block = entry + "\n" if at < len(lines) else entry
        if at == len(lines) and lines and not lines[-1].endswith("\n\n"):
            block = ("\n" if lines[-1].endswith("\n") else "\n\n") + block
        lines[at:at] = [block]
    path.write_text("".join(lines), encoding="utf-8")


def _entry_version(heading: str) -> str | None:
    match = re.match(r"## \[([^\]]+)\]", heading)
    return match[1] if match else None
