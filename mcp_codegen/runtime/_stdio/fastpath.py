"""The stdio fast path: answer the opening of a session before the SDK is imported.

Standard library only. It answers ``initialize``, ``notifications/initialized``, ``ping`` and
``tools/list`` from the registry's literal data, shaped by the SDK's own wire models
(``_shapes``), and hands the session to the SDK door on the first message it does not handle
(``tools/call``, anything unknown, anything malformed, anything it cannot prove it answers as
the SDK would). The handover replays the messages the SDK needs to be in the same state, the
``initialize`` request and ``notifications/initialized``, ahead of the unread input, and the SDK
transport drops its second answer to that ``initialize``: one session, each request answered
once, in the order it arrived.

After the first ``tools/list`` the SDK door is prepared (imported, built) on a background thread,
so that the first ``tools/call`` does not wait for the import (measured:
docs/decisions/0350-when-the-sdk-is-prepared.md).

The loop itself (``serve_opening``) is the one stdio opening loop: the front of your own server
(``_stdio.front``, ``mcp-codegen run``) runs it too, with its own ``Opening``
(docs/decisions/0377-one-opening-loop.md).
"""

from __future__ import annotations

import _thread
import gc
import os
import sys

from mcp_codegen._shared.protocols import missing_variant
from mcp_codegen.runtime._stdio import wire_json, wire_shapes
from mcp_codegen.runtime._stdio.claim import claim_stdio
from mcp_codegen.runtime._stdio.shapes import Doubt, dump, params_conform
from mcp_codegen.runtime._stdio.wire_shapes import LATEST_HANDSHAKE_VERSION, REVISIONS, SURFACES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, BinaryIO

    from mcp_codegen.runtime._load.registry import ToolRegistry

#: Set to 1 to serve stdio with the SDK door from the first message (also ``--no-fast-path``).
DISABLE_ENV = "MCP_CODEGEN_NO_FAST_PATH"


def off(no_fast_path: bool = False) -> bool:
    """Whether the stdio fast path is off: ``--no-fast-path``, or ``MCP_CODEGEN_NO_FAST_PATH``
    set to anything but empty or ``0`` (``serve`` and ``run`` decide alike)."""
    return no_fast_path or os.environ.get(DISABLE_ENV, "").strip() not in ("", "0")


#: Set to 0 to prepare the SDK door only when a message needs it (for measurements).
PRELOAD_ENV = "MCP_CODEGEN_FAST_PATH_PRELOAD"
#: What the SDK door's server advertises (``build_server``); the equivalence tests compare.
SERVER_CAPABILITIES: dict[str, Any] = {"logging": {}, "tools": {"listChanged": False}}

_ENVELOPE_KEY = "io.modelcontextprotocol/protocolVersion"  # 2026-07-28 per-request envelope
_MESSAGE_KEYS = frozenset({"jsonrpc", "id", "method", "params"})
_MAX_ID = 2**63
#: Longer lines go to the SDK unparsed: none of the four messages is this long in practice, and
#: parsing a large tools/call twice (here, then in the SDK) would only delay it.
_MAX_LINE = 1 << 16


class Handover:
    """What the SDK door needs to take over: the wire, and what to replay and not re-answer."""

    def __init__(
        self,
        wire_in: ReplayReader,
        wire_out: BinaryIO,
        restore: Callable[[], None],
        answered: frozenset[int | str],
        protocol_version: str | None,
    ) -> None:
        self.wire_in = wire_in
        self.wire_out = wire_out
        self.restore = restore
        self.answered = answered
        self.protocol_version = protocol_version  # negotiated by the fast path; None: not yet

    @property
    def claimed(self) -> tuple[Any, BinaryIO, Callable[[], None]]:
        """``(stdin, stdout, restore)`` for the SDK door's stdio transport."""
        return self.wire_in, self.wire_out, self.restore


