"""``run_targets`` entries are checked when the config loads: a factory call must have literal
arguments, anything else must be ``module:attribute`` (path:line:col of the key, how to fix)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_codegen._generator.config import load_config
from mcp_codegen._shared.diagnostics import CodegenError


def _load(tmp_path: Path, targets: str) -> CodegenError | None:
    config = tmp_path / "pyproject.toml"
    config.write_text(
        f'[tool.mcp-codegen]\nsources = ["pkg"]\nflavor = "mcp"\nrun_targets = {targets}\n',
        encoding="utf-8",
    )
    try:
        load_config(config)
    except CodegenError as exc:
        return exc
    return None


@pytest.mark.parametrize(
    ("targets", "problem"),
    [
        ('["pkg.server:create(name=NAME)"]', "argument `NAME` is not a literal"),
        ('["pkg.server:create(**options)"]', "* and ** arguments are not allowed"),
        ('["pkg.server"]', "'pkg.server' is not module:object, module:function or"),
        ('["pkg.server:mcp-1"]', "'pkg.server:mcp-1' is not module:object"),
    ],
)
def test_bad_run_target(tmp_path: Path, targets: str, problem: str) -> None:
    error = _load(tmp_path, targets)
    assert error is not None
    (diagnostic,) = error.diagnostics
    assert (diagnostic.line, diagnostic.column) == (4, 1)
    assert diagnostic.path.endswith("pyproject.toml")
    assert problem in diagnostic.message, diagnostic.message


def test_good_run_targets(tmp_path: Path) -> None:
    assert _load(tmp_path, '["pkg.server:mcp", "pkg.cli:main", "pkg.app:build(x=None)"]') is None
