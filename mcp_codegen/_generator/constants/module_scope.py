"""What each name of a module is bound to, read from its source with ``ast`` (nothing runs).

``ModuleScope`` holds a module's top-level bindings and the names whose value depends on
execution order; ``Enclosing`` the parameters and locals of a function around a decorator.
``mcp_codegen._generator.constants.evaluate`` evaluates expressions over them.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any


@dataclass
class Enclosing:
    """A function around the decorator: its parameters, the names its body binds, and which of
    those are local constants (bound once, by a plain assignment in the body's own block)."""

    name: str
    parameters: frozenset[str]
    local_names: frozenset[str]
    constants: dict[str, ast.expr] = field(default_factory=dict)
    #: parameters without a default, in order, with whether each is positional-only
    required: tuple[tuple[str, bool], ...] = ()

    def example_call(self) -> str:
        """A call of this function with a placeholder for each required argument, for hints:
        ``create_server(db_path=...)``."""
        arguments = ["..." if positional else f"{name}=..." for name, positional in self.required]
        return f"{self.name}({', '.join(arguments)})"

    @classmethod
    def of(cls, node: ast.FunctionDef | ast.AsyncFunctionDef) -> Enclosing:
        arguments = node.args
        parameters = {
            a.arg
            for a in [
                *arguments.posonlyargs,
                *arguments.args,
                *arguments.kwonlyargs,
                *filter(None, [arguments.vararg, arguments.kwarg]),
            ]
        }
        declared_global: set[str] = set()
        bindings: dict[str, int] = {}
        for child in _own_nodes(node.body):
            name = None
            if isinstance(child, ast.Global | ast.Nonlocal):
                declared_global.update(child.names)
            elif isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store | ast.Del):
                name = child.id
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = child.name
            elif isinstance(child, ast.alias):
                name = (child.asname or child.name).split(".")[0]
            if name is not None:
                bindings[name] = bindings.get(name, 0) + 1
        constants = {
            statement.targets[0].id: statement.value
            for statement in node.body
            if isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and bindings.get(statement.targets[0].id) == 1
        }
        local = frozenset(bindings) - declared_global
        return cls(
            node.name,
            frozenset(parameters),
            local,
            {k: v for k, v in constants.items() if k in local and k not in parameters},
            _required(arguments),
        )


