"""Throw-away projects driven through the real ``mcp-codegen`` command line, and the
environment that makes this checkout importable in a child process."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

#: The repository root (tests/helpers/project.py is two levels below it).
REPO = Path(__file__).resolve().parents[2]


def codegen_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    env.update(extra)
    return env


@pytest.fixture
def in_process_builds(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """For tests that call ``build()`` in the test process: the environment its workers need
    (a build stops the workers it started; early ones are stopped by whoever started them)."""
    for name, value in codegen_env(PYTHONDONTWRITEBYTECODE="1").items():
        monkeypatch.setenv(name, value)
    yield


def run_codegen(
    cwd: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m mcp_codegen ARGS`` in ``cwd`` and capture its output."""
    return subprocess.run(
        [sys.executable, "-m", "mcp_codegen", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env or codegen_env(),
        timeout=timeout,
    )


@dataclass
class Project:
    """A temporary project with a ``pyproject.toml`` and tool sources."""

    root: Path

    def write(self, relative: str, text: str) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    def configure(self, body: str = 'sources = ["pkg"]\n') -> None:
        self.write("pyproject.toml", "[tool.mcp-codegen]\n" + textwrap.dedent(body))

    def run(self, *args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
        return run_codegen(self.root, *args, **kwargs)  # type: ignore[arg-type]

    def snapshot(self) -> dict[str, bytes]:
        """Every file under generated/, for proving that nothing was touched."""
        out = self.root / "generated"
        if not out.exists():
            return {}
        return {
            p.relative_to(out).as_posix(): p.read_bytes()
            for p in sorted(out.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts
        }
