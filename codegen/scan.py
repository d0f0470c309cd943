"""Stage 1: find tool functions in source with libcst. No user code runs here."""

from __future__ import annotations

import ast
import fnmatch
import sys
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path

import libcst as cst
from libcst.helpers import get_full_name_for_node

from codegen.added import NotStatic, added_call, as_decorator, located_calls, server_decorator
from codegen.bindings import Enclosing, ModuleScope
from codegen.config import Config
from codegen.constants import Constructed, EnumClass, EnumMember, Evaluator, Unresolved
from codegen.errors import Diagnostic
from codegen.layout import project_root, relative_to_root
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
#: Option key holding a ``ToolAnnotations(...)`` call's keywords as written (see ``_record``).
ANNOTATIONS_AS_WRITTEN = "annotations_as_written"


def scan_source(
    source: SourceFile, patterns: Sequence[str], factories: Mapping[str, str] | None = None
) -> ScannedModule | None:
    """Scan one source file; ``None`` when it defines no tools. Problems come back as diagnostics.

    ``factories`` maps the qualnames of this module's configured factory functions to their
    calls: tools defined inside them take what the factory's server registers.
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
    visitor = _ToolVisitor(
        source, patterns, tree, _import_aliases(tree), positions, dict(factories or {})
    )
    visitor.walk(tree.body)
    visitor.finish()
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


_EXAMPLES = {
    "name": 'name="search"',
    "title": 'title="Search"',
    "description": 'description="..."',
    "annotations": "annotations=ToolAnnotations(readOnlyHint=True)",
    "meta": 'meta={"key": "value"}',
    "icons": 'icons=[Icon(src="https://...")]',
    "tags": 'tags={"search"}',
}


def _search_roots() -> tuple[Path, ...]:
    """Directories whose modules' constants may be read (the worker's ``sys.path``)."""
    return tuple(Path(entry) for entry in sys.path if entry and Path(entry).is_dir())


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _as_option(key: str, value: object) -> tuple[object, dict[str, object] | None]:
    """An evaluated decorator argument as the options record it: ``ToolAnnotations(...)`` as a
    dict of wire names (plus its keywords as written), ``Icon(...)`` calls in ``icons=`` as
    dicts of wire names. A constructed value anywhere else is refused."""
    if key == "annotations" and isinstance(value, Constructed):
        if value.type_name != "ToolAnnotations":
            raise Unresolved(f"{value.type_name}(...)", "is not a ToolAnnotations value")
        written = dict(value.keywords)
        _no_constructed(written)
        return {ANNOTATION_KEYS.get(k, k): v for k, v in written.items()}, written
    if key == "icons" and isinstance(value, list | tuple):
        icons: list[object] = []
        for icon in value:
            if isinstance(icon, Constructed) and icon.type_name == "Icon":
                icon = {_camel(k): v for k, v in icon.keywords}
            _no_constructed(icon)
            icons.append(icon)
        return icons if isinstance(value, list) else tuple(icons), None
    _no_constructed(value)
    return value, None


def _no_constructed(value: object) -> None:
    if isinstance(value, EnumMember):
        raise Unresolved(
            value.where,
            "is an enum member, which the generator does not pass on as a value (its "
            "representation differs between Python versions)",
            instead=f"write {value.where}.value",
        )
    if isinstance(value, EnumClass):
        raise Unresolved(value.name, "is an enum class, not a value")
    if isinstance(value, Constructed):
        raise Unresolved(
            f"{value.type_name}(...)",
            "is a value the generator reads only as annotations= (ToolAnnotations) or as an "
            "item of icons= (Icon)",
        )
    if isinstance(value, dict):
        for item in value.values():
            _no_constructed(item)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            _no_constructed(item)


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
        source: SourceFile,
        patterns: Sequence[str],
        module: cst.Module,
        aliases: dict[str, str],
        positions: _PositionIndex,
        factories: dict[str, str],
    ) -> None:
        self.source = source
        self.relative = source.relative_path
        self.factories = factories
        self.patterns = tuple(patterns)
        self._evaluator: Evaluator | None = None
        self._enclosing_cache: dict[int, Enclosing] = {}
        self.functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        self.registrars: set[str] = set()  # enclosing functions taking the tool's server
        self.aliases = aliases
        self.positions = positions
        self.scope: list[str] = []
        self.tools: list[ScannedTool] = []
        self.diagnostics: list[Diagnostic] = []
        self._module = module
        #: qualname -> its ``def``, so ``add_tool(fn)`` calls can find ``fn`` (see codegen.added)
        self.defs: dict[str, tuple[cst.FunctionDef, ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        self._located_added: list[ast.Call] | None = None
        self.added: list[
            tuple[cst.Call, ast.Call, str, tuple[ast.FunctionDef | ast.AsyncFunctionDef, ...]]
        ] = []

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
            elif isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if (call := added_call(small)) is not None:
                        self._note_added(call)

    def _note_added(self, call: cst.Call) -> None:
        """Keep a ``<server>.add_tool(...)`` statement for ``finish`` (its function may be
        defined further down)."""
        if self._located_added is None:
            self._located_added = located_calls(self.positions.tree)
        located = self._located_added.pop(0)
        if self._matches(server_decorator(call)):
            self.added.append((call, located, ".".join(self.scope), tuple(self.functions)))

    def finish(self) -> None:
        """Record the tools registered by ``add_tool`` calls as their decorator would."""
        for call, located, scope, functions in self.added:
            server = self._code(call.func).rpartition(".")[0]
            try:
                added = as_decorator(call, located, server)
            except NotStatic as problem:
                self._error(problem.node, problem.args[0])
                continue
            candidates = [f"{scope}.{added.function}"] if scope else []
            found = next(
                (self.defs[q] for q in [*candidates, added.function] if q in self.defs), None
            )
            if found is None:
                self._error(
                    added.function_node,
                    f"{server}.add_tool(...) registers {added.function!r}, which is not a "
                    "function defined in this module (imported, a bound method, or bound at "
                    "run time), so the generator cannot read its parameters and docstring; "
                    f"decorate the function with @{server}.tool(...) where it is defined, or "
                    f"define it here as a plain function and pass that to {server}.add_tool",
                )
                continue
            node, located_def = found
            qualname = next(q for q in [*candidates, added.function] if q in self.defs)
            saved, self.functions = self.functions, list(functions)
            self._record(node, located_def, added.located_decorator, added.decorator, qualname)
            self.functions = saved

    def _function(self, node: cst.FunctionDef) -> None:
        located = self.positions.next_function(node.name.value)
        qualname = ".".join([*self.scope, node.name.value])
        self.defs[qualname] = (node, located)
        for index, decorator in enumerate(node.decorators):
            if self._matches(decorator):
                self._record(node, located, located.decorator_list[index], decorator, qualname)
                break
        self.scope.extend([node.name.value, "<locals>"])
        self.functions.append(located)
        self.walk(_suite(node.body))
        self.functions.pop()
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

    def _evaluate(self, node: ast.expr) -> object:
        """A decorator argument's value, evaluated from source (``codegen.constants``)."""
        if self._evaluator is None:
            roots = (Path(self.source.import_root), *_search_roots())
            scope = ModuleScope.read(
                self.positions.tree, self.source.module, Path(self.source.path), roots
            )
            root = project_root(self.source.path, self.relative)
            self._evaluator = Evaluator(scope, self.relative, partial(relative_to_root, root=root))
        enclosing = tuple(self._enclosing(function) for function in self.functions)
        return self._evaluator.evaluate(node, enclosing)

    def _enclosing(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> Enclosing:
        found = self._enclosing_cache.get(id(function))
        if found is None:
            found = self._enclosing_cache[id(function)] = Enclosing.of(function)
        return found

    def _check_server_object(
        self,
        located: ast.FunctionDef | ast.AsyncFunctionDef,
        target: cst.BaseExpression,
        qualname: str,
    ) -> None:
        """A tool registered on a server that its enclosing function creates (a factory) can
        only be reached by calling that function: say how, unless ``factories`` lists it."""
        if len(self.functions) != 1 or self._factory_of(qualname) is not None:
            return
        head = (get_full_name_for_node(target) or "").partition(".")[0]
        function = self._enclosing(self.functions[0])
        if head in function.local_names and head not in function.parameters:
            self._error(
                located,
                f"tool {located.name!r} is registered on `{head}`, a server that "
                f"{function.name}() creates when it runs, so the generator cannot reach it "
                f"without calling {function.name}(); list the call in `factories` (e.g. factories "
                f'= ["{self.source.module}:{function.example_call()}"], with literal arguments'
                f"{_fill_in(function)}) in [tool.mcp-codegen], or create the server at module level",
            )

    def _factory_of(self, qualname: str) -> str | None:
        """The configured factory call whose function defines this tool, if any."""
        outer, nested, _ = qualname.partition(".<locals>.")
        return self.factories.get(outer) if nested else None

    def _unresolved(self, key: str, problem: Unresolved) -> str:
        """The message for a decorator argument that depends on run-time values."""
        if problem.instead:
            instead = problem.instead
        elif problem.run_time_input and problem.run_time_input in self.registrars:
            instead = (
                "write the value literally or as a module-level constant (the generator calls "
                f"{problem.run_time_input}() with the server and stand-ins for its other "
                "parameters, so their values are unknown)"
            )
        elif problem.run_time_input:
            function = problem.run_time_input
            enclosing = next(
                (e for f in self.functions if (e := self._enclosing(f)).name == function), None
            )
            example = enclosing.example_call() if enclosing else f"{function}(...)"
            instead = (
                f"write the value literally, or, if {function}() builds the server, list the "
                f'call in `factories` (e.g. factories = ["{self.source.module}:{example}"]'
                f" with literal arguments{_fill_in(enclosing)}) so the generator calls it"
            )
        else:
            example = _EXAMPLES.get(key, f"{key}=...")
            instead = (
                f"write the value literally (e.g. {example}) or as a module-level constant "
                "built from literals"
            )
        return (
            f"decorator argument {key}= cannot be known at build time: `{problem.part}` "
            f"{problem.why}; {instead}"
        )

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
        head = (get_full_name_for_node(call.func if call else decorator.decorator) or "").split(
            "."
        )[0]
        self.registrars = {f.name for f in self.functions if head in self._enclosing(f).parameters}
        for index, arg in enumerate(call.args if call else ()):
            located_arg = ast_args[index] if index < len(ast_args) else located_decorator
            located_value = (
                located_arg.value if isinstance(located_arg, ast.keyword) else located_arg
            )
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
            factory = self._factory_of(qualname)
            try:
                value, written = _as_option(key, self._evaluate(located_value))
            except Unresolved as problem:
                if factory is None:  # inside a listed factory, the factory's server decides
                    self._error(problem.node or located_value, self._unresolved(key, problem))
                continue
            options[key] = value  # type: ignore[assignment]
            positions[key] = self.positions.of(located_value)
            if written is not None:
                # The keywords as written: frameworks that take them verbatim (MCP SDK 1.x
                # keeps ``read_only_hint=`` as an extra field) are reproduced exactly.
                options[ANNOTATIONS_AS_WRITTEN] = written
        self._normalise_annotations(options, positions)
        self._check_server_object(located, call.func if call else decorator.decorator, qualname)

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
                factory=self._factory_of(qualname),
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


def _fill_in(function: Enclosing | None) -> str:
    """How to complete an ``example_call()`` hint, when it has placeholders."""
    if function is None or not function.required:
        return ""
    names = ", ".join(name for name, _ in function.required)
    return f"; replace each ... with a literal value for {names}"
