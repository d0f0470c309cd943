"""`python -m mcp_codegen.runtime` argument handling (the serving paths are in the e2e tests)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mcp_codegen.runtime import main
from tests.helpers.servers import server_env
from tests.runtime.runtime_support import REPO_ROOT


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcp_codegen.runtime", *args],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        env=server_env(),
        timeout=60,
        check=False,
    )


@pytest.mark.process
def test_missing_generated_output_is_a_usage_error(tmp_path: Path) -> None:
    completed = _run("--generated", str(tmp_path / "absent"))
    assert completed.returncode == 2
    assert completed.stderr.startswith(f"error: {tmp_path / 'absent'}: no such directory")
    assert completed.stdout == ""  # stdout belongs to the stdio transport


@pytest.mark.process
def test_rejects_a_non_positive_call_timeout() -> None:
    completed = _run("--call-timeout", "0")
    assert completed.returncode == 2
    assert "--call-timeout must be a positive number of seconds" in completed.stderr


def test_main_is_exposed_for_the_mcp_codegen_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))  # main() puts --path entries on sys.path
    assert main(["--generated", str(tmp_path)], prog="mcp-codegen serve") == 2
    assert "manifest not found" in capsys.readouterr().err
