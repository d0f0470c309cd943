"""The scanner's walk over one module: finds the tool functions (decorated, or passed to
``<server>.add_tool``) and records each as a ``ScannedTool``. Reads only; no user code runs."""

from __future__ import annotations

import ast
import fnmatch
import sys
from collections.abc import Sequence
from functools import partial
from pathlib import Path

import libcst as cst
from libcst.helpers import get_full_name_for_node

from mcp_codegen._generator.constants.evaluate import Evaluator, Unresolved
from mcp_codegen._generator.constants.module_scope import Enclosing, ModuleScope
from mcp_codegen._generator.model import JSON, Position, ScannedParameter, ScannedTool, SourceFile
from mcp_codegen._generator.project import project_root, relative_to_root
from mcp_codegen._generator.scan.added_tools import (
    AddedTool,
    NotStatic,
    added_call,
    as_decorator,
    located_calls,
    server_decorator,
    through_variable,
)
from mcp_codegen._generator.scan.factory_entry import FactoryEntry, suggest_factory_entry
from mcp_codegen._generator.scan.options import (
    ANNOTATIONS_AS_WRITTEN,
    as_option,
    normalise_annotations,
    unresolved_message,
)
from mcp_codegen._generator.scan.syntax import PositionIndex, ast_defaults, nested_blocks, suite
from mcp_codegen._shared.diagnostics import Diagnostic
from mcp_codegen._shared.format import FRAMEWORK_MARKER


def search_roots() -> tuple[Path, ...]:
    """Directories whose modules' constants may be read (the worker's ``sys.path``)."""
    return tuple(Path(entry) for entry in sys.path if entry and Path(entry).is_dir())


#: Registration options that only limit a call (fastmcp's ``timeout=``): no listing shows them,
#: so a value known only at run time costs nothing in a framework flavor (linkedin's
#: ``timeout=tool_timeout``, a registration function's parameter).
EXECUTION_ONLY = frozenset({"timeout"})


