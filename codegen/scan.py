"""Stage 1: find tool functions in source with libcst. No user code runs here."""

from __future__ import annotations

import ast
import fnmatch
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache, partial
from pathlib import Path

import libcst as cst
from libcst.helpers import get_full_name_for_node

from codegen.config import Config
from codegen.errors import Diagnostic
from codegen.model import (
    JSON,
    Position,
    ScannedModule,
    ScannedParameter,
    ScannedTool,
    SourceFile,
)
from codegen.sources import load_source, may_define_tools

#: ``ToolAnnotations(...)`` keyword names (snake_case) and the seed-001 shorthands, to MCP wire names.
ANNOTATION_KEYS = {
    "title": "title",
    "read_only_hint": "readOnlyHint",
    "destructive_hint": "destructiveHint",
    "idempotent_hint": "idempotentHint",
    "open_world_hint": "openWorldHint",
}
SHORTHAND_ANNOTATIONS = {
    "read_only": "readOnlyHint",
    "destructive": "destructiveHint",
    "idempotent": "idempotentHint",
    "open_world": "openWorldHint",
}
_NOT_LITERAL = object()
#: Option key holding a ``ToolAnnotations(...)`` call's keywords as written (see ``_record``).
ANNOTATIONS_AS_WRITTEN = "annotations_as_written"


def scan_source(source: SourceFile, patterns: Sequence[str]) -> ScannedModule | None:
    """Scan one source file; ``None`` when it defines no tools. Problems come back as diagnostics."""
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
        positions = _PositionIndex(ast.parse(data, filename=relative), data)
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
    try:
        tree = cst.parse_module(text)
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
    is_package = Path(source.path).name == "__init__.py"
    imported = partial(_imported_constant, source.module, Path(source.import_root), is_package)
    visitor = _ToolVisitor(relative, patterns, tree, _import_aliases(tree), positions, imported)
    visitor.walk(tree.body)
    if not visitor.tools and not visitor.diagnostics:
        return None
    return ScannedModule(**base, tools=tuple(visitor.tools), diagnostics=tuple(visitor.diagnostics))


def scan_file(path: Path, config: Config) -> ScannedModule | None:
    """Read and scan one file (``scan_source`` is what the generator's workers run)."""
    source = load_source(path, config)
    if not may_define_tools(source, config.decorators):
        return None
    return scan_source(source, config.decorators)


def scan(files: Iterable[Path], config: Config) -> list[ScannedModule]:
    """Scan every file; modules without tools are left out."""
    return [m for path in files if (m := scan_file(path, config)) is not None]


def _literal(code: str) -> object:
    try:
        return ast.literal_eval(code.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _NOT_LITERAL


def _module_constants(tree: cst.Module) -> dict[str, object]:
    """Top-level ``NAME = <literal>`` assignments, so decorator arguments may name them."""
    constants: dict[str, object] = {}
    for statement in tree.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                target, value = small.targets[0].target, small.value
            elif isinstance(small, cst.AnnAssign) and small.value is not None:
                target, value = small.target, small.value
            else:
                continue
            if isinstance(target, cst.Name):
                literal = _literal(tree.code_for_node(value))
                if literal is _NOT_LITERAL:
                    constants.pop(target.value, None)
                else:
                    constants[target.value] = literal
    return constants


def _file_constants(path: Path) -> dict[str, object]:
    """Top-level literal assignments of another source file (read with ``ast``, never run)."""
    try:
        return _constants_of(path.read_bytes())
    except OSError:
        return {}


@lru_cache(maxsize=256)
def _constants_of(source: bytes) -> dict[str, object]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    constants: dict[str, object] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0], statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            target, value = statement.target, statement.value
        else:
            continue
        if isinstance(target, ast.Name):
            try:
                constants[target.id] = ast.literal_eval(value)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                constants.pop(target.id, None)
    return constants


