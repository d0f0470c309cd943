"""Evaluate decorator arguments that are constant expressions, from source alone (no user code runs).

A decorator argument is known at build time when it is built only from literals and from names
whose values are themselves known: module-level names bound once to a constant expression, names
imported from other modules of the project (read the same way, transitively), ``+`` of strings,
numbers, lists or tuples, f-strings over constants, dict/list/tuple/set displays with ``*``/``**``
splats, subscripts of constant containers, ``sorted(...)``, calls of the value constructors in
``CONSTRUCTORS`` and of the text functions in ``STR_METHODS`` / ``TEXT_FUNCTIONS``
(``mcp_codegen._generator.constants.calls``). Everything else depends on run-time values (function parameters, environment
variables, files, calls of other functions) and raises ``Unresolved``, which names the part that
could not be resolved, why, and what to write instead.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp_codegen._generator.constants.bytecode_semantics import as_bytecode
from mcp_codegen._generator.constants.calls import (
    BUILTIN_CONSTRUCTORS,
    CONSTRUCTORS,
    STR_METHODS,
    TEXT_FUNCTIONS,
    CallEvaluation,
)
from mcp_codegen._generator.constants.module_scope import (
    Enclosing,
    ModuleScope,
    find_module_file,
    scope_of_file,
)
from mcp_codegen._generator.constants.outcomes import (
    SCALARS,
    Constructed,
    EnumClass,
    EnumMember,
    ModuleRef,
    Unresolved,
    dotted_name,
    short_source,
)

__all__ = [
    "BUILTIN_CONSTRUCTORS",
    "CONSTRUCTORS",
    "STR_METHODS",
    "TEXT_FUNCTIONS",
    "Constructed",
    "EnumClass",
    "EnumMember",
    "Evaluator",
    "ModuleRef",
    "Unresolved",
]

_COMPARE: dict[type[ast.cmpop], Any] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
}
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul}


class Evaluator(CallEvaluation):
    """Evaluates expressions of one module; other modules get evaluators of their own."""

    def __init__(
        self, scope: ModuleScope, relative: str, name_file: Callable[[Path], str] = str
    ) -> None:
        self.scope = scope
        self.relative = relative  # how messages name this module's file
        self.name_file = name_file  # how messages name other files
        self._values: dict[str, Any] = {}
        # Shared by every evaluator reached from this one: a cycle across modules is found, and
        # each module is read once.
        self._active: set[tuple[str, str]] = set()
        self._others: dict[str, Evaluator | None] = {scope.module: self}

    # -- names ------------------------------------------------------------------------------
    def name(self, name: str, enclosing: tuple[Enclosing, ...] = ()) -> Any:
        for depth in range(len(enclosing) - 1, -1, -1):
            function = enclosing[depth]
            if name in function.constants:  # bound once in the function's body: its value
                return self._local_constant(name, function, enclosing[: depth + 1])
            if name in function.parameters:
                raise Unresolved(
                    name,
                    f"is a parameter of {function.name}(), known only when it is called",
                    run_time_input=function.name,
                )
            if name in function.local_names:
                raise Unresolved(
                    name,
                    f"is a local variable of {function.name}(), set only when it runs",
                    local_of=function.name,
                )
        if name in self._values:
            return self._values[name]
        if name in self.scope.dynamic:
            raise Unresolved(name, self.scope.dynamic[name])
        bound = self.scope.bindings.get(name)
        if bound is None:
            raise Unresolved(name, f"is not defined at module level in {self.relative}")
        key = (self.scope.module, name)
        if key in self._active:
            raise Unresolved(name, "is defined in terms of itself")
        self._active.add(key)
        try:
            if isinstance(bound, ast.alias):
                value = self._import(self.scope.imported(bound), name)
            elif isinstance(bound, ast.ClassDef) and self._is_enum(bound):
                value = EnumClass(bound.name, self, bound)
            elif isinstance(bound, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                raise Unresolved(name, "is a function or class, not a value")
            else:
                try:
                    value = self.evaluate(bound)
                except Unresolved as inner:
                    where = f"{self.relative}:{bound.lineno}:{bound.col_offset + 1}"
                    if inner.part == name:
                        raise
                    raise Unresolved(
                        name,
                        f"is a module-level constant ({where}), but its value "
                        f"`{short_source(bound)}` is not constant: `{inner.part}` {inner.why}",
                    ) from None
        finally:
            self._active.discard(key)
        self._values[name] = value
        return value

    def _local_constant(
        self, name: str, function: Enclosing, enclosing: tuple[Enclosing, ...]
    ) -> Any:
        key = (f"{self.scope.module}:{function.name}()", name)
        if key in self._active:
            raise Unresolved(name, "is defined in terms of itself")
        self._active.add(key)
        try:
            return self.evaluate(function.constants[name], enclosing)
        except Unresolved as inner:
            if inner.part == name:
                raise
            raise Unresolved(
                name,
                f"is a local constant of {function.name}(), but its value is not constant: "
                f"`{inner.part}` {inner.why}",
                run_time_input=inner.run_time_input,
            ) from None
        finally:
            self._active.discard(key)

    def _other(self, dotted: str) -> Evaluator | None:
        if dotted not in self._others:
            path = find_module_file(dotted, self.scope.roots)
            scope = None if path is None else scope_of_file(dotted, path, self.scope.roots)
            other = None
            if scope is not None and path is not None:
                other = Evaluator(scope, self.name_file(path), self.name_file)
                other._active = self._active
                other._others = self._others
            self._others[dotted] = other
        return self._others[dotted]

    def _import(self, dotted: str, local: str) -> Any:
        """The value of ``dotted`` (``pkg.consts.NAME`` or a module), read from its source."""
        if find_module_file(dotted, self.scope.roots) is not None:
            return ModuleRef(dotted)
        module, _, attribute = dotted.rpartition(".")
        other = self._other(module) if module else None
        if other is None:
            raise Unresolved(
                local,
                f"is imported from {module or dotted}, which is not a source file the generator "
                "can read (only modules of the project are read, never imported)",
            )
        try:
            return other.name(attribute)
        except Unresolved as inner:
            raise Unresolved(
                local, f"is imported from {module}, where `{inner.part}` {inner.why}"
            ) from None

    # -- expressions ------------------------------------------------------------------------
    def evaluate(self, node: ast.expr, enclosing: tuple[Enclosing, ...] = ()) -> Any:
        """The value of ``node``; ``Unresolved`` for the first part that is not constant."""
        method = getattr(self, f"_{type(node).__name__}", None)
        if method is None:
            problem = Unresolved(
                short_source(node),
                f"is not a constant expression (the generator does not evaluate "
                f"{type(node).__name__} expressions)",
            )
            problem.node = node
            raise problem
        try:
            return method(node, enclosing)
        except Unresolved as problem:
            if problem.node is None:
                problem.node = node
            raise

    def _Constant(self, node: ast.Constant, enclosing: tuple[Enclosing, ...]) -> Any:
        return node.value

    def _Name(self, node: ast.Name, enclosing: tuple[Enclosing, ...]) -> Any:
        value = self.name(node.id, enclosing)
        return value

    def _UnaryOp(self, node: ast.UnaryOp, enclosing: tuple[Enclosing, ...]) -> Any:
        operand = self.evaluate(node.operand, enclosing)
        if isinstance(node.op, ast.USub | ast.UAdd) and type(operand) in (int, float):
            return -operand if isinstance(node.op, ast.USub) else operand
        if isinstance(node.op, ast.Not):
            return not operand
        raise Unresolved(short_source(node), "is an operation the generator does not evaluate")

    def _Compare(self, node: ast.Compare, enclosing: tuple[Enclosing, ...]) -> bool:
        """``kind == "read"`` of strings, numbers, booleans and None (a helper's argument)."""
        left = self.evaluate(node.left, enclosing)
        result = True
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = self.evaluate(comparator, enclosing)
            compare = _COMPARE.get(type(op))
            if compare is None or not all(
                value is None or type(value) in (str, int, float, bool) for value in (left, right)
            ):
                raise Unresolved(
                    short_source(node),
                    "compares values the generator compares only as strings, numbers, booleans "
                    "or None (== != < <= > >= is, is not)",
                )
            try:
                result = result and bool(compare(left, right))
            except TypeError as exc:
                raise Unresolved(short_source(node), f"fails: {exc}") from None
            left = right
        return result

    def _BinOp(self, node: ast.BinOp, enclosing: tuple[Enclosing, ...]) -> Any:
        left = self.evaluate(node.left, enclosing)
        right = self.evaluate(node.right, enclosing)
        operation = _BINARY.get(type(node.op))
        numbers = (int, float)
        same_sequences = type(left) is type(right) and type(left) in (str, list, tuple)
        if operation is not None and (
            (isinstance(node.op, ast.Add) and same_sequences)
            or (type(left) in numbers and type(right) in numbers)
        ):
            return operation(left, right)
        raise Unresolved(
            short_source(node),
            f"combines {type(left).__name__} and {type(right).__name__} with an operator the "
            "generator evaluates only for numbers (+ - *) and for + of two strings, lists or "
            "tuples",
        )

    def _JoinedStr(self, node: ast.JoinedStr, enclosing: tuple[Enclosing, ...]) -> str:
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
                continue
            assert isinstance(value, ast.FormattedValue)
            item = self.evaluate(value.value, enclosing)
            if not isinstance(item, SCALARS):
                raise Unresolved(
                    short_source(value.value),
                    f"is a {type(item).__name__}; f-strings are evaluated over strings and "
                    "numbers only",
                )
            if value.conversion == ord("r"):
                item = repr(item)
            elif value.conversion == ord("a"):
                item = ascii(item)
            elif value.conversion == ord("s"):
                item = str(item)
            spec = self._JoinedStr(value.format_spec, enclosing) if value.format_spec else ""
            try:
                parts.append(format(item, spec))
            except (ValueError, TypeError) as exc:
                raise Unresolved(short_source(value), f"cannot be formatted: {exc}") from None
        return "".join(parts)

    def _elements(self, elements: list[ast.expr], enclosing: tuple[Enclosing, ...]) -> list[Any]:
        items: list[Any] = []
        for element in elements:
            if isinstance(element, ast.Starred):
                splat = self.evaluate(element.value, enclosing)
                if not isinstance(splat, list | tuple | set | frozenset | str | dict):
                    raise Unresolved(
                        short_source(element), f"splats a {type(splat).__name__}, not a collection"
                    )
                items.extend(splat)
            else:
                items.append(self.evaluate(element, enclosing))
        return items

    def _List(self, node: ast.List, enclosing: tuple[Enclosing, ...]) -> list[Any]:
        return self._elements(node.elts, enclosing)

    def _Tuple(self, node: ast.Tuple, enclosing: tuple[Enclosing, ...]) -> tuple[Any, ...]:
        return tuple(self._elements(node.elts, enclosing))

    def _Set(self, node: ast.Set, enclosing: tuple[Enclosing, ...]) -> set[Any]:
        """The set the display builds at import, down to its iteration order.

        That order depends on how CPython builds it (a display of three or more literals is a
        folded frozenset constant merged into a new set; other displays add item by item), not
        only on the hash seed, and the folded constant iterates in another order read from a
        ``.pyc``. So the display is compiled again, in the same shape, with the evaluated values
        bound to names, and passed through ``marshal`` as the import's code is
        (``mcp_codegen._generator.constants.bytecode_semantics``): the interpreter builds it
        exactly as the import did.
        """
        namespace: dict[str, Any] = {}
        shaped: list[ast.expr] = []
        for index, element in enumerate(node.elts):
            if isinstance(element, ast.Constant):
                shaped.append(element)
                continue
            name = f"_{index}"
            if isinstance(element, ast.Starred):
                self._elements([element], enclosing)  # refuses what cannot be splatted
                namespace[name] = self.evaluate(element.value, enclosing)
                shaped.append(ast.Starred(ast.Name(name, ast.Load()), ast.Load()))
            else:
                namespace[name] = self.evaluate(element, enclosing)
                shaped.append(ast.Name(name, ast.Load()))
        display = ast.fix_missing_locations(ast.Expression(ast.Set(shaped)))
        code = as_bytecode(compile(display, "<set display>", "eval"))
        try:
            # Only literals of the source and names bound to already evaluated constants: no
            # call, attribute or builtin can run.
            return eval(code, {"__builtins__": {}}, namespace)
        except TypeError as exc:
            raise Unresolved(short_source(node), f"cannot be a set: {exc}") from None

    def _Dict(self, node: ast.Dict, enclosing: tuple[Enclosing, ...]) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:  # ``**splat``
                splat = self.evaluate(value, enclosing)
                if not isinstance(splat, dict):
                    raise Unresolved(
                        short_source(value), f"is splatted with ** but is a {type(splat).__name__}"
                    )
                result.update(splat)
                continue
            evaluated = self.evaluate(key, enclosing)
            try:
                result[evaluated] = self.evaluate(value, enclosing)
            except TypeError:
                raise Unresolved(short_source(key), "cannot be a dict key (unhashable)") from None
        return result

    def _Subscript(self, node: ast.Subscript, enclosing: tuple[Enclosing, ...]) -> Any:
        container = self.evaluate(node.value, enclosing)
        index = self.evaluate(node.slice, enclosing)
        try:
            return container[index]
        except (LookupError, TypeError) as exc:
            raise Unresolved(short_source(node), f"cannot be looked up: {exc!r}") from None

    def _Slice(self, node: ast.Slice, enclosing: tuple[Enclosing, ...]) -> slice:
        parts = [
            None if p is None else self.evaluate(p, enclosing)
            for p in (node.lower, node.upper, node.step)
        ]
        return slice(*parts)

    def _Attribute(self, node: ast.Attribute, enclosing: tuple[Enclosing, ...]) -> Any:
        dotted = dotted_name(node)
        if dotted is not None and dotted.split(".")[0] == "os" and ".environ" in f".{dotted}":
            raise Unresolved(dotted, "reads the environment, which is known only at run time")
        base = self.evaluate(node.value, enclosing)
        if isinstance(base, ModuleRef):
            other = self._other(base.dotted)
            child = f"{base.dotted}.{node.attr}"
            if find_module_file(child, self.scope.roots) is not None:
                return ModuleRef(child)
            if other is None:
                raise Unresolved(
                    short_source(node),
                    f"is read from {base.dotted}, which the generator cannot read",
                )
            try:
                return other.name(node.attr)
            except Unresolved as inner:
                raise Unresolved(
                    short_source(node),
                    f"is read from {base.dotted}, where `{inner.part}` {inner.why}",
                ) from None
        if isinstance(base, EnumClass):
            return base.member(node.attr, short_source(node))
        if isinstance(base, EnumMember) and node.attr in ("value", "name"):
            return base.value if node.attr == "value" else base.name
        raise Unresolved(
            short_source(node),
            f"reads attribute {node.attr!r} of a {type(base).__name__}; only module attributes, "
            "enum members and their .value / .name are evaluated",
        )

    def _is_enum(self, node: ast.ClassDef) -> bool:
        """A class whose bases include ``Enum``, ``StrEnum`` or ``IntEnum`` from ``enum``."""
        for base in node.bases:
            dotted = dotted_name(base) or ""
            head, _, rest = dotted.partition(".")
            bound = self.scope.bindings.get(head)
            if isinstance(bound, ast.alias) and head not in self.scope.dynamic:
                origin = self.scope.imported(bound) + (f".{rest}" if rest else "")
                if origin in ("enum.Enum", "enum.StrEnum", "enum.IntEnum"):
                    return True
        return False