class ToolVisitor:
    """Walks one module's statements and records each tool: decorated functions as they are
    met, ``<server>.add_tool(fn, ...)`` calls in ``finish`` (``fn`` may be defined later)."""

    def __init__(
        self,
        source: SourceFile,
        patterns: Sequence[str],
        module: cst.Module,
        aliases: dict[str, str],
        positions: PositionIndex,
        factories: dict[str, str],
        framework: bool = False,
    ) -> None:
        self.source = source
        self.relative = source.relative_path
        self.factories = factories
        self.patterns = tuple(patterns)
        self._evaluator: Evaluator | None = None
        self._enclosing_cache: dict[int, Enclosing] = {}
        self.functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        self.registrars: set[str] = set()  # enclosing functions taking the tool's server
        self.server_name = ""  # the name the registration reaches the server by (``self``)
        self.by_call = False  # the tool being recorded is registered by a call, not a decorator
        self.aliases = aliases
        self.positions = positions
        # In a framework flavor a module's own collecting ``def tool`` is no tool decorator; in
        # the clean flavor the configured names are the markers, wherever they are defined.
        self.own_decorators = _collecting_decorators(positions.tree) if framework else frozenset()
        self.framework = framework
        self.scope: list[str] = []
        self.tools: list[ScannedTool] = []
        self.diagnostics: list[Diagnostic] = []
        self._module = module
        #: qualname -> its ``def``, so ``add_tool(fn)`` calls can find ``fn`` (see mcp_codegen._generator.scan.added_tools)
        self.defs: dict[str, tuple[cst.FunctionDef, ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        self._located_added: list[ast.Call] | None = None
        self._lines: list[str] | None = None
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
                self.walk(suite(statement.body))
                self.scope.pop()
            elif isinstance(statement, cst.BaseCompoundStatement):
                for block in nested_blocks(statement):
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
            func = call.func.func if isinstance(call.func, cst.Call) else call.func
            server = self._code(func).rpartition(".")[0]
            if self._kept_call(located):
                continue
            body = functions[-1].body if functions else self.positions.tree.body
            try:
                call, located = through_variable(call, located, body, server, bool(functions))
                added = as_decorator(call, located, server)
            except NotStatic as problem:
                self._error(problem.node, problem.args[0])
                continue
            candidates = [f"{scope}.{added.function}"] if scope else []
            found = next(
                (self.defs[q] for q in [*candidates, added.function] if q in self.defs), None
            )
            if added.wrapped:  # the server receives the wrapper, not the ``def``
                found = None
            if found is None and functions and self._passed_in(added, functions):
                continue
            if found is None:  # imported, ``module.fn``, a bound method: as the server has it
                saved, self.functions = self.functions, list(functions)
                if added.direct and self._is_text(added.function_node):
                    self.functions = saved  # ``mcp.tool(NAME)``: a decorator, not a tool
                    continue
                self.by_call = True
                self._record_registered(added, scope)
                self.by_call = False
                self.functions = saved
                continue
            node, located_def = found
            qualname = next(q for q in [*candidates, added.function] if q in self.defs)
            saved, self.functions = self.functions, list(functions)
            self.by_call = True
            self._record(node, located_def, added.located_decorator, added.decorator, qualname)
            self.by_call = False
            self.functions = saved

    def _function(self, node: cst.FunctionDef) -> None:
        located = self.positions.next_function(node.name.value)
        qualname = ".".join([*self.scope, node.name.value])
        self.defs[qualname] = (node, located)
        for index, decorator in enumerate(node.decorators):
            if self._matches(decorator):
                if self._kept_with_framework(located.decorator_list[index], located):
                    break
                self._record(node, located, located.decorator_list[index], decorator, qualname)
                break
        self.scope.extend([node.name.value, "<locals>"])
        self.functions.append(located)
        self.walk(suite(node.body))
        self.functions.pop()
        del self.scope[-2:]

    # -- helpers ----------------------------------------------------------------------------
    def _marked(self, node: ast.expr) -> bool:
        """``FRAMEWORK_MARKER`` is on one of ``node``'s lines."""
        if self._lines is None:
            self._lines = self.source.data.decode("utf-8", "replace").splitlines()
        first, last = node.lineno, getattr(node, "end_lineno", None) or node.lineno
        return any(FRAMEWORK_MARKER in text for text in self._lines[first - 1 : last])

    def _kept_call(self, call: ast.Call) -> bool:
        """A registration call (``mcp.add_tool(tool)``) marked ``# mcp-codegen: framework``
        stays with the framework, as a marked decorator does: skipped, one note."""
        if not self._marked(call):
            return False
        self.diagnostics.append(
            Diagnostic(
                self.relative,
                call.lineno,
                call.col_offset + 1,
                f"the tool registered here is kept with the framework ({FRAMEWORK_MARKER}): not "
                "generated; the framework infers it at start-up and answers tools/list for its "
                "server",
                severity="note",
            )
        )
        return True

    def _kept_with_framework(
        self, decorator: ast.expr, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> bool:
        """A tool marked ``# mcp-codegen: framework`` on its decorator's lines stays with the
        framework (its name or description is known only at run time): skipped, one note."""
        if not self._marked(decorator):
            return False
        self.diagnostics.append(
            Diagnostic(
                self.relative,
                decorator.lineno,
                decorator.col_offset + 1,
                f"tool {function.name!r} is kept with the framework ({FRAMEWORK_MARKER}): not "
                "generated; the framework infers it at start-up and answers tools/list for its "
                "server",
                severity="note",
            )
        )
        return True

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
        if dotted is None or dotted in self.own_decorators:
            return False
        names = {dotted}
        head, _, rest = dotted.partition(".")
        if head in self.aliases:
            names.add(self.aliases[head] + (f".{rest}" if rest else ""))
        return any(fnmatch.fnmatchcase(n, p) for n in names for p in self.patterns)

    def _evaluate(self, node: ast.expr) -> object:
        """A decorator argument's value, evaluated from source (``mcp_codegen._generator.constants.evaluate``)."""
        if self._evaluator is None:
            roots = (Path(self.source.import_root), *search_roots())
            scope = ModuleScope.read(
                self.positions.tree, self.source.module, Path(self.source.path), roots
            )
            root = project_root(self.source.path, self.relative)
            self._evaluator = Evaluator(scope, self.relative, partial(relative_to_root, root=root))
        enclosing = tuple(self._enclosing(function) for function in self.functions)
        return self._evaluator.evaluate(node, enclosing)

    def _passed_in(
        self, added: AddedTool, functions: tuple[ast.FunctionDef | ast.AsyncFunctionDef, ...]
    ) -> bool:
        """An error when the registered function is a parameter of the function around the
        call (a helper ``add_read_only_tool(mcp, tool)`` that every caller passes another
        function): which tools it makes is known only at its calls. Options that read the
        enclosing functions' other parameters (``title=title``) get their own errors instead."""
        function = functions[-1]
        if added.function not in self._enclosing(function).parameters:
            return False
        parameters = set().union(*(self._enclosing(f).parameters for f in functions))
        options = [*added.located_decorator.args, *added.located_decorator.keywords]
        read = {n.id for o in options for n in ast.walk(o) if isinstance(n, ast.Name)}
        if read & (parameters - {added.function}):
            return False
        self._error(
            added.function_node,
            f"`{added.function}` is a parameter of {function.name}(), so the function "
            "registered here is whichever each call passes and the generator cannot tell which "
            "tools it makes; register each tool function by its name where the server is "
            "(<server>.add_tool(function) at module level), or decorate it with "
            "@<server>.tool(...) where it is defined",
        )
        return True

    def _is_text(self, node: ast.expr) -> bool:
        """``node`` is a string known from source (a tool's name, not its function)."""
        try:
            return isinstance(self._evaluate(node), str)
        except Unresolved:
            return False

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
            owner = qualname.partition(".<locals>.")[0].rpartition(".")[0]
            if owner:  # a method: reached through an instance, ``Class(...).method()``
                example = f"{owner}(...).{function.name}()"
                hint = (
                    f'e.g. factories = ["{self.source.module}:{example}"], with literal '
                    "arguments; replace ... with the class's literal arguments"
                )
            else:
                hint = self._suggest_entry(self.functions[0]).hint(",")
            self._error(
                located,
                f"tool {located.name!r} is registered on `{head}`, a server that "
                f"{function.name}() creates when it runs, so the generator cannot reach it "
                f"without calling {function.name}(); list the call in `factories` ({hint}) in "
                "[tool.mcp-codegen], or create the server at module level",
            )

    def _suggest_entry(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> FactoryEntry:
        """The ``factories`` entry for a module-level function (``factory_entry``)."""
        return suggest_factory_entry(
            self.source.module,
            function,
            project_root(self.source.path, self.relative),
            tree=self.positions.tree,
            path=Path(self.source.path),
        )

    def _suggest_by_name(self, name: str) -> FactoryEntry | None:
        """``_suggest_entry`` for the enclosing function ``name`` when it is module-level."""
        if self.functions and self.functions[0].name == name and not self._class_scope():
            return self._suggest_entry(self.functions[0])
        return None

    def _star_message(self) -> str:
        text = (
            "star-arguments in a tool decorator cannot be read statically; pass each option "
            "as a literal keyword argument"
        )
        entry = self._suggest_by_name(self.functions[0].name) if self.functions else None
        if entry is None:
            return text
        return (
            f"{text}, or, if {self.functions[0].name}() builds the server, list the call in "
            f"`factories` ({entry.hint('')}) so the generator calls it"
        )

    def _class_scope(self) -> bool:
        """The outermost enclosing function is a method (its qualname starts with a class)."""
        return bool(self.scope) and self.scope[0] != self.functions[0].name

    def _factory_of(self, qualname: str) -> str | None:
        """The configured factory call whose function defines this tool, if any: a tool inside
        the factory function, or inside a method of the class a factory call instantiates
        (``factories = ["pkg.server:CatalogServer('books').mcp"]``)."""
        outer, nested, _ = qualname.partition(".<locals>.")
        if not nested:
            return None
        found = self.factories.get(outer)
        if found is None and "." in outer:
            owner, _, method = outer.rpartition(".")
            # a method of a factory class, or one the chain calls (``make().build()``)
            found = (
                self.factories.get(owner)
                or self.factories.get(f"*.{method}")
                # a class the factory's module imports (``scan.factory_reach``)
                or self.factories.get(f"{owner}.*")
            )
        return found

    def _unresolved(self, key: str, problem: Unresolved) -> str:
        return unresolved_message(
            key,
            problem,
            module=self.source.module,
            registrars=self.registrars,
            server=self.server_name,
            by_call=self.by_call,
            enclosing=[self._enclosing(f) for f in self.functions],
            suggest=self._suggest_by_name,
        )

    def _record_registered(self, added: AddedTool, scope: str) -> None:
        """A tool whose function is not defined in this module by that name (imported,
        ``module.fn``, ``self.method``): its options are read here, its function is the one the
        real server registered at this call (``ScannedTool.registered_at``; the worker takes it
        from the registration records)."""
        qualname = f"{scope}.{added.function}" if scope else added.function
        options, positions, _ = self._options(added.decorator, added.located_decorator, qualname)
        function_name = added.function.rpartition(".")[2]
        name = options.get("name", function_name)
        self.tools.append(
            ScannedTool(
                function_name=function_name,
                qualname=qualname,
                name=name if isinstance(name, str) else function_name,
                position=self.positions.of(added.function_node),
                is_async=False,
                docstring=None,
                parameters=(),
                return_annotation_source=None,
                options=options,
                option_positions=positions,
                decorator=get_full_name_for_node(
                    added.decorator.decorator.func
                    if isinstance(added.decorator.decorator, cst.Call)
                    else added.decorator.decorator
                )
                or "",
                registered_at=Position(added.call.lineno, added.call.col_offset + 1),
                factory=self._factory_of(qualname),
            )
        )

    def _options(
        self, decorator: cst.Decorator, located_decorator: ast.expr, qualname: str
    ) -> tuple[dict[str, JSON], dict[str, Position], cst.Call | None]:
        """The decorator's options, evaluated from source, and where each is written."""
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
        self.server_name = head
        for index, arg in enumerate(call.args if call else ()):
            located_arg = ast_args[index] if index < len(ast_args) else located_decorator
            located_value = (
                located_arg.value if isinstance(located_arg, ast.keyword) else located_arg
            )
            if arg.star:
                if self._factory_of(qualname) is None:  # else the factory's server decides
                    self._error(located_arg, self._star_message())
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
                value, written = as_option(key, self._evaluate(located_value))
            except Unresolved as problem:
                if self.framework and key in EXECUTION_ONLY:
                    continue  # never listed: the framework gets the running code's value
                if factory is None:  # inside a listed factory, the factory's server decides
                    self._error(problem.node or located_value, self._unresolved(key, problem))
                continue
            options[key] = value  # type: ignore[assignment]
            positions[key] = self.positions.of(located_value)
            if written is not None:
                # The keywords as written: frameworks that take them verbatim (MCP SDK 1.x
                # keeps ``read_only_hint=`` as an extra field) are reproduced exactly.
                options[ANNOTATIONS_AS_WRITTEN] = written
        if (invalid := normalise_annotations(options, positions, self.relative)) is not None:
            self.diagnostics.append(invalid)
        return options, positions, call

    def _record(
        self,
        node: cst.FunctionDef,
        located: ast.FunctionDef | ast.AsyncFunctionDef,
        located_decorator: ast.expr,
        decorator: cst.Decorator,
        qualname: str,
    ) -> None:
        options, positions, call = self._options(decorator, located_decorator, qualname)
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
        parameters = self._parameters(node.params, located_params, ast_defaults(arguments))
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


def _collecting_decorators(tree: ast.Module) -> frozenset[str]:
    """The module-level functions of this module that register on no server themselves (no
    ``.tool(...)`` / ``.add_tool(...)`` call inside): a package's own registry decorator
    (``@tool(name=...)`` collecting functions for a factory to register) is no tool decorator,
    even where its name matches a pattern. One that does register stays one."""
    return frozenset(
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and not any(
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr in ("tool", "add_tool")
            for call in ast.walk(node)
        )
    )
