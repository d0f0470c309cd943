"""Drive ``python -m mcp_codegen.runtime`` over stdio with a scripted session, through either door.

A script is a list of steps: a message (a dict, or raw bytes for what is not JSON) and how many
answers it gets (0 or 1). The driver sends one step, reads its answer if one is due, then sends
the next, so a transcript is deterministic and an extra or missing answer shows as a mismatch.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SYNC = -1
REPO_ROOT = Path(__file__).resolve().parents[3]
FIXTURES = REPO_ROOT / "tests" / "runtime" / "fixtures"
FIXTURE_GENERATED = FIXTURES / "output" / "generated"
ANSWER_TIMEOUT = 120.0  # seconds: the SDK's import on a loaded machine, with room to spare


#: Messages the fast path must leave to the SDK, whatever the SDK then answers (or does not).
MALFORMED: list[Any] = [
    [
        {"jsonrpc": "2.0", "id": 90, "method": "ping"},
        {"jsonrpc": "2.0", "id": 91, "method": "tools/list"},
    ],
    {"jsonrpc": "2.0", "id": True, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 1.5, "method": "ping"},
    {"jsonrpc": "2.0", "id": None, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"},
    {"jsonrpc": "2.0", "id": 92, "method": "tools/list", "params": ["x"]},
    {"jsonrpc": "2.0", "id": 93, "method": "tools/list", "params": {"cursor": 5}},
    {"jsonrpc": "2.0", "id": 94, "method": "tools/list", "params": None},
    {"jsonrpc": "1.0", "id": 95, "method": "ping"},
    {"jsonrpc": "2.0", "id": 96, "method": "no/such/method"},
    {"jsonrpc": "2.0", "id": 97, "method": "ping", "extra": 1},
    b'{"jsonrpc": "2.0", "id": 98, "method": "ping"',
    b'{"jsonrpc": "2.0", "id": 99, "method": "ping", "params": {"_meta": {"x": NaN}}}',
    b'{"jsonrpc": "2.0", "id": 100, "id": 101, "method": "ping"}',
    b'{"jsonrpc": "2.0", "id": 102, "method": "ping", "params": {"_meta": {"x": "\\ud800"}}}',
    b"\xff\xfe not utf-8",
    [],
]


@dataclass(frozen=True)
class Step:
    """One line sent, and whether the server answers it."""

    message: dict[str, Any] | list[Any] | bytes
    answers: int = 1  # SYNC: as many as come before a ping sent after it (sorted by id)

    def line(self) -> bytes:
        if isinstance(self.message, bytes):
            return self.message
        return json.dumps(self.message).encode()


def request(request_id: Any, method: str, params: Any = None, **extra: Any) -> Step:
    """A request step (``params`` omitted when ``None``)."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    message.update(extra)
    return Step(message)


def malformed(message: dict[str, Any] | list[Any] | bytes) -> Step:
    """A step whose answers (none, one, an error) are whatever the server gives."""
    return Step(message, answers=SYNC)


def notification(method: str, params: Any = None) -> Step:
    """A notification step: no answer expected."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return Step(message, answers=0)


def initialize(
    request_id: Any, version: str, *, capabilities: bool = True, info: bool = True
) -> Step:
    """An ``initialize`` request, with or without ``capabilities`` and ``clientInfo``."""
    params: dict[str, Any] = {"protocolVersion": version}
    if capabilities:
        params["capabilities"] = {"sampling": {}, "roots": {"listChanged": True}}
    if info:
        params["clientInfo"] = {"name": "script", "version": "1.0"}
    return request(request_id, "initialize", params)


def server_command(generated: Path = FIXTURE_GENERATED, *paths: Path) -> list[str]:
    command = [sys.executable, "-m", "mcp_codegen.runtime", "--generated", str(generated)]
    for path in paths or (FIXTURES,):
        command += ["--path", str(path)]
    return command


def door_env(door: str, **extra: str) -> dict[str, str]:
    """The environment for ``door``: ``"fast"`` (the default) or ``"sdk"`` (forced)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("MCP_CODEGEN_")}
    if door == "sdk":
        env["MCP_CODEGEN_NO_FAST_PATH"] = "1"
    env.update(extra)
    return env


class Server:
    """A server process with a reader thread, so reads can time out."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the process
        self.process = subprocess.Popen(
            command,
            cwd=REPO_ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
        )
        self._lines: queue.Queue[bytes] = queue.Queue()
        self.raw: list[bytes] = []  # every line received, as it came
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)
        self._lines.put(b"")

    def send(self, line: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def receive(self) -> Any:
        try:
            line = self._lines.get(timeout=ANSWER_TIMEOUT)
        except queue.Empty:
            raise AssertionError(f"no answer within {ANSWER_TIMEOUT:g} s") from None
        assert line, "the server closed stdout"
        self.raw.append(line)
        return json.loads(line)

    def close(self) -> tuple[int, str]:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=ANSWER_TIMEOUT)
        self._stderr.seek(0)
        stderr = self._stderr.read()
        self._stderr.close()
        leftover = []
        while not self._lines.empty():
            line = self._lines.get()
            if line:
                leftover.append(line)
        assert not leftover, f"unexpected extra output: {leftover!r}"
        return self.process.returncode, stderr.decode(errors="replace")


class Transcript(list[Any]):
    """The parsed answers of a scripted session; ``raw``: the bytes of the answers to steps
    with a known number of answers (in order, so two doors can be compared byte for byte)."""

    raw: list[bytes]


def run_script(
    steps: list[Step], door: str, command: list[str] | None = None, **env: str
) -> Transcript:
    """Each answer of the session, in order, through ``door``."""
    server = Server(command or server_command(), door_env(door, **env))
    transcript = Transcript()
    transcript.raw = []
    try:
        for number, step in enumerate(steps):
            server.send(step.line())
            if step.answers != SYNC:
                transcript.extend(server.receive() for _ in range(step.answers))
                transcript.raw.extend(server.raw[-step.answers :] if step.answers else [])
                continue
            sync = f"sync-{number}"
            server.send(json.dumps({"jsonrpc": "2.0", "id": sync, "method": "ping"}).encode())
            came = []
            while not came or came[-1].get("id") != sync:
                came.append(server.receive())
            transcript.append(sorted(came[:-1], key=lambda answer: json.dumps(answer.get("id"))))
            transcript.append(came[-1])
        returncode, stderr = server.close()
    finally:
        if server.process.poll() is None:
            server.process.kill()
    assert returncode == 0, stderr
    return transcript


def run_pipelined(steps: list[Step], door: str, command: list[str] | None = None) -> dict[Any, Any]:
    """Send every step at once, then collect the answers by id (their order may differ)."""
    server = Server(command or server_command(), door_env(door))
    try:
        for step in steps:
            server.send(step.line())
        expected = sum(step.answers for step in steps)
        answers = [server.receive() for _ in range(expected)]
        returncode, stderr = server.close()
    finally:
        if server.process.poll() is None:
            server.process.kill()
    assert returncode == 0, stderr
    by_id = {json.dumps(answer.get("id")): answer for answer in answers}
    assert len(by_id) == len(answers), answers  # no id answered twice
    return by_id
