"""The stdio transport: newline-delimited JSON-RPC over this process's stdin and stdout.

Like the SDK's ``stdio_server``, it moves the protocol off file descriptors 0 and 1 while it
serves, so a tool that reads stdin sees end-of-file and a tool that prints writes to stderr.
Unlike it, it survives what clients and tools get wrong:

- a line longer than ``max_message_bytes`` is skipped without being held in memory, and answered;
- a line that is not a JSON-RPC message is answered with a JSON-RPC error instead of dropped,
  with the request's id when one can be found, so the client is not left waiting forever;
- a response that cannot be serialized becomes an error response instead of ending the server;
- stdin is read on a daemon thread, so the process can exit while a client keeps stdin open.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import AsyncIterator, Callable, Collection
from contextlib import asynccontextmanager, suppress
from typing import Any, BinaryIO

import anyio
import anyio.from_thread
import anyio.to_thread
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from mcp_codegen.runtime._stdio.claim import claim_stdio

logger = logging.getLogger("mcp_codegen.runtime")

_DRAIN_CHUNK = 1 << 20  # an oversized line is skipped this many bytes at a time
_HEAD = 1 << 16  # how much of an unparseable line is searched for its id, from the start
_TAIL = 1 << 8  # ... and from the end, where clients that put "id" last have it
_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[{}\[\]]')
_ID_VALUE = re.compile(rb'\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")')
_LAST_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")\s*\}\s*$')


class _Oversized:
    """A line that exceeded the limit: its size and what is kept of it to find its id."""

    __slots__ = ("head", "size", "tail")

    def __init__(self, head: bytes, tail: bytes, size: int) -> None:
        self.head, self.tail, self.size = head, tail, size


@asynccontextmanager
async def stdio_transport(
    *,
    max_message_bytes: int,
    claimed: tuple[BinaryIO, BinaryIO, Callable[[], None]] | None = None,
    answered: Collection[int | str] = (),
) -> AsyncIterator[
    tuple[
        MemoryObjectReceiveStream[SessionMessage | Exception],
        MemoryObjectSendStream[SessionMessage],
    ]
]:
    """Read and write streams for ``Server.run`` over stdin and stdout, until stdin closes.

    ``claimed``: the wire the fast path already claimed (``claim_stdio``), positioned where the
    SDK takes over; ``answered``: ids of replayed requests the fast path already answered, whose
    first response is not written again.
    """
    wire_in, wire_out, restore = claimed if claimed is not None else claim_stdio()
    read_send, read_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_send, write_receive = anyio.create_memory_object_stream[SessionMessage](0)
    answers = write_send.clone()  # the reader's own answers to lines it could not parse
    try:
        async with anyio.from_thread.BlockingPortal() as portal, anyio.create_task_group() as tg:
            tg.start_soon(_write_all, write_receive, wire_out, set(answered))
            reader = threading.Thread(
                target=_read_all,
                args=(wire_in, max_message_bytes, portal, read_send, answers),
                name="mcp-stdio-reader",
                daemon=True,  # a blocked read must not keep the process alive
            )
            reader.start()
            try:
                yield read_receive, write_send
            finally:
                # The server is done (stdin closed, or it stopped): release the reader's
                # pending sends and let the writer finish what it was given.
                read_receive.close()
                answers.close()
                write_send.close()
    finally:
        restore()


def _read_all(
    wire: BinaryIO,
    limit: int,
    portal: anyio.from_thread.BlockingPortal,
    messages: MemoryObjectSendStream[SessionMessage | Exception],
    answers: MemoryObjectSendStream[SessionMessage],
) -> None:
    """The reader thread: one line at a time into ``messages``, or an answer into ``answers``."""
    try:
        while True:
            line = _read_line(wire, limit)
            if line is None:
                break
            if isinstance(line, _Oversized):
                answer = _too_large(line, limit)
            elif not line.strip():
                continue  # blank lines carry nothing; answering them would be noise
            else:
                try:
                    message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                except ValidationError as exc:
                    answer = _not_a_message(line, exc)
                else:
                    portal.call(messages.send, SessionMessage(message))
                    continue
            logger.info("stdio: %s", answer.error.message)
            portal.call(answers.send, SessionMessage(answer))
    except (anyio.BrokenResourceError, anyio.ClosedResourceError, RuntimeError):
        return  # the server stopped listening (RuntimeError: its event loop or portal is gone)
    except OSError as exc:
        logger.error("stdio: cannot read stdin: %s", exc)
    with suppress(RuntimeError):
        portal.call(messages.aclose)  # end of input: the server finishes


def _read_line(wire: BinaryIO, limit: int) -> bytes | _Oversized | None:
    """The next line of at most ``limit`` bytes (newline excluded); ``None`` at end of input."""
    line = wire.readline(limit + 1)
    if not line:
        return None
    if len(line) <= limit or line.endswith(b"\n"):
        return line
    head, tail, size = line[:_HEAD], line[-_TAIL:], len(line)
    while not line.endswith(b"\n"):
        line = wire.readline(_DRAIN_CHUNK)
        if not line:
            break
        size += len(line)
        tail = (tail + line)[-_TAIL:]
    if tail.endswith(b"\n"):
        size -= 1
    return _Oversized(head, tail.rstrip(b"\r\n"), size)


def _too_large(line: _Oversized, limit: int) -> types.JSONRPCError:
    return _answer(
        _request_id(line.head, line.tail),
        types.INVALID_REQUEST,
        f"Request too large: the message has {line.size:,} bytes and this server accepts at "
        f"most {limit:,} (--max-message-bytes)",
    )


def _not_a_message(line: bytes, exc: ValidationError) -> types.JSONRPCError:
    errors = exc.errors(include_url=False, include_input=False, include_context=False)
    line = line.strip()
    request_id = _request_id(line[:_HEAD], line[-_TAIL:])
    if errors and errors[0]["type"] == "json_invalid":
        # Not JSON, or JSON the parser refuses: nested too deeply, a lone surrogate escape, ...
        return _answer(request_id, types.PARSE_ERROR, f"Parse error: {errors[0]['msg']}")
    details = "; ".join(
        f"{'.'.join(map(str, error['loc']))}: {error['msg']}" for error in errors[:4]
    )
    return _answer(
        request_id,
        types.INVALID_REQUEST,
        "Invalid request: not a JSON-RPC 2.0 request, notification or response",
        data=details,
    )


def _answer(
    request_id: int | str | None, code: int, message: str, data: Any = None
) -> types.JSONRPCError:
    error = types.ErrorData(code=code, message=message)
    if data is not None:
        error.data = data
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)


def _request_id(head: bytes, tail: bytes) -> int | str | None:
    """The top-level ``"id"`` of a message that failed to parse, when it can be found cheaply.

    JSON-RPC answers such a message with a null id; answering with the request's own id, when
    it is there to read, spares a client that sent valid but refused JSON (nested too deeply,
    too large) waiting for an answer that would never come.
    """
    last = _LAST_ID.search(tail)
    if last is not None:
        return _decode_id(last.group(1))  # the key before the final "}" is a top-level one
    depth = 0
    for token in _TOKEN.finditer(head):
        text = token.group()
        if text in (b"{", b"["):
            depth += 1
        elif text in (b"}", b"]"):
            depth -= 1
        elif depth == 1 and text == b'"id"':
            value = _ID_VALUE.match(head, token.end())
            return None if value is None else _decode_id(value.group(1))
    return None


def _decode_id(raw: bytes) -> int | str | None:
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, int | str) else None


async def _write_all(
    messages: MemoryObjectReceiveStream[SessionMessage], wire: BinaryIO, answered: set[int | str]
) -> None:
    """The writer task: each message as one line, written and flushed off the event loop.

    The first response to each id in ``answered`` is dropped: the fast path sent it already.
    """
    # A limiter of its own: tool threads that hang must not stop the answers from going out.
    limiter = anyio.CapacityLimiter(1)
    listening = True
    async with messages:
        async for session_message in messages:
            message = session_message.message
            if (
                answered
                and isinstance(message, types.JSONRPCResponse | types.JSONRPCError)
                and message.id in answered
            ):
                answered.discard(message.id)
                continue
            data = _encode(message) if listening else None
            if data is None:
                continue
            try:
                await anyio.to_thread.run_sync(_write_line, wire, data, limiter=limiter)
            except OSError as exc:  # the client closed our stdout: nobody is listening
                logger.warning("stdio: cannot write to stdout (%s); dropping output", exc)
                listening = False


def _write_line(wire: BinaryIO, data: bytes) -> None:
    wire.write(data)
    wire.write(b"\n")
    wire.flush()


def _encode(message: types.JSONRPCMessage) -> bytes | None:
    """The message as JSON bytes; an error response in place of a response that cannot be."""
    try:
        serializer = type(message).__pydantic_serializer__
        return serializer.to_json(message, by_alias=True, exclude_unset=True)
    except Exception as exc:  # a value pydantic cannot write: lone surrogates, unknown types
        problem = str(exc).encode("utf-8", "backslashreplace").decode("utf-8")[:2000]
        logger.error("stdio: cannot serialize an outgoing %s: %s", type(message).__name__, problem)
        if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
            replacement = _answer(
                message.id,
                types.INTERNAL_ERROR,
                f"Internal error: the response could not be serialized: {problem}",
            )
            return _encode(replacement)
        return None  # a notification or a request of ours: nobody waits for it by id
