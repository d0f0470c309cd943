"""Helpers for the abuse tests: server processes spoken to in raw bytes or with the SDK client."""

from __future__ import annotations

import http.client
import json
import queue
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import IO, Any

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.helpers.project import REPO
from tests.helpers.servers import server_env

REPO_ROOT = REPO
FIXTURES = Path(__file__).resolve().parent / "fixtures"
GENERATED = FIXTURES / "output" / "generated"
#: A request nested 10,000 levels deep, the abuse the issue names.
DEEP = b"[" * 10_000 + b"]" * 10_000


def server_args(*extra: str) -> list[str]:
    """Arguments after the interpreter that serve the abuse fixtures."""
    return ["-m", "mcp_codegen.runtime", "--generated", str(GENERATED), *extra]


def request_line(request_id: int | str, method: str, params: dict[str, Any] | None = None) -> bytes:
    """One JSON-RPC request as the line a client writes."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode() + b"\n"


def call_line(request_id: int | str, tool: str, arguments: Any) -> bytes:
    return request_line(request_id, "tools/call", {"name": tool, "arguments": arguments})


class WireServer:
    """A stdio server process written to in raw bytes; its stdout read line by line."""

    def __init__(self, *extra: str, stderr: IO[bytes] | int = subprocess.DEVNULL) -> None:
        self.process = subprocess.Popen(
            [sys.executable, *server_args(*extra)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            cwd=REPO_ROOT,
            env=server_env(FIXTURES),
        )
        self._lines: queue.Queue[bytes] = queue.Queue()
        self._pump = threading.Thread(target=self._read_stdout, daemon=True)
        self._pump.start()

    def _read_stdout(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)
        self._lines.put(b"")  # end of output

    def write(self, data: bytes) -> None:
        """Write bytes to the server's stdin as they are."""
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def next_message(self, timeout: float = 30.0) -> dict[str, Any]:
        """The next line the server writes, parsed; fails if none comes within ``timeout``."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"the server wrote nothing within {timeout} s") from None
        assert line, f"the server closed stdout (exit code {self.process.poll()})"
        return json.loads(line)  # type: ignore[no-any-return]

    def no_message_for(self, seconds: float) -> bool:
        """True if the server writes nothing for ``seconds``."""
        try:
            line = self._lines.get(timeout=seconds)
        except queue.Empty:
            return True
        self._lines.queue.appendleft(line)  # not ours to consume
        return False

    def request(self, request_id: int, method: str, params: dict[str, Any] | None = None) -> Any:
        """Send a request and return its response, which must be the next message."""
        self.write(request_line(request_id, method, params))
        response = self.next_message()
        assert response.get("id") == request_id, response
        return response

    def initialize(self) -> None:
        """The initialize handshake."""
        self.request(
            0,
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "abuse-test", "version": "0"},
            },
        )
        self.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')

    def add(self, request_id: int, a: int, b: int) -> Any:
        """The ``add`` tool's structured result: proof that the server still serves."""
        response = self.request(
            request_id, "tools/call", {"name": "add", "arguments": {"a": a, "b": b}}
        )
        return response["result"]["structuredContent"]

    def peak_rss_kib(self) -> int | None:
        """The server's peak resident memory (Linux ``VmHWM``); ``None`` without ``/proc``."""
        status = Path(f"/proc/{self.process.pid}/status")
        if not status.is_file():
            return None
        line = next(line for line in status.read_text().splitlines() if line.startswith("VmHWM:"))
        return int(line.split()[1])

    def close(self, timeout: float = 20.0) -> float:
        """Close stdin (the stdio shutdown signal); return how long the server took to exit."""
        assert self.process.stdin is not None
        started = time.monotonic()
        self.process.stdin.close()
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError(
                f"the server did not exit within {timeout} s of stdin closing"
            ) from None
        return time.monotonic() - started

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@asynccontextmanager
async def stdio_session(*extra: str) -> AsyncIterator[ClientSession]:
    """An initialized SDK client session with a stdio server of the abuse fixtures."""
    parameters = StdioServerParameters(
        command=sys.executable,
        args=server_args(*extra),
        env=server_env(FIXTURES),
        cwd=str(REPO_ROOT),
    )
    async with stdio_client(parameters) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class HttpServer:
    """A streamable HTTP server process on loopback."""

    def __init__(self, *extra: str) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.process = subprocess.Popen(
            [sys.executable, *server_args("--transport", "http", "--port", str(self.port), *extra)],
            cwd=REPO_ROOT,
            env=server_env(FIXTURES),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while True:
            assert self.process.poll() is None, "the HTTP server exited while starting"
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the HTTP server did not start within 60 s"
                time.sleep(0.05)

    def post(self, body: bytes) -> tuple[int, bytes]:
        """POST raw bytes as a JSON-RPC message; the status and the body of the answer."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            connection.request(
                "POST",
                "/mcp",
                body=body,
                headers={
                    "Content-Type": "application/json",
                    "Accept": "application/json, text/event-stream",
                },
            )
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    @asynccontextmanager
    async def session(self) -> AsyncIterator[ClientSession]:
        """An initialized SDK client session over streamable HTTP."""
        async with (
            streamable_http_client(self.url) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@contextmanager
def http_server(*extra: str) -> Iterator[HttpServer]:
    server = HttpServer(*extra)
    try:
        yield server
    finally:
        server.stop()


def run(body: Any, *args: Any, timeout: float = 120.0) -> Any:
    """Run an async test body, failing (not hanging) when it takes longer than ``timeout``."""

    async def bounded() -> Any:
        with anyio.fail_after(timeout):
            return await body(*args)

    return anyio.run(bounded)
