"""Find a registered function's generated entry, and say when it is missing or stale.

Standard library only. The freshness check hashes each tool's source file once (sha256 of its
bytes with ``\\r\\n`` folded, as the generator hashes it) and compares that with the
``SOURCE_SHA256`` of the generated module the tool came from, read from that module's first
kilobyte once; every further tool of the same file costs two dict lookups.
"""

from __future__ import annotations

import gc
import os
import sys
import warnings
from _thread import allocate_lock

from mcp_codegen._shared.format import (
    FRAMEWORK_MARKER,
    MANIFEST,
    GeneratedModuleError,
    recorded_digest,
    regenerate_command,
    source_digest,
)
from mcp_codegen._shared.reader import read_manifest

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from mcp_codegen._registration.own_servers import ProjectCode

#: the generated flavor that reproduces each framework's own listing
FRAMEWORK_FLAVORS = {"mcp": "the official SDK", "fastmcp": "fastmcp"}


class GeneratedSchemaError(RuntimeError):
    """The server must not start: a tool's schema is stale or missing in strict mode, or the
    generated modules are of a flavor this framework cannot serve."""


class StaleSchemaWarning(UserWarning):
    """A tool has no current generated entry; the framework infers it as it would without
    ``use_generated``."""


class GeneratedIndex:
    """The generated tools of one output directory, by the function that defines them."""

    def __init__(self, directory: str | os.PathLike[str], *, strict: bool) -> None:
        self.directory = os.path.abspath(directory)
        self.strict = strict
        flavor = read_manifest(self.directory).get("FLAVOR", "clean")
        if flavor not in FRAMEWORK_FLAVORS:
            raise GeneratedSchemaError(
                f"{self.directory}: the generated modules have FLAVOR {flavor!r}, whose schemas "
                "are this project's own rules, not what your framework serves. Under "
                "use_generated / `mcp-codegen run` a framework server needs the framework's "
                'flavor: set flavor = "mcp" (MCPServer, SDK 1.x FastMCP) or "fastmcp" '
                "(fastmcp.FastMCP) in [tool.mcp-codegen] and regenerate, or serve clean modules "
                "with `mcp-codegen serve`"
            )
        self.regenerate_command = _regenerate_command(self.directory)
        # Loaded at the first lookup: after the framework's import, whose collections then
        # need not walk them (docs/decisions/0480-what-the-floor-target-leaves-to-the-hook.md).
        self._tools: dict[tuple[str, str], tuple[dict[str, Any], str, str, str | None]] | None = (
            None
        )
        self._loading = allocate_lock()
        self._generated_sha: dict[str, str | None] = {}
        self._source_sha: dict[str, str | None] = {}
        self._warned: set[str] = set()
        self._project: ProjectCode | None = None  # read at the first miss (``_foreign``)

    def _loaded(self) -> dict[tuple[str, str], tuple[dict[str, Any], str, str, str | None]]:
        """``(function, name) -> (wire dict, module path, flavor, function's file digest)``,
        loaded once."""
        if self._tools is not None:
            return self._tools
        with self._loading:
            if self._tools is None:
                collecting = gc.isenabled()
                gc.disable()  # only acyclic data is built: a collection would walk it for nothing
                try:
                    # imported here: not before `mcp-codegen run`'s stored listing is sent
                    from mcp_codegen.runtime._load.registry import load_composed

                    registry = load_composed(self.directory)
                    # the index keeps the loaded dicts for good: no snapshot for later listings
                    located = [
                        *zip(registry.locations(), registry.hand_over(), strict=True),
                        # registered, then removed at import: the framework applies the removal
                        *registry.unlisted_locations(),
                    ]
                    self._tools = {
                        (function, name): (tool, module_path, flavor, function_sha)
                        for (name, function, module_path, flavor, function_sha), tool in located
                    }
                finally:
                    if collecting:
                        gc.enable()
        return self._tools

    @property
    def warned(self) -> frozenset[str]:
        """Names of the tools found stale or missing so far (each warned about once)."""
        return frozenset(self._warned)

    def __len__(self) -> int:
        return len(self._loaded())

    def entry(
        self,
        function: Callable[..., Any],
        name: str | None,
        framework_flavor: str,
        store: Any = None,
    ):
        """The generated wire dict for ``function`` registered as ``name`` (its ``__name__``
        when None) on ``store`` (the server or tool store being called), or None after one
        warning (a ``GeneratedSchemaError`` when strict) when there is no current entry. None
        without a word for a tool on another package's server (``own``)."""
        tool_name = name or getattr(function, "__name__", "")
        entry, why = self._lookup(function, tool_name, framework_flavor)
        if why is not None and not (store is not None and self._foreign(store)):
            self._stale(tool_name, why, function)
        return entry

    def _foreign(self, store: Any) -> bool:
        """Whether the registration under way on ``store`` is another package's (its server
        is not the project's): the framework's, untouched."""
        # the project's code (~1 ms: the tree's sources found on sys.path): only on a miss
        from mcp_codegen.runtime._hook import own

        if self._project is None:
            modules = {found[1] for found in self._loaded().values()}
            self._project = own.projects_code(
                self.directory, own.source_modules(self.directory, sorted(modules))
            )
        return own.is_foreign(self._project, store)

    def current_entry(
        self, function: Callable[..., Any], name: str | None, framework_flavor: str
    ) -> dict[str, Any] | None:
        """``entry`` without a word: None, and no warning or error, for a function with no
        current entry of that flavor (or an index that cannot load). For a caller whose
        fallback is the framework's own inference, whatever is wrong is said where the tool
        is registered, or not at all, as before it asked."""
        try:
            entry, _ = self._lookup(
                function, name or getattr(function, "__name__", ""), framework_flavor
            )
        except Exception:
            return None
        return entry

    def _lookup(
        self, function: Callable[..., Any], tool_name: str, framework_flavor: str
    ) -> tuple[dict[str, Any] | None, str | None]:
        """``(entry, None)`` when current, ``(None, why)`` when stale or missing, ``(None,
        None)`` for a function marked to stay with the framework."""
        path = _function_path(function)
        found = self._loaded().get((path, tool_name))
        if found is None:
            if kept_with_framework(function):
                return None, None  # marked to stay with the framework: inferred, even when strict
            return None, f"{path} has no generated entry in {self.directory}"
        entry, module_path, flavor, function_sha = found
        if flavor != framework_flavor:
            raise GeneratedSchemaError(
                f"{self.directory}/{module_path}: tool {tool_name!r} was generated with flavor "
                f"{flavor!r}, but it is registered on a {FRAMEWORK_FLAVORS[framework_flavor]} "
                f'server, which needs flavor "{framework_flavor}"; set it in '
                f"[tool.mcp-codegen] and run `{self.regenerate_command}`"
            )
        source = _source_file(function)
        if function_sha is not None:  # defined in one file, registered in the module's source
            registering = self._registering_source(module_path)
            if registering is None or self._source_digest(registering) != (
                self._generated_digest(module_path)
            ):
                return None, f"its source {registering or module_path} changed"
            if source is None or self._source_digest(source) != function_sha:
                return None, f"its source {source or path} changed since generation"
            return entry, None
        if source is None or self._source_digest(source) != self._generated_digest(module_path):
            return None, f"its source {source or path} changed since generation"
        return entry, None

    def _registering_source(self, module_path: str) -> str | None:
        """The source file of the module a generated module was made from (its
        ``SOURCE_MODULE``, imported by now: it registered the tool)."""
        # re (~9 ms): only for a generated module whose source is asked for
        import re

        path = os.path.join(self.directory, *module_path.split("/"))
        found = re.search(rb'^SOURCE_MODULE = "([\w.]+)"$', _head(path), re.MULTILINE)
        module = sys.modules.get(found.group(1).decode()) if found else None
        if module is None and found and found.group(1).decode() == _main_name():
            module = sys.modules.get("__main__")
        file = getattr(module, "__file__", None)
        return file if isinstance(file, str) and file.endswith(".py") else None

    def _stale(self, tool_name: str, why: str, function: Callable[..., Any]) -> None:
        message = f"tool {tool_name!r}: {why}; run `{self.regenerate_command}`" + (
            "" if self.strict else " (inferring it the framework's way meanwhile)"
        )
        if self.strict:
            raise GeneratedSchemaError(f"refusing to start (strict): {message}")
        if tool_name not in self._warned:
            self._warned.add(tool_name)
            _warn_at(function, StaleSchemaWarning(message))

    def _generated_digest(self, module_path: str) -> str | None:
        if module_path not in self._generated_sha:
            path = os.path.join(self.directory, *module_path.split("/"))
            self._generated_sha[module_path] = recorded_digest(_head(path))
        return self._generated_sha[module_path]

    def _source_digest(self, source: str) -> str | None:
        if source not in self._source_sha:
            try:
                with open(source, "rb") as handle:
                    data = handle.read()
            except OSError:
                self._source_sha[source] = None
            else:
                self._source_sha[source] = source_digest(data)
        return self._source_sha[source]


