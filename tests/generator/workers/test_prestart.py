"""Workers started at interpreter start-up: only when a build will need them, handed down as a
``WarmWorkers`` handle (no module state), and never left behind."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_codegen._generator.config import load_config
from mcp_codegen._generator.workers import prestart
from mcp_codegen._generator.workers.pool import InspectSession
from tests.helpers.project import Project, codegen_env

pytestmark = pytest.mark.process  # starts real processes (builds, servers or clients)


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A project directory, and its subdirectory as the working directory."""
    (tmp_path / "pyproject.toml").write_text('[tool.mcp-codegen]\nsources = ["pkg"]\n')
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")  # the project root is found by walking up
    yield tmp_path


@pytest.fixture
def started() -> Iterator[list[prestart.WarmWorkers]]:
    """The handles a test started, stopped afterwards as their owner would."""
    handles: list[prestart.WarmWorkers] = []
    yield handles
    for warm in handles:
        warm.stop()


def _start(started: list[prestart.WarmWorkers], argv: list[str]) -> prestart.WarmWorkers | None:
    warm = prestart.start_early(argv)
    if warm is not None:
        started.append(warm)
    return warm


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["generate"], True),
        (["check", "--no-cache"], True),
        (["export"], False),
        (["diff"], False),
        (["serve"], False),
        (["generate", "--help"], False),
        ([], False),
    ],
)
def test_workers_start_early_only_for_a_build(
    fresh: Path, started: list[prestart.WarmWorkers], argv: list[str], expected: bool
) -> None:
    warm = _start(started, argv)
    assert (warm is not None and bool(warm.workers)) is expected


def test_config_option_names_the_project(
    fresh: Path, started: list[prestart.WarmWorkers], tmp_path_factory: pytest.TempPathFactory
) -> None:
    other = tmp_path_factory.mktemp("other")
    (other / "tools.toml").write_text('[tool.mcp-codegen]\nsources = ["pkg"]\n')
    warm = _start(started, ["--config", str(other / "tools.toml"), "generate"])
    assert warm is not None
    assert warm.take(fresh) == []  # handed out only to a build of its own root
    assert len(warm.workers) == prestart.worker_count()


def test_a_build_cache_means_one_early_worker_unless_no_cache(
    fresh: Path, started: list[prestart.WarmWorkers], monkeypatch: pytest.MonkeyPatch
) -> None:
    """On one core; on more, a cached build starts its scanner alone (test_split_session)."""
    monkeypatch.setattr(prestart, "worker_count", lambda: 1)
    (fresh / ".mcp-codegen-cache" / "entries").mkdir(parents=True)
    warm = _start(started, ["check"])
    assert warm is not None and len(warm.workers) == 1 and warm.scanner is None
    monkeypatch.setattr(prestart, "worker_count", lambda: 3)
    warm = _start(started, ["check", "--no-cache"])
    assert warm is not None and len(warm.workers) == 3 and warm.scanner is None


def test_unused_early_workers_are_stopped_by_their_owner(
    fresh: Path, started: list[prestart.WarmWorkers]
) -> None:
    warm = _start(started, ["generate"])
    assert warm is not None
    processes = [process for process, _ in warm.workers]
    assert processes and all(p.poll() is None for p in processes)
    warm.stop()
    assert all(p.returncode is not None for p in processes)
    assert warm.take(fresh) == []


def test_early_workers_beyond_what_a_build_needs_stop_as_its_session_starts(
    fresh: Path, started: list[prestart.WarmWorkers]
) -> None:
    """A cold build of one module keeps one of the early workers; the others are stopped at
    once, not left to import libcst and pydantic for nothing beside it."""
    (fresh / "pkg").mkdir()
    warm = prestart.WarmWorkers(fresh, cached=False)
    started.append(warm)
    warm.keep(2)
    kept, surplus = (process for process, _ in warm.workers)
    session = InspectSession(
        load_config(fresh / "pyproject.toml"), workers=1, warm=warm, cached=False
    )
    try:
        assert [worker.process for worker in session.workers] == [kept]
        assert surplus.returncode is not None  # stopped and reaped
        assert kept.poll() is None
    finally:
        session.close()
    assert warm.workers == []


def test_generate_adopts_the_early_workers_and_leaves_none(project: Project) -> None:
    project.configure()
    project.write("pkg/__init__.py", "")
    project.write(
        "pkg/tools.py",
        '''
        from mcp_codegen.decorators import tool


        @tool
        def ping(text: str) -> str:
            """Echo."""
            return text
        ''',
    )
    for command in (["generate"], ["check"], ["check", "--no-cache"], ["export"]):
        result = project.run(*command)
        assert result.returncode == 0, result.stderr
        assert _workers_in(project.root) == [], command
    assert (project.root / "generated" / "pkg" / "tools.py").is_file()


def _workers_in(root: Path) -> list[int]:
    """Live ``mcp_codegen._generator.workers.child`` processes whose working directory is ``root``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
            cwd = Path(os.readlink(entry / "cwd"))
        except OSError:
            continue
        if b"mcp_codegen._generator.workers.child" in command and cwd == root.resolve():
            found.append(int(entry.name))
    return found


def test_early_workers_of_a_failed_run_are_stopped(project: Project) -> None:
    project.configure('sources = ["pkg"]\nsourcez = 1\n')  # a configuration error: no build at all
    result = project.run("generate")
    assert result.returncode == 2 and "sourcez" in result.stderr
    assert _workers_in(project.root) == []


def test_the_console_script_starts_them_before_the_commands_import(tmp_path: Path) -> None:
    """``mcp-codegen`` (``mcp_codegen._cli:main``) decides before ``mcp_codegen._cli.commands`` and its
    imports load, as ``python -m mcp_codegen`` does, and once."""
    probe = (
        "import sys\n"
        "from mcp_codegen._generator.workers import prestart\n"
        "seen = []\n"
        "real = prestart.start_early\n"
        "def start_early(argv):\n"
        "    seen.append('mcp_codegen._cli.commands' in sys.modules)\n"
        "    return real(argv)\n"
        "prestart.start_early = start_early\n"
        "from mcp_codegen._cli import main\n"
        "try:\n"
        "    main(['generate', '--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(seen)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=codegen_env(),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[False]"
