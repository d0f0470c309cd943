"""Run the official MCP conformance suite (``@modelcontextprotocol/conformance``) against a server.

Reusable by any test in ``tests/e2e/conformance``: install the pinned suite (``npm ci`` from the
committed lockfile, on first use), list its server scenarios, start an HTTP server subprocess on a
free loopback port, and run one scenario against ``http://127.0.0.1:PORT/mcp``, parsing the
suite's ``Passed: K/M, F failed, W warnings`` summary. A missing Node or npm fails, never skips.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import pytest

from tests.helpers.npm import npm_ci

REPO_ROOT = Path(__file__).resolve().parents[3]
NODE_PROJECT = Path(__file__).resolve().parent / "node"
SUITE_VERSION = "0.1.9"  # the last release that runs on Node 20 (0.1.16 needs Node 22)
_SUMMARY = re.compile(r"Passed: (\d+)/(\d+), (\d+) failed, (\d+) warnings")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


@dataclass(frozen=True)
class ScenarioResult:
    """One scenario's outcome, as the suite's summary line reports it."""

    scenario: str
    passed: int
    total: int
    failed: int
    warnings: int
    returncode: int
    output: str  # stdout and stderr, colour codes removed: show it when an assertion fails

    @property
    def ok(self) -> bool:
        """Every check passed, none failed, and the suite exited 0."""
        return self.returncode == 0 and self.failed == 0 and self.passed == self.total > 0


def ensure_installed() -> Path:
    """The suite's ``conformance`` executable, installed from the lockfile if it is missing."""
    package = NODE_PROJECT / "node_modules" / "@modelcontextprotocol" / "conformance"
    binary = NODE_PROJECT / "node_modules" / ".bin" / "conformance"
    npm_ci(NODE_PROJECT, [package / "package.json", binary], "to run the MCP conformance suite")
    installed = (package / "package.json").read_text(encoding="utf-8")
    assert f'"version": "{SUITE_VERSION}"' in installed, "stale node_modules: run npm ci"
    return binary


def server_scenarios(binary: Path) -> list[str]:
    """The names the suite lists under "Server scenarios"."""
    listed = subprocess.run(
        [str(binary), "list", "--server"], capture_output=True, text=True, check=True, timeout=60
    )
    return re.findall(r"^\s+- (\S+)$", listed.stdout, flags=re.MULTILINE)


def free_port() -> int:
    """A loopback TCP port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def runtime_http_command(generated: Path | str, *paths: Path | str) -> list[str]:
    """``python -m mcp_codegen.runtime`` over HTTP, with ``{port}`` for ``start_http_server``."""
    command = [sys.executable, "-m", "mcp_codegen.runtime", "--generated", str(generated)]
    for path in paths:
        command += ["--path", str(path)]
    return [*command, "--transport", "http", "--port", "{port}"]


@contextlib.contextmanager
def start_http_server(
    command: Sequence[str],
    *,
    cwd: Path | str = REPO_ROOT,
    env: Mapping[str, str] | None = None,
    path: str = "/mcp",
    ready_timeout: float = 60.0,
) -> Iterator[str]:
    """Run ``command`` (``{port}`` in it is replaced by a free port) until the block ends.

    Yields ``http://127.0.0.1:PORT/mcp`` once the server answers HTTP there; fails with the
    server's stderr if it exits or does not answer within ``ready_timeout`` seconds.
    """
    port = free_port()
    argv = [part.replace("{port}", str(port)) for part in command]
    url = f"http://127.0.0.1:{port}{path}"
    with tempfile.TemporaryFile() as stderr:
        process = subprocess.Popen(
            argv,
            cwd=cwd,
            env={**os.environ, **(env or {})},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
        try:
            _wait_until_ready(process, url, ready_timeout, stderr)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait_until_ready(
    process: subprocess.Popen[bytes], url: str, timeout: float, stderr: IO[bytes]
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            stderr.seek(0)
            pytest.fail(f"server exited with {process.returncode}:\n{stderr.read().decode()}")
        try:
            # Any HTTP answer (a GET without a session is refused) means it is listening.
            urllib.request.urlopen(url, timeout=2).close()
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.1)
    stderr.seek(0)
    pytest.fail(f"server did not answer at {url} within {timeout:g} s:\n{stderr.read().decode()}")


def run_scenario(
    binary: Path, url: str, scenario: str, *, timeout: float = 120.0
) -> ScenarioResult:
    """Run one server scenario against ``url`` (its result files go to a temporary directory)."""
    with tempfile.TemporaryDirectory() as scratch:
        completed = subprocess.run(
            [str(binary), "server", "--url", url, "--scenario", scenario],
            cwd=scratch,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    output = _ANSI.sub("", completed.stdout + completed.stderr)
    summaries = _SUMMARY.findall(output)
    if not summaries:
        return ScenarioResult(scenario, 0, 0, 0, 0, completed.returncode or 1, output)
    passed, total, failed, warnings = map(int, summaries[-1])
    return ScenarioResult(scenario, passed, total, failed, warnings, completed.returncode, output)
