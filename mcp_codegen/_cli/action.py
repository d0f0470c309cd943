"""The steps of the GitHub Action (``action.yml``): ``check``, ``diff`` against the PR base, the
job summary, one sticky PR comment, annotations, SARIF, and the label that skips the gate.

Runs as ``python -m mcp_codegen._cli.action`` inside the composite action, and anywhere else with the
same environment: ``GITHUB_EVENT_PATH`` (the event payload), ``GITHUB_STEP_SUMMARY``,
``GITHUB_OUTPUT``, ``GITHUB_REPOSITORY``, ``GITHUB_API_URL``, ``GITHUB_TOKEN``; the inputs arrive
as ``INPUT_*`` variables. Every GitHub API call goes through ``github_api`` (tests stub it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The hidden marker that finds the action's own comment among a PR's comments.
MARKER = "<!-- mcp-codegen-schema-review -->"


def github_api(method: str, url: str, token: str, body: dict[str, Any] | None = None) -> Any:
    """One GitHub REST call; returns the decoded JSON answer (the only network access)."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Accept", "application/vnd.github+json")
    request.add_header("Authorization", f"Bearer {token}")
    request.add_header("X-GitHub-Api-Version", "2022-11-28")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"null")


@dataclass(frozen=True)
class Inputs:
    config: str
    base: str
    fail_on: str
    skip_label: str
    sarif: bool
    comment: bool

    @classmethod
    def from_environment(cls, env: dict[str, str], event: dict[str, Any]) -> Inputs:
        def get(name: str, default: str = "") -> str:
            return env.get(f"INPUT_{name.upper().replace('-', '_')}", default).strip() or default

        pull = event.get("pull_request") or {}
        base = get("base") or (pull.get("base") or {}).get("sha", "")
        return cls(
            config=get("config", "pyproject.toml"),
            base=base,
            fail_on=get("fail-on"),
            skip_label=get("skip-label", "schema-break-approved"),
            sarif=get("sarif", "false").lower() == "true",
            comment=get("comment", "true").lower() == "true",
        )


def _codegen(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcp_codegen", *args], capture_output=True, text=True, check=False
    )


def _append(path: str | None, text: str) -> None:
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(text)


def _labels(event: dict[str, Any]) -> set[str]:
    pull = event.get("pull_request") or {}
    return {label.get("name", "") for label in pull.get("labels") or []}


def upsert_comment(env: dict[str, str], event: dict[str, Any], body: str) -> str:
    """Create the PR's one comment with ``MARKER``, or update it; returns what was done."""
    number = (event.get("pull_request") or {}).get("number")
    repository, token = env.get("GITHUB_REPOSITORY", ""), env.get("GITHUB_TOKEN", "")
    if not number or not repository or not token:
        return "skipped (no pull request, repository or token)"
    api = env.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
    comments = github_api(
        "GET", f"{api}/repos/{repository}/issues/{number}/comments?per_page=100", token
    )
    mine = next((c for c in comments or [] if MARKER in (c.get("body") or "")), None)
    if mine is not None:
        url = f"{api}/repos/{repository}/issues/comments/{mine['id']}"
        github_api("PATCH", url, token, {"body": body})
        return f"updated comment {mine['id']}"
    github_api("POST", f"{api}/repos/{repository}/issues/{number}/comments", token, {"body": body})
    return "created a comment"


def run(env: dict[str, str]) -> int:
    """Every step; returns the job's exit status (0 pass, 1 a failing gate, 2 an error)."""
    event_path = env.get("GITHUB_EVENT_PATH")
    event = json.loads(Path(event_path).read_text(encoding="utf-8")) if event_path else {}
    inputs = Inputs.from_environment(env, event)
    config = ["--config", inputs.config]

    check = _codegen(*config, "check")
    check_ok = check.returncode == 0
    check_line = (
        "✅ `mcp-codegen check`: the generated tree is up to date."
        if check_ok
        else "❌ `mcp-codegen check`: the generated tree is stale; run `mcp-codegen generate` "
        "and commit the result."
    )
    if not inputs.base:
        print("::error title=mcp-codegen::no base revision: run on pull_request or set `base`")
        return 2
    diff_args = ["diff", *config, inputs.base, "HEAD"]
    diff_args += ["--fail-on", inputs.fail_on] if inputs.fail_on else []
    markdown = _codegen(*diff_args, "--format", "markdown")
    if markdown.returncode == 2:
        sys.stderr.write(markdown.stderr)
        print(f"::error title=mcp-codegen diff::{markdown.stderr.strip().splitlines()[-1]}")
        return 2
    annotations = _codegen(*diff_args, "--format", "github")
    sys.stdout.write(annotations.stdout)  # workflow commands: GitHub turns them into annotations
    if inputs.sarif:
        sarif = _codegen(*diff_args, "--format", "sarif")
        Path("mcp-codegen.sarif").write_text(sarif.stdout, encoding="utf-8")
        _append(env.get("GITHUB_OUTPUT"), "sarif-file=mcp-codegen.sarif\n")

    gate_failed = markdown.returncode == 1
    skipped = gate_failed and inputs.skip_label in _labels(event)
    lines = [markdown.stdout.rstrip("\n"), "", check_line]
    if skipped:
        lines.append(
            f"⚠️ The breaking-change gate is skipped: the pull request has the label "
            f"`{inputs.skip_label}`."
        )
    elif gate_failed:
        lines.append(
            "❌ The breaking-change gate failed: acknowledge intended breaks in "
            "`mcp-schema-changes.toml` (`mcp-codegen diff --acknowledge`), or add the label "
            f"`{inputs.skip_label}`."
        )
    report = "\n".join(lines) + "\n"
    _append(env.get("GITHUB_STEP_SUMMARY"), report)
    if inputs.comment:
        done = upsert_comment(env, event, f"{MARKER}\n{report}")
        print(f"mcp-codegen: PR comment: {done}")
    return 1 if not check_ok or (gate_failed and not skipped) else 0


def main() -> int:
    return run(dict(os.environ))


if __name__ == "__main__":
    raise SystemExit(main())
