"""Stage 1: find tool functions in source with libcst. No user code runs here.

The entry points; the walk is ``mcp_codegen._generator.scan.visitor``, the trees' helpers ``mcp_codegen._generator.scan.syntax``,
decorator options and their messages ``mcp_codegen._generator.scan.options``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import libcst as cst

from mcp_codegen._generator.model import ScannedModule, SourceFile
from mcp_codegen._generator.scan.options import (
    ANNOTATION_KEYS,
    ANNOTATIONS_AS_WRITTEN,
    SHORTHAND_ANNOTATIONS,
)
from mcp_codegen._generator.scan.syntax import PositionIndex, import_aliases, parse_module
from mcp_codegen._generator.scan.visitor import ToolVisitor
from mcp_codegen._shared.diagnostics import Diagnostic

TYPE_CHECKING = False
if TYPE_CHECKING:  # a scan worker never reads the configuration (tomllib, profiles: ~8 ms)
    from mcp_codegen._generator.config import Config

__all__ = [
    "ANNOTATIONS_AS_WRITTEN",
    "ANNOTATION_KEYS",
    "SHORTHAND_ANNOTATIONS",
    "scan",
    "scan_file",
    "scan_source",
]


def scan_source(
    source: SourceFile,
    patterns: Sequence[str],
    factories: Mapping[str, str] | None = None,
    *,
    on_tree: Callable[[ast.Module], None] | None = None,
    framework: bool = False,
) -> ScannedModule | None:
    """Scan one source file; ``None`` when it defines no tools. Problems come back as diagnostics.

    ``factories`` maps the qualnames of this module's configured factory functions to their
    calls: tools defined inside them take what the factory's server registers. ``on_tree``
    receives the ``ast`` tree of the source once parsed (a worker's ``SourceIndex`` reuses it).
    ``framework``: a framework flavor, where a module's own collecting ``def tool`` is no tool
    decorator (in the clean flavor the configured names are the markers, wherever defined).
    """
    relative = source.relative_path
    data = source.data
    base = source.location()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return ScannedModule(
            **base,
            tools=(),
            diagnostics=(
                Diagnostic(
                    relative,
                    line,
                    column,
                    f"source is not valid UTF-8 ({exc.reason}); save the file as UTF-8",
                ),
            ),
        )
    try:
        # CPython's parser first: its syntax error positions are the ones users know.
        syntax = ast.parse(data, filename=relative)
        positions = PositionIndex(syntax, data)
    except (SyntaxError, ValueError) as exc:
        line, column = getattr(exc, "lineno", 1) or 1, getattr(exc, "offset", 1) or 1
        message = getattr(exc, "msg", str(exc))
        return ScannedModule(
            **base,
            tools=(),
            diagnostics=(
                Diagnostic(relative, line, column, f"syntax error: {message}; fix the source"),
            ),
        )
    if on_tree is not None:
        on_tree(syntax)
    try:
        tree = parse_module(text)
    except cst.ParserSyntaxError as exc:
        return ScannedModule(
            **base,
            tools=(),
            diagnostics=(
                Diagnostic(
                    relative,
                    exc.raw_line,
                    exc.raw_column + 1,
                    f"syntax error: {exc.message}; fix the source",
                ),
            ),
        )
    reach = reached(syntax, factories or {})
    visitor = ToolVisitor(source, patterns, tree, import_aliases(tree), positions, reach, framework)
    visitor.walk(tree.body)
    visitor.finish()
    if not visitor.tools and not visitor.diagnostics:
        return None
    return ScannedModule(**base, tools=tuple(visitor.tools), diagnostics=tuple(visitor.diagnostics))


def scan_file(path: Path, config: Config) -> ScannedModule | None:
    """Read and scan one file (``scan_source`` is what the generator's workers run)."""
    # the configuration with it (~12 ms: difflib, _profiles): a scanning worker never reads files
    from mcp_codegen._generator.discover import load_source, may_define_tools

    source = load_source(path, config)
    if not may_define_tools(source, config.decorators):
        return None
    return scan_source(source, config.decorators)


def scan(files: Iterable[Path], config: Config) -> list[ScannedModule]:
    """Scan every file; modules without tools are left out."""
    return [m for path in files if (m := scan_file(path, config)) is not None]


def reached(tree: ast.Module, factories: Mapping[str, str]) -> dict[str, str]:
    """``factories`` plus each module-level function a configured factory function calls by
    name, directly or through another (``main()`` calling ``setup()``), under the same call: its
    registrations happen when the entry is called. An entry of its own keeps its own call."""
    functions = {
        node.name: node
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    found = dict(factories)
    pending = [(name, call) for name, call in factories.items() if name in functions]
    while pending:
        name, call = pending.pop()
        for node in ast.walk(functions[name]):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in functions
                and node.func.id not in found
            ):
                found[node.func.id] = call
                pending.append((node.func.id, call))
    return found
