"""Drive ``mcp-codegen run`` over raw stdio: pipelined JSON-RPC lines in, answers out by id."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.helpers.project import codegen_env

REPO = Path(__file__).resolve().parents[3]


def line(message: Any) -> bytes:
    return (message if isinstance(message, str) else json.dumps(message)).encode() + b"\n"


def initialize(revision: str = "2025-11-25", request_id: int = 1) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": revision,
            "capabilities": {},
            "clientInfo": {"name": "same-answers", "version": "1"},
        },
    }


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def request(request_id: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def exchange(
    command: list[str],
    messages: list[Any],
    expect: set[int],
    *,
    cwd: Path = REPO,
    env: dict[str, str] | None = None,
    timeout: float = 120,
) -> tuple[dict[Any, bytes], list[bytes], str]:
    """Send every message at once (pipelined), read until each id in ``expect`` is answered;
    returns the raw answer lines by id, the raw notification lines, and stderr."""
    process = subprocess.Popen(
        command,
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env or codegen_env(),
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(b"".join(line(m) for m in messages))
    process.stdin.flush()
    answers: dict[Any, bytes] = {}
    notifications: list[bytes] = []
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    buffer = b""
    try:
        while not expect <= set(answers) and time.monotonic() < deadline:
            if not selector.select(timeout=1):
                continue
            chunk = os.read(process.stdout.fileno(), 1 << 16)
            if not chunk:
                break
            buffer += chunk
            while b"\n" in buffer:
                raw, buffer = buffer.split(b"\n", 1)
                message = json.loads(raw)
                if "id" in message and "method" not in message:
                    answers[message["id"]] = raw
                else:
                    notifications.append(raw)
    finally:
        process.stdin.close()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    stderr = process.stderr.read().decode("utf-8", "replace") if process.stderr else ""
    return answers, notifications, stderr


def run_command(generated: str, target: str, *options: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "codegen",
        "run",
        *options,
        "--generated",
        generated,
        target,
    ]