class ReplayReader:
    """``readline`` over replayed bytes first, then the wire, exactly where it was left."""

    def __init__(self, replay: bytes, wire: BinaryIO) -> None:
        self._buffer = replay
        self._wire = wire

    def readline(self, size: int = -1) -> bytes:
        """Like ``BinaryIO.readline``: through the next newline, at most ``size`` bytes."""
        buffer = self._buffer
        if not buffer:
            return self._wire.readline(size)
        end = buffer.find(b"\n") + 1
        if end and (size < 0 or end <= size):
            self._buffer = buffer[end:]
            return buffer[:end]
        if 0 <= size <= len(buffer):
            self._buffer = buffer[size:]
            return buffer[:size]
        self._buffer = b""
        return buffer + self._wire.readline(size - len(buffer) if size >= 0 else -1)


class Session:
    """The fast path's view of one session: answers, or ``None`` for "the SDK must answer"."""

    def __init__(self, registry: ToolRegistry, *, name: str) -> None:
        self._registry = registry
        self._name = name
        self.protocol_version: str | None = None  # negotiated by our initialize answer
        self.replay: list[bytes] = []  # what the SDK must see to reach the same state
        self.answered: set[int | str] = set()  # ids in ``replay`` the client has its answer to
        self.listed = False

    def answer(self, line: bytes) -> bytes | None:
        """The response line for ``line`` (``b""`` for a notification), or ``None``."""
        message = _parse(line)
        if message is None:
            return None
        method, params = message["method"], message.get("params")
        present = "params" in message
        if present and not isinstance(params, dict):
            return None
        if isinstance(params, dict):
            meta = params.get("_meta")
            if isinstance(meta, dict) and _ENVELOPE_KEY in meta:
                return None  # a 2026-07-28 stateless request: the SDK's modern era
        if "id" not in message:
            return self._notification(line, method, params, present)
        request_id = message["id"]
        if not _plain_id(request_id):
            return None
        if method == "initialize":
            negotiated = self._negotiate(params, present)
            if negotiated is None:
                return None
            response = _response(request_id, self._initialize(negotiated))
            # Committed only once the answer exists: a failure above leaves the SDK in charge.
            self.protocol_version = negotiated
            self.replay.append(line if line.endswith(b"\n") else line + b"\n")
            self.answered.add(request_id)
            return response
        if self.protocol_version is None:
            return None  # the SDK answers everything before initialize (even ping: same era)
        shapes = SURFACES[REVISIONS[self.protocol_version]]
        if method not in ("ping", "tools/list") or not params_conform(
            params, shapes["requests"][method], present=present
        ):
            return None
        if method == "ping":
            return _response(request_id, dump({}, shapes["results"][method]))
        listing = self.listing(self.protocol_version)
        if listing is None:
            return None  # schemas built for 2026-07-28 alone: the SDK door answers with the error
        self.listed = True
        return _response_text(request_id, listing)

    def listing(self, revision: str) -> str | None:
        """The ``tools/list`` result for ``revision`` as serialised JSON text (the ``result`` of
        the answer, byte for byte), or ``None`` when the SDK door must answer."""
        if missing_variant(self._registry.protocols, revision):
            return None
        return _dumps(
            dump(self._tools(revision), SURFACES[REVISIONS[revision]]["results"]["tools/list"])
        )

    def keep_listing(self) -> None:
        """Called once after the first ``tools/list`` answer: the SDK door's listing is shaped
        each run (``front.ServerSession`` stores its own)."""

    def _notification(self, line: bytes, method: str, params: Any, present: bool) -> bytes | None:
        if method != "notifications/initialized" or self.protocol_version is None:
            return None
        shape = SURFACES[REVISIONS[self.protocol_version]]["notifications"][method]
        if not params_conform(params, shape, present=present):
            return None  # the SDK drops it with a warning; let it
        self.replay.append(line if line.endswith(b"\n") else line + b"\n")
        return b""

    def _negotiate(self, params: Any, present: bool) -> str | None:
        """The version the SDK would negotiate; ``None`` when the SDK must answer."""
        if self.protocol_version is not None:
            return None  # a second initialize: the SDK's to answer (it re-negotiates)
        # Before initialize, the SDK validates against its latest handshake revision.
        shapes = SURFACES[REVISIONS[LATEST_HANDSHAKE_VERSION]]
        if not params_conform(params, shapes["requests"]["initialize"], present=present):
            return None
        requested = params["protocolVersion"]
        return requested if requested in REVISIONS else LATEST_HANDSHAKE_VERSION

    def _initialize(self, negotiated: str) -> Any:
        """The SDK's ``InitializeResult`` for the SDK door's server, in ``negotiated``'s shape."""
        return dump(
            {
                "protocolVersion": negotiated,
                "capabilities": SERVER_CAPABILITIES,
                "serverInfo": {"name": self._name, "version": self._registry.schema_set_version},
                "instructions": None,
            },
            SURFACES[REVISIONS[negotiated]]["results"]["initialize"],
        )

    def _tools(self, revision: str) -> dict[str, Any]:
        # What the SDK door's list_tools returns: the negotiated revision's output variant (the
        # fast path only serves handshake revisions: boxed); its shape drops what it does not
        # define.
        return {
            # Read only: dumped and serialised at once, never changed, so no copy is needed.
            "tools": self._registry.wire_tools(revision),
            "ttlMs": 0,
            "cacheScope": "private",
            "resultType": "complete",
        }


