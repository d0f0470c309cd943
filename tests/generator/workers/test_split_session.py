"""Split sessions: a ``scan`` worker beside ``inspect`` workers (``InspectSession``, ``start_split``).

A cached build starts a scanner (libcst only) first, and an inspecting worker (pydantic, user
code, never libcst) when it knows what to redo, so the two imports run at once. These tests prove that such builds give the
same output as cold builds for random edit sequences, that the inspecting worker really never
imports libcst, that a lost scanner costs only the module it was on, and that ``generate`` with
a cache starts and stops them.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_codegen._generator.config import load_config
from mcp_codegen._generator.pipeline import build
from mcp_codegen._generator.workers import prestart
from tests.generator.cache.cache_support import STEPS, State, apply_step, write_state
from tests.helpers.project import in_process_builds  # noqa: F401 - the fixture, used by name

pytestmark = [
    pytest.mark.process,  # starts real processes (builds, servers or clients)
    pytest.mark.usefixtures("in_process_builds"),
]

TOOL = '''
import sys

from mcp_codegen.decorators import tool


@tool
def {name}(flag: bool = "libcst" in sys.modules) -> bool:
    """Says whether libcst was imported in the process that imported this module."""
    return flag
'''


def _project(root: Path, modules: int) -> Path:
    (root / "pyproject.toml").write_text('[tool.mcp-codegen]\nsources = ["pkg"]\n')
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    for index in range(modules):
        (root / "pkg" / f"m{index}.py").write_text(TOOL.format(name=f"probe_{index}"))
    return root


def _build(root: Path, *, split: bool, use_cache: bool = True) -> tuple[object, ...]:
    warm = prestart.start_split(root) if split else None
    result = build(load_config(root / "pyproject.toml"), use_cache=use_cache, warm=warm)
    if warm is not None:
        warm.stop()  # a build that needed no worker leaves the scanner unused
    files = tuple((f.relative_path, f.content) for f in result.files)
    errors = tuple(str(d) for d in result.diagnostics if "cache entry" not in d.message)
    return files, errors


def test_the_inspect_worker_never_imports_libcst(tmp_path: Path) -> None:
    root = _project(tmp_path, 1)
    files, errors = _build(root, split=False, use_cache=False)
    assert errors == ()
    plain = dict(files)["pkg/m0.py"]  # type: ignore[arg-type]
    assert '"default": True' in plain  # one worker scanned, so libcst was loaded there
    _build(root, split=False)  # fill the cache
    (root / "pkg" / "m0.py").write_text(TOOL.format(name="probe_0") + "# edited\n")
    files, errors = _build(root, split=True)
    assert errors == ()
    split = dict(files)["pkg/m0.py"]  # type: ignore[arg-type]
    assert '"default": False' in split
    cold, _ = _build(root, split=False, use_cache=False)
    assert split.replace('"default": False', '"default": True') == dict(cold)["pkg/m0.py"]  # type: ignore[arg-type]


def test_a_lost_scanner_costs_only_its_module(tmp_path: Path) -> None:
    root = _project(tmp_path, 4)
    warm = prestart.start_split(root)
    assert warm is not None and warm.scanner is not None
    process, _ = warm.scanner
    process.kill()
    process.wait()
    result = build(load_config(root / "pyproject.toml"), use_cache=True, warm=warm)
    warm.stop()
    errors = [d for d in result.diagnostics if d.severity == "error"]
    assert len(errors) == 1, errors
    assert "ended the generator's scanner process" in errors[0].message
    assert errors[0].path.startswith("pkg/m") and (errors[0].line, errors[0].column) == (1, 1)
    # The other three were scanned by a new scanner and inspected.
    result = build(load_config(root / "pyproject.toml"), use_cache=False)
    assert not result.errors and result.tool_count == 4


def test_generate_with_a_cache_starts_the_scanner_alone(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The scanner first and alone; the inspect workers start with the build's session."""
    root = _project(tmp_path, 1)
    (root / ".mcp-codegen-cache" / "entries").mkdir(parents=True)
    monkeypatch.chdir(root)
    monkeypatch.setattr(prestart, "worker_count", lambda: 2)
    warm = prestart.start_early(["generate"])
    assert warm is not None and warm.scanner is not None
    (scanner, _) = warm.scanner
    assert scanner.args[scanner.args.index("--role") + 1] == "scan"
    assert warm.take(root) == []
    warm.stop()
    assert scanner.returncode is not None
    monkeypatch.setattr(prestart, "worker_count", lambda: 1)  # one core: no scanner
    warm = prestart.start_early(["generate"])
    assert warm is not None and warm.take_scanner(root) is None
    ((worker, _),) = warm.workers
    assert worker.args[worker.args.index("--role") + 1] == "both"
    warm.stop()
    assert worker.returncode is not None


def test_cached_modules_are_taken_once_the_scans_are_in(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """On two cores the scanner and the inspect worker have them to themselves: this process
    takes the unchanged modules from the cache while the edited one is inspected."""
    from mcp_codegen._generator.cache.store import BuildCache
    from mcp_codegen._generator.workers.pool import InspectSession

    root = _project(tmp_path, 3)
    _build(root, split=False)  # fill the cache
    (root / "pkg" / "m1.py").write_text(TOOL.format(name="probe_1") + "# edited\n")
    sessions: list[InspectSession] = []
    scans_in_at_each_hit: list[bool] = []
    real_wait, real_load = InspectSession.wait_for_scans, BuildCache.load_rendered

    def wait_for_scans(self: InspectSession) -> None:
        sessions.append(self)
        real_wait(self)

    def load_rendered(self: BuildCache, *args: object, **kwargs: object) -> object:
        scanner = sessions[-1].scanner if sessions else None
        scans_in_at_each_hit.append(scanner is not None and scanner.finished)
        return real_load(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(InspectSession, "wait_for_scans", wait_for_scans)
    monkeypatch.setattr(BuildCache, "load_rendered", load_rendered)
    files, errors = _build(root, split=True)
    assert errors == ()
    assert len(sessions) == 1 and sessions[0].scanner is not None  # a split session
    assert scans_in_at_each_hit == [True, True]  # m0 and m2, after m1's scan was in
    cold, _ = _build(root, split=False, use_cache=False)
    # The edited module's default says libcst was not imported where it was inspected.
    assert [
        (path, text.replace('"default": False', '"default": True')) for path, text in files
    ] == list(cold)  # type: ignore[misc]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("split")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    return root


@pytest.mark.slow
@settings(
    max_examples=int(os.environ.get("INCREMENTAL_EXAMPLES", "4")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(STEPS, min_size=1, max_size=4))
def test_split_builds_equal_cold_builds(workspace: Path, steps: list[tuple[str, int, int]]) -> None:
    state = State.start()
    write_state(workspace, state)
    _build(workspace, split=True)  # whatever the cache held from the last example
    for step in steps:
        apply_step(workspace, state, step)
        assert _build(workspace, split=True) == _build(workspace, split=False, use_cache=False), (
            f"after {step}"
        )
