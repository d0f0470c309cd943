"""Project helper calls that are constants in disguise (static evaluation; nothing runs).

``def read_only(): return ToolAnnotations(readOnlyHint=True)`` and then
``@mcp.tool(annotations=read_only())``: a plain ``def`` of the project whose body is one
``return`` (after an optional docstring) is evaluated like a constant, its parameters bound to
the call's constant arguments (and its own constant defaults). Anything more (statements,
``*args``, an async or decorated function) keeps the clear "calls a function" error.
"""

from __future__ import annotations

import ast
from typing import Any

from mcp_codegen._generator.constants.module_scope import Enclosing
from mcp_codegen._generator.constants.outcomes import Unresolved

#: a ``mcp_codegen._generator.constants.evaluate.Evaluator`` (not imported: evaluate imports this)
Evaluator = Any


class BoundValue(ast.expr):
    """A value already evaluated (a helper's argument), standing where an expression would."""

    _fields = ()

    def __init__(self, value: Any) -> None:
        super().__init__()
        self.value = value


def helper_def(evaluator: Evaluator, func: ast.expr) -> tuple[Evaluator, ast.FunctionDef] | None:
    """The evaluator of the module defining the helper ``func`` names, and its ``def``; None
    when ``func`` is not a single-return function of the project."""
    found = project_def(evaluator, func)
    return found if found is not None and single_return(found[1]) else None


def project_def(evaluator: Evaluator, func: ast.expr) -> tuple[Evaluator, ast.FunctionDef] | None:
    """The evaluator of the module defining the plain function ``func`` names, and its ``def``
    (any body); None when ``func`` is not a function of the project."""
    if not isinstance(func, ast.Name):
        return None
    owner: Evaluator | None = evaluator
    bound = evaluator.scope.bindings.get(func.id)
    if isinstance(bound, ast.alias):  # ``from .annotations import read_only``
        dotted = evaluator.scope.imported(bound)
        module, _, attribute = dotted.rpartition(".")
        owner = evaluator._other(module) if module else None
        bound = owner.scope.bindings.get(attribute) if owner is not None else None
    if owner is None or not isinstance(bound, ast.FunctionDef):
        return None
    return owner, bound


def environment_reads(node: ast.FunctionDef) -> list[str]:
    """The environment variables a function's body reads by a literal name
    (``os.environ.get("X")``, ``os.getenv("X")``, ``os.environ["X"]``), in source order."""
    names: list[str] = []
    for inner in ast.walk(node):
        key: ast.expr | None = None
        if isinstance(inner, ast.Call) and inner.args:
            callee = inner.func
            if isinstance(callee, ast.Attribute) and (
                callee.attr == "getenv" or (callee.attr == "get" and _is_environ(callee.value))
            ):
                key = inner.args[0]
        elif isinstance(inner, ast.Subscript) and _is_environ(inner.value):
            key = inner.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            names.append(key.value)
    return list(dict.fromkeys(names))


def _is_environ(node: ast.expr) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or (
        isinstance(node, ast.Name) and node.id == "environ"
    )


def single_return(node: ast.FunctionDef) -> bool:
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    arguments = node.args
    return (
        len(body) == 1
        and isinstance(body[0], ast.Return)
        and body[0].value is not None
        and not node.decorator_list
        and arguments.vararg is None
        and arguments.kwarg is None
    )


def call_helper(
    caller: Evaluator,
    owner: Evaluator,
    node: ast.FunctionDef,
    call: ast.Call,
    enclosing: tuple[Enclosing, ...],
) -> Any:
    """The helper's return value for this call's constant arguments."""
    arguments = node.args
    positional = [*arguments.posonlyargs, *arguments.args]
    names = [a.arg for a in [*positional, *arguments.kwonlyargs]]
    where = f"{owner.relative}:{node.lineno}:{node.col_offset + 1}"
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        raise Unresolved(f"{node.name}(...)", "passes * or ** arguments to a project helper")
    if len(call.args) > len(positional):
        raise Unresolved(f"{node.name}(...)", f"passes too many arguments to {node.name}()")
    values: dict[str, Any] = {}
    for parameter, argument in zip(positional, call.args, strict=False):
        values[parameter.arg] = caller.evaluate(argument, enclosing)
    for keyword in call.keywords:
        if keyword.arg not in names or keyword.arg in values:
            raise Unresolved(
                f"{node.name}(...)", f"passes {keyword.arg}= which {node.name}() ({where}) rejects"
            )
        values[keyword.arg] = caller.evaluate(keyword.value, enclosing)
    names_with_defaults = [a.arg for a in positional][len(positional) - len(arguments.defaults) :]
    defaults: dict[str, ast.expr] = dict(zip(names_with_defaults, arguments.defaults, strict=True))
    defaults.update(
        {a.arg: d for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True) if d}
    )
    constants: dict[str, ast.expr] = {}
    for name in names:
        if name in values:
            constants[name] = BoundValue(values[name])
        elif name in defaults:
            constants[name] = defaults[name]
        else:
            raise Unresolved(
                f"{node.name}(...)", f"leaves parameter {name!r} of {node.name}() ({where}) unset"
            )
    scope = Enclosing(
        name=node.name, parameters=frozenset(), local_names=frozenset(names), constants=constants
    )
    body = node.body[-1]
    assert isinstance(body, ast.Return) and body.value is not None
    try:
        return owner.evaluate(body.value, (scope,))
    except Unresolved as inner:
        raise Unresolved(
            f"{node.name}(...)",
            f"calls {node.name}() ({where}), a helper whose return value is not constant: "
            f"`{inner.part}` {inner.why}",
        ) from None
