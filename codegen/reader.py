"""Read generated modules without importing them: ``ast.literal_eval`` of each assignment.

Used by ``export`` (and usable on text taken from git objects): old or foreign generated code is
never executed.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from codegen.layout import MANIFEST

WIRE_EXCLUDED = frozenset({"x-codegen"})


class GeneratedModuleError(ValueError):
    """A generated file that is not a pure literal module."""


def parse_literal_module(text: str, filename: str = "<generated>") -> dict[str, Any]:
    """The ``NAME = <literal>`` assignments of a generated module, as Python values."""
    try:
        tree = ast.parse(text, filename=filename)
    except SyntaxError as exc:
        raise GeneratedModuleError(
            f"{filename}:{exc.lineno}: not valid Python: {exc.msg}"
        ) from None
    values: dict[str, Any] = {}
    for node in tree.body:
        if not (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            raise GeneratedModuleError(
                f"{filename}:{node.lineno}: generated modules hold only literal assignments; "
                "was the file edited by hand? Regenerate it"
            )
        try:
            values[node.targets[0].id] = ast.literal_eval(node.value)
        except ValueError:
            raise GeneratedModuleError(
                f"{filename}:{node.lineno}: {node.targets[0].id} is not a literal; regenerate the file"
            ) from None
    return values


def read_tree(output: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The manifest and every module of a generated tree, in manifest order."""
    manifest_path = output / MANIFEST
    if not manifest_path.is_file():
        raise GeneratedModuleError(
            f"{manifest_path}: no generated manifest; run `mcp-codegen generate` first"
        )
    manifest = parse_literal_module(manifest_path.read_text(encoding="utf-8"), str(manifest_path))
    modules = []
    for relative in manifest.get("MODULES", ()):
        path = output / relative
        if not path.is_file():
            raise GeneratedModuleError(f"{path}: listed in the manifest but missing; regenerate")
        modules.append(parse_literal_module(path.read_text(encoding="utf-8"), str(path)))
    return manifest, modules


def wire_tools(modules: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tools/list entries: every generated tool minus the generator's own keys."""
    return [
        {key: value for key, value in tool.items() if key not in WIRE_EXCLUDED}
        for module in modules
        for tool in module.get("TOOLS", ())
    ]
