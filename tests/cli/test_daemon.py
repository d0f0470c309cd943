"""``mcp-codegen daemon`` as a user runs it: real processes and a real socket. Every build the
daemon answers must equal the one the command would have run itself (the oracle: the same
command with ``--no-daemon --no-cache`` on a copy of the project), and the daemon must never
answer a command it cannot build for as that command would."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.processes import alive, children, start_as_a_terminal, still_alive
from tests.helpers.project import REPO, Project, codegen_env, run_codegen

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(sys.platform != "linux", reason="reads /proc and SO_PEERCRED"),
]

TOOL = """
from mcp_codegen.decorators import tool


@tool
def {name}(value: {kind}) -> {kind}:
    return value
"""


@pytest.fixture
def runtime() -> Iterator[Path]:
    """A short ``XDG_RUNTIME_DIR`` of this test's own (a socket path has ~100 bytes at most);
    any daemon still running in it is killed at the end."""
    directory = Path(tempfile.mkdtemp(prefix="mcd", dir="/tmp"))
    yield directory
    for log in directory.glob("mcp-codegen/*.log"):
        for line in log.read_text(errors="replace").splitlines():
            if line.startswith("mcp-codegen daemon ") and ":" in line:
                pid = int(line.split()[2].rstrip(":"))
                if alive(pid):
                    os.killpg(pid, signal.SIGKILL)
    shutil.rmtree(directory, ignore_errors=True)


def _env(runtime: Path, **extra: str) -> dict[str, str]:
    return codegen_env(XDG_RUNTIME_DIR=str(runtime), **extra)


def _log(runtime: Path) -> str:
    (log,) = runtime.glob("mcp-codegen/*.log")
    return log.read_text()


def _answered(runtime: Path) -> int:
    """How many commands the daemon has built for, from its log."""
    return sum(line.startswith("build ") for line in _log(runtime).splitlines())


def _start(project: Project, env: dict[str, str], *options: str) -> int:
    started = project.run("daemon", "start", *options, env=env)
    assert started.returncode == 0, started.stderr
    assert "started for" in started.stdout
    pid = int(started.stdout.split("(pid ")[1].split(")")[0])
    # Answered once the daemon has warmed up (imported what a build imports, checked the
    # project): an edit from here on is the next build's.
    status = project.run("daemon", "status", env=env)
    assert status.returncode == 0 and f"pid {pid} builds" in status.stdout
    return pid


def _cold(project: Project, copy: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The command run in ``copy``, a fresh copy of the project's sources: no daemon, no cache,
    and the generated tree as it stands (``check`` compares against it)."""
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(project.root, copy, ignore=shutil.ignore_patterns(".mcp-codegen-cache"))
    return run_codegen(copy, *args, "--no-daemon", "--no-cache")


@pytest.mark.slow
def test_builds_through_the_daemon_equal_builds_in_process(
    project: Project, runtime: Path, tmp_path: Path
) -> None:
    env, copy = _env(runtime), tmp_path / "cold"
    project.write("pkg/alpha.py", TOOL.format(name="alpha", kind="int"))
    project.write("pkg/beta.py", TOOL.format(name="beta", kind="int"))
    pid = _start(project, env)
    steps = [
        ("a first build", lambda: None),
        (
            "a tool retyped",
            lambda: project.write("pkg/alpha.py", TOOL.format(name="alpha", kind="str")),
        ),
        (
            "a module added",
            lambda: project.write("pkg/gamma.py", TOOL.format(name="gamma", kind="float")),
        ),
        ("a module removed", lambda: (project.root / "pkg" / "beta.py").unlink()),
        ("a file touched", lambda: os.utime(project.root / "pkg" / "alpha.py")),
        (
            "a tool renamed",
            lambda: project.write("pkg/gamma.py", TOOL.format(name="delta", kind="float")),
        ),
    ]
    for number, (step, change) in enumerate(steps, start=1):
        change()
        before = project.snapshot()
        cold = _cold(project, copy, "generate")
        done = project.run("generate", env=env)
        assert (done.returncode, cold.returncode) == (0, 0), (step, done.stderr, cold.stderr)
        assert project.snapshot() == Project(copy).snapshot(), step
        assert _answered(runtime) == number, f"{step}: not built by the daemon: {done.stderr}"
        written = {
            line.split("generated/", 1)[1]
            for line in done.stdout.splitlines()
            if line.startswith("wrote ")
        }
        changed = {name for name, data in project.snapshot().items() if before.get(name) != data}
        assert written == changed, step

    project.write("pkg/alpha.py", TOOL.format(name="alpha", kind="bytes"))  # stale, not generated
    cold = _cold(project, copy, "check")
    done = project.run("check", env=env)
    assert (done.returncode, done.stdout, done.stderr) == (
        cold.returncode,
        cold.stdout,
        cold.stderr,
    )
    assert done.returncode == 1 and "stale" in done.stderr
    assert _answered(runtime) == len(steps) + 1

    project.write("pkg/gamma.py", TOOL.format(name="delta", kind="float") + "\nx = (\n")
    before = project.snapshot()
    cold = _cold(project, copy, "generate")
    done = project.run("generate", env=env)
    assert done.returncode == cold.returncode == 2
    assert done.stderr == cold.stderr and done.stderr.startswith("pkg/gamma.py:")
    assert project.snapshot() == before, "an error touched a generated file"

    usage = project.run("generate", "--frobnicate", env=env)
    assert usage.returncode == 2 and "unrecognized arguments: --frobnicate" in usage.stderr
    assert _answered(runtime) == len(steps) + 3

    workers = children(pid)
    assert workers, "the daemon keeps a worker ready for the next build"
    stopped = project.run("daemon", "stop", env=env)
    assert stopped.returncode == 0 and f"stopped pid {pid}" in stopped.stdout
    assert not still_alive([pid, *workers]), "stop left a process behind"
    assert not list(runtime.glob("mcp-codegen/*.sock"))


