"""The daemon's loop in this process, with the command line's runner passed in: what happens
when a build raises (a bug no real command line can be made to hit on purpose)."""

from __future__ import annotations

import io
from contextlib import redirect_stderr
from pathlib import Path

from codegen.cli.daemon.service import Daemon


def test_a_build_that_raises_reports_and_stops_the_daemon(tmp_path: Path) -> None:
    def dispatch(argv: list[str]) -> int:
        raise RuntimeError("a bug in the build")

    daemon = Daemon(str(tmp_path / "pyproject.toml"), 0, dispatch, drop_first=True)
    err = io.StringIO()
    with redirect_stderr(err):
        assert daemon._run(["generate"]) == 1
    assert "RuntimeError: a bug in the build" in err.getvalue()
    assert daemon.stopped_because == "a build raised (the traceback went to the command)"


def test_usage_errors_are_exit_codes_not_exits(tmp_path: Path) -> None:
    def dispatch(argv: list[str]) -> int:
        raise SystemExit(2)

    daemon = Daemon(str(tmp_path / "pyproject.toml"), 0, dispatch, drop_first=True)
    assert daemon._run(["generate", "--frobnicate"]) == 2
    assert daemon.stopped_because == ""