def _own_nodes(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every node of a function body, not descending into nested function or class bodies."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        stack.extend(ast.iter_child_nodes(node))


@dataclass
class ModuleScope:
    """The top-level bindings of one module, read with ``ast``."""

    module: str
    path: Path
    is_package: bool
    roots: tuple[Path, ...]
    #: name -> the expression or import bound to it by one top-level statement
    bindings: dict[str, ast.expr | ast.alias | ast.FunctionDef | ast.ClassDef] = field(
        default_factory=dict
    )
    #: name -> why its value is not a constant (bound twice, inside a block, ...)
    dynamic: dict[str, str] = field(default_factory=dict)
    import_bases: dict[int, str] = field(default_factory=dict)  # id(alias) -> dotted base

    @classmethod
    def read(
        cls, tree: ast.Module, module: str, path: Path, roots: tuple[Path, ...]
    ) -> ModuleScope:
        scope = cls(module, path, path.name == "__init__.py", roots)
        for statement in tree.body:
            scope._statement(statement)
        for node in _statements(tree):  # ``global X`` in a function rebinds X at run time
            if isinstance(node, ast.Global):
                for name in node.names:
                    scope.dynamic[name] = "is rebound by a function (`global` statement)"
        return scope

    def _bind(self, name: str, value: Any) -> None:
        if name in self.bindings:
            self.dynamic[name] = "is assigned more than once at module level"
        self.bindings[name] = value

    def _statement(self, statement: ast.stmt) -> None:
        if isinstance(statement, ast.Assign):
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    self._bind(target.id, statement.value)
                else:
                    for node in ast.walk(target):
                        if isinstance(node, ast.Name):
                            self.dynamic[node.id] = "is bound by unpacking"
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            if statement.value is not None:
                self._bind(statement.target.id, statement.value)
        elif isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name):
            self.dynamic[statement.target.id] = "is changed by an augmented assignment"
        elif isinstance(statement, ast.Import | ast.ImportFrom):
            base = ""
            if isinstance(statement, ast.ImportFrom):
                base = "." * statement.level + (statement.module or "")
            for alias in statement.names:
                if alias.name == "*":
                    continue
                local = alias.asname or alias.name.split(".")[0]
                self.import_bases[id(alias)] = base
                self._bind(local, alias)
        elif isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            self._bind(statement.name, statement)  # type: ignore[arg-type]
        else:  # if/try/for/with/while/match at module level: which binding runs is run time
            for node in ast.walk(statement):
                name = None
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    name = node.id
                elif isinstance(node, ast.alias):
                    name = (node.asname or node.name).split(".")[0]
                elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    name = node.name
                if name is not None:
                    self.dynamic.setdefault(
                        name,
                        "is bound inside a block at module level (if/try/for/with), so its "
                        "value depends on which branch runs",
                    )

    def absolute(self, dotted: str) -> str:
        """A relative import's base made absolute against this module."""
        level = len(dotted) - len(dotted.lstrip("."))
        if not level:
            return dotted
        package = self.module.split(".") if self.is_package else self.module.split(".")[:-1]
        keep = len(package) - (level - 1)
        rest = dotted.lstrip(".")
        return ".".join([*package[: max(keep, 0)], *([rest] if rest else [])])

    def imported(self, alias: ast.alias) -> str:
        """The dotted name an import binding refers to."""
        base = self.import_bases.get(id(alias), "")
        if not base:  # ``import a.b`` binds ``a``; ``import a.b as c`` binds ``a.b``
            return alias.name if alias.asname else alias.name.split(".")[0]
        return f"{self.absolute(base)}.{alias.name}".lstrip(".")


def find_module_file(dotted: str, roots: tuple[Path, ...]) -> Path | None:
    """The source file of module ``dotted`` below one of ``roots`` (nothing is imported)."""
    parts = dotted.split(".")
    if not all(part.isidentifier() for part in parts):
        return None
    for root in roots:
        base = root.joinpath(*parts)
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate
    return None


@lru_cache(maxsize=256)
def _parsed(path: Path, stamp: tuple[int, int]) -> ast.Module | None:
    try:
        return ast.parse(path.read_bytes(), filename=str(path))
    except (OSError, SyntaxError, ValueError):
        return None


def scope_of_file(dotted: str, path: Path, roots: tuple[Path, ...]) -> ModuleScope | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    tree = _parsed(path, (stat.st_mtime_ns, stat.st_size))
    return None if tree is None else ModuleScope.read(tree, dotted, path, roots)


def _required(arguments: ast.arguments) -> tuple[tuple[str, bool], ...]:
    """The parameters a call must pass, in order: ``(name, positional-only)``."""
    positional = [*arguments.posonlyargs, *arguments.args]
    first_default = len(positional) - len(arguments.defaults)
    required = [
        (a.arg, index < len(arguments.posonlyargs))
        for index, a in enumerate(positional)
        if index < first_default
    ]
    required += [
        (a.arg, False)
        for a, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
        if default is None
    ]
    return tuple(required)


_BLOCKS = (ast.stmt, ast.excepthandler, ast.match_case)


def _statements(tree: ast.Module) -> Iterator[ast.AST]:
    """The statements of ``tree`` at any depth (and the except/case clauses holding them), in
    ``ast.walk``'s breadth-first order, without visiting expressions: a ``global`` is a
    statement, and only statements and clauses hold statements (a tenth of the nodes)."""
    queue: deque[ast.AST] = deque([tree])
    while queue:
        node = queue.popleft()
        yield node
        for name in node._fields:
            value = getattr(node, name, None)
            if type(value) is list and value and isinstance(value[0], _BLOCKS):
                queue.extend(value)
