"""The calls ``mcp_codegen._generator.constants.evaluate`` evaluates: built-in containers, ``sorted``, the MCP value
constructors (``ToolAnnotations``, ``Icon``) and text functions over constant strings. Any other
call is refused, since its result is known only by running it."""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any

from mcp_codegen._generator.constants.helpers import (
    call_helper,
    environment_reads,
    helper_def,
    project_def,
)
from mcp_codegen._generator.constants.module_scope import Enclosing, ModuleScope
from mcp_codegen._generator.constants.outcomes import (
    SCALARS,
    Constructed,
    Unresolved,
    dotted_name,
    short_source,
)

#: Calls evaluated as values: MCP types (``mcp.types``, re-exported by both frameworks) whose
#: constructors only validate and store their keyword arguments. Any other call (your own
#: functions, pydantic models of your own whose validators may run code) is refused.
CONSTRUCTORS = frozenset({"ToolAnnotations", "Icon"})
#: Calls of built-in container types whose result follows from their arguments.
BUILTIN_CONSTRUCTORS = {
    "dict": dict,
    "list": list,
    "tuple": tuple,
    "set": set,
    "frozenset": frozenset,
}
#: ``str`` methods whose result follows from the string and the (constant) arguments alone.
STR_METHODS = frozenset(
    [
        "strip",
        "lstrip",
        "rstrip",
        "upper",
        "lower",
        "title",
        "capitalize",
        "replace",
        "format",
        "join",
        "removeprefix",
        "removesuffix",
    ]
)
#: Standard-library text functions with the same property, by their import origin.
TEXT_FUNCTIONS = {"textwrap.dedent": textwrap.dedent, "inspect.cleandoc": inspect.cleandoc}
_CALLS = (
    "the generator evaluates only ToolAnnotations and Icon from the MCP SDK or fastmcp, built-in "
    "containers, sorted(), str methods, textwrap.dedent and functions of the project whose body "
    "is a single return of a constant expression"
)


