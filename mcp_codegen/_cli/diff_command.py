"""``mcp-codegen diff [BASE] [HEAD]``: classify schema changes between two revisions."""

from __future__ import annotations

import argparse
import functools
import os
import re
import sys
from dataclasses import replace
from pathlib import Path

from mcp_codegen._diff.ci_formats import render_junit, render_sarif
from mcp_codegen._diff.clients import ClientSettings
from mcp_codegen._diff.json_schema import render_schema
from mcp_codegen._diff.policy import (
    FAIL_ON,
    FAIL_ON_ALIASES,
    Policy,
    apply_policy,
    load_policy,
    write_acknowledgements,
)
from mcp_codegen._diff.renderers import (
    render_github,
    render_json,
    render_markdown,
    render_terminal,
)
from mcp_codegen._diff.report import DiffReport, build_report, write_changelog
from mcp_codegen._diff.revisions import (
    GitError,
    Side,
    default_branch,
    merge_base,
    read_directory,
    read_revision,
    resolve_commit,
    toplevel,
)
from mcp_codegen._diff.rules import published_docs_url
from mcp_codegen._generator.config import Config, load_config
from mcp_codegen._shared.diagnostics import CodegenError, Diagnostic, ExitCode

__all__ = ["render", "run"]


def _git_root(config: Config) -> Path:
    return _toplevel(config.root)


@functools.lru_cache(maxsize=8)
def _toplevel(directory: Path) -> Path:
    """``git rev-parse --show-toplevel``, asked once per directory (both sides and the report
    need it); a failure is not remembered."""
    return toplevel(directory)


def _output_in_repo(repo: Path, output: Path) -> str:
    try:
        return output.resolve().relative_to(repo).as_posix()
    except ValueError:
        raise CodegenError(
            [
                Diagnostic(
                    str(output), 0, 0, f"the output directory is outside the repository {repo}"
                )
            ]
        ) from None


def _side(spec: str, config: Config, output: Path) -> Side:
    """A directory when ``spec`` names one, else a git revision."""
    path = Path(spec)
    if path.is_dir():
        return read_directory(path.resolve(), label=spec)
    repo = _git_root(config)
    commit = resolve_commit(repo, spec)
    if spec == commit:  # a full commit id (the Action passes the PR's base sha)
        label = commit[:10]
    else:
        label = spec if spec.startswith(commit[:7]) else f"{spec} ({commit[:7]})"
    return read_revision(repo, commit, _output_in_repo(repo, output), label=label)


def _default_base(config: Config, output: Path, head_spec: str | None) -> Side:
    repo = _git_root(config)
    branch = default_branch(repo)
    head_revision = "HEAD"
    if head_spec is not None and not Path(head_spec).is_dir():
        head_revision = head_spec
    resolve_commit(repo, head_revision)  # a repository without commits has no base
    base = merge_base(repo, head_revision, branch)
    label = f"merge-base of {head_revision} and {branch} ({base[:7]})"
    return read_revision(repo, base, _output_in_repo(repo, output), label=label)


def _path_prefix(config: Config) -> str:
    """The project root relative to the repository root, for annotation paths."""
    try:
        prefix = config.root.resolve().relative_to(_git_root(config)).as_posix()
    except (CodegenError, ValueError):
        return ""
    return "" if prefix == "." else prefix + "/"


def _use_colour(choice: str) -> bool:
    if choice != "auto":
        return choice == "always"
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def render(report: DiffReport, args: argparse.Namespace, config: Config) -> str:
    """The report in ``args.format``."""
    if args.format == "json":
        return render_json(report)
    if args.format == "markdown":
        return render_markdown(report)
    if args.format == "github":
        return render_github(report, _path_prefix(config))
    if args.format == "sarif":
        docs_url = getattr(args, "docs_url", None) or published_docs_url()
        return render_sarif(report, _path_prefix(config), docs_url)
    if args.format == "junit":
        return render_junit(report, args.fail_on or "error")
    return render_terminal(report, colour=_use_colour(args.color))


