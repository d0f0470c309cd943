"""Workers started with ``os.posix_spawn`` (``mcp_codegen._generator.workers.process``): pipes, stderr,
exit codes, and the working directory they enter (``--cwd``) with nothing of the generator's own
directory on their ``sys.path``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mcp_codegen._generator.config import load_config
from mcp_codegen._generator.pipeline import build
from mcp_codegen._generator.workers.process import WorkerProcess, scratch_file
from tests.helpers.project import codegen_env

pytestmark = pytest.mark.process  # starts real processes (builds, servers or clients)

ECHO = "import sys; data = sys.stdin.buffer.read(); sys.stdout.buffer.write(data[::-1]); print('err', file=sys.stderr); sys.exit(3)"


def test_pipes_stderr_and_exit_code() -> None:
    stderr = scratch_file()
    process = WorkerProcess([sys.executable, "-c", ECHO], dict(os.environ), stderr)
    process.stdin.write(b"abc")
    process.stdin.close()
    assert process.stdout.read() == b"cba"
    assert process.wait() == 3 and process.poll() == 3 and process.returncode == 3
    stderr.seek(0)
    assert stderr.read() == b"err\n"
    stderr.close()


def test_kill_ends_it_and_is_harmless_once_it_was_waited_for() -> None:
    stderr = scratch_file()
    process = WorkerProcess(
        [sys.executable, "-c", "import time; time.sleep(60)"], dict(os.environ), stderr
    )
    assert process.poll() is None
    process.kill()
    assert process.wait() == -9
    process.kill()  # reaped: its pid is not signalled again
    assert process.returncode == -9
    stderr.close()


def test_a_generator_started_without_stdin_and_stdout(tmp_path: Path) -> None:
    """``os.pipe`` then returns 0 and 1; the child must still get its pipes as stdin and stdout."""
    script = textwrap.dedent(
        f"""
        import os, sys
        os.close(0)
        os.close(1)
        from mcp_codegen._generator.workers.process import WorkerProcess, scratch_file
        process = WorkerProcess([sys.executable, "-c", {ECHO!r}], dict(os.environ), scratch_file())
        process.stdin.write(b"xyz")
        process.stdin.close()
        os.write(2, process.stdout.read() + b" %d" % process.wait())
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, env=codegen_env(), check=True
    )
    assert done.stderr == b"zyx 3"


PROBE = '''
import os
import sys

from mcp_codegen.decorators import tool

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


@tool
def where(
    cwd_is_root: bool = os.path.realpath(os.getcwd()) == ROOT,
    first_is_root: bool = os.path.realpath(sys.path[0]) == ROOT,
) -> bool:
    """Where the worker ran."""
    return cwd_is_root
'''


def test_a_worker_enters_the_project_whatever_the_generator_s_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker's working directory and ``sys.path[0]`` are the project root, as ``python -m``
    started there; a ``mcp_codegen`` package in the generator's own directory is never imported."""
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.mcp-codegen]\nsources = ["pkg"]\n')
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "probe.py").write_text(PROBE)
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "mcp_codegen").mkdir(parents=True)
    (elsewhere / "mcp_codegen" / "__init__.py").write_text(
        "raise SystemExit('the wrong codegen')\n"
    )
    for name, value in codegen_env(PYTHONDONTWRITEBYTECODE="1").items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(elsewhere)
    result = build(load_config(root / "pyproject.toml"), use_cache=False)
    assert not result.errors, result.diagnostics
    (module,) = [f for f in result.files if f.relative_path == "pkg/probe.py"]
    assert module.content.count('"default": True') == 2, module.content


def test_descriptors_the_generator_inherited_are_not_passed_on(tmp_path: Path) -> None:
    """Like ``subprocess``'s ``close_fds``: a worker gets only its stdin, stdout and stderr."""
    script = textwrap.dedent(
        """
        import os, sys
        from mcp_codegen._generator.workers.process import WorkerProcess, scratch_file
        read_end, write_end = os.pipe()
        os.set_inheritable(write_end, True)  # as if inherited from the generator's caller
        probe = "import json, os; print(json.dumps([int(n) for n in os.listdir('/proc/self/fd')]))"
        process = WorkerProcess([sys.executable, "-c", probe], dict(os.environ), scratch_file())
        process.stdin.close()
        os.write(2, process.stdout.read() + b"%d" % write_end)
        process.wait()
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, env=codegen_env(), check=True
    )
    listing, inherited = done.stderr.decode().rsplit("\n", 1)
    assert int(inherited) > 2
    assert int(inherited) not in json.loads(listing)
    assert {0, 1, 2} <= set(json.loads(listing))
