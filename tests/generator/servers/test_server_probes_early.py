"""A framework-flavor build starts its two server probes once the scans are in, while the workers
inspect: the probes are taken when the assembled modules are the ones the scans predicted,
probed again when they are not, and stopped when the build fails."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from mcp_codegen._generator.config import load_config
from mcp_codegen._generator.pipeline import BuildResult, _Build, build
from mcp_codegen._generator.workers import pool, server_records
from mcp_codegen._generator.workers.server_records import ServerProbes
from tests.helpers.project import in_process_builds  # noqa: F401 - the fixture, used by name

pytestmark = [pytest.mark.process, pytest.mark.slow, pytest.mark.usefixtures("in_process_builds")]

MODULE = '''
from mcp.server.mcpserver import MCPServer

{server} = MCPServer("{server}", instructions="Always the same.")


@{server}.tool()
def {tool}(count: int = 1) -> int:
    """Counts."""
    return count
'''


def _project(root: Path, *, broken: bool = False) -> Path:
    (root / "pyproject.toml").write_text(
        '[tool.mcp-codegen]\nsources = ["pkg"]\nflavor = "mcp"\n', encoding="utf-8"
    )
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "alpha.py").write_text(MODULE.format(server="alpha", tool="count_alpha"))
    beta = MODULE.format(server="beta", tool="count_beta")
    if broken:  # the scan still finds the tool: the import fails only in the worker
        beta = beta.replace("@beta.tool()", "raise RuntimeError('no beta')\n\n\n@beta.tool()")
    (root / "pkg" / "beta.py").write_text(beta)
    return root / "pyproject.toml"


class _Spy:
    """Every ``ServerProbes`` a build makes, when, and whether it was cancelled."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.made: list[tuple[float, ServerProbes]] = []
        self.cancelled: list[ServerProbes] = []
        self.inspected_at: list[float] = []
        spy = self
        made_by, cancel, wait = ServerProbes.__init__, ServerProbes.cancel, pool.InspectSession.wait

        def made(probes: ServerProbes, *args: Any) -> None:
            made_by(probes, *args)
            spy.made.append((time.monotonic(), probes))

        def cancelled(probes: ServerProbes) -> None:
            spy.cancelled.append(probes)
            cancel(probes)

        def waited(session: pool.InspectSession) -> None:
            wait(session)
            spy.inspected_at.append(time.monotonic())

        monkeypatch.setattr(ServerProbes, "__init__", made)
        monkeypatch.setattr(ServerProbes, "cancel", cancelled)
        monkeypatch.setattr(pool.InspectSession, "wait", waited)


def _files(result: BuildResult) -> dict[str, str]:
    assert not result.errors, result.errors
    return {f.relative_path: f.content for f in result.files}


def _without_early_probes(config_file: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    with monkeypatch.context() as patch:
        patch.setattr(_Build, "start_server_probes", lambda build: None)
        return _files(build(load_config(config_file), use_cache=False))


def test_the_probes_start_before_the_workers_end_and_are_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config_file = _project(tmp_path)
    expected = _without_early_probes(config_file, monkeypatch)
    assert "__servers__.py" in expected
    spy = _Spy(monkeypatch)
    files = _files(build(load_config(config_file), use_cache=False))
    assert files == expected
    assert len(spy.made) == 1 and not spy.cancelled
    (started, probes), [inspected] = spy.made[0], spy.inspected_at
    assert started < inspected
    assert probes.settings["modules"] == ["pkg.alpha", "pkg.beta"]


def test_probes_started_on_a_wrong_prediction_are_cancelled_and_taken_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config_file = _project(tmp_path)
    expected = _without_early_probes(config_file, monkeypatch)

    def mispredicted(self: _Build) -> None:  # as if the scans had missed pkg.beta's tool
        if self.awaiting_scans or self.probes is not None:
            return
        built = [m for m in self.scanned_by.values() if m.module == "pkg.alpha"]
        settings = server_records.probe_settings(self.config, built, ["pkg.alpha"])
        self.probes = ServerProbes(self.config, settings)

    monkeypatch.setattr(_Build, "start_server_probes", mispredicted)
    spy = _Spy(monkeypatch)
    files = _files(build(load_config(config_file), use_cache=False))
    assert files == expected
    assert [probes.settings["modules"] for _, probes in spy.made] == [
        ["pkg.alpha"],
        ["pkg.alpha", "pkg.beta"],
    ]
    wrong = spy.made[0][1]
    assert spy.cancelled == [wrong]
    assert all(p.returncode is not None for p in wrong._processes)


def test_a_failed_build_stops_the_probes_it_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spy = _Spy(monkeypatch)
    result = build(load_config(_project(tmp_path, broken=True)), use_cache=False)
    assert [d.path for d in result.errors] == ["pkg/beta.py"]
    assert "no beta" in result.errors[0].message
    [(_, probes)] = spy.made
    assert spy.cancelled == [probes]
    assert probes._processes and all(p.returncode is not None for p in probes._processes)