def test_a_command_the_daemon_cannot_build_for_builds_itself(
    project: Project, runtime: Path
) -> None:
    project.write("pkg/alpha.py", TOOL.format(name="alpha", kind="int"))
    site = Path(tempfile.mkdtemp(prefix="site", dir=runtime))
    env = _env(runtime, PYTHONPATH=os.pathsep.join([str(REPO), str(site)]))
    pid = _start(project, env)

    other = project.run("generate", env={**env, "SCHEMA_FLAG": "1"})
    assert other.returncode == 0, other.stderr
    assert (
        "the build daemon was not used (environment variable SCHEMA_FLAG is set here, not for "
        "the daemon); building in this process" in other.stderr
    )
    assert "wrote generated/pkg/alpha.py" in other.stdout
    assert _answered(runtime) == 0 and "refused a command" in _log(runtime)

    project.write("pkg/alpha.py", TOOL.format(name="alpha", kind="str"))
    assert project.run("generate", "--no-daemon", env=env).returncode == 0
    assert _answered(runtime) == 0
    project.write("pkg/alpha.py", TOOL.format(name="alpha", kind="float"))
    assert project.run("generate", env=env).returncode == 0
    assert _answered(runtime) == 1

    (site / "somepackage-1.0.dist-info").mkdir()  # `pip install` into a directory on sys.path
    project.write("pkg/alpha.py", TOOL.format(name="alpha", kind="int"))
    changed = project.run("generate", env=env)
    assert changed.returncode == 0, changed.stderr
    assert (
        "(packages were installed, upgraded or removed since it started, so it has stopped)"
        in changed.stderr
    )
    assert '"integer"' in (project.root / "generated" / "pkg" / "alpha.py").read_text()
    assert not still_alive([pid]), "a daemon whose environment changed went on"
    assert not list(runtime.glob("mcp-codegen/*.sock"))


@pytest.mark.slow
def test_signals_idle_and_a_killed_daemon(project: Project, runtime: Path) -> None:
    env = _env(runtime)
    project.write("pkg/alpha.py", TOOL.format(name="alpha", kind="int"))
    pid = _start(project, env)
    assert project.run("generate", env=env).returncode == 0
    time.sleep(0.5)
    workers = children(pid)
    assert workers
    os.kill(pid, signal.SIGTERM)
    assert not still_alive([pid, *workers]), "SIGTERM left a process behind"
    assert not list(runtime.glob("mcp-codegen/*.sock"))

    pid = _start(project, env)
    os.killpg(pid, signal.SIGKILL)  # its own session: the worker goes too
    assert not still_alive([pid])
    assert list(runtime.glob("mcp-codegen/*.sock")), "a killed daemon leaves its socket"
    project.write("pkg/alpha.py", TOOL.format(name="alpha", kind="str"))
    done = project.run("generate", env=env)
    assert done.returncode == 0 and "daemon" not in done.stderr
    assert '"string"' in (project.root / "generated" / "pkg" / "alpha.py").read_text()
    none = project.run("daemon", "status", env=env)
    assert none.returncode == 1 and "none runs for" in none.stdout
    assert project.run("daemon", "stop", env=env).returncode == 0

    pid = _start(project, env, "--idle-timeout", "1")  # replaces the dead daemon's socket
    workers = children(pid)
    assert not still_alive([pid, *workers], within=30), "the idle timeout left a process behind"
    assert "no command for 1 s" in _log(runtime)


