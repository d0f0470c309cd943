"""How the generator and its workers talk: length-prefixed pickles over the worker's stdin and
stdout (the protocol itself: ``mcp_codegen._generator.workers.child``).

Runs in: parent, worker.
"""

from __future__ import annotations

import os
import pickle
import struct
from typing import Any, BinaryIO


def write_message(stream: BinaryIO, message: object) -> None:
    payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(struct.pack(">Q", len(payload)) + payload)
    stream.flush()


def read_message(stream: BinaryIO) -> Any:
    header = stream.read(8)
    if len(header) < 8:
        raise EOFError
    (size,) = struct.unpack(">Q", header)
    return pickle.loads(stream.read(size))


def take_channels() -> tuple[BinaryIO, BinaryIO]:
    """The worker's ``(requests, events)``: its original stdin and stdout, moved out of reach
    first, so anything user code prints, even from C, lands on stderr, and a module that reads
    stdin at import gets EOF instead of hanging."""
    events = os.fdopen(os.dup(1), "wb")
    requests = os.fdopen(os.dup(0), "rb")
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    return requests, events
