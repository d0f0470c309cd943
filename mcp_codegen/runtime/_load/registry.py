"""Load generated schema modules into a read-only tool registry.

This module imports only the standard library, and only the cheap parts of it: loading 1,000 tools
must cost little more than importing their literal modules (see ``bench/startup.py``).
"""

from __future__ import annotations

import gc
import importlib
import marshal
import os

from mcp_codegen._shared.format import (
    FORMAT,
    PRIVATE_KEY,
    UNLISTED_KEY,
    GeneratedModuleError,
    check_manifest,
    check_module,
    check_tool,
    tool_server,
)
from mcp_codegen._shared.protocols import (
    FORMAT1_PROTOCOLS,
    NATURAL_KEY,
    variant_for,
)
from mcp_codegen._shared.reader import exec_generated, read_manifest
from mcp_codegen.runtime._load.profiled import ProfileError, profiled_payload, restore
from mcp_codegen.runtime._load.tool_binding import ToolBinding

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds to import; annotations are strings here anyway
    from collections.abc import Callable, Iterator
    from types import ModuleType
    from typing import Any

#: The newest generated-module format this runtime reads (docs/module-format.md).
SUPPORTED_FORMAT = FORMAT
_ModuleType = type(os)


class ToolRegistry:
    """The tools of one generated output, in manifest order.

    Every accessor returns fresh copies, so callers may change what they receive without
    affecting the registry or anyone else.
    """

    def __init__(
        self,
        *,
        origin: str,
        manifest: dict[str, Any],
        tools: list[dict[str, Any]],
        private: list[dict[str, Any]],
        module_paths: list[str],
        flavors: list[str],
        owned: bool,
        unlisted: tuple[tuple[tuple[str, str, str, str, str | None], dict[str, Any]], ...] = (),
    ) -> None:
        self._origin = origin
        self._unlisted = unlisted
        self._manifest = manifest
        self._private = private
        self._module_paths = module_paths
        self._flavors = flavors
        self._names = [tool["name"] for tool in tools]
        self._index = {name: position for position, name in enumerate(self._names)}
        # The canonical data is a marshal snapshot; marshal copies literal-only data in C, far
        # cheaper than copy.deepcopy. When the registry alone holds `tools` (loaded from files,
        # not shared with an imported module), the first list_tools() hands them over as they
        # are instead of copying: nothing else ever sees those objects. Until then they are
        # pristine, so the snapshot waits until something needs it (``wire_tools`` readers
        # never do): a stdio fast-path session answers its tools/list without taking it.
        self._snapshot: bytes | None = None if owned else marshal.dumps(tools)
        self._unclaimed: list[dict[str, Any]] | None = tools if owned else None
        self._tool_payloads: list[bytes] | None = None
        # Tools whose 2026-07-28 variant differs: position -> natural outputSchema (private).
        self._natural = {
            position: entry[NATURAL_KEY]["outputSchema"]
            for position, entry in enumerate(private)
            if NATURAL_KEY in entry
        }
        self._natural_payload: bytes | None = None
        # Set by load_tools(profile=): what tools/list serves, and per tool where null is absent.
        self._profile: str | None = None
        self._served: bytes | None = None
        self._null_means_absent: dict[str, list[tuple[str, ...]]] = {}

    @property
    def _payload(self) -> bytes:
        """The marshal snapshot of the tools, taken while they are still pristine."""
        if self._snapshot is None:
            if self._unclaimed is None:
                raise GeneratedModuleError(
                    f"{self._origin}: this registry handed its tools over and lists them no more"
                )
            self._snapshot = marshal.dumps(self._unclaimed)
        return self._snapshot

    # --- metadata -------------------------------------------------------------------------

    @property
    def origin(self) -> str:
        """The directory or package the tools were loaded from."""
        return self._origin

    @property
    def server_name(self) -> str | None:
        """The ``server_name`` the tree was generated with (the manifest's ``SERVER_NAME``);
        ``None`` when it was generated without one, or before manifests recorded it."""
        return self._manifest.get("SERVER_NAME") or None

    @property
    def schema_set_version(self) -> str:
        """``SCHEMA_SET_VERSION`` from the manifest."""
        return str(self._manifest.get("SCHEMA_SET_VERSION", "0.0.0"))

    @property
    def generator_version(self) -> str:
        """``GENERATOR_VERSION`` from the manifest."""
        return str(self._manifest.get("GENERATOR_VERSION", ""))

    @property
    def flavor(self) -> str:
        """``FLAVOR`` from the manifest (``"clean"`` when absent); each tool's own module
        ``FLAVOR`` is in its ``binding``."""
        return str(self._manifest.get("FLAVOR", "clean"))

    @property
    def protocols(self) -> tuple[str, ...]:
        """The protocol revisions the schemas were generated for (``PROTOCOLS``), oldest first."""
        return tuple(self._manifest.get("PROTOCOLS") or FORMAT1_PROTOCOLS)

    @property
    def modules(self) -> tuple[str, ...]:
        """Generated module paths, relative to the output directory."""
        return tuple(self._manifest["MODULES"])

    # --- tools ----------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._names)

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def __iter__(self) -> Iterator[str]:
        return iter(tuple(self._index))

    def names(self) -> tuple[str, ...]:
        """Tool names in manifest order."""
        return tuple(self._index)

    @property
    def profile(self) -> str | None:
        """The client profile ``tools/list`` is served through (``load_tools(profile=)``)."""
        return self._profile

    def list_tools(self, protocol_version: str | None = None) -> list[dict[str, Any]]:
        """Fresh copies of every tool's wire dict (the generated dict minus ``x-codegen``) as a
        client that negotiated ``protocol_version`` gets them (``None``: the newest revision):
        from 2026-07-28 with natural output schemas, before it boxed; input schemas rewritten by
        the registry's profile when it has one (profiles leave output schemas alone)."""
        natural = self._natural if variant_for(protocol_version) == "natural" else None
        if self._served is not None:
            served: list[dict[str, Any]] = marshal.loads(self._served)
            return _with_natural(served, natural) if natural else served
        if self._unclaimed is not None:
            self._payload  # noqa: B018 - the snapshot, before the caller may change the tools
            tools, self._unclaimed = self._unclaimed, None
            return _with_natural(tools, natural) if natural else tools
        if not natural:
            return marshal.loads(self._payload)  # type: ignore[no-any-return]
        if self._natural_payload is None:
            self._natural_payload = marshal.dumps(
                _with_natural(marshal.loads(self._payload), natural)
            )
        return marshal.loads(self._natural_payload)  # type: ignore[no-any-return]

    def wire_tools(self, protocol_version: str | None = None) -> list[dict[str, Any]]:
        """What ``list_tools(protocol_version)`` returns, for a caller that only reads it (and
        must not change it): the registry's own dicts when no copy is needed, so serialising a
        first listing costs neither a copy nor the snapshot."""
        unclaimed = self._unclaimed
        if (
            unclaimed is not None
            and self._served is None
            and not (self._natural and variant_for(protocol_version) == "natural")
        ):
            return unclaimed
        return self.list_tools(protocol_version)

    def hand_over(self, protocol_version: str | None = None) -> list[dict[str, Any]]:
        """``list_tools(protocol_version)`` for a caller that keeps the tools for good
        (``use_generated``'s index): the loaded dicts, with no snapshot kept, so later listings
        raise ``GeneratedModuleError``; a registry that must copy lists as ``list_tools``."""
        if self._unclaimed is None or self._snapshot is not None or self._served is not None:
            return self.list_tools(protocol_version)
        natural = self._natural if variant_for(protocol_version) == "natural" else None
        tools, self._unclaimed = self._unclaimed, None
        return _with_natural(tools, natural) if natural else tools

    def get_tool(self, name: str, protocol_version: str | None = None) -> dict[str, Any]:
        """A fresh copy of one tool's generated wire dict for ``protocol_version`` (never
        rewritten by a profile: arguments are validated against its ``inputSchema``);
        ``KeyError`` for an unknown name."""
        position = self._index[name]
        if self._tool_payloads is None:
            self._tool_payloads = [marshal.dumps(tool) for tool in marshal.loads(self._payload)]
        tool: dict[str, Any] = marshal.loads(self._tool_payloads[position])
        if position in self._natural and variant_for(protocol_version) == "natural":
            _with_natural([tool], {0: self._natural[position]})
        return tool

    def restore_arguments(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """``arguments`` as the generated schema reads them: where the profile made an optional
        property required and nullable, ``null`` means "absent". Unchanged without a profile."""
        return restore(arguments, self._null_means_absent.get(name))

    def _serve_profile(self, profile: str) -> None:
        try:
            self._served, self._null_means_absent = profiled_payload(
                self._payload, profile, self._origin
            )
        except ProfileError as exc:
            raise GeneratedModuleError(str(exc)) from None
        self._profile = profile

    def binding(self, name: str) -> ToolBinding:
        """The function path and box of one tool; ``KeyError`` for an unknown name."""
        position = self._index[name]
        private = self._private[position]
        box = private.get("box")
        return ToolBinding(
            name=name,
            function=private["function"],
            box_field=box["field"] if box else None,
            module_path=self._module_paths[position],
            line=private.get("line", 0),
            column=private.get("column", 0),
            flavor=self._flavors[position],
            registrar=private.get("registrar"),
            registrar_parameter=private.get("registrar_parameter"),
            result_meta=private.get("result_meta"),
            natural=NATURAL_KEY in private,
            factory=private.get("factory"),
        )

    def locations(self) -> list[tuple[str, str, str, str, str | None]]:
        """``(name, function, module_path, flavor, function_sha256)`` of every tool, in manifest
        order: what ``binding`` says about where a tool lives, without building a binding per
        tool (``function_sha256``: the digest of the function's file when another file than the
        module's source defines it, else None)."""
        return [
            (name, private["function"], module_path, flavor, private.get("function_sha256"))
            for name, private, module_path, flavor in zip(
                self._names, self._private, self._module_paths, self._flavors, strict=True
            )
        ]

    def unlisted_locations(
        self,
    ) -> tuple[tuple[tuple[str, str, str, str, str | None], dict[str, Any]], ...]:
        """``(location, wire dict)`` of each tool its server registers but does not list
        (``x-codegen.unlisted``: removed at import), as ``locations`` gives them: only the hook
        reads these (the framework finds the function registered and applies the removal);
        no listing, call or count of this registry includes them."""
        return self._unlisted

    def servers(self) -> list[str | None]:
        """The server each tool is registered on (``x-codegen.server``, or its factory call;
        None when unknown), in manifest order, aligned with ``wire_tools``."""
        return [tool_server(private) for private in self._private]

    def __repr__(self) -> str:
        return f"<ToolRegistry {len(self)} tools from {self._origin}>"


def _composed_hint(server: str | None, other: str | None) -> str:
    if not (server and other and server != other):
        return ""
    return (
        f"; the two are on different servers ({other}, {server}) of a composed package: "
        "mcp_codegen.runtime serves one flat list, so serve your own composed server with "
        "`mcp-codegen run` or `use_generated`"
    )


def _with_natural(
    tools: list[dict[str, Any]], natural: dict[int, dict[str, Any]]
) -> list[dict[str, Any]]:
    """``tools`` with the natural output schemas (copied: the registry keeps its own) in place."""
    for position, schema in natural.items():
        tools[position]["outputSchema"] = marshal.loads(marshal.dumps(schema))
    return tools


def load_tools(
    source: str | os.PathLike[str] | ModuleType, *, profile: str | None = None
) -> ToolRegistry:
    """Load the generated output at ``source``.

    ``source`` is the output directory (or its ``__init__.py`` manifest), which need not be
    importable, or an imported output package / its dotted name, whose modules are then imported
    as submodules. ``profile`` (``"openai-strict"``, ``"gemini"``, ``"claude"``) serves
    ``tools/list`` through that client profile; a tool it cannot express fails the load.
    """
    registry = _load(source)
    if profile is not None:
        registry._serve_profile(profile)
    return registry


def load_composed(source: str | os.PathLike[str]) -> ToolRegistry:
    """``load_tools`` for the hook and ``mcp-codegen run``'s fast path: a tree of a composed
    package, whose servers share tool names (each entry keyed by ``x-codegen.server``), loads
    too; its name-keyed accessors (``get_tool``, ``binding``) are then not to be used."""
    return _load(source, composed=True)


def _load(source: str | os.PathLike[str] | ModuleType, *, composed: bool = False) -> ToolRegistry:
    collecting = gc.isenabled()
    gc.disable()  # loading only allocates acyclic literals: collection passes would find nothing
    try:
        if isinstance(source, _ModuleType):
            return _load_package(source)
        path = os.fspath(source)
        if os.path.basename(path) == "__init__.py" and os.path.isfile(path):
            path = os.path.dirname(path) or "."
        if os.path.isdir(path):
            return _load_directory(path, composed)
        if path and all(part.isidentifier() for part in path.split(".")):
            try:
                package = importlib.import_module(path)
            except ImportError as exc:
                raise GeneratedModuleError(
                    f"{path}: no such directory, and importing it as a package failed: {exc}"
                ) from exc
            return _load_package(package)
        raise GeneratedModuleError(f"{path}: no such directory; run `mcp-codegen generate` first")
    finally:
        if collecting:
            gc.enable()


def _load_directory(directory: str, composed: bool = False) -> ToolRegistry:
    directory = os.path.abspath(directory)
    manifest_path = os.path.join(directory, "__init__.py")
    manifest = read_manifest(directory)

    def read(relative: str) -> dict[str, Any]:
        dotted = relative.removesuffix(".py").replace("/", ".")
        return exec_generated(os.path.join(directory, *relative.split("/")), dotted)

    return _build(directory, manifest, manifest_path, read, owned=True, composed=composed)


def _load_package(package: ModuleType) -> ToolRegistry:
    manifest = vars(package)
    manifest_path = getattr(package, "__file__", None) or package.__name__
    check_manifest(manifest, manifest_path)

    def read(relative: str) -> dict[str, Any]:
        dotted = relative.removesuffix(".py").replace("/", ".")
        try:
            return vars(importlib.import_module(f"{package.__name__}.{dotted}"))
        except ImportError as exc:
            raise GeneratedModuleError(f"{manifest_path}: cannot import {relative}: {exc}") from exc

    return _build(package.__name__, manifest, manifest_path, read, owned=False)


def _build(
    origin: str,
    manifest: dict[str, Any],
    manifest_path: str,
    read: Callable[[str], dict[str, Any]],
    *,
    owned: bool,
    composed: bool = False,
) -> ToolRegistry:
    """Collect and check the tools; ``owned``: nobody else holds the module data; ``composed``:
    a name may repeat on different servers (``SERVER_KEY`` or factory calls that differ)."""
    tools: list[dict[str, Any]] = []
    private: list[dict[str, Any]] = []
    module_paths: list[str] = []
    flavors: list[str] = []
    seen: dict[str, tuple[str, str | None]] = {}
    unlisted: list[tuple[tuple[str, str, str, str, str | None], dict[str, Any]]] = []
    for relative in manifest["MODULES"]:
        namespace = read(relative)
        flavor = check_module(namespace, manifest, relative)
        for tool in namespace["TOOLS"]:
            name = check_tool(tool, relative)
            server = tool_server(tool[PRIVATE_KEY])
            if name in seen:
                other, other_server = seen[name]
                if not (composed and server and other_server and server != other_server):
                    raise GeneratedModuleError(
                        f"{relative}: duplicate tool name {name!r} (also in {other})"
                        + _composed_hint(server, other_server)
                    )
            seen[name] = (relative, server)
            meta = tool[PRIVATE_KEY]
            if meta.get(UNLISTED_KEY) is True:  # removed at import: for the hook only
                wire = {key: value for key, value in tool.items() if key != PRIVATE_KEY}
                where = (name, meta["function"], relative, flavor, meta.get("function_sha256"))
                unlisted.append((where, wire))
                continue
            if owned:  # our private exec namespace: strip the key in place
                private.append(tool.pop(PRIVATE_KEY))
                tools.append(tool)
            else:  # an imported module's data, which others may read: copy
                tools.append({key: value for key, value in tool.items() if key != PRIVATE_KEY})
                private.append(tool[PRIVATE_KEY])
            module_paths.append(relative)
            flavors.append(flavor)
    if (
        "TOOL_COUNT" in manifest and len(tools) + len(unlisted) != manifest["TOOL_COUNT"]
    ):  # formats 1 and 2
        raise GeneratedModuleError(
            f"{manifest_path}: TOOL_COUNT is {manifest['TOOL_COUNT']} but the modules hold "
            f"{len(tools)} tools; the generated files are out of step, regenerate them"
        )
    return ToolRegistry(
        origin=origin,
        manifest={key: manifest[key] for key in manifest if key.isupper()},
        tools=tools,
        private=private,
        module_paths=module_paths,
        flavors=flavors,
        owned=owned,
        unlisted=tuple(unlisted),
    )
