"""What the scanner reads from the two trees of one file: positions and exact source text from the
stdlib ``ast`` (free, where libcst's providers are slow), module imports and statement blocks from
libcst."""

from __future__ import annotations

import ast
from collections.abc import Sequence

import libcst as cst
from libcst.helpers import get_full_name_for_node

from mcp_codegen._generator.model import Position


def _skip_validation(node: cst.CSTNode) -> None:
    pass


def parse_module(text: str) -> cst.Module:
    """``cst.parse_module(text)`` without validating each node as it is built.

    libcst's native parser builds the tree by calling each node class, whose ``__post_init__``
    runs ``_validate`` (``libcst/_nodes/base.py`` notes that parsing need not validate): ~20% of a
    parse, ~6 ms of a 50-tool module. The text was parsed by CPython's own parser first, and what
    the parser builds is valid by construction; the tree is the same (``deep_equals``, see
    tests/generator/scan/test_unvalidated_parse.py). Syntax errors are the parser's, and still
    raised. Nodes built elsewhere (none are while the parser runs) keep their validation.
    """
    validate = cst.CSTNode.__dict__.get("__post_init__")
    if validate is None:  # a libcst without it: parse as it does
        return cst.parse_module(text)
    cst.CSTNode.__post_init__ = _skip_validation  # type: ignore[method-assign]
    try:
        return cst.parse_module(text)
    finally:
        cst.CSTNode.__post_init__ = validate  # type: ignore[method-assign]


def import_aliases(tree: cst.Module) -> dict[str, str]:
    """Local name -> imported dotted name, for module-level imports.

    This is the part of libcst's ``QualifiedNameProvider`` the scanner needs (``from x import tool as
    t`` makes ``@t`` mean ``x.tool``), without its whole-module scope analysis, which costs ~0.2 s
    per 500-line module and would dominate generation time.
    """
    aliases: dict[str, str] = {}
    for statement in tree.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Import):
                for alias in small.names:
                    dotted = get_full_name_for_node(alias.name) or ""
                    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                        aliases[alias.asname.name.value] = dotted
            elif isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                base = "." * len(small.relative) + (
                    get_full_name_for_node(small.module) or "" if small.module else ""
                )
                for alias in small.names:
                    name = get_full_name_for_node(alias.name) or ""
                    local = (
                        alias.asname.name.value
                        if alias.asname is not None and isinstance(alias.asname.name, cst.Name)
                        else name
                    )
                    aliases[local] = (
                        f"{base}.{name}" if base and not base.endswith(".") else base + name
                    )
    return aliases


def ast_defaults(arguments: ast.arguments) -> dict[str, ast.expr]:
    """Parameter name -> default expression, undoing ast's right-aligned ``defaults`` list."""
    positional = [*arguments.posonlyargs, *arguments.args]
    found = dict(
        zip(
            [a.arg for a in positional[len(positional) - len(arguments.defaults) :]],
            arguments.defaults,
            strict=True,
        )
    )
    for argument, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True):
        if default is not None:
            found[argument.arg] = default
    return found


class PositionIndex:
    """Source positions from the stdlib ``ast`` of the same file.

    libcst's ``PositionProvider`` regenerates the whole module to compute positions (~0.08 s per
    500 lines); the stdlib parser records them for free. Function definitions are paired by source
    order, which both trees visit identically.
    """

    def __init__(self, tree: ast.Module, source: bytes) -> None:
        self.tree = tree
        self.functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        self._collect(tree.body)
        self.lines = source.splitlines()
        self.cursor = 0

    def _collect(self, body: list[ast.stmt]) -> None:
        """Function definitions in source order, descending through statement bodies only."""
        for statement in body:
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                self.functions.append(statement)
            for attribute in ("body", "handlers", "orelse", "finalbody", "cases"):  # source order
                children = getattr(statement, attribute, None)
                if isinstance(children, list):
                    nested = [c for c in children if isinstance(c, ast.stmt)]
                    nested += [
                        h for h in children if isinstance(h, ast.excepthandler | ast.match_case)
                    ]
                    for child in nested:
                        if isinstance(child, ast.stmt):
                            self._collect([child])
                        else:
                            self._collect(child.body)

    def next_function(self, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef:
        function = self.functions[self.cursor]
        self.cursor += 1
        if function.name != name:  # both parsers saw the same file; this is a bug if it fires
            raise AssertionError(f"position index out of step at {name!r} / {function.name!r}")
        return function

    def source(self, node: ast.AST) -> str:
        """The exact source text of ``node`` (ast offsets are UTF-8 byte offsets)."""
        start, end = node.lineno, node.end_lineno or node.lineno
        if start == end:
            text = self.lines[start - 1][node.col_offset : node.end_col_offset]
        else:
            first = self.lines[start - 1][node.col_offset :]
            middle = self.lines[start : end - 1]
            last = self.lines[end - 1][: node.end_col_offset]
            text = b"\n".join([first, *middle, last])
        return text.decode("utf-8", "replace")

    def of(self, node: ast.AST) -> Position:
        """1-based line and character (not byte) column of ``node``."""
        line = getattr(node, "lineno", 1)
        offset = getattr(node, "col_offset", 0)
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else b""
        return Position(line, len(text[:offset].decode("utf-8", "replace")) + 1)


def suite(node: cst.BaseSuite | None) -> Sequence[cst.BaseStatement]:
    """The statements of a block (a one-line suite holds only small statements)."""
    return node.body if isinstance(node, cst.IndentedBlock) else ()


def nested_blocks(statement: cst.BaseCompoundStatement) -> list[Sequence[cst.BaseStatement]]:
    """The blocks of a compound statement, in source order (as ``PositionIndex`` visits them)."""
    blocks = [suite(statement.body)] if not isinstance(statement, cst.Match) else []
    if isinstance(statement, cst.Try | cst.TryStar):
        blocks += [suite(handler.body) for handler in statement.handlers]
    if isinstance(statement, cst.Match):
        blocks += [suite(case.body) for case in statement.cases]
    orelse = getattr(statement, "orelse", None)
    while isinstance(orelse, cst.If):  # elif chains
        blocks.append(suite(orelse.body))
        orelse = orelse.orelse
    if isinstance(orelse, cst.Else):
        blocks.append(suite(orelse.body))
    finalbody = getattr(statement, "finalbody", None)
    if isinstance(finalbody, cst.Finally):
        blocks.append(suite(finalbody.body))
    return blocks