def sdk_opening(
    registry: ToolRegistry,
    *,
    name: str,
    max_message_bytes: int,
    prepare: Callable[[], Callable[[Handover | None], int]],
) -> Opening | None:
    """The SDK door's opening (``serve``): answer what the fast path can, then run
    ``prepare()(handover)``; ``None`` with an SDK release other than the one the wire shapes came
    from (the SDK door then serves from the first message).

    ``prepare`` imports and builds the SDK door and returns the function that serves the rest of
    the session; ``serve_opening`` runs it on a background thread after the first ``tools/list``
    (``import_start``) or at the handover.
    """
    if not sdk_matches():
        return None  # shapes from another SDK release: the SDK answers everything
    return Opening(
        Session(registry, name=name),
        lambda wire_out: prepare(),
        start=import_start(stored=False),
        max_message_bytes=max_message_bytes,
        exit_while_importing=False,
    )


#: When the import starts (``import_start``): before the first message, after ``initialize``,
#: after the first ``tools/list`` answer, or at the handover.
NOW, INITIALIZE, LISTED, HANDOVER = "now", "initialize", "listed", "handover"
#: The GIL switch interval while the opening is answered beside the import (default 5 ms).
_OPENING_SWITCH = 0.0005


def import_start(*, stored: bool) -> str:
    """When ``serve_opening`` starts the import, by ``MCP_CODEGEN_FAST_PATH_PRELOAD``.

    By default at once when the listing is ``stored`` (the opening is then a few reads and
    writes; the switch interval is shortened meanwhile, so that the import gives the GIL back
    within 0.5 ms whenever the answering thread returns from I/O), else once the first
    tools/list is answered (shaping competed with the import for the GIL: 1.4x -> 2.3x the floor
    in bench/run_fastpath.py; docs/decisions/0350-when-the-sdk-is-prepared.md). ``listed``:
    after the first tools/list answer always; ``initialize``: after initialize; ``0``: at the
    handover.
    """
    when = os.environ.get(PRELOAD_ENV, "1")
    if when == "0":
        return HANDOVER
    if when == INITIALIZE:
        return INITIALIZE
    return NOW if when == "1" and stored else LISTED


class Opening:
    """What one stdio opening is made of; the loop that serves it is ``serve_opening``.

    ``session`` answers the messages it can; ``load(wire_out)`` imports the server (or the SDK
    door) and returns the function that serves the rest of the session from the ``Handover``
    (it may write a notification to ``wire_out``); ``start`` says when the import starts
    (``import_start``); ``exit_while_importing``: when the input ends while the import still
    runs, exit the process at once (``os._exit``) instead of returning (user code: nobody is left
    to serve, and a client that closes stdin expects the exit, not 6-15 s of imports).
    """

    def __init__(
        self,
        session: Session,
        load: Callable[[BinaryIO], Callable[[Handover], int]],
        *,
        start: str,
        max_message_bytes: int,
        exit_while_importing: bool,
    ) -> None:
        self.session = session
        self.load = load
        self.start = start
        self.max_message_bytes = max_message_bytes
        self.exit_while_importing = exit_while_importing


