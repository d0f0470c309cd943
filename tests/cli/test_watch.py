"""``mcp-codegen watch`` as a user runs it: a real process, real file events, Ctrl-C."""

from __future__ import annotations

import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.helpers.processes import children, start_as_a_terminal, still_alive
from tests.helpers.project import Project, codegen_env, in_process_builds  # noqa: F401 - fixture

TOOL = """
from mcp_codegen.decorators import tool


@tool
def {name}(value: {kind}) -> {kind}:
    return value
"""


class Lines:
    def __init__(self, stream) -> None:  # type: ignore[no-untyped-def]
        self.queue: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream) -> None:  # type: ignore[no-untyped-def]
        for line in stream:
            self.queue.put(line)

    def drained(self) -> list[str]:
        found = []
        while not self.queue.empty():
            found.append(self.queue.get())
        return found

    def wait_for(self, text: str, timeout: float = 120) -> str:
        end = time.monotonic() + timeout
        seen = []
        while time.monotonic() < end:
            try:
                line = self.queue.get(timeout=0.5)
            except queue.Empty:
                continue
            seen.append(line)
            if text in line:
                return line
        raise AssertionError(f"no line with {text!r} in {seen}; other stream: {self.other()}")

    def other(self) -> list[str]:
        return []


def _start_watch(project: Project) -> subprocess.Popen[str]:
    """``mcp-codegen watch`` as a terminal starts it."""
    return start_as_a_terminal(["watch"], project.root, codegen_env())


@pytest.mark.slow
@pytest.mark.process
def test_watch_rebuilds_reports_errors_and_leaves_no_worker_on_ctrl_c(project: Project) -> None:
    if sys.platform != "linux":
        pytest.skip("reads /proc")
    project.write("pkg/alpha.py", TOOL.format(name="alpha", kind="int"))
    project.write("pkg/beta.py", TOOL.format(name="beta", kind="int"))
    process = _start_watch(project)
    try:
        out, err = Lines(process.stdout), Lines(process.stderr)
        out.other = lambda: [*err.drained(), f"exit code {process.poll()}"]  # type: ignore[method-assign]
        first = out.wait_for("tool(s) changed")
        assert "2 tool(s) changed" in first and "3 file(s) written" in first
        out.wait_for("watching")  # printed once the watch is set up: saves from here on are seen
        generated = project.root / "generated" / "pkg" / "alpha.py"
        assert '"integer"' in generated.read_text()

        project.write("pkg/alpha.py", TOOL.format(name="alpha", kind="str"))
        line = out.wait_for("tool(s) changed")
        assert "1 tool(s) changed, 1 file(s) written" in line and "pkg/alpha.py" in line
        assert '"string"' in generated.read_text()

        project.write("pkg/beta.py", TOOL.format(name="beta", kind="int") + "\nx = (\n")
        assert "error(s); nothing written" in out.wait_for("error(s)")
        assert err.wait_for("pkg/beta.py:").startswith("pkg/beta.py:")

        project.write("pkg/beta.py", TOOL.format(name="beta", kind="float"))  # watching went on
        assert "1 tool(s) changed" in out.wait_for("tool(s) changed")
        assert '"number"' in (project.root / "generated" / "pkg" / "beta.py").read_text()

        time.sleep(1.0)  # the next worker is started after the line is printed
        workers = children(process.pid)
        assert workers, "a worker is kept ready for the next rebuild"
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) in (0, 130)
        assert not still_alive(workers), "Ctrl-C left a worker behind"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.process
