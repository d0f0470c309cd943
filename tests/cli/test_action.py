"""The GitHub Action's steps, run outside GitHub: a recorded pull_request event, ``GITHUB_*``
variables pointing at temp files, and the one API function stubbed."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from mcp_codegen._cli import action
from tests.helpers.project import Project

FIXTURES = Path(__file__).parent / "fixtures"
BASE_SOURCE = '''
from typing import Literal

from mcp_codegen.decorators import tool


@tool
def search(query: str, genre: Literal["fiction", "poetry"] = "fiction") -> list[str]:
    """Search the catalogue."""
    return []
'''
HEAD_SOURCE = (
    BASE_SOURCE.replace(', "poetry"', "")
    + '''

@tool
def recommend(isbn: str) -> list[str]:
    """Books like this one."""
    return []
'''
)


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", *args],
        cwd=repo, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout.strip()


@pytest.fixture
def pull_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A repository whose ``feature`` branch breaks ``search``; the env of the action's step."""
    repo = tmp_path / "repo"
    project = Project(repo)
    project.configure()
    project.write("pkg/__init__.py", "")
    project.write("pkg/tools.py", BASE_SOURCE)
    git(repo.parent, "init", "-q", "-b", "main", str(repo))
    for branch, source in (("main", BASE_SOURCE), ("feature", HEAD_SOURCE)):
        if branch == "feature":
            git(repo, "checkout", "-q", "-b", "feature")
        project.write("pkg/tools.py", source)
        assert project.run("generate").returncode == 0
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", branch)
    event = (FIXTURES / "pull_request_event.json").read_text()
    event = event.replace("BASE_SHA", git(repo, "rev-parse", "main"))
    event = event.replace("HEAD_SHA", git(repo, "rev-parse", "feature"))
    (tmp_path / "event.json").write_text(event)
    for name in ("summary.md", "output.txt"):
        (tmp_path / name).write_text("")
    monkeypatch.chdir(repo)
    return {
        "GITHUB_EVENT_PATH": str(tmp_path / "event.json"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "GITHUB_OUTPUT": str(tmp_path / "output.txt"),
        "GITHUB_REPOSITORY": "acme/shop",
        "GITHUB_API_URL": "https://api.github.test",
        "GITHUB_TOKEN": "token-for-tests",
        "INPUT_SARIF": "true",
    }


class FakeGitHub:
    """Records calls; answers the comment listing with ``existing``."""

    def __init__(self, existing: list[dict[str, Any]]) -> None:
        self.existing = existing
        self.calls: list[tuple[str, str, dict[str, Any] | None]] = []

    def __call__(self, method: str, url: str, token: str, body: Any = None) -> Any:
        assert token == "token-for-tests"
        self.calls.append((method, url, body))
        return self.existing if method == "GET" else {"id": 99}


@pytest.mark.slow
@pytest.mark.process
def test_action_reports_comments_and_fails_on_a_break(
    pull_request: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    fake = FakeGitHub(existing=[{"id": 5, "body": "an unrelated comment"}])
    monkeypatch.setattr(action, "github_api", fake)
    assert action.run(pull_request) == 1
    out = capsys.readouterr().out
    summary = Path(pull_request["GITHUB_STEP_SUMMARY"]).read_text()
    assert "### MCP tool schema changes:" in summary
    assert "no longer accepts" in summary and "up to date" in summary
    assert "The breaking-change gate failed" in summary
    assert [(m, u) for m, u, _ in fake.calls] == [
        ("GET", "https://api.github.test/repos/acme/shop/issues/42/comments?per_page=100"),
        ("POST", "https://api.github.test/repos/acme/shop/issues/42/comments"),
    ]
    body = fake.calls[1][2]["body"]
    assert body.startswith(action.MARKER + "\n") and body.endswith(summary)
    assert "::error file=pkg/tools.py,line=7,title=MCP schema input-enum-value-removed::" in out
    assert Path(pull_request["GITHUB_OUTPUT"]).read_text() == "sarif-file=mcp-codegen.sarif\n"
    assert json.loads(Path("mcp-codegen.sarif").read_text())["version"] == "2.1.0"

    # Rerun: the comment with the marker is updated, not duplicated.
    fake = FakeGitHub(existing=[{"id": 5, "body": "x"}, {"id": 77, "body": body}])
    monkeypatch.setattr(action, "github_api", fake)
    assert action.run(pull_request) == 1
    assert [(m, u) for m, u, _ in fake.calls][1] == (
        "PATCH",
        "https://api.github.test/repos/acme/shop/issues/comments/77",
    )


@pytest.mark.process
def test_label_skips_the_gate(
    pull_request: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    event_path = Path(pull_request["GITHUB_EVENT_PATH"])
    event = json.loads(event_path.read_text())
    event["pull_request"]["labels"].append({"name": "schema-break-approved"})
    event_path.write_text(json.dumps(event))
    monkeypatch.setattr(action, "github_api", FakeGitHub(existing=[]))
    assert action.run({**pull_request, "INPUT_COMMENT": "false", "INPUT_SARIF": "false"}) == 0
    summary = Path(pull_request["GITHUB_STEP_SUMMARY"]).read_text()
    assert "gate is skipped: the pull request has the label `schema-break-approved`" in summary
    assert Path(pull_request["GITHUB_OUTPUT"]).read_text() == ""