def _imported_constant(module: str, import_root: Path, is_package: bool, dotted: str) -> object:
    """The literal value of ``from pkg.consts import NAME`` (or a relative import), read from
    ``pkg/consts.py`` below the importing module's import root; ``_NOT_LITERAL`` otherwise."""
    level = len(dotted) - len(dotted.lstrip("."))
    parts = dotted.lstrip(".").split(".")
    if level:
        package = module.split(".") if is_package else module.split(".")[:-1]
        if level - 1 > len(package):
            return _NOT_LITERAL
        parts = package[: len(package) - (level - 1)] + parts
    *module_parts, name = parts
    if not module_parts:
        return _NOT_LITERAL
    base = import_root.joinpath(*module_parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return _file_constants(candidate).get(name, _NOT_LITERAL)
    return _NOT_LITERAL


def _import_aliases(tree: cst.Module) -> dict[str, str]:
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


def _ast_defaults(arguments: ast.arguments) -> dict[str, ast.expr]:
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


class _PositionIndex:
    """Source positions from the stdlib ``ast`` of the same file.

    libcst's ``PositionProvider`` regenerates the whole module to compute positions (~0.08 s per
    500 lines); the stdlib parser records them for free. Function definitions are paired by source
    order, which both trees visit identically.
    """

    def __init__(self, tree: ast.Module, source: bytes) -> None:
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


def _suite(node: cst.BaseSuite | None) -> Sequence[cst.BaseStatement]:
    """The statements of a block (a one-line suite holds only small statements)."""
    return node.body if isinstance(node, cst.IndentedBlock) else ()


def _nested_blocks(statement: cst.BaseCompoundStatement) -> list[Sequence[cst.BaseStatement]]:
    """The blocks of a compound statement, in source order (as ``_PositionIndex`` visits them)."""
    blocks = [_suite(statement.body)] if not isinstance(statement, cst.Match) else []
    if isinstance(statement, cst.Try | cst.TryStar):
        blocks += [_suite(handler.body) for handler in statement.handlers]
    if isinstance(statement, cst.Match):
        blocks += [_suite(case.body) for case in statement.cases]
    orelse = getattr(statement, "orelse", None)
    while isinstance(orelse, cst.If):  # elif chains
        blocks.append(_suite(orelse.body))
        orelse = orelse.orelse
    if isinstance(orelse, cst.Else):
        blocks.append(_suite(orelse.body))
    finalbody = getattr(statement, "finalbody", None)
    if isinstance(finalbody, cst.Finally):
        blocks.append(_suite(finalbody.body))
    return blocks


class _ToolVisitor:
    def __init__(
        self,
        relative: str,
        patterns: Sequence[str],
        module: cst.Module,
        aliases: dict[str, str],
        positions: _PositionIndex,
        imported: Callable[[str], object] | None = None,
    ) -> None:
        self.relative = relative
        self.imported = imported
        self.patterns = tuple(patterns)
        self._constants: dict[str, object] | None = None
        self.aliases = aliases
        self.positions = positions
        self.scope: list[str] = []
        self.tools: list[ScannedTool] = []
        self.diagnostics: list[Diagnostic] = []
        self._module = module

    @property
    def constants(self) -> dict[str, object]:
        if self._constants is None:  # only decorators that name a constant pay for this
            self._constants = _module_constants(self._module)
        return self._constants

    # -- scopes -----------------------------------------------------------------------------
    def walk(self, statements: Sequence[cst.BaseStatement]) -> None:
        """Tools are statements: visit statement blocks only, never expressions (a generic
        libcst visitor walks every node, several times the work)."""
        for statement in statements:
            if isinstance(statement, cst.FunctionDef):
                self._function(statement)
            elif isinstance(statement, cst.ClassDef):
                self.scope.append(statement.name.value)
                self.walk(_suite(statement.body))
                self.scope.pop()
            elif isinstance(statement, cst.BaseCompoundStatement):
                for block in _nested_blocks(statement):
                    self.walk(block)

    def _function(self, node: cst.FunctionDef) -> None:
        located = self.positions.next_function(node.name.value)
        qualname = ".".join([*self.scope, node.name.value])
        for index, decorator in enumerate(node.decorators):
            if self._matches(decorator):
                self._record(node, located, located.decorator_list[index], decorator, qualname)
                break
        self.scope.extend([node.name.value, "<locals>"])
        self.walk(_suite(node.body))
        del self.scope[-2:]

    # -- helpers ----------------------------------------------------------------------------
    def _code(self, node: cst.CSTNode) -> str:
        return self._module.code_for_node(node)

    def _error(self, node: ast.AST, message: str) -> None:
        pos = self.positions.of(node)
        self.diagnostics.append(Diagnostic(self.relative, pos.line, pos.column, message))

    def _matches(self, decorator: cst.Decorator) -> bool:
        target = decorator.decorator
        if isinstance(target, cst.Call):
            target = target.func
        dotted = get_full_name_for_node(target)
        if dotted is None:
            return False
        names = {dotted}
        head, _, rest = dotted.partition(".")
        if head in self.aliases:
            names.add(self.aliases[head] + (f".{rest}" if rest else ""))
        return any(fnmatch.fnmatchcase(n, p) for n in names for p in self.patterns)

    def _value(self, node: cst.BaseExpression, keyword: str) -> object:
        """A decorator argument as a Python value: a literal, a module constant or ToolAnnotations()."""
        if isinstance(node, cst.Name) and node.value in self.constants:
            return self.constants[node.value]
        if (
            isinstance(node, cst.Name)
            and node.value in self.aliases
            and self.imported is not None
            and (value := self.imported(self.aliases[node.value])) is not _NOT_LITERAL
        ):
            return value
        if isinstance(node, cst.Call) and keyword == "annotations":
            func = get_full_name_for_node(node.func) or ""
            if func.rsplit(".", 1)[-1] == "ToolAnnotations" and not any(
                a.keyword is None for a in node.args
            ):
                result: dict[str, object] = {}
                for arg in node.args:
                    assert arg.keyword is not None
                    key = ANNOTATION_KEYS.get(arg.keyword.value, arg.keyword.value)
                    value = self._value(arg.value, key)
                    if value is _NOT_LITERAL:
                        return _NOT_LITERAL
                    result[key] = value
                return result
        if isinstance(node, cst.Call) and keyword == "icon":
            return self._model_call(node, "Icon")
        literal = _literal(self._code(node))
        if literal is not _NOT_LITERAL or not isinstance(
            node, cst.List | cst.Tuple | cst.Set | cst.Dict
        ):
            return literal
        # A container of literals and constants: ``tags={TASKS_TAG, "write"}``, ``icons=[Icon()]``
        item_keyword = "icon" if keyword == "icons" else ""
        if isinstance(node, cst.Dict):
            pairs = []
            for element in node.elements:
                if not isinstance(element, cst.DictElement):
                    return _NOT_LITERAL
                pairs.append((self._value(element.key, ""), self._value(element.value, "")))
            if any(_NOT_LITERAL in pair for pair in pairs):
                return _NOT_LITERAL
            try:
                return dict(pairs)
            except TypeError:  # an unhashable key
                return _NOT_LITERAL
        items = []
        for element in node.elements:
            if not isinstance(element, cst.Element):
                return _NOT_LITERAL
            items.append(self._value(element.value, item_keyword))
        if _NOT_LITERAL in items:
            return _NOT_LITERAL
        if isinstance(node, cst.Set):
            try:
                return set(items)
            except TypeError:
                return _NOT_LITERAL
        return tuple(items) if isinstance(node, cst.Tuple) else items

    def _model_call(self, node: cst.Call, model: str) -> object:
        """``Icon(src=..., mime_type=...)`` as a dict of wire (camelCase) names."""
        func = get_full_name_for_node(node.func) or ""
        if func.rsplit(".", 1)[-1] != model or any(a.keyword is None for a in node.args):
            return _NOT_LITERAL
        result: dict[str, object] = {}
        for arg in node.args:
            assert arg.keyword is not None
            value = self._value(arg.value, "")
            if value is _NOT_LITERAL:
                return _NOT_LITERAL
            head, *rest = arg.keyword.value.split("_")
            result[head + "".join(part.title() for part in rest)] = value
        return result

    def _record(
        self,
        node: cst.FunctionDef,
        located: ast.FunctionDef | ast.AsyncFunctionDef,
        located_decorator: ast.expr,
        decorator: cst.Decorator,
        qualname: str,
    ) -> None:
        options: dict[str, JSON] = {}
        positions: dict[str, Position] = {}
        call = decorator.decorator if isinstance(decorator.decorator, cst.Call) else None
        ast_call = located_decorator if isinstance(located_decorator, ast.Call) else None
        ast_args: list[ast.AST] = []
        if ast_call is not None:
            ast_args = [*ast_call.args, *ast_call.keywords]
            ast_args.sort(key=lambda n: (n.lineno, n.col_offset))
        for index, arg in enumerate(call.args if call else ()):
            located_arg = ast_args[index] if index < len(ast_args) else located_decorator
            located_value = getattr(located_arg, "value", located_arg)
            if arg.star:
                self._error(
                    located_arg,
                    "star-arguments in a tool decorator cannot be read "
                    "statically; pass each option as a literal keyword argument",
                )
                continue
            if arg.keyword is None:
                if index == 0:
                    key = "name"  # ``@mcp.tool("name")``
                else:
                    self._error(
                        located_arg, "unexpected positional decorator argument; use keywords"
                    )
                    continue
            else:
                key = arg.keyword.value
            value = self._value(arg.value, key)
            if value is _NOT_LITERAL:
                self._error(
                    located_value,
                    f"decorator argument {key}= is not a literal or a module-level constant, so its "
                    f"value cannot be known at build time: write the value literally "
                    f'(e.g. {key}="...")',
                )
                continue
            options[key] = value  # type: ignore[assignment]
            positions[key] = self.positions.of(located_value)
            if key == "annotations" and isinstance(arg.value, cst.Call):
                # The keywords as written: frameworks that take them verbatim (MCP SDK 1.x
                # keeps ``read_only_hint=`` as an extra field) are reproduced exactly.
                options[ANNOTATIONS_AS_WRITTEN] = {
                    a.keyword.value: self._value(a.value, "")
                    for a in arg.value.args
                    if a.keyword is not None
                }
        self._normalise_annotations(options, positions)

        name = options.get("name", node.name.value)
        arguments = located.args
        located_params = {
            a.arg: a
            for a in [
                *arguments.posonlyargs,
                *arguments.args,
                *arguments.kwonlyargs,
                *filter(None, [arguments.vararg, arguments.kwarg]),
            ]
        }
        parameters = self._parameters(node.params, located_params, _ast_defaults(arguments))
        docstring = node.get_docstring(clean=True)
        returns = self.positions.source(located.returns) if located.returns else None
        tool_position = self.positions.of(located)
        self.tools.append(
            ScannedTool(
                function_name=node.name.value,
                qualname=qualname,
                name=name if isinstance(name, str) else node.name.value,
                position=tool_position,
                is_async=node.asynchronous is not None,
                docstring=docstring,
                parameters=parameters,
                return_annotation_source=returns,
                options=options,
                option_positions=positions,
                decorator=get_full_name_for_node(
                    call.func if call is not None else decorator.decorator
                )
                or "",
            )
        )
        if not isinstance(name, str):
            self.diagnostics.append(
                Diagnostic(
                    self.relative,
                    positions["name"].line,
                    positions["name"].column,
                    "tool name= must be a string",
                )
            )

    def _normalise_annotations(
        self, options: dict[str, JSON], positions: dict[str, Position]
    ) -> None:
        annotations = options.get("annotations")
        if annotations is not None and not isinstance(annotations, dict):
            pos = positions.get("annotations", Position(1, 1))
            self.diagnostics.append(
                Diagnostic(
                    self.relative,
                    pos.line,
                    pos.column,
                    "annotations= must be a dict or a ToolAnnotations(...) call",
                )
            )
            annotations = None
        merged = {ANNOTATION_KEYS.get(k, k): v for k, v in (annotations or {}).items()}
        for short, wire in SHORTHAND_ANNOTATIONS.items():
            if short in options:
                merged[wire] = options.pop(short)
                positions.setdefault("annotations", positions[short])
        if merged:
            options["annotations"] = merged
        else:
            options.pop("annotations", None)

    def _parameters(
        self,
        params: cst.Parameters,
        located: dict[str, ast.arg],
        defaults: dict[str, ast.expr],
    ) -> tuple[ScannedParameter, ...]:
        found: list[ScannedParameter] = []

        def add(param: cst.Param, kind: str) -> None:
            # Source text from the stdlib tree: libcst's code_for_node re-generates the node,
            # which cost a third of the scan.
            name = param.name.value
            argument = located[name]
            annotation = argument.annotation
            default = defaults.get(name)
            found.append(
                ScannedParameter(
                    name=name,
                    kind=kind,
                    annotation_source=self.positions.source(annotation) if annotation else None,
                    default_source=self.positions.source(default) if default else None,
                    position=self.positions.of(argument),
                )
            )

        for p in params.posonly_params:
            add(p, "POSITIONAL_ONLY")
        for p in params.params:
            add(p, "POSITIONAL_OR_KEYWORD")
        if isinstance(params.star_arg, cst.Param):
            add(params.star_arg, "VAR_POSITIONAL")
        for p in params.kwonly_params:
            add(p, "KEYWORD_ONLY")
        if params.star_kwarg is not None:
            add(params.star_kwarg, "VAR_KEYWORD")
        return tuple(found)