def test_sigterm_stops_watch_and_leaves_no_worker(project: Project) -> None:
    if sys.platform != "linux":
        pytest.skip("reads /proc")
    project.write("pkg/alpha.py", TOOL.format(name="alpha", kind="int"))
    process = _start_watch(project)
    try:
        out, err = Lines(process.stdout), Lines(process.stderr)
        out.other = lambda: [*err.drained(), f"exit code {process.poll()}"]  # type: ignore[method-assign]
        out.wait_for("watching")
        deadline = time.monotonic() + 30
        while not (workers := children(process.pid)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert workers, "a worker is kept ready for the next rebuild"
        process.terminate()
        assert process.wait(timeout=30) == 143  # 128 + SIGTERM, as a shell reports it
        assert not still_alive(workers), "SIGTERM left a worker behind"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


THREE_TOOLS = "\n".join(TOOL.format(name=name, kind="int") for name in ("alpha", "beta", "gamma"))


@pytest.mark.slow
@pytest.mark.usefixtures("in_process_builds")
@pytest.mark.process
def test_watch_counts_the_tools_that_changed_not_the_tools_of_the_module(project: Project) -> None:
    """One tool of a three-tool module edited: one tool changed, whether the watcher built the
    module before the edit or found it generated when it started, and however many lines the
    other tools moved by."""
    import io

    from mcp_codegen._cli.watch import Watcher

    source = project.root / "pkg" / "three.py"
    source.write_text(THREE_TOOLS)
    lines = io.StringIO()
    watcher = Watcher(project.root / "pyproject.toml", stream=lines)
    watcher.rebuild()
    # beta's type changes and it grows a line: gamma moves down but is the same tool
    beta = THREE_TOOLS.replace(
        "def beta(value: int) -> int:", "def beta(value: str) -> str:\n    # now text"
    )
    source.write_text(beta)
    watcher.rebuild()
    # a new watch, generated/ as the last rebuild left it: only gamma changes
    source.write_text(
        beta.replace("def gamma(value: int) -> int", "def gamma(value: bytes) -> bytes")
    )
    Watcher(project.root / "pyproject.toml", stream=lines).rebuild()
    said = [line.split(" (")[0] for line in lines.getvalue().splitlines()]
    assert said == [
        "mcp-codegen watch: 3 tool(s) changed, 2 file(s) written, 0 removed",  # + __init__.py
        "mcp-codegen watch: 1 tool(s) changed, 1 file(s) written, 0 removed",
        "mcp-codegen watch: 1 tool(s) changed, 1 file(s) written, 0 removed",
    ]


def _cache_entries(project: Project) -> list[Path]:
    return sorted((project.root / ".mcp-codegen-cache" / "entries").glob("*/*"))


@pytest.mark.usefixtures("in_process_builds")
@pytest.mark.process
def test_a_rebuild_takes_what_the_watcher_has_seen_from_memory(project: Project) -> None:
    """The watcher's session keeps the cache entries it read or wrote decoded (its memory tier):
    with their disk copies gone, a save's rebuild inspects only the saved module, and gives what
    a build without the cache gives. Each rebuild's entries are on disk when it returns."""
    import io

    from mcp_codegen._cli.watch import Watcher
    from mcp_codegen._generator.config import load_config
    from mcp_codegen._generator.pipeline import build

    for index in range(3):
        project.write(f"pkg/m{index}.py", TOOL.format(name=f"tool_{index}", kind="int"))
    watcher = Watcher(project.root / "pyproject.toml", stream=io.StringIO())
    try:
        first = watcher.rebuild()
        assert first is not None and not first.errors and len(first.rebuilt) == 3
        assert _cache_entries(project)  # written when the rebuild returned
        for path in _cache_entries(project):
            path.unlink()
        project.write("pkg/m1.py", TOOL.format(name="tool_1", kind="str"))
        second = watcher.rebuild()
        assert second is not None and not second.errors
        assert [d.source.relative_path for d in second.rebuilt] == ["pkg/m1.py"]
        cold = build(load_config(project.root / "pyproject.toml"), use_cache=False)
        assert [(f.relative_path, f.content) for f in second.files] == [
            (f.relative_path, f.content) for f in cold.files
        ]
        # Another session of the same process shares none of it: the disk is empty again.
        for path in _cache_entries(project):
            path.unlink()
        other = Watcher(project.root / "pyproject.toml", stream=io.StringIO())
        try:
            third = other.rebuild()
            assert third is not None and len(third.rebuilt) == 3
        finally:
            other.close()
    finally:
        watcher.close()
