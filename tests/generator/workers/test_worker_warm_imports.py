"""What a worker imports before its settings arrive: a worker kept ready (``prestart``, watch,
the daemon) has its libraries loaded, so a save's build starts with user code, not pydantic.

When the schema modules started importing pydantic where they use it (c82e65c), a kept-ready
worker imported it after the save arrived: watch went from 0.82x to 1.2x the one-module floor
(bench/results/2026-12-05-watch-regression.md).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_codegen._generator.workers.prestart import WORKER_COMMAND, with_package_path

pytestmark = pytest.mark.process

#: imported by the inspection of any tool; each costs its import on the critical path otherwise
INFERENCE = ("pydantic.type_adapter", "pydantic.fields", "pydantic_core", "annotated_types")

#: Runs the worker with ``read_message`` reporting, at its first call (the settings), the
#: modules imported so far. (``-X importtime`` misses pydantic's lazy ``pydantic.TypeAdapter``.)
REPORTING = """
import sys
import mcp_codegen._generator.workers.messages as messages
def reporting(stream):
    print("MODULES", *sorted(sys.modules), file=sys.stderr, flush=True)
    raise SystemExit(0)
messages.read_message = reporting
"""


def _imported_before_settings(role: str, tmp_path: Path) -> set[str]:
    """The modules a worker of ``role`` has imported when it reads its settings."""
    done = subprocess.run(
        [
            sys.executable,
            "-P",
            "-c",
            REPORTING + WORKER_COMMAND,
            "--role",
            role,
            "--cwd",
            str(tmp_path),
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env=with_package_path(dict(os.environ)),
        timeout=120,
        check=False,
    )
    stderr = done.stderr.decode("utf-8", "replace")
    reports = [line.split()[1:] for line in stderr.splitlines() if line.startswith("MODULES ")]
    assert reports, stderr
    return set(reports[0])


@pytest.mark.parametrize("role", ["both", "inspect"])
def test_an_inspecting_worker_imports_pydantic_before_its_settings(
    tmp_path: Path, role: str
) -> None:
    imported = _imported_before_settings(role, tmp_path)
    assert "mcp_codegen._generator.workers.inspecting" in imported
    assert [m for m in INFERENCE if m not in imported] == []


def test_a_scan_worker_never_imports_pydantic(tmp_path: Path) -> None:
    imported = _imported_before_settings("scan", tmp_path)
    assert "libcst" in imported
    assert not [m for m in imported if m.split(".")[0] in ("pydantic", "pydantic_core")]
