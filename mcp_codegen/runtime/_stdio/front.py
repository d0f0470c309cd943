"""The stdio fast path in front of your own server (``mcp-codegen run``).

Standard library only until the handover. The build recorded, per server object, what it answers
at ``initialize`` for each handshake revision and which generated tools its ``tools/list`` holds
(``SERVERS_FILE``). With a record for the run target, this module answers ``initialize``,
``notifications/initialized``, ``ping`` and ``tools/list`` from those literals (the session logic
of ``_stdio.fastpath``), imports your server on a background thread from the first tools/list
answer on (or at the handover when that comes first), and hands the
session over, with the replay, to your framework's own stdio transport (``mcp.server.stdio.
stdio_server``, which SDK 2.x and fastmcp both run) at the first message it does not answer.

Before the first answer it checks what is cheap to check (``checked_record``): the target's
module is found, the project modules its import loaded at generate time are found and unchanged,
the generated modules can be read; a problem is one line on stderr and the server runs plain
(``--strict``: the start is refused). When the server has loaded, its listed tools are checked
again: a tool the hook found stale or missing, one the server does not register, or one it
registers that was not listed, ends the fast path's listing. If tools/list was already answered,
the client gets ``notifications/tools/list_changed`` when the server declared
``tools.listChanged``; otherwise an error on stderr names the tools and the regenerate command.
"""

from __future__ import annotations

import os
import sys

from mcp_codegen._shared.format import (
    MANIFEST,
    SERVERS_FILE,
    GeneratedModuleError,
    check_servers,
    is_generated_file,
    recorded_digest,
    tree_regenerate_command,
)
from mcp_codegen._shared.reader import exec_generated
from mcp_codegen.runtime._stdio import listing_cache, wire_shapes
from mcp_codegen.runtime._stdio.fastpath import (
    Handover,
    Opening,
    ReplayReader,
    Session,
    import_start,
    sdk_matches,
)
from mcp_codegen.runtime._stdio.shapes import Doubt
from mcp_codegen.runtime._stdio.wire_shapes import REVISIONS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, BinaryIO

    from mcp_codegen.runtime._load.registry import ToolRegistry

#: The handover the patched ``stdio_server`` takes (one per process).
_pending: list[Handover] = []
#: What one readline takes before the fast path gives the line to the framework unanswered.
_MAX_MESSAGE_BYTES = 1 << 26
_LIST_CHANGED = b'{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n'


class FrontRefused(Exception):
    """The server must not start: a broken generated tree, or ``--strict`` and a stale one;
    the message names the cause and the command that fixes it."""


#: What ``mcp-codegen run`` says before its stderr lines.
_PROG = "mcp-codegen run"


def checked_record(directory: str, target: str, *, strict: bool) -> dict[str, Any] | None:
    """The record the fast path answers ``target``'s opening from, once what is cheap to check
    before the first answer holds: the target's module is found on ``sys.path`` (nothing is
    imported), the project modules its import loaded at generate time are found and unchanged,
    and the generated modules can be read. ``None``: run the server plain, after one line on
    stderr saying why and how to turn the fast path on (none when the target's module is not
    found: the plain start says that itself). Raises ``FrontRefused`` for a generated tree that
    cannot be read, and under ``strict`` for a stale one."""
    if find_source(target.partition(":")[0]) is None:
        return None  # `cannot load TARGET: No module named ...`, from the plain start
    command = tree_regenerate_command(directory)
    try:
        record, off = _record_or_why(directory, target)
    except GeneratedModuleError as exc:  # a corrupt __servers__.py: only the fast path reads it
        record, off = None, None
        stale: str | None = f"{exc}"
    else:
        stale = _changed_imports(record, directory) if record is not None else None
    if off == _UNPARSABLE:
        return None  # `TARGET ...: not a literal`, from the plain start
    if off is not None:
        _note(f"the stdio fast path is off for {target}: {off}")
        return None
    if stale is not None:
        if strict:
            raise FrontRefused(f"refusing to start (strict): {stale}; run `{command}`")
        _note(
            f"the stdio fast path is off for {target}: {stale}; run `{command}` to turn it "
            "on again (the server starts plain)"
        )
        return None
    if strict:
        check_sources(directory)
    return record


