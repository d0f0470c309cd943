"""The daemon's loop in this process, with the command line's runner passed in: what happens
when a build raises (a bug no real command line can be made to hit on purpose)."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from mcp_codegen._cli.daemon.service import Daemon
from tests.helpers.project import Project, in_process_builds  # noqa: F401 - the fixture


def test_a_build_that_raises_reports_and_stops_the_daemon(tmp_path: Path) -> None:
    def dispatch(argv: list[str], **session: object) -> int:
        raise RuntimeError("a bug in the build")

    daemon = Daemon(str(tmp_path / "pyproject.toml"), 0, dispatch, drop_first=True)
    err = io.StringIO()
    with redirect_stderr(err):
        assert daemon._run(["generate"]) == 1
    assert "RuntimeError: a bug in the build" in err.getvalue()
    assert daemon.stopped_because == "a build raised (the traceback went to the command)"


def test_usage_errors_are_exit_codes_not_exits(tmp_path: Path) -> None:
    def dispatch(argv: list[str], **session: object) -> int:
        raise SystemExit(2)

    daemon = Daemon(str(tmp_path / "pyproject.toml"), 0, dispatch, drop_first=True)
    assert daemon._run(["generate", "--frobnicate"]) == 2
    assert daemon.stopped_because == ""


def test_large_output_is_sent_in_frames_the_command_reads() -> None:
    import socket
    import threading

    from mcp_codegen._cli.daemon import wire
    from mcp_codegen._cli.daemon.service import CHUNK_BYTES, _Relayed

    ours, theirs = socket.socketpair()
    text = "".join(f"-line {n}\n" for n in range(400_000))  # ~5 MB, one write (a large diff)
    relayed = _Relayed(ours, wire.STDOUT, False, "utf-8", threading.Lock())
    sender = threading.Thread(target=lambda: (relayed.write(text), ours.close()))
    sender.start()
    frames = []
    stream = theirs.makefile("rb")
    while (frame := wire.receive(stream)) is not None:
        frames.append(frame)
    sender.join()
    theirs.close()
    assert len(text) > 4 * CHUNK_BYTES and len(frames) > 4
    assert all(kind == wire.STDOUT and len(data) <= CHUNK_BYTES for kind, data in frames)
    assert b"".join(data for _, data in frames).decode() == text


TOOL = '''
from mcp_codegen.decorators import tool


@tool
def ping(text: str) -> str:
    """Echo."""
    return text
'''


@pytest.mark.process
@pytest.mark.usefixtures("in_process_builds")
def test_a_build_that_raises_still_writes_the_cache_entries_it_put(project: Project) -> None:
    """The daemon holds a request's cache entries back until it has answered, and writes them
    also when the build raised; its session keeps them in memory (the daemon's tiers)."""
    import socket

    from mcp_codegen._generator.config import load_config

    project.write("pkg/tools.py", TOOL)
    config_file = project.root / "pyproject.toml"
    entries = project.root / ".mcp-codegen-cache" / "entries"
    during: list[Path] = []

    def dispatch(argv: list[str], *, session_for: Any) -> int:
        session = session_for(load_config(config_file), True)
        assert not session.build().errors
        during.extend(entries.glob("*/*"))
        raise RuntimeError("a bug after the build")

    daemon = Daemon(str(config_file), 0, dispatch, drop_first=True)
    ours, theirs = socket.socketpair()
    try:
        with redirect_stderr(io.StringIO()), redirect_stdout(io.StringIO()):
            daemon._build(ours, {"argv": ["generate"], "cwd": str(project.root)})
    finally:
        daemon.warm.stop()
        ours.close()
        theirs.close()
    assert daemon.stopped_because == "a build raised (the traceback went to the command)"
    assert during == [] and list(entries.glob("*/*"))
    assert daemon.session is not None and daemon.session.tiers is daemon.tiers
    assert daemon.tiers.memory.values  # kept for the next request
