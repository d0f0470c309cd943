"""Workers started at interpreter start-up: only when a build will need them, never left behind."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_codegen._generator.workers import prestart
from tests.helpers.project import Project, codegen_env

pytestmark = pytest.mark.process  # starts real processes (builds, servers or clients)


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A project directory as the working directory, and a prestart module that has not decided."""
    (tmp_path / "pyproject.toml").write_text('[tool.mcp-codegen]\nsources = ["pkg"]\n')
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")  # the project root is found by walking up
    monkeypatch.setattr(prestart, "_decided", False)
    yield tmp_path
    prestart.discard()


def _started(root: Path) -> list[object]:
    return list(prestart._started.get(str(root.resolve()), []))


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
def test_workers_start_early_only_for_a_build(fresh: Path, argv: list[str], expected: bool) -> None:
    prestart.start_early(argv)
    assert bool(_started(fresh)) is expected


def test_config_option_names_the_project(
    fresh: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    other = tmp_path_factory.mktemp("other")
    (other / "tools.toml").write_text('[tool.mcp-codegen]\nsources = ["pkg"]\n')
    prestart.start_early(["--config", str(other / "tools.toml"), "generate"])
    assert _started(fresh) == []
    assert len(_started(other)) == prestart.worker_count()


def test_a_build_cache_means_one_early_worker_unless_no_cache(
    fresh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On one core; on more, a cached build starts its scanner alone (test_split_session)."""
    monkeypatch.setattr(prestart, "worker_count", lambda: 1)
    (fresh / ".mcp-codegen-cache" / "entries").mkdir(parents=True)
    prestart.start_early(["check"])
    assert len(_started(fresh)) == 1 and prestart.take_scanner(fresh) is None
    prestart.discard()
    monkeypatch.setattr(prestart, "worker_count", lambda: 3)
    prestart._decided = False
    prestart.start_early(["check", "--no-cache"])
    assert len(_started(fresh)) == 3 and prestart.take_scanner(fresh) is None


def test_unused_early_workers_are_stopped(fresh: Path) -> None:
    prestart.start_early(["generate"])
    processes = [process for process, _ in _started(fresh)]  # type: ignore[misc]
    assert processes and all(p.poll() is None for p in processes)
    prestart.discard()
    assert all(p.returncode is not None for p in processes)
    assert prestart.take(fresh) == []


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
    imports load, as ``python -m mcp_codegen`` does."""
    probe = (
        "import sys\n"
        "from mcp_codegen._generator.workers import prestart\n"
        "seen = []\n"
        "real = prestart.start_early\n"
        "def start_early(argv):\n"
        "    seen.append('mcp_codegen._cli.commands' in sys.modules)\n"
        "    real(argv)\n"
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
    assert done.stdout.splitlines()[-1] == "[False, True]"  # then commands.main's no-op