def registered_tools(server: Any) -> frozenset[str] | None:
    """The names of the tools ``server`` registered itself: an SDK ``MCPServer`` / ``FastMCP``'s
    tool manager, a fastmcp server's local provider; ``None`` when not known (another kind of
    object, such as a console-script function whose server is built when it runs)."""
    manager = getattr(server, "_tool_manager", None)
    if manager is not None and callable(getattr(manager, "list_tools", None)):
        return frozenset(tool.name for tool in manager.list_tools())
    components = getattr(getattr(server, "_local_provider", None), "_components", None)
    if isinstance(components, dict):
        return frozenset(
            component.name
            for key, component in components.items()
            if isinstance(key, str) and key.startswith("tool:")
        )
    return None


#: The inline comment on a tool's decorator that keeps it with the framework (the scanner's
#: ``FRAMEWORK_MARKER``; docs/fastpath-run.md).


def kept_with_framework(function: Callable[..., Any]) -> bool:
    """Whether ``function``'s decorator lines carry ``FRAMEWORK_MARKER`` (read with
    ``linecache``, only for functions without a generated entry)."""
    # linecache (~9 ms with tokenize): only for a function without a generated entry
    import linecache

    code = getattr(getattr(function, "__wrapped__", function), "__code__", None)
    if code is None:
        return False
    lines = linecache.getlines(code.co_filename)
    first = code.co_firstlineno  # the first decorator's line for a decorated function
    for text in lines[first - 1 : first + 49]:
        if text.lstrip().startswith(("def ", "async def ")):
            return False
        if FRAMEWORK_MARKER in text:
            return True
    return False