def test_a_directory_others_can_reach_is_refused(project: Project, runtime: Path) -> None:
    project.write("pkg/alpha.py", TOOL.format(name="alpha", kind="int"))
    env = _env(runtime)
    (runtime / "mcp-codegen").mkdir(mode=0o755)
    os.chmod(runtime / "mcp-codegen", 0o755)
    refused = project.run("daemon", "start", env=env)
    assert refused.returncode == 2
    assert "other users can reach it (mode 755)" in refused.stderr
    assert f"chmod 700 {runtime / 'mcp-codegen'}" in refused.stderr
    done = project.run("generate", env=env)  # builds here, as without a daemon
    assert done.returncode == 0 and "wrote generated/pkg/alpha.py" in done.stdout

    deep = runtime / ("d" * 60) / ("e" * 40)
    deep.mkdir(parents=True)
    too_long = project.run("daemon", "start", env=_env(deep))
    assert too_long.returncode == 2 and "too long for a socket" in too_long.stderr


@pytest.mark.slow
def test_progress_reaches_the_commands_terminal(project: Project, runtime: Path) -> None:
    """The daemon's progress line shows when the command's stderr is a terminal."""
    import pty

    env = _env(runtime)
    project.write("pkg/alpha.py", TOOL.format(name="alpha", kind="int"))
    _start(project, env)
    project.write(
        "pkg/alpha.py", "import time\ntime.sleep(1.6)\n" + TOOL.format(name="alpha", kind="str")
    )
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "mcp_codegen", "generate"],
            cwd=project.root,
            env=env,
            stdout=subprocess.PIPE,
            stderr=follower,
            text=True,
            timeout=120,
        )
        os.close(follower)
        follower = -1
        seen = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(leader)
        if follower != -1:
            os.close(follower)
    assert done.returncode == 0
    assert _answered(runtime) == 1
    assert b"mcp-codegen: 0/1 modules" in seen or b"mcp-codegen: 1/1 modules" in seen, seen


def test_run_in_the_foreground_stops_on_ctrl_c(project: Project, runtime: Path) -> None:
    env = _env(runtime)
    project.write("pkg/alpha.py", TOOL.format(name="alpha", kind="int"))
    process = start_as_a_terminal(["daemon", "run"], project.root, env)
    try:
        deadline = time.monotonic() + 60
        while not list(runtime.glob("mcp-codegen/*.sock")) and time.monotonic() < deadline:
            time.sleep(0.05)
        status = project.run("daemon", "status", env=env)
        assert status.returncode == 0 and f"pid {process.pid} builds" in status.stdout
        done = project.run("generate", env=env)
        assert done.returncode == 0 and "wrote generated/pkg/alpha.py" in done.stdout
        workers = children(process.pid)
        assert workers, "the daemon keeps a worker ready for the next build"
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=30)
        assert process.returncode == 130
        assert "build 1: generate -> exit 0" in out and "stopped after 1 build(s)" in out
        assert not still_alive(workers), "Ctrl-C left a worker behind"
        assert not list(runtime.glob("mcp-codegen/*.sock"))
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_a_connection_without_a_request_does_not_stop_the_daemon(
    project: Project, runtime: Path
) -> None:
    import socket

    env = _env(runtime)
    project.write("pkg/alpha.py", TOOL.format(name="alpha", kind="int"))
    _start(project, env)
    (path,) = runtime.glob("mcp-codegen/*.sock")
    for garbage in (b"", b"q\x00\x00\x00\x05{not", b"not a frame at all"):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.connect(str(path))
            sock.sendall(garbage)
    done = project.run("generate", env=env)
    assert done.returncode == 0 and "wrote generated/pkg/alpha.py" in done.stdout
    assert _answered(runtime) == 1
    assert _log(runtime).count("ignored a connection that sent no request") == 3