def _types_mismatch() -> str:
    """Why the installed protocol types cannot carry the fast path's answers."""
    # the distributions' listing: only when the fast path is already off
    from mcp_codegen._shared.distributions import installed_sdk1, installed_version

    wanted = wire_shapes.MCP_TYPES_VERSION
    sdk1 = installed_sdk1()
    if sdk1 is not None:
        return (
            f"it answers as the MCP SDK 2.x does (mcp_types {wanted}), and mcp {sdk1} is installed"
        )
    found = installed_version("mcp_types")
    if found is None:
        return f"no mcp_types is installed (it answers with the wire shapes of mcp_types {wanted})"
    return (
        f"the installed mcp_types is release {found}, not {wanted}, whose wire shapes the fast "
        "path answers with"
    )


def _record_or_why(directory: str, target: str) -> tuple[dict[str, Any] | None, str | None]:
    """``(record, None)``, or ``(None, why the fast path is off)`` (raises
    ``GeneratedModuleError`` for a malformed records file)."""
    if not sdk_matches():  # first: with other protocol types no record is written at all
        return None, _types_mismatch()
    path = os.path.join(directory, SERVERS_FILE)
    if not is_generated_file(path):
        if os.path.exists(path):
            raise GeneratedModuleError("not a generated file (no mcp-codegen header)", path)
        return None, (
            f"{path} does not exist (it is written by `mcp-codegen generate` with flavor "
            '"mcp" or "fastmcp")'
        )
    records = check_servers(exec_generated(path), path)
    record = _find(records, target)
    if record is None and not _parses(target):
        return None, _UNPARSABLE
    if record is None and "(" not in target and _find(records, f"{target}()") is not None:
        # ``main`` builds its server when it runs: its factory call is what is recorded
        return None, (
            f"{path} has no record of it, but of the call {target}(), which builds the server: "
            f"run `mcp-codegen run {_shell_word(target + '()')}` for the fast path"
        )
    if record is None:
        return None, (
            f"{path} has no record of it; add it to run_targets in [tool.mcp-codegen] "
            f"(run_targets = [{_toml_string(target)}]) and run `mcp-codegen generate`"
        )
    if not record["initialize"]:
        return None, (
            f"its initialize answer is not recorded (`mcp-codegen generate` warned why at "
            f"{record['source']}:{record['line']})"
        )
    return record, None


def _shell_word(text: str) -> str:
    """``text`` quoted for a POSIX shell when it needs it (a call's parentheses do)."""
    return (
        text if text.replace(".", "").replace(":", "").replace("_", "").isalnum() else f'"{text}"'
    )


#: ``_record_or_why``'s reason for a factory-call target that does not parse: no note, the
#: plain start refuses it with the parser's message.
_UNPARSABLE = ""


def _parses(target: str) -> bool:
    """Whether a factory-call ``target`` parses (only asked when no record has its spelling:
    the parser's imports cost ~30 ms before the first answer)."""
    if "(" not in target.partition(":")[2]:
        return True
    # the parser (~22 ms: ast, inspect): only for a factory-call target
    from mcp_codegen._registration.factory_calls import FactoryCallError, parse_factory_call

    try:
        parse_factory_call(target)
    except FactoryCallError:
        return False
    return True


def _find(records: list[dict[str, Any]], target: str) -> dict[str, Any] | None:
    for record in records:
        if record["object"] == target:
            return record
    if "(" in target.partition(":")[2]:  # a factory call, recorded with normalised spacing
        # the parser (~22 ms: ast, inspect): only for a factory-call target
        from mcp_codegen._registration.factory_calls import FactoryCallError, parse_factory_call

        try:
            normalised = parse_factory_call(target).target
        except FactoryCallError:
            return None
        for record in records:
            if record["object"] == normalised:
                return record
    return None