class CallEvaluation:
    """The ``ast.Call`` part of ``constants.Evaluator`` (a mixin: it evaluates arguments with the
    evaluator's own ``evaluate``)."""

    scope: ModuleScope

    def evaluate(self, node: ast.expr, enclosing: tuple[Enclosing, ...] = ()) -> Any:
        raise NotImplementedError

    def _elements(self, elements: list[ast.expr], enclosing: tuple[Enclosing, ...]) -> list[Any]:
        raise NotImplementedError

    def _BoundValue(self, node: Any, enclosing: tuple[Enclosing, ...]) -> Any:
        """A project helper's argument, evaluated at the call (``constants.helpers``)."""
        return node.value

    def _Call(self, node: ast.Call, enclosing: tuple[Enclosing, ...]) -> Any:
        callee = dotted_name(node.func) or short_source(node.func)
        short = callee.rsplit(".", 1)[-1]
        if short in ("getenv", "environ") or callee.startswith("os.environ"):
            first = node.args[0] if node.args else None
            named = isinstance(first, ast.Constant) and isinstance(first.value, str)
            raise Unresolved(
                f"{callee}({first.value!r})" if named else f"{callee}(...)",  # type: ignore[union-attr]
                "reads the environment, which is known only at run time",
            )
        if callee in BUILTIN_CONSTRUCTORS and callee not in self.scope.bindings:
            args = [self.evaluate(a, enclosing) for a in node.args]
            if len(args) > 1 or any(isinstance(a, ast.Starred) for a in node.args):
                raise Unresolved(f"{callee}(...)", "takes at most one positional argument here")
            try:
                return BUILTIN_CONSTRUCTORS[callee](*args, **self._keywords(node, enclosing))
            except TypeError as exc:
                raise Unresolved(f"{callee}(...)", f"fails: {exc}") from None
        if callee == "sorted" and callee not in self.scope.bindings:
            return self._sorted(node, enclosing)
        model = self._mcp_type(node.func)
        if model is not None:
            if node.args:
                raise Unresolved(f"{callee}(...)", "takes keyword arguments only")
            return Constructed(model, tuple(self._keywords(node, enclosing).items()))
        text = self._text_call(node, callee, enclosing)
        if text is not None:
            return text
        helper = helper_def(self, node.func)  # type: ignore[arg-type]
        if helper is not None:  # ``def read_only(): return ToolAnnotations(...)``
            return call_helper(self, *helper, node, enclosing)  # type: ignore[arg-type]
        defined = project_def(self, node.func)
        variables = environment_reads(defined[1]) if defined is not None else []
        if variables:  # ``def tool_name(n): return f"{os.environ.get('PREFIX')}_{n}"``
            listed = ", ".join(variables)
            raise Unresolved(
                f"{callee}(...)",
                f"reads the environment variable{'s' if len(variables) > 1 else ''} {listed} "
                "(known only at run time)",
            )
        raise Unresolved(
            f"{callee}(...)",
            f"calls a function, whose result is known only by running it ({_CALLS})",
        )

    def _sorted(self, node: ast.Call, enclosing: tuple[Enclosing, ...]) -> list[Any]:
        """``sorted(CONSTANT)`` and ``sorted(CONSTANT, reverse=True)``: the fix the hash-seed
        warning suggests for a set, so it must evaluate too (``key=`` would be a function)."""
        names = {keyword.arg for keyword in node.keywords}
        if len(node.args) != 1 or isinstance(node.args[0], ast.Starred) or names - {"reverse"}:
            raise Unresolved(
                "sorted(...)", "is evaluated with one positional argument and reverse= only"
            )
        keywords = self._keywords(node, enclosing)
        items = self.evaluate(node.args[0], enclosing)
        if not isinstance(items, list | tuple | set | frozenset | dict | str):
            raise Unresolved("sorted(...)", "sorts something that is not a constant container")
        try:
            return sorted(items, reverse=bool(keywords.get("reverse", False)))
        except TypeError as exc:
            raise Unresolved("sorted(...)", f"fails: {exc}") from None

    def _text_call(
        self, node: ast.Call, callee: str, enclosing: tuple[Enclosing, ...]
    ) -> str | list[str] | None:
        """``DESCRIPTION.strip()``, ``", ".join(NAMES)``, ``dedent(TEXT)``; ``None`` when the
        call is none of these."""
        function: Any = None
        if isinstance(node.func, ast.Attribute) and node.func.attr in STR_METHODS:
            base = self.evaluate(node.func.value, enclosing)
            if not isinstance(base, str):
                return None
            function = getattr(base, node.func.attr)
        else:
            dotted = dotted_name(node.func)
            head, _, rest = (dotted or "").partition(".")
            bound = self.scope.bindings.get(head)
            if isinstance(bound, ast.alias) and head not in self.scope.dynamic:
                origin = self.scope.imported(bound) + (f".{rest}" if rest else "")
                function = TEXT_FUNCTIONS.get(origin)
        if function is None:
            return None
        args = self._elements(node.args, enclosing)
        keywords = self._keywords(node, enclosing)
        scalars = [*args, *keywords.values()]
        if node.func is not None and getattr(node.func, "attr", "") == "join":
            # A set is joined in its iteration order, as at import: that order follows the hash
            # seed, which the workers pin (and ``--vary-hash-seed`` reports).
            joinable = list | tuple | set | frozenset
            scalars = [item for arg in args if isinstance(arg, joinable) for item in arg]
            if len(args) != 1 or not isinstance(args[0], joinable):
                raise Unresolved(
                    f"{callee}(...)", "joins something that is not a list, tuple or set"
                )
        if not all(isinstance(item, SCALARS) for item in scalars):
            raise Unresolved(f"{callee}(...)", "is evaluated over strings and numbers only")
        try:
            return function(*args, **keywords)
        except (TypeError, ValueError, IndexError, KeyError) as exc:
            raise Unresolved(f"{callee}(...)", f"fails: {exc}") from None

    def _keywords(self, node: ast.Call, enclosing: tuple[Enclosing, ...]) -> dict[str, Any]:
        """Keyword arguments in order, ``**constant`` splats included."""
        keywords: dict[str, Any] = {}
        for keyword in node.keywords:
            value = self.evaluate(keyword.value, enclosing)
            if keyword.arg is not None:
                keywords[keyword.arg] = value
            elif isinstance(value, dict) and all(isinstance(k, str) for k in value):
                keywords.update(value)
            else:
                raise Unresolved(
                    f"**{short_source(keyword.value)}", "is not a dict with string keys"
                )
        return keywords

    def _mcp_type(self, func: ast.expr) -> str | None:
        """``"ToolAnnotations"``/``"Icon"`` when ``func`` is that type imported from the MCP SDK
        or fastmcp (``from mcp.types import Icon``, ``from mcp import types`` then
        ``types.Icon``, aliases included); ``None`` for anything else, namesakes included."""
        dotted = dotted_name(func)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        bound = self.scope.bindings.get(head)
        if not isinstance(bound, ast.alias) or head in self.scope.dynamic:
            return None
        origin = self.scope.imported(bound) + (f".{rest}" if rest else "")
        name = origin.rsplit(".", 1)[-1]
        if origin.split(".")[0] in ("mcp", "fastmcp") and name in CONSTRUCTORS:
            return name
        return None
