"""Progress on stderr: on a terminal after a second of work, never otherwise or with --quiet."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys

import pytest

from tests.helpers.project import Project, codegen_env

SLOW = """
import time

from mcp_codegen.decorators import tool

time.sleep(2.5)


@tool
def {name}(value: int) -> int:
    return value
"""


def _run_on_a_terminal(project: Project, *args: str) -> tuple[int, str]:
    """Run with stderr on a pseudo-terminal; returns the exit code and what the terminal got."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "mcp_codegen", *args],
        cwd=project.root,
        env=codegen_env(),
        stdout=subprocess.DEVNULL,
        stderr=follower,
    )
    os.close(follower)
    received = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed: the process has ended
            break
        if not chunk:
            break
        received += chunk
    os.close(leader)
    return process.wait(timeout=60), received.decode("utf-8", "replace")


@pytest.fixture
def slow_project(project: Project) -> Project:
    project.write("pkg/slow.py", SLOW.format(name="slow"))
    project.write("pkg/quick.py", SLOW.format(name="quick").replace("time.sleep(2.5)", ""))
    return project


@pytest.mark.slow
@pytest.mark.process
def test_progress_shows_on_a_terminal_after_a_second(slow_project: Project) -> None:
    code, terminal = _run_on_a_terminal(slow_project, "generate", "--no-cache")
    assert code == 0, terminal
    lines = [part for part in terminal.split("\r") if "modules" in part]
    assert lines, terminal
    assert any("/2 modules" in line and " tools, " in line for line in lines), lines
    assert terminal.rstrip("\n").endswith("\x1b[K") or "\r\x1b[K" in terminal  # cleared at the end


@pytest.mark.slow
@pytest.mark.process
def test_no_progress_with_quiet_or_without_a_terminal(slow_project: Project) -> None:
    code, terminal = _run_on_a_terminal(slow_project, "generate", "--no-cache", "--quiet")
    assert code == 0, terminal
    assert "modules," not in terminal
    done = slow_project.run("check", "--no-cache")
    assert done.returncode == 0, done.stderr
    assert "modules," not in done.stderr and "\r" not in done.stderr