class _Import:
    """``load`` on a background thread (``_thread``, not ``threading``: importing threading costs
    the answering thread ~1 ms; like a daemon thread, it does not hold up the exit), or inline."""

    def __init__(self, load: Callable[[], Callable[[Handover], int]]) -> None:
        self._load = load
        self._done = _thread.allocate_lock()
        self.started = False
        self.result: list[Callable[[Handover], int]] = []
        self.failed: list[BaseException] = []

    def start(self) -> None:
        self.started = True
        self._done.acquire()
        _thread.start_new_thread(self._run, ())

    def running(self) -> bool:
        """Whether the thread still imports (``False`` once it is done, or never started)."""
        return self.started and not self._done.acquire(False)

    def finish(self) -> None:
        """Wait for the thread, or load here when it never started."""
        if self.started:
            self._done.acquire()
        else:
            self.started = True
            self._done.acquire()
            self._run()

    def _run(self) -> None:
        try:
            self.result.append(self._load())
        except BaseException as exc:  # re-raised in the main thread
            self.failed.append(exc)
        finally:
            self._done.release()


def serve_opening(opening: Opening) -> int:
    """The one stdio opening loop: answer what ``opening.session`` can while the server imports
    (when ``opening.start`` says), then hand the session over; returns the exit code.

    The handover replays what the session answered ahead of the unread input (``Handover``).
    """
    # The registry's literal data (~100,000 objects at 1,000 tools, loaded with collection off)
    # lives as long as this process and holds no cycles: frozen, the first collection pass,
    # due at once, does not walk all of it before the first answer
    # (docs/decisions/0360-fast-path-at-1000-tools.md).
    gc.freeze()
    wire_in, wire_out, restore = claim_stdio()
    session = opening.session
    importer = _Import(lambda: opening.load(wire_out))
    line = _answer_beside_import(opening, importer, wire_in, wire_out)
    if not line:  # the input ended, or the client closed our stdout
        return _ended(opening, importer, restore, closed=line is None)
    importer.finish()
    if importer.failed:
        restore()
        raise importer.failed[0]
    handover = Handover(
        ReplayReader(b"".join(session.replay) + line, wire_in),
        wire_out,
        restore,
        frozenset(session.answered),
        session.protocol_version,
    )
    return importer.result[0](handover)


def _answer_beside_import(
    opening: Opening, importer: _Import, wire_in: BinaryIO, wire_out: BinaryIO
) -> bytes | None:
    """``answer_opening``, starting the import when ``opening.start`` says, and keeping the
    first listing (``Session.keep_listing``)."""
    session, start = opening.session, opening.start
    switch = sys.getswitchinterval()
    if start == NOW:
        sys.setswitchinterval(_OPENING_SWITCH)
        importer.start()
    kept = False

    def answered() -> None:
        nonlocal kept
        if session.listed and not kept:
            kept = True
            sys.setswitchinterval(switch)
            session.keep_listing()
        due = (start == LISTED and session.listed) or (
            start == INITIALIZE and session.protocol_version is not None
        )
        if due and not importer.started:
            importer.start()

    try:
        return answer_opening(session, wire_in, wire_out, opening.max_message_bytes, answered)
    finally:
        sys.setswitchinterval(switch)


def _ended(
    opening: Opening, importer: _Import, restore: Callable[[], None], *, closed: bool
) -> int:
    """The exit code when the opening ended before the server was needed."""
    restore()
    if closed:
        return 0  # nobody listens any more
    if importer.running():
        if opening.exit_while_importing:  # do not wait for it (6-15 s on published servers)
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)
        return 0
    if importer.failed:
        raise importer.failed[0]
    return 0