def run(args: argparse.Namespace) -> int:
    """Run ``diff``; returns the exit status (0, 1 per ``--fail-on``, or 2 on errors)."""
    if args.json_schema:
        sys.stdout.write(render_schema())
        return ExitCode.OK
    if args.date is not None and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", args.date):
        print(f"mcp-codegen diff: --date must be YYYY-MM-DD, got {args.date!r}", file=sys.stderr)
        return ExitCode.USAGE
    try:
        config_path = getattr(args, "config", None)
        config = load_config(Path(config_path) if config_path else None)
        for warning in config.warnings:
            print(warning, file=sys.stderr)
        policy = load_policy(config.config_file, config.root, drafting=args.acknowledge)
        args.docs_url = policy.docs_url
        output = Path(args.output).resolve() if args.output else config.output
        if args.head is None:
            head = read_directory(output, label=f"working tree ({config.relative(output)})")
        else:
            head = _side(args.head, config, output)
        if args.base is None:
            base = _default_base(config, output, args.head)
        else:
            base = _side(args.base, config, output)
    except (CodegenError, GitError) as exc:
        for diagnostic in exc.diagnostics:
            print(diagnostic, file=sys.stderr)
        return ExitCode.USAGE
    try:
        # Excluded tools leave both sides first: no change, size or test case for them.
        excluded = sorted(n for n in {*base.tools, *head.tools} if policy.excluded(n))
        base, head = (
            replace(side, tools={n: e for n, e in side.tools.items() if n not in excluded})
            for side in (base, head)
        )
        clients = ClientSettings(
            profiles=config.profiles,
            server_name=config.server_name,
            name_budget=config.name_budget,
            max_tool_bytes=config.max_tool_bytes,
            max_total_bytes=config.max_total_bytes,
        )
        report = build_report(base, head, config.tokenizer, clients)
    except ValueError as exc:  # a tokenizer that is not installed
        print(f"{config.config_file}: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    changes, stale = apply_policy(report.changes, policy)
    report = replace(
        report,
        changes=changes,
        stale=stale,
        excluded=tuple(excluded),
    )
    for warning in report.warnings:
        print(warning, file=sys.stderr)
    fail_on = args.fail_on = args.fail_on or policy.fail_on
    if args.acknowledge:
        return _acknowledge(report, policy, fail_on, config)
    for entry in stale:
        print(
            f"{policy.acknowledgements_file}:{entry.line}:1: warning: stale acknowledgement: no "
            f"{entry.rule} change of {entry.tool!r} at {entry.pointer or '/'}; remove the entry",
            file=sys.stderr,
        )
    sys.stdout.write(render(report, args, config))
    if args.write_changelog is not None:
        target = Path(args.write_changelog)
        target = target if target.is_absolute() else config.root / target
        if report.changes:
            write_changelog(target, report, args.date)
            print(f"wrote the {report.proposed_version} entry to {target}", file=sys.stderr)
        else:
            print("no schema changes: the changelog is unchanged", file=sys.stderr)
    return ExitCode.STALE if report.fails(fail_on) else ExitCode.OK


def _acknowledge(report: DiffReport, policy: Policy, fail_on: str, config: Config) -> int:
    """``--acknowledge``: append an entry for each unacknowledged change that fails the gate."""
    threshold = FAIL_ON[FAIL_ON_ALIASES.get(fail_on, fail_on)] or FAIL_ON["error"]
    assert threshold is not None
    pending = [
        change
        for change in report.changes
        if change.acknowledged is None and change.effective_level.rank <= threshold.rank
    ]
    target = policy.acknowledgements_file or config.root / "mcp-schema-changes.toml"
    if not pending:
        print(f"nothing to acknowledge: no change fails --fail-on {fail_on}", file=sys.stderr)
        return ExitCode.OK
    write_acknowledgements(target, pending)
    print(
        f"wrote {len(pending)} acknowledgement(s) to {config.relative(target)}; fill in each "
        'reason = "" (an empty reason fails) and commit the file',
        file=sys.stderr,
    )
    return ExitCode.OK
