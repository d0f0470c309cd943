"""The daemon's loop in this process, with the command line's runner passed in: what happens
when a build raises (a bug no real command line can be made to hit on purpose)."""

from __future__ import annotations

import io
from contextlib import redirect_stderr
from pathlib import Path

from mcp_codegen._cli.daemon.service import Daemon


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
