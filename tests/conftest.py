"""Fixtures shared by the whole suite, and the guard that keeps the `process` marker honest."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Generator
from pathlib import Path

import pytest

from tests.helpers.project import Project

#: Audit events that start a process (Python 3.11 audits neither multiprocessing's spawn nor
#: forkserver start; the package starts its workers with ``os.posix_spawn``, which is audited).
SPAWN_EVENTS = frozenset({"subprocess.Popen", "os.posix_spawn", "os.fork", "os.system"})

#: Set to a directory to record, per test, its duration and whether it started a process
#: (one JSON-lines file per xdist worker) instead of failing unmarked tests: how the markers
#: were measured (docs/testing.md).
RECORD_ENV = "MCP_CODEGEN_TEST_RECORD"


class _SpawnWatch:
    """Which test (and which fixture being set up) started a process, from the audit hook.

    Audit hooks cannot be removed, so one is installed per interpreter and reads this state.
    """

    def __init__(self) -> None:
        self.item: pytest.Item | None = None
        self.fixtures: list[tuple[str, str]] = []
        self.spawned: dict[str, set[str]] = {}
        self.spawning_fixtures: set[tuple[str, str]] = set()

    def hook(self, event: str, args: tuple[object, ...]) -> None:
        if event not in SPAWN_EVENTS or self.item is None:
            return
        self.spawned.setdefault(self.item.nodeid, set()).add(event)
        self.spawning_fixtures.update(self.fixtures)


_WATCH = _SpawnWatch()
sys.addaudithook(_WATCH.hook)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    _WATCH.item = item
    try:
        yield
    finally:
        _WATCH.item = None


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef[object]) -> Generator[None, None, None]:
    _WATCH.fixtures.append((fixturedef.baseid, fixturedef.argname))
    try:
        yield
    finally:
        _WATCH.fixtures.pop()


def _needs_process(item: pytest.Item) -> str | None:
    """Why ``item`` must be marked ``process``, or None: it started a process itself, or it
    uses a fixture that started one (a session fixture starts only for the first user)."""
    if item.nodeid in _WATCH.spawned:
        return f"it started a process ({', '.join(sorted(_WATCH.spawned[item.nodeid]))})"
    info = getattr(item, "_fixtureinfo", None)
    used = {
        (fixturedef.baseid, name)
        for name, fixturedefs in (info.name2fixturedefs.items() if info else ())
        for fixturedef in fixturedefs
    }
    fixtures = sorted(name for _, name in _WATCH.spawning_fixtures & used)
    if fixtures:
        return f"its fixture(s) {', '.join(fixtures)} start a process"
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, None, None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    record = os.environ.get(RECORD_ENV)
    if record:
        _record(item, report, Path(record))
        return
    if report.when != "teardown" or item.get_closest_marker("process") is not None:
        return
    reason = _needs_process(item)
    if reason is not None:
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid}: {reason} but is not marked `process`; add "
            "@pytest.mark.process (or the module's pytestmark) as docs/testing.md says"
        )


_DURATIONS: dict[str, float] = {}


def _record(item: pytest.Item, report: pytest.TestReport, directory: Path) -> None:
    _DURATIONS[item.nodeid] = _DURATIONS.get(item.nodeid, 0.0) + report.duration
    if report.when != "teardown":
        return
    directory.mkdir(parents=True, exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    line = {
        "nodeid": item.nodeid,
        "seconds": round(_DURATIONS.pop(item.nodeid), 3),
        "process": _needs_process(item),
        "marks": sorted({mark.name for mark in item.iter_markers()}),
    }
    with (directory / f"{worker}.jsonl").open("a", encoding="utf-8") as file:
        file.write(json.dumps(line) + "\n")


@pytest.fixture
def project(tmp_path: Path) -> Project:
    root = tmp_path / "proj"
    root.mkdir()
    made = Project(root)
    made.write("pkg/__init__.py", "")
    made.configure()
    return made


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """pytest-xdist sends every report to the controller as UTF-8; a lone surrogate in captured
    output or logs (tests/runtime/abuse raises some on purpose) would end the whole run with an
    INTERNALERROR. Such characters are shown escaped instead."""
    report.sections = [
        (title, text.encode("utf-8", "backslashreplace").decode("utf-8"))
        for title, text in report.sections
    ]