def _toml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _changed_imports(record: dict[str, Any], directory: str) -> str | None:
    """Why the record no longer says what the server registers: a project module its target's
    import loaded at generate time that is gone or changed (``None``: all as recorded)."""
    imports = record.get("imports")
    where = os.path.join(directory, SERVERS_FILE)
    if imports is None:
        return f"{where} was written by an earlier mcp-codegen and records no imports"
    for module, digest in imports:
        source = find_source(module)
        if source is None:
            return (
                f"{module}, which {record['object']} imported when {where} was generated, is "
                "not found on the Python path"
            )
        if _digest(source) != digest:
            return f"{source} changed since {where} was generated"
    return None


def _digest(path: str) -> str | None:
    """``shared.format.source_digest`` of a file (without importing ``hashlib``)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read().replace(b"\r\n", b"\n")
    except OSError:
        return None
    digest = listing_cache.sha256(len(data))
    digest.update(data)  # type: ignore[attr-defined]
    return digest.hexdigest()  # type: ignore[attr-defined,no-any-return]


def _note(message: str) -> None:
    print(f"{_PROG}: note: {message}", file=sys.stderr, flush=True)


def server_record(directory: str, target: str) -> dict[str, Any] | None:
    """The record of ``target`` in the tree at ``directory``, when the fast path can serve it."""
    try:
        record, _ = _record_or_why(directory, target)
    except GeneratedModuleError:
        return None
    return record


def check_sources(directory: str) -> None:
    """``--strict``: every generated module's source must hash as recorded (found on
    ``sys.path`` by its module name, nothing imported); raises ``FrontRefused`` naming the
    first that does not, or the generated module that cannot be read."""
    command = tree_regenerate_command(directory)
    try:
        manifest = exec_generated(os.path.join(directory, MANIFEST))
        for relative in manifest.get("MODULES", ()):
            generated = os.path.join(directory, *relative.split("/"))
            module = exec_generated(generated).get("SOURCE_MODULE", "")
            with open(generated, "rb") as handle:
                head = handle.read(2048)
            source = find_source(module)
            if source is None:
                raise FrontRefused(
                    f"refusing to start (strict): {module}, the source of {generated}, is not "
                    f"found on the Python path; run `{command}`"
                )
            if _digest(source) != recorded_digest(head):
                raise FrontRefused(
                    f"refusing to start (strict): {source} changed since {generated} was "
                    f"generated; run `{command}`"
                )
    except (GeneratedModuleError, OSError) as exc:
        raise FrontRefused(f"refusing to start: {_unreadable(exc)}; run `{command}`") from None


def _unreadable(exc: Exception) -> str:
    if isinstance(exc, OSError):
        return f"{exc.filename}: cannot read ({exc.strerror})"
    return str(exc)


def find_source(module: str) -> str | None:
    """The ``.py`` file ``import module`` would load, found without importing anything: on
    ``sys.path`` by ``stat``, else through the import system's finders for the top-level
    package (an editable install's finder) and that package's search locations."""
    parts = module.split(".")
    if not all(part.isidentifier() for part in parts):
        return None
    for entry in sys.path:
        if isinstance(entry, str):
            found = _in(entry or os.curdir, parts)
            if found is not None:
                return found
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        try:
            spec = find(parts[0], None) if find is not None else None
        except Exception:  # a third-party finder: whatever it raises means "not here"
            continue
        if spec is None:
            continue
        if len(parts) == 1:
            origin = spec.origin
            return origin if isinstance(origin, str) and origin.endswith(".py") else None
        for location in spec.submodule_search_locations or ():
            found = _in(location, parts[1:])
            if found is not None:
                return found
        return None
    return None


def _in(directory: str, parts: list[str]) -> str | None:
    base = os.path.join(directory, *parts)
    for candidate in (base + ".py", os.path.join(base, "__init__.py")):
        if os.path.isfile(candidate):
            return candidate
    return None


class Listings:
    """The stored tools/list answers of one target (``listing_cache``): read at the start, so
    that a hit needs no registry; on a miss, stored after the first answer."""

    def __init__(self, directory: str, record: dict[str, Any]) -> None:
        self.revisions = tuple(sorted(set(record["initialize"]) & set(REVISIONS)))
        self.stored: dict[str, str | None] | None = None
        self.path: str | None = None
        if record["tools"] is None:
            return  # the framework lists: nothing to store
        manifest = exec_generated(os.path.join(directory, MANIFEST))
        modules = manifest.get("MODULES", ())
        for relative in modules if isinstance(modules, tuple | list) else ():
            if isinstance(relative, str) and not os.path.isfile(
                generated := os.path.join(directory, *relative.split("/"))
            ):
                raise FrontRefused(
                    f"refusing to start: {generated} (listed in the manifest) does not exist; "
                    f"run `{tree_regenerate_command(directory)}`"
                )
        try:
            path = listing_cache.entry_path(directory, record["object"], modules, SERVERS_FILE)
        except (OSError, TypeError, ValueError):
            return  # MODULES is malformed, a file went away meanwhile: the registry load says so
        if path:
            self.path = path
            self.stored = listing_cache.read(path, self.revisions)


class ServerSession(Session):
    """``Session`` answering with a recorded server's own ``initialize`` and tool order: from
    the stored listings when there are (``registry`` is then ``None``), or shaped."""

    def __init__(
        self, registry: ToolRegistry | None, record: dict[str, Any], listings: Listings
    ) -> None:
        super().__init__(registry, name="")  # type: ignore[arg-type]
        self._record = record
        self._names: tuple[str, ...] | None = (
            tuple(record["tools"]) if record["tools"] is not None else None
        )
        self._listings = listings
        self._shaped: dict[str, str | None] = {}
        self.stale = False  # set by the loader: the framework answers tools/list from now on

    def listing(self, revision: str) -> str | None:
        if self._names is None or self.stale:
            raise Doubt("tools/list")  # the framework lists (run-time tools, stale entries)
        stored = self._listings.stored
        if stored is not None:
            if revision not in stored:
                raise Doubt(revision)
            return stored[revision]
        if revision not in self._shaped:
            self._shaped[revision] = super().listing(revision)
        return self._shaped[revision]

    def keep_listing(self) -> None:
        """On a miss: shape every recorded revision's listing (once) and store them, so that the
        next run answers from stored bytes."""
        if self._listings.stored is not None or self._listings.path is None:
            return
        try:
            listings = {revision: self.listing(revision) for revision in self._listings.revisions}
            listing_cache.write(self._listings.path, listings)
        except (Doubt, RecursionError, ValueError, TypeError, KeyError):
            return  # a revision the fast path cannot shape: shaped again each run
        self._listings.stored = listings

    def _initialize(self, negotiated: str) -> Any:
        recorded = self._record["initialize"].get(negotiated)
        if recorded is None:
            raise Doubt(negotiated)
        return recorded

    def _tools(self, revision: str) -> dict[str, Any]:
        # a composed package's servers may share names: this server's own entry wins
        own = self._record["object"]
        by_name: dict[str, Any] = {}
        for tool, server in zip(
            self._registry.wire_tools(revision), self._registry.servers(), strict=True
        ):
            if server == own or tool["name"] not in by_name:
                by_name[tool["name"]] = tool
        return {"tools": [by_name[name] for name in self._names]}

    @property
    def list_changed(self) -> bool:
        """Whether the ``initialize`` answer this session got declares ``tools.listChanged``
        (only then may the server send ``notifications/tools/list_changed``)."""
        answer = self._record["initialize"].get(self.protocol_version) or {}
        return ((answer.get("capabilities") or {}).get("tools") or {}).get("listChanged") is True


def opening(
    registry: ToolRegistry | None,
    record: dict[str, Any],
    listings: Listings,
    *,
    load: Callable[[], tuple[Callable[[], int], list[str]]],
    regenerate: str,
) -> Opening:
    """The front's opening: answer what the fast path can while ``load()`` imports the server on
    a thread; then run.

    ``load`` returns ``(run, stale)``: the function that runs the server (its stdio transport
    takes the handover) and the listed tools found stale or missing once it is loaded.
    ``registry`` is ``None`` when ``listings`` has the stored answers (it is needed for nothing
    else). The loop is ``fastpath.serve_opening``'s; when the input ends while the server is
    still importing, the process exits at once.
    """
    session = ServerSession(registry, record, listings)

    def load_server(wire_out: BinaryIO) -> Callable[[Handover], int]:
        run, stale = load()
        if stale:
            session.stale = True
            _stale_listing(session, stale, wire_out, regenerate)

        def take_over(handover: Handover) -> int:
            _pending.append(handover)  # taken by the patched ``stdio_server``
            return run()

        return take_over

    stored = listings.stored is not None and record["tools"] is not None
    return Opening(
        session,
        load_server,
        start=import_start(stored=stored),
        max_message_bytes=_MAX_MESSAGE_BYTES,
        exit_while_importing=True,
    )


def _stale_listing(
    session: ServerSession, stale: list[str], wire_out: Any, regenerate: str
) -> None:
    if not session.listed:
        return  # nothing wrong was listed: the framework lists from now on
    names = ", ".join(repr(name) for name in stale)
    if session.list_changed:
        wire_out.write(_LIST_CHANGED)
        wire_out.flush()
        return
    print(
        f"mcp-codegen run: error: the fast path's tools/list differs from what the server "
        f"registers ({names}: stale, missing, or registered only at run time), and the server "
        f"does not declare tools.listChanged, so the client keeps that list; run "
        f"`{regenerate}` and restart",
        file=sys.stderr,
        flush=True,
    )


def install_handover() -> None:
    """Patch ``mcp.server.stdio.stdio_server`` so the first stdio run takes the handover
    (call before the framework imports it by name)."""
    # the SDK (~600 ms): on the import thread, after the opening
    import mcp.server.stdio as stdio

    original = stdio.stdio_server
    if getattr(original, "_codegen_front", False):
        return
    # contextlib (~3 ms): with the SDK, not before the first answer
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def stdio_server(stdin: Any = None, stdout: Any = None) -> Any:
        if stdin is not None or stdout is not None or not _pending:
            async with original(stdin, stdout) as streams:
                yield streams
            return
        handover = _pending.pop()
        try:
            async with original(
                _Lines(handover.wire_in), _Sink(handover.wire_out, set(handover.answered))
            ) as streams:
                yield streams
        finally:
            handover.restore()

    stdio_server._codegen_front = True  # type: ignore[attr-defined]
    # Modules that took the name before (``mcp.server`` imports the SDK's servers) get it too.
    for module in list(sys.modules.values()):
        if getattr(module, "stdio_server", None) is original:
            module.stdio_server = stdio_server  # type: ignore[attr-defined]


class _Lines:
    """The SDK transport's ``async for line in stdin`` over the replay, then the wire."""

    def __init__(self, reader: ReplayReader) -> None:
        self._reader = reader

    def __aiter__(self) -> _Lines:
        return self

    async def __anext__(self) -> str:
        # imported with the SDK by now (after the handover): a dictionary look-up
        import anyio.to_thread

        line = await anyio.to_thread.run_sync(self._reader.readline, abandon_on_cancel=True)
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", "replace")


class _Sink:
    """The SDK transport's stdout: drops its answers to requests the fast path answered."""

    def __init__(self, wire: Any, answered: set[int | str]) -> None:
        self._wire = wire
        self._answered = answered

    async def write(self, text: str) -> None:
        # imported with the SDK by now (after the handover): a dictionary look-up
        import anyio.to_thread

        if self._answered:
            # json (~8 ms with re): after the handover, where the SDK imported it already
            import json

            message = json.loads(text)
            if ("result" in message or "error" in message) and message.get("id") in self._answered:
                self._answered.discard(message["id"])
                return
        await anyio.to_thread.run_sync(self._wire.write, text.encode("utf-8"))

    async def flush(self) -> None:
        # imported with the SDK by now (after the handover): a dictionary look-up
        import anyio.to_thread

        await anyio.to_thread.run_sync(self._wire.flush)
