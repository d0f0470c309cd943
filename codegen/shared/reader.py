"""Read generated modules without importing them: ``ast.literal_eval`` of each assignment.

Used by ``export`` (and usable on text taken from git objects): old or foreign generated code is
never executed.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from codegen.shared.format import MANIFEST
from codegen.shared.protocols import (
    FORMAT1_PROTOCOLS,
    missing_variant,
    sort_revisions,
    tool_variant,
    variant_for,
)

WIRE_EXCLUDED = frozenset({"x-codegen"})


class GeneratedModuleError(ValueError):
    """A generated file that is not a pure literal module, with the position of the problem."""

    def __init__(self, path: str, line: int, column: int, message: str) -> None:
        self.path, self.line, self.column, self.message = path, line, column, message
        where = f"{path}:{line}:{column}" if line else path
        super().__init__(f"{where}: {message}")


def parse_literal_module(text: str, filename: str = "<generated>") -> dict[str, Any]:
    """The ``NAME = <literal>`` assignments of a generated module, as Python values.

    Nothing is imported or executed; anything but literal assignments is refused.
    """
    try:
        tree = ast.parse(text, filename=filename)
    except SyntaxError as exc:
        raise GeneratedModuleError(
            filename, exc.lineno or 1, exc.offset or 1, f"not valid Python: {exc.msg}"
        ) from None
    values: dict[str, Any] = {}
    for node in tree.body:
        if not (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            raise GeneratedModuleError(
                filename,
                node.lineno,
                node.col_offset + 1,
                "generated modules hold only literal assignments; was the file edited by hand? "
                "Regenerate it",
            )
        name = node.targets[0].id
        try:
            values[name] = ast.literal_eval(node.value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise GeneratedModuleError(
                filename,
                node.lineno,
                node.col_offset + 1,
                f"{name} is not a literal; regenerate the file",
            ) from None
    return values


def read_tree(output: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The manifest and every module of a generated tree, in manifest order."""
    manifest_path = output / MANIFEST
    if not manifest_path.is_file():
        raise GeneratedModuleError(
            str(manifest_path), 0, 0, "no generated manifest; run `mcp-codegen generate` first"
        )
    manifest = parse_literal_module(manifest_path.read_text(encoding="utf-8"), str(manifest_path))
    modules = []
    for relative in manifest.get("MODULES", ()):
        path = output / relative
        if not path.is_file():
            raise GeneratedModuleError(
                str(path), 0, 0, "listed in the manifest but missing; regenerate"
            )
        modules.append(parse_literal_module(path.read_text(encoding="utf-8"), str(path)))
    return manifest, modules


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
    newest revision): every generated tool in that revision's variant, minus ``x-codegen``."""
    variant = variant_for(protocol_version)
    tools = []
    for module in modules:
        problem = missing_variant(module_protocols(module), protocol_version)
        if problem is not None:
            raise GeneratedModuleError(str(module.get("SOURCE_PATH", "<generated>")), 0, 0, problem)
        for tool in module.get("TOOLS", ()):
            wire = {key: value for key, value in tool.items() if key not in WIRE_EXCLUDED}
            tools.append(tool_variant(wire, tool.get("x-codegen") or {}, variant)[0])
    return tools