def answer_opening(
    session: Session,
    wire_in: BinaryIO,
    wire_out: BinaryIO,
    max_message_bytes: int,
    answered: Callable[[], None],
) -> bytes | None:
    """Answer each line the session can (``answered()`` after each); returns the first line it
    cannot (the handover starts there), ``b""`` at the end of input, or ``None`` when the client
    closed our stdout (nobody is listening any more)."""
    while True:
        line = wire_in.readline(max_message_bytes + 1)
        if not line:
            return b""
        if not line.strip():
            continue
        answer: bytes | None = None
        if len(line) <= max_message_bytes or line.endswith(b"\n"):
            try:
                answer = session.answer(line)
            except (Doubt, RecursionError, ValueError, TypeError, KeyError):
                answer = None
        if answer is None:
            return line
        if answer:
            try:
                wire_out.write(answer)
                wire_out.flush()
            except OSError:
                return None
        answered()


def sdk_matches() -> bool:
    """Whether the installed ``mcp_types`` is the release ``wire_shapes`` was extracted from,
    beside the SDK 2.x (its ``mcp.server.runner``), found without importing either: the
    dist-info directory beside the package, in the first ``sys.path`` entry that holds the
    package (where ``import`` finds it).

    A ``stat`` call per path entry and package: ``importlib.util.find_spec`` listed every entry's
    directory and took ~3 ms before the first answer. An ``mcp_types`` this does not find as a
    plain package directory (a zip, an import hook) gives ``False``: the SDK door serves.
    """
    version = wire_shapes.MCP_TYPES_VERSION
    types = _package_site("mcp_types")
    # and the SDK 2.x beside it: pip leaves mcp_types installed when mcp is downgraded to 1.x
    sdk = _package_site("mcp")
    return (
        types is not None
        and os.path.isdir(os.path.join(types, f"mcp_types-{version}.dist-info"))
        and sdk is not None
        and os.path.isfile(os.path.join(sdk, "mcp", "server", "runner.py"))
    )


def _package_site(package: str) -> str | None:
    """The first ``sys.path`` entry holding ``package`` as a plain package directory."""
    for entry in sys.path:
        if not isinstance(entry, str):
            continue
        site = entry or os.curdir
        if os.path.isfile(os.path.join(site, package, "__init__.py")):
            return site
    return None


def _parse(line: bytes) -> dict[str, Any] | None:
    """A JSON-RPC request or notification the fast path may answer; ``None`` for anything else."""
    if len(line) > _MAX_LINE or _surrogate_escape(line):
        return None
    try:
        message = _loads(line.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    if (
        not isinstance(message, dict)
        or not set(message) <= _MESSAGE_KEYS
        or message.get("jsonrpc") != "2.0"
        or not isinstance(message.get("method"), str)
    ):
        return None
    return message


def _surrogate_escape(line: bytes) -> bool:
    """Whether ``line`` has a ``\\uD800``-``\\uDFFF`` escape: json accepts a lone surrogate, the
    SDK's parser refuses it (``re`` would cost more to import than this loop takes)."""
    lowered = line.lower()
    start = lowered.find(b"\\ud")
    while start >= 0:
        if lowered[start + 3 : start + 4] in (b"8", b"9", b"a", b"b", b"c", b"d", b"e", b"f"):
            return True
        start = lowered.find(b"\\ud", start + 1)
    return False


def _refuse(constant: str) -> Any:
    raise ValueError(constant)


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise ValueError("duplicate key")  # which one wins is the parser's choice: the SDK's
    return result


#: ``json.loads`` refusing NaN and Infinity (not JSON: the SDK's parser refuses them) and
#: duplicate keys, without importing ``json`` (and ``re``) before the first answer: ``wire_json``.
_loads = wire_json.loader(_refuse, _unique)


def _plain_id(request_id: Any) -> bool:
    if isinstance(request_id, str):
        return True
    return type(request_id) is int and -_MAX_ID < request_id < _MAX_ID


#: ``json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))``, without
#: importing ``json`` (and ``re``) before the first answer: ``wire_json``.
_dumps = wire_json.compact_dumper()


def _response(request_id: int | str, result: Any) -> bytes:
    return _dumps({"jsonrpc": "2.0", "id": request_id, "result": result}).encode("utf-8") + b"\n"


def _response_text(request_id: int | str, result: str) -> bytes:
    """``_response`` with ``result`` serialised already (``json.dumps`` of the whole message is
    exactly this concatenation)."""
    return f'{{"jsonrpc":"2.0","id":{_dumps(request_id)},"result":{result}}}\n'.encode()
