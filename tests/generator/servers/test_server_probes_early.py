"""A framework-flavor build starts its two server probes with its workers when they leave a core
idle (the probes import the SDK while the scans run), else once the scans are in, and tells them
what to import then, while the workers inspect: the probes are taken when the assembled modules are the ones the scans predicted,
probed again when they are not, and stopped when the build fails."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from mcp_codegen._generator import pipeline
from mcp_codegen._generator.config import load_config
from mcp_codegen._generator.pipeline import BuildResult, _Build, build
from mcp_codegen._generator.workers import pool, server_records
from mcp_codegen._generator.workers.server_records import ServerProbes
from tests.helpers.project import codegen_env, in_process_builds  # noqa: F401 - the fixture, used by name

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
        self.sent: list[tuple[float, ServerProbes]] = []
        self.cancelled: list[ServerProbes] = []
        self.inspected_at: list[float] = []
        spy = self
        made_by, send, cancel = ServerProbes.__init__, ServerProbes.send, ServerProbes.cancel
        wait = pool.InspectSession.wait

        def made(probes: ServerProbes, *args: Any) -> None:
            made_by(probes, *args)
            spy.made.append((time.monotonic(), probes))

        def sent(probes: ServerProbes, settings: dict[str, Any]) -> None:
            send(probes, settings)
            spy.sent.append((time.monotonic(), probes))

        def cancelled(probes: ServerProbes) -> None:
            spy.cancelled.append(probes)
            cancel(probes)

        def waited(session: pool.InspectSession) -> None:
            wait(session)
            spy.inspected_at.append(time.monotonic())

        monkeypatch.setattr(ServerProbes, "__init__", made)
        monkeypatch.setattr(ServerProbes, "send", sent)
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
    (started, probes), [(sent, told)], [inspected] = spy.made[0], spy.sent, spy.inspected_at
    assert told is probes and started <= sent < inspected
    assert probes.settings is not None
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
    assert [probes.settings["modules"] for _, probes in spy.made] == [  # type: ignore[index]
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


def test_a_build_of_fewer_modules_than_cores_starts_them_before_the_scans(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One module to build on two cores: the probes start with the worker (importing the SDK
    on the idle core) and are told what to import when its scan arrives; the files are the
    same. With a module per core they start once the scans are in (the test above)."""
    config_file = tmp_path / "pyproject.toml"
    config_file.write_text('[tool.mcp-codegen]\nsources = ["alpha.py"]\nflavor = "mcp"\n')
    (tmp_path / "alpha.py").write_text(MODULE.format(server="alpha", tool="count_alpha"))
    expected = _without_early_probes(config_file, monkeypatch)
    monkeypatch.setattr(pipeline, "worker_count", lambda: 2)
    scanned_at: list[float] = []
    record_scan = _Build.record_scan

    def recorded(self: _Build, module: Any) -> None:
        scanned_at.append(time.monotonic())
        record_scan(self, module)

    monkeypatch.setattr(_Build, "record_scan", recorded)
    spy = _Spy(monkeypatch)
    assert _files(build(load_config(config_file), use_cache=False)) == expected
    [(made, probes)], [(sent, _)] = spy.made, spy.sent
    assert made < scanned_at[0] <= sent < spy.inspected_at[0]
    assert probes.settings is not None and probes.settings["modules"] == ["alpha"]
    assert not spy.cancelled


def test_probes_cancelled_before_their_settings_are_stopped_and_reaped(tmp_path: Path) -> None:
    """A build that ends before its scans are in cancels probes that were never told what to
    import: no thread waits on them, so ``cancel`` itself stops them."""
    probes = ServerProbes(load_config(_project(tmp_path)))
    assert probes.settings is None and len(probes._processes) == 2
    probes.cancel()
    assert all(p.returncode is not None for p in probes._processes)
    assert all(p.stdin is not None and p.stdin.closed for p in probes._processes)


_SDK_FIRST = """
import sys
from mcp_codegen._generator.flavors.servers import import_the_sdk
import_the_sdk()
print("mcp" in sys.modules)
"""


@pytest.mark.parametrize(
    ("own", "imported"), [(None, "True"), ("mcp.py", "False"), ("mcp", "False")]
)
def test_the_probe_imports_the_sdk_first_unless_the_project_has_its_own_mcp(
    tmp_path: Path, own: str | None, imported: str
) -> None:
    """A project's own ``mcp`` module or package in the probe's working directory is user
    code: never imported before the probe's settings arrive."""
    if own == "mcp.py":
        (tmp_path / own).write_text("raise SystemExit('imported too early')\n")
    elif own == "mcp":
        (tmp_path / own).mkdir()
        (tmp_path / own / "__init__.py").write_text("raise SystemExit('imported too early')\n")
    shown = subprocess.run(
        [sys.executable, "-c", _SDK_FIRST],
        cwd=tmp_path,
        env=codegen_env(),
        capture_output=True,
        text=True,
    )
    assert (shown.returncode, shown.stdout.strip()) == (0, imported), shown.stderr