def _warn_at(function: Callable[..., Any], warning: Warning) -> None:
    """Warn at ``function``'s definition (its file and first line: the user's tool, not the
    framework's registration code that asked), or at the caller when it has no code object."""
    inner = _unwrap(function)
    code = getattr(inner, "__code__", None)
    if code is None:
        warnings.warn(warning, stacklevel=5)
        return
    globals_ = getattr(inner, "__globals__", None)
    warnings.warn_explicit(
        warning,
        type(warning),
        code.co_filename,
        code.co_firstlineno,
        module_globals=globals_ if isinstance(globals_, dict) else None,
    )


def _unwrap(function: Callable[..., Any]) -> Any:
    """The function under ``functools.wraps`` layers and bound methods (standard library only,
    without importing ``inspect``)."""
    seen = set()
    while id(function) not in seen:
        seen.add(id(function))
        inner = getattr(function, "__wrapped__", None) or getattr(function, "__func__", None)
        if inner is None:
            break
        function = inner
    return function


def _function_path(function: Callable[..., Any]) -> str:
    module = getattr(function, "__module__", None) or ""
    if module == "__main__":  # `python -m pkg.server`: the module's real name is on its spec
        module = _main_name() or module
    return f"{module}:{getattr(function, '__qualname__', '')}"


def _main_name() -> str | None:
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    return getattr(spec, "name", None)


def _source_file(function: Callable[..., Any]) -> str | None:
    module = sys.modules.get(getattr(function, "__module__", None) or "")
    path = getattr(module, "__file__", None)
    return path if isinstance(path, str) and path.endswith(".py") else None


def _head(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read(1024)
    except OSError as exc:
        raise GeneratedModuleError(f"{path}: cannot read: {exc}") from exc


def _regenerate_command(directory: str) -> str:
    return regenerate_command(_head(os.path.join(directory, MANIFEST)))
