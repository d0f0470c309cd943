"""The one reader of generated trees (standard library only, and only its cheap parts at import).

Two ways in, one set of checks (``mcp_codegen._shared.format``):

- ``parse_literal_module`` / ``read_tree``: ``ast.literal_eval`` of each assignment, for text that
  may be old, foreign or taken from git objects (``export``, ``lint``, ``verify``, ``diff``):
  nothing is imported or executed.
- ``exec_generated`` / ``read_manifest``: run the file's cached bytecode in an empty namespace
  with no builtins, for the runtime, which serves the tree it was deployed with and must load
  1,000 tools in milliseconds (``bench/startup.py``).
"""

from __future__ import annotations

import os
from importlib.machinery import SourceFileLoader

from mcp_codegen._shared.format import (
    MANIFEST,
    PRIVATE_KEY,
    GeneratedModuleError,
    check_manifest,
    is_generated_file,
    is_listed,
)
from mcp_codegen._shared.protocols import (
    FORMAT1_PROTOCOLS,
    missing_variant,
    sort_revisions,
    tool_variant,
    variant_for,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # the runtime imports this module: no typing import at run time
    from pathlib import Path
    from typing import Any

#: Names under which ``exec_generated`` runs modules; never put in ``sys.modules``.
_EXEC_PREFIX = "_mcp_codegen_generated"


def parse_literal_module(text: str, filename: str = "<generated>") -> dict[str, Any]:
    """The ``NAME = <literal>`` assignments of a generated module, as Python values.

    Nothing is imported or executed; anything but literal assignments is refused.
    """
    import ast  # ~9 ms: the runtime loads trees with exec_generated and never parses

    try:
        tree = ast.parse(text, filename=filename)
    except SyntaxError as exc:
        raise GeneratedModuleError(
            f"not valid Python: {exc.msg}", filename, exc.lineno or 1, exc.offset or 1
        ) from None
    values: dict[str, Any] = {}
    for node in tree.body:
        if not (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            raise GeneratedModuleError(
                "generated modules hold only literal assignments; was the file edited by hand? "
                "Regenerate it",
                filename,
                node.lineno,
                node.col_offset + 1,
            )
        name = node.targets[0].id
        try:
            values[name] = ast.literal_eval(node.value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise GeneratedModuleError(
                f"{name} is not a literal; regenerate the file",
                filename,
                node.lineno,
                node.col_offset + 1,
            ) from None
    return values


def read_tree(output: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The manifest and every module of a generated tree, in manifest order (literal reading)."""
    manifest_path = output / MANIFEST
    if not manifest_path.is_file():
        raise GeneratedModuleError(
            "no generated manifest; run `mcp-codegen generate` first", str(manifest_path)
        )
    manifest = parse_literal_module(manifest_path.read_text(encoding="utf-8"), str(manifest_path))
    modules = []
    for relative in manifest.get("MODULES", ()):
        path = output / relative
        if not path.is_file():
            raise GeneratedModuleError("listed in the manifest but missing; regenerate", str(path))
        modules.append(parse_literal_module(path.read_text(encoding="utf-8"), str(path)))
    return manifest, modules


def existing_generated(output: Path) -> dict[str, Path]:
    """Generated files currently under ``output`` (their first line says so), keyed by their
    relative path; nothing else there is ours to replace or read."""
    if not output.is_dir():
        return {}
    found = {}
    for path in sorted(output.rglob("*.py")):
        if "__pycache__" not in path.parts and is_generated_file(str(path)):
            found[path.relative_to(output).as_posix()] = path
    return found


def exec_generated(path: str, dotted: str = "") -> dict[str, Any]:
    """Run a generated file and return its globals, using its cached ``.pyc`` when valid.

    The namespace has no builtins: a literal-only module needs none, and anything else fails.
    """
    name = f"{_EXEC_PREFIX}.{dotted}" if dotted else _EXEC_PREFIX
    loader = SourceFileLoader(name, path)
    try:
        code = loader.get_code(name)
    except OSError as exc:
        raise GeneratedModuleError(f"cannot read: {exc}", path) from exc
    except SyntaxError as exc:
        raise GeneratedModuleError(f"{path}:{exc.lineno}: not a valid generated module") from exc
    namespace: dict[str, Any] = {"__name__": name, "__file__": path, "__builtins__": {}}
    try:
        exec(code, namespace)  # generated modules hold literal assignments only
    except Exception as exc:
        raise GeneratedModuleError(f"not a literal-only generated module: {exc!r}", path) from exc
    return namespace


def read_manifest(directory: str | os.PathLike[str]) -> dict[str, Any]:
    """The checked manifest of the output directory ``directory``; no module is loaded."""
    if not os.path.isdir(path := os.path.abspath(directory)):
        raise GeneratedModuleError(f"{path}: no such directory; run `mcp-codegen generate` first")
    manifest_path = os.path.join(path, MANIFEST)
    if not os.path.isfile(manifest_path):
        raise GeneratedModuleError(
            f"manifest not found; is {path} a generated output directory?", manifest_path
        )
    manifest = exec_generated(manifest_path)
    check_manifest(manifest, manifest_path)
    return manifest


def module_protocols(values: dict[str, Any]) -> tuple[str, ...]:
    """The revisions a generated module (or manifest) was built for; format 1 predates them."""
    protocols = values.get("PROTOCOLS")
    if isinstance(protocols, tuple | list) and protocols:
        return sort_revisions(protocols)
    return FORMAT1_PROTOCOLS


def wire_tools(
    modules: list[dict[str, Any]], protocol_version: str | None = None
) -> list[dict[str, Any]]:
    """The tools/list entries a client that negotiated ``protocol_version`` gets (``None``: the
    newest revision): every listed generated tool (not ``x-codegen.unlisted``) in that
    revision's variant, minus ``x-codegen``."""
    variant = variant_for(protocol_version)
    tools = []
    for module in modules:
        problem = missing_variant(module_protocols(module), protocol_version)
        if problem is not None:
            raise GeneratedModuleError(problem, str(module.get("SOURCE_PATH", "<generated>")))
        for tool in module.get("TOOLS", ()):
            if not is_listed(tool):  # its server does not list it (removed at import)
                continue
            wire = {key: value for key, value in tool.items() if key != PRIVATE_KEY}
            tools.append(tool_variant(wire, tool.get(PRIVATE_KEY) or {}, variant)[0])
    return tools
